/* fine.h: the arithmetic of fine sampling (sampler.h): what a source's samples moved since
 * its last normal-cadence record (what that record then stores), the peak rate of each
 * counter over the fine intervals inside it, and how late the fine samples came.
 *
 * Rates are taken over the real time between two samples, never over the nominal step: a
 * sample that comes late (its gap more than twice the fine interval) gives its increment's
 * rate over its real gap, so a late sample is not a burst. A sample that comes less than
 * min_gap after the one before (a synchronous sample for a window's edge, just after a fine
 * one) gives no rate of its own: its increments are taken with the next sample's, over
 * both gaps, since a rate over a few microseconds says nothing. Nothing here allocates once
 * its arrays have grown to the registry's size. */
#ifndef NM_FINE_H
#define NM_FINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "series.h"

#define FINE_MAX_SOURCES 32
/* Lateness of this many of the newest fine samples is kept (for the median). */
#define FINE_LATE_N 256

/* A list of series ids. */
struct fine_ids {
	series_id *v;
	size_t n, cap;
};

/* How late a source's fine samples came: real gap minus nominal interval. */
struct fine_late {
	uint64_t v[FINE_LATE_N]; /* ns, the newest FINE_LATE_N */
	size_t n, next;
	uint64_t max_ns;
	uint64_t late; /* samples whose gap was more than twice the nominal */
	uint64_t samples;
};

struct fine_src {
	struct fine_ids touched; /* put since the last take */
	struct fine_ids moved;   /* moved since rate_t0 (rd != 0) */
	uint64_t rate_t0;        /* start of the rate interval under way; 0: none yet */
	uint64_t last_t;         /* time of the last sample */
};

/* What one series holds: one cache line's half, where four arrays by id cost four lines a
 * put (the fine sources put a thousand series 100 times a second, each line cold). */
struct fine_cell {
	uint64_t pending; /* increments since the last take (two's complement for gauges) */
	uint64_t rd;      /* increments since the source's rate_t0 */
	uint64_t peak;    /* highest rate (per second) since the last take */
	uint8_t flags;    /* FINE_TOUCHED, FINE_MOVED */
};

struct fine {
	struct fine_cell *cell; /* by series id */
	size_t cap;
	struct fine_src src[FINE_MAX_SOURCES];
};

void fine_init(struct fine *f);
void fine_free(struct fine *f);

/* The rate per second of d over gap_ns, rounded to the nearest (a half up); 0 when gap_ns is
 * 0, UINT64_MAX past it. */
uint64_t fine_rate(uint64_t d, uint64_t gap_ns);

/* Series id of source src moved by d in the sample under way; with rate, d counts towards
 * its rate (not for a gauge, nor for a series counted from zero as it appears). */
void fine_add(struct fine *f, unsigned src, series_id id, uint64_t d, bool rate);
/* The sample of src at t is over: when t is at least min_gap_ns after the rate interval's
 * start, each series that moved in it gets its rate over that real interval, which then
 * starts again at t. The first sample of a source starts the first interval. */
void fine_end(struct fine *f, unsigned src, uint64_t t, uint64_t min_gap_ns);
/* The series put since the last take (ids in (*ids)[0..n)), with fine_pending and
 * fine_peak of each; then fine_take_done. */
size_t fine_touched(const struct fine *f, unsigned src, const series_id **ids);
static inline uint64_t
fine_pending(const struct fine *f, series_id id)
{
	return id < f->cap && (f->cell[id].flags & 1) ? f->cell[id].pending : 0;
}
static inline uint64_t
fine_peak(const struct fine *f, series_id id)
{
	return id < f->cap && (f->cell[id].flags & 1) ? f->cell[id].peak : 0;
}
/* Forget what was taken: the next record of src starts from nothing. */
void fine_take_done(struct fine *f, unsigned src);

/* Record a fine sample's real gap against the nominal interval. */
void fine_late_add(struct fine_late *l, uint64_t gap_ns, uint64_t nominal_ns);
/* The median lateness of the kept samples, ns (0: none). */
uint64_t fine_late_median(const struct fine_late *l);

/* The unit of a peak-rate series made from a counter of this unit: "packets" ->
 * "packets/s" (static strings; "per_s" for a unit not listed). */
const char *fine_peak_unit(const char *unit);

#endif
