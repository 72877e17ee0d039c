/* cmd-series.c: rates of matched series step by step over a time range. */
#include <math.h>

#include "cmd-util.h"
#include "cmd.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "query.h"
#include "ring.h"
#include "sampler.h"
#include "window.h"

#define SERIES_MAX_SERIES 1000
#define SERIES_MAX_POINTS 100000
#define ALIGN_RECORDS     8 /* samples looked at to find the beat of a source's timer */

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

/* The phase (mod iv) of the timer that samples source src, from its last ALIGN_RECORDS
 * samples at or before t: the phase most of them share within iv/8 (marks, now and window
 * edges take samples off the beat). False when the source has no sample by t. */
static bool
beat_phase(struct daemon *d, unsigned src, uint64_t iv, uint64_t t, uint64_t *phase)
{
	struct ring_cursor *c = ring_cursor_new(sampler_ring(d->sampler));
	uint64_t ph[ALIGN_RECORDS], r;
	size_t n = 0, most = 0;

	while (n < ALIGN_RECORDS && t > 0 && ring_cursor_seek(c, t) == 0 &&
	       (r = ring_cursor_time(c, src)) != 0) {
		ph[n++] = r % iv;
		t = r - 1;
	}
	ring_cursor_free(c);
	for (size_t i = 0; i < n; i++) {
		size_t close = 0;
		for (size_t j = 0; j < n; j++) {
			uint64_t gap = ph[i] > ph[j] ? ph[i] - ph[j] : ph[j] - ph[i];
			close += (gap < iv - gap ? gap : iv - gap) <= iv / 8;
		}
		if (close > most) {
			most = close;
			*phase = ph[i];
		}
	}
	return n > 0;
}

/* Move t0 forward and t1 back, by less than the interval of id's source, to instants half an
 * interval from that source's timer beat. A step edge on a sample takes it or the one before
 * as timer jitter has it: steps of one interval would hold two samples or none, by turns. */
void
cmd_series_align(struct daemon *d, series_id id, uint64_t *t0, uint64_t *t1)
{
	const struct series_info *si = series_get(sampler_registry(d->sampler), id);
	const struct source *src = sampler_source_at(d->sampler, si->source);
	uint64_t iv = src != NULL ? src->interval_ms * 1000000ull : 0, phase = 0;

	if (iv == 0 || !beat_phase(d, si->source, iv, *t1, &phase))
		return;
	phase = (phase + iv - iv / 2) % iv;
	*t0 += (phase + iv - *t0 % iv) % iv;
	*t1 -= (*t1 % iv + iv - phase) % iv;
}

int
cmd_series(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct daemon *d = ctx->d;
	const struct series_registry *reg = sampler_registry(d->sampler);
	const char *glob = json_get_string(args, "glob", NULL);
	const char *win = json_get_string(args, "window", NULL);
	double step = json_get_double(args, "step", 1.0);
	struct ring_stats st;
	uint64_t t0, t1, stepns;
	size_t n, npoints;
	json_object *o, *arr, **points;

	ring_get_stats(sampler_ring(d->sampler), &st);
	if (st.newest_ns == 0)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "no samples yet");
	if (win != NULL) {
		/* The span of a test or hand-made window, as far as the ring still holds it. */
		if (window_span(d->windows, win, &t0, &t1, err) < 0)
			return -1;
	} else {
		t0 = cmd_series_time(d, json_get_double(args, "from", -300), st.newest_ns);
		t1 = cmd_series_time(d, json_get_double(args, "to", 0), st.newest_ns);
	}
	if (t0 < st.oldest_ns)
		t0 = st.oldest_ns;
	if (t1 > st.newest_ns)
		t1 = st.newest_ns;
	if (t1 <= t0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "argument \"from\": the range holds no samples (the ring keeps "
		                    "%.0f s)",
		                    (double)(st.newest_ns - st.oldest_ns) / 1e9);
	stepns = (uint64_t)(step * 1e9);
	npoints = (size_t)ceil((double)(t1 - t0) / (double)stepns);
	if (npoints > SERIES_MAX_POINTS)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "argument \"step\": %zu points; at most %d (use a larger step)",
		                    npoints, SERIES_MAX_POINTS);
	n = query_match(d->query, glob, false, &d->ids, &d->ids_cap);
	if (n > SERIES_MAX_SERIES)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "argument \"glob\": %zu series match; at most %d at once", n,
		                    SERIES_MAX_SERIES);
	if (n > 0)
		cmd_series_align(d, d->ids[0], &t0, &t1);

	points = calloc(n ? n : 1, sizeof(*points));
	for (size_t i = 0; i < n; i++)
		points[i] = json_object_new_array();
	for (uint64_t a = t0; a < t1; a += stepns) {
		uint64_t b = a + stepns > t1 ? t1 : a + stepns;
		if (query_span(d->query, a, b, err) < 0)
			break;
		for (size_t i = 0; i < n; i++) {
			json_object *p = json_object_new_array_ext(2);
			json_object_array_add(p,
			                      json_double(round(cmd_epoch_s(d, b) * 1000) / 1000));
			json_object_array_add(p, json_double(query_rate(d->query, d->ids[i])));
			json_object_array_add(points[i], p);
		}
	}
	o = json_object_new_object();
	arr = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		const struct series_info *si = series_get(reg, d->ids[i]);
		json_object *m = json_object_new_object();
		json_add_string(m, "name", si->name);
		json_add_string(m, "unit", si->unit);
		cmd_labels_json(reg, d->ids[i], m);
		json_object_object_add(m, "points", points[i]);
		json_object_array_add(arr, m);
	}
	free(points);
	json_add_double(o, "from", cmd_epoch_s(d, t0));
	json_add_double(o, "to", cmd_epoch_s(d, t1));
	json_add_double(o, "step", step);
	json_object_object_add(o, "series", arr);
	*result = o;
	return 0;
}
