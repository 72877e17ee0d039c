/* source-bpf-drops.c: the bpf source's drops by reason, from the eBPF program set "drop"
 * (bpf/drop.bpf.c: skb:kfree_skb), read from its per-CPU map at the source's interval (the
 * series are described in source-bpf.c).
 *
 * A reason's name is the kernel's (enum skb_drop_reason in its BTF, read at init, without
 * the SKB_DROP_REASON_ prefix: the numbering changes between kernels); a number it does not
 * name counts under OTHER. Reasons' series appear with their first drop (from zero), as do
 * devices'. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfset.h"
#include "error.h"
#include "privsep.h"
#include "source-bpf-priv.h"
#include "source.h"
#include "xmalloc.h"

/* The kernel's maps, through the fds in pv. */
static long
fd_read_drops(void *arg, struct nm_drop_key *keys, uint64_t *vals, size_t max)
{
	struct bpf_priv *pv = arg;

	return bpfset_read_drops(pv->dfds[0], keys, vals, max);
}

static int
fd_drop_prog_stats(void *arg, struct bpfset_prog_stats *st)
{
	struct bpf_priv *pv = arg;

	return bpfset_prog_stats(pv->dfds[BPFSET_DROP_MAPS], st);
}

void
source_bpf_drops_use_fds(struct source_bpf_reader *rd)
{
	rd->read_drops = fd_read_drops;
	rd->drop_prog_stats = fd_drop_prog_stats;
}

void
source_bpf_drops_acquire(struct bpf_priv *pv)
{
	struct nm_error err;

	if (privsep_on()) {
		if (privsep_bpf(BPFSET_DROP, pv->dfds, BPFSET_FDS_MAX, &pv->ndfds, &err) < 0) {
			snprintf(pv->drops_why, sizeof(pv->drops_why), "%s", err.message);
			return;
		}
		if (pv->ndfds != BPFSET_DROP_MAPS + BPFSET_DROP_PROGS) {
			for (size_t i = 0; i < pv->ndfds; i++)
				close(pv->dfds[i]);
			snprintf(pv->drops_why, sizeof(pv->drops_why),
			         "%zu fds from the privileged process, not %d", pv->ndfds,
			         BPFSET_DROP_MAPS + BPFSET_DROP_PROGS);
			pv->ndfds = 0;
			return;
		}
	} else {
		if ((pv->dset = bpfset_load(BPFSET_DROP, &err)) == NULL) {
			snprintf(pv->drops_why, sizeof(pv->drops_why), "%s", err.message);
			return;
		}
		pv->ndfds = bpfset_fds(pv->dset, pv->dfds, BPFSET_FDS_MAX);
	}
	pv->drops_why[0] = '\0';
	pv->drops_on = true;
}

void
source_bpf_drops_init(struct bpf_priv *pv)
{
	struct nm_error err;
	struct stat st;
	long n;

	pv->rnames = xcalloc(BPFSET_REASONS_MAX + 1, sizeof(*pv->rnames));
	if (pv->rd.reasons != NULL) {
		n = (long)(pv->rd.nreasons < BPFSET_REASONS_MAX ? pv->rd.nreasons
		                                                : BPFSET_REASONS_MAX);
		memcpy(pv->rnames, pv->rd.reasons, (size_t)n * sizeof(*pv->rnames));
	} else if ((n = bpfset_drop_reasons(pv->rnames, BPFSET_REASONS_MAX, &err)) < 0) {
		snprintf(pv->drops_why, sizeof(pv->drops_why), "%s", err.message);
		n = 0;
	} else if (n == 0)
		snprintf(pv->drops_why, sizeof(pv->drops_why),
		         "the kernel's enum skb_drop_reason names no reason");
	pv->nreasons = (size_t)n;
	snprintf(pv->rnames[pv->nreasons], BPFSET_REASON_LEN, "OTHER");
	pv->r_id = xreallocarray(NULL, pv->nreasons + 1, sizeof(*pv->r_id));
	pv->r_sum = xcalloc(pv->nreasons + 1, sizeof(*pv->r_sum));
	for (size_t i = 0; i <= pv->nreasons; i++)
		pv->r_id[i] = SERIES_NONE;
	source_bpf_mapbuf_init(&pv->dbuf, pv, sizeof(struct nm_drop_key), sizeof(uint64_t),
	                       BPF_DROPS_START, NM_DROP_KEYS_MAX);
	pv->dprog_time = pv->dprog_runs = SERIES_NONE;
	pv->netns = pv->rd.netns;
	if (pv->netns == 0 && stat("/proc/self/ns/net", &st) == 0)
		pv->netns = (uint32_t)st.st_ino;
	if (pv->rd.read_drops != NULL && pv->nreasons > 0)
		pv->drops_on = true; /* the test reader's */
}

/* Order of (reason, ifindex) entries. */
static int
drop_dev_cmp(const void *entry, const void *key)
{
	const struct bpf_drop_dev *m = entry, *k = key;

	if (m->reason != k->reason)
		return m->reason < k->reason ? -1 : 1;
	if (m->ifindex != k->ifindex)
		return m->ifindex < k->ifindex ? -1 : 1;
	return 0;
}

/* The entry of (reason slot r, ifindex), made when new (kept sorted). */
static struct bpf_drop_dev *
drop_dev(struct bpf_priv *pv, uint32_t r, uint32_t ifindex)
{
	struct bpf_drop_dev k = {.reason = r, .ifindex = ifindex};
	bool found;
	size_t at =
	    source_bpf_find(pv->ddev, pv->nddev, sizeof(*pv->ddev), &k, drop_dev_cmp, &found);

	if (!found) {
		pv->ddev =
		    source_bpf_insert(pv->ddev, &pv->nddev, &pv->ddevcap, sizeof(*pv->ddev), at);
		pv->ddev[at] = k;
		pv->ddev[at].id = SERIES_NONE;
	}
	return &pv->ddev[at];
}

/* The series of reason slot r, on device ifindex (0: every device and none). */
static series_id
drop_series(struct source *src, struct bpf_priv *pv, uint32_t r, uint32_t ifindex)
{
	struct series_labels l = source_labels(src);
	const char *reason = pv->rnames[r];
	char dev[IF_NAMESIZE + 8];

	l.table = source_atom(src, "drop", 4);
	l.field = source_atom(src, reason, strlen(reason));
	if (ifindex == 0)
		return series_internf(src->reg, SERIES_COUNTER, src->index, "packets", 1.0, &l,
		                      "bpf.drop.%s", reason);
	source_bpf_ifname(pv, ifindex, dev, sizeof(dev));
	l.device = source_atom(src, dev, strlen(dev));
	return series_internf(src->reg, SERIES_COUNTER, src->index, "packets", 1.0, &l,
	                      "bpf.drop.%s.%s", reason, dev);
}

/* drop_stats through the reader. */
static long
read_drops(const struct bpf_priv *pv, void *keys, void *vals, size_t max)
{
	return pv->rd.read_drops(pv->rd.arg, keys, vals, max);
}

int
source_bpf_drops_put(struct source *src, struct bpf_priv *pv, struct sink *sink,
                     struct nm_error *err)
{
	long n = source_bpf_read_map(pv, &pv->dbuf, read_drops, "drop_stats", err);
	const struct nm_drop_key *keys = pv->dbuf.keys;
	const uint64_t *vals = pv->dbuf.vals;

	if (n < 0)
		return -1;
	pv->drops_read = (size_t)n;
	memset(pv->r_sum, 0, (pv->nreasons + 1) * sizeof(*pv->r_sum));
	for (size_t i = 0; i < pv->nddev; i++)
		pv->ddev[i].sum = 0;
	for (size_t i = 0; i < (size_t)n; i++) {
		const struct nm_drop_key *k = &keys[i];
		uint32_t r = k->reason < pv->nreasons && pv->rnames[k->reason][0] != '\0'
		                 ? k->reason
		                 : (uint32_t)pv->nreasons;
		uint64_t sum = 0;

		for (unsigned cpu = 0; cpu < pv->ncpus; cpu++)
			sum += vals[i * pv->ncpus + cpu];
		pv->r_sum[r] += sum;
		if (k->ifindex != 0 && k->netns == pv->netns) {
			struct bpf_drop_dev *e = drop_dev(pv, r, k->ifindex);

			if (e->id == SERIES_NONE)
				e->id = drop_series(src, pv, r, k->ifindex);
			e->sum += sum;
		}
	}
	for (size_t i = 0; i < pv->nddev; i++)
		sink_put(sink, pv->ddev[i].id, pv->ddev[i].sum);
	/* Unnamed reasons share OTHER: sum their devices' too, put once each. */
	for (size_t r = 0; r <= pv->nreasons; r++) {
		if (pv->r_id[r] == SERIES_NONE) {
			if (pv->r_sum[r] == 0)
				continue;
			pv->r_id[r] = drop_series(src, pv, (uint32_t)r, 0);
		}
		sink_put(sink, pv->r_id[r], pv->r_sum[r]);
	}
	pv->have_dprog =
	    pv->rd.drop_prog_stats != NULL && pv->rd.drop_prog_stats(pv->rd.arg, &pv->dprog) == 0;
	if (pv->have_dprog)
		source_bpf_put_prog(src, sink, "kfree_skb", &pv->dprog_time, &pv->dprog_runs,
		                    &pv->dprog);
	return 0;
}

void
source_bpf_drops_free(struct bpf_priv *pv)
{
	free(pv->rnames);
	free(pv->r_id);
	free(pv->r_sum);
	source_bpf_mapbuf_free(&pv->dbuf);
	free(pv->ddev);
}
