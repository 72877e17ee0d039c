/* cmd-series.c: rates of matched series step by step over a time range. The reply has a
 * budget (reply_max_points, reply_max_bytes); the glob is matched, the names summed against
 * it and, within it, the rates computed a slice at a time and the line written a part at a
 * time as the client reads it, so no callback holds the loop for more than a few ms and the
 * text is never held whole. */
#include <event2/buffer.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockload.h"
#include "bursts.h"
#include "cmd-rows.h"
#include "cmd-util.h"
#include "cmd.h"
#include "control.h"
#include "daemon.h"
#include "peer-forward.h"
#include "error.h"
#include "jsonutil.h"
#include "proto.h"
#include "query.h"
#include "ring.h"
#include "runner.h"
#include "sampler.h"
#include "seriesblock.h"
#include "stored-query.h"
#include "strbuf.h"
#include "timeutil.h"
#include "window.h"
#include "xmalloc.h"

#define PART_BYTES  65536 /* bytes of the reply written at a time */
#define POINT_BYTES 48    /* most bytes of one point: [epoch.ms,value], */
#define ENTRY_BYTES 512   /* most bytes of a series' members besides name, unit, points (labels) */
#define HEAD_BYTES  256   /* most bytes of the envelope and from, to, step */

/* A series reply being made: the rates of every step first (a slice per turn of the loop),
 * then the text, a part per turn. */
struct series_job {
	struct daemon *d;
	struct query *q;         /* its own (query_take), or over blk */
	struct seriesblock *blk; /* the stored series of a window the ring no longer holds */
	struct blockload *bl;    /* loading blk on the reader thread (JOB_LOAD) */
	struct client *client;   /* to wake when it is loaded; NULL: none (it loads at once) */
	uint64_t *offloop_ns;    /* without a client: the CPU ns of the load (no loop time) */
	char *win, *glob;        /* of a window: its name; the glob, for the stored series */
	bool stored_tried;       /* the stored series were asked for (none: the ring answers) */
	uint64_t w0, w1;         /* of a window: its span */
	int64_t id;
	bool has_id;
	bool window;   /* of a window: its span as asked (t0, t1 before job_match aligns them) */
	bool edges;    /* a window too short for two steps: its two edges (job_compute) */
	bool pending;  /* computing: steps wait for a later one's rate (take_rates) */
	bool tailed;   /* computing: the span past the last step was read for them */
	bool bursts;   /* per step each burst series' mean, peak and peak-to-mean (job_bursts) */
	bool step_set; /* the request gave the step (with bursts, else the sampling interval) */
	bool *ratio;   /* [n] with bursts: entry i is the ratio of entries i-1 / i-2 */
	/* The peak series among ids (their entries, ids and each step's highest level). */
	size_t npeak, *peak_slot; /* [n]: entry i's place in peak_ids, SIZE_MAX: none */
	series_id *peak_ids;
	double *peak_max;
	bool peaks_known;
	double step;
	uint64_t t0, t1, stepns;
	size_t n, npoints;
	series_id *ids;
	double *ts;     /* [npoints]: epoch seconds at each step's end */
	double *rates;  /* [n * npoints], series after series */
	size_t next;    /* computing: the next step; writing: the next point of series cur */
	size_t cur;     /* writing: the series being written */
	bool opened;    /* writing: its name and unit are out */
	uint64_t names; /* estimating: the bytes of the series' names and units so far */
	struct query_matching m; /* matching: the glob over the registry, a slice at a time */
	enum {
		JOB_LOAD,
		JOB_MATCH,
		JOB_ESTIMATE,
		JOB_COMPUTE,
		JOB_HEAD,
		JOB_SERIES,
		JOB_TAIL
	} phase;
	struct strbuf sb;
};

/* A time argument: <= 0 is seconds relative to the newest sample, > 0 seconds since the
 * epoch. Returns CLOCK_MONOTONIC ns. */
uint64_t
cmd_series_time(struct daemon *d, double v, uint64_t newest)
{
	double mono;

	if (v <= 0) {
		double back = -v * 1e9;
		return back >= (double)newest ? 0 : newest - (uint64_t)back;
	}
	mono = v * 1e9 - (double)sampler_mono_to_real(d->sampler);
	return mono < 0 ? 0 : (uint64_t)mono;
}

/* Free a job (control's free_fn). */
static void
job_free(void *arg)
{
	struct series_job *j = arg;

	blockload_cancel(j->bl);
	if (j->blk != NULL) {
		query_free(j->q);
		seriesblock_free(j->blk);
	} else if (j->q != NULL)
		query_put(j->q);
	free(j->win);
	free(j->glob);
	query_matching_free(&j->m);
	free(j->ids);
	free(j->ratio);
	free(j->peak_slot);
	free(j->peak_ids);
	free(j->peak_max);
	free(j->ts);
	free(j->rates);
	strbuf_free(&j->sb);
	free(j);
}

/* Append s as a JSON string. */
static void
add_json_string(struct strbuf *sb, const char *s)
{
	json_object *o = json_object_new_string(s);

	strbuf_addstr(sb, json_to_line(o, NULL));
	json_object_put(o);
}

/* Append the series' labels as ,"labels":{...} (cmd_labels_json). */
static void
add_labels(struct strbuf *sb, const struct series_registry *reg, series_id id)
{
	json_object *o = json_object_new_object();
	const char *text;
	size_t len;

	cmd_labels_json(reg, id, o);
	text = json_to_line(o, &len);
	strbuf_addch(sb, ',');
	strbuf_add(sb, text + 1, len - 2); /* "labels":{...} without the outer braces */
	json_object_put(o);
}

/* Append the labels of a ratio entry (job_bursts) of counter id: the counter's, unit
 * "ratio", field FIELD.peak_to_mean (as a peak series' is FIELD.peak_rate). */
static void
add_ratio_labels(struct strbuf *sb, const struct series_registry *reg, series_id id)
{
	json_object *o = json_object_new_object(), *l;
	const char *text, *field;
	size_t len;

	cmd_labels_json(reg, id, o);
	l = json_object_object_get(o, "labels");
	json_add_string(l, "unit", "ratio");
	field = json_get_string(l, "field", NULL);
	if (field != NULL) {
		char *f = xasprintf("%s.peak_to_mean", field);
		json_add_string(l, "field", f);
		free(f);
	}
	text = json_to_line(o, &len);
	strbuf_addch(sb, ',');
	strbuf_add(sb, text + 1, len - 2);
	json_object_put(o);
}

/* Append v as json_double prints it. */
static void
add_double(struct strbuf *sb, double v)
{
	char text[JSON_DOUBLE_MAX];
	size_t n = json_format_double(v, text, sizeof(text));

	strbuf_add(sb, text, n);
}

/* Refuse a reply over its budget with what would fit: the smallest step at these series,
 * the most series at this step. names: the bytes of the series' names, units and members
 * (j->names once summed; before, ENTRY_BYTES each, a lower bound: the points alone). */
static int
over_budget(struct daemon *d, const struct series_job *j, uint64_t names, struct nm_error *err)
{
	uint64_t maxp = d->config.reply_max_points, maxb = d->config.reply_max_bytes;
	uint64_t points = (uint64_t)j->n * j->npoints, bytes, fit_p, fit_s;
	uint64_t np = j->npoints > 0 ? j->npoints : 1;
	double range_s = (double)(j->t1 - j->t0) / 1e9;
	const char *what;

	if (j->n > maxp)
		return nm_error_set(err, NM_ERR_TOO_LARGE,
		                    "argument \"glob\": %zu series match; a reply holds at most "
		                    "%llu points (reply_max_points): match fewer series",
		                    j->n, (unsigned long long)maxp);
	bytes = HEAD_BYTES + names + points * POINT_BYTES;
	if (points <= maxp && bytes <= maxb)
		return 0;
	/* Points per series and series at this step that fit both budgets. */
	fit_p = maxp / j->n;
	fit_s = maxp / np;
	if (maxb > HEAD_BYTES + names) {
		uint64_t bp = (maxb - HEAD_BYTES - names) / POINT_BYTES / j->n;
		uint64_t bs = (maxb - HEAD_BYTES) / (np * POINT_BYTES + (names + j->n - 1) / j->n);
		fit_p = bp < fit_p ? bp : fit_p;
		fit_s = bs < fit_s ? bs : fit_s;
	} else
		fit_p = fit_s = 0;
	what = points > maxp ? "reply_max_points" : "reply_max_bytes";
	if (fit_p == 0)
		return nm_error_set(err, NM_ERR_TOO_LARGE,
		                    "%zu series x %zu points (about %llu bytes) pass the reply "
		                    "budget (%s): match fewer series (at most %llu at this step)",
		                    j->n, j->npoints, (unsigned long long)bytes, what,
		                    (unsigned long long)fit_s);
	return nm_error_set(err, NM_ERR_TOO_LARGE,
	                    "%zu series x %zu points = %llu points (about %llu bytes) pass the "
	                    "reply budget (%s: %llu points, %llu bytes): use a step of at least "
	                    "%.2f s, or a glob matching at most %llu series",
	                    j->n, j->npoints, (unsigned long long)points, (unsigned long long)bytes,
	                    what, (unsigned long long)maxp, (unsigned long long)maxb,
	                    ceil(range_s / (double)fit_p * 100) / 100, (unsigned long long)fit_s);
}

/* The span the job's query holds of [t0, t1] (a window's, or from/to made absolute by the
 * caller), clamped to it; -1 with err when it holds none of it. */
static int
job_span(struct series_job *j, uint64_t t0, uint64_t t1, struct nm_error *err)
{
	uint64_t oldest, newest;

	if (query_bounds(j->q, &oldest, &newest) < 0)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "no samples yet");
	if (t0 < oldest)
		t0 = oldest;
	if (t1 > newest)
		t1 = newest;
	if (t1 <= t0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "argument \"from\": the range holds no samples (the ring keeps "
		                    "%.0f s)",
		                    (double)(newest - oldest) / 1e9);
	j->t0 = t0;
	j->t1 = t1;
	return 0;
}

/* The window's stored block is loaded (on the loop): the producer goes on. */
static void
job_loaded(void *arg)
{
	struct series_job *j = arg;

	if (j->client != NULL)
		control_client_produce_wake(j->client);
}

/* Answer from blk (taken over; NULL: the ring, as far as it holds the window): the glob is
 * matched over it next. 0, or -1 with err when it holds none of the span. */
static int
job_use_block(struct series_job *j, struct seriesblock *blk, struct nm_error *err)
{
	j->stored_tried = true;
	if (blk != NULL) {
		if (j->q != NULL)
			query_put(j->q);
		j->blk = blk;
		j->q = query_new_block(j->d->sampler, blk);
		if (job_span(j, blk->t0, blk->t1, err) < 0)
			return -1;
	} else if (j->q == NULL) {
		j->q = query_take(j->d->sampler);
		if (job_span(j, j->w0, j->w1, err) < 0)
			return -1;
	}
	query_matching_init(j->q, &j->m, j->glob, false);
	j->phase = JOB_MATCH;
	return 0;
}

/* Read the window's stored series off the loop (the store's reader thread), then match the
 * glob over them; without any (none stored, a damaged block: logged), over the ring as far
 * as it holds the window. 1 while the block is being read, 0 on, -1 with err. */
static int
job_load(struct series_job *j, struct nm_error *err)
{
	struct daemon *d = j->d;
	struct seriesblock *blk;

	if (blockload_poll(&j->bl, d->results, j->win, sampler_mono_to_real(d->sampler), job_loaded,
	                   j, j->offloop_ns, &blk) > 0)
		return 1;
	return job_use_block(j, blk, err);
}

/* With bursts: of the matched series, each counter the burst figures cover (bursts_kind:
 * devices' packets and bytes, queues' packets, CPUs' softnet processed) that has a peak series
 * (it moved while sampled fine), as three entries: the counter (its mean rate at each step),
 * peak.NAME (the highest rate over a fine interval in the sample the step took) and their
 * ratio (job_ratios). The others go. */
static void
job_bursts(struct series_job *j)
{
	const struct series_registry *reg = query_registry(j->q);
	series_id *ids = xreallocarray(NULL, 3 * j->n + 1, sizeof(*ids));
	size_t n = 0;

	j->ratio = xcalloc(3 * j->n + 1, sizeof(*j->ratio));
	for (size_t i = 0; i < j->n; i++) {
		const struct series_info *si = series_get(reg, j->ids[i]);
		const char *what;
		char name[512];
		series_id pk;

		if (si->peak || bursts_kind(reg, j->ids[i], &what) == NULL)
			continue;
		if ((size_t)snprintf(name, sizeof(name), "peak.%s", si->name) >= sizeof(name) ||
		    (pk = series_find(reg, name)) == SERIES_NONE || !series_get(reg, pk)->peak)
			continue;
		ids[n++] = j->ids[i];
		ids[n++] = pk;
		j->ratio[n] = true;
		ids[n++] = j->ids[i];
	}
	free(j->ids);
	j->ids = ids;
	j->n = n;
}

/* With bursts: each ratio entry's points, its peak's over its mean's at the same step (0 where
 * the mean is 0: no traffic, no peak). */
static void
job_ratios(struct series_job *j)
{
	for (size_t i = 2; j->bursts && i < j->n; i++) {
		const double *mean = j->rates + (i - 2) * j->npoints,
		             *peak = j->rates + (i - 1) * j->npoints;
		double *r = j->rates + i * j->npoints;
		if (!j->ratio[i])
			continue;
		for (size_t k = 0; k < j->npoints; k++)
			r[k] = mean[k] > 0 ? peak[k] / mean[k] : 0;
	}
}

/* Match the glob for a slice; once every series is tried, lay the steps on the first one's
 * beat and check the points against the budget (the bytes are known after estimating).
 * -1 with err when over budget. */
static int
job_match(struct series_job *j, struct nm_error *err)
{
	uint64_t w0 = j->t0, w1 = j->t1;

	if (!query_matching_step(j->q, &j->m, DAEMON_SLICE_NS))
		return 0;
	if (j->window && j->m.n == 0 && !j->stored_tried) {
		/* No series of the ring: a test's own figures, say, are only kept with it: while
		 * it runs, those so far; once stored, its block. */
		struct seriesblock *live = runner_live_block(j->d->runner, j->win, j->w0, j->w1);
		if (live != NULL) {
			query_matching_free(&j->m);
			return job_use_block(j, live, err);
		}
		if (j->d->results != NULL) {
			query_matching_free(&j->m);
			j->phase = JOB_LOAD;
			return 0;
		}
	}
	j->n = j->m.n;
	j->ids = j->m.ids;
	j->m.ids = NULL;
	if (j->bursts)
		job_bursts(j);
	if (j->bursts && !j->step_set && j->n > 0) {
		/* One step per sample: each its interval's mean, peak and ratio (a coarser step
		 * asked for gives the highest of its samples' peaks: take_peaks). */
		uint64_t iv =
		    query_interval_ms(j->q, series_get(query_registry(j->q), j->ids[0])->source);
		if (iv > 0) {
			j->stepns = iv * 1000000ull;
			j->step = (double)iv / 1e3;
		}
	}
	if (j->n > 0)
		query_align(j->q, j->ids[0], &j->t0, &j->t1);
	j->npoints = j->t1 > j->t0 ? (size_t)((j->t1 - j->t0 + j->stepns - 1) / j->stepns) : 0;
	if (j->window && j->npoints < 2) {
		/* A window shorter than two steps (of about one sampling interval: mark start,
		 * mark stop at once) would have no point, or one: its series are its two edges
		 * instead, each the rate over the whole window from the samples its edges took
		 * (window.h), and the step is the window's length. */
		j->edges = true;
		j->t0 = w0;
		j->t1 = w1;
		j->npoints = 2;
		j->step = (double)(w1 - w0) / 1e9;
	}
	/* Points are known now; bytes once the names are summed, in the next slices. */
	if (over_budget(j->d, j, (uint64_t)j->n * ENTRY_BYTES, err) < 0)
		return -1;
	j->phase = JOB_ESTIMATE;
	return 0;
}

/* Sum the bytes of the series' names and units from j->next on for a slice; at the end,
 * check the budget and go on to computing. -1 with err when over budget. */
static int
job_estimate(struct series_job *j, struct nm_error *err)
{
	const struct series_registry *reg = query_registry(j->q);
	uint64_t start = time_mono_ns();

	while (j->next < j->n) {
		const struct series_info *si = series_get(reg, j->ids[j->next++]);
		/* A ratio's name is its counter's with a prefix; its labels one more. */
		j->names += ENTRY_BYTES + cmd_json_text_bound(si->name) +
		            cmd_json_text_bound(si->unit) + (j->ratio != NULL ? 64 : 0);
		if ((j->next & 255) == 0 && time_mono_ns() - start >= DAEMON_SLICE_NS)
			return 0;
	}
	if (over_budget(j->d, j, j->names, err) < 0)
		return -1;
	j->ts = xreallocarray(NULL, j->npoints ? j->npoints : 1, sizeof(*j->ts));
	j->rates =
	    xreallocarray(NULL, j->n && j->npoints ? j->n * j->npoints : 1, sizeof(*j->rates));
	j->next = 0;
	j->phase = JOB_COMPUTE;
	return 0;
}

/* The highest level of each peak series (sampler.h: a level, the peak of the sample it ends
 * at) over the span the query holds, into j->peak_max: a step of several samples gives
 * the highest of their peaks, not the last one's. */
static void
take_peaks(struct series_job *j)
{
	const struct series_registry *reg = query_registry(j->q);

	if (!j->peaks_known) {
		j->peaks_known = true;
		j->peak_slot = xreallocarray(NULL, j->n ? j->n : 1, sizeof(*j->peak_slot));
		j->peak_ids = xreallocarray(NULL, j->n ? j->n : 1, sizeof(*j->peak_ids));
		for (size_t i = 0; i < j->n; i++) {
			j->peak_slot[i] = SIZE_MAX;
			if (series_get(reg, j->ids[i])->peak &&
			    (j->ratio == NULL || !j->ratio[i])) {
				j->peak_slot[i] = j->npeak;
				j->peak_ids[j->npeak++] = j->ids[i];
			}
		}
		j->peak_max = xreallocarray(NULL, j->npeak ? j->npeak : 1, sizeof(*j->peak_max));
	}
	query_gauge_max(j->q, j->peak_ids, j->npeak, j->peak_max);
}

/* Entry i's peak from take_peaks. */
static double
peak_of(const struct series_job *j, size_t i)
{
	return j->peak_slot[i] != SIZE_MAX ? j->peak_max[j->peak_slot[i]]
	                                   : query_value_end(j->q, j->ids[i]);
}

/* The rates of step k of every series from the span the query holds. A step with no sample
 * of its series' source between its edges (a step finer than the sampling, or a gap in it)
 * has no rate of its own; it takes the rate between the samples around it, which is the rate
 * of the next step that has one (its start edge took the same sample): NAN until then. k ==
 * npoints is the span past the last step, which only gives the steps waiting theirs. */
static void
take_rates(struct series_job *j, size_t k)
{
	const struct series_registry *reg = query_registry(j->q);

	j->pending = false;
	take_peaks(j);
	for (size_t i = 0; i < j->n; i++) {
		double *r = j->rates + i * j->npoints, v;
		double secs = query_seconds(j->q, series_get(reg, j->ids[i])->source);
		if (j->ratio != NULL && j->ratio[i]) {
			if (k < j->npoints)
				r[k] = 0; /* job_ratios, once every step has its rates */
			continue;
		}
		if (secs <= 0) {
			if (k < j->npoints) {
				r[k] = NAN;
				j->pending = true;
			}
			continue;
		}
		/* A peak series (sampler.h) is a level, the peak of the sample it ends at: the
		 * highest over the step's samples, not its change. */
		if (series_get(reg, j->ids[i])->peak)
			v = peak_of(j, i);
		else
			v = query_delta_scaled(j->q, j->ids[i]) / secs;
		if (k < j->npoints)
			r[k] = v;
		for (size_t m = k; m-- > 0 && isnan(r[m]);)
			r[m] = v;
	}
}

/* The steps still waiting for a rate after the span past the last one: nothing was sampled
 * after them (a stored block ends there). 0, as a counter that did not move. */
static void
settle_rates(struct series_job *j)
{
	for (size_t i = 0; i < j->n * j->npoints; i++)
		if (isnan(j->rates[i]))
			j->rates[i] = 0;
}

/* The longest sampling interval of the matched series' sources, ns. */
static uint64_t
longest_interval(const struct series_job *j)
{
	const struct series_registry *reg = query_registry(j->q);
	uint64_t iv = 0;

	for (size_t i = 0; i < j->n; i++) {
		uint64_t v =
		    query_interval_ms(j->q, series_get(reg, j->ids[i])->source) * 1000000ull;
		iv = v > iv ? v : iv;
	}
	return iv;
}

/* Compute the rates of the steps from j->next on until all are done (1) or a slice has
 * passed (0). -1 with err when the span left the ring. */
static int
job_compute(struct series_job *j, struct nm_error *err)
{
	struct daemon *d = j->d;
	uint64_t start = time_mono_ns();

	if (j->edges) {
		/* One span, the window's: its rate at both edges. */
		if (query_span(j->q, j->t0, j->t1, err) < 0)
			return -1;
		j->ts[0] = round(cmd_epoch_s(d, j->t0) * 1000) / 1000;
		j->ts[1] = round(cmd_epoch_s(d, j->t1) * 1000) / 1000;
		take_peaks(j);
		for (size_t i = 0; i < j->n; i++)
			j->rates[i * 2] = j->rates[i * 2 + 1] =
			    series_get(query_registry(j->q), j->ids[i])->peak
			        ? peak_of(j, i)
			        : query_rate(j->q, j->ids[i]);
		j->next = 2;
		return 1;
	}
	while (j->next < j->npoints) {
		uint64_t a = j->t0 + j->next * j->stepns;
		uint64_t b = a + j->stepns > j->t1 ? j->t1 : a + j->stepns;
		/* The cursors forward a part at a time: the first step's walk from a keyframe
		 * may take more than a slice; the next steps go on from there. */
		int rc = query_span_part(j->q, a, b, start + DAEMON_SLICE_NS, err);
		if (rc < 0)
			return -1;
		if (rc == 0)
			break;
		j->ts[j->next] = round(cmd_epoch_s(d, b) * 1000) / 1000;
		take_rates(j, j->next);
		j->next++;
		if (time_mono_ns() - start >= DAEMON_SLICE_NS)
			return 0;
	}
	if (j->next == j->npoints && j->pending && !j->tailed) {
		/* The last steps had no sample: the span from the last edge to the sample after
		 * it (the ring holds it: the range was aligned back from the newest). */
		int rc = query_span_part(j->q, j->t1, j->t1 + longest_interval(j),
		                         start + DAEMON_SLICE_NS, err);
		if (rc < 0)
			return -1;
		if (rc == 0)
			return 0;
		take_rates(j, j->npoints);
		j->tailed = true;
	}
	if (j->next < j->npoints)
		return 0;
	settle_rates(j);
	return 1;
}

/* Append up to PART_BYTES of the series text to j->sb. */
static void
job_write(struct series_job *j)
{
	const struct series_registry *reg = query_registry(j->q);
	struct strbuf *sb = &j->sb;

	while (sb->len < PART_BYTES && j->cur < j->n) {
		const double *r = j->rates + j->cur * j->npoints;
		if (!j->opened) {
			const struct series_info *si = series_get(reg, j->ids[j->cur]);
			bool ratio = j->ratio != NULL && j->ratio[j->cur];
			strbuf_addstr(sb, j->cur > 0 ? ",{\"name\":" : "{\"name\":");
			if (ratio) {
				char *name = xasprintf("peak_to_mean.%s", si->name);
				add_json_string(sb, name);
				free(name);
				strbuf_addstr(sb, ",\"unit\":\"ratio\"");
				add_ratio_labels(sb, reg, j->ids[j->cur]);
			} else {
				add_json_string(sb, si->name);
				strbuf_addstr(sb, ",\"unit\":");
				add_json_string(sb, si->unit);
				add_labels(sb, reg, j->ids[j->cur]);
			}
			strbuf_addstr(sb, ",\"points\":[");
			j->opened = true;
		}
		for (; j->next < j->npoints && sb->len < PART_BYTES; j->next++) {
			strbuf_addstr(sb, j->next > 0 ? ",[" : "[");
			add_double(sb, j->ts[j->next]);
			strbuf_addch(sb, ',');
			add_double(sb, r[j->next]);
			strbuf_addch(sb, ']');
		}
		if (j->next == j->npoints) {
			strbuf_addstr(sb, "]}");
			j->cur++;
			j->next = 0;
			j->opened = false;
		}
	}
}

/* The producer: one slice of computing, or one part of text. 1 once the line is out. */
static int
job_produce(struct evbuffer *out, void *arg)
{
	struct series_job *j = arg;
	struct nm_error err;
	char head[PROTO_REPLY_HEAD_MAX];
	size_t len;
	int rc;

	strbuf_reset(&j->sb);
	switch (j->phase) {
	case JOB_LOAD:
		if ((rc = job_load(j, &err)) < 0)
			goto fail;
		return rc > 0 ? CONTROL_PRODUCE_WAIT : 0;
	case JOB_MATCH:
		if (job_match(j, &err) < 0)
			goto fail;
		return 0;
	case JOB_ESTIMATE:
		if (job_estimate(j, &err) < 0)
			goto fail;
		return 0;
	case JOB_COMPUTE:
		if ((rc = job_compute(j, &err)) < 0)
			goto fail;
		if (rc > 0) {
			job_ratios(j);
			j->phase = JOB_HEAD;
			j->next = 0;
		}
		return 0;
	case JOB_HEAD:
		strbuf_add(&j->sb, head, proto_reply_ok_head(j->id, j->has_id, head, sizeof(head)));
		strbuf_addstr(&j->sb, "{\"from\":");
		add_double(&j->sb, cmd_epoch_s(j->d, j->t0));
		strbuf_addstr(&j->sb, ",\"to\":");
		add_double(&j->sb, cmd_epoch_s(j->d, j->t1));
		strbuf_addstr(&j->sb, ",\"step\":");
		add_double(&j->sb, j->step);
		strbuf_addstr(&j->sb, ",\"series\":[");
		j->phase = JOB_SERIES;
		/* fall through */
	case JOB_SERIES:
		job_write(j);
		if (j->cur == j->n)
			j->phase = JOB_TAIL;
		if (j->phase != JOB_TAIL || j->sb.len >= PART_BYTES)
			break;
		/* fall through */
	case JOB_TAIL:
		strbuf_addstr(&j->sb, "]}" PROTO_REPLY_TAIL);
		evbuffer_add(out, j->sb.buf, j->sb.len);
		return 1;
	}
	evbuffer_add(out, j->sb.buf, j->sb.len);
	return 0;
fail : {
	/* Nothing of the reply is out yet: an error line instead. */
	char *line = proto_reply_error(j->id, j->has_id, err.code, err.message, &len);
	evbuffer_add(out, line, len);
	free(line);
	return 1;
}
}

static int
cmd_series(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct daemon *d = ctx->d;
	const char *glob = json_get_string(args, "glob", NULL);
	const char *win = json_get_string(args, "window", NULL);
	double step = json_get_double(args, "step", 1.0);
	uint64_t t0 = 0, t1 = 0, oldest, newest;
	struct series_job *j;
	int rc;

	/* --host PEER: that host's daemon answers. */
	if ((rc = peer_forward(ctx, args, err)) != 0)
		return rc < 0 ? -1 : 0;
	if (win != NULL && window_span(d->windows, win, &t0, &t1, err) < 0)
		return -1;
	j = xcalloc(1, sizeof(*j));
	j->d = d;
	j->client = ctx->client;
	j->offloop_ns = ctx->client == NULL ? &ctx->offloop_ns : NULL;
	j->id = ctx->id;
	j->has_id = ctx->has_id;
	j->step = step;
	/* The schema keeps step in [0.01, 86400]: never 0 ns. */
	j->stepns = (uint64_t)(step * 1e9);
	if (j->stepns == 0)
		j->stepns = 1;
	j->window = win != NULL;
	j->bursts = json_get_bool(args, "bursts", false);
	j->step_set = json_object_object_get_ex(args, "step", NULL);
	strbuf_init(&j->sb);
	if (win != NULL) {
		/* The span of a test or hand-made window, as far as the ring still holds it; once
		 * it does not, or for series the ring does not have (a test's figures: job_match),
		 * the series stored with its result, read off the loop (job_load). */
		j->win = xstrdup(win);
		j->glob = xstrdup(glob != NULL ? glob : "*");
		j->w0 = t0;
		j->w1 = t1;
		if (stored_first(d, t0)) {
			j->phase = JOB_LOAD;
			return dispatch_defer(ctx, job_produce, j, job_free, result, err);
		}
	}
	/* A query of the job's own: d->query's cursors are another request's between turns,
	 * and two replies placing the same cursors in turn would undo each other's parts. */
	j->q = query_take(d->sampler);
	if (win == NULL && query_bounds(j->q, &oldest, &newest) == 0) {
		t0 = cmd_series_time(d, json_get_double(args, "from", -300), newest);
		t1 = cmd_series_time(d, json_get_double(args, "to", 0), newest);
	}
	if (job_span(j, t0, t1, err) < 0) {
		job_free(j);
		return -1;
	}
	/* The glob is matched, the steps laid and the budget checked in the first slices
	 * (job_match), before any byte of the reply. */
	j->phase = JOB_MATCH;
	query_matching_init(j->q, &j->m, glob, false);
	return dispatch_defer(ctx, job_produce, j, job_free, result, err);
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_series_entry = {.proto = "series", .exec = cmd_series};
