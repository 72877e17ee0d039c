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
 * Softirq series exist for every type and every possible CPU (as /proc/softirqs lists them);
 * an IRQ's series for a CPU once it ran a handler there.
 *
 * The type of softirq index k is row k of /proc/softirqs (the kernel prints
 * softirq_to_name[] in index order), read once at init; the names are the ones the softirqs
 * source gives its series.
 *
 * Where the maps come from: the privileged process loads and attaches the programs and hands
 * the map fds over (privsep.h), or, in a daemon run as root without the split, the source
 * loads them itself; a user without the capabilities gets the reason in status. Reading a map
 * or a program's statistics by fd needs no capability (kernels since 6.5; before, with
 * kernel.unprivileged_bpf_disabled set, the reads fail with EPERM and status says so). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "bpfset.h"
#include "error.h"
#include "jsonutil.h"
#include "privsep.h"
#include "procparse.h"
#include "source-bpf.h"
#include "source.h"
#include "xmalloc.h"

#define BPF_IRQS_START 64 /* IRQ slots read at first; doubled when full */

/* The types the kernel has had since 2.6.34, for a root without /proc/softirqs. */
static const char *const default_names[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                            "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};

/* One IRQ number's series. */
struct bpf_irq {
	uint32_t irq;
	series_id *count, *time; /* [ncpus] */
};

struct bpf_opts {
	const struct source_bpf_reader *reader; /* a test's, or NULL */
};

struct bpf_priv {
	struct source_bpf_reader rd; /* the one in use */
	/* The fds of the set: owned (closed at free) when handed over; the loaded set's own
	 * when loaded here. */
	int fds[BPFSET_FDS_MAX];
	size_t nfds;
	bool own_fds;
	struct bpfset *set; /* loaded here, or NULL */
	int stats_fd;       /* BPF_ENABLE_STATS fd when loaded here, else -1 */
	bool attached;      /* the fds are there (or the test reader) */
	const char *via;    /* "privileged process", "loaded here", "test reader", "waiting" */
	unsigned ncpus;
	char names[NM_NR_SOFTIRQS][SOURCE_BPF_NAME_MAX];
	size_t nnames;
	struct nm_softirq_cpu *sbuf; /* [ncpus] */
	series_id *s_count, *s_time; /* [nnames * ncpus] */
	uint32_t *keys;              /* [kcap] */
	struct nm_irq_cpu *vals;     /* [kcap * ncpus] */
	size_t kcap;
	struct bpf_irq *irqs; /* sorted by irq */
	size_t nirqs, irqcap;
	series_id prog_time[BPFSET_IRQ_PROGS], prog_runs[BPFSET_IRQ_PROGS];
	struct bpfset_prog_stats progs[BPFSET_IRQ_PROGS];
	bool have_progs;
	size_t irqs_read; /* in the last sample */
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
	struct nm_error serr;

	if ((pv->set = bpfset_load(BPFSET_IRQ, err)) == NULL)
		return -1;
	pv->nfds = bpfset_fds(pv->set, pv->fds, BPFSET_FDS_MAX);
	pv->own_fds = false;
	if ((pv->stats_fd = bpfset_enable_stats(&serr)) < 0)
		pv->stats_fd = -1; /* the counts work without; describe shows run time 0 */
	pv->via = "loaded here";
	return 0;
}

/* Get the set's fds: from the privileged process when the daemon is split, loaded here when
 * it runs as root without the split (or as a user, who gets the reason). While the split is
 * coming (the first samples, taken before it) nothing: the programs are not loaded by the
 * main process as root. 0 (pv->attached says whether they came), or -1 with err. */
static int
acquire(struct bpf_priv *pv, struct nm_error *err)
{
	if (privsep_on()) {
		if (privsep_bpf(BPFSET_IRQ, pv->fds, BPFSET_FDS_MAX, &pv->nfds, err) < 0)
			return -1;
		if (pv->nfds != BPFSET_IRQ_MAPS + BPFSET_IRQ_PROGS) {
			size_t n = pv->nfds;

			for (size_t i = 0; i < pv->nfds; i++)
				close(pv->fds[i]);
			pv->nfds = 0;
			return nm_error_set(
			    err, NM_ERR_INTERNAL,
			    "source bpf: %zu fds from the privileged process, not %d", n,
			    BPFSET_IRQ_MAPS + BPFSET_IRQ_PROGS);
		}
		pv->own_fds = true;
		pv->via = "privileged process";
	} else if (privsep_expected()) {
		pv->via = "waiting";
		return 0;
	} else if (load_here(pv, err) < 0)
		return -1;
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
	for (size_t i = 0; i < BPFSET_FDS_MAX; i++)
		pv->fds[i] = -1;
	if (o != NULL && o->reader != NULL) {
		pv->rd = *o->reader;
		pv->via = "test reader";
		pv->attached = true;
	} else {
		if (!src->host)
			return nm_error_set(err, NM_ERR_UNSUPPORTED,
			                    "source bpf: reads the running kernel only (root is "
			                    "%s, not /)",
			                    src->root);
		if (!bpfset_usable(why, sizeof(why)))
			return nm_error_set(err, NM_ERR_UNSUPPORTED, "source bpf: %s", why);
		pv->via = "waiting";
		pv->rd.ncpus = bpfset_ncpus();
		pv->rd.read_softirqs = fd_read_softirqs;
		pv->rd.read_irqs = fd_read_irqs;
		pv->rd.prog_stats = fd_prog_stats;
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
	pv->kcap = BPF_IRQS_START;
	pv->keys = xreallocarray(NULL, pv->kcap, sizeof(*pv->keys));
	pv->vals = xreallocarray(NULL, pv->kcap * pv->ncpus, sizeof(*pv->vals));
	return 0;
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

/* The entry of irq, made when new (kept sorted). */
static struct bpf_irq *
irq_entry(struct bpf_priv *pv, uint32_t irq)
{
	size_t lo = 0, hi = pv->nirqs;
	struct bpf_irq *e;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (pv->irqs[mid].irq < irq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < pv->nirqs && pv->irqs[lo].irq == irq)
		return &pv->irqs[lo];
	if (pv->nirqs == pv->irqcap) {
		pv->irqcap = pv->irqcap ? pv->irqcap * 2 : 32;
		pv->irqs = xreallocarray(pv->irqs, pv->irqcap, sizeof(*pv->irqs));
	}
	memmove(&pv->irqs[lo + 1], &pv->irqs[lo], (pv->nirqs - lo) * sizeof(*pv->irqs));
	pv->nirqs++;
	e = &pv->irqs[lo];
	e->irq = irq;
	e->count = xreallocarray(NULL, pv->ncpus, sizeof(series_id));
	e->time = xreallocarray(NULL, pv->ncpus, sizeof(series_id));
	for (unsigned cpu = 0; cpu < pv->ncpus; cpu++)
		e->count[cpu] = e->time[cpu] = SERIES_NONE;
	return e;
}

/* Every IRQ the programs saw, on the CPUs where it ran a handler. 0 or -1 with err. */
static int
put_irqs(struct source *src, struct bpf_priv *pv, struct sink *sink, struct nm_error *err)
{
	long n;

	/* A full read may have left IRQs out: grow and read again (allocates only then). */
	while ((n = pv->rd.read_irqs(pv->rd.arg, pv->keys, pv->vals, pv->kcap)) >= 0 &&
	       (size_t)n == pv->kcap && pv->kcap < NM_IRQ_MAX) {
		pv->kcap *= 2;
		pv->keys = xreallocarray(pv->keys, pv->kcap, sizeof(*pv->keys));
		pv->vals = xreallocarray(pv->vals, pv->kcap * pv->ncpus, sizeof(*pv->vals));
	}
	if (n < 0)
		return nm_error_set(err, NM_ERR_FAILED, "source bpf: read irq_stats: %s",
		                    strerror(errno));
	pv->irqs_read = (size_t)n;
	for (size_t i = 0; i < (size_t)n; i++) {
		struct bpf_irq *e = irq_entry(pv, pv->keys[i]);
		const struct nm_irq_cpu *v = &pv->vals[i * pv->ncpus];
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
		if (pv->prog_time[i] == SERIES_NONE) {
			struct series_labels l = source_labels(src);

			l.table = source_atom(src, prog, strlen(prog));
			l.field = source_atom(src, "run_time", 8);
			pv->prog_time[i] =
			    series_internf(src->reg, SERIES_COUNTER, src->index, "ns", 1.0, &l,
			                   "bpf.prog.%s.run_time", prog);
			l.field = source_atom(src, "run_cnt", 7);
			pv->prog_runs[i] =
			    series_internf(src->reg, SERIES_COUNTER, src->index, "runs", 1.0, &l,
			                   "bpf.prog.%s.runs", prog);
		}
		sink_put(sink, pv->prog_time[i], pv->progs[i].run_time_ns);
		sink_put(sink, pv->prog_runs[i], pv->progs[i].run_cnt);
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
		if (acquire(pv, err) < 0)
			return -1;
		if (!pv->attached)
			return 0; /* the split is coming: nothing yet */
	}
	if (pv->rd.read_softirqs(pv->rd.arg, pv->sbuf) < 0)
		return nm_error_set(err, NM_ERR_FAILED, "source bpf: read softirq_stats: %s%s",
		                    strerror(errno),
		                    errno == EPERM ? " (kernel.unprivileged_bpf_disabled: reading "
		                                     "BPF maps needs CAP_BPF before Linux 6.5)"
		                                   : "");
	put_softirqs(src, pv, sink);
	if (put_irqs(src, pv, sink, err) < 0)
		return -1;
	put_progs(src, pv, sink);
	return 0;
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
	json_add_uint(o, "cpus", pv->ncpus);
	json_add_uint(o, "softirq_types", pv->nnames);
	json_add_uint(o, "irqs", pv->nirqs);
	if (!pv->have_progs)
		return o;
	progs = json_object_new_array();
	for (size_t i = 0; i < BPFSET_IRQ_PROGS; i++) {
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
	if (pv->stats_fd >= 0)
		close(pv->stats_fd);
	for (size_t i = 0; i < pv->nirqs; i++) {
		free(pv->irqs[i].count);
		free(pv->irqs[i].time);
	}
	free(pv->irqs);
	free(pv->keys);
	free(pv->vals);
	free(pv->s_count);
	free(pv->s_time);
	free(pv->sbuf);
	free(pv);
	src->priv = NULL;
}

/* Results keep the softirq series and the programs' cost, not the per-IRQ cells (as the
 * interrupts source's). */
static const struct source_match bpf_not_kept = {.irq = SOURCE_HAS};

/* Its Prometheus family (serve/prom.c): the softirq counts; the times, the IRQ cells and the
 * programs' cost are not exported yet. */
static const struct source_family bpf_families[] = {
    {"netmetrics_bpf_softirqs",
     {.kind = SOURCE_COUNTERS, .cpu = SOURCE_HAS, .irq = SOURCE_HAS_NO, .unit = "softirqs"},
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
    .description = "softirq and hard IRQ time and counts per CPU (eBPF, program set irq)",
    .configure = NULL,
    .init = bpf_init,
    .sample = bpf_sample,
    .describe = bpf_describe,
    .free = bpf_free,
};
