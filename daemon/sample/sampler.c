/* sampler.c: every source on its own timer; raw readings to increments (the sink); records
 * in the ring; health of each source with the reason it failed. */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "counter.h"
#include "devlist.h"
#include "error.h"
#include "fine.h"
#include "irqtable.h"
#include "jsonutil.h"
#include "log.h"
#include "napitable.h"
#include "sampler.h"
#include "timeutil.h"
#include "xmalloc.h"

static const struct source_ops *const all_sources[] = {
    [SAMPLER_INTERRUPTS] = &source_interrupts_ops,
    [SAMPLER_SOFTIRQS] = &source_softirqs_ops,
    [SAMPLER_CPU] = &source_cpu_ops,
    [SAMPLER_SNMP] = &source_snmp_ops,
    [SAMPLER_LINK] = &source_link_ops,
    [SAMPLER_QUEUES] = &source_queues_ops,
    [SAMPLER_ETHTOOL] = &source_ethtool_ops,
    [SAMPLER_SOFTNET] = &source_softnet_ops,
    [SAMPLER_LNSTAT] = &source_lnstat_ops,
    [SAMPLER_SYSCTL] = &source_sysctl_ops,
    [SAMPLER_BPF] = &source_bpf_ops,
    [SAMPLER_QDISC] = &source_qdisc_ops,
};
#define NSOURCES (sizeof(all_sources) / sizeof(all_sources[0]))
_Static_assert(NSOURCES == SAMPLER_NSOURCES, "a source in all_sources without its kind");

/* The table index of the source named name, or NSOURCES. */
static unsigned
source_index(const char *name)
{
	unsigned i = 0;

	while (i < NSOURCES && strcmp(all_sources[i]->name, name) != 0)
		i++;
	return i;
}

/* Put source i into the turn order after the source its .after names, and the sources whose
 * .after names it right after it. */
static void
place_turn(unsigned i, bool *placed, unsigned *order, unsigned *n)
{
	unsigned j;

	if (placed[i])
		return;
	placed[i] = true;
	if (all_sources[i]->after != NULL && (j = source_index(all_sources[i]->after)) < NSOURCES)
		place_turn(j, placed, order, n);
	order[(*n)++] = i;
	for (j = 0; j < NSOURCES; j++)
		if (all_sources[j]->after != NULL && source_index(all_sources[j]->after) == i)
			place_turn(j, placed, order, n);
}

/* The source sampled k-th in a round, and armed k-th: table order, except that a source
 * comes right after the one its .after names (the cpu source, then the interrupts source,
 * which takes its intr line; the softirqs source, then the bpf source, whose counts compare
 * with its). The table order is the sources' index, which series and ring records carry: it
 * stays. */
static unsigned
source_turn(unsigned k)
{
	static unsigned order[NSOURCES];
	static bool done;
	bool placed[NSOURCES] = {false};
	unsigned n = 0;

	if (!done) {
		for (unsigned i = 0; i < NSOURCES; i++)
			place_turn(i, placed, order, &n);
		done = true;
	}
	return order[k];
}

/* Whether source i gives or takes a reading through struct stat_intr. */
static bool
shares_stat_intr(unsigned i)
{
	for (unsigned j = 0; j < NSOURCES; j++)
		if (all_sources[j]->after != NULL &&
		    (j == i || source_index(all_sources[j]->after) == i))
			return true;
	return false;
}

static int configure_source(struct source *src, const struct config *cfg, struct nm_error *err);

/* What the sink knows of a series' raw readings: the state in the low bits and, while it is
 * SEEN_LIVE, the series' kind above them, a copy of the registry's (set at creation, never
 * changed) so that a put reads none of the registry's large entries. */
enum { SEEN_NEVER = 0, SEEN_LIVE, SEEN_GONE, SEEN_STATE = 3 };
#define SEEN_KIND_SHIFT 2

/* The sink a source writes into during one sample. */
struct sink {
	struct sampler *s;
	unsigned src;
	bool first;    /* the source's first sample: readings are baselines */
	uint64_t t_ns; /* the sample's time */
	/* A source sampled fine: increments go to the fine ring (when there is one) and to
	 * struct fine, whose sum the next normal-cadence record takes (fine_record). */
	bool fine;
};

struct sampler {
	struct series_registry reg;
	struct ring *ring;
	struct source sources[NSOURCES];
	struct event *timers[NSOURCES];
	struct event_base *base;
	char *root;
	int rootfd;
	struct devlist *devlist; /* shared by the ethtool and queues sources, opened by the first */
	struct stat_intr stat_intr; /* published by the cpu source for the interrupts source */
	struct irq_table irqtab;    /* filled by the interrupts source as it samples */
	struct napi_table napitab;  /* filled by the queues source, applied to irqtab */
	struct irq_table irqread;   /* read on demand while that source has no table */
	/* per series: last raw reading and whether a baseline exists */
	uint64_t *raw;
	uint8_t *seen;
	/* per series: the source's total minus the ring's acc (what turns acc back into the
	 * kernel's total), and when the series' count started (its first reading, its return,
	 * the kernel's reset of it); see sampler_totals */
	uint64_t *total_base;
	uint64_t *epoch_ns;
	uint64_t *gone_ns; /* per series: the sample that last found it gone (sink_gone); 0 */
	size_t cap;
	/* 32-bit totals a stop of the daemon kept (sampler_wraps_restore): {name: [total, raw]},
	 * each taken at its series' first reading; NULL: none. */
	json_object *wraps;
	int64_t mono_to_real;
	struct config *cfg; /* a copy of the configuration the sources were built from */
	uint64_t (*clock)(void *arg);
	void *clock_arg;
	/* The round under way (source.round_ns) and when its last sample ended. */
	uint64_t round_ns, round_end_ns;

	/* Fine sampling (sampler.h). */
	struct fine fine;
	struct ring *fring;         /* the fine history; NULL: none (fine_memory 0) */
	bool fine_set[NSOURCES];    /* in [sampling] fine, and enabled */
	bool fine_on;               /* the fine timer runs */
	uint64_t fine_off_ns;       /* when it last stopped (the sampler's clock; 0: never) */
	bool fine_beat[NSOURCES];   /* the last sample was a fine tick's: lateness counts */
	bool fine_ticked[NSOURCES]; /* a fine tick sampled it since its last record */
	char fine_why[96];          /* why on or off, for status */
	struct event *fine_timer;
	int fine_tfd;                   /* its timerfd (-1: none, libevent's timer instead) */
	uint64_t fine_ticks_missed;     /* expirations the loop came too late to take */
	bool (*fine_wanted)(void *arg); /* is a window or a test open? */
	void *fine_wanted_arg;
	struct fine_late fine_late[NSOURCES];
	uint64_t fine_cost_ns[NSOURCES], fine_samples[NSOURCES];
	/* By counter id: its peak-rate series, SERIES_NONE when it has none (yet). */
	series_id *peak_id;
	size_t peak_cap;
	/* By peak series id: the record that last set it; per source, its peak series whose
	 * level is not 0 (the next record puts 0 to those it does not set). */
	uint32_t *peak_gen;
	size_t peak_gen_cap;
	uint32_t gen;
	struct fine_ids peak_nz[NSOURCES], peak_nz_next;
};

/* Whether source i's samples go through struct fine: it is sampled fine, or it was and its
 * last increments are not recorded yet. */
static bool
fine_styled(const struct sampler *s, unsigned i)
{
	return s->fine_set[i] || s->fine.src[i].touched.n > 0;
}

/* The fine interval, ns. */
static uint64_t
fine_ns(const struct sampler *s)
{
	return s->cfg->fine_interval_ms * 1000000ull;
}

bool
sampler_fine_on(const struct sampler *s)
{
	return s->fine_on;
}

bool
sampler_fine_since(const struct sampler *s, uint64_t t)
{
	return s->fine_on || (s->fine_off_ns != 0 && s->fine_off_ns > t);
}

uint32_t
sampler_fine_interval_ms(const struct sampler *s)
{
	return (uint32_t)s->cfg->fine_interval_ms;
}

/* A sample that starts within this of the end of the one before joins its round: timers
 * that fire in one loop iteration, and sampler_sample_all, sample back to back. */
#define ROUND_GAP_NS 2000000ull

/* The default clock. */
static uint64_t
mono_clock(void *arg)
{
	(void)arg;
	return time_mono_ns();
}

void
sampler_set_clock(struct sampler *s, uint64_t (*now)(void *arg), void *arg)
{
	s->clock = now;
	s->clock_arg = arg;
}

/* Grow the per-series arrays to hold id (only when the set of series grows). */
static void
sampler_reserve(struct sampler *s, size_t n)
{
	size_t cap = s->cap ? s->cap : 4096;

	if (n <= s->cap)
		return;
	while (cap < n)
		cap *= 2;
	s->raw = xreallocarray(s->raw, cap, sizeof(*s->raw));
	s->seen = xreallocarray(s->seen, cap, sizeof(*s->seen));
	memset(s->raw + s->cap, 0, (cap - s->cap) * sizeof(*s->raw));
	memset(s->seen + s->cap, 0, (cap - s->cap) * sizeof(*s->seen));
	s->total_base = xreallocarray(s->total_base, cap, sizeof(*s->total_base));
	s->epoch_ns = xreallocarray(s->epoch_ns, cap, sizeof(*s->epoch_ns));
	memset(s->total_base + s->cap, 0, (cap - s->cap) * sizeof(*s->total_base));
	memset(s->epoch_ns + s->cap, 0, (cap - s->cap) * sizeof(*s->epoch_ns));
	s->gone_ns = xreallocarray(s->gone_ns, cap, sizeof(*s->gone_ns));
	memset(s->gone_ns + s->cap, 0, (cap - s->cap) * sizeof(*s->gone_ns));
	s->cap = cap;
}

/* Where one increment of series id goes: the open record of the main ring, or, for a source
 * sampled fine, the fine ring's record and the sum the next main record takes. With rate, it
 * counts towards the series' peak rate (not for gauges, nor a series counted from zero as it
 * appears). */
static inline void
sink_emit(struct sink *sink, series_id id, uint64_t d, bool rate)
{
	struct sampler *s = sink->s;

	if (!sink->fine) {
		ring_put(s->ring, id, d);
		return;
	}
	if (s->fring != NULL)
		ring_put(s->fring, id, d);
	fine_add(&s->fine, sink->src, id, d, rate);
}

/* The series' acc as the main ring will hold it once the increments of this sample are
 * recorded. */
static uint64_t
live_acc(const struct sink *sink, series_id id)
{
	uint64_t v = ring_live_value(sink->s->ring, id);

	return sink->fine ? v + fine_pending(&sink->s->fine, id) : v;
}

/* A counter's total is raw from this sample on: after its put, acc + base is raw (a first
 * reading, a return, a reset by the kernel). Its count started at this sample when it did
 * so since the daemon has been watching (a reset, a return, a series new since the first
 * sample); at the first sample nobody knows when (epoch 0). */
static void
new_epoch(struct sink *sink, series_id id, uint64_t raw, bool known)
{
	struct sampler *s = sink->s;

	s->total_base[id] = raw - live_acc(sink, id);
	s->epoch_ns[id] = known ? sink->t_ns : 0;
}

/* A 32-bit counter's first reading, when the daemon's last stop kept its total past 2^32:
 * the total goes on from there by what the cell moved since (one wrap at most, as
 * counter_delta takes one); a fall that is no wrap is the kernel's reset, and the total
 * starts again at the cell. */
static void
wraps_take(struct sink *sink, series_id id, uint64_t raw)
{
	struct sampler *s = sink->s;
	const char *name = series_get(&s->reg, id)->name;
	json_object *e;
	uint64_t total, prev;

	if (!json_object_object_get_ex(s->wraps, name, &e) ||
	    !json_object_is_type(e, json_type_array) || json_object_array_length(e) != 2)
		return;
	total = (uint64_t)json_object_get_int64(json_object_array_get_idx(e, 0));
	prev = (uint64_t)json_object_get_int64(json_object_array_get_idx(e, 1));
	if (prev <= UINT32_MAX && total >= prev && !counter_is_reset(SERIES_COUNTER32, prev, raw))
		s->total_base[id] =
		    total + counter_delta(SERIES_COUNTER32, prev, raw) - live_acc(sink, id);
	json_object_object_del(s->wraps, name);
}

/* sink_put for a series whose reading is not a plain next one: its arrays must grow, it has
 * no baseline yet (new, or back after sink_gone), or it fell. */
static __attribute__((noinline)) void
sink_put_slow(struct sink *sink, series_id id, uint64_t raw)
{
	struct sampler *s = sink->s;
	uint8_t kind;
	uint64_t d;
	bool known;

	if (id >= s->cap)
		sampler_reserve(s, (size_t)id + 1);
	if ((s->seen[id] & SEEN_STATE) == SEEN_LIVE) {
		uint64_t prev = s->raw[id];
		kind = s->seen[id] >> SEEN_KIND_SHIFT;
		d = counter_delta(kind, prev, raw);
		s->raw[id] = raw;
		sink_emit(sink, id, d, kind != SERIES_GAUGE);
		if (counter_is_reset(kind, prev, raw))
			new_epoch(sink, id, raw, true);
		return;
	}
	/* A gauge's value is its level. A counter present at the source's first sample is a
	 * baseline; one that appears later for the first time counts from zero (a new device);
	 * one that comes back is a baseline again (an offline CPU keeps its counts: counting
	 * them again would be a spike). Either way its total starts at its reading. */
	kind = series_get(&s->reg, id)->kind;
	known = s->seen[id] != SEEN_NEVER || !sink->first;
	d = kind == SERIES_GAUGE || (s->seen[id] == SEEN_NEVER && !sink->first) ? raw : 0;
	bool never = s->seen[id] == SEEN_NEVER;
	s->seen[id] = (uint8_t)(SEEN_LIVE | kind << SEEN_KIND_SHIFT);
	s->raw[id] = raw;
	sink_emit(sink, id, d, false);
	if (kind != SERIES_GAUGE)
		new_epoch(sink, id, raw, known);
	if (never && kind == SERIES_COUNTER32 && s->wraps != NULL)
		wraps_take(sink, id, raw);
}

/* The common case, a live series' next reading that did not fall, is a leaf ending in a tail
 * call. */
void
sink_put(struct sink *sink, series_id id, uint64_t raw)
{
	struct sampler *s = sink->s;
	uint8_t seen;
	uint64_t prev;

	if (id >= s->cap || ((seen = s->seen[id]) & SEEN_STATE) != SEEN_LIVE ||
	    raw < (prev = s->raw[id])) {
		sink_put_slow(sink, id, raw);
		return;
	}
	s->raw[id] = raw;
	if (!sink->fine)
		ring_put(s->ring, id, counter_delta(seen >> SEEN_KIND_SHIFT, prev, raw));
	else
		sink_emit(sink, id, counter_delta(seen >> SEEN_KIND_SHIFT, prev, raw),
		          (seen >> SEEN_KIND_SHIFT) != SERIES_GAUGE);
}

void
sink_gone(struct sink *sink, series_id id)
{
	struct sampler *s = sink->s;

	if (id < s->cap) {
		if ((s->seen[id] & SEEN_STATE) == SEEN_LIVE)
			s->gone_ns[id] = sink->t_ns; /* when it went, not when it was said again */
		s->seen[id] = SEEN_GONE;
	}
	s->reg.v[id].live = false;
	/* A gauge that disappears drops to zero; a counter simply stops moving. */
	if (id < s->cap && series_get(&s->reg, id)->kind == SERIES_GAUGE) {
		sink_emit(sink, id, 0 - s->raw[id], false);
		s->raw[id] = 0;
	}
}

/* The clock a sample's cost is read on, ns: the monotonic clock, which the vDSO reads
 * without a system call. A CPU-time clock (CLOCK_THREAD_CPUTIME_ID) is a system call, about
 * 1 us on a virtual machine: two per source per sample cost more than some sources. The
 * sampler thread does not sleep inside a sample, so the wall time is its CPU time unless the
 * thread was preempted. */
static uint64_t
cost_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Mark a source unhealthy with a reason; log only on the change. */
static void
source_fail(struct source *src, const struct nm_error *err)
{
	char prefix[64];
	const char *msg = err->message;
	size_t plen;

	/* Sources may name themselves already ("source snmp: ..."): say it once. */
	plen = (size_t)snprintf(prefix, sizeof(prefix), "source %s: ", src->ops->name);
	if (strncmp(msg, prefix, plen) == 0)
		msg += plen;
	if (src->healthy || strcmp(src->reason, msg) != 0)
		log_warnx("source %s: %s", src->ops->name, msg);
	src->healthy = false;
	src->failures++;
	snprintf(src->reason, sizeof(src->reason), "%s", msg);
}

/* Initialise a source that is not yet; 0 when ready. */
static int
source_try_init(struct sampler *s, struct source *src)
{
	struct nm_error err;

	if (src->initialised)
		return 0;
	nm_error_clear(&err);
	if (src->ops->init != NULL && src->ops->init(src, &err) < 0) {
		/* An optional source the host cannot have: off, saying why, not retried. */
		bool off = src->ops->optional && err.code == NM_ERR_UNSUPPORTED && !src->enable_set;

		if (off) {
			const char *msg = err.message;
			size_t plen = strlen(src->ops->name);

			if (strncmp(msg, "source ", 7) == 0 &&
			    strncmp(msg + 7, src->ops->name, plen) == 0 &&
			    strncmp(msg + 7 + plen, ": ", 2) == 0)
				msg += 7 + plen + 2;
			if (src->healthy || strcmp(src->reason, msg) != 0)
				log_info("source %s: off: %s", src->ops->name, msg);
			src->healthy = false;
			snprintf(src->reason, sizeof(src->reason), "%s", msg);
		} else
			source_fail(src, &err);
		/* free releases priv and opts; options come back from the kept configuration
		 * so the next try starts clean. */
		if (src->ops->free != NULL)
			src->ops->free(src);
		src->priv = NULL;
		src->opts = NULL;
		configure_source(src, s->cfg, &err);
		if (off)
			src->enabled = false;
		return -1;
	}
	src->initialised = true;
	return 0;
}

/* One sample of one source into one ring record. *cpu is the cost clock when the sample
 * before it ended (0: unknown), so that sources sampled in a row read the clock once each; it
 * is set to when this one ended, or 0. */
static void
sample_source(struct sampler *s, unsigned i, uint64_t *cpu)
{
	struct source *src = &s->sources[i];
	struct sink sink = {s, i, src->samples == 0, 0, fine_styled(s, i)};
	bool ready = src->initialised;
	struct nm_error err;
	uint64_t t, c0, c1;
	int r;

	if (source_try_init(s, src) < 0) {
		*cpu = 0;
		return;
	}
	nm_error_clear(&err);
	c0 = ready && *cpu != 0 ? *cpu : cost_clock_ns();
	t = s->clock(s->clock_arg);
	src->sample_ns = t;
	sink.t_ns = t;
	/* Back to back with the sample before: the same round, unless this source had its
	 * turn in it already. */
	if (s->round_ns == 0 || t < s->round_end_ns || t - s->round_end_ns > ROUND_GAP_NS ||
	    src->round_ns == s->round_ns)
		s->round_ns = t;
	src->round_ns = s->round_ns;
	if (!sink.fine)
		ring_begin(s->ring, i, t, s->reg.n);
	else if (s->fring != NULL)
		ring_begin(s->fring, i, t, s->reg.n);
	r = src->ops->sample(src, &sink, &err);
	if (!sink.fine)
		ring_end(s->ring);
	else {
		if (s->fring != NULL) {
			ring_end(s->fring);
			if (t > s->cfg->fine_keep_ms * 1000000ull)
				ring_evict_before(s->fring, t - s->cfg->fine_keep_ms * 1000000ull);
		}
		/* A sample less than half a fine interval after the one before gives no rate
		 * of its own (fine.h). */
		fine_end(&s->fine, i, t, fine_ns(s) / 2);
	}
	s->round_end_ns = s->clock(s->clock_arg);
	c1 = cost_clock_ns();
	src->last_cost_ns = c1 - c0;
	src->last_sample_mono_ns = t;
	/* What a log line below costs is no source's. */
	*cpu = r == 0 && src->healthy ? c1 : 0;
	if (r < 0) {
		source_fail(src, &err);
		return;
	}
	src->samples++;
	if (!src->healthy)
		log_info("source %s: healthy again", src->ops->name);
	src->healthy = true;
	src->reason[0] = '\0';
}

/* The peak-rate series of counter id ("peak." and its name, its labels with ".peak_rate"
 * after the field, a gauge in the counter's unit per second), created at its first peak. */
static series_id
peak_series(struct sampler *s, series_id id)
{
	struct series_labels lab;
	char field[160], name[512];
	const struct series_info *si;
	uint8_t source;
	const char *unit;
	double scale;
	series_id pid;

	if (id >= s->peak_cap) {
		size_t cap = s->peak_cap ? s->peak_cap : 1024;

		while (cap <= id)
			cap *= 2;
		s->peak_id = xreallocarray(s->peak_id, cap, sizeof(*s->peak_id));
		memset(s->peak_id + s->peak_cap, 0xff, (cap - s->peak_cap) * sizeof(*s->peak_id));
		s->peak_cap = cap;
	}
	if (s->peak_id[id] != SERIES_NONE)
		return s->peak_id[id];
	si = series_get(&s->reg, id);
	source = si->source;
	unit = fine_peak_unit(si->unit);
	scale = si->scale;
	snprintf(name, sizeof(name), "peak.%s", si->name);
	lab = series_labels_of(&s->reg, id);
	snprintf(field, sizeof(field), "%s%speak_rate", series_atom_str(&s->reg, lab.field),
	         lab.field != SERIES_ATOM_NONE ? "." : "");
	lab.field = series_atom_intern(&s->reg, field, strlen(field));
	pid = series_intern(&s->reg, name, strlen(name), SERIES_GAUGE, source, unit, scale, &lab);
	s->reg.v[pid].peak = true;
	s->peak_id[id] = pid;
	if (pid >= s->peak_gen_cap) {
		size_t cap = s->peak_gen_cap ? s->peak_gen_cap : 1024;

		while (cap <= pid)
			cap *= 2;
		s->peak_gen = xreallocarray(s->peak_gen, cap, sizeof(*s->peak_gen));
		memset(s->peak_gen + s->peak_gen_cap, 0,
		       (cap - s->peak_gen_cap) * sizeof(*s->peak_gen));
		s->peak_gen_cap = cap;
	}
	return pid;
}

/* Append id to l. */
static void
ids_add(struct fine_ids *l, series_id id)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->n++] = id;
}

/* The normal-cadence record of source i, at t (its last sample's time): the sum of the
 * increments of its samples since the record before, and each counter's peak rate over them
 * in its peak series (0 for one that did not move). A counter gets its peak series at its
 * first peak in a record with fine samples: without fine sampling the peak is the mean, and
 * the daemon keeps no second copy of it (the series, once made, goes on with it). */
static void
fine_record(struct sampler *s, unsigned i, uint64_t t)
{
	const series_id *ids;
	size_t n = fine_touched(&s->fine, i, &ids);
	struct fine_ids *nz = &s->peak_nz[i], tmp;

	/* A series is created before the record opens: the record must know every id. */
	for (size_t k = 0; s->fine_ticked[i] && k < n; k++)
		if (fine_peak(&s->fine, ids[k]) != 0 && !s->reg.v[ids[k]].peak)
			peak_series(s, ids[k]);
	s->fine_ticked[i] = false;
	ring_begin(s->ring, i, t, s->reg.n);
	if (++s->gen == 0)
		s->gen = 1;
	s->peak_nz_next.n = 0;
	for (size_t k = 0; k < n; k++) {
		series_id id = ids[k], pid;
		uint64_t level;

		ring_put(s->ring, id, fine_pending(&s->fine, id));
		if (id >= s->peak_cap || (pid = s->peak_id[id]) == SERIES_NONE)
			continue;
		level = fine_peak(&s->fine, id);
		ring_put(s->ring, pid, level - ring_live_value(s->ring, pid));
		s->peak_gen[pid] = s->gen;
		if (level != 0)
			ids_add(&s->peak_nz_next, pid);
	}
	/* A peak series whose counter was not put since moved at 0. */
	for (size_t k = 0; k < nz->n; k++)
		if (s->peak_gen[nz->v[k]] != s->gen)
			ring_put(s->ring, nz->v[k], 0 - ring_live_value(s->ring, nz->v[k]));
	ring_end(s->ring);
	fine_take_done(&s->fine, i);
	tmp = *nz;
	*nz = s->peak_nz_next;
	s->peak_nz_next = tmp;
}

/* One sample of source i in a round, and, for a source sampled fine, its normal-cadence
 * record with record (its own timer's beat, a synchronous sample) or when it has none yet:
 * a fine tick's sample only adds to the next. The records stay on the source's beat. */
static void
sample_and_record(struct sampler *s, unsigned i, uint64_t *cpu, bool record)
{
	struct source *src = &s->sources[i];

	sample_source(s, i, cpu);
	if (!src->initialised || !fine_styled(s, i))
		return;
	if (record || ring_live_time(s->ring, i) == 0)
		fine_record(s, i, src->last_sample_mono_ns);
}

void
sampler_fine_tick(struct sampler *s)
{
	uint64_t cpu = 0;

	if (!s->fine_on)
		return;
	for (unsigned k = 0; k < NSOURCES; k++) {
		unsigned i = source_turn(k);
		struct source *src = &s->sources[i];
		uint64_t prev = src->last_sample_mono_ns, c0 = cost_clock_ns();

		/* A source not initialised is retried by its own timer, not 100 times a second. */
		if (!s->fine_set[i] || !src->initialised)
			continue;
		s->fine_ticked[i] = true;
		sample_and_record(s, i, &cpu, false);
		if (!src->initialised)
			continue;
		s->fine_cost_ns[i] += cost_clock_ns() - c0;
		s->fine_samples[i]++;
		if (s->fine_beat[i] && src->last_sample_mono_ns >= prev)
			fine_late_add(&s->fine_late[i], src->last_sample_mono_ns - prev,
			              fine_ns(s));
		s->fine_beat[i] = true;
	}
}

/* The fine timer fired: its timerfd's expirations read (more than one: the loop came late,
 * and the ticks between are not made up), or libevent's timer. The read is needed at each
 * tick: a periodic timerfd's hrtimer is started again by the read (timerfd_read), not when
 * it fires, so an edge-triggered timerfd left unread fires once. */
static void
fine_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sampler *s = arg;
	uint64_t n = 0;

	(void)what;
	if (fd >= 0 && (read(fd, &n, sizeof(n)) != (ssize_t)sizeof(n) || n == 0))
		return; /* EAGAIN: nothing expired (a re-arm between) */
	if (n > 1)
		s->fine_ticks_missed += n - 1;
	sampler_fine_tick(s);
}

/* (Re)arm the fine timer while fine sampling is on; stop it when off. A timerfd of
 * CLOCK_MONOTONIC with the interval as its period: the kernel's hrtimer wakes the loop once
 * a tick, every fine_interval from the arming, where libevent's own timer (the fallback)
 * sleeps in epoll_wait's milliseconds against a coarse clock and woke the loop about 130
 * times a second for 100 ticks, the ticks 8 and 12 ms apart. */
static void
arm_fine_timer(struct sampler *s)
{
	struct timeval tv = {0, (suseconds_t)s->cfg->fine_interval_ms * 1000};
	const struct timeval *common;
	struct itimerspec its = {{0, 0}, {0, 0}};

	if (s->base == NULL)
		return;
	if (s->fine_timer == NULL) {
		s->fine_tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (s->fine_tfd < 0)
			log_warn("fine timer: timerfd_create: %s; libevent's timer instead",
			         strerror(errno));
		s->fine_timer = event_new(s->base, s->fine_tfd,
		                          s->fine_tfd >= 0 ? EV_READ | EV_PERSIST : EV_PERSIST,
		                          fine_timer_cb, s);
	}
	if (s->cfg->fine_interval_ms >= 1000)
		tv = (struct timeval){1, 0};
	if (s->fine_tfd >= 0) {
		if (s->fine_on) {
			its.it_interval.tv_sec = tv.tv_sec;
			its.it_interval.tv_nsec = (long)tv.tv_usec * 1000;
			its.it_value = its.it_interval;
		}
		/* Disarmed (zero) when off; re-armed from now at the interval in force. */
		if (timerfd_settime(s->fine_tfd, 0, &its, NULL) < 0)
			log_warn("fine timer: timerfd_settime: %s", strerror(errno));
		if (s->fine_on)
			event_add(s->fine_timer, NULL);
		else
			event_del(s->fine_timer);
		return;
	}
	event_del(s->fine_timer);
	if (!s->fine_on)
		return;
	common = event_base_init_common_timeout(s->base, &tv);
	event_add(s->fine_timer, common != NULL ? common : &tv);
}

void
sampler_set_fine_wanted(struct sampler *s, bool (*wanted)(void *arg), void *arg)
{
	s->fine_wanted = wanted;
	s->fine_wanted_arg = arg;
	sampler_fine_update(s);
}

bool
sampler_fine_update(struct sampler *s)
{
	bool any = false, on;
	const char *why;

	for (unsigned i = 0; i < NSOURCES; i++)
		any |= s->fine_set[i];
	if (!any) {
		on = false;
		why = "no enabled source is in [sampling] fine";
	} else if (s->cfg->fine_when == CONFIG_FINE_NEVER) {
		on = false;
		why = "fine_when = never";
	} else if (s->cfg->fine_when == CONFIG_FINE_ALWAYS) {
		on = true;
		why = "fine_when = always";
	} else if (s->fine_wanted != NULL && s->fine_wanted(s->fine_wanted_arg)) {
		on = true;
		why = "a window or a test is open (fine_when = window)";
	} else {
		on = false;
		why = "no window or test is open (fine_when = window)";
	}
	snprintf(s->fine_why, sizeof(s->fine_why), "%s", why);
	if (on == s->fine_on)
		return on;
	s->fine_on = on;
	if (!on)
		s->fine_off_ns = s->clock(s->clock_arg);
	log_info("fine sampling %s: %s", on ? "on" : "off", why);
	memset(s->fine_beat, 0, sizeof(s->fine_beat));
	arm_fine_timer(s);
	return on;
}

bool
sampler_fine_source(const struct sampler *s, enum sampler_kind kind)
{
	return kind < NSOURCES && s->fine_set[kind];
}

struct ring *
sampler_fine_ring(struct sampler *s)
{
	return s->fring;
}

series_id
sampler_peak_of(const struct sampler *s, series_id id)
{
	return id < s->peak_cap ? s->peak_id[id] : SERIES_NONE;
}

/* [sampling] fine: which of the enabled sources are sampled fine. */
static void
fine_set_from(struct sampler *s, const struct config *cfg)
{
	memset(s->fine_set, 0, sizeof(s->fine_set));
	for (unsigned b = 0; config_fine_names[b] != NULL; b++) {
		unsigned i = source_index(config_fine_names[b]);

		if ((cfg->fine_sources & (1u << b)) && i < NSOURCES && s->sources[i].enabled)
			s->fine_set[i] = true;
	}
}

/* A timer this much late is logged. */
#define SAMPLER_LATE_LOG_NS 100000000ull

/* A source's timer fired. */
static void
timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct source *src = arg;
	struct sampler *s =
	    (struct sampler *)((char *)(src - src->index) - offsetof(struct sampler, sources));
	uint64_t now = time_mono_ns(), due = src->last_fire_ns + src->interval_ms * 1000000;

	(void)fd;
	(void)what;
	if (src->last_fire_ns != 0) {
		src->late_last_ns = now > due ? now - due : 0;
		if (src->late_last_ns > src->late_max_ns)
			src->late_max_ns = src->late_last_ns;
		/* Rare, and worth knowing when a figure looks odd: the loop was held up. */
		if (src->late_last_ns > SAMPLER_LATE_LOG_NS)
			log_info("source %s: sampled %.0f ms late (the event loop was busy)",
			         src->ops->name, (double)src->late_last_ns / 1e6);
	}
	src->last_fire_ns = now;
	sampler_beat(s, src->index);
}

void
sampler_beat(struct sampler *s, enum sampler_kind kind)
{
	uint64_t cpu = 0;

	if (kind >= NSOURCES)
		return;
	/* A window may have opened or closed since: fine sampling follows (a cheap look). */
	sampler_fine_update(s);
	/* A fine source too: a sample at its beat makes its record, as without fine sampling
	 * (one right after a fine tick's gives no rate of its own: fine.h). */
	sample_and_record(s, kind, &cpu, true);
}

uint64_t
sampler_sample_all(struct sampler *s)
{
	uint64_t t = s->clock(s->clock_arg), cpu = 0;

	for (unsigned k = 0; k < NSOURCES; k++)
		if (s->sources[source_turn(k)].enabled)
			sample_and_record(s, source_turn(k), &cpu, true);
	return t;
}

/* Apply [sampling] and [source.NAME] to one source: enable, interval, its options. */
static int
configure_source(struct source *src, const struct config *cfg, struct nm_error *err)
{
	src->enabled = true;
	src->enable_set = false;
	src->interval_ms = cfg->sample_interval_ms;
	for (size_t k = 0; k < cfg->nsource_opts; k++) {
		const struct config_kv *kv = &cfg->source_opts[k];
		uint64_t v;
		bool b;

		if (strcmp(src->ops->name, kv->source) != 0)
			continue;
		if (strcmp(kv->key, "enable") == 0) {
			if (config_parse_bool(kv->val, &b) < 0)
				return nm_error_set(err, NM_ERR_BAD_ARGS,
				                    "[source.%s] enable: bad value \"%s\"",
				                    kv->source, kv->val);
			src->enabled = b;
			src->enable_set = true;
		} else if (strcmp(kv->key, "interval") == 0) {
			if (config_parse_duration_ms(kv->val, &v) < 0 || v < 10 || v > 3600000)
				return nm_error_set(err, NM_ERR_BAD_ARGS,
				                    "[source.%s] interval: \"%s\" is not a "
				                    "duration from 10ms to 1h",
				                    kv->source, kv->val);
			src->interval_ms = v;
		} else if (src->ops->configure == NULL)
			return nm_error_set(err, NM_ERR_BAD_ARGS, "[source.%s]: unknown key \"%s\"",
			                    kv->source, kv->key);
		else if (src->ops->configure(src, kv->key, kv->val, err) < 0)
			return -1;
	}
	return 0;
}

/* Configure every source; refuse sections that name no source. */
static int
configure_sources(struct source *srcs, const struct config *cfg, struct nm_error *err)
{
	for (size_t k = 0; k < cfg->nsource_opts; k++) {
		bool known = false;
		for (unsigned i = 0; i < NSOURCES; i++)
			known |= strcmp(srcs[i].ops->name, cfg->source_opts[k].source) == 0;
		if (!known)
			return nm_error_set(err, NM_ERR_BAD_ARGS, "[source.%s]: no such source",
			                    cfg->source_opts[k].source);
	}
	for (unsigned i = 0; i < NSOURCES; i++)
		if (configure_source(&srcs[i], cfg, err) < 0)
			return -1;
	return 0;
}

/* Release what configure and init gave a source. */
static void
source_release(struct source *src)
{
	if (src->ops->free != NULL)
		src->ops->free(src);
	src->priv = NULL;
	src->opts = NULL;
	src->initialised = false;
}

/* Fresh source structs for s (no priv, no options yet). */
static void
sources_blank(struct sampler *s, struct source *srcs)
{
	for (unsigned i = 0; i < NSOURCES; i++) {
		memset(&srcs[i], 0, sizeof(srcs[i]));
		srcs[i].ops = all_sources[i];
		srcs[i].index = (uint8_t)i;
		srcs[i].root = s->root;
		srcs[i].host = strcmp(s->root, "/") == 0;
		srcs[i].rootfd = s->rootfd;
		srcs[i].reg = &s->reg;
		srcs[i].devlist = s->devlist;
		srcs[i].stat_intr = shares_stat_intr(i) ? &s->stat_intr : NULL;
		srcs[i].irqtab = &s->irqtab;
		srcs[i].napitab = &s->napitab;
		srcs[i].healthy = true;
	}
}

struct sampler *
sampler_new(const struct config *cfg, struct nm_error *err)
{
	struct sampler *s = xcalloc(1, sizeof(*s));

	s->fine_tfd = -1;
	s->root = xstrdup(cfg->root);
	if ((s->rootfd = open(cfg->root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		nm_error_set(err, NM_ERR_FAILED, "root %s: %s", cfg->root, strerror(errno));
		free(s->root);
		free(s);
		return NULL;
	}
	series_registry_init(&s->reg);
	s->devlist = devlist_new();
	sources_blank(s, s->sources);
	if (configure_sources(s->sources, cfg, err) < 0) {
		sampler_free(s);
		return NULL;
	}
	s->clock = mono_clock;
	s->cfg = xcalloc(1, sizeof(*s->cfg));
	config_copy(s->cfg, cfg);
	{
		/* The fine history's bytes are ring_memory's: the two never hold more. */
		uint64_t fine_mem = config_fine_memory(cfg),
		         kf = cfg->fine_keep_ms / 4 < cfg->keyframe_interval_ms
		                  ? cfg->fine_keep_ms / 4
		                  : cfg->keyframe_interval_ms;

		s->ring = ring_new(cfg->ring_memory - fine_mem, NSOURCES,
		                   cfg->keyframe_interval_ms * 1000000ull);
		if (fine_mem != 0)
			s->fring = ring_new(fine_mem, NSOURCES, kf * 1000000ull);
	}
	fine_init(&s->fine);
	fine_set_from(s, cfg);
	sampler_fine_update(s);
	s->mono_to_real = (int64_t)(time_real_ns() - time_mono_ns());
	return s;
}

/* (Re)arm a source's timer at its interval, or stop it when disabled. Timers of one interval
 * share a libevent common timeout: a queue that fires them in the order they were armed
 * (source_turn), where a heap would order equal deadlines as it likes. */
static void
arm_timer(struct sampler *s, unsigned i)
{
	struct source *src = &s->sources[i];
	struct timeval tv = {(time_t)(src->interval_ms / 1000),
	                     (suseconds_t)(src->interval_ms % 1000) * 1000};
	const struct timeval *common;

	if (s->timers[i] == NULL)
		s->timers[i] = event_new(s->base, -1, EV_PERSIST, timer_cb, src);
	event_del(s->timers[i]);
	src->last_fire_ns = 0; /* a new beat: no lateness against the old one */
	if (!src->enabled)
		return;
	common = event_base_init_common_timeout(s->base, &tv);
	event_add(s->timers[i], common != NULL ? common : &tv);
}

void
sampler_start(struct sampler *s, struct event_base *base)
{
	s->base = base;
	for (unsigned k = 0; k < NSOURCES; k++) {
		if (!s->sources[source_turn(k)].enabled)
			continue;
		source_try_init(s, &s->sources[source_turn(k)]);
		arm_timer(s, source_turn(k));
	}
	/* A first sample of everything, so rates are available after one interval. */
	sampler_sample_all(s);
	arm_fine_timer(s);
}

int
sampler_reconfigure(struct sampler *s, const struct config *cfg, struct nm_error *err)
{
	struct source fresh[NSOURCES];

	sources_blank(s, fresh);
	if (configure_sources(fresh, cfg, err) < 0) {
		for (unsigned i = 0; i < NSOURCES; i++)
			source_release(&fresh[i]);
		return -1;
	}
	config_free(s->cfg);
	config_copy(s->cfg, cfg);
	/* The fine history's size stays what it was at start (the rings are allocated once). */
	for (unsigned k = 0; k < NSOURCES; k++) {
		unsigned i = source_turn(k);

		/* Keep counters of the old one so status stays continuous. */
		fresh[i].samples = s->sources[i].samples;
		fresh[i].failures = s->sources[i].failures;
		source_release(&s->sources[i]);
		s->sources[i] = fresh[i];
		/* A source disabled at start has no timer (sampler_start arms the enabled). */
		if (s->timers[i] != NULL)
			event_free(s->timers[i]);
		s->timers[i] = event_new(s->base, -1, EV_PERSIST, timer_cb, &s->sources[i]);
		if (s->sources[i].enabled)
			source_try_init(s, &s->sources[i]);
		arm_timer(s, i);
	}
	fine_set_from(s, cfg);
	{
		bool was = s->fine_on;

		/* A change re-arms the timer; no change: re-arm at the interval now in force. */
		if (sampler_fine_update(s) == was)
			arm_fine_timer(s);
	}
	return 0;
}

void
sampler_free(struct sampler *s)
{
	if (s == NULL)
		return;
	for (unsigned i = 0; i < NSOURCES; i++) {
		if (s->timers[i])
			event_free(s->timers[i]);
		source_release(&s->sources[i]);
	}
	if (s->fine_timer)
		event_free(s->fine_timer);
	if (s->fine_tfd >= 0)
		close(s->fine_tfd);
	if (s->ring)
		ring_free(s->ring);
	if (s->fring)
		ring_free(s->fring);
	fine_free(&s->fine);
	free(s->peak_id);
	free(s->peak_gen);
	for (unsigned i = 0; i < NSOURCES; i++)
		free(s->peak_nz[i].v);
	free(s->peak_nz_next.v);
	devlist_free(s->devlist); /* after the sources that use it */
	napitable_free(&s->napitab);
	irqtable_free(&s->irqread);
	series_registry_free(&s->reg);
	if (s->cfg != NULL) {
		config_free(s->cfg);
		free(s->cfg);
	}
	close(s->rootfd);
	json_object_put(s->wraps);
	free(s->raw);
	free(s->total_base);
	free(s->epoch_ns);
	free(s->gone_ns);
	free(s->seen);
	free(s->root);
	free(s);
}

struct series_registry *
sampler_registry(struct sampler *s)
{
	return &s->reg;
}

struct ring *
sampler_ring(struct sampler *s)
{
	return s->ring;
}

struct source *
sampler_source(struct sampler *s, const char *name)
{
	for (unsigned i = 0; i < NSOURCES; i++)
		if (strcmp(s->sources[i].ops->name, name) == 0)
			return &s->sources[i];
	return NULL;
}

struct source *
sampler_source_of(struct sampler *s, enum sampler_kind kind)
{
	return kind < NSOURCES ? &s->sources[kind] : NULL;
}

/* The NAPI table the queues source fills. */
const struct napi_table *
sampler_napi_table(const struct sampler *s)
{
	return &s->napitab;
}

/* The interrupts source's table when it has one, else one read now. */
const struct irq_table *
sampler_irq_table(struct sampler *s, struct nm_error *err)
{
	struct nm_error e;

	for (unsigned i = 0; i < NSOURCES; i++) {
		if (s->sources[i].ops == &source_interrupts_ops && s->sources[i].enabled &&
		    s->irqtab.kind != IRQ_TABLE_EMPTY)
			return &s->irqtab;
	}
	if (irqtable_read(&s->irqread, s->rootfd, &e) < 0) {
		if (err != NULL)
			nm_error_set(err, e.code, "the IRQ table cannot be read: %s", e.message);
		return NULL;
	}
	return &s->irqread;
}

/* Read the affinities of the tables handed out again. */
void
sampler_irq_refresh_affinity(struct sampler *s)
{
	irqtable_refresh_affinity(&s->irqtab, s->rootfd);
	irqtable_refresh_affinity(&s->irqread, s->rootfd);
}

int
sampler_rootfd(const struct sampler *s)
{
	return s->rootfd;
}

size_t
sampler_nsources(const struct sampler *s)
{
	(void)s;
	return NSOURCES;
}

struct source *
sampler_source_at(struct sampler *s, size_t i)
{
	return i < NSOURCES ? &s->sources[i] : NULL;
}

const struct source_ops *
sampler_table_ops(size_t i)
{
	return i < NSOURCES ? all_sources[i] : NULL;
}

uint64_t
sampler_raw(const struct sampler *s, series_id id)
{
	return id < s->cap ? s->raw[id] : 0;
}

void
sampler_raws(const struct sampler *s, uint64_t *out, size_t n)
{
	size_t have = n < s->cap ? n : s->cap;

	if (have > 0)
		memcpy(out, s->raw, have * sizeof(*out));
	memset(out + have, 0, (n - have) * sizeof(*out));
}

void
sampler_totals(const struct sampler *s, const uint64_t **base, const uint64_t **epoch_ns, size_t *n)
{
	*base = s->total_base;
	*epoch_ns = s->epoch_ns;
	*n = s->cap;
}

uint64_t
sampler_gone_ns(const struct sampler *s, series_id id)
{
	return id < s->cap ? s->gone_ns[id] : 0;
}

int64_t
sampler_mono_to_real(const struct sampler *s)
{
	return s->mono_to_real;
}

void
sampler_format_mono(const struct sampler *s, uint64_t mono_ns, char *buf, size_t size)
{
	time_format_rfc3339((uint64_t)((int64_t)mono_ns + s->mono_to_real), buf, size);
}

/* status: a fine source's fine sampling (new reference). */
static json_object *
fine_source_json(struct sampler *s, unsigned i)
{
	json_object *o = json_object_new_object();
	const struct fine_late *l = &s->fine_late[i];

	json_add_bool(o, "on", s->fine_on);
	json_add_string(o, "why", s->fine_why);
	json_add_uint(o, "interval_ms", s->cfg->fine_interval_ms);
	json_add_uint(o, "samples", s->fine_samples[i]);
	json_add_double(o, "late_median_ms", (double)fine_late_median(l) / 1e6);
	json_add_double(o, "late_max_ms", (double)l->max_ns / 1e6);
	json_add_uint(o, "late_samples", l->late);
	json_add_double(o, "cost_us",
	                s->fine_samples[i]
	                    ? (double)s->fine_cost_ns[i] / 1e3 / (double)s->fine_samples[i]
	                    : 0.0);
	return o;
}

/* status: fine sampling and the fine history (new reference). */
static json_object *
fine_status_json(struct sampler *s, uint64_t now)
{
	json_object *o = json_object_new_object(), *srcs = json_object_new_array();
	struct ring_stats st;

	json_add_bool(o, "on", s->fine_on);
	json_add_string(o, "why", s->fine_why);
	json_add_uint(o, "interval_ms", s->cfg->fine_interval_ms);
	json_add_string(o, "timer", s->fine_tfd >= 0 ? "timerfd" : "libevent");
	json_add_uint(o, "ticks_missed", s->fine_ticks_missed);
	json_add_string(o, "when",
	                s->cfg->fine_when == CONFIG_FINE_ALWAYS  ? "always"
	                : s->cfg->fine_when == CONFIG_FINE_NEVER ? "never"
	                                                         : "window");
	for (unsigned i = 0; i < NSOURCES; i++)
		if (s->fine_set[i])
			json_object_array_add(srcs, json_object_new_string(all_sources[i]->name));
	json_object_object_add(o, "sources", srcs);
	json_add_double(o, "keep_s", (double)s->cfg->fine_keep_ms / 1e3);
	if (s->fring != NULL) {
		json_object *r = json_object_new_object();

		ring_get_stats(s->fring, &st);
		json_add_uint(r, "capacity_bytes", st.capacity);
		json_add_uint(r, "used_bytes", st.used);
		json_add_uint(r, "segments", st.segments);
		json_add_uint(r, "records", st.records);
		json_add_double(
		    r, "oldest_age_s",
		    st.oldest_ns && now > st.oldest_ns ? (double)(now - st.oldest_ns) / 1e9 : 0.0);
		json_object_object_add(o, "ring", r);
	} else
		json_object_object_add(o, "ring", NULL);
	return o;
}

json_object *
sampler_status_json(struct sampler *s)
{
	json_object *o = json_object_new_object();
	json_object *arr = json_object_new_array();
	json_object *ring = json_object_new_object();
	size_t live[NSOURCES] = {0};
	struct ring_stats st;
	uint64_t now = s->clock(s->clock_arg);
	char when[40];

	for (size_t id = 0; id < s->reg.n; id++)
		if (s->reg.v[id].live && s->reg.v[id].source < NSOURCES)
			live[s->reg.v[id].source]++;
	for (unsigned i = 0; i < NSOURCES; i++) {
		struct source *src = &s->sources[i];
		json_object *so = json_object_new_object();
		json_add_string(so, "name", src->ops->name);
		json_add_string(so, "description", src->ops->description);
		json_add_bool(so, "enabled", src->enabled);
		json_add_uint(so, "interval_ms", src->interval_ms);
		json_add_bool(so, "healthy", src->enabled && src->healthy && src->initialised);
		json_add_string(so, "reason", src->reason[0] ? src->reason : NULL);
		json_add_uint(so, "series", live[i]);
		json_add_uint(so, "samples", src->samples);
		json_add_uint(so, "failures", src->failures);
		json_add_double(so, "last_cost_us", (double)src->last_cost_ns / 1e3);
		json_add_double(so, "late_ms", (double)src->late_last_ns / 1e6);
		json_add_double(so, "late_max_ms", (double)src->late_max_ns / 1e6);
		json_add_double(
		    so, "last_sample_age_s",
		    src->last_sample_mono_ns ? (double)(now - src->last_sample_mono_ns) / 1e9 : -1);
		if (src->ops->describe != NULL && src->initialised)
			json_object_object_add(so, "details", src->ops->describe(src));
		if (s->fine_set[i])
			json_object_object_add(so, "fine", fine_source_json(s, i));
		json_object_array_add(arr, so);
	}
	ring_get_stats(s->ring, &st);
	json_add_uint(ring, "capacity_bytes", st.capacity);
	json_add_uint(ring, "used_bytes", st.used);
	json_add_uint(ring, "segments", st.segments);
	json_add_uint(ring, "records", st.records);
	json_add_uint(ring, "evicted_segments", st.evicted_segments);
	json_add_uint(ring, "last_record_bytes", st.last_record_bytes);
	json_add_uint(ring, "last_keyframe_bytes", st.last_keyframe_bytes);
	json_add_double(ring, "bytes_per_second", st.bytes_per_second);
	if (st.oldest_ns) {
		time_format_rfc3339((uint64_t)((int64_t)st.oldest_ns + s->mono_to_real), when,
		                    sizeof(when));
		json_add_string(ring, "oldest", when);
		json_add_double(ring, "span_s", (double)(st.newest_ns - st.oldest_ns) / 1e9);
	}
	json_add_uint(ring, "series", s->reg.n);
	json_object_object_add(o, "sources", arr);
	json_object_object_add(o, "ring", ring);
	json_object_object_add(o, "fine", fine_status_json(s, now));
	return o;
}

/* The kernel's boot id under the root (its fixture's, under --root); "" when none. */
static void
boot_id(const struct sampler *s, char *buf, size_t size)
{
	int fd = openat(s->rootfd, "proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? (size_t)n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

json_object *
sampler_wraps_save(const struct sampler *s)
{
	json_object *o = json_object_new_object(), *series = json_object_new_object();
	char boot[64];

	boot_id(s, boot, sizeof(boot));
	json_add_string(o, "boot_id", boot);
	for (size_t id = 0; id < s->cap && id < s->reg.n; id++) {
		uint64_t total;
		json_object *e;
		if ((s->seen[id] & SEEN_STATE) != SEEN_LIVE ||
		    (s->seen[id] >> SEEN_KIND_SHIFT) != SERIES_COUNTER32)
			continue;
		total = ring_live_value(s->ring, (series_id)id) + s->total_base[id];
		if (total <= UINT32_MAX || total > INT64_MAX)
			continue;
		e = json_object_new_array_ext(2);
		json_object_array_add(e, json_object_new_int64((int64_t)total));
		json_object_array_add(e, json_object_new_int64((int64_t)s->raw[id]));
		json_object_object_add(series, s->reg.v[id].name, e);
	}
	json_object_object_add(o, "series", series);
	return o;
}

size_t
sampler_wraps_restore(struct sampler *s, json_object *saved)
{
	json_object *series;
	char boot[64];

	json_object_put(s->wraps);
	s->wraps = NULL;
	boot_id(s, boot, sizeof(boot));
	if (strcmp(json_get_string(saved, "boot_id", "-"), boot) != 0 ||
	    !json_object_object_get_ex(saved, "series", &series) ||
	    !json_object_is_type(series, json_type_object))
		return 0;
	s->wraps = json_object_get(series);
	return (size_t)json_object_object_length(series);
}
