/* test-seriesblock.c: the series block kept with a result: encode and decode give back every
 * time, value, name and label; a query over a block gives the rates of its records; a long
 * source is downsampled to at most SERIESBLOCK_MAX_POINTS records, its step recorded; damaged
 * bytes (every truncation, flipped bytes) are refused with a message, never read past; times
 * and counts out of range (a base time of 2^63 + 5) are refused before any arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "error.h"
#include "query.h"
#include "series.h"
#include "seriesblock.h"
#include "xmalloc.h"

#define SEC    1000000000ull
#define M2R    1700000000000000000ll /* mono -> epoch ns */
#define T_BASE (1000 * SEC)

/* A block of two sources: "link" every second (n records, a counter at 1000/s and a gauge
 * going up by 3 a record), "cpu" every 2 s (a counter with a scale of 0.01). */
static struct seriesblock *
make_block(size_t n)
{
	struct seriesblock *b = xcalloc(1, sizeof(*b));
	struct series_labels l = SERIES_LABELS_NONE;
	series_id a, g, c;

	series_registry_init(&b->reg);
	b->t0 = T_BASE;
	b->t1 = T_BASE + (n - 1) * SEC;
	b->mono_to_real = M2R;
	b->nsrc = 2;
	b->src = xcalloc(2, sizeof(*b->src));
	b->src[0] =
	    (struct seriesblock_source){xstrdup("link"), 1000, 1, T_BASE - 5 * SEC, n, NULL};
	b->src[1] =
	    (struct seriesblock_source){xstrdup("cpu"), 2000, 1, T_BASE - 5 * SEC, n / 2, NULL};
	series_registry_name_source(&b->reg, 0, "link");
	series_registry_name_source(&b->reg, 1, "cpu");
	l.device = series_atom_intern(&b->reg, "eth\"0<x>", 8);
	l.field = series_atom_intern(&b->reg, "tx_packets", 10);
	l.dir = SERIES_DIR_TX;
	a = series_intern(&b->reg, "link.eth\"0<x>.tx_packets", 24, SERIES_COUNTER, 0, "packets",
	                  1.0, &l);
	g = series_intern(&b->reg, "link.level", 10, SERIES_GAUGE, 0, "value", 1.0, NULL);
	l = SERIES_LABELS_NONE;
	l.cpu = 3;
	l.mode = series_atom_intern(&b->reg, "user", 4);
	c = series_intern(&b->reg, "cpu.3.user", 10, SERIES_COUNTER, 1, "s", 0.01, &l);
	b->v = xcalloc(3, sizeof(*b->v));
	b->src[0].t = xcalloc(n, sizeof(uint64_t));
	b->src[1].t = xcalloc(n / 2, sizeof(uint64_t));
	b->v[a] = xcalloc(n, sizeof(uint64_t));
	b->v[g] = xcalloc(n, sizeof(uint64_t));
	b->v[c] = xcalloc(n / 2, sizeof(uint64_t));
	for (size_t i = 0; i < n; i++) {
		b->src[0].t[i] = T_BASE + i * SEC + (i % 3) * 1000; /* a little jitter */
		b->v[a][i] = 5000000000ull + 1000 * i;
		b->v[g][i] = (uint64_t)(int64_t)(3 * (int64_t)i - 50);
	}
	for (size_t i = 0; i < n / 2; i++) {
		b->src[1].t[i] = T_BASE + 2 * i * SEC + 500;
		b->v[c][i] = 150 * i;
	}
	return b;
}

static void
assert_same(const struct seriesblock *x, const struct seriesblock *y)
{
	assert_int_equal(x->t0, y->t0);
	assert_int_equal(x->t1, y->t1);
	assert_int_equal(x->nsrc, y->nsrc);
	for (size_t s = 0; s < x->nsrc; s++) {
		assert_string_equal(x->src[s].name, y->src[s].name);
		assert_int_equal(x->src[s].interval_ms, y->src[s].interval_ms);
		assert_int_equal(x->src[s].step_k, y->src[s].step_k);
		assert_int_equal(x->src[s].first_t, y->src[s].first_t);
		assert_int_equal(x->src[s].n, y->src[s].n);
		assert_memory_equal(x->src[s].t, y->src[s].t, x->src[s].n * sizeof(uint64_t));
	}
	assert_int_equal(x->reg.n, y->reg.n);
	for (series_id id = 0; id < x->reg.n; id++) {
		const struct series_info *a = series_get(&x->reg, id), *b = series_get(&y->reg, id);
		struct series_labels la = series_labels_of(&x->reg, id),
		                     lb = series_labels_of(&y->reg, id);

		assert_string_equal(a->name, b->name);
		assert_string_equal(a->unit, b->unit);
		assert_int_equal(a->kind, b->kind);
		assert_int_equal(a->source, b->source);
		assert_true(a->scale == b->scale);
		assert_string_equal(series_atom_str(&x->reg, la.device),
		                    series_atom_str(&y->reg, lb.device));
		assert_string_equal(series_atom_str(&x->reg, la.mode),
		                    series_atom_str(&y->reg, lb.mode));
		assert_string_equal(series_atom_str(&x->reg, la.field),
		                    series_atom_str(&y->reg, lb.field));
		assert_int_equal(la.cpu, lb.cpu);
		assert_int_equal(la.dir, lb.dir);
		assert_string_equal(series_source_name(&x->reg, id),
		                    series_source_name(&y->reg, id));
		assert_memory_equal(x->v[id], y->v[id], x->src[a->source].n * sizeof(uint64_t));
	}
}

static void
test_roundtrip(void **state)
{
	struct seriesblock *b = make_block(600), *d;
	struct nm_error err;
	uint8_t *buf;
	size_t len;

	(void)state;
	assert_int_equal(seriesblock_encode(b, &buf, &len, &err), 0);
	/* Steady rates cost next to nothing: 900 records of three series. */
	assert_true(len < 2000);
	d = seriesblock_decode(buf, len, M2R, &err);
	assert_non_null(d);
	assert_same(b, d);
	seriesblock_free(d);
	/* Another daemon's clock: the same epoch times, other CLOCK_MONOTONIC ones. */
	d = seriesblock_decode(buf, len, M2R + 7 * SEC, &err);
	assert_non_null(d);
	assert_int_equal(d->t0, b->t0 - 7 * SEC);
	assert_int_equal(d->src[1].t[5], b->src[1].t[5] - 7 * SEC);
	seriesblock_free(d);
	free(buf);
	seriesblock_free(b);
}

/* A query over a block: the rate of each step from the records at its edges. */
static void
test_query(void **state)
{
	struct seriesblock *b = make_block(60);
	struct query *q = query_new_block(NULL, b);
	const struct series_registry *reg = query_registry(q);
	series_id a = series_find(reg, "link.eth\"0<x>.tx_packets");
	series_id g = series_find(reg, "link.level"), c = series_find(reg, "cpu.3.user");
	series_id *ids = NULL;
	size_t cap = 0;
	uint64_t lo, hi, t0, t1;
	struct nm_error err;

	(void)state;
	assert_int_equal(query_bounds(q, &lo, &hi), 0);
	assert_int_equal(lo, b->t0);
	assert_int_equal(hi, b->t1);
	assert_int_equal(query_interval_ms(q, 1), 2000);
	assert_int_equal(query_match(q, "link.*", false, &ids, &cap), 2);
	free(ids);
	/* Records 10 and 20 of link (jitter 1000 and 2000 ns), 5 and 10 of cpu. */
	assert_int_equal(query_span(q, T_BASE + 10 * SEC + 1500, T_BASE + 20 * SEC + 2500, &err),
	                 0);
	assert_int_equal(query_delta(q, a), 10000);
	assert_true(query_seconds(q, 0) == (double)(10 * SEC + 1000) / 1e9);
	assert_true(query_rate(q, a) == 10000 / ((double)(10 * SEC + 1000) / 1e9));
	assert_true(query_delta_scaled(q, g) == 30);
	assert_true(query_value_end(q, g) == 10);
	assert_true(query_rate(q, c) == 750 * 0.01 / 10);
	/* Clamped to the block. */
	assert_int_equal(query_span(q, 0, UINT64_MAX, &err), 0);
	assert_int_equal(query_t0(q), b->t0);
	assert_int_equal(query_t1(q), b->t1);
	/* Aligned half an interval from the beat of link's records. */
	t0 = b->t0;
	t1 = b->t1;
	query_align(q, a, &t0, &t1);
	assert_in_range(t0 % SEC, SEC / 2, SEC / 2 + 2000);
	assert_in_range(t1 % SEC, SEC / 2, SEC / 2 + 2000);
	query_free(q);
	seriesblock_free(b);
}

/* 7,300 records of link: every 3rd kept (the last is one of them); the interval 3 s. */
static void
test_downsample(void **state)
{
	struct seriesblock *b = make_block(7300), *d;
	uint64_t last_t = b->src[0].t[7299], last_v = b->v[0][7299], t3 = b->src[0].t[3];
	struct nm_error err;
	uint8_t *buf;
	size_t len;

	(void)state;
	assert_int_equal(seriesblock_encode(b, &buf, &len, &err), 0);
	d = seriesblock_decode(buf, len, M2R, &err);
	assert_non_null(d);
	assert_int_equal(d->src[0].n, 2434); /* 0, 3, ..., 7299 */
	assert_int_equal(d->src[0].step_k, 3);
	assert_int_equal(d->src[0].interval_ms, 3000);
	assert_int_equal(d->src[0].t[1], t3);
	assert_int_equal(d->src[0].t[d->src[0].n - 1], last_t);
	assert_int_equal(d->v[0][d->src[0].n - 1], last_v);
	assert_int_equal(d->v[0][1], 5000000000ull + 3000);
	/* cpu had 3,650: every 2nd. */
	assert_int_equal(d->src[1].step_k, 2);
	assert_true(d->src[1].n <= SERIESBLOCK_MAX_POINTS);
	seriesblock_free(d);
	free(buf);
	seriesblock_free(b);
}

/* Every truncation and a flipped byte at each place: refused or whole, never a crash (the
 * sanitizers watch the reads). */
static void
test_damaged(void **state)
{
	struct seriesblock *b = make_block(40), *d;
	struct nm_error err;
	uint8_t *buf, *bad;
	size_t len, refused = 0;

	(void)state;
	assert_int_equal(seriesblock_encode(b, &buf, &len, &err), 0);
	bad = xmalloc(len);
	for (size_t n = 0; n < len; n++) {
		memcpy(bad, buf, n);
		d = seriesblock_decode(bad, n, M2R, &err);
		assert_null(d);
		assert_true(strncmp(err.message, "series block: ", 14) == 0);
	}
	for (size_t i = 0; i < len; i++) {
		memcpy(bad, buf, len);
		bad[i] ^= 0x5a;
		if ((d = seriesblock_decode(bad, len, M2R, &err)) == NULL)
			refused++;
		seriesblock_free(d);
	}
	assert_true(refused >= len - 2);
	/* A payload length that lies. */
	memcpy(bad, buf, len);
	bad[9] = 0xff;
	bad[16] = 0x7f;
	assert_null(seriesblock_decode(bad, len, M2R, &err));
	assert_string_equal(err.message, "series block: too large");
	memcpy(bad, buf, len);
	bad[8] = 9;
	assert_null(seriesblock_decode(bad, len, M2R, &err));
	assert_string_equal(err.message, "series block: version 9 unknown");
	free(bad);
	free(buf);
	seriesblock_free(b);
}

/* The payload past zlib's check: every truncation refused, bytes flipped anywhere refused or
 * read whole, never past its end (the sanitizers watch). */
static void
test_damaged_payload(void **state)
{
	struct seriesblock *b = make_block(40), *d;
	struct nm_error err;
	uint8_t *buf, *pl, *bad;
	size_t len, plen = 0;
	uLongf got;

	(void)state;
	assert_int_equal(seriesblock_encode(b, &buf, &len, &err), 0);
	for (int i = 0; i < 8; i++)
		plen |= (size_t)buf[9 + i] << (8 * i);
	pl = xmalloc(plen);
	got = plen;
	assert_int_equal(uncompress(pl, &got, buf + 17, len - 17), Z_OK);
	d = seriesblock_parse(pl, plen, M2R, &err);
	assert_non_null(d);
	assert_same(b, d);
	seriesblock_free(d);
	for (size_t n = 0; n < plen; n++) {
		/* Exactly n bytes on the heap: a read past them is caught. */
		bad = xmalloc(n ? n : 1);
		memcpy(bad, pl, n);
		assert_null(seriesblock_parse(bad, n, M2R, &err));
		free(bad);
	}
	bad = xmalloc(plen);
	for (size_t i = 0; i < plen; i++)
		for (unsigned v = 0; v < 256; v += 85) {
			memcpy(bad, pl, plen);
			bad[i] = (uint8_t)(v == 0 ? 0x80 : v);
			seriesblock_free(seriesblock_parse(bad, plen, M2R, &err));
		}
	free(bad);
	free(pl);
	free(buf);
	seriesblock_free(b);
}

/* The numbers of a payload made by hand: one source "link" of two records (times first and
 * first + dt), one counter series with labels irq, queue, cpu and dir. */
struct hand {
	uint64_t base, span, interval, step_k, first_t, first, dt, dir;
	int64_t irq, queue, cpu;
};

#define HAND_OK                                                                                    \
	{                                                                                          \
		.base = 1700000100 * SEC, .span = 10 * SEC, .interval = 1000, .step_k = 1,         \
		.first_t = 1700000000 * SEC, .first = 1700000099 * SEC, .dt = 11 * SEC, .irq = -1, \
		.queue = 3, .cpu = 7, .dir = SERIES_DIR_TX                                         \
	}

static size_t
hand_uv(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static size_t
hand_zz(uint8_t *p, int64_t v)
{
	return hand_uv(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static size_t
hand_str(uint8_t *p, const char *s)
{
	size_t n = hand_uv(p, strlen(s));

	memcpy(p + n, s, strlen(s));
	return n + strlen(s);
}

/* The payload of h into out (256 bytes are plenty); its length. */
static size_t
hand_payload(const struct hand *h, uint8_t *out)
{
	size_t n = 0;
	double scale = 1.0;
	uint64_t bits;

	memcpy(&bits, &scale, sizeof(bits));
	n += hand_uv(out + n, h->base);
	n += hand_uv(out + n, h->span);
	n += hand_uv(out + n, 1); /* sources */
	n += hand_str(out + n, "link");
	n += hand_uv(out + n, h->interval);
	n += hand_uv(out + n, h->step_k);
	n += hand_uv(out + n, h->first_t);
	n += hand_uv(out + n, 2); /* records */
	n += hand_uv(out + n, h->first);
	n += hand_uv(out + n, h->dt);
	n += hand_uv(out + n, 1); /* series */
	n += hand_str(out + n, "link.eth0.tx_packets");
	n += hand_str(out + n, "packets");
	n += hand_uv(out + n, SERIES_COUNTER);
	n += hand_uv(out + n, 0); /* its source */
	n += hand_uv(out + n, bits);
	n += hand_str(out + n, "eth0");
	for (int i = 0; i < 4; i++)
		n += hand_str(out + n, ""); /* type, mode, table, field */
	n += hand_zz(out + n, h->irq);
	n += hand_zz(out + n, h->queue);
	n += hand_zz(out + n, h->cpu);
	n += hand_uv(out + n, h->dir);
	n += hand_uv(out + n, 5000); /* the values: 5000, then 5000 + 0 */
	n += hand_zz(out + n, 0);
	return n;
}

/* h's payload as a file's bytes (new, *len). */
static uint8_t *
hand_file(const struct hand *h, size_t *len)
{
	uint8_t pl[256], *buf;
	size_t plen = hand_payload(h, pl);
	uLongf zlen = compressBound(plen);

	buf = xmalloc(17 + zlen);
	memcpy(buf, "NMSERIES", 8);
	buf[8] = 1;
	for (int i = 0; i < 8; i++)
		buf[9 + i] = (uint8_t)((uint64_t)plen >> (8 * i));
	assert_int_equal(compress2(buf + 17, &zlen, pl, plen, 6), Z_OK);
	*len = 17 + zlen;
	return buf;
}

/* h refused, as a payload and as a file, with the message why. */
static void
assert_hand_refused(const struct hand *h, const char *why)
{
	uint8_t pl[256], *buf;
	size_t plen = hand_payload(h, pl), len;
	struct nm_error err;

	assert_null(seriesblock_parse(pl, plen, M2R, &err));
	assert_string_equal(err.message, why);
	buf = hand_file(h, &len);
	assert_null(seriesblock_decode(buf, len, M2R, &err));
	assert_string_equal(err.message, why);
	free(buf);
}

/* Times and counts read from a block are range-checked before any arithmetic: a base time of
 * 2^63 + 5 (which wrapped into times before 1970 and overflowed int64_t on the way), a span,
 * a first time or a record time past 2^62 ns (2116), a difference that wraps, an interval
 * or step past 32 bits, labels that narrowing would wrap (cpu 65535 became -1): each block
 * refused with its reason, never served. The same numbers in range read back exactly. */
static void
test_untrusted_numbers(void **state)
{
	const struct hand ok = HAND_OK;
	struct hand h;
	struct seriesblock *d;
	struct nm_error err;
	uint8_t *buf;
	size_t len;

	(void)state;
	buf = hand_file(&ok, &len);
	d = seriesblock_decode(buf, len, M2R, &err);
	free(buf);
	assert_non_null(d);
	assert_int_equal(d->t0, ok.base - M2R);
	assert_int_equal(d->t1, ok.base - M2R + ok.span);
	assert_int_equal(d->src[0].first_t, ok.first_t - M2R);
	assert_int_equal(d->src[0].t[0], ok.first - M2R);
	assert_int_equal(d->src[0].t[1], ok.first + ok.dt - M2R);
	assert_int_equal(d->src[0].interval_ms, 1000);
	assert_int_equal(series_labels_of(&d->reg, 0).queue, 3);
	assert_int_equal(series_labels_of(&d->reg, 0).cpu, 7);
	seriesblock_free(d);

	h = ok;
	h.base = (UINT64_C(1) << 63) + 5;
	assert_hand_refused(&h, "series block: bad span (a time past the year 2116)");
	h = ok;
	h.base = UINT64_MAX;
	assert_hand_refused(&h, "series block: bad span (a time past the year 2116)");
	h = ok;
	h.span = UINT64_MAX - 3; /* t1 would wrap to before t0 */
	assert_hand_refused(&h, "series block: bad span (a time past the year 2116)");
	h = ok;
	h.first_t = (UINT64_C(1) << 63) + 5;
	assert_hand_refused(&h, "series block: bad first record time (past the year 2116)");
	h = ok;
	h.first = (UINT64_C(1) << 63) + 5;
	assert_hand_refused(&h,
	                    "series block: bad record times (out of order or past the year 2116)");
	h = ok;
	h.dt = UINT64_MAX - SEC; /* the second record's time wraps to before the first */
	assert_hand_refused(&h,
	                    "series block: bad record times (out of order or past the year 2116)");
	h = ok;
	h.dt = UINT64_C(1) << 62;
	assert_hand_refused(&h,
	                    "series block: bad record times (out of order or past the year 2116)");
	h = ok;
	h.interval = UINT64_C(1) << 32; /* was read as 0 */
	assert_hand_refused(&h, "series block: bad source interval");
	h = ok;
	h.step_k = (UINT64_C(1) << 32) + 1; /* was read as 1 */
	assert_hand_refused(&h, "series block: bad source interval");
	h = ok;
	h.cpu = 65535; /* was read as -1: no CPU */
	assert_hand_refused(&h, "series block: bad series");
	h = ok;
	h.irq = INT64_C(1) << 31;
	assert_hand_refused(&h, "series block: bad series");
	h = ok;
	h.queue = -2;
	assert_hand_refused(&h, "series block: bad series");
	h = ok;
	h.dir = 256 + SERIES_DIR_TX; /* was read as tx */
	assert_hand_refused(&h, "series block: bad series");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip),       cmocka_unit_test(test_query),
	    cmocka_unit_test(test_downsample),      cmocka_unit_test(test_damaged),
	    cmocka_unit_test(test_damaged_payload), cmocka_unit_test(test_untrusted_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
