/* source-bpf-napi.c: the bpf source's NAPI polls per instance, from the eBPF program set
 * "napi" (bpf/napi.bpf.c: napi:napi_poll), read from its per-CPU map at the source's interval
 * (the series are described in source-bpf.c). An instance is its NAPI id, ifindex and network
 * namespace; device and queue come from the NAPI table (netdev netlink), else the ifindex. */
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfset.h"
#include "napitable.h"
#include "source-bpf-priv.h"
#include "source.h"
#include "xmalloc.h"

/* The kernel's maps, through the fds in pv. */
static long
fd_read_napis(void *arg, struct nm_napi_key *keys, struct nm_napi_cpu *vals, size_t max)
{
	struct bpf_priv *pv = arg;

	return bpfset_read_napis(pv->nset.fds[0], keys, vals, max);
}

static int
fd_napi_prog_stats(void *arg, struct bpfset_prog_stats *st)
{
	struct bpf_priv *pv = arg;

	return bpfset_prog_stats(pv->nset.fds[BPFSET_NAPI_MAPS], st);
}

void
source_bpf_napi_use_fds(struct source_bpf_reader *rd)
{
	rd->read_napis = fd_read_napis;
	rd->napi_prog_stats = fd_napi_prog_stats;
}

void
source_bpf_napi_init(struct bpf_priv *pv, bool test_reader)
{
	pv->nset.set = BPFSET_NAPI;
	for (size_t i = 0; i < BPFSET_FDS_MAX; i++)
		pv->nset.fds[i] = -1;
	pv->nset.on = test_reader && pv->rd.read_napis != NULL;
	source_bpf_mapbuf_init(&pv->nbuf, pv, sizeof(struct nm_napi_key),
	                       sizeof(struct nm_napi_cpu), BPF_NAPIS_START, NM_NAPI_MAX);
	pv->nprog_time = pv->nprog_runs = SERIES_NONE;
}

/* Order of NAPI keys: by id, ifindex, netns. */
static int
napi_cmp(const void *entry, const void *key)
{
	const struct nm_napi_key *m = &((const struct bpf_napi *)entry)->key, *k = key;

	if (m->id != k->id)
		return m->id < k->id ? -1 : 1;
	if (m->ifindex != k->ifindex)
		return m->ifindex < k->ifindex ? -1 : 1;
	if (m->netns != k->netns)
		return m->netns < k->netns ? -1 : 1;
	return 0;
}

/* The entry of NAPI key k, made when new (kept sorted by id, ifindex, netns). */
static struct bpf_napi *
napi_entry(struct bpf_priv *pv, const struct nm_napi_key *k)
{
	bool found;
	size_t at = source_bpf_find(pv->napis, pv->nnapis, sizeof(*pv->napis), k, napi_cmp, &found);
	struct bpf_napi *e;

	if (found)
		return &pv->napis[at];
	pv->napis = source_bpf_insert(pv->napis, &pv->nnapis, &pv->napicap, sizeof(*pv->napis), at);
	e = &pv->napis[at];
	e->key = *k;
	e->polls = e->packets = e->exhausted = SERIES_NONE;
	e->cpu_polls = xreallocarray(NULL, pv->ncpus, sizeof(series_id));
	for (unsigned cpu = 0; cpu < pv->ncpus; cpu++)
		e->cpu_polls[cpu] = SERIES_NONE;
	return e;
}
/* The labels of NAPI e's series: device and queue from the NAPI table (netdev netlink), else
 * the device of its ifindex when it is in the daemon's namespace; none for another's. */
static struct series_labels
napi_labels(struct source *src, struct bpf_priv *pv, const struct bpf_napi *e)
{
	struct series_labels l = source_labels(src);
	const struct napi_entry *n =
	    e->key.id != 0 ? napitable_find_id(src->napitab, e->key.id) : NULL;
	char dev[IF_NAMESIZE + 8];

	l.table = source_atom(src, "napi", 4);
	if (n != NULL && (e->key.netns == pv->netns || e->key.netns == 0)) {
		l.device = source_atom(src, n->dev, strlen(n->dev));
		if (n->rxq >= 0)
			l.queue = n->rxq;
	} else if (e->key.ifindex != 0 && e->key.netns == pv->netns) {
		source_bpf_ifname(pv, e->key.ifindex, dev, sizeof(dev));
		l.device = source_atom(src, dev, strlen(dev));
	}
	return l;
}

/* The name of NAPI e in its series: its id; "backlog" for the per-CPU backlogs (netif_rx
 * and RPS: process_backlog, no device, no id); "if<IFINDEX>" for another without an id. */
static void
napi_name(const struct bpf_napi *e, char *buf, size_t size)
{
	if (e->key.id != 0)
		snprintf(buf, size, "%u", e->key.id);
	else if (e->key.ifindex == 0)
		snprintf(buf, size, "backlog");
	else
		snprintf(buf, size, "if%u", e->key.ifindex);
}

/* NAPI e's series: totals and, on CPUs that polled it, polls per CPU. */
static void
napi_series(struct source *src, struct bpf_priv *pv, struct bpf_napi *e)
{
	struct series_labels l = napi_labels(src, pv, e);
	char id[24];

	napi_name(e, id, sizeof(id));
	l.field = source_atom(src, "polls", 5);
	e->polls = series_internf(src->reg, SERIES_COUNTER, src->index, "polls", 1.0, &l,
	                          "bpf.napi.%s.polls", id);
	l.field = source_atom(src, "packets", 7);
	e->packets = series_internf(src->reg, SERIES_COUNTER, src->index, "packets", 1.0, &l,
	                            "bpf.napi.%s.packets", id);
	l.field = source_atom(src, "exhausted", 9);
	e->exhausted = series_internf(src->reg, SERIES_COUNTER, src->index, "polls", 1.0, &l,
	                              "bpf.napi.%s.exhausted", id);
}

/* The per-CPU polls series of NAPI e on cpu. */
static series_id
napi_cpu_series(struct source *src, struct bpf_priv *pv, const struct bpf_napi *e, unsigned cpu)
{
	struct series_labels l = napi_labels(src, pv, e);
	char id[24];

	napi_name(e, id, sizeof(id));
	l.field = source_atom(src, "polls", 5);
	l.cpu = (int16_t)cpu;
	return series_internf(src->reg, SERIES_COUNTER, src->index, "polls", 1.0, &l,
	                      "bpf.napi.%s.polls.cpu%u", id, cpu);
}

/* napi_stats through the reader. */
static long
read_napis(const struct bpf_priv *pv, void *keys, void *vals, size_t max)
{
	return pv->rd.read_napis(pv->rd.arg, keys, vals, max);
}

int
source_bpf_napi_put(struct source *src, struct bpf_priv *pv, struct sink *sink,
                    struct nm_error *err)
{
	long n = source_bpf_read_map(pv, &pv->nbuf, read_napis, "napi_stats", err);
	const struct nm_napi_key *keys = pv->nbuf.keys;
	const struct nm_napi_cpu *vals = pv->nbuf.vals;

	if (n < 0)
		return -1;
	for (size_t i = 0; i < (size_t)n; i++) {
		struct bpf_napi *e = napi_entry(pv, &keys[i]);
		const struct nm_napi_cpu *v = &vals[i * pv->ncpus];
		uint64_t polls = 0, packets = 0, exhausted = 0;

		if (e->polls == SERIES_NONE)
			napi_series(src, pv, e);
		for (unsigned cpu = 0; cpu < pv->ncpus; cpu++) {
			polls += v[cpu].polls;
			packets += v[cpu].packets;
			exhausted += v[cpu].exhausted;
			if (e->cpu_polls[cpu] == SERIES_NONE) {
				if (v[cpu].polls == 0)
					continue;
				e->cpu_polls[cpu] = napi_cpu_series(src, pv, e, cpu);
			}
			sink_put(sink, e->cpu_polls[cpu], v[cpu].polls);
		}
		sink_put(sink, e->polls, polls);
		sink_put(sink, e->packets, packets);
		sink_put(sink, e->exhausted, exhausted);
	}
	pv->have_nprog =
	    pv->rd.napi_prog_stats != NULL && pv->rd.napi_prog_stats(pv->rd.arg, &pv->nprog) == 0;
	if (pv->have_nprog)
		source_bpf_put_prog(src, sink, "napi_poll", &pv->nprog_time, &pv->nprog_runs,
		                    &pv->nprog);
	return 0;
}

void
source_bpf_napi_free(struct bpf_priv *pv)
{
	for (size_t i = 0; i < pv->nnapis; i++)
		free(pv->napis[i].cpu_polls);
	free(pv->napis);
	source_bpf_mapbuf_free(&pv->nbuf);
}
