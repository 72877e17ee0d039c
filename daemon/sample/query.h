/* query.h: answers from the ring: values at a time, deltas and rates over a span, series
 * matched by glob. Two reusable cursors mark the span's edges. */
#ifndef NM_QUERY_H
#define NM_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "globmatch.h"
#include "series.h"

struct sampler;
struct nm_error;
struct query;

struct query *query_new(struct sampler *s);
/* A query over a stored block (seriesblock.h) instead of the ring: the same answers from the
 * records it kept, its series ids those of the block's registry (query_registry). The
 * span is clamped to the block's. b must outlive the query. */
struct seriesblock;
struct query *query_new_block(struct sampler *s, const struct seriesblock *b);
/* The registry the query's ids index: the sampler's, or the block's. */
const struct series_registry *query_registry(const struct query *q);
/* The sampling interval of source src as the query sees it (a block's: x its step). */
uint64_t query_interval_ms(const struct query *q, unsigned src);
/* The oldest and newest time the query can answer for (the ring's records, the block's
 * span). -1 when there is nothing (no samples yet). */
int query_bounds(const struct query *q, uint64_t *oldest, uint64_t *newest);
void query_free(struct query *q);
/* A query of a request's own over the ring (query_new), or the one the last request gave
 * back with query_put, its cursors' pages in memory already; give it back with query_put
 * (it keeps one; query_free of any query of the sampler frees that one too). */
struct query *query_take(struct sampler *s);
void query_put(struct query *q);

/* Set the span to the last `seconds` before the newest data (t1 = live state). When the ring
 * does not reach that far back, t0 is the oldest record kept. -1 with err when the ring is
 * empty. */
int query_span_last(struct query *q, double seconds, struct nm_error *err);
/* The last `seconds` as source src samples them: t1 is src's newest record, t0 its record
 * nearest to t1 - seconds (the oldest kept when the ring does not reach that far), so that
 * src's delta is the difference of its values at exactly those two samples and the span
 * stated (query_t0, query_t1) is the span src covers. A source with no record yet falls back
 * to query_span_last. */
int query_span_last_src(struct query *q, double seconds, unsigned src, struct nm_error *err);
/* The edges query_span_last and query_span_last_src set, without placing any cursor. */
int query_edges_last(const struct query *q, double seconds, uint64_t *t0, uint64_t *t1,
                     struct nm_error *err);
int query_edges_last_src(const struct query *q, double seconds, unsigned src, uint64_t *t0,
                         uint64_t *t1, struct nm_error *err);
/* Set the span to [t0, t1] (CLOCK_MONOTONIC ns); same clamping. */
int query_span(struct query *q, uint64_t t0_ns, uint64_t t1_ns, struct nm_error *err);
/* query_span a part at a time, for a reply made over turns of the loop: the cursors are
 * moved forward from a keyframe until deadline (CLOCK_MONOTONIC ns) has passed. 1: the span
 * is set (the same as query_span sets); 0: call again with the same edges; -1 with err. */
int query_span_part(struct query *q, uint64_t t0, uint64_t t1, uint64_t deadline,
                    struct nm_error *err);
/* Place the cursors again at the span's edges when the ring has taken records since they
 * were placed (a cursor is valid until the next record: ring.h), for a request that reads
 * one span over several turns of the loop; the answers are the same. -1 with err when the
 * span's start has left the ring since. */
int query_respan(struct query *q, struct nm_error *err);
/* The span as set (ns, CLOCK_MONOTONIC). */
uint64_t query_t0(const struct query *q);
uint64_t query_t1(const struct query *q);

/* Increment of a series over the span, in raw units (0 when it did not exist). */
uint64_t query_delta(const struct query *q, series_id id);
/* The span as seen by a source: time between its records at the two edges (s; 0 if none). */
double query_seconds(const struct query *q, unsigned src);
/* Per-second rate in the series' unit (raw delta x scale / source seconds; gauge: the
 * signed change per second); 0 when the source has no span. */
double query_rate(const struct query *q, series_id id);
/* Delta in the series' unit (x scale; signed for a gauge). */
double query_delta_scaled(const struct query *q, series_id id);
/* The value of a series at the span's end: a gauge's level, a counter's raw reading. */
double query_value_end(const struct query *q, series_id id);
/* For each gauge ids[k], the highest level any record of its source in the span (after its
 * start, up to its end) left it at, into out[k]: a peak series' (sampler.h) peak over a
 * span of several records, where query_value_end gives the last one's. A series with no
 * record in the span: its value at the end. Over the ring a walk of the span's records (one
 * for all the ids), going on from the last call's end when the next span starts there. */
void query_gauge_max(struct query *q, const series_id *ids, size_t n, double *out);

/* Ids of the series whose name matches glob (fnmatch), live or not, in id order. *ids is
 * grown as needed (caller frees). NULL or "" matches all. */
size_t query_match(const struct query *q, const char *glob, bool live_only, series_id **ids,
                   size_t *cap);

/* query_match a slice at a time, for a reply made over turns of the loop: the series the
 * registry holds at query_matching_init are tried, a slice of ids per query_matching_step,
 * and the ids found are those query_match would give then. The glob is copied. */
struct query_matching {
	char *glob; /* NULL: every series */
	struct globmatch gm;
	size_t plen, next, end;
	bool literal, live_only;
	series_id *ids; /* the ids found (n of them), owned */
	size_t n, cap;
};
void query_matching_init(const struct query *q, struct query_matching *m, const char *glob,
                         bool live_only);
/* Try the next ids until every one is tried (true) or slice_ns of CPU time have passed
 * (false; 0: no limit). */
bool query_matching_step(const struct query *q, struct query_matching *m, uint64_t slice_ns);
void query_matching_free(struct query_matching *m);

/* Narrow [t0, t1] (by less than a sampling interval at each end) so that the edges of steps
 * of whole intervals from t0 fall half an interval from the samples of id's source (series
 * and trend lay their steps so). */
void query_align(const struct query *q, series_id id, uint64_t *t0, uint64_t *t1);

#endif
