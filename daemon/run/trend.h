/* trend.h: the shape of a rate over time: its initial plateau, the onset of a decay (the rate
 * below a fraction of the plateau for a sustained time), the decayed level and any recovery;
 * and the counters that moved most at the onset. trend_analyse and trend_rank_movers are
 * pure functions over arrays; trend_build and trend_window read the points from the ring
 * through a query the caller passes (the trend command's, the runner's). */
#ifndef NM_TREND_H
#define NM_TREND_H

#include <stdbool.h>
#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

struct daemon;
struct nm_error;
struct query;

/* One point: the rate over the interval that ends at t. Points are in increasing t; the
 * interval of point i starts at point i-1's t (the first one's is as long as the second's).
 * t is in seconds from any origin. */
struct trend_point {
	double t;
	double v;
};

struct trend_params {
	double threshold; /* decay: below threshold x plateau (default 0.7) */
	double recover;   /* recovery: back at or above recover x plateau (default 0.9) */
	double sustain_s; /* ... for at least this long (default 5) */
	double plateau_s; /* the plateau: the median of the first plateau_s s of traffic (10) */
};

#define TREND_THRESHOLD 0.7
#define TREND_RECOVER   0.9
#define TREND_SUSTAIN_S 5.0
#define TREND_PLATEAU_S 10.0
/* Traffic starts at the first point at or above this fraction of the series' 95th
 * percentile: the idle lead-in before a test is not part of the plateau. */
#define TREND_IDLE_FRACTION 0.1

enum trend_verdict {
	TREND_STEADY,          /* no decay */
	TREND_DECAY,           /* the rate decayed and is still down at the end */
	TREND_DECAY_RECOVERED, /* it decayed and came back (and stayed back) */
	TREND_IDLE,            /* no traffic at all */
	TREND_TOO_SHORT,       /* fewer than 3 points, or traffic shorter than plateau_s */
};

/* What trend_analyse found; times are in the points' seconds. The fields of the first decay
 * describe the first episode; a rate that recovers and decays again counts in decays. */
struct trend_result {
	enum trend_verdict verdict;
	size_t npoints;
	/* The plateau: from the start of traffic to the onset (or the end); level = median of
	 * the first plateau_s seconds. Set unless idle or too short. */
	double plateau_start, plateau_end, plateau;
	/* The first decay: the start of the first interval below threshold x plateau of a run
	 * lasting sustain_s; onset_level = the median of that run without its first point
	 * (when it has more than one), which mixes both levels when the rate fell inside it. */
	bool has_onset;
	double onset, onset_level;
	/* From the onset to the recovery (or the end): the median rate there. */
	double decayed_start, decayed_end, decayed;
	/* The first recovery after it: the start of a run at or above recover x plateau lasting
	 * sustain_s; recovery_level = the median from there to the next decay (or the end). */
	bool has_recovery;
	double recovery, recovery_level;
	unsigned decays; /* decay episodes in all */
};

/* The defaults above. */
void trend_params_default(struct trend_params *p);
/* Analyse pts[0..n) with p (thresholds as fractions, > 0; recover >= threshold). */
void trend_analyse(const struct trend_point *pts, size_t n, const struct trend_params *p,
                   struct trend_result *r);
/* "steady", "decay", "decay-recovered", "idle", "too-short". */
const char *trend_verdict_name(enum trend_verdict v);

/* A counter around the onset: its rate before and after (per second). */
struct trend_mover {
	const char *name; /* not owned */
	double before, after;
	double change; /* set by trend_rank_movers */
	size_t tag;    /* the caller's: which counter this is */
};

/* Rank candidates by how much they moved: change = (after - before) / max(before,
 * min_rate), so a counter that went from 0 to 5,000/s (drops) outranks one that fell by
 * 64%. Candidates below min_rate both before and after (tiny counts) are dropped. Sorts
 * m[0..n) in place, largest |change| first (ties: larger absolute move, then name), and
 * returns how many are kept at the front. min_rate > 0. */
size_t trend_rank_movers(struct trend_mover *m, size_t n, double min_rate);

/* trend of args.metric over [t0_ns, t1_ns] (CLOCK_MONOTONIC; clamped to the ring) with the
 * options of the trend command in args (threshold, sustain, movers...): fills o as the
 * command does. q is the caller's; its span is moved. 0, or -1 with err. */
int trend_build(struct daemon *d, struct query *q, json_object *args, uint64_t t0_ns,
                uint64_t t1_ns, json_object *o, struct nm_error *err);
/* The trend of window name over its span (window_span): the one function behind both the
 * trend a test's report keeps and `trend --window`, so that they give one verdict. The
 * analysis parameters args leaves out (threshold, recover, sustain, plateau, step) are
 * those of the trend stored with the window's result when it analysed the same series;
 * o.params_from says "result" when any was, else "request". 0, or -1 with err. */
int trend_window(struct daemon *d, struct query *q, const char *name, json_object *args,
                 json_object *o, struct nm_error *err);

/* The same, a slice at a time, for a reply made over turns of the loop: a job over the span
 * [t0_ns, t1_ns] or over window name's span (NULL with err when it has none). q NULL: the
 * job reads the ring through its own query (the caller's must not move between turns).
 * trend_job_step does one stage, the points at most slice_ns at a time: 0 while more
 * remains, 1 once done (trend_job_result then gives the members, new), -1 with err. */
struct trend_job;
struct trend_job *trend_job_span(struct daemon *d, struct query *q, json_object *args,
                                 uint64_t t0_ns, uint64_t t1_ns);
struct trend_job *trend_job_window(struct daemon *d, struct query *q, const char *name,
                                   json_object *args, struct nm_error *err);
int trend_job_step(struct trend_job *j, uint64_t slice_ns, struct nm_error *err);
/* trend_job_step's return while a window's stored series are read off the loop, for a job
 * run in slices that asked for it: wake(arg) runs on the loop once they are there (with no
 * reader thread they are read at once, and their CPU time added to *offloop_ns when not
 * NULL). A job run whole reads them on the loop. */
#define TREND_JOB_WAIT 2
void trend_job_offloop(struct trend_job *j, void (*wake)(void *), void *arg, uint64_t *offloop_ns);
json_object *trend_job_result(struct trend_job *j);
void trend_job_free(struct trend_job *j);

#endif
