/* test-ring.c: the time-series ring against a reference model of every value at every
 * record, seeking forwards and backwards; eviction; allocation and size in steady state. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ring.h"
#include "xmalloc.h"

#define NSRC     3
#define SEC      1000000000ull
#define MIB      ((size_t)1 << 20)
#define NO_DEATH UINT32_MAX

/* xorshift64*: a fixed seed gives the same run every time. */
static uint64_t rng_state;

static uint64_t
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static uint64_t
rnd_below(uint64_t n)
{
	return rnd() % n;
}

/* True with probability pct/100. */
static bool
chance(unsigned pct)
{
	return rnd_below(100) < pct;
}

enum kind {
	K_IDLE,         /* never moves; put or not */
	K_CONST,        /* a steady rate */
	K_RANDOM,       /* a new delta every record, of any size */
	K_SPORADIC,     /* mostly idle, now and then a burst */
	K_INTERMITTENT, /* a steady rate, but its source skips it now and then (moved 0) */
	K_GAUGE,        /* moves up and down */
	K_DOUBLE,       /* put twice in a record: moved by the sum */
	K_COUNT
};

/* How many in 100 series are of each kind. */
struct mix {
	unsigned pct[K_COUNT];
};

static const struct mix mix_normal = {{40, 25, 10, 10, 7, 5, 3}};
static const struct mix mix_busy = {{10, 15, 45, 10, 10, 5, 5}};

/* The reference: every series' true value after every record. */
struct model {
	size_t n, nrec, caprec;
	uint8_t *src, *kind;
	uint64_t *rate;
	uint32_t *birth, *death; /* record index of creation; last record put */
	uint64_t *acc;
	uint64_t *snap; /* snap[j * n + id]: acc after record j */
	uint64_t *rec_t;
	uint64_t (*src_k)[NSRC], (*src_t)[NSRC]; /* each source's k and time after record j */
	uint64_t k[NSRC], t[NSRC];
};

/* Series 0..n_early-1 exist from the start; the rest are born one by one, in id order, over
 * the first half of the run (some in the very record whose ring_begin did not count them). */
static void
model_init(struct model *m, size_t n, size_t n_early, size_t nrec, const struct mix *mix)
{
	memset(m, 0, sizeof(*m));
	m->n = n;
	m->caprec = nrec;
	m->src = xcalloc(n, 1);
	m->kind = xcalloc(n, 1);
	m->rate = xcalloc(n, sizeof(uint64_t));
	m->birth = xcalloc(n, sizeof(uint32_t));
	m->death = xcalloc(n, sizeof(uint32_t));
	m->acc = xcalloc(n, sizeof(uint64_t));
	m->snap = xcalloc(n * nrec, sizeof(uint64_t));
	m->rec_t = xcalloc(nrec, sizeof(uint64_t));
	m->src_k = xcalloc(nrec, sizeof(*m->src_k));
	m->src_t = xcalloc(nrec, sizeof(*m->src_t));
	for (size_t id = 0; id < n; id++) {
		unsigned r = (unsigned)rnd_below(100), k = 0;

		while (k + 1 < K_COUNT && r >= mix->pct[k])
			r -= mix->pct[k++];
		m->kind[id] = (uint8_t)k;
		m->src[id] = (uint8_t)rnd_below(NSRC);
		/* Rates of every size: 1-byte deltas up to 40-bit ones. */
		m->rate[id] = 1 + rnd_below(1ull << (1 + rnd_below(40)));
		m->birth[id] =
		    id < n_early ? 0 : (uint32_t)((id - n_early) * (nrec / 2) / (n - n_early));
		m->death[id] = chance(5) ? (uint32_t)rnd_below(nrec) : NO_DEATH;
	}
}

static void
model_free(struct model *m)
{
	free(m->src);
	free(m->kind);
	free(m->rate);
	free(m->birth);
	free(m->death);
	free(m->acc);
	free(m->snap);
	free(m->rec_t);
	free(m->src_k);
	free(m->src_t);
}

/* Put one series into the open record (maybe not, maybe twice) and follow its value. */
static void
model_put(struct model *m, struct ring *r, series_id id)
{
	uint64_t d, d2;

	switch (m->kind[id]) {
	case K_IDLE:
		if (chance(50))
			ring_put(r, id, 0);
		return;
	case K_CONST:
		d = m->rate[id];
		break;
	case K_RANDOM:
		d = rnd_below(1ull << rnd_below(64));
		if (chance(3))
			d = rnd(); /* any 64-bit value */
		break;
	case K_SPORADIC:
		if (!chance(5)) {
			if (chance(50))
				ring_put(r, id, 0);
			return;
		}
		d = 1 + rnd_below(1000);
		break;
	case K_INTERMITTENT:
		if (chance(20))
			return;
		d = m->rate[id];
		break;
	case K_GAUGE:
		d = (uint64_t)(int64_t)((int)rnd_below(201) - 100);
		break;
	case K_DOUBLE:
	default:
		d = rnd_below(50);
		d2 = chance(50) ? d : rnd_below(50);
		ring_put(r, id, d);
		ring_put(r, id, d2);
		m->acc[id] += d + d2;
		return;
	}
	ring_put(r, id, d);
	m->acc[id] += d;
}

/* One sample of source s at t, into the ring and the model. */
static void
model_record(struct model *m, struct ring *r, unsigned s, uint64_t t)
{
	size_t j = m->nrec, known = 0;

	assert_true(j < m->caprec);
	/* The registry as the sampler sees it at ring_begin: series born now come later. */
	while (known < m->n && m->birth[known] < j)
		known++;
	ring_begin(r, s, t, known);
	for (series_id id = 0; id < m->n && m->birth[id] <= j; id++)
		if (m->src[id] == s && j <= m->death[id])
			model_put(m, r, id);
	ring_end(r);
	m->k[s]++;
	m->t[s] = t;
	m->rec_t[j] = t;
	memcpy(m->src_k[j], m->k, sizeof(m->k));
	memcpy(m->src_t[j], m->t, sizeof(m->t));
	memcpy(m->snap + j * m->n, m->acc, m->n * sizeof(uint64_t));
	m->nrec++;
}

/* Run the three sources on their own intervals (with jitter) until nrec records; now and then
 * all three sample at the same instant (a mark). */
static void
model_run(struct model *m, struct ring *r)
{
	static const uint64_t interval[NSRC] = {1 * SEC, 1700 * SEC / 1000, 5 * SEC};
	uint64_t next[NSRC] = {10 * SEC, 10 * SEC + 123, 10 * SEC + 456};

	while (m->nrec + NSRC <= m->caprec) {
		unsigned s = 0;

		for (unsigned i = 1; i < NSRC; i++)
			if (next[i] < next[s])
				s = i;
		if (chance(2)) {
			uint64_t t = next[s];
			for (unsigned i = 0; i < NSRC; i++) {
				model_record(m, r, i, t);
				next[i] = t + interval[i] + rnd_below(SEC / 1000);
			}
			continue;
		}
		model_record(m, r, s, next[s]);
		next[s] += interval[s] + rnd_below(SEC / 1000) - SEC / 2000;
	}
}

/* The last record at or before t; -1 when none. */
static long
model_find(const struct model *m, uint64_t t)
{
	size_t lo = 0, hi = m->nrec;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->rec_t[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

static const char *const dir_name[] = {"auto", "forward", "backward"};

/* Compare everything c holds with the model's record j (c was sought to t, how). */
static void
check_values(const struct model *m, const struct ring_cursor *c, long j, uint64_t t,
             const char *how)
{
	for (unsigned s = 0; s < NSRC; s++) {
		assert_int_equal(ring_cursor_time(c, s), m->src_t[j][s]);
		assert_int_equal(ring_cursor_k(c, s), m->src_k[j][s]);
	}
	for (series_id id = 0; id < m->n + 10; id++) {
		uint64_t want = id < m->n ? m->snap[(size_t)j * m->n + id] : 0;
		uint64_t got = ring_cursor_value(c, id);

		if (got != want)
			fail_msg("%s seek to %llu (record %ld): series %u (kind %u, source "
			         "%u) is %llu, want %llu",
			         how, (unsigned long long)t, j, id, id < m->n ? m->kind[id] : 0,
			         id < m->n ? m->src[id] : 0, (unsigned long long)got,
			         (unsigned long long)want);
	}
}

/* Seek c to t in each direction and compare everything with the model. */
static void
check_at(const struct model *m, const struct ring *r, struct ring_cursor *c, uint64_t t)
{
	struct ring_stats st;
	long j = model_find(m, t);

	ring_get_stats(r, &st);
	for (int dir = RING_SEEK_AUTO; dir <= RING_SEEK_BACKWARD; dir++) {
		int rc = ring_cursor_seek_dir(c, t, (enum ring_seek_dir)dir);

		if (j < 0 || t < st.oldest_ns) {
			assert_int_equal(rc, -1);
			assert_int_equal(ring_cursor_value(c, 0), 0);
			continue;
		}
		assert_int_equal(rc, 0);
		check_values(m, c, j, t, dir_name[dir]);
	}
}

/* Walk one cursor forward over the kept span in random steps (under a second to over a
 * keyframe's span, now and then none), as series and trend do: each seek goes on from the
 * last one where it can, and must land where a fresh seek would. A step back now and then
 * must not go on from the later place. */
static void
check_steps(const struct model *m, const struct ring *r)
{
	struct ring_cursor *c = ring_cursor_new(r);
	struct ring_stats st;
	uint64_t t;

	ring_get_stats(r, &st);
	for (t = st.oldest_ns; t <= m->rec_t[m->nrec - 1] + SEC;) {
		long j = model_find(m, t);

		assert_int_equal(ring_cursor_seek(c, t), 0);
		check_values(m, c, j, t, "stepping");
		if (chance(5))
			t -= t - st.oldest_ns < 3 * SEC ? 0 : rnd_below(3 * SEC);
		else if (!chance(10))
			t += chance(20) ? rnd_below(90 * SEC) : rnd_below(2 * SEC);
	}
	ring_cursor_free(c);
}

/* Check 200 random times: exact record times, times between them, before and after. */
static void
check_random_times(const struct model *m, const struct ring *r, int ntimes)
{
	struct ring_cursor *c = ring_cursor_new(r);
	uint64_t t0 = m->rec_t[0], t1 = m->rec_t[m->nrec - 1];

	for (int i = 0; i < ntimes; i++) {
		uint64_t t;

		if (chance(40))
			t = m->rec_t[rnd_below(m->nrec)];
		else
			t = t0 - 2 * SEC + rnd_below(t1 - t0 + 4 * SEC);
		check_at(m, r, c, t);
	}
	check_at(m, r, c, t1);
	check_at(m, r, c, UINT64_MAX);
	ring_cursor_free(c);
	for (series_id id = 0; id < m->n; id++)
		assert_int_equal(ring_live_value(r, id), m->acc[id]);
	for (unsigned s = 0; s < NSRC; s++)
		assert_int_equal(ring_live_time(r, s), m->t[s]);
}

/* A ring big enough to keep everything, keyframes every minute: every time answers. */
static void
test_model(void **state)
{
	struct model m;
	struct ring *r = ring_new(16 * MIB, NSRC, 60 * SEC);
	struct ring_stats st;

	(void)state;
	rng_state = 0x9e3779b97f4a7c15ull;
	model_init(&m, 5000, 4000, 1200, &mix_normal);
	model_run(&m, r);
	ring_get_stats(r, &st);
	assert_int_equal(st.evicted_segments, 0);
	assert_true(st.segments > 5);
	assert_int_equal(st.records, m.nrec);
	assert_int_equal(st.oldest_ns, m.rec_t[0]);
	assert_int_equal(st.newest_ns, m.rec_t[m.nrec - 1]);
	check_random_times(&m, r, 200);
	check_steps(&m, r);
	model_free(&m);
	ring_free(r);
}

/* A cursor kept while the ring is written, as the daemon's query is between requests:
 * stepping on after records were added, segments sealed and old ones evicted must land
 * where a fresh seek would. One source on a 1 s beat into a 1 MiB ring. */
static void
test_steps_while_writing(void **state)
{
	struct model m;
	struct ring *r = ring_new(MIB, NSRC, 20 * SEC);
	struct ring_cursor *c = ring_cursor_new(r);
	struct ring_stats st;
	uint64_t t = 0, at = 10 * SEC;
	unsigned checked = 0;

	(void)state;
	rng_state = 0x452821e638d01377ull;
	model_init(&m, 4000, 3000, 800, &mix_busy);
	while (m.nrec < m.caprec) {
		model_record(&m, r, 0, at);
		at += SEC;
		if (chance(60))
			continue;
		ring_get_stats(r, &st);
		if (t < st.oldest_ns)
			t = st.oldest_ns;
		t += rnd_below(3 * SEC);
		if (t > st.newest_ns)
			t = st.newest_ns;
		assert_int_equal(ring_cursor_seek(c, t), 0);
		check_values(&m, c, model_find(&m, t), t, "kept cursor");
		checked++;
	}
	ring_get_stats(r, &st);
	assert_true(st.evicted_segments > 5);
	assert_true(checked > 200);
	ring_cursor_free(c);
	model_free(&m);
	ring_free(r);
}

/* A 1 MiB ring fed until it wrapped many times: before the oldest kept record is -1, after it
 * every answer is right. */
static void
test_eviction(void **state)
{
	struct model m;
	struct ring *r = ring_new(MIB, NSRC, 60 * SEC);
	struct ring_cursor *c = ring_cursor_new(r);
	struct ring_stats st;
	long j;

	(void)state;
	rng_state = 0x243f6a8885a308d3ull;
	model_init(&m, 5000, 4500, 1000, &mix_busy);
	model_run(&m, r);
	ring_get_stats(r, &st);
	assert_true(st.evicted_segments > 10);
	assert_true(st.used <= st.capacity);
	assert_true(st.oldest_ns > m.rec_t[m.nrec / 2]);
	assert_int_equal(st.newest_ns, m.rec_t[m.nrec - 1]);
	assert_int_equal(ring_cursor_seek(c, st.oldest_ns - 1), -1);
	assert_int_equal(ring_cursor_seek(c, m.rec_t[0]), -1);
	assert_int_equal(ring_cursor_seek(c, 0), -1);
	/* The oldest record kept and the one just before it. */
	check_at(&m, r, c, st.oldest_ns);
	check_at(&m, r, c, st.oldest_ns - 1);
	j = model_find(&m, st.oldest_ns);
	assert_true(j > 0);
	check_random_times(&m, r, 200);
	check_steps(&m, r);
	ring_cursor_free(c);
	model_free(&m);
	ring_free(r);
}

/* ring_src_times against cursors: for every source and many times t (before the oldest
 * record, on records, between, past the newest), the times a cursor sought to t, then to
 * that time - 1 and so on stands on. */
static void
check_src_times(struct ring *r, const struct model *m)
{
	struct ring_cursor *c = ring_cursor_new(r);
	uint64_t got[12], want[12], t, ct;

	for (int i = 0; i < 300; i++) {
		uint64_t t0 =
		    i % 3 == 0
		        ? m->rec_t[rnd_below(m->nrec)]
		        : m->rec_t[0] + rnd_below(m->rec_t[m->nrec - 1] - m->rec_t[0] + 2 * SEC);
		for (unsigned src = 0; src < NSRC; src++) {
			size_t max = 1 + rnd_below(12), n = 0, ng;
			for (t = t0; n < max && t > 0 && ring_cursor_seek(c, t) == 0 &&
			             (ct = ring_cursor_time(c, src)) != 0;
			     t = ct - 1)
				want[n++] = ct;
			ng = ring_src_times(r, src, t0, got, max);
			assert_int_equal(ng, n);
			for (size_t k = 0; k < n; k++)
				assert_int_equal(got[k], want[k]);
			/* The first record after the oldest found, at or before t0: the one
			 * found before it; none after the newest found up to it + 1 ns. */
			if (n >= 2)
				assert_int_equal(ring_src_time_after(r, src, want[n - 1], t0),
				                 want[n - 2]);
			if (n >= 1)
				assert_int_equal(ring_src_time_after(r, src, want[0], want[0] + 1),
				                 0);
		}
	}
	ring_cursor_free(c);
}

static void
test_src_times(void **state)
{
	struct model m;
	struct ring *r = ring_new(MIB, NSRC, 60 * SEC);
	struct ring_stats st;

	(void)state;
	/* Wrapped and evicted many times. */
	rng_state = 0x13198a2e03707344ull;
	model_init(&m, 5000, 4500, 1000, &mix_busy);
	model_run(&m, r);
	ring_get_stats(r, &st);
	assert_true(st.evicted_segments > 10);
	check_src_times(r, &m);
	model_free(&m);
	ring_free(r);
	/* Everything kept. */
	r = ring_new(64 * MIB, NSRC, 60 * SEC);
	model_init(&m, 500, 400, 400, &mix_normal);
	model_run(&m, r);
	ring_get_stats(r, &st);
	assert_int_equal(st.evicted_segments, 0);
	check_src_times(r, &m);
	assert_int_equal(ring_src_times(r, 0, 0, NULL, 0), 0);
	model_free(&m);
	ring_free(r);
}

/* ring_cursor_seek_part a record at a time (a deadline always passed) gives the cursor
 * ring_cursor_seek gives, for times before, on and between records and past the newest. */
static void
test_seek_part(void **state)
{
	struct model m;
	struct ring *r = ring_new(MIB, NSRC, 60 * SEC);
	struct ring_cursor *c = ring_cursor_new(r), *ref = ring_cursor_new(r);
	struct ring_stats st;
	int total = 0;

	(void)state;
	rng_state = 0x452821e638d01377ull;
	model_init(&m, 3000, 2500, 800, &mix_busy);
	model_run(&m, r);
	ring_get_stats(r, &st);
	assert_true(st.evicted_segments > 3);
	assert_int_equal(ring_cursor_seek_part(c, st.oldest_ns - 1, 1), -1);
	for (int i = 0; i < 60; i++) {
		uint64_t t = i == 0   ? st.oldest_ns
		             : i == 1 ? st.newest_ns + SEC
		                      : st.oldest_ns + rnd_below(st.newest_ns - st.oldest_ns);
		int rc, parts = 0;
		while ((rc = ring_cursor_seek_part(c, t, 1)) == 0)
			parts++;
		assert_int_equal(rc, 1);
		assert_int_equal(ring_cursor_seek(ref, t), 0);
		for (unsigned s = 0; s < NSRC; s++) {
			assert_int_equal(ring_cursor_time(c, s), ring_cursor_time(ref, s));
			assert_int_equal(ring_cursor_k(c, s), ring_cursor_k(ref, s));
		}
		for (series_id id = 0; id < m.n; id++)
			assert_int_equal(ring_cursor_value(c, id), ring_cursor_value(ref, id));
		total += parts;
	}
	assert_true(total > 200); /* made in parts indeed */
	ring_cursor_free(c);
	ring_cursor_free(ref);
	model_free(&m);
	ring_free(r);
}

/* A cursor made before the registry grew still answers for the new series. */
static void
test_cursor_grows(void **state)
{
	struct ring *r = ring_new(MIB, 1, 60 * SEC);
	struct ring_cursor *c = ring_cursor_new(r);

	(void)state;
	ring_begin(r, 0, 1 * SEC, 2);
	ring_put(r, 0, 5);
	ring_put(r, 1, 7);
	ring_end(r);
	ring_begin(r, 0, 2 * SEC, 2);
	ring_put(r, 0, 5);
	ring_put(r, 1000, 3); /* interned during the sample */
	ring_end(r);
	assert_int_equal(ring_cursor_seek(c, 2 * SEC), 0);
	assert_int_equal(ring_cursor_value(c, 0), 10);
	assert_int_equal(ring_cursor_value(c, 1), 7);
	assert_int_equal(ring_cursor_value(c, 1000), 3);
	assert_int_equal(ring_cursor_value(c, 1001), 0);
	assert_int_equal(ring_cursor_seek_dir(c, 1 * SEC, RING_SEEK_FORWARD), 0);
	assert_int_equal(ring_cursor_value(c, 1000), 0);
	assert_int_equal(ring_cursor_value(c, 1), 7);
	assert_int_equal(ring_cursor_seek_dir(c, 1 * SEC + 1, RING_SEEK_BACKWARD), 0);
	assert_int_equal(ring_cursor_value(c, 1000), 0);
	assert_int_equal(ring_cursor_value(c, 0), 5);
	assert_int_equal(ring_cursor_time(c, 0), 1 * SEC);
	assert_int_equal(ring_cursor_k(c, 0), 1);
	assert_int_equal(ring_cursor_seek(c, SEC - 1), -1);
	ring_cursor_free(c);
	ring_free(r);
}

/* Feed one source of n constant-rate, n/5 random and n idle series. */
static void
feed_steady(struct ring *r, size_t n, size_t nrandom, uint64_t t)
{
	ring_begin(r, 0, t, 2 * n + nrandom);
	for (series_id id = 0; id < n; id++)
		ring_put(r, id, 1000 + id);
	for (series_id id = 0; id < nrandom; id++)
		ring_put(r, (series_id)n + id, 1 + rnd_below(1000));
	for (series_id id = 0; id < n; id++)
		ring_put(r, (series_id)(n + nrandom) + id, 0);
	ring_end(r);
}

/* After warm-up, records, keyframes, wraps and evictions allocate nothing. */
static void
test_steady_no_alloc(void **state)
{
	struct ring *r = ring_new(MIB, 1, 30 * SEC);
	struct ring_stats st0, st1;
	uint64_t t = SEC;

	(void)state;
	rng_state = 42;
	for (int i = 0; i < 10; i++, t += SEC)
		feed_steady(r, 5000, 1000, t);
	ring_get_stats(r, &st0);
	assert_true(st0.allocations > 0);
	for (int i = 0; i < 2000; i++, t += SEC)
		feed_steady(r, 5000, 1000, t);
	ring_get_stats(r, &st1);
	assert_true(st1.evicted_segments > 0);
	assert_true(st1.records == st0.records + 2000);
	assert_int_equal(st1.allocations, st0.allocations);
	ring_free(r);
}

/* 5,000 series at constant rates cost a few bytes a record, whatever the jitter. */
static void
test_steady_small(void **state)
{
	struct ring *r = ring_new(4 * MIB, 1, 600 * SEC);
	struct ring_cursor *c;
	struct ring_stats st;
	uint64_t t = SEC;
	size_t first = 0;

	(void)state;
	rng_state = 7;
	for (int i = 0; i < 300; i++) {
		t += SEC + rnd_below(SEC / 100);
		ring_begin(r, 0, t, 5000);
		for (series_id id = 0; id < 5000; id++)
			ring_put(r, id, 100 * (uint64_t)id + 1);
		ring_end(r);
		ring_get_stats(r, &st);
		if (i == 0)
			first = st.last_record_bytes;
		else
			assert_true(st.last_record_bytes < 16);
	}
	assert_int_equal(st.segments, 1);
	assert_true(st.used < st.last_keyframe_bytes + first + 299 * 16);
	assert_true(st.bytes_per_second > 5 && st.bytes_per_second < 16);
	c = ring_cursor_new(r);
	assert_int_equal(ring_cursor_seek_dir(c, st.oldest_ns, RING_SEEK_BACKWARD), 0);
	assert_int_equal(ring_cursor_value(c, 4999), 499901);
	assert_int_equal(ring_cursor_seek_dir(c, t, RING_SEEK_FORWARD), 0);
	assert_int_equal(ring_cursor_value(c, 4999), 300 * 499901ull);
	ring_cursor_free(c);
	ring_free(r);
}

/* A series stops moving when its source stops putting it, and moves again when put. */
static void
test_stop_and_resume(void **state)
{
	struct ring *r = ring_new(MIB, 2, 60 * SEC);
	struct ring_cursor *c = ring_cursor_new(r);
	static const uint64_t want[] = {0, 10, 20, 20, 20, 25, 30};

	(void)state;
	for (uint64_t i = 1; i <= 6; i++) {
		ring_begin(r, 0, i * SEC, 1);
		if (i <= 2 || i >= 5)
			ring_put(r, 0, i <= 2 ? 10 : 5);
		ring_end(r);
		/* The other source samples in between and moves nothing of source 0. */
		ring_begin(r, 1, i * SEC + SEC / 2, 1);
		ring_end(r);
	}
	for (uint64_t i = 1; i <= 6; i++) {
		for (int dir = RING_SEEK_FORWARD; dir <= RING_SEEK_BACKWARD; dir++) {
			assert_int_equal(ring_cursor_seek_dir(c, i * SEC, dir), 0);
			assert_int_equal(ring_cursor_value(c, 0), want[i]);
			assert_int_equal(ring_cursor_seek_dir(c, i * SEC + SEC / 2, dir), 0);
			assert_int_equal(ring_cursor_value(c, 0), want[i]);
			assert_int_equal(ring_cursor_k(c, 1), i);
		}
	}
	ring_cursor_free(c);
	ring_free(r);
}

/* Sizes of entries in test_exact_wrap: series 0-2 toggle their delta between 1 and 2 (a 2-byte
 * entry), series 3 between 1 and 101 (a 3-byte entry). */
static void
put_exact(struct ring *r, uint64_t *delta, uint64_t *acc, unsigned small, bool big)
{
	for (series_id id = 0; id < 4; id++) {
		if (id < small)
			delta[id] = 3 - delta[id];
		if (id == 3 && big)
			delta[id] = delta[id] == 1 ? 101 : 1;
		ring_put(r, id, delta[id]);
		acc[id] += delta[id];
	}
}

/* A record that ends exactly at the end of the buffer: the next one wraps with no marker. */
static void
test_exact_wrap(void **state)
{
	static const struct {
		bool slow; /* a 2-byte time step */
		unsigned small;
		bool big;
	} pad[8] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1},
	            {0, 2, 0}, {0, 1, 1}, {0, 3, 0}, {0, 2, 1}};
	size_t cap = MIB, nrec = 200000, j, exact = 0;
	uint64_t *rec_t = xcalloc(nrec, sizeof(uint64_t)),
	         (*snap)[4] = xcalloc(nrec, sizeof(*snap));
	uint64_t delta[4] = {1, 1, 1, 1}, acc[4] = {0}, t = SEC;
	struct ring *r = ring_new(cap, 1, UINT64_MAX / 2);
	struct ring_cursor *c = ring_cursor_new(r);
	struct ring_stats st;

	(void)state;
	for (j = 0; j < nrec; j++) {
		size_t room;
		unsigned x = 0;

		ring_get_stats(r, &st);
		room = cap - st.used;
		if (j > 0 && exact == 0 && st.evicted_segments == 0 && room >= 8 && room < 16)
			x = (unsigned)(room - 8);
		if (pad[x].slow)
			t += 199;
		ring_begin(r, 0, t, 4);
		ring_get_stats(r, &st);
		if (cap - st.used != room)
			x = 0; /* a keyframe came first: try again next time */
		put_exact(r, delta, acc, j == 0 ? 0 : pad[x].small, j > 0 && pad[x].big);
		ring_end(r);
		rec_t[j] = t;
		memcpy(snap[j], acc, sizeof(acc));
		ring_get_stats(r, &st);
		if (exact == 0 && st.used == cap)
			exact = j;
		t += 1;
		if (exact != 0 && j > exact + nrec / 4)
			break;
	}
	assert_true(exact > 0);
	nrec = j;
	ring_get_stats(r, &st);
	assert_true(st.evicted_segments > 0);
	for (j = exact - 100; j < exact + 100; j++) {
		for (int dir = RING_SEEK_FORWARD; dir <= RING_SEEK_BACKWARD; dir++) {
			if (rec_t[j] < st.oldest_ns) {
				assert_int_equal(ring_cursor_seek_dir(c, rec_t[j], dir), -1);
				continue;
			}
			assert_int_equal(ring_cursor_seek_dir(c, rec_t[j], dir), 0);
			assert_int_equal(ring_cursor_k(c, 0), j + 1);
			for (series_id id = 0; id < 4; id++)
				assert_int_equal(ring_cursor_value(c, id), snap[j][id]);
		}
	}
	ring_cursor_free(c);
	ring_free(r);
	free(rec_t);
	free(snap);
}

/* The ring of test_one_short: one source, four series put in every record, each delta kept
 * so that a record's size is chosen to the byte; every record's values, by record. */
struct tight {
	struct ring *r;
	uint64_t t;
	uint64_t delta[4], acc[4];
	uint64_t (*snap)[4]; /* acc after record j (at time SEC + j) */
	size_t nrec, caprec;
	struct ring_stats st; /* after the last ring_begin or ring_end */
};

/* ring_begin of the next record; the bytes it wrote first (a keyframe, or 0). Fails when it
 * evicted: the layout the test drives is then not the one it planned. */
static size_t
tight_begin(struct tight *w)
{
	struct ring_stats st0 = w->st;

	ring_begin(w->r, 0, w->t, 4);
	ring_get_stats(w->r, &w->st);
	assert_int_equal(w->st.evicted_segments, st0.evicted_segments);
	return w->st.used - st0.used;
}

/* Close the record with `extra` bytes of entries (0, or 2 to 16) after the 8 of a record
 * that changes nothing ('S', source, dt 1, count, footer): a series whose delta changes by
 * 1, 100 or 10000 costs an entry of 2, 3 or 4 bytes (its id step, the delta's change). */
static void
tight_end(struct tight *w, unsigned extra)
{
	static const uint64_t step[5] = {0, 0, 1, 100, 10000};

	assert_true(extra != 1 && extra <= 16);
	for (series_id id = 0; id < 4; id++) {
		unsigned s = extra >= 6 || extra == 4 ? 4 : extra == 5 ? 3 : extra;

		extra -= s;
		/* Up, or down from above the start, so that a delta stays near it. */
		if (s > 0)
			w->delta[id] =
			    w->delta[id] > 50000 ? w->delta[id] - step[s] : w->delta[id] + step[s];
		ring_put(w->r, id, w->delta[id]);
		w->acc[id] += w->delta[id];
	}
	ring_end(w->r);
	assert_true(w->nrec < w->caprec);
	memcpy(w->snap[w->nrec++], w->acc, sizeof(w->acc));
	w->t++;
	ring_get_stats(w->r, &w->st);
}

/* The size of the next record on the way to filling `left` bytes exactly: all of them when
 * one record can (8 to 24 bytes, not 9), else 8, or 10 when 8 would leave an impossible
 * rest. */
static unsigned
tight_size(size_t left)
{
	if (left >= 8 && left <= 24 && left != 9)
		return (unsigned)left;
	assert_true(left >= 25);
	return left >= 32 ? 8 : 10;
}

/* Every value a cursor at the record of time t gives, sought each way. */
static void
tight_check(struct tight *w, struct ring_cursor *c, uint64_t t)
{
	size_t j = (size_t)(t - SEC);

	assert_true(j < w->nrec);
	for (int dir = RING_SEEK_AUTO; dir <= RING_SEEK_BACKWARD; dir++) {
		assert_int_equal(ring_cursor_seek_dir(c, t, dir), 0);
		assert_int_equal(ring_cursor_k(c, 0), j + 1);
		assert_int_equal(ring_cursor_time(c, 0), t);
		for (series_id id = 0; id < 4; id++)
			assert_int_equal(ring_cursor_value(c, id), w->snap[j][id]);
	}
}

/* A record one byte longer than the room left before the oldest segment, in the wrapped
 * ring: it must evict that segment, not overlap its first byte. The data first fills the
 * buffer to its last byte (so the wrap wastes nothing and an overlap would show as used >
 * capacity), wraps, then grows to 7 bytes short of the oldest segment, and an 8-byte record
 * follows. The oldest record kept then still decodes, before and after more records. */
static void
test_one_short(void **state)
{
	struct tight w = {.t = SEC, .delta = {50000, 50000, 50000, 50000}, .caprec = 400000};
	struct ring_cursor *c;
	size_t cap = MIB, head, tail, wrote, evicted;

	(void)state;
	w.r = ring_new(cap, 1, UINT64_MAX / 2);
	w.snap = xcalloc(w.caprec, sizeof(*w.snap));
	ring_get_stats(w.r, &w.st);
	/* Up to the end of the buffer: nothing wrapped or evicted, the data is [0, used). */
	do {
		tight_begin(&w);
		tight_end(&w, tight_size(cap - w.st.used) - 8);
		assert_int_equal(w.st.evicted_segments, 0);
	} while (w.st.used < cap);
	assert_int_equal(w.st.used, cap);
	/* The next record wraps: it evicts the oldest segment, [0, tail), and goes to 0. */
	evicted = w.st.used;
	wrote = tight_begin(&w);
	tight_end(&w, 0);
	assert_int_equal(w.st.evicted_segments, 1);
	wrote += w.st.last_record_bytes;
	tail = evicted + wrote - w.st.used;
	head = wrote;
	assert_true(tail > 8 * 1024 && tail < cap / 4);
	/* On to 7 bytes short of the oldest segment, at tail. */
	for (;;) {
		head += tight_begin(&w);
		assert_true(head + 7 <= tail);
		if (tail - head == 7)
			break;
		tight_end(&w, tight_size(tail - head - 7) - 8);
		assert_int_equal(w.st.evicted_segments, 1);
		head += w.st.last_record_bytes;
	}
	/* The 8-byte record: one byte more than the room. */
	tight_end(&w, 0);
	assert_int_equal(w.st.last_record_bytes, 8);
	assert_true(w.st.used <= w.st.capacity);
	assert_int_equal(w.st.evicted_segments, 2);
	c = ring_cursor_new(w.r);
	assert_int_equal(ring_cursor_seek(c, w.st.oldest_ns - 1), -1);
	tight_check(&w, c, w.st.oldest_ns);
	tight_check(&w, c, w.st.oldest_ns + 1);
	tight_check(&w, c, w.st.newest_ns);
	/* More records after it: the ring stays in bounds and the oldest record decodes. */
	for (int i = 0; i < 3; i++) {
		tight_begin(&w);
		tight_end(&w, 0);
	}
	assert_true(w.st.used <= w.st.capacity);
	tight_check(&w, c, w.st.oldest_ns);
	tight_check(&w, c, w.st.newest_ns);
	ring_cursor_free(c);
	ring_free(w.r);
	free(w.snap);
}

/* A keyframe bigger than the ring: no history, live values still right, no crash. */
static void
test_keyframe_too_big(void **state)
{
	struct ring *r = ring_new(MIB, 1, 60 * SEC);
	struct ring_cursor *c;
	struct ring_stats st;
	size_t n = 400000;

	(void)state;
	for (uint64_t i = 1; i <= 3; i++) {
		ring_begin(r, 0, i * SEC, n);
		for (series_id id = 0; id < n; id++)
			ring_put(r, id, 1ull << 40);
		ring_end(r);
	}
	ring_get_stats(r, &st);
	assert_int_equal(st.segments, 0);
	assert_int_equal(st.newest_ns, 0);
	assert_int_equal(ring_live_value(r, 17), 3ull << 40);
	c = ring_cursor_new(r);
	assert_int_equal(ring_cursor_seek(c, 3 * SEC), -1);
	ring_cursor_free(c);
	ring_free(r);
}

/* ring_cursor_step walks record by record from a forward seek, across keyframes (one every
 * 20 s): after each step the cursor is the model's next record, its source the one stepped
 * over; it stops at the limit and at the newest record. */
static void
test_step_walk(void **state)
{
	struct model m;
	struct ring *r = ring_new(16 * MIB, NSRC, 20 * SEC);
	struct ring_cursor *c = ring_cursor_new(r);
	struct ring_stats st;
	long j, walked = 0;
	uint64_t t0, limit;
	int src;

	(void)state;
	rng_state = 0x243f6a8885a308d3ull;
	model_init(&m, 800, 600, 900, &mix_normal);
	model_run(&m, r);
	ring_get_stats(r, &st);
	assert_true(st.segments > 5);
	t0 = m.rec_t[100] + 1;
	limit = m.rec_t[700];
	j = model_find(&m, t0);
	assert_int_equal(ring_cursor_seek_dir(c, t0, RING_SEEK_FORWARD), 0);
	check_values(&m, c, j, t0, "step start");
	while ((src = ring_cursor_step(c, limit)) >= 0) {
		j++;
		assert_true(j < (long)m.nrec);
		assert_int_equal(ring_cursor_time(c, (unsigned)src), m.rec_t[j]);
		assert_int_equal(ring_cursor_k(c, (unsigned)src), m.src_k[j][src]);
		check_values(&m, c, j, m.rec_t[j], "step");
		walked++;
	}
	/* Stopped at the last record at or before the limit. */
	assert_int_equal(j, model_find(&m, limit));
	assert_true(walked > 500);
	/* On to the newest record, then nothing more. */
	while (ring_cursor_step(c, UINT64_MAX) >= 0)
		j++;
	assert_int_equal(j, (long)m.nrec - 1);
	/* A backward seek leaves nothing to step from. */
	assert_int_equal(ring_cursor_seek_dir(c, m.rec_t[m.nrec - 1], RING_SEEK_BACKWARD), 0);
	assert_int_equal(ring_cursor_step(c, UINT64_MAX), -1);
	ring_cursor_free(c);
	model_free(&m);
	ring_free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_model),        cmocka_unit_test(test_step_walk),
	    cmocka_unit_test(test_eviction),     cmocka_unit_test(test_steps_while_writing),
	    cmocka_unit_test(test_cursor_grows), cmocka_unit_test(test_steady_no_alloc),
	    cmocka_unit_test(test_steady_small), cmocka_unit_test(test_stop_and_resume),
	    cmocka_unit_test(test_exact_wrap),   cmocka_unit_test(test_keyframe_too_big),
	    cmocka_unit_test(test_src_times),    cmocka_unit_test(test_seek_part),
	    cmocka_unit_test(test_one_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
