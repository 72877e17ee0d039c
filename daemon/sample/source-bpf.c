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
 * kernel.unprivileged_bpf_disabled set, the reads fail with EPERM and status says so). */
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
#include "source-bpf.h"
#include "source.h"
#include "xmalloc.h"

#define BPF_IRQS_START  64 /* IRQ slots read at first; doubled when full */
#define BPF_DROPS_START 64 /* (reason, device) slots read at first; doubled when full */
#define BPF_NAPIS_START 32 /* NAPI slots read at first; doubled when full */

/* The types the kernel has had since 2.6.34, for a root without /proc/softirqs. */
static const char *const default_names[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                            "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};

/* One IRQ number's series. */
struct bpf_irq {
	uint32_t irq;
	series_id *count, *time; /* [ncpus] */
};

/* One (reason, device) of the daemon's namespace: its series. */
struct bpf_drop_dev {
	uint32_t reason, ifindex; /* reason slot (nreasons: OTHER, the unnamed ones) */
	series_id id;
	uint64_t sum; /* this sample's: the unnamed reasons share one entry */
};

/* One NAPI instance's series. */
struct bpf_napi {
	struct nm_napi_key key;
	series_id polls, packets, exhausted;
	series_id *cpu_polls; /* [ncpus] */
};

/* An extra program set (drop, napi): its fds, owned as the irq set's are. */
struct bpf_extra {
	int set;
	int fds[BPFSET_FDS_MAX];
	size_t nfds;
	struct bpfset *loaded;      /* loaded here, or NULL */
	bool on;                    /* the fds are there (or the test reader's) */
	char why[NM_ERROR_MSG_MAX]; /* why not, for status */
};

/* A set's bit in a mask of sets ([source.bpf] sets). */
#define SET_BIT(set)  (1u << (set))
#define BPF_SETS_ALL  (SET_BIT(BPFSET_IRQ) | SET_BIT(BPFSET_DROP) | SET_BIT(BPFSET_NAPI))
#define OFF_BY_CONFIG "off by config ([source.bpf] sets)"

struct bpf_opts {
	const struct source_bpf_reader *reader; /* a test's, or NULL */
	bool on_demand;                         /* [source.bpf] attach = on-demand */
	unsigned sets;                          /* [source.bpf] sets (SET_BIT), 0: not given */
};

#define BPF_HOLDERS_MAX 64 /* windows holding the programs on at once */

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
	bool on_demand;     /* attached only while a holder asks (source_bpf_hold) */
	char *holders[BPF_HOLDERS_MAX];
	size_t nholders;
	const char *via; /* "privileged process", "loaded here", "test reader", "waiting" */
	unsigned sets;   /* the sets to run ([source.bpf] sets, SET_BIT): the others stay out */
	bool irq_on;     /* set irq's fds are there (or the test reader's) */
	char irq_why[NM_ERROR_MSG_MAX]; /* why not, for status */
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

	/* Set drop: its fds (drop_stats, kfree_skb), owned as the irq set's are. */
	int dfds[BPFSET_FDS_MAX];
	size_t ndfds;
	struct bpfset *dset;               /* loaded here, or NULL */
	bool drops_on;                     /* the drop fds are there (or the test reader's) */
	char drops_why[NM_ERROR_MSG_MAX];  /* why not, for status */
	char (*rnames)[BPFSET_REASON_LEN]; /* [nreasons + 1]: the last is OTHER */
	size_t nreasons;
	series_id *r_id;           /* [nreasons + 1] */
	uint64_t *r_sum;           /* [nreasons + 1], this sample's */
	uint32_t netns;            /* the daemon's network namespace (inode) */
	struct nm_drop_key *dkeys; /* [dcap] */
	uint64_t *dvals;           /* [dcap * ncpus] */
	size_t dcap;
	struct bpf_drop_dev *ddev; /* sorted by (reason, ifindex) */
	size_t nddev, ddevcap;
	series_id dprog_time, dprog_runs;
	struct bpfset_prog_stats dprog;
	bool have_dprog;
	size_t drops_read; /* keys in the last sample */

	/* Set napi. */
	struct bpf_extra nset;
	struct nm_napi_key *nkeys; /* [ncap] */
	struct nm_napi_cpu *nvals; /* [ncap * ncpus] */
	size_t ncap;
	struct bpf_napi *napis; /* sorted by key */
	size_t nnapis, napicap;
	series_id nprog_time, nprog_runs;
	struct bpfset_prog_stats nprog;
	bool have_nprog;
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

/* Get set drop's fds, as set irq's (acquire); a failure is kept for status, not returned:
 * the softirq and IRQ series go on without. */
static void
acquire_drops(struct bpf_priv *pv)
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
	if (pv->sets & SET_BIT(BPFSET_IRQ)) {
		if ((privsep_on() ? acquire_irq_split(pv, err) : load_here(pv, err)) < 0) {
			snprintf(pv->irq_why, sizeof(pv->irq_why), "%s", err->message);
			return -1;
		}
		pv->irq_on = true;
		pv->irq_why[0] = '\0';
	} else
		leave_out(BPFSET_IRQ);
	/* The privileged process switches the kernel's BPF stats on itself. */
	if (!privsep_on() && pv->stats_fd < 0 && (pv->stats_fd = bpfset_enable_stats(&serr)) < 0)
		pv->stats_fd = -1; /* the counts work without; describe shows run time 0 */
	if (!(pv->sets & SET_BIT(BPFSET_DROP)))
		leave_out(BPFSET_DROP);
	else if (pv->nreasons > 0)
		acquire_drops(pv);
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

/* The drop reasons' names (the reader's, or the kernel's BTF) and the state for them; the
 * reason for none in drops_why. */
static void
init_drops(struct bpf_priv *pv)
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
	pv->dcap = BPF_DROPS_START;
	pv->dkeys = xreallocarray(NULL, pv->dcap, sizeof(*pv->dkeys));
	pv->dvals = xreallocarray(NULL, pv->dcap * pv->ncpus, sizeof(*pv->dvals));
	pv->dprog_time = pv->dprog_runs = SERIES_NONE;
	pv->netns = pv->rd.netns;
	if (pv->netns == 0 && stat("/proc/self/ns/net", &st) == 0)
		pv->netns = (uint32_t)st.st_ino;
	if (pv->rd.read_drops != NULL && pv->nreasons > 0)
		pv->drops_on = true; /* the test reader's */
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
		pv->rd.read_drops = fd_read_drops;
		pv->rd.drop_prog_stats = fd_drop_prog_stats;
		pv->rd.read_napis = fd_read_napis;
		pv->rd.napi_prog_stats = fd_napi_prog_stats;
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
	init_drops(pv);
	if (o == NULL || o->reader == NULL || !(pv->sets & SET_BIT(BPFSET_DROP)))
		pv->drops_on = false; /* until acquire gets the fds */
	pv->nset.set = BPFSET_NAPI;
	for (size_t i = 0; i < BPFSET_FDS_MAX; i++)
		pv->nset.fds[i] = -1;
	pv->nset.on = o != NULL && o->reader != NULL && pv->rd.read_napis != NULL &&
	              (pv->sets & SET_BIT(BPFSET_NAPI));
	pv->ncap = BPF_NAPIS_START;
	pv->nkeys = xreallocarray(NULL, pv->ncap, sizeof(*pv->nkeys));
	pv->nvals = xreallocarray(NULL, pv->ncap * pv->ncpus, sizeof(*pv->nvals));
	pv->nprog_time = pv->nprog_runs = SERIES_NONE;
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

/* The entry of (reason slot r, ifindex), made when new (kept sorted). */
static struct bpf_drop_dev *
drop_dev(struct bpf_priv *pv, uint32_t r, uint32_t ifindex)
{
	size_t lo = 0, hi = pv->nddev;
	struct bpf_drop_dev *e;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct bpf_drop_dev *m = &pv->ddev[mid];

		if (m->reason < r || (m->reason == r && m->ifindex < ifindex))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < pv->nddev && pv->ddev[lo].reason == r && pv->ddev[lo].ifindex == ifindex)
		return &pv->ddev[lo];
	if (pv->nddev == pv->ddevcap) {
		pv->ddevcap = pv->ddevcap ? pv->ddevcap * 2 : 16;
		pv->ddev = xreallocarray(pv->ddev, pv->ddevcap, sizeof(*pv->ddev));
	}
	memmove(&pv->ddev[lo + 1], &pv->ddev[lo], (pv->nddev - lo) * sizeof(*pv->ddev));
	pv->nddev++;
	e = &pv->ddev[lo];
	*e = (struct bpf_drop_dev){.reason = r, .ifindex = ifindex, .id = SERIES_NONE, .sum = 0};
	return e;
}

/* A device's name from its ifindex in the daemon's namespace: the reader's, or the kernel's
 * (if_indextoname: an ioctl, no capability); "if<N>" for one gone meanwhile. */
static void
drop_ifname(struct bpf_priv *pv, uint32_t ifindex, char *buf, size_t size)
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
	drop_ifname(pv, ifindex, dev, sizeof(dev));
	l.device = source_atom(src, dev, strlen(dev));
	return series_internf(src->reg, SERIES_COUNTER, src->index, "packets", 1.0, &l,
	                      "bpf.drop.%s.%s", reason, dev);
}

/* Every reason that dropped, in all, and on each device of the daemon's namespace; the
 * program's own cost. 0 or -1 with err. */
static int
put_drops(struct source *src, struct bpf_priv *pv, struct sink *sink, struct nm_error *err)
{
	long n;

	while ((n = pv->rd.read_drops(pv->rd.arg, pv->dkeys, pv->dvals, pv->dcap)) >= 0 &&
	       (size_t)n == pv->dcap && pv->dcap < NM_DROP_KEYS_MAX) {
		pv->dcap *= 2;
		pv->dkeys = xreallocarray(pv->dkeys, pv->dcap, sizeof(*pv->dkeys));
		pv->dvals = xreallocarray(pv->dvals, pv->dcap * pv->ncpus, sizeof(*pv->dvals));
	}
	if (n < 0)
		return nm_error_set(err, NM_ERR_FAILED, "source bpf: read drop_stats: %s",
		                    strerror(errno));
	pv->drops_read = (size_t)n;
	memset(pv->r_sum, 0, (pv->nreasons + 1) * sizeof(*pv->r_sum));
	for (size_t i = 0; i < pv->nddev; i++)
		pv->ddev[i].sum = 0;
	for (size_t i = 0; i < (size_t)n; i++) {
		const struct nm_drop_key *k = &pv->dkeys[i];
		uint32_t r = k->reason < pv->nreasons && pv->rnames[k->reason][0] != '\0'
		                 ? k->reason
		                 : (uint32_t)pv->nreasons;
		uint64_t sum = 0;

		for (unsigned cpu = 0; cpu < pv->ncpus; cpu++)
			sum += pv->dvals[i * pv->ncpus + cpu];
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
	if (pv->have_dprog) {
		if (pv->dprog_time == SERIES_NONE) {
			struct series_labels l = source_labels(src);

			l.table = source_atom(src, "kfree_skb", 9);
			l.field = source_atom(src, "run_time", 8);
			pv->dprog_time = series_internf(src->reg, SERIES_COUNTER, src->index, "ns",
			                                1.0, &l, "bpf.prog.kfree_skb.run_time");
			l.field = source_atom(src, "run_cnt", 7);
			pv->dprog_runs = series_internf(src->reg, SERIES_COUNTER, src->index,
			                                "runs", 1.0, &l, "bpf.prog.kfree_skb.runs");
		}
		sink_put(sink, pv->dprog_time, pv->dprog.run_time_ns);
		sink_put(sink, pv->dprog_runs, pv->dprog.run_cnt);
	}
	return 0;
}

/* The entry of NAPI key k, made when new (kept sorted by id, ifindex, netns). */
static struct bpf_napi *
napi_entry(struct bpf_priv *pv, const struct nm_napi_key *k)
{
	size_t lo = 0, hi = pv->nnapis;
	struct bpf_napi *e;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct nm_napi_key *m = &pv->napis[mid].key;

		if (m->id < k->id ||
		    (m->id == k->id && (m->ifindex < k->ifindex ||
		                        (m->ifindex == k->ifindex && m->netns < k->netns))))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < pv->nnapis && memcmp(&pv->napis[lo].key, k, sizeof(*k)) == 0)
		return &pv->napis[lo];
	if (pv->nnapis == pv->napicap) {
		pv->napicap = pv->napicap ? pv->napicap * 2 : 16;
		pv->napis = xreallocarray(pv->napis, pv->napicap, sizeof(*pv->napis));
	}
	memmove(&pv->napis[lo + 1], &pv->napis[lo], (pv->nnapis - lo) * sizeof(*pv->napis));
	pv->nnapis++;
	e = &pv->napis[lo];
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
		drop_ifname(pv, e->key.ifindex, dev, sizeof(dev));
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

/* Every NAPI instance that polled; the program's cost. 0 or -1 with err. */
static int
put_napis(struct source *src, struct bpf_priv *pv, struct sink *sink, struct nm_error *err)
{
	long n;

	while ((n = pv->rd.read_napis(pv->rd.arg, pv->nkeys, pv->nvals, pv->ncap)) >= 0 &&
	       (size_t)n == pv->ncap && pv->ncap < NM_NAPI_MAX) {
		pv->ncap *= 2;
		pv->nkeys = xreallocarray(pv->nkeys, pv->ncap, sizeof(*pv->nkeys));
		pv->nvals = xreallocarray(pv->nvals, pv->ncap * pv->ncpus, sizeof(*pv->nvals));
	}
	if (n < 0)
		return nm_error_set(err, NM_ERR_FAILED, "source bpf: read napi_stats: %s",
		                    strerror(errno));
	for (size_t i = 0; i < (size_t)n; i++) {
		struct bpf_napi *e = napi_entry(pv, &pv->nkeys[i]);
		const struct nm_napi_cpu *v = &pv->nvals[i * pv->ncpus];
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
	if (pv->have_nprog) {
		if (pv->nprog_time == SERIES_NONE) {
			struct series_labels l = source_labels(src);

			l.table = source_atom(src, "napi_poll", 9);
			l.field = source_atom(src, "run_time", 8);
			pv->nprog_time = series_internf(src->reg, SERIES_COUNTER, src->index, "ns",
			                                1.0, &l, "bpf.prog.napi_poll.run_time");
			l.field = source_atom(src, "run_cnt", 7);
			pv->nprog_runs = series_internf(src->reg, SERIES_COUNTER, src->index,
			                                "runs", 1.0, &l, "bpf.prog.napi_poll.runs");
		}
		sink_put(sink, pv->nprog_time, pv->nprog.run_time_ns);
		sink_put(sink, pv->nprog_runs, pv->nprog.run_cnt);
	}
	return 0;
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
	if (pv->drops_on && put_drops(src, pv, sink, err) < 0)
		return -1;
	if (pv->nset.on && put_napis(src, pv, sink, err) < 0)
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
	free(pv->rnames);
	free(pv->r_id);
	free(pv->r_sum);
	free(pv->dkeys);
	free(pv->dvals);
	free(pv->ddev);
	for (size_t i = 0; i < pv->nholders; i++)
		free(pv->holders[i]);
	free_extra(&pv->nset);
	for (size_t i = 0; i < pv->nnapis; i++)
		free(pv->napis[i].cpu_polls);
	free(pv->napis);
	free(pv->nkeys);
	free(pv->nvals);
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

/* Its Prometheus families (serve/prom.c): the softirq counts and times, the drops by reason (in
 * all, and per device of the daemon's namespace); the IRQ cells, the NAPI counts (no label
 * holds an instance's id yet: two instances of one device would be one series) and the
 * programs' cost are not exported yet. */
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
