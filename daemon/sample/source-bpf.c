/* source-bpf.c: softirq and hard IRQ time and counts per CPU, from the eBPF program set "irq"
 * (bpf/irq.bpf.c, base/bpfset.h), read from its per-CPU maps at the source's interval.
 *
 * Series, each a 64-bit COUNTER:
 *   bpf.softirq.<TYPE>.cpu<C>       softirqs   labels type, cpu (those of softirqs' series:
 *                                              a window's delta compares with
 *                                              softirq.<TYPE>.cpu<C> directly)
 *   bpf.softirq_time.<TYPE>.cpu<C>  ns         type, cpu, field "time": entry to exit, less
 *                                              the hard IRQ handler time inside
 *   bpf.irq.<N>.cpu<C>              interrupts irq, cpu (as irq.<N>.cpu<C>: handler runs)
 *   bpf.irq_time.<N>.cpu<C>         ns         irq, cpu, field "time": handler time
 *   bpf.prog.<PROG>.run_time        ns         table <PROG>, field "run_time": the programs'
 *   bpf.prog.<PROG>.runs            runs       table <PROG>, field "run_cnt":  own cost
 *   bpf.drop.<REASON>               packets    table "drop", field <REASON>: packets freed
 *                                              as dropped for that reason (skb:kfree_skb,
 *                                              program set "drop"), every namespace's
 *   bpf.drop.<REASON>.<DEV>         packets    the same and device <DEV>: the part of them
 *                                              whose skb had device DEV of the daemon's
 *                                              network namespace
 *   bpf.napi.<ID>.polls             polls      table "napi", field polls; device and queue
 *   bpf.napi.<ID>.packets           packets    where known (the NAPI table, else the
 *   bpf.napi.<ID>.exhausted         polls      ifindex in the daemon's namespace): NAPI
 *                                              instance ID's polls (napi:napi_poll, program
 *                                              set "napi"), their packets, and the polls
 *                                              that used their whole budget
 *   bpf.napi.<ID>.polls.cpu<C>      polls      the same polls on CPU C, once it polled there
 * <ID> is "backlog" for the per-CPU backlogs (netif_rx, RPS: no device, no id).
 * Softirq series exist for every type and every possible CPU (as /proc/softirqs lists them);
 * an IRQ's series for a CPU once it ran a handler there.
 *
 * A reason's name is the kernel's (enum skb_drop_reason in its BTF, read at init, without
 * the SKB_DROP_REASON_ prefix: the numbering changes between kernels); a number it does not
 * name counts under OTHER. Reasons' series appear with their first drop (from zero), as do
 * devices'. The drop set is loaded apart from set irq: a kernel that refuses it (no reason
 * argument before 5.17) keeps the softirq and IRQ series, and status says why ("drops").
 *
 * The type of softirq index k is row k of /proc/softirqs (the kernel prints
 * softirq_to_name[] in index order), read once at init; the names are the ones the softirqs
 * source gives its series.
 *
 * Where the maps come from: the privileged process loads and attaches the programs and hands
 * the map fds over (privsep.h), or, in a daemon run as root without the split, the source
 * loads them itself; a user without the capabilities gets the reason in status. Reading a map
 * or a program's statistics by fd needs no capability (kernels since 6.5; before, with
 * kernel.unprivileged_bpf_disabled set, the reads fail with EPERM and status says so).
 *
 * The drops are source-bpf-drops.c's, the NAPI instances source-bpf-napi.c's; their state and
 * the helpers the three share (map reads, sorted entries, the programs' series) are in
 * source-bpf-priv.h. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "bpfset.h"
#include "error.h"
#include "jsonutil.h"
#include "log.h"
#include "napitable.h"
#include "privsep.h"
#include "procparse.h"
#include "source-bpf-priv.h"
#include "source-bpf.h"
#include "source.h"
#include "xmalloc.h"

/* The types the kernel has had since 2.6.34, for a root without /proc/softirqs. */
static const char *const default_names[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                            "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};

struct bpf_opts {
	const struct source_bpf_reader *reader; /* a test's, or NULL */
	bool on_demand;                         /* [source.bpf] attach = on-demand */
	unsigned sets;                          /* [source.bpf] sets (SET_BIT), 0: not given */
	bool stats_off;                         /* [source.bpf] stats = off */
};

size_t
source_bpf_softirq_names(const char *buf, size_t len, char (*names)[SOURCE_BPF_NAME_MAX],
                         size_t max)
{
	const char *end = buf + len, *p = buf, *eol, *label;
	size_t n = 0, l;
	unsigned cpu;

	if ((eol = pp_eol(p, end)) == NULL || pp_cpu_header(p, eol, &cpu, 1) == 0)
		return 0;
	for (p = eol + 1; p < end && n < max; p = eol + 1) {
		if ((eol = pp_eol(p, end)) == NULL)
			break;
		if (pp_label(&p, eol, &label, &l) < 0 || l >= SOURCE_BPF_NAME_MAX)
			break;
		memcpy(names[n], label, l);
		names[n++][l] = '\0';
	}
	return n;
}

void
source_bpf_use_reader(struct source *src, const struct source_bpf_reader *r)
{
	struct bpf_opts *o = src->opts;

	if (o == NULL)
		src->opts = o = xcalloc(1, sizeof(*o));
	o->reader = r;
}

/* The kernel's maps, through the fds in pv. */
static int
fd_read_softirqs(void *arg, struct nm_softirq_cpu *out)
{
	struct bpf_priv *pv = arg;

	return bpfset_read_softirqs(pv->fds[0], out);
}

static long
fd_read_irqs(void *arg, uint32_t *keys, struct nm_irq_cpu *vals, size_t max)
{
	struct bpf_priv *pv = arg;

	return bpfset_read_irqs(pv->fds[1], keys, vals, max);
}

static int
fd_prog_stats(void *arg, size_t i, struct bpfset_prog_stats *st)
{
	struct bpf_priv *pv = arg;

	if (BPFSET_IRQ_MAPS + i >= pv->nfds) {
		errno = EINVAL;
		return -1;
	}
	return bpfset_prog_stats(pv->fds[BPFSET_IRQ_MAPS + i], st);
}

/* The softirq types: /proc/softirqs below the root, else the kernel's usual ten. */
static void
read_names(struct source *src, struct bpf_priv *pv)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n = source_read_file(src, "proc/softirqs", &buf, &cap);

	pv->nnames =
	    n > 0 ? source_bpf_softirq_names(buf, (size_t)n, pv->names, NM_NR_SOFTIRQS) : 0;
	free(buf);
	if (pv->nnames > 0)
		return;
	pv->nnames = sizeof(default_names) / sizeof(default_names[0]);
	for (size_t i = 0; i < pv->nnames; i++)
		snprintf(pv->names[i], sizeof(pv->names[i]), "%s", default_names[i]);
}

/* Get the set's fds: loaded here (root without the split). 0 or -1 with err. */
static int
load_here(struct bpf_priv *pv, struct nm_error *err)
{
	if ((pv->set = bpfset_load(BPFSET_IRQ, err)) == NULL)
		return -1;
	pv->nfds = bpfset_fds(pv->set, pv->fds, BPFSET_FDS_MAX);
	pv->own_fds = false;
	return 0;
}

/* Get an extra set's fds, as set irq's (acquire); a failure is kept in x->why for status,
 * not returned: the other series go on without. */
static void
acquire_extra(struct bpf_extra *x, size_t want)
{
	struct nm_error err;

	if (privsep_on()) {
		if (privsep_bpf(x->set, x->fds, BPFSET_FDS_MAX, &x->nfds, &err) < 0) {
			snprintf(x->why, sizeof(x->why), "%s", err.message);
			return;
		}
		if (x->nfds != want) {
			for (size_t i = 0; i < x->nfds; i++)
				close(x->fds[i]);
			snprintf(x->why, sizeof(x->why),
			         "%zu fds from the privileged process, not %zu", x->nfds, want);
			x->nfds = 0;
			return;
		}
	} else {
		if ((x->loaded = bpfset_load(x->set, &err)) == NULL) {
			snprintf(x->why, sizeof(x->why), "%s", err.message);
			return;
		}
		x->nfds = bpfset_fds(x->loaded, x->fds, BPFSET_FDS_MAX);
	}
	x->why[0] = '\0';
	x->on = true;
}

/* Close what was handed over, detach what was loaded here. */
static void
free_extra(struct bpf_extra *x)
{
	if (x->loaded == NULL)
		for (size_t i = 0; i < x->nfds; i++)
			if (x->fds[i] >= 0)
				close(x->fds[i]);
	bpfset_free(x->loaded);
}

/* Set irq's fds from the privileged process. 0 or -1 with err. */
static int
acquire_irq_split(struct bpf_priv *pv, struct nm_error *err)
{
	size_t n;

	if (privsep_bpf(BPFSET_IRQ, pv->fds, BPFSET_FDS_MAX, &pv->nfds, err) < 0)
		return -1;
	if (pv->nfds != BPFSET_IRQ_MAPS + BPFSET_IRQ_PROGS) {
		n = pv->nfds;
		for (size_t i = 0; i < pv->nfds; i++)
			close(pv->fds[i]);
		pv->nfds = 0;
		return nm_error_set(err, NM_ERR_INTERNAL,
		                    "source bpf: %zu fds from the privileged process, not %d", n,
		                    BPFSET_IRQ_MAPS + BPFSET_IRQ_PROGS);
	}
	pv->own_fds = true;
	return 0;
}

/* A set left out by [source.bpf] sets: have the privileged process detach it, should it hold
 * it from before a reload that took it out. */
static void
leave_out(int set)
{
	struct nm_error err;

	if (privsep_on() && privsep_bpf_detach(set, &err) < 0)
		log_warnx("source bpf: %s", err.message);
}

/* Get the fds of the configured sets ([source.bpf] sets): from the privileged process when
 * the daemon is split, loaded here when it runs as root without the split (or as a user, who
 * gets the reason); the sets left out are detached. While the split is coming (the first
 * samples, taken before it) nothing: the programs are not loaded by the main process as root.
 * Set irq's failure is the source's (its series are the source's first); drop's and napi's
 * are kept for status, unless no set came at all. 0 (pv->attached says whether they came),
 * or -1 with err. */
static int
acquire(struct bpf_priv *pv, struct nm_error *err)
{
	struct nm_error serr;

	if (!privsep_on() && privsep_expected()) {
		pv->via = "waiting";
		return 0;
	}
	/* The kernel's BPF stats ([source.bpf] stats): the privileged process holds them on
	 * (said before a set is asked for: it switches them on with a set unless told off), or this
	 * process when it loaded the sets itself. */
	if (privsep_on()) {
		if (privsep_bpf_stats(!pv->stats_off, &serr) < 0)
			log_warnx("source bpf: %s", serr.message);
	} else if (!pv->stats_off && pv->stats_fd < 0 &&
	           (pv->stats_fd = bpfset_enable_stats(&serr)) < 0)
		pv->stats_fd = -1; /* the counts work without; describe shows run time 0 */
	if (pv->sets & SET_BIT(BPFSET_IRQ)) {
		if ((privsep_on() ? acquire_irq_split(pv, err) : load_here(pv, err)) < 0) {
			snprintf(pv->irq_why, sizeof(pv->irq_why), "%s", err->message);
			return -1;
		}
		pv->irq_on = true;
		pv->irq_why[0] = '\0';
	} else
		leave_out(BPFSET_IRQ);
	if (!(pv->sets & SET_BIT(BPFSET_DROP)))
		leave_out(BPFSET_DROP);
	else if (pv->nreasons > 0)
		source_bpf_drops_acquire(pv);
	if (pv->sets & SET_BIT(BPFSET_NAPI))
		acquire_extra(&pv->nset, BPFSET_NAPI_MAPS + BPFSET_NAPI_PROGS);
	else
		leave_out(BPFSET_NAPI);
	if (!pv->irq_on && !pv->drops_on && !pv->nset.on) {
		if (pv->stats_fd >= 0)
			close(pv->stats_fd);
		pv->stats_fd = -1;
		return nm_error_set(err, NM_ERR_FAILED, "source bpf: no program set attached: %s",
		                    pv->sets & SET_BIT(BPFSET_DROP) ? pv->drops_why : pv->nset.why);
	}
	pv->via = privsep_on() ? "privileged process" : "loaded here";
	pv->attached = true;
	return 0;
}

/* Allocate the state, learn the types, and get the maps. */
static int
bpf_init(struct source *src, struct nm_error *err)
{
	struct bpf_opts *o = src->opts;
	struct bpf_priv *pv = xcalloc(1, sizeof(*pv));
	char why[256];

	src->priv = pv;
	pv->stats_fd = -1;
	pv->sets = o != NULL && o->sets != 0 ? o->sets : BPF_SETS_ALL;
	pv->stats_off = o != NULL && o->stats_off;
	for (size_t i = 0; i < BPFSET_FDS_MAX; i++)
		pv->fds[i] = pv->dfds[i] = -1;
	if (o != NULL && o->reader != NULL) {
		pv->rd = *o->reader;
		pv->via = "test reader";
		pv->attached = true;
		pv->irq_on = (pv->sets & SET_BIT(BPFSET_IRQ)) != 0;
	} else {
		if (!src->host)
			return nm_error_set(err, NM_ERR_UNSUPPORTED,
			                    "source bpf: reads the running kernel only (root is "
			                    "%s, not /)",
			                    src->root);
		if (!bpfset_usable(why, sizeof(why)))
			return nm_error_set(err, NM_ERR_UNSUPPORTED, "source bpf: %s", why);
		pv->on_demand = o != NULL && o->on_demand;
		pv->via = pv->on_demand ? "on demand (off)" : "waiting";
		pv->rd.ncpus = bpfset_ncpus();
		pv->rd.read_softirqs = fd_read_softirqs;
		pv->rd.read_irqs = fd_read_irqs;
		pv->rd.prog_stats = fd_prog_stats;
		source_bpf_drops_use_fds(&pv->rd);
		source_bpf_napi_use_fds(&pv->rd);
		pv->rd.arg = pv;
	}
	read_names(src, pv);
	pv->ncpus = pv->rd.ncpus ? pv->rd.ncpus : 1;
	pv->sbuf = xcalloc(pv->ncpus, sizeof(*pv->sbuf));
	pv->s_count = xreallocarray(NULL, pv->nnames * pv->ncpus, sizeof(series_id));
	pv->s_time = xreallocarray(NULL, pv->nnames * pv->ncpus, sizeof(series_id));
	for (size_t i = 0; i < pv->nnames * pv->ncpus; i++)
		pv->s_count[i] = pv->s_time[i] = SERIES_NONE;
	for (size_t i = 0; i < BPFSET_IRQ_PROGS; i++)
		pv->prog_time[i] = pv->prog_runs[i] = SERIES_NONE;
	source_bpf_mapbuf_init(&pv->ibuf, pv, sizeof(uint32_t), sizeof(struct nm_irq_cpu),
	                       BPF_IRQS_START, NM_IRQ_MAX);
	source_bpf_drops_init(pv);
	if (o == NULL || o->reader == NULL || !(pv->sets & SET_BIT(BPFSET_DROP)))
		pv->drops_on = false; /* until acquire gets the fds */
	source_bpf_napi_init(pv, o != NULL && o->reader != NULL &&
	                             (pv->sets & SET_BIT(BPFSET_NAPI)) != 0);
	return 0;
}

void
source_bpf_mapbuf_init(struct bpf_mapbuf *b, const struct bpf_priv *pv, size_t ksize, size_t vsize,
                       size_t cap, size_t max)
{
	b->ksize = ksize;
	b->vsize = vsize * pv->ncpus;
	b->cap = cap;
	b->max = max;
	b->keys = xreallocarray(NULL, cap, ksize);
	b->vals = xreallocarray(NULL, cap, b->vsize);
}

void
source_bpf_mapbuf_free(struct bpf_mapbuf *b)
{
	free(b->keys);
	free(b->vals);
	b->keys = b->vals = NULL;
}

long
source_bpf_read_map(struct bpf_priv *pv, struct bpf_mapbuf *b,
                    long (*read)(const struct bpf_priv *pv, void *keys, void *vals, size_t max),
                    const char *map, struct nm_error *err)
{
	long n;

	/* A full read may have left keys out: grow and read again (allocates only then). */
	while ((n = read(pv, b->keys, b->vals, b->cap)) >= 0 && (size_t)n == b->cap &&
	       b->cap < b->max) {
		b->cap *= 2;
		b->keys = xreallocarray(b->keys, b->cap, b->ksize);
		b->vals = xreallocarray(b->vals, b->cap, b->vsize);
	}
	if (n < 0)
		return nm_error_set(err, NM_ERR_FAILED, "source bpf: read %s: %s", map,
		                    strerror(errno));
	return n;
}

size_t
source_bpf_find(const void *v, size_t n, size_t size, const void *key,
                int (*cmp)(const void *entry, const void *key), bool *found)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cmp((const char *)v + mid * size, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < n && cmp((const char *)v + lo * size, key) == 0;
	return lo;
}

void *
source_bpf_insert(void *v, size_t *n, size_t *cap, size_t size, size_t at)
{
	char *a;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		v = xreallocarray(v, *cap, size);
	}
	a = v;
	memmove(a + (at + 1) * size, a + at * size, (*n - at) * size);
	memset(a + at * size, 0, size);
	(*n)++;
	return v;
}

void
source_bpf_put_prog(struct source *src, struct sink *sink, const char *prog, series_id *time,
                    series_id *runs, const struct bpfset_prog_stats *st)
{
	if (*time == SERIES_NONE) {
		struct series_labels l = source_labels(src);

		l.table = source_atom(src, prog, strlen(prog));
		l.field = source_atom(src, "run_time", 8);
		*time = series_internf(src->reg, SERIES_COUNTER, src->index, "ns", 1.0, &l,
		                       "bpf.prog.%s.run_time", prog);
		l.field = source_atom(src, "run_cnt", 7);
		*runs = series_internf(src->reg, SERIES_COUNTER, src->index, "runs", 1.0, &l,
		                       "bpf.prog.%s.runs", prog);
	}
	sink_put(sink, *time, st->run_time_ns);
	sink_put(sink, *runs, st->run_cnt);
}

void
source_bpf_ifname(struct bpf_priv *pv, uint32_t ifindex, char *buf, size_t size)
{
	char name[IF_NAMESIZE];

	if (pv->rd.ifname != NULL) {
		if (pv->rd.ifname(pv->rd.arg, ifindex, buf, size) == 0)
			return;
	} else if (if_indextoname(ifindex, name) != NULL) {
		snprintf(buf, size, "%s", name);
		return;
	}
	snprintf(buf, size, "if%u", ifindex);
}

/* Intern PREFIX.<what>.cpu<cpu> with labels l. */
static series_id
intern(struct source *src, const char *prefix, const char *what, unsigned cpu, const char *unit,
       struct series_labels *l)
{
	char name[128];
	int n = snprintf(name, sizeof(name), "%s.%s.cpu%u", prefix, what, cpu);

	l->cpu = (int16_t)cpu;
	return series_intern(src->reg, name, (size_t)n, SERIES_COUNTER, src->index, unit, 1.0, l);
}

/* Every type on every possible CPU. */
static void
put_softirqs(struct source *src, struct bpf_priv *pv, struct sink *sink)
{
	for (size_t t = 0; t < pv->nnames; t++) {
		for (unsigned cpu = 0; cpu < pv->ncpus; cpu++) {
			size_t k = t * pv->ncpus + cpu;

			if (pv->s_count[k] == SERIES_NONE) {
				struct series_labels l = source_labels(src);

				l.type = source_atom(src, pv->names[t], strlen(pv->names[t]));
				pv->s_count[k] =
				    intern(src, "bpf.softirq", pv->names[t], cpu, "softirqs", &l);
				l.field = source_atom(src, "time", 4);
				pv->s_time[k] =
				    intern(src, "bpf.softirq_time", pv->names[t], cpu, "ns", &l);
			}
			sink_put(sink, pv->s_count[k], pv->sbuf[cpu].count[t]);
			sink_put(sink, pv->s_time[k], pv->sbuf[cpu].time_ns[t]);
		}
	}
}

/* Order of IRQ entries. */
static int
irq_cmp(const void *entry, const void *key)
{
	uint32_t a = ((const struct bpf_irq *)entry)->irq, b = *(const uint32_t *)key;

	return a < b ? -1 : a > b;
}

/* The entry of irq, made when new (kept sorted). */
static struct bpf_irq *
irq_entry(struct bpf_priv *pv, uint32_t irq)
{
	bool found;
	size_t at = source_bpf_find(pv->irqs, pv->nirqs, sizeof(*pv->irqs), &irq, irq_cmp, &found);
	struct bpf_irq *e;

	if (found)
		return &pv->irqs[at];
	pv->irqs = source_bpf_insert(pv->irqs, &pv->nirqs, &pv->irqcap, sizeof(*pv->irqs), at);
	e = &pv->irqs[at];
	e->irq = irq;
	e->count = xreallocarray(NULL, pv->ncpus, sizeof(series_id));
	e->time = xreallocarray(NULL, pv->ncpus, sizeof(series_id));
	for (unsigned cpu = 0; cpu < pv->ncpus; cpu++)
		e->count[cpu] = e->time[cpu] = SERIES_NONE;
	return e;
}

/* irq_stats through the reader. */
static long
read_irqs(const struct bpf_priv *pv, void *keys, void *vals, size_t max)
{
	return pv->rd.read_irqs(pv->rd.arg, keys, vals, max);
}

/* Every IRQ the programs saw, on the CPUs where it ran a handler. 0 or -1 with err. */
static int
put_irqs(struct source *src, struct bpf_priv *pv, struct sink *sink, struct nm_error *err)
{
	long n = source_bpf_read_map(pv, &pv->ibuf, read_irqs, "irq_stats", err);
	const uint32_t *keys = pv->ibuf.keys;
	const struct nm_irq_cpu *vals = pv->ibuf.vals;

	if (n < 0)
		return -1;
	pv->irqs_read = (size_t)n;
	for (size_t i = 0; i < (size_t)n; i++) {
		struct bpf_irq *e = irq_entry(pv, keys[i]);
		const struct nm_irq_cpu *v = &vals[i * pv->ncpus];
		char num[16];

		snprintf(num, sizeof(num), "%u", e->irq);
		for (unsigned cpu = 0; cpu < pv->ncpus; cpu++) {
			if (e->count[cpu] == SERIES_NONE) {
				struct series_labels l = source_labels(src);

				if (v[cpu].count == 0)
					continue;
				l.irq = (int32_t)e->irq;
				e->count[cpu] = intern(src, "bpf.irq", num, cpu, "interrupts", &l);
				l.field = source_atom(src, "time", 4);
				e->time[cpu] = intern(src, "bpf.irq_time", num, cpu, "ns", &l);
			}
			sink_put(sink, e->count[cpu], v[cpu].count);
			sink_put(sink, e->time[cpu], v[cpu].time_ns);
		}
	}
	return 0;
}

/* The programs' own run time and count. */
static void
put_progs(struct source *src, struct bpf_priv *pv, struct sink *sink)
{
	size_t nnames;
	const char *const *names = bpfset_fd_names(BPFSET_IRQ, &nnames);

	pv->have_progs = true;
	for (size_t i = 0; i < BPFSET_IRQ_PROGS; i++) {
		const char *prog = names[BPFSET_IRQ_MAPS + i];

		if (pv->rd.prog_stats(pv->rd.arg, i, &pv->progs[i]) < 0) {
			pv->have_progs = false;
			continue;
		}
		source_bpf_put_prog(src, sink, prog, &pv->prog_time[i], &pv->prog_runs[i],
		                    &pv->progs[i]);
	}
}

/* Read the maps once: softirqs first (the sampler puts this source right after the softirqs
 * source, so that the two read the same moment as nearly as can be), then the IRQs and the
 * programs' statistics. */
static int
bpf_sample(struct source *src, struct sink *sink, struct nm_error *err)
{
	struct bpf_priv *pv = src->priv;

	if (!pv->attached) {
		if (pv->on_demand)
			return 0; /* off until a window asks (source_bpf_hold) */
		if (acquire(pv, err) < 0)
			return -1;
		if (!pv->attached)
			return 0; /* the split is coming: nothing yet */
	}
	if (pv->irq_on) {
		if (pv->rd.read_softirqs(pv->rd.arg, pv->sbuf) < 0)
			return nm_error_set(err, NM_ERR_FAILED,
			                    "source bpf: read softirq_stats: %s%s", strerror(errno),
			                    errno == EPERM
			                        ? " (kernel.unprivileged_bpf_disabled: reading "
			                          "BPF maps needs CAP_BPF before Linux 6.5)"
			                        : "");
		put_softirqs(src, pv, sink);
		if (put_irqs(src, pv, sink, err) < 0)
			return -1;
		put_progs(src, pv, sink);
	}
	if (pv->drops_on && source_bpf_drops_put(src, pv, sink, err) < 0)
		return -1;
	if (pv->nset.on && source_bpf_napi_put(src, pv, sink, err) < 0)
		return -1;
	return 0;
}

/* [source.bpf] sets: blank- or comma-separated set names, at least one, into a mask. */
static int
parse_sets(const char *val, unsigned *mask, struct nm_error *err)
{
	const char *p = val;

	*mask = 0;
	for (;;) {
		size_t n;
		int set;

		p += strspn(p, " \t,");
		if (*p == '\0')
			break;
		n = strcspn(p, " \t,");
		for (set = 1; set <= BPFSET_MAX; set++)
			if (strlen(bpfset_name(set)) == n && strncmp(p, bpfset_name(set), n) == 0)
				break;
		if (set > BPFSET_MAX)
			return nm_error_set(
			    err, NM_ERR_BAD_ARGS,
			    "[source.bpf] sets: no program set \"%.*s\" (irq, drop, "
			    "napi)",
			    (int)(n < 64 ? n : 64), p);
		*mask |= SET_BIT(set);
		p += n;
	}
	if (*mask == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[source.bpf] sets: name at least one program set (irq, drop, "
		                    "napi), or enable = no");
	return 0;
}

/* [source.bpf] attach = always | on-demand; sets = irq drop napi (any non-empty subset). */
static int
bpf_configure(struct source *src, const char *key, const char *val, struct nm_error *err)
{
	struct bpf_opts *o = src->opts;

	if (o == NULL)
		src->opts = o = xcalloc(1, sizeof(*o));
	if (strcmp(key, "sets") == 0)
		return parse_sets(val, &o->sets, err);
	if (strcmp(key, "stats") == 0) {
		if (strcmp(val, "on") == 0 || strcmp(val, "off") == 0) {
			o->stats_off = strcmp(val, "off") == 0;
			return 0;
		}
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[source.bpf] stats: bad value \"%s\" (on or off)", val);
	}
	if (strcmp(key, "attach") != 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "[source.bpf]: unknown key \"%s\"", key);
	if (strcmp(val, "always") == 0)
		o->on_demand = false;
	else if (strcmp(val, "on-demand") == 0)
		o->on_demand = true;
	else
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[source.bpf] attach: bad value \"%s\" (always or on-demand)",
		                    val);
	return 0;
}

/* Close the fds of every set and have them detached (the privileged process unloads them;
 * the ones loaded here are freed): the programs stop. The series keep their last values; the
 * next attach starts the maps from zero, which the sampler takes as a counter reset. */
static void
detach_all(struct bpf_priv *pv)
{
	struct nm_error err;
	static const int sets[] = {BPFSET_IRQ, BPFSET_DROP, BPFSET_NAPI};

	if (pv->own_fds)
		for (size_t i = 0; i < pv->nfds; i++)
			if (pv->fds[i] >= 0)
				close(pv->fds[i]);
	bpfset_free(pv->set);
	pv->set = NULL;
	if (pv->dset == NULL)
		for (size_t i = 0; i < pv->ndfds; i++)
			if (pv->dfds[i] >= 0)
				close(pv->dfds[i]);
	bpfset_free(pv->dset);
	pv->dset = NULL;
	free_extra(&pv->nset);
	pv->nset.loaded = NULL;
	pv->nset.nfds = pv->ndfds = pv->nfds = 0;
	pv->nset.on = pv->drops_on = pv->irq_on = pv->attached = false;
	pv->have_progs = pv->have_dprog = pv->have_nprog = false;
	if (pv->stats_fd >= 0)
		close(pv->stats_fd);
	pv->stats_fd = -1;
	for (size_t i = 0; i < BPFSET_FDS_MAX; i++)
		pv->fds[i] = pv->dfds[i] = pv->nset.fds[i] = -1;
	if (privsep_on())
		for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
			if (privsep_bpf_detach(sets[i], &err) < 0)
				log_warnx("source bpf: %s", err.message);
	pv->via = "on demand (off)";
}

bool
source_bpf_on_demand(const struct source *src)
{
	const struct bpf_priv *pv = src->priv;

	return pv != NULL && pv->on_demand;
}

int
source_bpf_hold(struct source *src, const char *holder, struct nm_error *err)
{
	struct bpf_priv *pv = src->priv;

	if (pv == NULL)
		return nm_error_set(err, NM_ERR_UNSUPPORTED,
		                    "bpf: the bpf source is off here%s%s (status says why)",
		                    src->reason[0] ? ": " : "", src->reason);
	for (size_t i = 0; i < pv->nholders; i++)
		if (strcmp(pv->holders[i], holder) == 0)
			return 0;
	if (pv->nholders == BPF_HOLDERS_MAX)
		return nm_error_set(err, NM_ERR_BUSY, "bpf: %d windows hold the programs already",
		                    BPF_HOLDERS_MAX);
	if (pv->on_demand && !pv->attached) {
		if (acquire(pv, err) < 0)
			return -1;
		if (!pv->attached)
			return nm_error_set(err, NM_ERR_BUSY,
			                    "bpf: the privileged process is not there yet");
		pv->via =
		    privsep_on() ? "privileged process (on demand)" : "loaded here (on demand)";
		log_info("source bpf: programs attached for %s", holder);
	}
	pv->holders[pv->nholders++] = xstrdup(holder);
	return 1;
}

void
source_bpf_release(struct source *src, const char *holder)
{
	struct bpf_priv *pv = src->priv;
	size_t i;

	if (pv == NULL)
		return;
	for (i = 0; i < pv->nholders && strcmp(pv->holders[i], holder) != 0; i++)
		;
	if (i == pv->nholders)
		return;
	free(pv->holders[i]);
	pv->holders[i] = pv->holders[--pv->nholders];
	if (pv->on_demand && pv->nholders == 0 && pv->attached) {
		detach_all(pv);
		log_info("source bpf: programs detached (%s was the last to hold them)", holder);
	}
}

/* One set's state for status: attached, off by config, unavailable (why), or, before the
 * programs came, detached (on demand, no window holds them) or waiting (for the privileged
 * process). */
static json_object *
describe_set(const struct bpf_priv *pv, int set, bool on, const char *why)
{
	json_object *o = json_object_new_object();
	const char *state = "attached";

	json_add_string(o, "name", bpfset_name(set));
	if (!(pv->sets & SET_BIT(set))) {
		state = "off by config";
		why = OFF_BY_CONFIG;
	} else if (on)
		why = NULL;
	else if (why != NULL && why[0] != '\0')
		state = "unavailable";
	else {
		state = pv->on_demand ? "detached" : "waiting";
		why = pv->on_demand ? "on demand: no window holds the programs"
		                    : "for the privileged process";
	}
	json_add_string(o, "state", state);
	if (why != NULL)
		json_add_string(o, "reason", why);
	return o;
}

/* Every set's state, in set order. */
static json_object *
describe_sets(const struct bpf_priv *pv)
{
	json_object *a = json_object_new_array();

	json_object_array_add(a, describe_set(pv, BPFSET_IRQ, pv->irq_on, pv->irq_why));
	json_object_array_add(a, describe_set(pv, BPFSET_DROP, pv->drops_on, pv->drops_why));
	json_object_array_add(a, describe_set(pv, BPFSET_NAPI, pv->nset.on, pv->nset.why));
	return a;
}

/* Facts for status: where the programs came from and what they cost. */
static json_object *
bpf_describe(struct source *src)
{
	struct bpf_priv *pv = src->priv;
	json_object *o = json_object_new_object(), *progs;
	size_t nnames;
	const char *const *names = bpfset_fd_names(BPFSET_IRQ, &nnames);

	json_add_bool(o, "built", bpfset_built());
	if (pv == NULL)
		return o;
	json_add_string(o, "set", "irq");
	json_add_string(o, "via", pv->via != NULL ? pv->via : "none");
	json_add_string(o, "attach", pv->on_demand ? "on-demand" : "always");
	json_add_string(o, "stats", pv->stats_off ? "off" : "on");
	json_add_bool(o, "attached", pv->attached);
	if (pv->nholders > 0) {
		json_object *h = json_object_new_array();

		for (size_t i = 0; i < pv->nholders; i++)
			json_object_array_add(h, json_object_new_string(pv->holders[i]));
		json_object_object_add(o, "held_by", h);
	}
	json_object_object_add(o, "sets", describe_sets(pv));
	json_add_uint(o, "cpus", pv->ncpus);
	json_add_uint(o, "softirq_types", pv->nnames);
	json_add_uint(o, "irqs", pv->nirqs);
	json_add_bool(o, "drops", pv->drops_on);
	if (!pv->drops_on && pv->drops_why[0] != '\0')
		json_add_string(o, "drops_reason", pv->drops_why);
	json_add_uint(o, "drop_reasons", pv->nreasons);
	json_add_uint(o, "drop_keys", pv->drops_read);
	json_add_bool(o, "napi", pv->nset.on);
	if (!pv->nset.on && pv->nset.why[0] != '\0')
		json_add_string(o, "napi_reason", pv->nset.why);
	json_add_uint(o, "napis", pv->nnapis);
	if (!pv->have_progs && !pv->have_dprog && !pv->have_nprog)
		return o;
	progs = json_object_new_array();
	for (size_t i = 0; pv->have_progs && i < BPFSET_IRQ_PROGS; i++) {
		const struct bpfset_prog_stats *st = &pv->progs[i];
		json_object *p = json_object_new_object();

		json_add_string(p, "name", names[BPFSET_IRQ_MAPS + i]);
		json_add_uint(p, "id", st->id);
		json_add_uint(p, "run_cnt", st->run_cnt);
		json_add_uint(p, "run_time_ns", st->run_time_ns);
		json_add_uint(p, "recursion_misses", st->recursion_misses);
		json_add_double(p, "ns_per_run",
		                st->run_cnt ? (double)st->run_time_ns / (double)st->run_cnt : 0.0);
		json_object_array_add(progs, p);
	}
	for (int k = 0; k < 2; k++) {
		const struct bpfset_prog_stats *st = k == 0 ? &pv->dprog : &pv->nprog;
		json_object *p;

		if (!(k == 0 ? pv->have_dprog : pv->have_nprog))
			continue;
		p = json_object_new_object();
		json_add_string(p, "name", k == 0 ? "kfree_skb" : "napi_poll");
		json_add_uint(p, "id", st->id);
		json_add_uint(p, "run_cnt", st->run_cnt);
		json_add_uint(p, "run_time_ns", st->run_time_ns);
		json_add_uint(p, "recursion_misses", st->recursion_misses);
		json_add_double(p, "ns_per_run",
		                st->run_cnt ? (double)st->run_time_ns / (double)st->run_cnt : 0.0);
		json_object_array_add(progs, p);
	}
	json_object_object_add(o, "programs", progs);
	return o;
}

/* Close what was handed over, detach what was loaded here, free the rest. */
static void
bpf_free(struct source *src)
{
	struct bpf_priv *pv = src->priv;

	free(src->opts);
	src->opts = NULL;
	if (pv == NULL)
		return;
	if (pv->own_fds)
		for (size_t i = 0; i < pv->nfds; i++)
			if (pv->fds[i] >= 0)
				close(pv->fds[i]);
	bpfset_free(pv->set);
	if (pv->dset == NULL)
		for (size_t i = 0; i < pv->ndfds; i++)
			if (pv->dfds[i] >= 0)
				close(pv->dfds[i]);
	bpfset_free(pv->dset);
	source_bpf_drops_free(pv);
	for (size_t i = 0; i < pv->nholders; i++)
		free(pv->holders[i]);
	free_extra(&pv->nset);
	source_bpf_napi_free(pv);
	if (pv->stats_fd >= 0)
		close(pv->stats_fd);
	for (size_t i = 0; i < pv->nirqs; i++) {
		free(pv->irqs[i].count);
		free(pv->irqs[i].time);
	}
	free(pv->irqs);
	source_bpf_mapbuf_free(&pv->ibuf);
	free(pv->s_count);
	free(pv->s_time);
	free(pv->sbuf);
	free(pv);
	src->priv = NULL;
}

/* Results keep the softirq series and the programs' cost, not the per-IRQ cells (as the
 * interrupts source's). */
static const struct source_match bpf_not_kept = {.irq = SOURCE_HAS};

/* Its Prometheus families (serve/prom.c): the softirq counts and times, the drops by reason (in
 * all, and per device of the daemon's namespace), each NAPI instance's polls, packets and
 * budget-exhausted polls (labelled with device, queue and the id, napi_id, which prom.c takes
 * from the series' name: two instances of one device differ by it); the IRQ cells, the per-CPU
 * NAPI polls and the programs' cost are not exported. */
static const struct source_family bpf_families[] = {
    {"netmetrics_bpf_softirqs",
     {.kind = SOURCE_COUNTERS, .cpu = SOURCE_HAS, .irq = SOURCE_HAS_NO, .unit = "softirqs"},
     false},
    {"netmetrics_bpf_softirq_seconds",
     {.kind = SOURCE_COUNTERS,
      .cpu = SOURCE_HAS,
      .irq = SOURCE_HAS_NO,
      .unit = "ns",
      .name = "bpf.softirq_time.*"},
     false},
    /* A reason's part on a device (its name has one more dot) before the reason's total: a
     * sum over the family's series never counts a drop twice. */
    {"netmetrics_bpf_device_drops",
     {.kind = SOURCE_COUNTERS, .unit = "packets", .name = "bpf.drop.*.*"},
     false},
    {"netmetrics_bpf_drops",
     {.kind = SOURCE_COUNTERS, .unit = "packets", .name = "bpf.drop.*"},
     false},
    {"netmetrics_bpf_napi_polls",
     {.kind = SOURCE_COUNTERS, .cpu = SOURCE_HAS_NO, .unit = "polls", .name = "bpf.napi.*.polls"},
     false},
    {"netmetrics_bpf_napi_packets",
     {.kind = SOURCE_COUNTERS,
      .cpu = SOURCE_HAS_NO,
      .unit = "packets",
      .name = "bpf.napi.*.packets"},
     false},
    {"netmetrics_bpf_napi_budget_exhausted",
     {.kind = SOURCE_COUNTERS,
      .cpu = SOURCE_HAS_NO,
      .unit = "polls",
      .name = "bpf.napi.*.exhausted"},
     false},
    {SOURCE_NO_FAMILY, {.kind = SOURCE_ANY_KIND}, false},
    {NULL, {.kind = SOURCE_ANY_KIND}, false},
};

const struct source_ops source_bpf_ops = {
    .name = "bpf",
    .prom = bpf_families,
    .keep = SOURCE_KEPT,
    .keep_except = &bpf_not_kept,
    /* Right after the softirqs source in a round: the two read the same moment as nearly as
     * can be, so that their window deltas compare. */
    .after = "softirqs",
    /* Off, saying why, where the programs cannot run (not built, no BTF, a fixture root). */
    .optional = true,
    .description = "softirq and hard IRQ time and counts per CPU, drops per reason, NAPI "
                   "polls (eBPF, program sets irq, drop and napi)",
    .configure = bpf_configure,
    .init = bpf_init,
    .sample = bpf_sample,
    .describe = bpf_describe,
    .free = bpf_free,
};
