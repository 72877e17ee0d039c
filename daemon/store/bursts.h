/* bursts.h: what happens inside the second. For a window's span, from the finest records
 * sampled of it (bursts-src.c), per device (link rx/tx packets and bytes), per queue (rx/tx
 * packets) and per CPU (softnet processed, NET_RX softirqs): the mean rate, the peak rate
 * over one sampled interval (at the samples' real times, not the nominal step), the
 * peak-to-mean ratio, the longest run of intervals above a threshold (by default 80 % of the
 * series' peak in the window) and the bursts (maximal runs above it) with wall-clock times.
 *
 * An interval longer than BURSTS_LATE_FACTOR x the source's interval (a late sample) is not
 * a burst: it counts in the mean, never in a peak or a run, and it ends a run. */
#ifndef NM_BURSTS_H
#define NM_BURSTS_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "series.h"

struct seriesblock;

#define BURSTS_THRESHOLD   0.8 /* of the series' peak */
#define BURSTS_TOP         5   /* bursts kept per series, and the window's top */
#define BURSTS_LATE_FACTOR 2   /* an interval over 2x the source's is late */

/* One burst: a maximal run of consecutive on-time intervals at or above the threshold. */
struct bursts_run {
	uint64_t t0, t1; /* its first interval's start, its last one's end (the samples' times) */
	double peak;     /* the highest rate of its intervals */
	uint64_t peak_t; /* the start of that interval */
};

/* The figures of one series (rates in its unit per second). */
struct bursts_figures {
	size_t intervals; /* intervals between the records */
	size_t late;      /* of them late (over BURSTS_LATE_FACTOR x interval_ns) */
	double mean;      /* over the first to the last record */
	double peak;      /* 0: nothing moved in an on-time interval */
	uint64_t peak_t0, peak_t1;
	double threshold; /* threshold x peak */
	struct bursts_run longest;
	struct bursts_run top[BURSTS_TOP]; /* the highest peaks, in time order */
	size_t ntop;
	size_t nruns; /* runs above the threshold in all */
};

/* The figures of a counter whose accumulated values v[0..n) were read at times t[0..n)
 * (ns, increasing), sampled every interval_ns (0: none is late), values x scale in its unit,
 * threshold a fraction of the peak (0 < threshold <= 1). */
void bursts_series(const uint64_t *t, const uint64_t *v, size_t n, uint64_t interval_ns,
                   double scale, double threshold, struct bursts_figures *f);

/* What series id of reg is to the burst figures, from its source's name and its labels:
 * "device" (link rx/tx packets and bytes), "queue" (queues packets), "cpu" (softnet
 * processed, NET_RX softirqs), or NULL (none of them); *what is its field ("rx_packets",
 * "packets", "processed") or softirq type ("NET_RX"). */
const char *bursts_kind(const struct series_registry *reg, series_id id, const char **what);

/* The "bursts" object of a report of the span [t0, t1] (CLOCK_MONOTONIC ns) from block b:
 * {"threshold", "late_factor", "series": [...], "top": [...]} (proto/PROTOCOL.md, report);
 * "top" holds the BURSTS_TOP bursts of the highest peak among the series counted in packets
 * (devices', queues', softnet's), highest first;
 * NULL when b has none of the series. New reference. Pure: any thread. */
json_object *bursts_json(const struct seriesblock *b, uint64_t t0, uint64_t t1, double threshold);
/* The same over several blocks of the span, finest first: a source a block before has
 * records of is not taken from a later one (the fine history's link, queues and softnet, then
 * the main ring's copy for the others). NULL entries are skipped. A cap on its size:
 * "series" keeps every device's entry and, of the queues' and CPUs', the max_series of the
 * highest peak (0: every one), in their order; "bursts_omitted" says how many were left out
 * ("top" is made of every series, kept or not); "max_series" is the cap. bursts_json has no
 * cap. */
json_object *bursts_json_blocks(const struct seriesblock *const *bv, size_t nb, uint64_t t0,
                                uint64_t t1, double threshold, size_t max_series);

#endif
