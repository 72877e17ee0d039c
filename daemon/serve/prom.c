/* prom.c: the Prometheus/OpenMetrics exposition of the ring's newest sample (see prom.h). */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "error.h"
#include "irqtable.h"
#include "labelsel.h"
#include "napitable.h"
#include "procparse.h"
#include "prom.h"
#include "ring.h"
#include "source.h"
#include "strbuf.h"
#include "strutil.h"
#include "xmalloc.h"

/* Label keys, as a bit per enum series_key. */
#define L(k)    (1u << (k))
#define L_DEV   L(SERIES_KEY_DEVICE)
#define L_QUEUE L(SERIES_KEY_QUEUE)
#define L_DIR   L(SERIES_KEY_DIR)
#define L_CPU   L(SERIES_KEY_CPU)
#define L_IRQ   L(SERIES_KEY_IRQ)
#define L_TYPE  L(SERIES_KEY_TYPE)
#define L_MODE  L(SERIES_KEY_MODE)
#define L_TABLE L(SERIES_KEY_TABLE)
#define L_FIELD L(SERIES_KEY_FIELD)
/* napi_id: a NAPI instance's id, from the bpf source's series name (bpf.napi.<ID>.*: no label
 * of the registry holds it; cmd-napi.c reads it the same way). */
#define L_NAPI   (1u << 31)
#define NO_LABEL 0u

enum fam {
	F_LINK_BYTES,
	F_LINK_PACKETS,
	F_LINK_DROPS,
	F_LINK_ERRORS,
	F_LINK_OTHER,
	F_QUEUE_PACKETS,
	F_QUEUE_BYTES,
	F_QUEUE_OTHER,
	F_CPU_SECONDS,
	F_CPU_ALL_SECONDS,
	F_STAT,
	F_STAT_LEVEL,
	F_SOFTIRQS,
	F_BPF_SOFTIRQS,
	F_BPF_SOFTIRQ_NS,
	F_BPF_DROPS,
	F_BPF_DEVICE_DROPS,
	F_BPF_NAPI_POLLS,
	F_BPF_NAPI_PACKETS,
	F_BPF_NAPI_EXHAUSTED,
	F_IPIS,
	F_ARCH_IRQS,
	F_DEVICE_IRQS, /* summed at each scrape from the IRQ table: no series of its own */
	F_IRQ_CELLS,
	F_IRQ_OTHER,
	F_SNMP,
	F_SNMP_LEVEL,
	F_SOFTNET,
	F_SOFTNET_LEVEL,
	F_LNSTAT,
	F_LNSTAT_ENTRIES,
	F_LNSTAT_CPU,
	F_ETHTOOL,
	F_SYSCTL,
	F_SYSCTL_LEVEL,
	F_ETHTOOL_STD,
	F_ETHTOOL_RMON,
	NFAM,
	F_NONE = 0xff,
};

struct family {
	const char *name; /* a counter's without its _total */
	const char *help;
	bool gauge;
	bool optin;      /* off unless an export line turns its series on */
	unsigned labels; /* the labels shown, of those the series has */
	double to_base;  /* times the series' value makes the family's base unit (Prometheus:
	                    seconds, not nanoseconds); 0: as it is */
};

/* The factor that makes a value of family fm in its base unit. */
static double
family_scale(const struct family *fm)
{
	return fm->to_base != 0 ? fm->to_base : 1.0;
}

static const struct family families[NFAM] = {
    [F_LINK_BYTES] = {"netmetrics_link_bytes", "Bytes through a network device (/proc/net/dev).",
                      false, false, L_DEV | L_DIR},
    [F_LINK_PACKETS] = {"netmetrics_link_packets", "Packets through a network device.", false,
                        false, L_DEV | L_DIR},
    [F_LINK_DROPS] = {"netmetrics_link_drops", "Packets a network device dropped.", false, false,
                      L_DEV | L_DIR},
    [F_LINK_ERRORS] = {"netmetrics_link_errors", "Errors of a network device, by kind.", false,
                       false, L_DEV | L_DIR | L_FIELD},
    [F_LINK_OTHER] = {"netmetrics_link_events",
                      "Other counters of a network device (multicast, collisions...).", false,
                      false, L_DEV | L_DIR | L_FIELD},
    [F_QUEUE_PACKETS] = {"netmetrics_queue_packets", "Packets through one queue of a device.",
                         false, false, L_DEV | L_QUEUE | L_DIR},
    [F_QUEUE_BYTES] = {"netmetrics_queue_bytes", "Bytes through one queue of a device.", false,
                       false, L_DEV | L_QUEUE | L_DIR},
    [F_QUEUE_OTHER] = {"netmetrics_queue_events",
                       "Other per-queue counters (netlink queue stats), by field.", false, true,
                       L_DEV | L_QUEUE | L_DIR | L_FIELD},
    [F_CPU_SECONDS] = {"netmetrics_cpu_seconds",
                       "Seconds each CPU spent in each mode (/proc/stat, USER_HZ ticks).", false,
                       false, L_CPU | L_MODE},
    [F_CPU_ALL_SECONDS] = {"netmetrics_cpu_all_seconds", "Seconds all CPUs spent in each mode.",
                           false, false, L_MODE},
    [F_STAT] = {"netmetrics_stat", "Counters of /proc/stat (ctxt, processes, intr...).", false,
                false, L_CPU | L_FIELD},
    [F_STAT_LEVEL] = {"netmetrics_stat_level",
                      "Levels of /proc/stat (procs_running, procs_blocked, CPUs online).", true,
                      false, L_CPU | L_FIELD},
    [F_SOFTIRQS] = {"netmetrics_softirqs", "Softirqs run on each CPU, by type (/proc/softirqs).",
                    false, false, L_CPU | L_TYPE},
    [F_BPF_SOFTIRQS] = {"netmetrics_bpf_softirqs",
                        "Softirqs run on each CPU, by type, as eBPF programs counted them.", false,
                        false, L_CPU | L_TYPE},
    [F_BPF_SOFTIRQ_NS] = {"netmetrics_bpf_softirq_seconds",
                          "Seconds each CPU spent in softirqs, by type (eBPF: entry to exit, "
                          "less the hard IRQ handler time inside; counted in ns).",
                          false, false, L_CPU | L_TYPE, 1e-9},
    [F_BPF_DROPS] = {"netmetrics_bpf_drops",
                     "Packets the kernel freed as dropped, by drop reason (field), every "
                     "network namespace's (eBPF on skb:kfree_skb).",
                     false, false, L_FIELD},
    [F_BPF_DEVICE_DROPS] = {"netmetrics_bpf_device_drops",
                            "The part of netmetrics_bpf_drops whose packet had a device of the "
                            "daemon's network namespace, by device and drop reason (field).",
                            false, false, L_DEV | L_FIELD},
    [F_BPF_NAPI_POLLS] = {"netmetrics_bpf_napi_polls",
                          "Polls of a NAPI instance (eBPF on napi:napi_poll), by device, queue "
                          "(where the kernel links one) and NAPI id (napi_id: backlog for the "
                          "per-CPU backlogs).",
                          false, false, L_DEV | L_QUEUE | L_NAPI},
    [F_BPF_NAPI_PACKETS] = {"netmetrics_bpf_napi_packets",
                            "Packets the polls of a NAPI instance handled (their work).", false,
                            false, L_DEV | L_QUEUE | L_NAPI},
    [F_BPF_NAPI_EXHAUSTED] = {"netmetrics_bpf_napi_budget_exhausted",
                              "Polls of a NAPI instance that used their whole budget (the ring "
                              "had more: the CPU did not keep up).",
                              false, false, L_DEV | L_QUEUE | L_NAPI},
    [F_IPIS] = {"netmetrics_ipis",
                "Inter-processor interrupts received by each CPU, by type (/proc/interrupts).",
                false, false, L_CPU | L_TYPE},
    [F_ARCH_IRQS] = {"netmetrics_arch_interrupts",
                     "Architecture interrupts of each CPU, by type (LOC, NMI, IWI; others opt-in).",
                     false, false, L_CPU | L_TYPE | L_FIELD},
    [F_DEVICE_IRQS] = {"netmetrics_device_interrupts",
                       "Interrupts of a network device's IRQs on each CPU, summed over its IRQs.",
                       false, false, L_DEV | L_CPU},
    [F_IRQ_CELLS] = {"netmetrics_irq_interrupts",
                     "Interrupts of one IRQ on one CPU (opt-in: export = irq.*).", false, true,
                     L_IRQ | L_CPU},
    [F_IRQ_OTHER] = {"netmetrics_irq_events", "Other counters of an IRQ line.", false, true,
                     L_IRQ | L_FIELD},
    [F_SNMP] = {"netmetrics_snmp", "SNMP counters (/proc/net/snmp, netstat, snmp6) by table.",
                false, false, L_TABLE | L_FIELD},
    [F_SNMP_LEVEL] = {"netmetrics_snmp_level", "SNMP levels (Tcp CurrEstab, ...) by table.", true,
                      false, L_TABLE | L_FIELD},
    [F_SOFTNET] = {"netmetrics_softnet",
                   "Per-CPU softnet counters (/proc/net/softnet_stat) by field.", false, false,
                   L_CPU | L_FIELD},
    [F_SOFTNET_LEVEL] = {"netmetrics_softnet_level", "Per-CPU softnet levels (backlog).", true,
                         false, L_CPU | L_FIELD},
    [F_LNSTAT] = {"netmetrics_lnstat", "lnstat counters (/proc/net/stat) summed over CPUs.", false,
                  false, L_TABLE | L_FIELD},
    [F_LNSTAT_ENTRIES] = {"netmetrics_lnstat_entries", "Entries of an lnstat table.", true, false,
                          L_TABLE},
    [F_LNSTAT_CPU] = {"netmetrics_lnstat_cpu",
                      "lnstat counters of one CPU (opt-in: export = lnstat.*.cpu*).", false, true,
                      L_TABLE | L_CPU | L_FIELD},
    [F_ETHTOOL] = {"netmetrics_ethtool", "ethtool -S counters (opt-in: export = ethtool.*).", false,
                   true, L_DEV | L_DIR | L_FIELD},
    [F_SYSCTL] = {"netmetrics_sysctl", "Counters read from sysctl files.", false, false, L_FIELD},
    [F_SYSCTL_LEVEL] = {"netmetrics_sysctl_level", "Values read from sysctl files.", true, false,
                        L_FIELD},
    [F_ETHTOOL_STD] =
        {"netmetrics_ethtool_std",
         "Standard ethtool statistics (IEEE 802.3 eth-phy, eth-mac, eth-ctrl; RMON; phydev) "
         "by group (table) and name (field).",
         false, false, L_DEV | L_DIR | L_TABLE | L_FIELD},
    [F_ETHTOOL_RMON] = {"netmetrics_ethtool_rmon_packets",
                        "Packets by frame size: the RMON histogram buckets of the standard ethtool "
                        "statistics, the range in octets in field (LOW-HIGH, LOW-max).",
                        false, false, L_DEV | L_DIR | L_FIELD},
};

/* A kept list of series ids, each with the start of its sample line (name and labels, the
 * same in both formats) made once, at pre.buf + off[i], len[i] bytes. */
struct idlist {
	series_id *v;
	uint32_t *off, *len;
	bool *drop; /* left out while its total is 0 (drop_unmoved) */
	size_t n, cap;
};

/* One device of the per-device interrupt sums. */
struct devsum {
	char name[IRQ_DEVICE_MAX];
	uint64_t t_ns; /* the newest sample time of its cells */
};

#define PROM_MAX_DEVICES 64

/* An include (or exclude) line. */
struct prom_sel {
	bool include;
	struct labelsel s;
};

/* A CPU set of the roll-ups: its series carry cpuset="name". */
struct prom_cpuset {
	char name[40];
	struct cpuset set;
};

/* A rolled-up sample: the sum of its members' totals over one CPU set; its line start (name
 * and labels, cpuset last) at pre.buf + off, len bytes. */
struct rollslot {
	uint32_t off, len;
	uint8_t fam;
	bool live, drop;
	uint64_t sum, t;
	uint64_t epoch; /* the latest start of a member's count (its _created), 0: none known */
	double scale;   /* raw to unit, its members' (CPU ticks to seconds) */
};

/* A member of a roll-up: series id adds to slot. */
struct rollent {
	series_id id;
	uint32_t slot;
};

struct prom {
	char **exports; /* "GLOB" / "!GLOB" */
	size_t nexports;
	size_t max_series;
	/* [prometheus] include/exclude, rollup, cpuset, drop_unmoved, max_family_series */
	struct prom_sel *sel;
	size_t nsel;
	struct labelsel *roll;
	size_t nroll;
	struct prom_cpuset *sets;
	size_t nsets;
	struct labelsel *unmoved; /* drop_unmoved: the counters left out while at 0 */
	size_t nunmoved;
	size_t max_family;
	bool sel_fam[NFAM + 2]; /* a selector may name family f (NFAM: queue_irq_info, NFAM + 1:
	                           queue_napi_info) */
	bool unmoved_fam[NFAM]; /* a drop_unmoved selector may name family f */
	/* The source rule family_of matched last and its family: the next series is mostly of
	 * the same rule (a source's series come in runs), without looking the name up. */
	const struct source_family *last_rule;
	int last_fam;
	/* the roll-ups: members, slots and a hash of the slots' lines (slot + 1, 0 empty) */
	struct rollent *re;
	size_t nre, recap;
	struct rollslot *slots;
	size_t nslots, slotcap;
	uint32_t *slot_hash;
	size_t slot_hcap;
	struct strbuf tmp;
	const struct series_registry *reg; /* the registry the kept lists are of */
	size_t seen;                       /* ids < seen are classified */
	struct idlist fam[NFAM];
	struct strbuf pre; /* the kept line starts */
	/* per-device interrupt sums: dev[d], sum[d * sumcpus + cpu] */
	struct devsum dev[PROM_MAX_DEVICES];
	uint64_t *sum;
	size_t sumcpus, sumcap;
	/* during a render */
	struct strbuf *out;
	enum prom_format fmt;
	size_t written, dropped, fam_written;
};

struct prom *
prom_new(void)
{
	struct prom *p = xcalloc(1, sizeof(*p));

	p->max_series = PROM_DEFAULT_MAX_SERIES;
	p->max_family = SIZE_MAX;
	return p;
}

/* Forget every kept decision. */
static void
forget(struct prom *p)
{
	for (size_t f = 0; f < NFAM; f++)
		p->fam[f].n = 0;
	strbuf_reset(&p->pre);
	p->seen = 0;
	p->reg = NULL;
	p->nre = 0;
	p->nslots = 0;
	if (p->slot_hash != NULL)
		memset(p->slot_hash, 0, p->slot_hcap * sizeof(*p->slot_hash));
}

/* Free the selection, roll-up and CPU set options. */
static void
free_options(struct prom *p)
{
	for (size_t i = 0; i < p->nsel; i++)
		labelsel_free(&p->sel[i].s);
	free(p->sel);
	p->sel = NULL;
	p->nsel = 0;
	for (size_t i = 0; i < p->nroll; i++)
		labelsel_free(&p->roll[i]);
	free(p->roll);
	p->roll = NULL;
	p->nroll = 0;
	free(p->sets);
	p->sets = NULL;
	p->nsets = 0;
	for (size_t i = 0; i < p->nunmoved; i++)
		labelsel_free(&p->unmoved[i]);
	free(p->unmoved);
	p->unmoved = NULL;
	p->nunmoved = 0;
}

void
prom_free(struct prom *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->nexports; i++)
		free(p->exports[i]);
	free(p->exports);
	for (size_t f = 0; f < NFAM; f++) {
		free(p->fam[f].v);
		free(p->fam[f].off);
		free(p->fam[f].len);
		free(p->fam[f].drop);
	}
	strbuf_free(&p->pre);
	strbuf_free(&p->tmp);
	free(p->sum);
	free_options(p);
	free(p->re);
	free(p->slots);
	free(p->slot_hash);
	free(p);
}

void
prom_configure(struct prom *p, const char *const *exports, size_t nexports, size_t max_series)
{
	for (size_t i = 0; i < p->nexports; i++)
		free(p->exports[i]);
	free(p->exports);
	p->exports = nexports ? xcalloc(nexports, sizeof(*p->exports)) : NULL;
	for (size_t i = 0; i < nexports; i++)
		p->exports[i] = xstrdup(exports[i]);
	p->nexports = nexports;
	p->max_series = max_series > 0 ? max_series : 1;
	forget(p);
}

const char *const prom_default_rollups[] = {
    "softirqs{type!~\"NET_RX|NET_TX\"}",
    "arch_interrupts",
    "softnet{field=~\"received_rps|flow_limit_count\"}",
    "softnet_level",
    "stat_level",
    NULL,
};

const char *const prom_default_unmoved[] = {
    "device_interrupts", "irq_interrupts", "softirqs", "ipis",       "arch_interrupts",
    "cpu_seconds",       "queue_*",        "ethtool",  "lnstat_cpu", NULL,
};

/* Parse the selector lines text[0..n) (NULL: defs, NULL-terminated; "none" lines skipped)
 * into *out. */
static int
parse_sels(const char *const *text, size_t n, const char *const *defs, struct labelsel **out,
           size_t *nout, struct nm_error *err)
{
	const char *const *v = text != NULL ? text : defs;
	size_t k = 0;

	while (text != NULL ? k < n : v[k] != NULL)
		k++;
	*out = k ? xcalloc(k, sizeof(**out)) : NULL;
	*nout = 0;
	for (size_t i = 0; i < k; i++) {
		if (strcmp(v[i], "none") == 0)
			continue;
		if (labelsel_parse(&(*out)[(*nout)++], v[i], err) < 0)
			return -1;
	}
	return 0;
}

/* The name of family f without "netmetrics_" ("irq_interrupts"). */
static const char *
short_name(int f)
{
	return f == NFAM       ? "queue_irq_info"
	       : f == NFAM + 1 ? "queue_napi_info"
	                       : families[f].name + 11;
}

/* Whether selector s may match family f (by its short or its full name). */
static bool
sel_names(const struct labelsel *s, int f)
{
	return labelsel_name_matches(s, short_name(f)) ||
	       labelsel_name_matches(s, f == NFAM       ? "netmetrics_queue_irq_info"
	                                : f == NFAM + 1 ? "netmetrics_queue_napi_info"
	                                                : families[f].name);
}

int
prom_set_options(struct prom *p, const struct prom_options *o, struct nm_error *err)
{
	free_options(p);
	p->max_family = o->max_family_series > 0 ? o->max_family_series : SIZE_MAX;
	p->sel = o->nselect ? xcalloc(o->nselect, sizeof(*p->sel)) : NULL;
	for (; p->nsel < o->nselect; p->nsel++) {
		p->sel[p->nsel].include = o->select[p->nsel][0] == '+';
		if (labelsel_parse(&p->sel[p->nsel].s, o->select[p->nsel] + 1, err) < 0) {
			p->nsel++;
			goto fail;
		}
	}
	if (parse_sels(o->rollup, o->nrollup, prom_default_rollups, &p->roll, &p->nroll, err) < 0 ||
	    parse_sels(o->unmoved, o->nunmoved, prom_default_unmoved, &p->unmoved, &p->nunmoved,
	               err) < 0)
		goto fail;
	p->sets = xcalloc(o->ncpusets ? o->ncpusets : 1, sizeof(*p->sets));
	for (; p->nsets < o->ncpusets; p->nsets++) {
		const char *line = o->cpusets[p->nsets], *eq = strchr(line, '=');
		struct prom_cpuset *cs = &p->sets[p->nsets];
		if (eq == NULL || (size_t)(eq - line) >= sizeof(cs->name) ||
		    cpuset_parse_list(&cs->set, eq + 1, err) < 0) {
			nm_error_set(err, NM_ERR_BAD_ARGS, "bad cpuset line \"%s\"", line);
			goto fail;
		}
		snprintf(cs->name, sizeof(cs->name), "%.*s", (int)(eq - line), line);
	}
	if (p->nsets == 0) {
		snprintf(p->sets[0].name, sizeof(p->sets[0].name), "all");
		for (unsigned c = 0; c < CPUSET_MAX_CPUS; c++)
			cpuset_add(&p->sets[0].set, c);
		p->nsets = 1;
	}
	for (int f = 0; f <= NFAM + 1; f++) {
		p->sel_fam[f] = false;
		for (size_t i = 0; i < p->nsel; i++)
			p->sel_fam[f] = p->sel_fam[f] || sel_names(&p->sel[i].s, f);
		if (f >= NFAM)
			continue;
		p->unmoved_fam[f] = false;
		for (size_t i = 0; i < p->nunmoved && !families[f].gauge; i++)
			p->unmoved_fam[f] = p->unmoved_fam[f] || sel_names(&p->unmoved[i], f);
	}
	forget(p);
	return 0;
fail:
	free_options(p);
	forget(p);
	return -1;
}

const char *
prom_content_type(enum prom_format fmt)
{
	return fmt == PROM_OPENMETRICS
	           ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
	           : "text/plain; version=0.0.4; charset=utf-8";
}

/* ---- which family a series is in ---- */

/* The family named name (a source's struct source_family), or F_NONE. */
static int
family_named(const char *name)
{
	for (int f = 0; f < NFAM; f++)
		if (strcmp(families[f].name, name) == 0)
			return f;
	return F_NONE;
}

bool
prom_has_family(const char *name)
{
	return family_named(name) != F_NONE;
}

/* The ops of the source with ring source number index, from the caller's sources. */
static const struct source_ops *
source_ops_of(const struct prom_input *in, unsigned index)
{
	for (size_t i = 0; i < in->nsources; i++)
		if (in->sources[i].index == index)
			return in->sources[i].ops;
	return NULL;
}

/* The family of series id, as its source's rules say (source_ops.prom); F_NONE: not exported
 * by any. *optin is set when the series is off by default although its family is not. */
static int
family_of(struct prom *p, const struct prom_input *in, series_id id, bool *optin)
{
	const struct source_ops *ops = source_ops_of(in, series_get(in->reg, id)->source);
	const struct source_family *r = ops != NULL ? source_family_of(ops, in->reg, id) : NULL;

	if (r == NULL)
		return F_NONE;
	*optin = r->optin;
	if (r != p->last_rule) {
		p->last_rule = r;
		p->last_fam = family_named(r->family);
	}
	return p->last_fam;
}

/* Whether a series of family f named name is exported: the family's default, then every
 * export line that matches, in order. */
static bool
exported(const struct prom *p, int f, bool optin, const char *name)
{
	bool on = !families[f].optin && !optin;

	for (size_t i = 0; i < p->nexports; i++) {
		const char *g = p->exports[i];
		bool neg = g[0] == '!';
		if (fnmatch(neg ? g + 1 : g, name, 0) == 0)
			on = !neg;
	}
	return on;
}

static void put_name(struct prom *p, const char *name, bool gauge);
static void put_series_labels(struct prom *p, const struct series_registry *reg, series_id id,
                              unsigned mask, bool *first);
static void put_label(struct prom *p, bool *first, const char *key, const char *val);

/* The labels of a sampled series a selector sees: those its family shows. */
struct series_ctx {
	const struct series_registry *reg;
	series_id id;
	struct series_labels l;
	unsigned mask;
	char num[24];
};

/* The NAPI id of the bpf source's series id (bpf.napi.<ID>.<FIELD>) into buf, or NULL for
 * another series. */
static const char *
napi_id_of(const struct series_registry *reg, series_id id, char *buf, size_t size)
{
	const char *name = series_get(reg, id)->name, *end;

	if (strncmp(name, "bpf.napi.", 9) != 0 || (end = strchr(name + 9, '.')) == NULL)
		return NULL;
	snprintf(buf, size, "%.*s", (int)(end - name - 9), name + 9);
	return buf;
}

/* A label of a sampled series by name (NULL: it has none). */
static const char *
series_label(void *arg, const char *key)
{
	struct series_ctx *c = arg;
	const struct series_labels *l = &c->l;
	long v = -1;

	if (strcmp(key, "device") == 0 && (c->mask & L_DEV) && l->device != SERIES_ATOM_NONE)
		return series_atom_str(c->reg, l->device);
	if (strcmp(key, "direction") == 0 && (c->mask & L_DIR) && l->dir != SERIES_DIR_NONE)
		return l->dir == SERIES_DIR_RX ? "rx" : "tx";
	if (strcmp(key, "type") == 0 && (c->mask & L_TYPE) && l->type != SERIES_ATOM_NONE)
		return series_atom_str(c->reg, l->type);
	if (strcmp(key, "mode") == 0 && (c->mask & L_MODE) && l->mode != SERIES_ATOM_NONE)
		return series_atom_str(c->reg, l->mode);
	if (strcmp(key, "table") == 0 && (c->mask & L_TABLE) && l->table != SERIES_ATOM_NONE)
		return series_atom_str(c->reg, l->table);
	if (strcmp(key, "field") == 0 && (c->mask & L_FIELD) && l->field != SERIES_ATOM_NONE)
		return series_atom_str(c->reg, l->field);
	if (strcmp(key, "napi_id") == 0 && (c->mask & L_NAPI))
		return napi_id_of(c->reg, c->id, c->num, sizeof(c->num));
	if (strcmp(key, "queue") == 0 && (c->mask & L_QUEUE))
		v = l->queue;
	else if (strcmp(key, "cpu") == 0 && (c->mask & L_CPU))
		v = l->cpu;
	else if (strcmp(key, "irq") == 0 && (c->mask & L_IRQ))
		v = l->irq;
	if (v < 0)
		return NULL;
	snprintf(c->num, sizeof(c->num), "%ld", v);
	return c->num;
}

/* Labels given as parallel key/value lists (the scrape-time families). */
struct kv_ctx {
	const char *k[6], *v[6];
	size_t n;
};

static const char *
kv_label(void *arg, const char *key)
{
	struct kv_ctx *c = arg;

	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->k[i], key) == 0)
			return c->v[i];
	return NULL;
}

/* on after the include/exclude lines that match a sample of family f, in order. */
static bool
selected(const struct prom *p, int f, bool on, const char *(*get)(void *, const char *), void *arg)
{
	if (!p->sel_fam[f])
		return on;
	for (size_t i = 0; i < p->nsel; i++)
		if (sel_names(&p->sel[i].s, f) && labelsel_matches(&p->sel[i].s, NULL, get, arg))
			on = p->sel[i].include;
	return on;
}

/* Whether a series of family f with the labels in c is rolled up by CPU set. */
static bool
rolled(const struct prom *p, int f, struct series_ctx *c)
{
	if (!(families[f].labels & L_CPU) || c->l.cpu < 0)
		return false;
	for (size_t i = 0; i < p->nroll; i++)
		if (sel_names(&p->roll[i], f) &&
		    labelsel_matches(&p->roll[i], NULL, series_label, c))
			return true;
	return false;
}

/* Whether a counter of family f with these labels is left out while its total is 0. */
static bool
droppable(const struct prom *p, int f, const char *(*get)(void *, const char *), void *arg)
{
	if (!p->unmoved_fam[f])
		return false;
	for (size_t i = 0; i < p->nunmoved; i++)
		if (sel_names(&p->unmoved[i], f) &&
		    labelsel_matches(&p->unmoved[i], NULL, get, arg))
			return true;
	return false;
}

/* FNV-1a of a line. */
static uint32_t
line_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

/* The slot whose line is p->tmp, made when new (for family f). */
static uint32_t
slot_of(struct prom *p, int f)
{
	size_t mask, i;
	struct rollslot *sl;

	if (p->nslots * 2 >= p->slot_hcap) {
		size_t cap = p->slot_hcap ? p->slot_hcap * 2 : 256;
		free(p->slot_hash);
		p->slot_hash = xcalloc(cap, sizeof(*p->slot_hash));
		p->slot_hcap = cap;
		for (size_t k = 0; k < p->nslots; k++) {
			sl = &p->slots[k];
			i = line_hash(p->pre.buf + sl->off, sl->len) & (cap - 1);
			while (p->slot_hash[i] != 0)
				i = (i + 1) & (cap - 1);
			p->slot_hash[i] = (uint32_t)k + 1;
		}
	}
	mask = p->slot_hcap - 1;
	i = line_hash(p->tmp.buf, p->tmp.len) & mask;
	for (; p->slot_hash[i] != 0; i = (i + 1) & mask) {
		sl = &p->slots[p->slot_hash[i] - 1];
		if (sl->len == p->tmp.len && memcmp(p->pre.buf + sl->off, p->tmp.buf, sl->len) == 0)
			return p->slot_hash[i] - 1;
	}
	if (p->nslots == p->slotcap) {
		p->slotcap = p->slotcap ? p->slotcap * 2 : 64;
		p->slots = xreallocarray(p->slots, p->slotcap, sizeof(*p->slots));
	}
	sl = &p->slots[p->nslots];
	memset(sl, 0, sizeof(*sl));
	sl->off = (uint32_t)p->pre.len;
	sl->len = (uint32_t)p->tmp.len;
	sl->fam = (uint8_t)f;
	strbuf_add(&p->pre, p->tmp.buf, p->tmp.len);
	p->slot_hash[i] = (uint32_t)p->nslots + 1;
	return (uint32_t)p->nslots++;
}

/* Add series id of family f to the roll-up of every CPU set that holds its CPU. */
static void
add_rollup(struct prom *p, int f, const struct series_registry *reg, series_id id, int cpu,
           bool drop)
{
	struct strbuf *out = p->out;

	p->out = &p->tmp;
	for (size_t s = 0; s < p->nsets; s++) {
		bool first = true;
		if (!cpuset_has(&p->sets[s].set, (unsigned)cpu))
			continue;
		strbuf_reset(&p->tmp);
		put_name(p, families[f].name, families[f].gauge);
		put_series_labels(p, reg, id, families[f].labels & ~L_CPU, &first);
		put_label(p, &first, "cpuset", p->sets[s].name);
		strbuf_addch(&p->tmp, '}');
		if (p->nre == p->recap) {
			p->recap = p->recap ? p->recap * 2 : 256;
			p->re = xreallocarray(p->re, p->recap, sizeof(*p->re));
		}
		p->re[p->nre] = (struct rollent){id, slot_of(p, f)};
		p->slots[p->re[p->nre].slot].drop = drop;
		p->slots[p->re[p->nre].slot].scale =
		    series_get(reg, id)->scale * family_scale(&families[f]);
		p->nre++;
	}
	p->out = out;
}

/* Classify the series created since the last call into the kept lists, with their line
 * starts. */
static void
classify_new(struct prom *p, const struct prom_input *in)
{
	const struct series_registry *reg = in->reg;
	struct strbuf *out = p->out;

	if (p->reg != reg)
		forget(p);
	p->reg = reg;
	for (series_id id = (series_id)p->seen; id < reg->n; id++) {
		bool optin = false;
		int f = family_of(p, in, id, &optin);
		struct idlist *l;

		struct series_ctx c;

		if (f == F_NONE)
			continue;
		c.reg = reg;
		c.id = id;
		c.l = series_labels_of(reg, id);
		c.mask = families[f].labels;
		if (!selected(p, f, exported(p, f, optin, series_get(reg, id)->name), series_label,
		              &c))
			continue;
		if (rolled(p, f, &c)) {
			add_rollup(p, f, reg, id, c.l.cpu, droppable(p, f, series_label, &c));
			continue;
		}
		l = &p->fam[f];
		if (l->n == l->cap) {
			l->cap = l->cap ? l->cap * 2 : 64;
			l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
			l->off = xreallocarray(l->off, l->cap, sizeof(*l->off));
			l->len = xreallocarray(l->len, l->cap, sizeof(*l->len));
			l->drop = xreallocarray(l->drop, l->cap, sizeof(*l->drop));
		}
		l->drop[l->n] = droppable(p, f, series_label, &c);
		l->v[l->n] = id;
		l->off[l->n] = (uint32_t)p->pre.len;
		p->out = &p->pre;
		{
			bool first = true;
			put_name(p, families[f].name, families[f].gauge);
			put_series_labels(p, reg, id, families[f].labels, &first);
			if (!first)
				strbuf_addch(&p->pre, '}');
		}
		l->len[l->n] = (uint32_t)(p->pre.len - l->off[l->n]);
		l->n++;
	}
	p->out = out;
	p->seen = reg->n;
}

/* ---- writing ---- */

void
prom_escape_label(struct strbuf *out, const char *s)
{
	const char *run = s;

	for (; *s != '\0'; s++) {
		const char *esc = *s == '\\'   ? "\\\\"
		                  : *s == '"'  ? "\\\""
		                  : *s == '\n' ? "\\n"
		                               : NULL;
		if (esc == NULL)
			continue;
		strbuf_add(out, run, (size_t)(s - run));
		strbuf_add(out, esc, 2);
		run = s + 1;
	}
	strbuf_add(out, run, (size_t)(s - run));
}

/* HELP and TYPE of a family named name (a counter's without _total). */
static void
put_header(struct prom *p, const char *name, const char *help, bool gauge)
{
	const char *total = !gauge && p->fmt == PROM_TEXT ? "_total" : "";

	strbuf_addf(p->out, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, total, help, name, total,
	            gauge ? "gauge" : "counter");
}

/* The start of a sample: its name (with _total for a counter) and "{" when it has labels. */
static void
put_name(struct prom *p, const char *name, bool gauge)
{
	strbuf_addstr(p->out, name);
	if (!gauge)
		strbuf_add(p->out, "_total", 6);
}

/* One label, name="value", with a comma before all but the first. */
static void
put_label(struct prom *p, bool *first, const char *key, const char *val)
{
	strbuf_add(p->out, *first ? "{" : ",", 1);
	*first = false;
	strbuf_addstr(p->out, key);
	strbuf_add(p->out, "=\"", 2);
	prom_escape_label(p->out, val);
	strbuf_addch(p->out, '"');
}

/* A numeric label. */
static void
put_label_num(struct prom *p, bool *first, const char *key, long v)
{
	char b[24];

	snprintf(b, sizeof(b), "%ld", v);
	put_label(p, first, key, b);
}

static size_t format_time(const struct prom *p, char *b, uint64_t t_mono, int64_t mono_to_real);

/* The value and the timestamp (0: none) ending a sample line. */
static void
put_value(struct prom *p, bool first, const char *value, uint64_t t_mono, int64_t mono_to_real)
{
	char b[32];

	if (!first)
		strbuf_addch(p->out, '}');
	strbuf_addch(p->out, ' ');
	strbuf_addstr(p->out, value);
	if (t_mono != 0)
		strbuf_add(p->out, b, format_time(p, b, t_mono, mono_to_real));
	strbuf_addch(p->out, '\n');
}

/* The labels of series id that its family shows. */
static void
put_series_labels(struct prom *p, const struct series_registry *reg, series_id id, unsigned mask,
                  bool *first)
{
	struct series_labels l = series_labels_of(reg, id);
	char napi[24];

	if ((mask & L_DEV) && l.device != SERIES_ATOM_NONE)
		put_label(p, first, "device", series_atom_str(reg, l.device));
	if ((mask & L_QUEUE) && l.queue >= 0)
		put_label_num(p, first, "queue", l.queue);
	if ((mask & L_NAPI) && napi_id_of(reg, id, napi, sizeof(napi)) != NULL)
		put_label(p, first, "napi_id", napi);
	if ((mask & L_DIR) && l.dir != SERIES_DIR_NONE)
		put_label(p, first, "direction", l.dir == SERIES_DIR_RX ? "rx" : "tx");
	if ((mask & L_CPU) && l.cpu >= 0)
		put_label_num(p, first, "cpu", l.cpu);
	if ((mask & L_IRQ) && l.irq >= 0)
		put_label_num(p, first, "irq", l.irq);
	if ((mask & L_TYPE) && l.type != SERIES_ATOM_NONE)
		put_label(p, first, "type", series_atom_str(reg, l.type));
	if ((mask & L_MODE) && l.mode != SERIES_ATOM_NONE)
		put_label(p, first, "mode", series_atom_str(reg, l.mode));
	if ((mask & L_TABLE) && l.table != SERIES_ATOM_NONE)
		put_label(p, first, "table", series_atom_str(reg, l.table));
	if ((mask & L_FIELD) && l.field != SERIES_ATOM_NONE)
		put_label(p, first, "field", series_atom_str(reg, l.field));
}

/* A series' value in its unit (raw x scale: CPU ticks become seconds) into b (at least 32
 * bytes, not terminated); its length. Integers without printf: most values are. */
static size_t
format_value(char *b, size_t size, const struct series_info *si, double fscale, uint64_t acc)
{
	int64_t v = (int64_t)acc;
	double scale = si->scale * fscale;

	if (si->kind == SERIES_GAUGE) {
		if (scale != 1.0)
			return (size_t)snprintf(b, size, "%.15g", (double)v * scale);
		if (v < 0) {
			b[0] = '-';
			return 1 + pp_utoa((uint64_t)0 - acc, b + 1);
		}
		return pp_utoa(acc, b);
	}
	if (scale != 1.0)
		return (size_t)snprintf(b, size, "%.15g", (double)acc * scale);
	return pp_utoa(acc, b);
}

/* " TIMESTAMP" of a sample taken at t_mono into b (at least 32 bytes); its length. */
static size_t
format_time(const struct prom *p, char *b, uint64_t t_mono, int64_t mono_to_real)
{
	uint64_t ms = (uint64_t)((int64_t)t_mono + mono_to_real) / 1000000u;
	size_t n = 1;

	b[0] = ' ';
	if (p->fmt == PROM_TEXT)
		return n + pp_utoa(ms, b + n);
	n += pp_utoa(ms / 1000, b + n);
	b[n++] = '.';
	b[n++] = (char)('0' + ms % 1000 / 100);
	b[n++] = (char)('0' + ms % 100 / 10);
	b[n++] = (char)('0' + ms % 10);
	return n;
}

/* The total a counter shows: acc plus what turns it back into the source's total. */
static uint64_t
total_of(const struct prom_input *in, series_id id)
{
	uint64_t acc = ring_live_value(in->ring, id);

	return in->base != NULL && id < in->nbase ? acc + in->base[id] : acc;
}

/* Whether the caps (max_series, and max_family_series for the family being written) let
 * one more sampled series in (counts it either way). */
static bool
take_one(struct prom *p)
{
	if (p->written >= p->max_series || p->fam_written >= p->max_family) {
		p->dropped++;
		return false;
	}
	p->written++;
	p->fam_written++;
	return true;
}

/* Sum the members of every roll-up slot. */
static void
sum_rollups(struct prom *p, const struct prom_input *in)
{
	for (size_t k = 0; k < p->nslots; k++) {
		p->slots[k].sum = 0;
		p->slots[k].t = 0;
		p->slots[k].epoch = 0;
		p->slots[k].live = false;
	}
	/* A member that is gone (a CPU offline, an IRQ freed) still adds its counter's last
	 * total, so that the sum does not fall; a gauge gone is 0. A member whose count starts
	 * again (back, reset) can make the sum fall: the slot's count starts then too. */
	for (size_t i = 0; i < p->nre; i++) {
		series_id id = p->re[i].id;
		const struct series_info *si = series_get(in->reg, id);
		struct rollslot *sl = &p->slots[p->re[i].slot];
		uint64_t t = ring_live_time(in->ring, si->source);
		if (t == 0 || (!si->live && si->kind == SERIES_GAUGE))
			continue;
		sl->sum += total_of(in, id);
		if (!si->live)
			continue;
		sl->live = true;
		if (t > sl->t)
			sl->t = t;
		if (in->epoch_ns != NULL && id < in->nbase && in->epoch_ns[id] > sl->epoch)
			sl->epoch = in->epoch_ns[id];
	}
}

static void put_created_at(struct prom *p, const struct prom_input *in, const char *name,
                           const char *line, size_t len, uint64_t epoch_ns);

/* The roll-up samples of family f (the header written when *header is false); in
 * OpenMetrics a counter's _created when one of its members' counts started since the
 * daemon did. */
static void
put_rollups(struct prom *p, const struct prom_input *in, int f, bool *header)
{
	const struct family *fm = &families[f];
	char line[96];

	for (size_t k = 0; k < p->nslots; k++) {
		const struct rollslot *sl = &p->slots[k];
		size_t n = 1;
		if (sl->fam != f || !sl->live || (sl->drop && sl->sum == 0) || !take_one(p))
			continue;
		if (!*header) {
			put_header(p, fm->name, fm->help, fm->gauge);
			*header = true;
		}
		strbuf_add(p->out, p->pre.buf + sl->off, sl->len);
		line[0] = ' ';
		if (sl->scale != 1.0)
			n += (size_t)snprintf(
			    line + n, 48, "%.15g",
			    (fm->gauge ? (double)(int64_t)sl->sum : (double)sl->sum) * sl->scale);
		else if (fm->gauge)
			n += (size_t)snprintf(line + n, 48, "%" PRId64, (int64_t)sl->sum);
		else
			n += pp_utoa(sl->sum, line + n);
		n += format_time(p, line + n, sl->t, in->mono_to_real_ns);
		line[n++] = '\n';
		strbuf_add(p->out, line, n);
		if (p->fmt == PROM_OPENMETRICS && !fm->gauge)
			put_created_at(p, in, fm->name, p->pre.buf + sl->off, sl->len, sl->epoch);
	}
}

/* OpenMetrics' NAME_created{LABELS} TIME of the counter whose kept line start is
 * line[0..len) (NAME_total{LABELS}), when its count started. */
static void
put_created_at(struct prom *p, const struct prom_input *in, const char *name, const char *line,
               size_t len, uint64_t epoch_ns)
{
	size_t skip = strlen(name) + 6;
	char ts[32];
	size_t n;

	if (epoch_ns == 0 || len < skip)
		return;
	strbuf_addstr(p->out, name);
	strbuf_add(p->out, "_created", 8);
	strbuf_add(p->out, line + skip, len - skip);
	n = format_time(p, ts, epoch_ns, in->mono_to_real_ns);
	strbuf_add(p->out, ts, n);
	strbuf_addch(p->out, '\n');
}

/* put_created_at for series id, when its count's start is known. */
static void
put_created(struct prom *p, const struct prom_input *in, const char *name, const char *line,
            size_t len, series_id id)
{
	if (in->epoch_ns != NULL && id < in->nbase)
		put_created_at(p, in, name, line, len, in->epoch_ns[id]);
}

/* Every live series of family f. */
static void
put_family(struct prom *p, const struct prom_input *in, int f)
{
	const struct family *fm = &families[f];
	const struct idlist *l = &p->fam[f];
	bool header = false, created = p->fmt == PROM_OPENMETRICS && !fm->gauge;
	char line[96], ts[32];
	size_t tslen = 0;
	uint64_t ts_of = 0;

	p->fam_written = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct series_info *si = series_get(in->reg, l->v[i]);
		uint64_t t = ring_live_time(in->ring, si->source);
		uint64_t total;
		size_t n = 1;

		if (!si->live || t == 0)
			continue;
		total = total_of(in, l->v[i]);
		if ((l->drop[i] && total == 0) || !take_one(p))
			continue;
		if (!header) {
			put_header(p, fm->name, fm->help, fm->gauge);
			header = true;
		}
		if (t != ts_of) {
			tslen = format_time(p, ts, t, in->mono_to_real_ns);
			ts_of = t;
		}
		strbuf_add(p->out, p->pre.buf + l->off[i], l->len[i]);
		line[0] = ' ';
		n += format_value(line + n, 48, si, family_scale(fm), total);
		memcpy(line + n, ts, tslen);
		n += tslen;
		line[n++] = '\n';
		strbuf_add(p->out, line, n);
		if (created)
			put_created(p, in, fm->name, p->pre.buf + l->off[i], l->len[i], l->v[i]);
	}
	put_rollups(p, in, f, &header);
}

/* The slot of device name among the sums, added when new; -1 when full. */
static int
devsum_slot(struct prom *p, size_t *ndev, const char *name)
{
	for (size_t d = 0; d < *ndev; d++)
		if (strcmp(p->dev[d].name, name) == 0)
			return (int)d;
	if (*ndev == PROM_MAX_DEVICES)
		return -1;
	snprintf(p->dev[*ndev].name, sizeof(p->dev[*ndev].name), "%s", name);
	p->dev[*ndev].t_ns = 0;
	memset(p->sum + *ndev * p->sumcpus, 0, p->sumcpus * sizeof(*p->sum));
	return (int)(*ndev)++;
}

/* The interrupts of each device's IRQs on each CPU, summed from the IRQ table's cells. */
static void
put_device_irqs(struct prom *p, const struct prom_input *in)
{
	const struct irq_table *t = in->irqtab;
	const struct family *fm = &families[F_DEVICE_IRQS];
	size_t ndev = 0, cpus = 0;
	bool header = false;
	char value[24];

	if (t == NULL)
		return;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].ncpus > cpus)
			cpus = t->v[i].ncpus;
	if (cpus * PROM_MAX_DEVICES > p->sumcap) {
		p->sumcap = cpus * PROM_MAX_DEVICES;
		p->sum = xreallocarray(p->sum, p->sumcap, sizeof(*p->sum));
	}
	p->sumcpus = cpus;
	for (size_t i = 0; i < t->n; i++) {
		const struct irq_info *info = &t->v[i];
		int d;

		/* Network devices only: NVMe queues have a vector per CPU too. */
		if (info->irq < 0 || info->queue.device[0] == '\0' ||
		    info->queue.dev_kind == IRQ_DEV_BLOCK || info->queue.dev_kind == IRQ_DEV_NONE ||
		    (d = devsum_slot(p, &ndev, info->queue.device)) < 0)
			continue;
		for (unsigned c = 0; c < info->ncpus; c++) {
			series_id id = info->cpu_series[c];
			uint64_t ts;
			if (id == SERIES_NONE || id >= in->reg->n)
				continue;
			p->sum[(size_t)d * cpus + c] += total_of(in, id);
			ts = ring_live_time(in->ring, series_get(in->reg, id)->source);
			if (ts > p->dev[d].t_ns)
				p->dev[d].t_ns = ts;
		}
	}
	p->fam_written = 0;
	for (size_t d = 0; d < ndev; d++) {
		for (size_t c = 0; c < cpus; c++) {
			bool first = true;
			struct kv_ctx kv = {{"device", "cpu"}, {p->dev[d].name, value}, 2};
			snprintf(value, sizeof(value), "%zu", c);
			if (p->dev[d].t_ns == 0 ||
			    (p->sum[d * cpus + c] == 0 &&
			     droppable(p, F_DEVICE_IRQS, kv_label, &kv)) ||
			    !selected(p, F_DEVICE_IRQS, true, kv_label, &kv) || !take_one(p))
				continue;
			if (!header) {
				put_header(p, fm->name, fm->help, false);
				header = true;
			}
			put_name(p, fm->name, false);
			put_label(p, &first, "device", p->dev[d].name);
			put_label_num(p, &first, "cpu", (long)c);
			snprintf(value, sizeof(value), "%" PRIu64, p->sum[d * cpus + c]);
			put_value(p, first, value, p->dev[d].t_ns, in->mono_to_real_ns);
		}
	}
}

/* Which CPU each network queue's IRQ is delivered to (its effective affinity, else the
 * first CPU of its affinity): 1 per queue IRQ, labelled device, queue, irq and cpu, so that
 * a query can put a queue's rate beside its CPU (group_left(cpu)). */
static void
put_queue_irqs(struct prom *p, const struct prom_input *in)
{
	const struct irq_table *t = in->irqtab;
	bool header = false;

	p->fam_written = 0;
	for (size_t i = 0; t != NULL && i < t->n; i++) {
		const struct irq_info *info = &t->v[i];
		char qs[16], irqs[16], cpus[16];
		int cpu;

		if (info->irq < 0 || info->queue.index < 0 || info->queue.device[0] == '\0' ||
		    info->queue.dev_kind == IRQ_DEV_BLOCK || info->queue.dev_kind == IRQ_DEV_NONE)
			continue;
		cpu = info->has_effective && !cpuset_empty(&info->effective)
		          ? cpuset_nth(&info->effective, 0)
		      : info->has_affinity ? cpuset_nth(&info->affinity, 0)
		                           : -1;
		snprintf(qs, sizeof(qs), "%d", info->queue.index);
		snprintf(irqs, sizeof(irqs), "%d", info->irq);
		snprintf(cpus, sizeof(cpus), "%d", cpu);
		for (int dir = SERIES_DIR_RX; cpu >= 0 && dir <= SERIES_DIR_TX; dir++) {
			bool first = true;
			struct kv_ctx kv = {{"device", "queue", "direction", "irq", "cpu"},
			                    {info->queue.device, qs,
			                     dir == SERIES_DIR_RX ? "rx" : "tx", irqs, cpus},
			                    5};
			if ((dir == SERIES_DIR_RX && info->queue.kind == IRQ_QUEUE_TX) ||
			    (dir == SERIES_DIR_TX && info->queue.kind == IRQ_QUEUE_RX) ||
			    info->queue.kind == IRQ_QUEUE_IO ||
			    !selected(p, NFAM, true, kv_label, &kv) || !take_one(p))
				continue;
			if (!header) {
				put_header(
				    p, "netmetrics_queue_irq_info",
				    "The CPU a device queue's IRQ is delivered to (1 per queue "
				    "and direction; a combined channel's IRQ serves both); origin "
				    "netlink: the kernel links the queue's NAPI to the IRQ, "
				    "irq-name: "
				    "guessed from the IRQ's name.",
				    true);
				header = true;
			}
			put_name(p, "netmetrics_queue_irq_info", true);
			put_label(p, &first, "device", info->queue.device);
			put_label_num(p, &first, "queue", info->queue.index);
			put_label(p, &first, "direction", dir == SERIES_DIR_RX ? "rx" : "tx");
			put_label_num(p, &first, "irq", info->irq);
			put_label_num(p, &first, "cpu", cpu);
			put_label(p, &first, "origin", irqtable_origin_name(info->queue.origin));
			put_value(p, first, "1", 0, 0);
		}
	}
}

/* Each queue's NAPI as the kernel links them (queue-get, napi-get): 1 per queue and
 * direction linked to one, labelled with the NAPI's id, its IRQ and kthread when it has
 * them and its settings, origin netlink. */
static void
put_queue_napis(struct prom *p, const struct prom_input *in)
{
	const struct napi_table *t = in->napitab;
	bool header = false;

	p->fam_written = 0;
	for (size_t i = 0; t != NULL && i < t->nq; i++) {
		const struct napi_queue *q = &t->q[i];
		const struct napi_entry *e = q->napi_id ? napitable_find_id(t, q->napi_id) : NULL;
		const char *dir = q->dir == 0 ? "rx" : "tx";
		char qs[16], ids[16];
		bool first = true;

		if (e == NULL)
			continue;
		snprintf(qs, sizeof(qs), "%u", q->index);
		snprintf(ids, sizeof(ids), "%u", e->id);
		struct kv_ctx kv = {
		    {"device", "queue", "direction", "napi"}, {e->dev, qs, dir, ids}, 4};
		if (!selected(p, NFAM + 1, true, kv_label, &kv) || !take_one(p))
			continue;
		if (!header) {
			put_header(
			    p, "netmetrics_queue_napi_info",
			    "The NAPI instance a device queue is linked to (netdev netlink "
			    "queue-get, napi-get): its id, IRQ and kthread pid when it has them, "
			    "its settings (gro_flush_timeout in ns); origin netlink.",
			    true);
			header = true;
		}
		put_name(p, "netmetrics_queue_napi_info", true);
		put_label(p, &first, "device", e->dev);
		put_label_num(p, &first, "queue", (long)q->index);
		put_label(p, &first, "direction", dir);
		put_label(p, &first, "napi", ids);
		if (e->irq >= 0)
			put_label_num(p, &first, "irq", e->irq);
		if (e->pid >= 0)
			put_label_num(p, &first, "pid", e->pid);
		if (e->threaded >= 0)
			put_label_num(p, &first, "threaded", e->threaded);
		if (e->defer_hard_irqs >= 0)
			put_label_num(p, &first, "defer_hard_irqs", (long)e->defer_hard_irqs);
		if (e->gro_flush_timeout >= 0)
			put_label_num(p, &first, "gro_flush_timeout", (long)e->gro_flush_timeout);
		if (e->irq_suspend_timeout >= 0)
			put_label_num(p, &first, "irq_suspend_timeout",
			              (long)e->irq_suspend_timeout);
		put_label(p, &first, "origin", "netlink");
		put_value(p, first, "1", 0, 0);
	}
}

/* A family of the daemon's own, with one sample per item written by the caller. */
static void
own_header(struct prom *p, const char *name, const char *help, bool gauge)
{
	put_header(p, name, help, gauge);
}

/* One sample of an own family with up to two labels (NULL key: none). */
static void
own_sample(struct prom *p, const char *name, bool gauge, const char *k1, const char *v1,
           const char *k2, const char *v2, const char *value)
{
	bool first = true;

	put_name(p, name, gauge);
	if (k1 != NULL)
		put_label(p, &first, k1, v1 != NULL ? v1 : "");
	if (k2 != NULL)
		put_label(p, &first, k2, v2 != NULL ? v2 : "");
	put_value(p, first, value, 0, 0);
}

/* The per-source families: health, sample cost, lateness, samples and failures. */
static void
put_sources(struct prom *p, const struct prom_input *in)
{
	static const struct {
		const char *name, *help;
		bool gauge;
	} fams[] = {
	    {"netmetrics_source_healthy", "Whether a source's last sample succeeded.", true},
	    {"netmetrics_source_sample_cost_seconds", "What a source's last sample took.", true},
	    {"netmetrics_source_lateness_seconds",
	     "How late a source's timer fired last, past its interval.", true},
	    {"netmetrics_source_samples", "Samples a source took.", false},
	    {"netmetrics_source_failures", "Samples of a source that failed.", false},
	};
	char v[48];

	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
		own_header(p, fams[f].name, fams[f].help, fams[f].gauge);
		for (size_t i = 0; i < in->nsources; i++) {
			const struct prom_source *s = &in->sources[i];
			if (!s->enabled)
				continue;
			switch (f) {
			case 0:
				snprintf(v, sizeof(v), "%d", s->healthy ? 1 : 0);
				break;
			case 1:
				snprintf(v, sizeof(v), "%.9f", (double)s->last_cost_ns / 1e9);
				break;
			case 2:
				snprintf(v, sizeof(v), "%.9f", (double)s->late_last_ns / 1e9);
				break;
			case 3:
				snprintf(v, sizeof(v), "%" PRIu64, s->samples);
				break;
			default:
				snprintf(v, sizeof(v), "%" PRIu64, s->failures);
				break;
			}
			own_sample(p, fams[f].name, fams[f].gauge, "source", s->name, NULL, NULL,
			           v);
		}
	}
}

/* What only netmetrics knows: windows, tests, the profile, sources, ring, scrapes. */
static void
put_own(struct prom *p, const struct prom_input *in)
{
	char v[48];

	own_header(p, "netmetrics_window_open", "A measurement window open now (1).", true);
	for (size_t i = 0; i < in->nwindows; i++)
		own_sample(p, "netmetrics_window_open", true, "name", in->windows[i].name, "origin",
		           in->windows[i].origin, "1");
	own_header(p, "netmetrics_test_running", "A benchmark test running now (1).", true);
	for (size_t i = 0; i < in->ntests; i++)
		own_sample(p, "netmetrics_test_running", true, "name", in->tests[i].name, "driver",
		           in->tests[i].driver, "1");
	own_header(p, "netmetrics_profile_applied", "The tuning profile applied now (1).", true);
	if (in->profile != NULL)
		own_sample(p, "netmetrics_profile_applied", true, "name", in->profile, NULL, NULL,
		           "1");
	own_header(p, "netmetrics_profile_drift",
	           "Whether values the applied profile wrote have changed since (1) or not (0).",
	           true);
	if (in->profile != NULL && in->profile_drift >= 0)
		own_sample(p, "netmetrics_profile_drift", true, "name", in->profile, NULL, NULL,
		           in->profile_drift ? "1" : "0");
	put_sources(p, in);
	own_header(p, "netmetrics_ring_bytes", "Bytes of sample history held in memory.", true);
	snprintf(v, sizeof(v), "%zu", in->ring_used);
	own_sample(p, "netmetrics_ring_bytes", true, NULL, NULL, NULL, NULL, v);
	own_header(p, "netmetrics_ring_capacity_bytes", "Bytes the sample history may hold.", true);
	snprintf(v, sizeof(v), "%zu", in->ring_capacity);
	own_sample(p, "netmetrics_ring_capacity_bytes", true, NULL, NULL, NULL, NULL, v);
	if (in->http_tls) {
		own_header(
		    p, "netmetrics_http_tls_handshake_failures",
		    "TLS handshakes of the endpoint ended by a fatal alert of ours (no or a bad "
		    "client certificate, no common protocol).",
		    false);
		snprintf(v, sizeof(v), "%" PRIu64, in->tls_failures);
		own_sample(p, "netmetrics_http_tls_handshake_failures", false, NULL, NULL, NULL,
		           NULL, v);
	}
	if (in->http_auth) {
		own_header(p, "netmetrics_http_auth_failures",
		           "Requests of the endpoint refused for their credentials (401).", false);
		snprintf(v, sizeof(v), "%" PRIu64, in->auth_failures);
		own_sample(p, "netmetrics_http_auth_failures", false, NULL, NULL, NULL, NULL, v);
		own_header(p, "netmetrics_http_auth_cache_hits",
		           "Requests let in by a kept successful check, without bcrypt.", false);
		snprintf(v, sizeof(v), "%" PRIu64, in->auth_cache_hits);
		own_sample(p, "netmetrics_http_auth_cache_hits", false, NULL, NULL, NULL, NULL, v);
	}
	own_header(p, "netmetrics_scrape_duration_seconds",
	           "What the previous scrape of this endpoint took to render.", true);
	if (in->last_scrape_seconds >= 0) {
		snprintf(v, sizeof(v), "%.9f", in->last_scrape_seconds);
		own_sample(p, "netmetrics_scrape_duration_seconds", true, NULL, NULL, NULL, NULL,
		           v);
	}
}

void
prom_render(struct prom *p, const struct prom_input *in, enum prom_format fmt, struct strbuf *out,
            struct prom_result *res)
{
	char v[32];

	strbuf_reset(out);
	p->out = out;
	p->fmt = fmt;
	p->written = p->dropped = 0;
	classify_new(p, in);
	sum_rollups(p, in);
	for (int f = 0; f < NFAM; f++) {
		if (f == F_DEVICE_IRQS)
			put_device_irqs(p, in);
		else
			put_family(p, in, f);
	}
	put_queue_irqs(p, in);
	put_queue_napis(p, in);
	put_own(p, in);
	own_header(p, "netmetrics_export_series", "Sampled series this scrape shows.", true);
	snprintf(v, sizeof(v), "%zu", p->written);
	own_sample(p, "netmetrics_export_series", true, NULL, NULL, NULL, NULL, v);
	own_header(p, "netmetrics_export_series_dropped",
	           "Exported series this scrape left out: [prometheus] max_series or "
	           "max_family_series was reached.",
	           true);
	snprintf(v, sizeof(v), "%zu", p->dropped);
	own_sample(p, "netmetrics_export_series_dropped", true, NULL, NULL, NULL, NULL, v);
	if (fmt == PROM_OPENMETRICS)
		strbuf_add(out, "# EOF\n", 6);
	if (res != NULL) {
		res->series = p->written;
		res->dropped = p->dropped;
	}
	p->out = NULL;
}
