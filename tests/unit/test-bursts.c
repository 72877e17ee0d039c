/* test-bursts.c: the burst figures (bursts.c) on known series: a steady rate (peak = mean,
 * one run over the whole span); a 20 ms burst at 100x the background (its peak, time,
 * length and peak-to-mean); the real sample times used, not the nominal step; a late
 * sample that is not a burst (out of peaks and runs, in the mean, ending a run); the top
 * bursts (the highest peaks, in time order); and the report's "bursts" object from a block
 * (only the device, queue and CPU series that burst figures cover, with wall-clock times; the
 * window's top bursts those counted in packets, by peak). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <cmocka.h>

#include "bursts-src.h"
#include "bursts.h"
#include "config.h"
#include "jsonutil.h"
#include "series.h"
#include "seriesblock.h"
#include "xmalloc.h"

#define MS   1000000ull
#define SEC  1000000000ull
#define BASE (1000 * SEC)
#define M2R  1700000000000000000ll /* mono -> epoch ns: BASE is 2023-11-14T22:30:00Z */

/* n records every step ns from BASE; v[i] the sum of d[1..i] (d[0] unused). */
static void
make(uint64_t *t, uint64_t *v, const uint64_t *d, size_t n, uint64_t step)
{
	for (size_t i = 0; i < n; i++) {
		t[i] = BASE + i * step;
		v[i] = i == 0 ? 1000 : v[i - 1] + d[i];
	}
}

/* 100 pkts every 10 ms: 10,000/s mean and peak, ratio 1, one run over the whole second. */
static void
test_steady(void **state)
{
	uint64_t t[101], v[101], d[101];
	struct bursts_figures f;

	(void)state;
	for (size_t i = 0; i < 101; i++)
		d[i] = 100;
	make(t, v, d, 101, 10 * MS);
	bursts_series(t, v, 101, 10 * MS, 1.0, BURSTS_THRESHOLD, &f);
	assert_int_equal(f.intervals, 100);
	assert_int_equal(f.late, 0);
	assert_float_equal(f.mean, 10000, 1e-6);
	assert_float_equal(f.peak, 10000, 1e-6);
	assert_int_equal(f.peak_t0, BASE); /* the first of equal peaks */
	assert_float_equal(f.threshold, 8000, 1e-6);
	assert_int_equal(f.nruns, 1);
	assert_int_equal(f.longest.t0, BASE);
	assert_int_equal(f.longest.t1, BASE + SEC);
	assert_int_equal(f.ntop, 1);
}

/* One second at 1 pkt per 10 ms, but intervals 31 and 32 (t 300-320 ms) carry 1,000 each:
 * a 20 ms burst at 100,000/s over a mean of (98 + 2,000) / 1 s = 2,098/s. */
static void
test_one_burst(void **state)
{
	uint64_t t[101], v[101], d[101];
	struct bursts_figures f;

	(void)state;
	for (size_t i = 0; i < 101; i++)
		d[i] = i == 31 || i == 32 ? 1000 : 1;
	make(t, v, d, 101, 10 * MS);
	bursts_series(t, v, 101, 10 * MS, 1.0, BURSTS_THRESHOLD, &f);
	assert_float_equal(f.mean, 2098, 1e-6);
	assert_float_equal(f.peak, 100000, 1e-6);
	assert_int_equal(f.peak_t0, BASE + 300 * MS);
	assert_int_equal(f.peak_t1, BASE + 310 * MS);
	assert_float_equal(f.peak / f.mean, 100000.0 / 2098, 1e-9);
	assert_int_equal(f.nruns, 1);
	assert_int_equal(f.longest.t0, BASE + 300 * MS);
	assert_int_equal(f.longest.t1, BASE + 320 * MS);
	assert_int_equal(f.ntop, 1);
	assert_float_equal(f.top[0].peak, 100000, 1e-6);
	/* A scale (bytes -> bits, ticks -> s) scales every rate. */
	bursts_series(t, v, 101, 10 * MS, 8.0, BURSTS_THRESHOLD, &f);
	assert_float_equal(f.peak, 800000, 1e-6);
	assert_float_equal(f.mean, 8 * 2098, 1e-6);
}

/* Samples 8 and 12 ms apart (a timer's jitter) with 80 and 96 pkts: the rates are 10,000/s
 * and 8,000/s at the real times; at a nominal 10 ms they would be 8,000 and 9,600. */
static void
test_real_times(void **state)
{
	uint64_t t[5] = {BASE, BASE + 8 * MS, BASE + 20 * MS, BASE + 28 * MS, BASE + 40 * MS};
	uint64_t v[5] = {0, 80, 176, 256, 352};
	struct bursts_figures f;

	(void)state;
	bursts_series(t, v, 5, 10 * MS, 1.0, 0.9, &f);
	assert_float_equal(f.peak, 10000, 1e-6);
	assert_int_equal(f.peak_t0, BASE);
	assert_int_equal(f.peak_t1, BASE + 8 * MS);
	assert_float_equal(f.mean, 352 * 1e9 / (40 * MS), 1e-6);
	/* Above 9,000/s: the two 8 ms intervals, apart: two runs of 8 ms. */
	assert_int_equal(f.nruns, 2);
	assert_int_equal(f.longest.t1 - f.longest.t0, 8 * MS);
}

/* A window's edge samples 1 ms after a fine one, each carrying the only packet: an interval
 * under half the fine one is taken with the next (as the sampler's peaks take it), the last
 * one with the one before, so one packet is 100/s over 10 and 11 ms, not 1,000/s over 1 ms
 * (a peak-to-mean of 160 from 9 packets, seen in a report before). */
static void
test_edge_samples(void **state)
{
	uint64_t t[7] = {BASE,           BASE + 10 * MS, BASE + 20 * MS, BASE + 21 * MS,
	                 BASE + 30 * MS, BASE + 40 * MS, BASE + 41 * MS};
	uint64_t v[7] = {0, 0, 0, 1, 1, 1, 2};
	struct bursts_figures f;

	(void)state;
	bursts_series(t, v, 7, 10 * MS, 1.0, BURSTS_THRESHOLD, &f);
	assert_int_equal(f.intervals, 4); /* 0-10, 10-20, 20-30, 30-41 */
	assert_float_equal(f.peak, 100, 1e-9);
	assert_int_equal(f.peak_t0, BASE + 20 * MS);
	assert_int_equal(f.peak_t1, BASE + 30 * MS);
	assert_float_equal(f.mean, 2 * 1e9 / (41 * MS), 1e-9);
	/* 1 in 11 ms (90.9/s) is above 80 % of 100/s: one run from 20 ms to the end. */
	assert_int_equal(f.nruns, 1);
	assert_int_equal(f.longest.t0, BASE + 20 * MS);
	assert_int_equal(f.longest.t1, BASE + 41 * MS);
	/* Without an interval nothing is merged: the 1 ms intervals are the peaks. */
	bursts_series(t, v, 7, 0, 1.0, BURSTS_THRESHOLD, &f);
	assert_int_equal(f.intervals, 6);
	assert_float_equal(f.peak, 1000, 1e-9);
}

/* A sample 50 ms late (over 2x the 10 ms interval) carrying 5,000 pkts (100,000/s over
 * it): not a peak, not a run; it counts in the mean and ends the run it falls in. */
static void
test_late(void **state)
{
	uint64_t t[8], v[8];
	uint64_t dt[8] = {0, 10, 10, 10, 50, 10, 10, 10};
	uint64_t d[8] = {0, 100, 100, 100, 5000, 100, 100, 100};
	struct bursts_figures f;

	(void)state;
	t[0] = BASE;
	v[0] = 0;
	for (size_t i = 1; i < 8; i++) {
		t[i] = t[i - 1] + dt[i] * MS;
		v[i] = v[i - 1] + d[i];
	}
	bursts_series(t, v, 8, 10 * MS, 1.0, BURSTS_THRESHOLD, &f);
	assert_int_equal(f.late, 1);
	assert_float_equal(f.peak, 10000, 1e-6);
	assert_float_equal(f.mean, 5600 * 1e9 / (110 * MS), 1e-6);
	/* Two runs of 30 ms each side of the late interval, not one of 110 ms. */
	assert_int_equal(f.nruns, 2);
	assert_int_equal(f.longest.t1 - f.longest.t0, 30 * MS);
	assert_int_equal(f.longest.t0, BASE);
	/* Without an interval (0), nothing is late: the 50 ms one is the peak. */
	bursts_series(t, v, 8, 0, 1.0, BURSTS_THRESHOLD, &f);
	assert_int_equal(f.late, 0);
	assert_float_equal(f.peak, 100000, 1e-6);
	assert_int_equal(f.peak_t0, BASE + 30 * MS);
}

/* Seven one-interval bursts with peaks 90, 100, 85, 95, 99, 81, 98 (x 1,000/s) over a
 * background of 100/s: all above 80 %; the top 5 are 90, 100, 95, 99, 98, in time order.
 * A series that never moves has no peak and no run. */
static void
test_top(void **state)
{
	uint64_t t[71], v[71], d[71];
	const uint64_t peaks[7] = {900, 1000, 850, 950, 990, 810, 980};
	struct bursts_figures f;

	(void)state;
	for (size_t i = 0; i < 71; i++)
		d[i] = i % 10 == 5 ? peaks[i / 10] : 1;
	make(t, v, d, 71, 10 * MS);
	bursts_series(t, v, 71, 10 * MS, 1.0, BURSTS_THRESHOLD, &f);
	assert_int_equal(f.nruns, 7);
	assert_int_equal(f.ntop, 5);
	assert_float_equal(f.top[0].peak, 90000, 1e-6);
	assert_float_equal(f.top[1].peak, 100000, 1e-6);
	assert_float_equal(f.top[2].peak, 95000, 1e-6);
	assert_float_equal(f.top[3].peak, 99000, 1e-6);
	assert_float_equal(f.top[4].peak, 98000, 1e-6);
	assert_int_equal(f.top[4].t0, BASE + 640 * MS);
	for (size_t i = 0; i < 71; i++)
		v[i] = 7;
	bursts_series(t, v, 71, 10 * MS, 1.0, BURSTS_THRESHOLD, &f);
	assert_float_equal(f.peak, 0, 0);
	assert_int_equal(f.nruns, 0);
	assert_int_equal(f.ntop, 0);
}

/* A series of a block: name, source index, kind, unit, labels. */
static void
add_series(struct seriesblock *b, const char *name, unsigned src, const char *unit,
           const char *device, const char *field, const char *type, int queue, int cpu, int dir,
           const uint64_t *vals)
{
	struct series_labels l = SERIES_LABELS_NONE;
	series_id id;

	if (device != NULL)
		l.device = series_atom_intern(&b->reg, device, strlen(device));
	if (field != NULL)
		l.field = series_atom_intern(&b->reg, field, strlen(field));
	if (type != NULL)
		l.type = series_atom_intern(&b->reg, type, strlen(type));
	l.queue = queue;
	l.cpu = (int16_t)cpu;
	l.dir = (uint8_t)dir;
	id =
	    series_intern(&b->reg, name, strlen(name), SERIES_COUNTER, (uint8_t)src, unit, 1.0, &l);
	b->v = xreallocarray(b->v, b->reg.n, sizeof(*b->v));
	b->v[id] = xmalloc(b->src[src].n * sizeof(uint64_t));
	memcpy(b->v[id], vals, b->src[src].n * sizeof(uint64_t));
}

/* A block of sources link, queues, softnet, softirqs, snmp, 101 records each every 10 ms:
 * vB rx 1 pkt per 10 ms with a 20 ms burst of 1,000 per 10 ms at 300 ms; its queue 2 the
 * same; CPU 1's softnet and NET_RX the same; a link error counter and an SNMP counter that
 * move (not burst figures' series); tx that never moves (left out). */
static struct seriesblock *
make_block(void)
{
	static const char *const names[] = {"link", "queues", "softnet", "softirqs", "snmp"};
	struct seriesblock *b = xcalloc(1, sizeof(*b));
	uint64_t v[101], zero[101] = {0}, d[101];

	series_registry_init(&b->reg);
	b->t0 = BASE;
	b->t1 = BASE + SEC;
	b->mono_to_real = M2R;
	b->nsrc = 5;
	b->src = xcalloc(5, sizeof(*b->src));
	for (size_t s = 0; s < 5; s++) {
		b->src[s].name = xstrdup(names[s]);
		b->src[s].interval_ms = 10;
		b->src[s].step_k = 1;
		b->src[s].n = 101;
		b->src[s].t = xmalloc(101 * sizeof(uint64_t));
		for (size_t i = 0; i < 101; i++)
			b->src[s].t[i] = BASE + i * 10 * MS;
		series_registry_name_source(&b->reg, (uint8_t)s, names[s]);
	}
	for (size_t i = 0; i < 101; i++)
		d[i] = i == 31 || i == 32 ? 1000 : 1;
	make(b->src[0].t, v, d, 101, 10 * MS);
	add_series(b, "link.vB.rx_packets", 0, "packets", "vB", "rx_packets", NULL, -1, -1,
	           SERIES_DIR_RX, v);
	add_series(b, "link.vB.tx_packets", 0, "packets", "vB", "tx_packets", NULL, -1, -1,
	           SERIES_DIR_TX, zero);
	add_series(b, "link.vB.rx_errors", 0, "errors", "vB", "rx_errors", NULL, -1, -1,
	           SERIES_DIR_RX, v);
	add_series(b, "queue.vB.rx2.packets", 1, "packets", "vB", "packets", NULL, 2, -1,
	           SERIES_DIR_RX, v);
	add_series(b, "softnet.cpu1.processed", 2, "packets", NULL, "processed", NULL, -1, 1, 0, v);
	add_series(b, "softirq.NET_RX.cpu1", 3, "softirqs", NULL, NULL, "NET_RX", -1, 1, 0, v);
	add_series(b, "softirq.TIMER.cpu1", 3, "softirqs", NULL, NULL, "TIMER", -1, 1, 0, v);
	add_series(b, "snmp.Udp.InDatagrams", 4, "packets", NULL, "InDatagrams", NULL, -1, -1, 0,
	           v);
	return b;
}

/* The member key of o as a string ("" when absent). */
static const char *
str(json_object *o, const char *key)
{
	return json_get_string(o, key, "");
}

/* The report's object from the block: four series (device, queue, two CPU), each with its
 * peak, its time in wall-clock and from the start, its ratio and its burst; the window's
 * top with their series; nothing for a block without such series. */
static void
test_json(void **state)
{
	struct seriesblock *b = make_block();
	json_object *j, *series, *e, *top, *bu;
	const struct seriesblock *bv[2];

	(void)state;

	assert_int_equal(bursts_src_blocks(b, NULL, bv), 1);
	assert_ptr_equal(bv[0], b);
	j = bursts_json_blocks(bv, 1, b->t0, b->t1, BURSTS_THRESHOLD, 0);
	assert_non_null(j);
	assert_float_equal(json_get_double(j, "threshold", 0), 0.8, 1e-12);
	assert_int_equal(json_get_int(j, "late_factor", 0), 2);
	series = json_object_object_get(j, "series");
	assert_int_equal(json_object_array_length(series), 4);
	e = json_object_array_get_idx(series, 0);
	assert_string_equal(str(e, "series"), "link.vB.rx_packets");
	assert_string_equal(str(e, "kind"), "device");
	assert_string_equal(str(e, "device"), "vB");
	assert_string_equal(str(e, "direction"), "rx");
	assert_string_equal(str(e, "what"), "rx_packets");
	assert_float_equal(json_get_double(e, "peak", 0), 100000, 1e-6);
	assert_float_equal(json_get_double(e, "mean", 0), 2098, 1e-6);
	assert_float_equal(json_get_double(e, "peak_to_mean", 0), 100000.0 / 2098, 1e-9);
	assert_string_equal(str(e, "peak_at"), "2023-11-14T22:30:00.300Z");
	assert_float_equal(json_get_double(e, "peak_offset_s", 0), 0.3, 1e-9);
	assert_float_equal(json_get_double(e, "peak_interval_ms", 0), 10, 1e-9);
	assert_float_equal(json_get_double(e, "longest_run_s", 0), 0.02, 1e-9);
	assert_float_equal(json_get_double(e, "interval_ms", 0), 10, 1e-9);
	assert_int_equal(json_get_int(e, "intervals", 0), 100);
	assert_int_equal(json_get_int(e, "late", -1), 0);
	bu = json_object_object_get(e, "bursts");
	assert_int_equal(json_object_array_length(bu), 1);
	assert_string_equal(str(json_object_array_get_idx(bu, 0), "start"),
	                    "2023-11-14T22:30:00.300Z");
	assert_float_equal(json_get_double(json_object_array_get_idx(bu, 0), "duration_s", 0), 0.02,
	                   1e-9);
	e = json_object_array_get_idx(series, 1);
	assert_string_equal(str(e, "kind"), "queue");
	assert_int_equal(json_get_int(e, "queue", -1), 2);
	e = json_object_array_get_idx(series, 2);
	assert_string_equal(str(e, "series"), "softnet.cpu1.processed");
	assert_string_equal(str(e, "kind"), "cpu");
	assert_int_equal(json_get_int(e, "cpu", -1), 1);
	e = json_object_array_get_idx(series, 3);
	assert_string_equal(str(e, "what"), "NET_RX");
	/* The top: the packets' bursts (not NET_RX's softirqs), by peak; equal peaks in the
	 * order of the series. */
	top = json_object_object_get(j, "top");
	assert_int_equal(json_object_array_length(top), 3);
	assert_string_equal(str(json_object_array_get_idx(top, 1), "series"),
	                    "queue.vB.rx2.packets");
	assert_string_equal(str(json_object_array_get_idx(top, 2), "series"),
	                    "softnet.cpu1.processed");
	assert_string_equal(str(json_object_array_get_idx(top, 0), "series"), "link.vB.rx_packets");
	assert_float_equal(json_get_double(json_object_array_get_idx(top, 0), "peak_to_mean", 0),
	                   100000.0 / 2098, 1e-9);
	json_object_put(j);
	/* Over the first 200 ms only, the burst is not in the span. */
	j = bursts_json(b, b->t0, BASE + 200 * MS, BURSTS_THRESHOLD);
	e = json_object_array_get_idx(json_object_object_get(j, "series"), 0);
	assert_float_equal(json_get_double(e, "peak", 0), 100, 1e-6);
	assert_float_equal(json_get_double(e, "peak_to_mean", 0), 1, 1e-9);
	json_object_put(j);
	assert_null(bursts_json(NULL, 0, 0, BURSTS_THRESHOLD));
	seriesblock_free(b);
}

/* The fine history's block first, the main ring's for what it lacks: each series once, a
 * fine source's from the fine block (its 10 ms interval, not the main block's 1 s), a source
 * the fine block has no records of (softirqs) from the main block. */
static void
test_blocks_finest_first(void **state)
{
	struct seriesblock *main = make_block(), *fine = make_block();
	const struct seriesblock *bv[2];
	json_object *j, *series;
	size_t n;
	bool net_rx = false;

	(void)state;
	for (size_t s = 0; s < main->nsrc; s++)
		main->src[s].interval_ms = 1000;
	fine->src[3].n = 0; /* softirqs: not a fine source */
	assert_int_equal(bursts_src_blocks(main, fine, bv), 2);
	assert_ptr_equal(bv[0], fine);
	assert_ptr_equal(bv[1], main);
	j = bursts_json_blocks(bv, 2, main->t0, main->t1, BURSTS_THRESHOLD, 0);
	assert_non_null(j);
	series = json_object_object_get(j, "series");
	n = json_object_array_length(series);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(series, i);
		if (strcmp(str(e, "series"), "softirq.NET_RX.cpu1") == 0) {
			net_rx = true;
			assert_float_equal(json_get_double(e, "interval_ms", 0), 1000, 1e-9);
		} else
			assert_float_equal(json_get_double(e, "interval_ms", 0), 10, 1e-9);
	}
	assert_true(net_rx);
	json_object_put(j);
	seriesblock_free(main);
	seriesblock_free(fine);
}

/* The 144-queue, 144-CPU host's size: device eth0 (4 series), 144 rx and 144 tx queues,
 * 144 CPUs' softnet processed and NET_RX, 10 s at 10 ms, each series with 5 bursts (peaks
 * of its own, a permutation: series k of the 576 non-device ones peaks at 1000 + (37 k mod
 * 576) per 10 ms, 100x that per second). Uncapped: 580 series, over 600 KB. At [bursts]
 * max_series' default (48): the 4 device series and the 48 of the highest peaks, in their
 * order, ~100 KB at most; bursts_omitted 528; the window's top the same as uncapped. */
#define HOST_N   1001 /* records: 10 s at 10 ms */
#define HOST_Q   144
#define HOST_ALL (4 + 4 * HOST_Q)
static void
test_cap_host_size(void **state)
{
	static const char *const names[] = {"link", "queues", "softnet", "softirqs"};
	struct seriesblock *b = xcalloc(1, sizeof(*b));
	const struct seriesblock *bv[1] = {b};
	uint64_t *v = xmalloc(HOST_N * sizeof(uint64_t)), *d = xmalloc(HOST_N * sizeof(uint64_t));
	json_object *j, *series, *top_all, *top;
	size_t k = 0, len_all, len;
	char name[64];

	(void)state;
	series_registry_init(&b->reg);
	b->t0 = BASE;
	b->t1 = BASE + 10 * SEC;
	b->mono_to_real = M2R;
	b->nsrc = 4;
	b->src = xcalloc(4, sizeof(*b->src));
	for (size_t s = 0; s < 4; s++) {
		b->src[s].name = xstrdup(names[s]);
		b->src[s].interval_ms = 10;
		b->src[s].step_k = 1;
		b->src[s].n = HOST_N;
		b->src[s].t = xmalloc(HOST_N * sizeof(uint64_t));
		for (size_t i = 0; i < HOST_N; i++)
			b->src[s].t[i] = BASE + i * 10 * MS;
		series_registry_name_source(&b->reg, (uint8_t)s, names[s]);
	}
	/* The device: 5 bursts of 100,000 per 10 ms. */
	for (size_t i = 0; i < HOST_N; i++)
		d[i] = i % 200 == 100 ? 100000 + i : 50;
	make(b->src[0].t, v, d, HOST_N, 10 * MS);
	add_series(b, "link.eth0.rx_packets", 0, "packets", "eth0", "rx_packets", NULL, -1, -1,
	           SERIES_DIR_RX, v);
	add_series(b, "link.eth0.tx_packets", 0, "packets", "eth0", "tx_packets", NULL, -1, -1,
	           SERIES_DIR_TX, v);
	add_series(b, "link.eth0.rx_bytes", 0, "bytes", "eth0", "rx_bytes", NULL, -1, -1,
	           SERIES_DIR_RX, v);
	add_series(b, "link.eth0.tx_bytes", 0, "bytes", "eth0", "tx_bytes", NULL, -1, -1,
	           SERIES_DIR_TX, v);
	for (int kind = 0; kind < 4; kind++)
		for (int q = 0; q < HOST_Q; q++, k++) {
			/* Five bursts, each a little higher, of this series' own height. */
			for (size_t i = 0; i < HOST_N; i++)
				d[i] = i % 200 == 100 ? 1000 + (37 * k) % 576 + i / 200 : 1;
			make(b->src[0].t, v, d, HOST_N, 10 * MS);
			if (kind < 2) {
				snprintf(name, sizeof(name), "queue.eth0.%s%d.packets",
				         kind == 0 ? "rx" : "tx", q);
				add_series(b, name, 1, "packets", "eth0", "packets", NULL, q, -1,
				           kind == 0 ? SERIES_DIR_RX : SERIES_DIR_TX, v);
			} else if (kind == 2) {
				snprintf(name, sizeof(name), "softnet.cpu%d.processed", q);
				add_series(b, name, 2, "packets", NULL, "processed", NULL, -1, q, 0,
				           v);
			} else {
				snprintf(name, sizeof(name), "softirq.NET_RX.cpu%d", q);
				add_series(b, name, 3, "softirqs", NULL, NULL, "NET_RX", -1, q, 0,
				           v);
			}
		}

	j = bursts_json_blocks(bv, 1, b->t0, b->t1, BURSTS_THRESHOLD, 0);
	assert_non_null(j);
	len_all = strlen(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	assert_int_equal(json_object_array_length(json_object_object_get(j, "series")), HOST_ALL);
	assert_int_equal(json_get_int(j, "bursts_omitted", -1), 0);
	assert_true(len_all > 600000);
	top_all = json_object_get(json_object_object_get(j, "top"));
	json_object_put(j);

	j = bursts_json_blocks(bv, 1, b->t0, b->t1, BURSTS_THRESHOLD, CONFIG_BURSTS_MAX_SERIES);
	len = strlen(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	printf("bursts of the 144-queue host: %zu series %zu bytes; capped at %d: %zu bytes\n",
	       (size_t)HOST_ALL, len_all, CONFIG_BURSTS_MAX_SERIES, len);
	assert_true(len <= 100000);
	assert_int_equal(json_get_int(j, "max_series", -1), CONFIG_BURSTS_MAX_SERIES);
	assert_int_equal(json_get_int(j, "bursts_omitted", -1),
	                 4 * HOST_Q - CONFIG_BURSTS_MAX_SERIES);
	series = json_object_object_get(j, "series");
	assert_int_equal(json_object_array_length(series), 4 + CONFIG_BURSTS_MAX_SERIES);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(str(json_object_array_get_idx(series, i), "kind"), "device");
	/* The others: those of the 48 highest peaks (37 k mod 576 >= 528), in their order. */
	k = 0;
	for (size_t i = 4; i < 4 + CONFIG_BURSTS_MAX_SERIES; i++) {
		json_object *e = json_object_array_get_idx(series, i);
		size_t at;
		while ((37 * k) % 576 < 576 - CONFIG_BURSTS_MAX_SERIES)
			k++;
		at = k++;
		if (at < 2 * HOST_Q)
			snprintf(name, sizeof(name), "queue.eth0.%s%zu.packets",
			         at < HOST_Q ? "rx" : "tx", at % HOST_Q);
		else if (at < 3 * HOST_Q)
			snprintf(name, sizeof(name), "softnet.cpu%zu.processed", at % HOST_Q);
		else
			snprintf(name, sizeof(name), "softirq.NET_RX.cpu%zu", at % HOST_Q);
		assert_string_equal(str(e, "series"), name);
		assert_float_equal(json_get_double(e, "peak", 0),
		                   (1000.0 + (37 * at) % 576 + 4) * 100, 1e-6);
	}
	/* The window's top is made before the cap: the same. */
	top = json_object_object_get(j, "top");
	assert_int_equal(json_object_array_length(top), BURSTS_TOP);
	assert_true(json_object_equal(top, top_all));
	json_object_put(top_all);
	json_object_put(j);
	free(v);
	free(d);
	seriesblock_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_steady),        cmocka_unit_test(test_one_burst),
	    cmocka_unit_test(test_real_times),    cmocka_unit_test(test_late),
	    cmocka_unit_test(test_edge_samples),  cmocka_unit_test(test_top),
	    cmocka_unit_test(test_json),          cmocka_unit_test(test_blocks_finest_first),
	    cmocka_unit_test(test_cap_host_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
