/* test-sampler.c: the sampler, sink, ring and query together on a small fixture root with a
 * driven clock: baselines, 32-bit wraps, resets, series that vanish and come back, rates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "config.h"
#include "error.h"
#include "query.h"
#include "ring.h"
#include "sampler.h"

#define SEC 1000000000ull

/* Counting wrappers around glibc's allocator, for the check that fine sampling allocates
 * nothing once warm; not under ASan, whose own allocator must stay in place. */
#if defined(__SANITIZE_ADDRESS__)
#define COUNT_ALLOCS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COUNT_ALLOCS 0
#endif
#endif
#ifndef COUNT_ALLOCS
#define COUNT_ALLOCS 1
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static unsigned long nallocs;

void *
malloc(size_t n)
{
	nallocs++;
	return __libc_malloc(n);
}

void *
calloc(size_t a, size_t b)
{
	nallocs++;
	return __libc_calloc(a, b);
}

void *
realloc(void *p, size_t n)
{
	nallocs++;
	return __libc_realloc(p, n);
}
#else
static unsigned long nallocs;
#endif

struct world {
	char root[64];
	struct config cfg;
	struct sampler *s;
	struct query *q;
	uint64_t now;
	uint64_t tick; /* added to now at each reading of the clock */
};

/* The driven clock. */
static uint64_t
fake_clock(void *arg)
{
	struct world *w = arg;

	w->now += w->tick;
	return w->now;
}

/* Write a file below the root in place (a source keeps its fd and preads from 0). */
static void
write_file(const char *root, const char *rel, const char *text)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fp = fopen(path, "r+");
	if (fp == NULL)
		fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(ftruncate(fileno(fp), 0), 0);
	fputs(text, fp);
	fclose(fp);
}

/* Rewrite proc/softirqs. */
static void
write_softirqs(struct world *w, const char *text)
{
	write_file(w->root, "proc/softirqs", text);
}

/* A new temporary root with an empty proc/ in w->root. */
static void
new_root(struct world *w)
{
	char path[128];

	snprintf(w->root, sizeof(w->root), "/tmp/nm-test-sampler-XXXXXX"); /* mkdtemp's */
	assert_non_null(mkdtemp(w->root));
	snprintf(path, sizeof(path), "%s/proc", w->root);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* A sampler on w->root with the sources off[] disabled, sampled once at 10 s. */
/* [source.lnstat] per-cpu = yes for the next start_sampler (its cells as series). */
static bool lnstat_per_cpu;

static void
start_sampler(struct world *w, const char *const *off, size_t noff)
{
	struct nm_error err;

	config_defaults(&w->cfg);
	free(w->cfg.root);
	w->cfg.root = strdup(w->root);
	w->cfg.ring_memory = 1u << 20;
	for (size_t i = 0; i < noff; i++)
		config_add_source_opt(&w->cfg, off[i], "enable", "no");
	if (lnstat_per_cpu)
		config_add_source_opt(&w->cfg, "lnstat", "per-cpu", "yes");
	w->s = sampler_new(&w->cfg, &err);
	assert_non_null(w->s);
	sampler_set_clock(w->s, fake_clock, w);
	w->q = query_new(w->s);
	w->now = 10 * SEC;
	sampler_sample_all(w->s);
}

/* A root with only proc/softirqs, and a sampler with every other source disabled. */
static int
setup(void **state)
{
	static const char *const others[] = {"interrupts", "cpu",     "snmp",   "link",  "queues",
	                                     "ethtool",    "softnet", "lnstat", "sysctl"};
	struct world *w = calloc(1, sizeof(*w));

	new_root(w);
	write_softirqs(w, "                    CPU0       CPU1\n"
	                  "          HI:          0          0\n"
	                  "      NET_RX:        100 4294967000\n");
	start_sampler(w, others, sizeof(others) / sizeof(others[0]));
	*state = w;
	return 0;
}

static int
teardown(void **state)
{
	struct world *w = *state;
	char cmd[128];

	query_free(w->q);
	sampler_free(w->s);
	config_free(&w->cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", w->root);
	assert_int_equal(system(cmd), 0);
	free(w);
	return 0;
}

/* Delta of a series over [t0, t1] seconds. */
static uint64_t
delta(struct world *w, const char *name, uint64_t t0, uint64_t t1)
{
	struct nm_error err;
	series_id id = series_find(sampler_registry(w->s), name);

	assert_int_not_equal(id, SERIES_NONE);
	assert_int_equal(query_span(w->q, t0 * SEC, t1 * SEC, &err), 0);
	return query_delta(w->q, id);
}

/* The first sample is a baseline; increments, a 32-bit wrap and the rate follow. */
static void
test_deltas_and_wrap(void **state)
{
	struct world *w = *state;
	struct nm_error err;
	series_id id;

	w->now = 11 * SEC;
	write_softirqs(w, "                    CPU0       CPU1\n"
	                  "          HI:          0          0\n"
	                  "      NET_RX:        350        200\n");
	sampler_sample_all(w->s);
	assert_int_equal(delta(w, "softirq.NET_RX.cpu0", 10, 11), 250);
	/* 4294967000 -> 200 wrapped: 296 + 200 */
	assert_int_equal(delta(w, "softirq.NET_RX.cpu1", 10, 11), 496);
	assert_int_equal(delta(w, "softirq.HI.cpu0", 10, 11), 0);

	w->now = 13 * SEC;
	write_softirqs(w, "                    CPU0       CPU1\n"
	                  "          HI:          0          0\n"
	                  "      NET_RX:        950        200\n");
	sampler_sample_all(w->s);
	assert_int_equal(delta(w, "softirq.NET_RX.cpu0", 11, 13), 600);
	assert_int_equal(delta(w, "softirq.NET_RX.cpu0", 10, 13), 850);
	id = series_find(sampler_registry(w->s), "softirq.NET_RX.cpu0");
	assert_int_equal(query_span(w->q, 11 * SEC, 13 * SEC, &err), 0);
	assert_true(query_rate(w->q, id) > 299.99 && query_rate(w->q, id) < 300.01);
	assert_true(query_seconds(w->q, series_get(sampler_registry(w->s), id)->source) == 2.0);
	/* A span before the first sample is clamped to it, and its rate uses the time from
	 * that first sample. */
	assert_int_equal(delta(w, "softirq.NET_RX.cpu0", 0, 13), 850);
	assert_true(query_seconds(w->q, series_get(sampler_registry(w->s), id)->source) == 3.0);
	assert_true(query_rate(w->q, id) > 283.33 && query_rate(w->q, id) < 283.34);
}

/* A CPU that goes offline leaves its series dead but its history queryable; when it comes
 * back its reading is a new baseline (the kernel kept its counts), never a spike. */
static void
test_vanish_and_return(void **state)
{
	struct world *w = *state;
	const struct series_registry *reg = sampler_registry(w->s);
	series_id id;

	w->now = 11 * SEC;
	write_softirqs(w, "                    CPU0\n"
	                  "          HI:          0\n"
	                  "      NET_RX:        150\n");
	sampler_sample_all(w->s);
	id = series_find(reg, "softirq.NET_RX.cpu1");
	assert_int_not_equal(id, SERIES_NONE);
	assert_false(series_get(reg, id)->live);
	assert_int_equal(delta(w, "softirq.NET_RX.cpu0", 10, 11), 50);
	assert_int_equal(delta(w, "softirq.NET_RX.cpu1", 10, 11), 0);
	assert_int_equal(sampler_gone_ns(w->s, id), 11 * SEC);
	/* Still gone at the next sample: it went at 11 s, not then. */
	w->now = 11 * SEC + SEC / 2;
	sampler_sample_all(w->s);
	assert_int_equal(sampler_gone_ns(w->s, id), 11 * SEC);

	w->now = 12 * SEC;
	write_softirqs(w, "                    CPU0       CPU1\n"
	                  "          HI:          0          0\n"
	                  "      NET_RX:        170         30\n");
	sampler_sample_all(w->s);
	assert_true(series_get(reg, id)->live);
	assert_int_equal(delta(w, "softirq.NET_RX.cpu1", 11, 12), 0);
	assert_int_equal(delta(w, "softirq.NET_RX.cpu0", 11, 12), 20);

	/* A reset of a CPU's counter (smaller value, not a plausible wrap) counts from 0. */
	w->now = 13 * SEC;
	write_softirqs(w, "                    CPU0       CPU1\n"
	                  "          HI:          0          0\n"
	                  "      NET_RX:          5         40\n");
	sampler_sample_all(w->s);
	assert_int_equal(delta(w, "softirq.NET_RX.cpu0", 12, 13), 5);
	assert_int_equal(delta(w, "softirq.NET_RX.cpu1", 12, 13), 10);
}

/* The total of a series as /metrics shows it (acc + base) and when its count started. */
static uint64_t
total(struct world *w, const char *name, uint64_t *epoch)
{
	series_id id = series_find(sampler_registry(w->s), name);
	const uint64_t *base, *epoch_ns;
	size_t n;

	assert_int_not_equal(id, SERIES_NONE);
	sampler_totals(w->s, &base, &epoch_ns, &n);
	assert_true(id < n);
	*epoch = epoch_ns[id];
	return ring_live_value(sampler_ring(w->s), id) + base[id];
}

/* Totals are the kernel's: the first reading plus the increments since. A 32-bit wrap goes
 * on past 2^32; a CPU's cells that leave and come back, and a reset, start a new count at
 * the reading, with the time of that sample as its start (none for the counts the first
 * sample found under way). */
static void
test_totals(void **state)
{
	struct world *w = *state;
	uint64_t t;

	/* At the first sample the counts began before the daemon: no start time. */
	assert_int_equal(total(w, "softirq.NET_RX.cpu0", &t), 100);
	assert_int_equal(t, 0);
	assert_int_equal(total(w, "softirq.NET_RX.cpu1", &t), 4294967000ull);
	assert_int_equal(total(w, "softirq.HI.cpu1", &t), 0);
	assert_int_equal(t, 0);

	w->now = 11 * SEC;
	write_softirqs(w, "                    CPU0       CPU1\n"
	                  "          HI:          0          0\n"
	                  "      NET_RX:        350        200\n");
	sampler_sample_all(w->s);
	assert_int_equal(total(w, "softirq.NET_RX.cpu0", &t), 350);
	assert_int_equal(total(w, "softirq.NET_RX.cpu1", &t), 4294967496ull);
	assert_int_equal(t, 0);

	w->now = 12 * SEC;
	write_softirqs(w, "                    CPU0\n"
	                  "          HI:          0\n"
	                  "      NET_RX:        370\n");
	sampler_sample_all(w->s);
	w->now = 13 * SEC;
	write_softirqs(w, "                    CPU0       CPU1\n"
	                  "          HI:          0          0\n"
	                  "      NET_RX:        400         30\n");
	sampler_sample_all(w->s);
	assert_int_equal(total(w, "softirq.NET_RX.cpu1", &t), 30);
	assert_int_equal(t, 13 * SEC);
	assert_int_equal(total(w, "softirq.NET_RX.cpu0", &t), 400);
	assert_int_equal(t, 0);
	/* cpu1's cells went at 12 s (the sample that found them gone; their return at 13 s is
	 * the epoch above); cpu0's never went. */
	assert_int_equal(
	    sampler_gone_ns(w->s, series_find(sampler_registry(w->s), "softirq.NET_RX.cpu1")),
	    12 * SEC);
	assert_int_equal(
	    sampler_gone_ns(w->s, series_find(sampler_registry(w->s), "softirq.NET_RX.cpu0")), 0);
	assert_int_equal(sampler_gone_ns(w->s, SERIES_NONE), 0);

	w->now = 14 * SEC;
	write_softirqs(w, "                    CPU0       CPU1\n"
	                  "          HI:          0          0\n"
	                  "      NET_RX:          5         45\n");
	sampler_sample_all(w->s);
	assert_int_equal(total(w, "softirq.NET_RX.cpu0", &t), 5);
	assert_int_equal(t, 14 * SEC);
	assert_int_equal(total(w, "softirq.NET_RX.cpu1", &t), 45);
	assert_int_equal(t, 13 * SEC);
	/* The ring's deltas are those of before: the reset counts its new value. */
	assert_int_equal(delta(w, "softirq.NET_RX.cpu0", 13, 14), 5);
}

/* A restart (a new sampler) goes on from the 32-bit totals the stop kept: the wrapped cell's
 * total stays past 2^32 and grows by what the cell moved meanwhile, a wrap while stopped
 * included; the unwrapped are not kept; a save of another boot is not taken up. */
static void
test_wraps_across_restart(void **state)
{
	static const char *const others[] = {"interrupts", "cpu",     "snmp",   "link",  "queues",
	                                     "ethtool",    "softnet", "lnstat", "sysctl"};
	struct world *w = *state;
	json_object *saved, *series, *e;
	uint64_t t;

	w->now = 11 * SEC;
	write_softirqs(w, "                    CPU0       CPU1\n"
	                  "          HI:          0 4294967000\n"
	                  "      NET_RX:        350        200\n");
	sampler_sample_all(w->s);
	assert_int_equal(total(w, "softirq.NET_RX.cpu1", &t), 4294967496ull);
	saved = sampler_wraps_save(w->s);
	assert_true(json_object_object_get_ex(saved, "series", &series));
	/* Only the cell past 2^32. */
	assert_int_equal(json_object_object_length(series), 1);
	assert_true(json_object_object_get_ex(series, "softirq.NET_RX.cpu1", &e));
	assert_int_equal(json_object_get_int64(json_object_array_get_idx(e, 0)), 4294967496ll);
	assert_int_equal(json_object_get_int64(json_object_array_get_idx(e, 1)), 200);

	/* The restart: the cell moved by 300 while the daemon was down. */
	query_free(w->q);
	sampler_free(w->s);
	config_free(&w->cfg);
	write_softirqs(w, "                    CPU0       CPU1\n"
	                  "          HI:          0         10\n"
	                  "      NET_RX:        360        500\n");
	start_sampler(w, others, sizeof(others) / sizeof(others[0])); /* no save taken: as before */
	assert_int_equal(total(w, "softirq.NET_RX.cpu1", &t), 500);
	query_free(w->q);
	sampler_free(w->s);
	config_free(&w->cfg);
	config_defaults(&w->cfg);
	free(w->cfg.root);
	w->cfg.root = strdup(w->root);
	w->cfg.ring_memory = 1u << 20;
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		config_add_source_opt(&w->cfg, others[i], "enable", "no");
	{
		struct nm_error err;
		w->s = sampler_new(&w->cfg, &err);
		assert_non_null(w->s);
	}
	sampler_set_clock(w->s, fake_clock, w);
	w->q = query_new(w->s);
	assert_int_equal(sampler_wraps_restore(w->s, saved), 1);
	w->now = 20 * SEC;
	sampler_sample_all(w->s);
	assert_int_equal(total(w, "softirq.NET_RX.cpu1", &t), 4294967796ull);
	/* Counted since before the daemon: no start time. */
	assert_int_equal(t, 0);
	/* HI.cpu1 fell by more than a wrap's worth (4294967000 -> 10) but was never kept: the
	 * cell. */
	assert_int_equal(total(w, "softirq.HI.cpu1", &t), 10);
	/* It goes on as any counter: a wrap of the cell adds to the total. */
	w->now = 21 * SEC;
	write_softirqs(w, "                    CPU0       CPU1\n"
	                  "          HI:          0         10\n"
	                  "      NET_RX:        360        700\n");
	sampler_sample_all(w->s);
	assert_int_equal(total(w, "softirq.NET_RX.cpu1", &t), 4294967996ull);

	/* A save of another boot is not taken up. */
	json_object_object_add(saved, "boot_id", json_object_new_string("another-boot"));
	assert_int_equal(sampler_wraps_restore(w->s, saved), 0);
	json_object_put(saved);
}

/* query_span_last_src: the span of "the last 3 s" starts and ends on the source's own
 * samples (the one nearest 3 s back), and the delta is the difference of the values at
 * exactly those two samples: before, a cursor at "newest - 3 s" took the sample before it,
 * one more than the span stated. */
static void
test_span_last_src(void **state)
{
	static const uint64_t at_ms[] = {11100, 12000, 12900, 14000};
	static const unsigned v1[] = {110, 120, 140, 180};
	struct world *w = *state;
	struct nm_error err;
	series_id id = series_find(sampler_registry(w->s), "softirq.NET_RX.cpu0");
	unsigned src = series_get(sampler_registry(w->s), id)->source;
	char text[256];

	/* NET_RX.cpu0 is 100 at 10 s. */
	for (size_t i = 0; i < 4; i++) {
		w->now = at_ms[i] * 1000000ull;
		snprintf(text, sizeof(text),
		         "                    CPU0       CPU1\n"
		         "          HI:          0          0\n"
		         "      NET_RX: %10u 4294967000\n",
		         v1[i]);
		write_softirqs(w, text);
		sampler_sample_all(w->s);
	}
	/* 14.0 - 3 = 11.0: the sample at 11.1 is nearer than the one at 10. */
	assert_int_equal(query_span_last_src(w->q, 3, src, &err), 0);
	assert_int_equal(query_t0(w->q), 11100000000ull);
	assert_int_equal(query_t1(w->q), 14000000000ull);
	assert_int_equal(query_delta(w->q, id), 180 - 110);
	assert_true(query_seconds(w->q, src) == 2.9);
	/* 14.0 - 1.6 = 12.4: 12.0 is nearer than 12.9. */
	assert_int_equal(query_span_last_src(w->q, 1.6, src, &err), 0);
	assert_int_equal(query_t0(w->q), 12000000000ull);
	assert_int_equal(query_delta(w->q, id), 180 - 120);
	/* 14.0 - 1.4 = 12.6: 12.9 is nearer. */
	assert_int_equal(query_span_last_src(w->q, 1.4, src, &err), 0);
	assert_int_equal(query_t0(w->q), 12900000000ull);
	assert_int_equal(query_delta(w->q, id), 180 - 140);
	/* Further back than the ring: from the first sample. */
	assert_int_equal(query_span_last_src(w->q, 100, src, &err), 0);
	assert_int_equal(query_t0(w->q), 10000000000ull);
	assert_int_equal(query_delta(w->q, id), 180 - 100);
}

/* The lnstat source's cells: a gauge that falls (arp_cache entries, 3 -> 1 on CPU 0's row,
 * summed: the level falls by 2, a negative delta and rate), a 32-bit cell that wraps
 * (lookups 0xfffffff0 -> 0x10 counts 0x20; 0x80000010 -> 5 too) and one whose wrapped step
 * would pass 2^31 (5 -> 2: a reset, counts its new value). */
static void
test_gauge_fall_and_wrap(void **state)
{
	static const char *const others[] = {"interrupts", "softirqs", "cpu",     "snmp",  "link",
	                                     "queues",     "ethtool",  "softnet", "sysctl"};
	static const char *const hdr = "entries  allocs   lookups\n";
	struct world *w = calloc(1, sizeof(*w));
	const struct series_registry *reg;
	struct nm_error err;
	char path[160], text[256];
	series_id e, l0, l1;

	(void)state;
	new_root(w);
	snprintf(path, sizeof(path), "%s/proc/net", w->root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/net/stat", w->root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(text, sizeof(text), "%s00000003 00000001 fffffff0\n00000003 00000001 80000010\n",
	         hdr);
	write_file(w->root, "proc/net/stat/arp_cache", text);
	lnstat_per_cpu = true;
	start_sampler(w, others, sizeof(others) / sizeof(others[0]));
	lnstat_per_cpu = false;
	reg = sampler_registry(w->s);
	e = series_find(reg, "lnstat.arp_cache.entries");
	l0 = series_find(reg, "lnstat.arp_cache.cpu0.lookups");
	l1 = series_find(reg, "lnstat.arp_cache.cpu1.lookups");
	assert_int_not_equal(e, SERIES_NONE);
	assert_int_not_equal(l0, SERIES_NONE);
	assert_int_equal(series_get(reg, e)->kind, SERIES_GAUGE);
	assert_int_equal(series_get(reg, l0)->kind, SERIES_COUNTER32);

	w->now = 12 * SEC;
	snprintf(text, sizeof(text), "%s00000001 00000001 00000010\n00000001 00000001 00000005\n",
	         hdr);
	write_file(w->root, "proc/net/stat/arp_cache", text);
	sampler_sample_all(w->s);
	assert_int_equal(query_span(w->q, 10 * SEC, 12 * SEC, &err), 0);
	/* entries is the first row's (not a sum): 3 -> 1. */
	assert_true(query_delta_scaled(w->q, e) == -2.0);
	assert_true(query_rate(w->q, e) == -1.0);
	assert_true(query_value_end(w->q, e) == 1.0);
	assert_int_equal(query_delta(w->q, l0), 0x20);
	/* 0x80000010 -> 5: 5 + 2^32 - 0x80000010 = 0x7ffffff5, below 2^31: a wrap. */
	assert_int_equal(query_delta(w->q, l1), 0x7ffffff5);

	w->now = 13 * SEC;
	snprintf(text, sizeof(text), "%s00000001 00000001 00000011\n00000001 00000001 00000002\n",
	         hdr);
	write_file(w->root, "proc/net/stat/arp_cache", text);
	sampler_sample_all(w->s);
	assert_int_equal(query_span(w->q, 12 * SEC, 13 * SEC, &err), 0);
	assert_int_equal(query_delta(w->q, l0), 1);
	/* 5 -> 2: the wrapped step (2^32 - 3) is past 2^31: a reset, counts 2. */
	assert_int_equal(query_delta(w->q, l1), 2);
	assert_true(query_delta_scaled(w->q, e) == 0.0);

	query_free(w->q);
	sampler_free(w->s);
	config_free(&w->cfg);
	snprintf(path, sizeof(path), "rm -rf %s", w->root);
	assert_int_equal(system(path), 0);
	free(w);
}

/* A source whose file disappears is unhealthy with the reason; it recovers. */
static void
test_health(void **state)
{
	struct world *w = *state;
	struct source *src = sampler_source(w->s, "softirqs");
	char path[128];

	assert_true(src->healthy);
	snprintf(path, sizeof(path), "%s/proc/softirqs", w->root);
	assert_int_equal(truncate(path, 0), 0);
	w->now = 11 * SEC;
	sampler_sample_all(w->s);
	/* An empty file is a parse failure, never a crash; the series keep their values. */
	assert_false(src->healthy);
	assert_non_null(strstr(src->reason, "proc/softirqs"));
	assert_null(strstr(src->reason, "source softirqs"));
	assert_int_equal(src->failures, 1);
	write_softirqs(w, "                    CPU0       CPU1\n"
	                  "          HI:          0          0\n"
	                  "      NET_RX:        110 4294967010\n");
	w->now = 12 * SEC;
	sampler_sample_all(w->s);
	assert_true(src->healthy);
	assert_int_equal(delta(w, "softirq.NET_RX.cpu0", 10, 12), 10);
}

/* /proc/interrupts of two CPUs: IRQ 1 and 2 with counts a, b, c, d. */
static void
write_irqs(const char *root, unsigned a, unsigned b, unsigned c, unsigned d)
{
	char text[1024];

	snprintf(text, sizeof(text),
	         "           CPU0       CPU1\n"
	         "  0:         10          0  IO-APIC   2-edge      timer\n"
	         "  1: %10u %10u  IR-PCI-MSI 1-edge      eth0-TxRx-0\n"
	         "  2: %10u %10u  IR-PCI-MSI 2-edge      eth0-TxRx-1\n"
	         "LOC:        500        600   Local timer interrupts\n",
	         a, b, c, d);
	write_file(root, "proc/interrupts", text);
}

/* /proc/stat of two CPUs with the intr totals of IRQs 0, 1 and 2. */
static void
write_stat(const char *root, unsigned t1, unsigned t2)
{
	char text[1024];

	snprintf(text, sizeof(text),
	         "cpu  100 0 100 1000 0 0 0 0 0 0\n"
	         "cpu0 50 0 50 500 0 0 0 0 0 0\n"
	         "cpu1 50 0 50 500 0 0 0 0 0 0\n"
	         "intr %u 10 %u %u\n"
	         "ctxt 1000\n",
	         10 + t1 + t2, t1, t2);
	write_file(root, "proc/stat", text);
}

/* The interrupts source's lines_skipped in status. */
static int64_t
lines_skipped(struct sampler *s)
{
	json_object *st = sampler_status_json(s), *srcs, *so, *v = NULL;
	int64_t n = -1;

	assert_true(json_object_object_get_ex(st, "sources", &srcs));
	for (size_t i = 0; i < json_object_array_length(srcs); i++) {
		so = json_object_array_get_idx(srcs, i);
		if (strcmp(json_object_get_string(json_object_object_get(so, "name")),
		           "interrupts") == 0 &&
		    json_object_object_get_ex(json_object_object_get(so, "details"),
		                              "lines_skipped", &v))
			n = json_object_get_int64(v);
	}
	json_object_put(st);
	return n;
}

/* The cpu source, sampled first, hands the interrupts source /proc/stat's intr line: lines
 * whose total did not move are left unread, and a count the totals do not show yet comes
 * one sample later. */
static void
test_intr_totals(void **state)
{
	static const char *const others[] = {"softirqs", "snmp",    "link",   "queues",
	                                     "ethtool",  "softnet", "lnstat", "sysctl"};
	struct world *w = calloc(1, sizeof(*w));

	(void)state;
	new_root(w);
	write_irqs(w->root, 100, 200, 300, 400);
	write_stat(w->root, 300, 700);
	start_sampler(w, others, sizeof(others) / sizeof(others[0]));
	assert_int_equal(lines_skipped(w->s), 0); /* nothing to compare the totals with */
	w->now = 11 * SEC;
	sampler_sample_all(w->s);
	assert_int_equal(lines_skipped(w->s), 3);

	write_irqs(w->root, 105, 200, 300, 400);
	write_stat(w->root, 305, 700);
	w->now = 12 * SEC;
	sampler_sample_all(w->s);
	assert_int_equal(lines_skipped(w->s), 2);
	assert_int_equal(delta(w, "irq.1.cpu0", 11, 12), 5);

	/* Counted after /proc/stat was read: its total has not moved yet. */
	write_irqs(w->root, 105, 200, 300, 407);
	w->now = 13 * SEC;
	sampler_sample_all(w->s);
	assert_int_equal(lines_skipped(w->s), 3);
	assert_int_equal(delta(w, "irq.2.cpu1", 12, 13), 0);
	write_stat(w->root, 305, 707);
	w->now = 14 * SEC;
	sampler_sample_all(w->s);
	assert_int_equal(lines_skipped(w->s), 2);
	assert_int_equal(delta(w, "irq.2.cpu1", 13, 14), 7);
	assert_int_equal(delta(w, "irq.LOC.cpu1", 10, 14), 0);
	*state = w;
	assert_int_equal(teardown(state), 0);
}

/* Sources sampled back to back share a round (source.round_ns: the first one's time), each
 * once, however long each took; a source on its own later starts a round of its own. */
static void
test_rounds(void **state)
{
	static const char *const others[] = {"snmp",    "link",   "queues", "ethtool",
	                                     "softnet", "lnstat", "sysctl"};
	struct world *w = calloc(1, sizeof(*w));
	struct source *srcs[3];

	(void)state;
	new_root(w);
	write_irqs(w->root, 100, 200, 300, 400);
	write_stat(w->root, 300, 700);
	write_softirqs(w, "                    CPU0       CPU1\n"
	                  "      NET_RX:        100        200\n");
	start_sampler(w, others, sizeof(others) / sizeof(others[0]));
	srcs[0] = sampler_source_of(w->s, SAMPLER_INTERRUPTS);
	srcs[1] = sampler_source_of(w->s, SAMPLER_SOFTIRQS);
	srcs[2] = sampler_source_of(w->s, SAMPLER_CPU);
	/* Every clock reading 1 ms on: each sample takes 1 ms and the next starts 1 ms after;
	 * the third starts 4 ms after the first, later than DEVLIST_FRESH_NS. */
	w->tick = 1000000ull;
	for (int round = 0; round < 2; round++) {
		uint64_t first = UINT64_MAX;
		w->now = (uint64_t)(20 + round) * SEC;
		sampler_sample_all(w->s);
		for (int i = 0; i < 3; i++)
			if (srcs[i]->sample_ns < first)
				first = srcs[i]->sample_ns;
		assert_true(first > (uint64_t)(20 + round) * SEC);
		for (int i = 0; i < 3; i++) {
			assert_int_equal(srcs[i]->round_ns, first);
			assert_true(srcs[i]->sample_ns == first ||
			            srcs[i]->sample_ns >= first + 2 * w->tick);
		}
	}
	*state = w;
	assert_int_equal(teardown(state), 0);
}

/* Every source of the sampler's table says where its series go: its Prometheus families
 * (a list, source_not_exported when none) and whether results keep it. A source added
 * without saying fails here rather than being left out of /metrics and of results. */
static void
test_sources_say(void **state)
{
	const struct source_ops *ops;
	size_t n = 0;

	(void)state;
	for (size_t i = 0; (ops = sampler_table_ops(i)) != NULL; i++, n++) {
		bool named = false;
		if (ops->prom == NULL)
			fail_msg("source %s: no Prometheus families (.prom; source_not_exported "
			         "when none)",
			         ops->name);
		if (ops->keep != SOURCE_KEPT && ops->keep != SOURCE_NOT_KEPT)
			fail_msg("source %s: no decision whether results keep it (.keep)",
			         ops->name);
		if (ops->keep_except != NULL && ops->keep != SOURCE_KEPT)
			fail_msg("source %s: keep_except on a source not kept", ops->name);
		for (const struct source_family *r = ops->prom; r->family != NULL; r++)
			named = named || r->family[0] != '\0';
		if (!named && ops->prom != source_not_exported)
			fail_msg("source %s: no family (source_not_exported if on purpose)",
			         ops->name);
	}
	assert_int_equal(n, SAMPLER_NSOURCES);
}

/* proc/net/dev with eth0 at rx packets p (its bytes 100 p) and proc/net/softnet_stat with two
 * CPUs that processed p and 2 p. */
static void
write_fine_files(const char *root, uint64_t p)
{
	char buf[1024];

	snprintf(buf, sizeof(buf),
	         "Inter-|   Receive                                                |  Transmit\n"
	         " face |bytes    packets errs drop fifo frame compressed multicast|bytes    "
	         "packets errs drop fifo colls carrier compressed\n"
	         "  eth0: %llu %llu 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
	         (unsigned long long)(100 * p), (unsigned long long)p);
	write_file(root, "proc/net/dev", buf);
	snprintf(buf, sizeof(buf),
	         "%08llx 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
	         "00000000 00000000 00000000 00000000 00000000\n"
	         "%08llx 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
	         "00000000 00000000 00000000 00000000 00000001\n",
	         (unsigned long long)(p & 0xffffffffu), (unsigned long long)(2 * p & 0xffffffffu));
	write_file(root, "proc/net/softnet_stat", buf);
}

/* The acc of series name at the main ring's state at t. */
static uint64_t
ring_value_at(struct world *w, const char *name, uint64_t t)
{
	struct ring_cursor *c = ring_cursor_new(sampler_ring(w->s));
	series_id id = series_find(sampler_registry(w->s), name);
	uint64_t v;

	assert_int_not_equal(id, SERIES_NONE);
	assert_int_equal(ring_cursor_seek(c, t), 0);
	v = ring_cursor_value(c, id);
	ring_cursor_free(c);
	return v;
}

/* An hour of fine sampling at 10 ms on a driven clock (link and softnet fine, softirqs at
 * 1 s): the main ring and the fine ring together stay within ring_memory, the fine ring
 * keeps fine_keep; the fine sources still have one record a second in the main ring, each
 * at its timer's beat, as the 1 s source has; the main ring's
 * sums are the files' counts; a 10 ms burst shows in the peak series of its second at its
 * rate long after the fine ring has let it go; ticks late by 13 ms show as lateness and are
 * no burst. */
static void
test_fine_hour(void **state)
{
	static const char *const others[] = {"interrupts", "cpu",    "snmp",  "queues",
	                                     "ethtool",    "lnstat", "sysctl"};
	struct world *w = calloc(1, sizeof(*w));
	struct ring_stats mst, fst;
	struct nm_error err;
	const uint64_t t0 = 10 * SEC, ms = 1000000ull, steps = 360000;
	uint64_t p = 1000, times[4000];
	unsigned long n0, warm_allocs = 0;
	char path[128];
	size_t n;
	json_object *st, *srcs;

	(void)state;
	new_root(w);
	snprintf(path, sizeof(path), "%s/proc/net", w->root);
	assert_int_equal(mkdir(path, 0755), 0);
	write_softirqs(w, "                    CPU0       CPU1\n"
	                  "      NET_RX:        100        200\n");
	write_fine_files(w->root, p);
	config_defaults(&w->cfg);
	free(w->cfg.root);
	w->cfg.root = strdup(w->root);
	w->cfg.ring_memory = 4u << 20;
	w->cfg.fine_when = CONFIG_FINE_ALWAYS;
	w->cfg.fine_keep_ms = 10000;
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		config_add_source_opt(&w->cfg, others[i], "enable", "no");
	w->s = sampler_new(&w->cfg, &err);
	assert_non_null(w->s);
	sampler_set_clock(w->s, fake_clock, w);
	w->q = query_new(w->s);
	assert_non_null(sampler_fine_ring(w->s));
	assert_true(sampler_fine_source(w->s, SAMPLER_LINK));
	assert_true(sampler_fine_source(w->s, SAMPLER_SOFTNET));
	assert_false(sampler_fine_source(w->s, SAMPLER_SOFTIRQS));
	w->now = t0;
	sampler_sample_all(w->s);
	for (uint64_t k = 1; k <= steps; k++) {
		/* Every tenth tick 13 ms late (it moves nothing: no burst); the files move by
		 * 500 packets every 500 ms, and by 50,000 more once, in the second from 1800 s. */
		w->now = t0 + k * 10 * ms + (k % 10 == 5 ? 13 * ms : 0);
		if (k % 50 == 0) {
			p += 500 + (k == 180050 ? 50000 : 0);
			write_fine_files(w->root, p);
		}
		n0 = nallocs;
		sampler_fine_tick(w->s);
		if (k % 100 == 0) {
			sampler_beat(w->s, SAMPLER_SOFTIRQS);
			sampler_beat(w->s, SAMPLER_LINK); /* fine: the ticks record it */
			sampler_beat(w->s, SAMPLER_SOFTNET);
		}
		if (k > 6000) /* warm after a minute: sampling allocates nothing */
			warm_allocs += nallocs - n0;
	}
	if (COUNT_ALLOCS) {
		assert_true(nallocs > 0); /* the wrappers count: sampler_new allocated */
		assert_int_equal(warm_allocs, 0);
	}
	/* Bytes: the two rings share ring_memory and hold no more. */
	ring_get_stats(sampler_ring(w->s), &mst);
	ring_get_stats(sampler_fine_ring(w->s), &fst);
	assert_int_equal(mst.capacity + fst.capacity, w->cfg.ring_memory);
	assert_true(mst.used <= mst.capacity);
	assert_true(fst.used <= fst.capacity);
	assert_true(fst.evicted_segments > 0);
	/* The fine ring holds fine_keep, give or take a segment (a quarter of it). */
	assert_true(fst.oldest_ns >= w->now - 10 * SEC - 3 * SEC);
	assert_true(fst.oldest_ns <= w->now - 10 * SEC + 3 * SEC);
	/* The main ring kept the whole hour: one record of each source a second. */
	assert_true(mst.oldest_ns <= t0);
	n = ring_src_times(sampler_ring(w->s), SAMPLER_SOFTIRQS, w->now, times, 4000);
	assert_int_equal(n, 3601);
	for (size_t i = 0; i + 1 < n; i++)
		assert_int_equal(times[i] - times[i + 1], SEC);
	n = ring_src_times(sampler_ring(w->s), SAMPLER_LINK, w->now, times, 4000);
	assert_int_equal(n, 3601);
	for (size_t i = 0; i + 1 < n; i++)
		assert_int_equal(times[i] - times[i + 1], SEC); /* each at its beat */
	/* The main ring's sums are the files' counts. */
	assert_int_equal(ring_value_at(w, "link.eth0.rx_packets", w->now) -
	                     ring_value_at(w, "link.eth0.rx_packets", t0),
	                 7200 * 500 + 50000);
	assert_int_equal(ring_value_at(w, "softnet.cpu1.processed", w->now) -
	                     ring_value_at(w, "softnet.cpu1.processed", t0),
	                 2 * (7200 * 500 + 50000));
	/* Peaks: 500 packets in a 10 ms interval is 50,000/s (the mean is 1,000/s); the burst's
	 * second 5,050,000/s; an hour on, from the main ring alone. */
	assert_int_equal(ring_value_at(w, "peak.link.eth0.rx_packets", t0 + 1800 * SEC), 50000);
	assert_int_equal(ring_value_at(w, "peak.link.eth0.rx_packets", t0 + 1801 * SEC), 5050000);
	assert_int_equal(ring_value_at(w, "peak.link.eth0.rx_packets", t0 + 1802 * SEC), 50000);
	assert_int_equal(ring_value_at(w, "peak.link.eth0.rx_bytes", t0 + 1801 * SEC), 505000000);
	assert_int_equal(ring_value_at(w, "peak.softnet.cpu1.processed", t0 + 1801 * SEC),
	                 10100000);
	/* Over a span of several records, the highest peak, not the last record's: three
	 * consecutive spans of 10 s (the walk going on from one to the next), then one again
	 * (sought afresh); the ends alone would say 50,000 for each. */
	{
		series_id pk = series_find(sampler_registry(w->s), "peak.link.eth0.rx_packets"),
		          two[2] = {pk,
		                    series_find(sampler_registry(w->s), "peak.link.eth0.rx_bytes")};
		const uint64_t half = SEC / 2;
		double mx[2];

		assert_int_equal(
		    query_span(w->q, t0 + 1790 * SEC + half, t0 + 1800 * SEC + half, &err), 0);
		query_gauge_max(w->q, &pk, 1, mx);
		assert_true(mx[0] == 50000);
		assert_int_equal(
		    query_span(w->q, t0 + 1800 * SEC + half, t0 + 1810 * SEC + half, &err), 0);
		assert_true(query_value_end(w->q, pk) == 50000);
		query_gauge_max(w->q, two, 2, mx);
		assert_true(mx[0] == 5050000 && mx[1] == 505000000);
		assert_int_equal(
		    query_span(w->q, t0 + 1810 * SEC + half, t0 + 1820 * SEC + half, &err), 0);
		query_gauge_max(w->q, &pk, 1, mx);
		assert_true(mx[0] == 50000);
		assert_int_equal(query_span(w->q, t0 + 1700 * SEC, t0 + 1900 * SEC, &err), 0);
		query_gauge_max(w->q, &pk, 1, mx);
		assert_true(mx[0] == 5050000);
	}
	assert_int_equal(
	    sampler_peak_of(w->s, series_find(sampler_registry(w->s), "link.eth0.rx_packets")),
	    series_find(sampler_registry(w->s), "peak.link.eth0.rx_packets"));
	assert_true(sampler_registry(w->s)
	                ->v[series_find(sampler_registry(w->s), "peak.link.eth0.rx_packets")]
	                .peak);
	/* Not exported on /metrics (the softnet source's gauge rule would take it), kept by
	 * results as its counter is. */
	{
		const struct series_registry *reg = sampler_registry(w->s);
		series_id c = series_find(reg, "softnet.cpu1.processed"),
		          pk = series_find(reg, "peak.softnet.cpu1.processed");
		const struct source_ops *ops = sampler_table_ops(SAMPLER_SOFTNET);
		struct series_labels l = series_labels_of(reg, pk);

		assert_non_null(source_family_of(ops, reg, c));
		assert_null(source_family_of(ops, reg, pk));
		assert_true(source_keeps(ops, reg, c));
		assert_true(source_keeps(ops, reg, pk));
		assert_string_equal(series_atom_str(reg, l.field), "processed.peak_rate");
		assert_int_equal(l.cpu, 1);
		assert_string_equal(series_get(reg, pk)->unit, "packets/s");
		assert_int_equal(series_get(reg, pk)->kind, SERIES_GAUGE);
	}
	/* status: the late ticks, 13 ms late, are the largest lateness; most ticks were on time.
	 */
	st = sampler_status_json(w->s);
	assert_true(json_object_object_get_ex(st, "sources", &srcs));
	for (size_t i = 0; i < json_object_array_length(srcs); i++) {
		json_object *so = json_object_array_get_idx(srcs, i), *f;
		const char *name = json_object_get_string(json_object_object_get(so, "name"));

		if (strcmp(name, "link") != 0 && strcmp(name, "softnet") != 0) {
			assert_false(json_object_object_get_ex(so, "fine", &f));
			continue;
		}
		assert_true(json_object_object_get_ex(so, "fine", &f));
		assert_true(json_object_get_boolean(json_object_object_get(f, "on")));
		assert_int_equal(json_object_get_int64(json_object_object_get(f, "samples")),
		                 steps);
		assert_true(json_object_get_double(json_object_object_get(f, "late_max_ms")) >
		            12.99);
		assert_true(json_object_get_double(json_object_object_get(f, "late_max_ms")) <
		            13.01);
		assert_true(json_object_get_double(json_object_object_get(f, "late_median_ms")) <
		            0.01);
		assert_int_equal(json_object_get_int64(json_object_object_get(f, "late_samples")),
		                 steps / 10);
	}
	json_object_put(st);
	*state = w;
	assert_int_equal(teardown(state), 0);
}

/* A fine source that cannot initialise (no proc/net/softnet_stat) is retried at its own
 * beat, not at every fine tick; the others are sampled fine meanwhile, and once its file is
 * there it is sampled fine too. */
static void
test_fine_init_retry(void **state)
{
	static const char *const others[] = {"interrupts", "cpu",    "snmp",  "queues",
	                                     "ethtool",    "lnstat", "sysctl"};
	struct world *w = calloc(1, sizeof(*w));
	struct source *sn, *ln;
	struct nm_error err;
	char path[128];

	(void)state;
	new_root(w);
	snprintf(path, sizeof(path), "%s/proc/net", w->root);
	assert_int_equal(mkdir(path, 0755), 0);
	write_softirqs(w, "                    CPU0       CPU1\n"
	                  "      NET_RX:        100        200\n");
	write_fine_files(w->root, 1000);
	snprintf(path, sizeof(path), "%s/proc/net/softnet_stat", w->root);
	assert_int_equal(unlink(path), 0);
	config_defaults(&w->cfg);
	free(w->cfg.root);
	w->cfg.root = strdup(w->root);
	w->cfg.ring_memory = 4u << 20;
	w->cfg.fine_when = CONFIG_FINE_ALWAYS;
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		config_add_source_opt(&w->cfg, others[i], "enable", "no");
	w->s = sampler_new(&w->cfg, &err);
	assert_non_null(w->s);
	sampler_set_clock(w->s, fake_clock, w);
	w->q = query_new(w->s);
	w->now = 10 * SEC;
	sampler_sample_all(w->s);
	sn = sampler_source_of(w->s, SAMPLER_SOFTNET);
	ln = sampler_source_of(w->s, SAMPLER_LINK);
	assert_false(sn->initialised);
	assert_int_equal(sn->failures, 1);
	for (uint64_t k = 1; k <= 200; k++) {
		w->now = 10 * SEC + k * 10000000ull;
		sampler_fine_tick(w->s);
		if (k % 100 == 0) {
			sampler_beat(w->s, SAMPLER_LINK);
			sampler_beat(w->s, SAMPLER_SOFTNET);
		}
		if (k == 150)
			write_fine_files(w->root, 2000);
	}
	/* Tried at the two beats only; the second found the file. */
	assert_int_equal(sn->failures, 2);
	assert_true(sn->initialised);
	assert_int_equal(ln->samples, 1 + 200 + 2); /* the first, the ticks, the beats */
	assert_int_equal(sn->samples, 1);           /* the beat at 2 s; no tick since */
	w->now += 10000000ull;
	sampler_fine_tick(w->s);
	assert_int_equal(sn->samples, 2);
	*state = w;
	assert_int_equal(teardown(state), 0);
}

/* A wanted() for sampler_set_fine_wanted: the bool arg points at. */
static bool
bool_arg(void *arg)
{
	return *(bool *)arg;
}

/* Fine sampling follows a reloaded configuration: fine_when, the fine set, a disabled
 * source; a window wanted or not (fine_when = window); status says why. */
static void
test_fine_reconfigure(void **state)
{
	static const char *const others[] = {"interrupts", "cpu",    "snmp",  "queues",
	                                     "ethtool",    "lnstat", "sysctl"};
	struct world *w = calloc(1, sizeof(*w));
	struct config cfg;
	struct nm_error err;
	bool window = false;
	struct event_base *base;
	json_object *st, *fine;
	char path[128];

	(void)state;
	new_root(w);
	snprintf(path, sizeof(path), "%s/proc/net", w->root);
	assert_int_equal(mkdir(path, 0755), 0);
	write_softirqs(w, "                    CPU0       CPU1\n"
	                  "      NET_RX:        100        200\n");
	write_fine_files(w->root, 1000);
	config_defaults(&w->cfg);
	free(w->cfg.root);
	w->cfg.root = strdup(w->root);
	w->cfg.ring_memory = 4u << 20;
	w->cfg.fine_when = CONFIG_FINE_ALWAYS;
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		config_add_source_opt(&w->cfg, others[i], "enable", "no");
	w->s = sampler_new(&w->cfg, &err);
	assert_non_null(w->s);
	sampler_set_clock(w->s, fake_clock, w);
	w->q = query_new(w->s);
	w->now = 10 * SEC;
	base = event_base_new();
	sampler_start(w->s, base); /* reconfigure re-arms timers: a loop is needed */
	assert_true(sampler_fine_update(w->s));

	config_copy(&cfg, &w->cfg);
	cfg.fine_when = CONFIG_FINE_NEVER;
	assert_int_equal(sampler_reconfigure(w->s, &cfg, &err), 0);
	assert_false(sampler_fine_update(w->s));
	st = sampler_status_json(w->s);
	assert_true(json_object_object_get_ex(st, "fine", &fine));
	assert_string_equal(json_object_get_string(json_object_object_get(fine, "why")),
	                    "fine_when = never");
	json_object_put(st);

	/* fine_when = window: on while the daemon says a window is open. */
	cfg.fine_when = CONFIG_FINE_WINDOW;
	assert_int_equal(sampler_reconfigure(w->s, &cfg, &err), 0);
	assert_false(sampler_fine_update(w->s));
	sampler_set_fine_wanted(w->s, bool_arg, &window);
	assert_false(sampler_fine_update(w->s));
	window = true;
	assert_true(sampler_fine_update(w->s));
	assert_true(sampler_fine_source(w->s, SAMPLER_LINK));

	/* link disabled: softnet alone; fine = none: off, saying why. */
	config_add_source_opt(&cfg, "link", "enable", "no");
	assert_int_equal(sampler_reconfigure(w->s, &cfg, &err), 0);
	assert_false(sampler_fine_source(w->s, SAMPLER_LINK));
	assert_true(sampler_fine_source(w->s, SAMPLER_SOFTNET));
	assert_true(sampler_fine_update(w->s));
	cfg.fine_sources = 0;
	assert_int_equal(sampler_reconfigure(w->s, &cfg, &err), 0);
	assert_false(sampler_fine_update(w->s));
	st = sampler_status_json(w->s);
	assert_true(json_object_object_get_ex(st, "fine", &fine));
	assert_string_equal(json_object_get_string(json_object_object_get(fine, "why")),
	                    "no enabled source is in [sampling] fine");
	json_object_put(st);
	config_free(&cfg);
	*state = w;
	assert_int_equal(teardown(state), 0);
	event_base_free(base);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_deltas_and_wrap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_totals, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_vanish_and_return, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_health, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_span_last_src, setup, teardown),
	    cmocka_unit_test(test_rounds),
	    cmocka_unit_test(test_gauge_fall_and_wrap),
	    cmocka_unit_test_setup_teardown(test_wraps_across_restart, setup, teardown),
	    cmocka_unit_test(test_intr_totals),
	    cmocka_unit_test(test_sources_say),
	    cmocka_unit_test(test_fine_hour),
	    cmocka_unit_test(test_fine_reconfigure),
	    cmocka_unit_test(test_fine_init_retry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
