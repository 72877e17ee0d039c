/* bursts.c: the burst figures of a window (bursts.h). */
#include "bursts.h"

#include <math.h>
#include <stdlib.h>
#include <sys/types.h>
#include <stdbool.h>
#include <string.h>

#include "jsonutil.h"
#include "series.h"
#include "seriesblock.h"
#include "timeutil.h"
#include "xmalloc.h"

/* Keep run r among f's top bursts (the highest peaks; an earlier one wins a tie). */
static void
top_add(struct bursts_figures *f, const struct bursts_run *r)
{
	size_t low = 0;

	if (f->ntop < BURSTS_TOP) {
		f->top[f->ntop++] = *r;
		return;
	}
	for (size_t i = 1; i < f->ntop; i++)
		if (f->top[i].peak < f->top[low].peak)
			low = i;
	if (r->peak <= f->top[low].peak)
		return;
	/* Out goes the lowest; the rest keep their time order, r (the newest) goes last. */
	memmove(&f->top[low], &f->top[low + 1], (f->ntop - low - 1) * sizeof(f->top[0]));
	f->top[f->ntop - 1] = *r;
}

/* The run just ended: the longest so far? among the top? */
static void
run_end(struct bursts_figures *f, const struct bursts_run *r)
{
	f->nruns++;
	if (r->t1 - r->t0 > f->longest.t1 - f->longest.t0)
		f->longest = *r;
	top_add(f, r);
}

/* The record that ends the interval starting at record i: the next one at least min_gap_ns
 * after it (a record closer than that, a window's edge sample just after a fine one, is
 * taken with the next, as the sampler's peaks take it: fine_end), else the last record; a
 * last record closer than min_gap_ns to that one is taken with it. */
static size_t
interval_end(const uint64_t *t, size_t n, size_t i, uint64_t min_gap_ns)
{
	size_t j = i + 1;

	while (j < n - 1 && t[j] - t[i] < min_gap_ns)
		j++;
	if (j < n - 1 && t[n - 1] - t[j] < min_gap_ns)
		j = n - 1;
	return j;
}

/* The rate from record i to record j in the unit per second; -1 when the interval is late
 * or has no length. */
static double
rate_at(const uint64_t *t, const uint64_t *v, size_t i, size_t j, uint64_t interval_ns,
        double scale)
{
	uint64_t dt = t[j] - t[i];

	if (dt == 0 || (interval_ns > 0 && dt > BURSTS_LATE_FACTOR * interval_ns))
		return -1;
	return (double)(v[j] - v[i]) * scale * 1e9 / (double)dt;
}

/* See bursts.h. Two passes: the peak, then the runs above threshold x peak. */
void
bursts_series(const uint64_t *t, const uint64_t *v, size_t n, uint64_t interval_ns, double scale,
              double threshold, struct bursts_figures *f)
{
	uint64_t min_gap = interval_ns / 2;
	struct bursts_run run;
	bool in_run = false;

	memset(f, 0, sizeof(*f));
	if (n < 2)
		return;
	if (t[n - 1] > t[0])
		f->mean = (double)(v[n - 1] - v[0]) * scale * 1e9 / (double)(t[n - 1] - t[0]);
	for (size_t i = 0, j; i < n - 1; i = j) {
		double r;
		j = interval_end(t, n, i, min_gap);
		f->intervals++;
		if ((r = rate_at(t, v, i, j, interval_ns, scale)) < 0) {
			f->late += t[j] > t[i];
			continue;
		}
		if (r > f->peak) {
			f->peak = r;
			f->peak_t0 = t[i];
			f->peak_t1 = t[j];
		}
	}
	if (f->peak <= 0)
		return;
	f->threshold = threshold * f->peak;
	for (size_t i = 0, j; i < n - 1; i = j) {
		double r;
		j = interval_end(t, n, i, min_gap);
		r = rate_at(t, v, i, j, interval_ns, scale);
		if (r >= f->threshold && r > 0) {
			if (!in_run)
				run = (struct bursts_run){.t0 = t[i], .peak = -1};
			in_run = true;
			run.t1 = t[j];
			if (r > run.peak) {
				run.peak = r;
				run.peak_t = t[i];
			}
			continue;
		}
		if (in_run)
			run_end(f, &run);
		in_run = false;
	}
	if (in_run)
		run_end(f, &run);
}

/* See bursts.h. */
const char *
bursts_kind(const struct series_registry *reg, series_id id, const char **what)
{
	const struct series_info *si = series_get(reg, id);
	struct series_labels l = series_labels_of(reg, id);
	const char *src = series_source_name(reg, id), *field = series_atom_str(reg, l.field);

	*what = field;
	if (si->kind == SERIES_GAUGE)
		return NULL;
	if (strcmp(src, "link") == 0)
		return strcmp(field, "rx_packets") == 0 || strcmp(field, "tx_packets") == 0 ||
		               strcmp(field, "rx_bytes") == 0 || strcmp(field, "tx_bytes") == 0
		           ? "device"
		           : NULL;
	if (strcmp(src, "queues") == 0)
		return strcmp(field, "packets") == 0 && l.queue >= 0 ? "queue" : NULL;
	if (strcmp(src, "softnet") == 0)
		return strcmp(field, "processed") == 0 && l.cpu >= 0 ? "cpu" : NULL;
	if (strcmp(src, "softirqs") == 0) {
		*what = series_atom_str(reg, l.type);
		return strcmp(*what, "NET_RX") == 0 && l.cpu >= 0 ? "cpu" : NULL;
	}
	return NULL;
}

/* A wall-clock member key: mono ns t as RFC 3339 with milliseconds. */
static void
add_time(json_object *o, const char *key, const struct seriesblock *b, uint64_t t)
{
	char buf[40];

	time_format_rfc3339((uint64_t)((int64_t)t + b->mono_to_real), buf, sizeof(buf));
	json_add_string(o, key, buf);
}

/* Seconds from the span's start t0 to t (negative before it). */
static double
offset_s(uint64_t t, uint64_t t0)
{
	return ((double)t - (double)t0) / 1e9;
}

/* One burst as JSON. */
static json_object *
run_json(const struct seriesblock *b, const struct bursts_run *r, uint64_t t0)
{
	json_object *o = json_object_new_object();

	add_time(o, "start", b, r->t0);
	json_add_double(o, "offset_s", offset_s(r->t0, t0));
	json_add_double(o, "duration_s", (double)(r->t1 - r->t0) / 1e9);
	json_add_double(o, "peak", r->peak);
	add_time(o, "peak_at", b, r->peak_t);
	json_add_double(o, "peak_offset_s", offset_s(r->peak_t, t0));
	return o;
}

/* The entry of series id (of kind, what) with figures f. */
static json_object *
series_json(const struct seriesblock *b, series_id id, const char *kind, const char *what,
            const struct bursts_figures *f, uint64_t interval_ns, uint64_t t0)
{
	const struct series_info *si = series_get(&b->reg, id);
	struct series_labels l = series_labels_of(&b->reg, id);
	json_object *o = json_object_new_object(), *a;

	json_add_string(o, "series", si->name);
	json_add_string(o, "kind", kind);
	if (l.device != SERIES_ATOM_NONE)
		json_add_string(o, "device", series_atom_str(&b->reg, l.device));
	if (l.queue >= 0)
		json_add_int(o, "queue", l.queue);
	if (l.dir != SERIES_DIR_NONE)
		json_add_string(o, "direction", l.dir == SERIES_DIR_RX ? "rx" : "tx");
	if (l.cpu >= 0)
		json_add_int(o, "cpu", l.cpu);
	json_add_string(o, "what", what);
	json_add_string(o, "unit", si->unit);
	json_add_double(o, "interval_ms", (double)interval_ns / 1e6);
	json_add_uint(o, "intervals", f->intervals);
	json_add_uint(o, "late", f->late);
	json_add_double(o, "mean", f->mean);
	json_add_double(o, "peak", f->peak);
	add_time(o, "peak_at", b, f->peak_t0);
	json_add_double(o, "peak_offset_s", offset_s(f->peak_t0, t0));
	json_add_double(o, "peak_interval_ms", (double)(f->peak_t1 - f->peak_t0) / 1e6);
	json_add_double(o, "peak_to_mean", f->mean > 0 ? f->peak / f->mean : 0);
	json_add_double(o, "threshold", f->threshold);
	json_add_double(o, "longest_run_s", (double)(f->longest.t1 - f->longest.t0) / 1e9);
	add_time(o, "longest_run_at", b, f->longest.t0);
	json_add_double(o, "longest_run_offset_s", offset_s(f->longest.t0, t0));
	json_add_uint(o, "runs", f->nruns);
	a = json_object_new_array();
	for (size_t i = 0; i < f->ntop; i++)
		json_object_array_add(a, run_json(b, &f->top[i], t0));
	json_object_object_add(o, "bursts", a);
	return o;
}

/* A candidate for the window's top: a burst of a series counted in packets (a device's,
 * a queue's, a CPU's softnet processed), ranked by its peak rate: "queue 7 peaked at 9.8
 * Mpps". Bytes and softirqs are left out (another unit), and so is a ranking by
 * peak-to-mean, which puts a quiet counter's two ARP packets first. */
struct top_entry {
	double peak, ratio;
	json_object *burst; /* borrowed from its series' entry */
	const char *series;
};

/* Keep e among the window's BURSTS_TOP highest peaks, highest first (an earlier one wins a
 * tie). */
static void
window_top_add(struct top_entry *top, size_t *n, const struct top_entry *e)
{
	size_t i = *n < BURSTS_TOP ? (*n)++ : BURSTS_TOP;

	if (i == BURSTS_TOP) {
		if (e->peak <= top[BURSTS_TOP - 1].peak)
			return;
		i = BURSTS_TOP - 1;
	}
	while (i > 0 && top[i - 1].peak < e->peak) {
		top[i] = top[i - 1];
		i--;
	}
	top[i] = *e;
}

/* See bursts.h. */
/* Whether a block before bv[k] has records of the source named name. */
static bool
source_before(const struct seriesblock *const *bv, size_t k, const char *name)
{
	for (size_t j = 0; j < k; j++)
		for (size_t i = 0; bv[j] != NULL && i < bv[j]->nsrc; i++)
			if (bv[j]->src[i].n > 0 && strcmp(bv[j]->src[i].name, name) == 0)
				return true;
	return false;
}

json_object *
bursts_json(const struct seriesblock *b, uint64_t t0, uint64_t t1, double threshold)
{
	return bursts_json_blocks(&b, 1, t0, t1, threshold, 0);
}

/* A series' entry on its way into the object: kept always (a device's), or ranked by its
 * peak among the others for the cap. */
struct entry {
	json_object *e;
	double peak;
	bool always;
	bool keep;
};

/* Order of entries for the cap: the highest peak first, an earlier one first on a tie. */
static int
entry_rank_cmp(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a,
	                   *y = *(const struct entry *const *)b;

	if (x->peak != y->peak)
		return x->peak < y->peak ? 1 : -1;
	return x < y ? -1 : x > y;
}

/* Mark the entries kept under the cap: every device's, and of the others (queues, CPUs) the
 * max_series of the highest peak (0: all). Returns how many are left out. */
static size_t
entries_cap(struct entry *ev, size_t n, size_t max_series)
{
	struct entry **rank = xreallocarray(NULL, n ? n : 1, sizeof(*rank));
	size_t nr = 0, omitted = 0;

	for (size_t i = 0; i < n; i++) {
		ev[i].keep = true;
		if (!ev[i].always)
			rank[nr++] = &ev[i];
	}
	if (max_series > 0 && nr > max_series) {
		qsort(rank, nr, sizeof(*rank), entry_rank_cmp);
		for (size_t i = max_series; i < nr; i++)
			rank[i]->keep = false;
		omitted = nr - max_series;
	}
	free(rank);
	return omitted;
}

json_object *
bursts_json_blocks(const struct seriesblock *const *bv, size_t nb, uint64_t t0, uint64_t t1,
                   double threshold, size_t max_series)
{
	json_object *out, *arr;
	json_object *tarr;
	struct top_entry top[BURSTS_TOP];
	struct entry *ev = NULL;
	size_t ntop = 0, nseries = 0, omitted;

	for (size_t k = 0; k < nb; k++) {
		const struct seriesblock *b = bv[k];

		if (b == NULL)
			continue;
		for (series_id id = 0; id < b->reg.n; id++) {
			const struct series_info *si = series_get(&b->reg, id);
			const char *what = "", *kind = bursts_kind(&b->reg, id, &what);
			const struct seriesblock_source *so;
			struct bursts_figures f;
			ssize_t i0, i1;
			json_object *e;
			uint64_t iv;

			if (kind == NULL || si->source >= b->nsrc || b->v[id] == NULL)
				continue;
			so = &b->src[si->source];
			if (source_before(bv, k, so->name))
				continue; /* a finer block had it */
			i0 = seriesblock_at(b, si->source, t0);
			i1 = seriesblock_at(b, si->source, t1);
			if (i0 < 0)
				i0 = 0;
			if (i1 <= i0)
				continue;
			/* A block kept every step_k-th record: its interval is that of the
			 * records. */
			iv = (uint64_t)so->interval_ms * 1000000u;
			bursts_series(so->t + i0, b->v[id] + i0, (size_t)(i1 - i0 + 1), iv,
			              si->scale, threshold, &f);
			if (f.peak <= 0)
				continue;
			e = series_json(b, id, kind, what, &f, iv, t0);
			ev = xreallocarray(ev, nseries + 1, sizeof(*ev));
			ev[nseries++] = (struct entry){
			    .e = e, .peak = f.peak, .always = strcmp(kind, "device") == 0};
			for (size_t m = 0; m < f.ntop && strcmp(si->unit, "packets") == 0; m++) {
				struct top_entry te = {.peak = f.top[m].peak,
				                       .ratio =
				                           f.mean > 0 ? f.top[m].peak / f.mean : 0,
				                       .burst = json_object_array_get_idx(
				                           json_object_object_get(e, "bursts"), m),
				                       .series = si->name};
				window_top_add(top, &ntop, &te);
			}
		}
	}
	if (nseries == 0)
		return NULL;
	out = json_object_new_object();
	json_add_double(out, "threshold", threshold);
	json_add_int(out, "late_factor", BURSTS_LATE_FACTOR);
	/* The top is made of every series' bursts, kept or not: the members are copied below
	 * before a left-out entry goes. */
	tarr = json_object_new_array();
	for (size_t i = 0; i < ntop; i++) {
		json_object *o = json_object_new_object();
		json_add_string(o, "series", top[i].series);
		json_object_object_foreach(top[i].burst, k, v)
		    json_object_object_add(o, k, json_object_get(v));
		json_add_double(o, "peak_to_mean", top[i].ratio);
		json_object_array_add(tarr, o);
	}
	omitted = entries_cap(ev, nseries, max_series);
	arr = json_object_new_array();
	for (size_t i = 0; i < nseries; i++) {
		if (ev[i].keep)
			json_object_array_add(arr, ev[i].e);
		else
			json_object_put(ev[i].e);
	}
	free(ev);
	json_object_object_add(out, "series", arr);
	json_object_object_add(out, "top", tarr);
	json_add_uint(out, "max_series", max_series);
	json_add_uint(out, "bursts_omitted", omitted);
	return out;
}
