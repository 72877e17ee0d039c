/* seriesblock.h: the per-sample history of the series that matter, over a window's span, kept
 * with its result so that `series --window` and `trend --window` still answer once the ring
 * no longer holds the span (a restart, eviction).
 *
 * What is kept is what the ring answers from: for each source, the times of its records in
 * the span (the one at or before the start included), and for each series its accumulated
 * value (ring.h) at each of those records. A query over the block (query_new_block) then
 * finds the same records for the same step edges as the ring would, so its rates are the
 * same numbers. A source with more than SERIESBLOCK_MAX_POINTS records keeps every k-th one
 * (its first and last always): rates over k intervals, the average of those k intervals'
 * rates; k is recorded (step_k) and its interval is k times the sampling interval.
 *
 * Kept are the series of the sources link, queues, cpu, softirqs, snmp, softnet, lnstat
 * (without the per-CPU rows of its tables, which repeat their sums) and the interrupts
 * source's rows that are not IRQ lines (IPIs and the other arch types); for a test's window
 * also the source "test", its benchmark's live figures (testseries.h, seriesblock-test.c),
 * which the ring does not have.
 *
 * On disk (encode/decode): "NMSERIES", a version byte, the payload's length (8 bytes, little
 * endian), then the payload compressed by zlib. The payload is varints: times as epoch ns,
 * first absolute then differences; values first absolute then delta of delta (zigzag), so a
 * steady rate costs one zero byte a record before zlib, and about nothing after. zlib (Debian's
 * zlib1g) over a hand-made delta code: the code alone leaves the names and the repeated
 * zeros of idle counters; zlib takes those for free and is in every base system. Decoding
 * checks every length against what is left and against the bounds below: a damaged block is
 * refused with a message, never read past. */
#ifndef NM_SERIESBLOCK_H
#define NM_SERIESBLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "series.h"

struct nm_error;
struct sampler;
struct testseries;

#define SERIESBLOCK_MAX_POINTS  3600
#define SERIESBLOCK_MAX_SERIES  100000
#define SERIESBLOCK_MAX_FILE    (64u << 20)
#define SERIESBLOCK_MAX_PAYLOAD (256u << 20)
#define SERIESBLOCK_SUFFIX      ".series"

struct seriesblock_source {
	char *name;
	uint32_t interval_ms; /* between kept records: the sampling interval x step_k */
	uint32_t step_k;      /* 1: every record kept */
	uint64_t first_t;     /* the source's first record since its daemon started (0: none) */
	size_t n;             /* records kept */
	uint64_t *t;          /* [n] CLOCK_MONOTONIC ns, increasing */
};

struct seriesblock {
	struct series_registry reg; /* the block's own: ids index v; source = index in src */
	uint64_t t0, t1;            /* the span collected (CLOCK_MONOTONIC ns) */
	int64_t mono_to_real;       /* what turns the times into epoch ns (encode) */
	size_t nsrc;
	struct seriesblock_source *src;
	uint64_t **v; /* v[id][i]: acc at record i of its source */
};

/* The block of [t0, t1] from the ring of s: one forward walk over the records, on the
 * caller's thread, at once (~12 us per record of 8,000 series in a release build; logged).
 * NULL when the ring holds nothing of the span. */
struct seriesblock *seriesblock_collect(struct sampler *s, uint64_t t0, uint64_t t1);

/* The same copy made in slices, for the loop (window.c steps it over turns of the loop):
 * new (NULL when the ring holds nothing of the span) only makes the cursor; each step goes
 * on with the copy until slice_ns is spent or max_records are copied (choosing the series,
 * making room for the records the span should hold, placing the cursor at the keyframe
 * before t0 (a step of its own), walking to t0, then copying records), and returns 1 once
 * the copy is over (0: more remains). Between steps the ring goes on:
 * when it evicted a segment or learnt series since, the walk seeks again where it was; when
 * that place itself was evicted, the copy ends there, with what it copied: the block's t1 is
 * then the time of its last record (cut, logged). finish runs the rest at once and gives
 * the block (the caller's; the collect still needs freeing); free drops a copy at any point.
 * Series learnt after the first step are not in the block. */
struct seriesblock_collect;
struct seriesblock_collect_cost {
	unsigned slices, reseeks;
	uint64_t total_ns, longest_ns; /* CLOCK_MONOTONIC ns in steps: their sum, the longest */
	bool cut;                      /* the block ends before the span did (evicted) */
};
struct seriesblock_collect *seriesblock_collect_new(struct sampler *s, uint64_t t0, uint64_t t1);
/* The same copy out of the fine history (sampler_fine_ring): the counters of the fine
 * sources (their peak series left out), each source's interval the fine interval. NULL when
 * there is no fine history or it no longer holds t0. */
struct seriesblock_collect *seriesblock_collect_new_fine(struct sampler *s, uint64_t t0,
                                                         uint64_t t1);
int seriesblock_collect_step(struct seriesblock_collect *cs, uint64_t slice_ns, size_t max_records);
struct seriesblock *seriesblock_collect_finish(struct seriesblock_collect *cs);
const struct seriesblock_collect_cost *
seriesblock_collect_cost(const struct seriesblock_collect *cs);
void seriesblock_collect_free(struct seriesblock_collect *cs);
void seriesblock_free(struct seriesblock *b);
/* Keep every k-th record of sources over SERIESBLOCK_MAX_POINTS (writer thread). */
void seriesblock_downsample(struct seriesblock *b);
/* The file's bytes (new, *len): downsampled first. -1 with err (zlib failed). */
int seriesblock_encode(struct seriesblock *b, uint8_t **out, size_t *len, struct nm_error *err);
/* A block from a file's bytes, its times made CLOCK_MONOTONIC with mono_to_real (the
 * reader's sampler_mono_to_real). NULL with err saying what is wrong. */
struct seriesblock *seriesblock_decode(const uint8_t *buf, size_t len, int64_t mono_to_real,
                                       struct nm_error *err);
/* The same from the payload, decompressed (the fuzzer's and the tests' way past zlib's
 * check). */
struct seriesblock *seriesblock_parse(const uint8_t *payload, size_t len, int64_t mono_to_real,
                                      struct nm_error *err);
/* Add the records of a test's live figures ts (may be NULL) in [t0, t1] (the one at or
 * before t0 included) to b as the source "test": test.NAME, the sum of the processes, and
 * test.NAME.procI, counters of ts->unit whose rates are the figure. b NULL (the ring held
 * nothing of the span): a new block of [t0, t1] with mono_to_real. Returns the block (b, a
 * new one, or NULL when both were empty). */
struct seriesblock *seriesblock_test_add(struct seriesblock *b, const struct testseries *ts,
                                         uint64_t t0, uint64_t t1, int64_t mono_to_real);
/* Index of the last record of source src at or before t, -1 when none. */
ssize_t seriesblock_at(const struct seriesblock *b, unsigned src, uint64_t t);

#endif
