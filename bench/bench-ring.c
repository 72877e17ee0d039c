/* bench-ring.c: the ring fed like a 144-CPU host with a 144-queue NIC, one sample a second
 * for an hour; prints the bytes a record costs, the time of the writer calls and of seeks.
 *
 *   bench-ring [ring MiB (64)] [keyframe seconds (600)] [seconds (3600)]
 *
 * Series (200,000), in four sources sampled each second:
 *   interrupts  1,200 IRQ lines x 144 CPUs. Per CPU, one NIC queue IRQ, the local timer and
 *               three IPI lines move with jitter every second; 144 NVMe cells now and then;
 *               the rest stay at zero (still put, as the source reads every line).
 *   queues      576 per-queue counters at steady rates.
 *   cpu         144 CPUs x 10 modes; user, system, idle, irq and softirq jitter by a tick or
 *               two, the others stay at zero.
 *   other       25,184 ethtool/SNMP/softnet counters: 1% move, at random, each second. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ring.h"

#define NCPU     144
#define NIRQ     1200
#define NIRQCELL (NIRQ * NCPU)
#define NQUEUE   576
#define NCPUTIME (NCPU * 10)
#define NSERIES  200000
#define NOTHER   (NSERIES - NIRQCELL - NQUEUE - NCPUTIME)
#define SEC      1000000000ull

enum { SRC_IRQ, SRC_QUEUE, SRC_CPU, SRC_OTHER, NSRC };

static const series_id first_id[NSRC + 1] = {0, NIRQCELL, NIRQCELL + NQUEUE,
                                             NIRQCELL + NQUEUE + NCPUTIME, NSERIES};

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t
rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec;
}

/* The rate a cell moves at each second around: 0 for the idle ones. */
static uint64_t
irq_rate(unsigned irq, unsigned cpu)
{
	if (irq < NCPU) /* NIC queue irq N is pinned to CPU N */
		return irq == cpu ? 20000 : 0;
	if (irq == NCPU) /* LOC */
		return 1000;
	if (irq <= NCPU + 3) /* RES, CAL, TLB */
		return 300;
	return 0;
}

/* This second's increment of a series of the interrupts source. */
static uint64_t
irq_delta(series_id id)
{
	unsigned irq = id / NCPU, cpu = id % NCPU;
	uint64_t rate = irq_rate(irq, cpu);

	if (rate != 0)
		return rate - rate / 20 + rnd() % (rate / 10 + 1);
	/* NVMe queue irq 200+N, pinned to CPU N: a burst now and then. */
	if (irq == 200 + cpu && rnd() % 20 == 0)
		return 1 + rnd() % 50;
	return 0;
}

static uint64_t
cpu_delta(series_id id)
{
	unsigned mode = (id - first_id[SRC_CPU]) % 10;
	static const uint64_t base[10] = {30, 0, 20, 40, 0, 2, 8, 0, 0, 0};

	if (base[mode] == 0)
		return 0;
	return base[mode] - 2 + rnd() % 5;
}

static uint64_t
other_delta(series_id id)
{
	(void)id;
	return rnd() % 100 == 0 ? rnd() % 5000 : 0;
}

/* One record of source s at t; adds its put and end times. */
struct timing {
	uint64_t put_ns, nput, end_ns, nend, begin_ns, nbegin, kf_ns, nkf;
	bool warm; /* past the first records, which size everything */
};

static void
feed(struct ring *r, unsigned s, uint64_t t, struct timing *tm)
{
	static uint64_t d[NSERIES];
	uint64_t t0, t1, t2, t3;
	series_id a = first_id[s], b = first_id[s + 1];
	struct ring_stats st;
	bool keyframed;
	size_t segs;

	/* The increments are made first so that the clock measures only the ring. */
	for (series_id id = a; id < b; id++) {
		switch (s) {
		case SRC_IRQ:
			d[id] = irq_delta(id);
			break;
		case SRC_QUEUE:
			d[id] = 1000 * (1 + (id - a) % 7);
			break;
		case SRC_CPU:
			d[id] = cpu_delta(id);
			break;
		default:
			d[id] = other_delta(id);
		}
	}
	ring_get_stats(r, &st);
	segs = st.segments + st.evicted_segments;
	t0 = now_ns();
	ring_begin(r, s, t, NSERIES);
	t1 = now_ns();
	ring_get_stats(r, &st);
	keyframed = st.segments + st.evicted_segments != segs;
	for (series_id id = a; id < b; id++)
		ring_put(r, id, d[id]);
	t2 = now_ns();
	ring_end(r);
	t3 = now_ns();
	if (!tm->warm)
		return;
	tm->put_ns += t2 - t1;
	tm->nput += b - a;
	tm->end_ns += t3 - t2;
	tm->nend++;
	if (keyframed) {
		tm->kf_ns += t1 - t0;
		tm->nkf++;
	} else {
		tm->begin_ns += t1 - t0;
		tm->nbegin++;
	}
}

/* Mean time of n seeks to t in one direction, ns. */
static double
time_seek(struct ring_cursor *c, uint64_t t, enum ring_seek_dir dir, int n)
{
	uint64_t t0 = now_ns();

	for (int i = 0; i < n; i++)
		if (ring_cursor_seek_dir(c, t, dir) < 0) {
			fprintf(stderr, "bench-ring: seek failed\n");
			exit(1);
		}
	return (double)(now_ns() - t0) / n;
}

/* Forward and backward seeks must agree on every series: a check, not a timing. */
static void
check_directions(struct ring *r, uint64_t t)
{
	struct ring_cursor *f = ring_cursor_new(r), *b = ring_cursor_new(r);

	if (ring_cursor_seek_dir(f, t, RING_SEEK_FORWARD) < 0 ||
	    ring_cursor_seek_dir(b, t, RING_SEEK_BACKWARD) < 0) {
		fprintf(stderr, "bench-ring: seek failed\n");
		exit(1);
	}
	for (series_id id = 0; id < NSERIES; id++)
		if (ring_cursor_value(f, id) != ring_cursor_value(b, id)) {
			fprintf(stderr, "bench-ring: series %u differs\n", id);
			exit(1);
		}
	ring_cursor_free(f);
	ring_cursor_free(b);
}

int
main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
	uint64_t kf_s = argc > 2 ? strtoull(argv[2], NULL, 10) : 600;
	unsigned seconds = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 3600;
	struct ring *r = ring_new(mib << 20, NSRC, kf_s * SEC);
	struct timing tm = {0};
	uint64_t bytes_kf = 0, nkf = 0;
	struct ring_stats st, st_warm;
	struct ring_cursor *c;
	double fwd, bwd;

	memset(&st, 0, sizeof(st));
	memset(&st_warm, 0, sizeof(st_warm));
	for (unsigned sec = 1; sec <= seconds; sec++) {
		for (unsigned s = 0; s < NSRC; s++) {
			uint64_t segs0 = st.segments + st.evicted_segments;
			uint64_t t = sec * SEC + s * 5000000ull + rnd() % 1000000;

			feed(r, s, t, &tm);
			ring_get_stats(r, &st);
			if (st.segments + st.evicted_segments != segs0) {
				bytes_kf += st.last_keyframe_bytes;
				nkf++;
			}
		}
		/* Steady state: after the first records, which carry every series. */
		if (sec == 10) {
			st_warm = st;
			tm.warm = true;
		}
	}
	ring_get_stats(r, &st);
	printf("series %d (interrupts %d, queues %d, cpu %d, other %d), %u s at 1 Hz, "
	       "%d sources\n",
	       NSERIES, NIRQCELL, NQUEUE, NCPUTIME, NOTHER, seconds, NSRC);
	printf("ring %zu MiB, keyframe every %llu s: used %.1f MiB, %zu segments, %llu evicted, "
	       "%llu allocations\n",
	       mib, (unsigned long long)kf_s, st.used / 1048576.0, st.segments,
	       (unsigned long long)st.evicted_segments, (unsigned long long)st.allocations);
	if (st.evicted_segments == 0 && st.records > st_warm.records) {
		double recs = (double)(st.records - st_warm.records);
		uint64_t grown = st.used - st_warm.used;

		printf("bytes per record (steady, keyframes amortised): %.0f "
		       "(per second, all sources: %.0f)\n",
		       grown / recs, grown / recs * NSRC);
		printf("bytes per second, last minute: %.0f; keyframes: %llu of %.0f KiB\n",
		       st.bytes_per_second, (unsigned long long)nkf,
		       nkf ? bytes_kf / 1024.0 / nkf : 0.0);
	}
	printf("after the first 10 s: ring_put %.1f ns (%llu puts), ring_end %.1f us, "
	       "ring_begin %.2f us, ring_begin writing a keyframe %.2f ms (%llu)\n",
	       (double)tm.put_ns / (double)tm.nput, (unsigned long long)tm.nput,
	       (double)tm.end_ns / 1e3 / (double)tm.nend,
	       (double)tm.begin_ns / 1e3 / (double)tm.nbegin,
	       tm.nkf ? (double)tm.kf_ns / 1e6 / (double)tm.nkf : 0.0, (unsigned long long)tm.nkf);
	check_directions(r, st.newest_ns - 10 * SEC);
	check_directions(r, st.oldest_ns + (st.newest_ns - st.oldest_ns) / 2);

	c = ring_cursor_new(r);
	fwd = time_seek(c, st.newest_ns - 10 * SEC, RING_SEEK_FORWARD, 20);
	bwd = time_seek(c, st.newest_ns - 10 * SEC, RING_SEEK_BACKWARD, 20);
	printf("seek to 10 s ago: auto %.2f ms (forward %.2f ms, backward %.2f ms)\n",
	       time_seek(c, st.newest_ns - 10 * SEC, RING_SEEK_AUTO, 20) / 1e6, fwd / 1e6,
	       bwd / 1e6);
	fwd = time_seek(c, st.oldest_ns, RING_SEEK_FORWARD, 5);
	bwd = time_seek(c, st.oldest_ns, RING_SEEK_BACKWARD, 5);
	printf("seek to the oldest record (%.0f s ago): auto %.2f ms (forward %.2f ms, backward "
	       "%.2f ms)\n",
	       (st.newest_ns - st.oldest_ns) / 1e9,
	       time_seek(c, st.oldest_ns, RING_SEEK_AUTO, 5) / 1e6, fwd / 1e6, bwd / 1e6);
	ring_cursor_free(c);
	ring_free(r);
	return 0;
}
