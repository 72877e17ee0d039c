/* testseries.h: a test's live figures over time (netperf's interim results, -D 1), recorded
 * while it runs and stored with its result as the series block's source "test"
 * (seriesblock-test.c).
 *
 * Each report is a rate (Mbit/s, transactions/s) over an interval the benchmark names; the
 * processes report in turn, each on its own clock, and a first interval may span seconds.
 * What is kept is the integral, as the ring keeps a counter: the Mbit (or transactions)
 * reported up to each record, in millionths, for the sum of the processes and for each of the
 * first TESTSERIES_PROCS_MAX. The records fall on a grid, one every reporting interval from
 * the test's start: a grid point is recorded once every process has reported past it (or
 * has fallen TESTSERIES_LAG points behind the others, or the test has ended), each
 * process's integral there taken from its report over it as a steady rate. A rate over any
 * span of records is then the mean of the figures in it, summed over the processes; keeping
 * every k-th record loses no traffic, only time resolution, the rule of the series block.
 *
 * The buffer is bounded: it grows by doubling up to SERIESBLOCK_MAX_POINTS records; when
 * full, every other record is dropped (the first always) and from then on only every k-th
 * record is kept, k doubling each time. The newest state is always the last record. Nothing
 * is allocated per report beyond the doublings. */
#ifndef NM_TESTSERIES_H
#define NM_TESTSERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TESTSERIES_PROCS_MAX 64   /* processes with a series of their own (all are summed) */
#define TESTSERIES_SCALE     1e-6 /* the values are millionths of the unit */
#define TESTSERIES_HISTORY   8    /* reports of a process kept for the grid points it passed */
#define TESTSERIES_LAG       4    /* grid points a silent process may hold the others back */

/* A process's newest reports: [s, e] and its integral at both ends (millionths). */
struct testseries_span {
	uint64_t s, e;
	double a0, a1;
};

struct testseries_proc {
	struct testseries_span h[TESTSERIES_HISTORY]; /* a ring, newest at h[(nh - 1) % N] */
	uint64_t nh;                                  /* reports so far */
};

struct testseries {
	char name[32];        /* the figure: "throughput_mbps", "transactions_per_s" */
	char unit[24];        /* what its integral counts: "Mbit", "transactions" */
	uint32_t interval_ms; /* between the benchmark's reports (netperf -D): the grid */
	uint64_t start;       /* the grid's first point (CLOCK_MONOTONIC ns): the test's start */
	uint64_t next;        /* the next grid point to record */
	size_t nprocs;
	struct testseries_proc *procs; /* [nprocs] */
	size_t nown;                   /* processes with their own series */
	size_t nseries;                /* 1 + nown: [0] the sum, [1 + i] process i */
	uint64_t *acc;                 /* [nseries] scratch: the values of a record */
	size_t n;                      /* records kept, the newest not counted when tentative */
	size_t cap;                    /* records room */
	bool tentative;                /* record n is the newest state, replaced by the next */
	bool ended;                    /* testseries_end ran */
	uint64_t *t;                   /* [cap] CLOCK_MONOTONIC ns, increasing */
	uint64_t *v;                   /* [cap * nseries]: record i's values at v[i * nseries] */
	uint64_t seen;                 /* records made, kept or not */
	uint32_t k;                    /* every k-th record made is kept */
};

/* Start empty: nprocs processes (the first TESTSERIES_PROCS_MAX get their own series), a
 * figure called name whose integral counts unit, reported every interval_ms (> 0) since
 * start (CLOCK_MONOTONIC ns). The first record, all zeros, is at start. */
void testseries_init(struct testseries *ts, size_t nprocs, const char *name, const char *unit,
                     uint32_t interval_ms, uint64_t start);
void testseries_free(struct testseries *ts);
/* Process proc reported per_s over [t0, t1] (CLOCK_MONOTONIC ns; t0 raised to its previous
 * report's end, and to start). A negative or non-finite figure counts as 0. Records the grid
 * points every process has now passed. */
void testseries_add(struct testseries *ts, size_t proc, double per_s, uint64_t t0, uint64_t t1);
/* Every process has ended: the remaining grid points up to the last report's end, and a
 * record at that end. Later reports are ignored. */
void testseries_end(struct testseries *ts);
/* The records there are, the newest included. */
size_t testseries_count(const struct testseries *ts);

#endif
