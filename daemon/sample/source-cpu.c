/* source-cpu.c: CPU time per CPU and mode, and the system counters of /proc/stat.
 *
 * "cpuN u n s ..." is one online CPU: user nice system idle iowait irq softirq steal guest
 * guest_nice, in USER_HZ ticks (older kernels print fewer modes; the missing ones get no
 * series). Each becomes cpu.<N>.<mode>, a COUNTER in "s" with scale 1/sysconf(_SC_CLK_TCK),
 * whose value is not the kernel's reading but the CPU's time in that mode by the rules of
 * cpuutil.h (mpstat's): the source keeps each CPU's last reading and adds to each mode what
 * cpuutil_step makes of the next one, so user excludes guest, nice excludes guest_nice, a
 * falling iowait or idle never counts as a reset of the CPU, and an offline CPU's last
 * reading stands in for it until it is back. A CPU's series start from its first reading
 * (guest taken out of user, guest_nice out of nice) when it is there at the first sample,
 * from 0 when it shows up later. cpu.all.<mode> is the sum of the CPUs' increments; the
 * kernel's aggregate "cpu" line is not read (it leaves offline CPUs out). cpu.<N>.online
 * (GAUGE) is 1 while cpuN is listed, 0 while not; cpu.online counts the cpuN lines. Of the
 * rest: stat.ctxt, stat.intr (only the first number of the long intr line, whose per-IRQ
 * list is skipped with one memchr) and stat.processes are counters, stat.procs_running and
 * stat.procs_blocked gauges. The whole intr line is published for the interrupts source
 * (struct stat_intr in source.h), which the sampler runs after this one.
 *
 * The file is read into two buffers in turn; a cpu line byte-identical to the one at the
 * same place last time is skipped, others are parsed in full (ten short numbers: a digit
 * loop costs less than finding the changed bytes), and a value equal to the last one put
 * is not put. No series of an offline CPU is declared gone: they stop moving. A file cut
 * mid-line is read up to its last complete line and no CPU is taken for offline. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cpuutil.h"
#include "jsonutil.h"
#include "procparse.h"
#include "source.h"
#include "xmalloc.h"

#define STAT_PATH    "proc/stat"
#define CPU_NMODES   CPUUTIL_NMODES
#define CPU_MAX_CPUS 8192

/* The single-value lines of /proc/stat that are reported. */
static const struct {
	const char *key; /* with its trailing blank */
	const char *name;
	enum series_kind kind;
	const char *unit;
} stat_keys[] = {
    {"ctxt ", "stat.ctxt", SERIES_COUNTER, "switches"},
    {"intr ", "stat.intr", SERIES_COUNTER, "interrupts"},
    {"processes ", "stat.processes", SERIES_COUNTER, "forks"},
    {"procs_running ", "stat.procs_running", SERIES_GAUGE, "tasks"},
    {"procs_blocked ", "stat.procs_blocked", SERIES_GAUGE, "tasks"},
};
#define NSTAT_KEYS (sizeof(stat_keys) / sizeof(stat_keys[0]))
#define INTR_KEY   1 /* stat_keys[1]: published whole for the interrupts source */

/* One CPU (slot 0: "all", the sum of the others; slot N+1: cpuN). */
struct cpu_slot {
	series_id ids[CPU_NMODES];
	uint64_t acc[CPU_NMODES];  /* the CPU's time per mode: what is put */
	uint64_t vals[CPU_NMODES]; /* last put */
	uint64_t raw[CPU_NMODES];  /* the last reading (stands in while offline) */
	series_id online_id;       /* cpu.<N>.online */
	uint64_t online;           /* its last value put */
	bool have;                 /* raw holds a reading */
	bool present;              /* listed in the last complete read */
	bool seen;                 /* listed in this read */
};

/* A cpu line by its position among the cpu lines: to skip it when unchanged. */
struct cpu_line {
	size_t prev_off, prev_len; /* in the previous buffer; prev_len 0: none */
	size_t slot;
};

struct cpu_priv {
	struct source_file file; /* /proc/stat */
	double scale;            /* 1/USER_HZ */
	struct cpu_slot *slots;
	size_t nslots;
	struct cpu_line *lines;
	size_t nlines;
	series_id online_id;
	uint64_t online;
	series_id stat_ids[NSTAT_KEYS];
	uint64_t stat_vals[NSTAT_KEYS];
	uint64_t all_d[CPU_NMODES]; /* the CPUs' increments in this read */
	int all_modes;              /* modes of the longest cpu line seen */
	uint64_t reads;             /* samples taken */
	unsigned puts;              /* in the last sample */
};

/* Make room for slot s (allocates only when a higher CPU number than ever shows up). */
static void
slots_reserve(struct cpu_priv *pv, size_t s)
{
	size_t n = pv->nslots ? pv->nslots : 64;

	if (s < pv->nslots)
		return;
	while (n <= s)
		n *= 2;
	pv->slots = xreallocarray(pv->slots, n, sizeof(*pv->slots));
	for (size_t i = pv->nslots; i < n; i++) {
		memset(&pv->slots[i], 0, sizeof(pv->slots[i]));
		for (int m = 0; m < CPU_NMODES; m++)
			pv->slots[i].ids[m] = SERIES_NONE;
		pv->slots[i].online_id = SERIES_NONE;
	}
	pv->nslots = n;
}

/* Put a value that differs from the last one (or was never put). */
static void
put_changed(struct cpu_priv *pv, struct sink *sink, series_id id, uint64_t *last, bool known,
            uint64_t v)
{
	if (known && *last == v)
		return;
	*last = v;
	sink_put(sink, id, v);
	pv->puts++;
}

/* Put the modes of slot s that changed, interning the series of the first nmodes. */
static void
slot_put(struct source *src, struct cpu_priv *pv, struct sink *sink, size_t s, int nmodes)
{
	struct cpu_slot *sl = &pv->slots[s];
	bool known;

	for (int m = 0; m < nmodes; m++) {
		known = sl->ids[m] != SERIES_NONE;
		if (!known) {
			struct series_labels l = source_labels(src);
			l.mode = source_atom(src, cpuutil_modes[m], strlen(cpuutil_modes[m]));
			l.cpu = s == 0 ? -1 : (int16_t)(s - 1);
			if (s == 0)
				sl->ids[m] =
				    series_internf(src->reg, SERIES_COUNTER, src->index, "s",
				                   pv->scale, &l, "cpu.all.%s", cpuutil_modes[m]);
			else
				sl->ids[m] = series_internf(src->reg, SERIES_COUNTER, src->index,
				                            "s", pv->scale, &l, "cpu.%zu.%s", s - 1,
				                            cpuutil_modes[m]);
		}
		put_changed(pv, sink, sl->ids[m], &sl->vals[m], known, sl->acc[m]);
	}
}

/* Parse the values of a cpuN line from p (past its label) into slot s: the increments
 * since its last reading (or its stand-in's) by cpuutil_step, added to the CPU and to
 * "all"; put the modes that changed. The aggregate "cpu" line (slot 0) is not read. */
static void
cpu_line(struct source *src, struct cpu_priv *pv, struct sink *sink, size_t s, const char *p,
         const char *eol)
{
	struct cpu_slot *sl = &pv->slots[s];
	uint64_t cur[CPU_NMODES] = {0}, d[CPU_NMODES];
	int nmodes = 0;

	sl->seen = true;
	if (s == 0)
		return;
	for (; nmodes < CPU_NMODES; nmodes++) {
		p = pp_skip_blanks(p, eol);
		if (pp_u64(&p, eol, &cur[nmodes]) < 0)
			break;
	}
	if (sl->have) {
		cpuutil_step(sl->raw, cur, d);
	} else if (pv->reads == 0) {
		cpuutil_base(cur, d, sl->raw); /* there from the start: counted from its reading */
	} else {
		memset(d, 0, sizeof(d)); /* new since: counted from now */
		memcpy(sl->raw, cur, sizeof(cur));
	}
	for (int m = 0; m < CPU_NMODES; m++) {
		sl->acc[m] += d[m];
		pv->all_d[m] += d[m];
	}
	sl->have = true;
	if (nmodes > pv->all_modes)
		pv->all_modes = nmodes;
	slot_put(src, pv, sink, s, nmodes);
}

/* Put cpu.<N>.online for a CPU listed (or not) in a complete read. */
static void
slot_online(struct source *src, struct cpu_priv *pv, struct sink *sink, size_t s, bool on)
{
	struct cpu_slot *sl = &pv->slots[s];
	bool known = sl->online_id != SERIES_NONE;

	if (!known) {
		struct series_labels l = source_labels(src);
		l.cpu = (int16_t)(s - 1);
		l.field = source_atom(src, "online", 6);
		sl->online_id = series_internf(src->reg, SERIES_GAUGE, src->index, "cpus", 1.0, &l,
		                               "cpu.%zu.online", s - 1);
	}
	put_changed(pv, sink, sl->online_id, &sl->online, known, on ? 1 : 0);
}

/* Handle the line at p (ending at eol) if it is "cpu..."; nth is its place among the cpu
 * lines. Returns whether it was one. */
static bool
maybe_cpu_line(struct source *src, struct cpu_priv *pv, struct sink *sink, const char *buf,
               const char *p, const char *eol, size_t nth)
{
	const char *q = p + 3;
	size_t s = 0;
	uint64_t cpu;

	if (eol - p < 4 || memcmp(p, "cpu", 3) != 0)
		return false;
	if (!pp_isblank(*q)) {
		if (pp_u64(&q, eol, &cpu) < 0 || cpu >= CPU_MAX_CPUS || q == eol || !pp_isblank(*q))
			return false;
		s = (size_t)cpu + 1;
	}
	slots_reserve(pv, s);
	if (nth >= pv->nlines) {
		pv->lines = xreallocarray(pv->lines, nth + 16, sizeof(*pv->lines));
		memset(&pv->lines[pv->nlines], 0, (nth + 16 - pv->nlines) * sizeof(*pv->lines));
		pv->nlines = nth + 16;
	}
	cpu_line(src, pv, sink, s, q, eol);
	pv->lines[nth] = (struct cpu_line){(size_t)(p - buf), (size_t)(eol - p), s};
	return true;
}

/* Handle one of the single-value lines. */
static void
stat_line(struct source *src, struct cpu_priv *pv, struct sink *sink, const char *p,
          const char *eol)
{
	uint64_t v;

	for (size_t i = 0; i < NSTAT_KEYS; i++) {
		size_t kl = strlen(stat_keys[i].key);

		if ((size_t)(eol - p) <= kl || memcmp(p, stat_keys[i].key, kl) != 0)
			continue;
		if (i == INTR_KEY && src->stat_intr != NULL)
			*src->stat_intr = (struct stat_intr){p, (size_t)(eol - p), src->sample_ns};
		p = pp_skip_blanks(p + kl, eol);
		if (pp_u64(&p, eol, &v) < 0)
			return;
		if (pv->stat_ids[i] == SERIES_NONE) {
			struct series_labels l = source_labels(src);
			l.field =
			    source_atom(src, stat_keys[i].name + 5, strlen(stat_keys[i].name + 5));
			pv->stat_ids[i] = series_intern(
			    src->reg, stat_keys[i].name, strlen(stat_keys[i].name),
			    stat_keys[i].kind, src->index, stat_keys[i].unit, 1.0, &l);
			put_changed(pv, sink, pv->stat_ids[i], &pv->stat_vals[i], false, v);
		} else
			put_changed(pv, sink, pv->stat_ids[i], &pv->stat_vals[i], true, v);
		return;
	}
}

/* Allocate the state and open /proc/stat. */
static int
cpu_init(struct source *src, struct nm_error *err)
{
	struct cpu_priv *pv = xcalloc(1, sizeof(*pv));
	long hz = sysconf(_SC_CLK_TCK);

	src->priv = pv;
	pv->scale = 1.0 / (double)(hz > 0 ? hz : 100);
	pv->online_id = SERIES_NONE;
	for (size_t i = 0; i < NSTAT_KEYS; i++)
		pv->stat_ids[i] = SERIES_NONE;
	slots_reserve(pv, 0);
	source_file_init(&pv->file, STAT_PATH);
	return source_file_open(src, &pv->file, err);
}

/* Read /proc/stat once and put what changed. */
static int
cpu_sample(struct source *src, struct sink *sink, struct nm_error *err)
{
	struct cpu_priv *pv = src->priv;
	const char *buf, *end, *old, *p, *eol;
	struct cpu_line *ln;
	size_t nth = 0, ncpus = 0, s;
	bool cut = false;
	ssize_t n;

	n = source_file_read(src, &pv->file, &buf, err);
	if (n < 0)
		return -1;
	end = buf + n;
	old = source_file_prev(&pv->file, NULL);
	pv->puts = 0;
	memset(pv->all_d, 0, sizeof(pv->all_d));

	for (p = buf; p < end; p = eol + 1) {
		ln = nth < pv->nlines ? &pv->lines[nth] : NULL;
		if (ln != NULL && ln->prev_len > 0 && old != NULL &&
		    pp_same_line(p, end, old + ln->prev_off, ln->prev_len)) {
			eol = p + ln->prev_len;
			ln->prev_off = (size_t)(p - buf);
			pv->slots[ln->slot].seen = true;
			ncpus += ln->slot > 0;
			nth++;
			continue;
		}
		eol = pp_eol(p, end);
		if (eol == NULL) {
			cut = true;
			break;
		}
		if (maybe_cpu_line(src, pv, sink, buf, p, eol, nth)) {
			ncpus += pv->lines[nth].slot > 0;
			nth++;
		} else
			stat_line(src, pv, sink, p, eol);
	}
	/* Lines past the last cpu line refer to the old buffer: forget them. */
	for (s = nth; s < pv->nlines; s++)
		pv->lines[s].prev_len = 0;
	for (int m = 0; m < CPU_NMODES; m++)
		pv->slots[0].acc[m] += pv->all_d[m];
	slot_put(src, pv, sink, 0, pv->all_modes);
	for (s = 0; s < pv->nslots; s++) {
		struct cpu_slot *sl = &pv->slots[s];

		if (cut) {
			sl->present = sl->present || sl->seen;
		} else {
			if (s > 0 && (sl->seen || sl->have) &&
			    (sl->seen != sl->present || sl->online_id == SERIES_NONE))
				slot_online(src, pv, sink, s, sl->seen);
			sl->present = sl->seen;
		}
		sl->seen = false;
	}
	pv->reads++;
	if (!cut) {
		if (pv->online_id == SERIES_NONE) {
			struct series_labels l = source_labels(src);
			l.field = source_atom(src, "online", 6);
			pv->online_id = series_intern(src->reg, "cpu.online", 10, SERIES_GAUGE,
			                              src->index, "cpus", 1.0, &l);
			put_changed(pv, sink, pv->online_id, &pv->online, false, ncpus);
		} else
			put_changed(pv, sink, pv->online_id, &pv->online, true, ncpus);
	}
	source_file_keep(&pv->file);
	return 0;
}

/* Facts for status. */
static json_object *
cpu_describe(struct source *src)
{
	struct cpu_priv *pv = src->priv;
	json_object *o = json_object_new_object();

	if (pv == NULL)
		return o;
	json_add_uint(o, "online", pv->online);
	json_add_double(o, "tick_s", pv->scale);
	json_add_uint(o, "puts", pv->puts);
	return o;
}

/* Close the file and free the state. */
static void
cpu_free(struct source *src)
{
	struct cpu_priv *pv = src->priv;

	if (pv == NULL)
		return;
	if (src->stat_intr != NULL) /* it points into the buffers freed here */
		*src->stat_intr = (struct stat_intr){NULL, 0, 0};
	source_file_free(&pv->file);
	free(pv->slots);
	free(pv->lines);
	free(pv);
	src->priv = NULL;
}

/* Its Prometheus families (serve/prom.c): CPU time per CPU and over all, the other
 * counters and levels of /proc/stat. */
static const struct source_family cpu_families[] = {
    {"netmetrics_cpu_seconds",
     {.kind = SOURCE_COUNTERS, .mode = SOURCE_HAS, .cpu = SOURCE_HAS},
     false},
    {"netmetrics_cpu_all_seconds", {.kind = SOURCE_COUNTERS, .mode = SOURCE_HAS}, false},
    {"netmetrics_stat_level", {.kind = SOURCE_GAUGES}, false},
    {"netmetrics_stat", {.kind = SOURCE_ANY_KIND}, false},
    {NULL, {.kind = SOURCE_ANY_KIND}, false},
};

const struct source_ops source_cpu_ops = {
    .name = "cpu",
    .prom = cpu_families,
    .keep = SOURCE_KEPT,
    .description = "CPU time per CPU and mode, context switches, forks (/proc/stat)",
    .configure = NULL,
    .init = cpu_init,
    .sample = cpu_sample,
    .describe = cpu_describe,
    .free = cpu_free,
};
