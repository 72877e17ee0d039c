/* test-source-softirqs.c: /proc/softirqs parsing, on fixtures from gen-host.py, on
 * hand-written files and on this machine's /proc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "series.h"
#include "sink.h"
#include "source.h"

/* The test double of the sampler's sink: the last value put per id, and what this sample
 * put and declared gone. */
struct sink {
	uint64_t *val;
	uint8_t *put, *gone;
	size_t cap;
	size_t nput, ngone;
};

/* Grow the sink's arrays to hold id. */
static void
sink_reserve(struct sink *s, series_id id)
{
	size_t cap = s->cap ? s->cap : 1024;

	if (id < s->cap)
		return;
	while (cap <= id)
		cap *= 2;
	s->val = realloc(s->val, cap * sizeof(*s->val));
	s->put = realloc(s->put, cap);
	s->gone = realloc(s->gone, cap);
	memset(s->val + s->cap, 0, (cap - s->cap) * sizeof(*s->val));
	memset(s->put + s->cap, 0, cap - s->cap);
	memset(s->gone + s->cap, 0, cap - s->cap);
	s->cap = cap;
}

/* Record a value put. */
void
sink_put(struct sink *s, series_id id, uint64_t raw)
{
	sink_reserve(s, id);
	s->val[id] = raw;
	s->put[id] = 1;
	s->nput++;
}

/* Record a series declared gone. */
void
sink_gone(struct sink *s, series_id id)
{
	sink_reserve(s, id);
	s->gone[id] = 1;
	s->ngone++;
}

/* Forget what the last sample put (values stay). */
static void
sink_clear(struct sink *s)
{
	if (s->cap) {
		memset(s->put, 0, s->cap);
		memset(s->gone, 0, s->cap);
	}
	s->nput = s->ngone = 0;
}

/* Free the sink's arrays. */
static void
sink_free(struct sink *s)
{
	free(s->val);
	free(s->put);
	free(s->gone);
	memset(s, 0, sizeof(*s));
}

/* One test's world: a fixture dir, a registry, the source and the sink. */
struct world {
	char dir[64];
	struct series_registry reg;
	struct source src;
	struct sink sink;
	json_object *js; /* the last gen-host.py summary */
};

/* Run gen-host.py into the world's dir and keep its summary. */
static void
gen(struct world *w, const char *args)
{
	char cmd[1024], *out = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "python3 -S %s/gen-host.py %s --json %s", FIXTURE_DIR, w->dir,
	         args);
	f = popen(cmd, "r");
	assert_non_null(f);
	do {
		if (len + 65536 > cap) {
			cap = cap ? cap * 2 : 1 << 20;
			out = realloc(out, cap);
		}
		n = fread(out + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	out[len] = '\0';
	assert_int_equal(pclose(f), 0);
	if (w->js)
		json_object_put(w->js);
	w->js = json_tokener_parse(out);
	assert_non_null(w->js);
	free(out);
}

/* Set up a world for a source on root (NULL: a new temporary fixture dir). */
static void
world_open(struct world *w, const struct source_ops *ops, const char *root)
{
	memset(w, 0, sizeof(*w));
	if (root == NULL) {
		strcpy(w->dir, "/tmp/nm-test-src-XXXXXX");
		assert_non_null(mkdtemp(w->dir));
		root = w->dir;
	}
	series_registry_init(&w->reg);
	w->src.ops = ops;
	w->src.root = root;
	w->src.host = strcmp(root, "/") == 0;
	w->src.rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(w->src.rootfd >= 0);
	w->src.reg = &w->reg;
}

/* Init the source, failing the test on error. */
static void
world_init(struct world *w)
{
	struct nm_error err;

	nm_error_clear(&err);
	if (w->src.ops->init(&w->src, &err) < 0)
		fail_msg("init: %s", err.message);
}

/* One sample into a cleared sink. */
static void
sample(struct world *w)
{
	struct nm_error err;

	nm_error_clear(&err);
	sink_clear(&w->sink);
	if (w->src.ops->sample(&w->src, &w->sink, &err) < 0)
		fail_msg("sample: %s", err.message);
}

/* Tear a world down and remove its fixture dir. */
static void
world_close(struct world *w)
{
	char cmd[128];

	w->src.ops->free(&w->src);
	close(w->src.rootfd);
	series_registry_free(&w->reg);
	sink_free(&w->sink);
	if (w->js)
		json_object_put(w->js);
	if (w->dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", w->dir);
		assert_int_equal(system(cmd), 0);
	}
}

/* The id of a series that must exist. */
static series_id
must_find(struct world *w, const char *name)
{
	series_id id = series_find(&w->reg, name);

	if (id == SERIES_NONE)
		fail_msg("no series %s", name);
	return id;
}

/* A member of the summary. */
static json_object *
js_get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("summary has no %s", key);
	return v;
}

/* A summary number as 64 bits: json-c keeps values past 2^63 as unsigned, negative ones
 * (gauge deltas) as signed. */
static uint64_t
js_u64(json_object *v)
{
	int64_t i = json_object_get_int64(v);

	return i == INT64_MAX ? json_object_get_uint64(v) : (uint64_t)i;
}

/* Check every summary value of a series starting with prefix against what was put. */
static void
check_values(struct world *w, const char *prefix)
{
	json_object_object_foreach(js_get(w->js, "values"), name, v)
	{
		series_id id;

		if (strncmp(name, prefix, strlen(prefix)) != 0)
			continue;
		id = must_find(w, name);
		assert_true(id < w->sink.cap);
		if (w->sink.val[id] != js_u64(v))
			fail_msg("%s: got %llu, want %llu", name,
			         (unsigned long long)w->sink.val[id],
			         (unsigned long long)js_u64(v));
	}
}

/* Make a directory below the fixture dir. */
static void
make_dir(struct world *w, const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", w->dir, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* Write a file below the fixture dir by hand (in place: the source's fd sees it). */
static void
write_file(struct world *w, const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", w->dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The number a summary member holds. */
static int64_t
js_int(struct world *w, const char *key, const char *sub)
{
	json_object *o = js_get(w->js, key);

	return json_object_get_int64(sub ? js_get(o, sub) : o);
}

/* The value last put for a series that must exist. */
static uint64_t
val(struct world *w, const char *name)
{
	series_id id = must_find(w, name);

	assert_true(id < w->sink.cap);
	return w->sink.val[id];
}

/* 144 CPUs: every cell at step 0, only the changed ones at step 1 (one wraps at 2^32),
 * nothing when the file did not change. */
static void
test_steps(void **state)
{
	struct world w;
	uint64_t v0;
	int64_t changed;

	(void)state;
	world_open(&w, &source_softirqs_ops, NULL);
	gen(&w, "--only softirqs");
	world_init(&w);
	sample(&w);
	assert_int_equal(w.sink.nput, 10 * 144);
	check_values(&w, "softirq.");
	v0 = val(&w, "softirq.NET_RX.cpu1");
	assert_int_equal(v0, 4294967296 - 500);
	assert_int_equal(series_get(&w.reg, must_find(&w, "softirq.RCU.cpu143"))->kind,
	                 SERIES_COUNTER32);
	assert_string_equal(series_get(&w.reg, must_find(&w, "softirq.RCU.cpu143"))->unit,
	                    "softirqs");
	changed = js_int(&w, "changed", "softirqs");

	gen(&w, "--only softirqs --step 1");
	sample(&w);
	assert_int_equal(w.sink.nput, changed);
	assert_int_equal(w.sink.ngone, 0);
	check_values(&w, "softirq.");
	assert_int_equal((uint32_t)(val(&w, "softirq.NET_RX.cpu1") - v0),
	                 js_int(&w, "deltas", "softirq.NET_RX.cpu1"));
	sample(&w);
	assert_int_equal(w.sink.nput, 0);
	world_close(&w);
}

/* Columns follow the header: a CPU missing, then added, then another removed. */
static void
test_header(void **state)
{
	struct world w;
	series_id a2;

	(void)state;
	world_open(&w, &source_softirqs_ops, NULL);
	make_dir(&w, "proc");
	write_file(&w, "proc/softirqs",
	           "                    CPU0       CPU2       CPU3\n"
	           "          HI:          1          2          3\n"
	           "      NET_RX:         10         20         30\n");
	world_init(&w);
	sample(&w);
	assert_int_equal(w.sink.nput, 6);
	assert_int_equal(val(&w, "softirq.NET_RX.cpu2"), 20);
	assert_int_equal(val(&w, "softirq.NET_RX.cpu3"), 30);
	assert_int_equal(series_find(&w.reg, "softirq.NET_RX.cpu1"), SERIES_NONE);
	a2 = must_find(&w, "softirq.HI.cpu2");

	write_file(&w, "proc/softirqs",
	           "                    CPU0       CPU1       CPU2       CPU3\n"
	           "          HI:          1          5          2          3\n"
	           "      NET_RX:         10         50         20         31\n");
	sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(val(&w, "softirq.NET_RX.cpu1"), 50);
	assert_int_equal(val(&w, "softirq.NET_RX.cpu3"), 31);
	assert_int_equal(val(&w, "softirq.HI.cpu2"), 2);

	write_file(&w, "proc/softirqs",
	           "                    CPU0       CPU1       CPU3\n"
	           "          HI:          1          5          3\n"
	           "      NET_RX:         10         50         32\n");
	sample(&w);
	assert_int_equal(w.sink.ngone, 2);
	assert_true(w.sink.gone[a2]);
	assert_int_equal(val(&w, "softirq.NET_RX.cpu3"), 32);

	/* CPU 2 back: the same ids, put again. */
	write_file(&w, "proc/softirqs",
	           "                    CPU0       CPU1       CPU2       CPU3\n"
	           "          HI:          1          5          2          3\n"
	           "      NET_RX:         10         50         20         32\n");
	sample(&w);
	assert_int_equal(must_find(&w, "softirq.HI.cpu2"), a2);
	assert_true(w.sink.put[a2]);
	world_close(&w);
}

/* Rows reordered, added, listed twice and removed; cells changing width in place; a file
 * cut mid-line; a file without a header. */
static void
test_rows(void **state)
{
	struct nm_error err;
	struct world w;
	series_id timer0;

	(void)state;
	world_open(&w, &source_softirqs_ops, NULL);
	make_dir(&w, "proc");
	write_file(&w, "proc/softirqs",
	           "            CPU0  CPU1\n"
	           "     HI:        9     1\n"
	           "  TIMER:      100   200\n");
	world_init(&w);
	sample(&w);
	timer0 = must_find(&w, "softirq.TIMER.cpu0");
	/* 9 -> 10 in place: one cell. */
	write_file(&w, "proc/softirqs",
	           "            CPU0  CPU1\n"
	           "     HI:       10     1\n"
	           "  TIMER:      100   200\n");
	sample(&w);
	assert_int_equal(w.sink.nput, 1);
	assert_int_equal(val(&w, "softirq.HI.cpu0"), 10);
	/* Reordered, a new type, a longer line. */
	write_file(&w, "proc/softirqs",
	           "            CPU0  CPU1\n"
	           "  TIMER:   123456   201\n"
	           "     HI:       10     1\n"
	           "    NEW:        7     8\n");
	sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(w.sink.nput, 4);
	assert_int_equal(w.sink.val[timer0], 123456);
	assert_int_equal(val(&w, "softirq.NEW.cpu1"), 8);
	/* Listed twice: the first counts. Cut mid-line: nothing goes. */
	write_file(&w, "proc/softirqs",
	           "            CPU0  CPU1\n"
	           "  TIMER:   123457   201\n"
	           "  TIMER:        1     1\n"
	           "     HI:    ");
	sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(w.sink.val[timer0], 123457);
	/* HI gone for good: its two cells and NEW's. */
	write_file(&w, "proc/softirqs",
	           "            CPU0  CPU1\n"
	           "  TIMER:   123458   201\n");
	sample(&w);
	assert_int_equal(w.sink.ngone, 4);
	assert_true(w.sink.gone[must_find(&w, "softirq.HI.cpu0")]);
	assert_int_equal(w.sink.val[timer0], 123458);

	write_file(&w, "proc/softirqs", "TIMER: 1 2\n");
	assert_int_equal(w.src.ops->sample(&w.src, &w.sink, &err), -1);
	assert_string_equal(err.message, "source softirqs: proc/softirqs: no CPU header");
	world_close(&w);
}

/* A root without /proc/softirqs. */
static void
test_missing(void **state)
{
	struct nm_error err;
	struct world w;

	(void)state;
	world_open(&w, &source_softirqs_ops, NULL);
	assert_int_equal(w.src.ops->init(&w.src, &err), -1);
	assert_string_equal(err.message,
	                    "source softirqs: proc/softirqs: No such file or directory");
	world_close(&w);
}

/* This machine: every type has a cell per online CPU; timers tick. */
static void
test_host(void **state)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct world w;
	char name[64];

	(void)state;
	world_open(&w, &source_softirqs_ops, "/");
	world_init(&w);
	sample(&w);
	for (long c = 0; c < ncpu; c++) {
		snprintf(name, sizeof(name), "softirq.NET_RX.cpu%ld", c);
		must_find(&w, name);
		snprintf(name, sizeof(name), "softirq.TIMER.cpu%ld", c);
		must_find(&w, name);
	}
	assert_true(val(&w, "softirq.TIMER.cpu0") + val(&w, "softirq.SCHED.cpu0") > 0);
	assert_true(w.sink.nput >= 10 * (size_t)ncpu);
	world_close(&w);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_steps), cmocka_unit_test(test_header),
	    cmocka_unit_test(test_rows),  cmocka_unit_test(test_missing),
	    cmocka_unit_test(test_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
