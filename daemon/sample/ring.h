/* ring.h: the bounded in-memory history of every series.
 *
 * Model. Each series has an accumulated value acc (the sum of its corrected increments since
 * the daemon first saw it; for a gauge, its level). Each source sample is one record; the
 * records of one source are numbered k = 1, 2, ... Between two records of its source a series
 * moves by its delta d_k; the ring stores, per record, only the series whose delta changed
 * (d_k != d_{k-1}), as the delta of the delta. Steady rates cost nothing; idle counters cost
 * nothing. Every keyframe_interval (or when the segment passes ring_bytes/8) a keyframe
 * stores (acc, delta) of every series and each source's k and time: the ring is a sequence of
 * segments, each opening with a keyframe; the oldest segment is evicted first.
 *
 * Storage is one byte buffer of ring_bytes (allocated once, touched as it fills; memory
 * follows activity). A record is: type byte, source, time, entries (zigzag varints), and a
 * 4-byte length footer so the ring can be walked backwards from the newest record. Writing
 * allocates nothing in steady state.
 *
 * Readers use a cursor: the state of every series as of a time t (the last record <= t of
 * each source). A cursor near "now" is built backwards from the live state; one far in the
 * past forwards from the keyframe before t. */
#ifndef NM_RING_H
#define NM_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "series.h"

#define RING_MAX_SOURCES 32

struct ring;
struct ring_cursor;

struct ring_stats {
	size_t capacity; /* ring_bytes */
	size_t used;     /* bytes held by live segments */
	size_t segments;
	uint64_t records; /* records written since start */
	uint64_t evicted_segments;
	uint64_t oldest_ns; /* time of the oldest record kept (0: empty) */
	uint64_t newest_ns;
	size_t last_record_bytes;
	size_t last_keyframe_bytes;
	double bytes_per_second; /* growth over the last minute of records, keyframes amortised */
	uint64_t allocations;    /* writer (re)allocations since start: layout changes only */
};

/* A ring of `bytes` (>= 1 MiB), for nsources sources, keyframes every keyframe_ns. */
struct ring *ring_new(size_t bytes, unsigned nsources, uint64_t keyframe_ns);
void ring_free(struct ring *r);

/* ---- writer ---- */

/* Open the record of one sample of source src taken at t_ns (CLOCK_MONOTONIC; never less
 * than the previous record's time). May write a keyframe first. nseries is the registry's
 * size now (ids < nseries). */
void ring_begin(struct ring *r, unsigned src, uint64_t t_ns, size_t nseries);
/* The series moved by d (already corrected by counter_delta) since the source's previous
 * record. Series of the source that are not put in a record moved by 0. */
void ring_put(struct ring *r, series_id id, uint64_t d);
/* Close the record: series of src that moved last time and were not put now get delta 0;
 * evicts the oldest segments if the record does not fit. */
void ring_end(struct ring *r);

/* The live value (acc) of a series: the newest state. 0 for unknown ids. */
uint64_t ring_live_value(const struct ring *r, series_id id);
/* ring_live_value of ids [0, n) into out[0..n), in one pass (a snapshot's copy). */
void ring_live_values(const struct ring *r, uint64_t *out, size_t n);
/* The time of src's newest record (0: none). */
uint64_t ring_live_time(const struct ring *r, unsigned src);
void ring_get_stats(const struct ring *r, struct ring_stats *st);
/* Evict the oldest segments whose newest record is older than t_ns, never the newest segment
 * (a history kept by age: the fine ring). Returns how many went. */
size_t ring_evict_before(struct ring *r, uint64_t t_ns);
/* The time of src's first record since the daemon started (0: none). A cursor placed before
 * it has no record of src; every series of src was at its baseline there. */
uint64_t ring_first_time(const struct ring *r, unsigned src);

/* ---- readers ---- */

/* A cursor sized for the ring's series; reuse it across queries (seek again). */
struct ring_cursor *ring_cursor_new(const struct ring *r);
void ring_cursor_free(struct ring_cursor *c);
/* Position the cursor at t: for each source, its last record <= t. A cursor is valid until
 * the next record is written (a backward seek reads the writer's state lazily): seek again
 * after sampling. -1 when t is before the
 * oldest record kept (nothing to say), 0 otherwise. t beyond the newest record is the live
 * state. */
int ring_cursor_seek(struct ring_cursor *c, uint64_t t_ns);
/* How ring_cursor_seek_dir builds the cursor: AUTO picks the shorter walk; FORWARD replays
 * from the keyframe before t; BACKWARD undoes the records after t from the live state. All
 * three give the same cursor (the tests check it). */
enum ring_seek_dir { RING_SEEK_AUTO = 0, RING_SEEK_FORWARD, RING_SEEK_BACKWARD };
/* ring_cursor_seek with the direction chosen by the caller. */
int ring_cursor_seek_dir(struct ring_cursor *c, uint64_t t_ns, enum ring_seek_dir dir);
/* ring_cursor_seek forward from the keyframe before t (or on from where the last forward
 * seek or part stopped, in the same segment), a part at a time: the replay stops once
 * deadline (CLOCK_MONOTONIC ns, 0: none) has passed, after a record at least. 1: the cursor
 * is at t (the same cursor ring_cursor_seek gives); 0: call again (seeking anything else in
 * between starts over); -1: t is before the oldest record kept. A t at or past the newest
 * record is the live state at once. The parts survive records written between them. */
int ring_cursor_seek_part(struct ring_cursor *c, uint64_t t_ns, uint64_t deadline);
/* After a forward seek (RING_SEEK_FORWARD) or a step: move on over the next record, when
 * its time is at most limit_ns. Returns its source, or -1 at the end (nothing newer, past
 * limit_ns, or the ring changed since the seek: seek again). Walks a span record by record,
 * keyframes crossed on the way. */
int ring_cursor_step(struct ring_cursor *c, uint64_t limit_ns);
/* The time of the first record of the segment that holds t (a forward seek there replays
 * only its keyframe; ring_cursor_step then walks on to t a record at a time): 0 when t is
 * before the oldest record kept. */
uint64_t ring_segment_first(const struct ring *r, uint64_t t_ns);
/* Has the ring changed since the cursor's forward seek or step (a segment evicted, series
 * learnt), so that ring_cursor_step gives -1 until the next seek? */
bool ring_cursor_stale(const struct ring_cursor *c);
/* The times a cursor sought to t stands on for src (ring_cursor_time), then sought to that
 * time - 1, and so on: up to max of them into out, newest first, as long as each seek
 * succeeds and src has a record there. Reads the records' headers only, never a series:
 * what finding the beat of a source's timer needs (query_align). Returns their count. */
size_t ring_src_times(const struct ring *r, unsigned src, uint64_t t, uint64_t *out, size_t max);
/* The time of src's first record kept after `after` and at or before limit (0: none), from
 * the records' headers only. */
uint64_t ring_src_time_after(const struct ring *r, unsigned src, uint64_t after, uint64_t limit);
/* acc of a series at the cursor (0 for a series not yet seen then). */
uint64_t ring_cursor_value(const struct ring_cursor *c, series_id id);
/* The time of src's record the cursor stands on (0: none at or before t). */
uint64_t ring_cursor_time(const struct ring_cursor *c, unsigned src);
/* The source's record number there (0: none). */
uint64_t ring_cursor_k(const struct ring_cursor *c, unsigned src);

#endif
