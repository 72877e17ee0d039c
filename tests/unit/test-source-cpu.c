/* test-source-cpu.c: /proc/stat parsing, on fixtures from gen-host.py, on hand-written
 * files and on this machine's /proc. */
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

/* The summary's absent series of a prefix exist nowhere, or are gone. */
static void
check_absent(struct world *w, const char *prefix)
{
	json_object *a = js_get(w->js, "absent");

	for (size_t i = 0; i < json_object_array_length(a); i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(a, i));
		series_id id = series_find(&w->reg, name);

		if (strncmp(name, prefix, strlen(prefix)) != 0)
			continue;
		if (id != SERIES_NONE && series_get(&w->reg, id)->live &&
		    !(id < w->sink.cap && w->sink.gone[id]))
			fail_msg("%s should be absent", name);
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

/* Check that every summary delta of a prefix is what was put minus v0 (64-bit). */
static void
check_deltas(struct world *w, const char *prefix, json_object *v0)
{
	json_object_object_foreach(js_get(w->js, "deltas"), name, d)
	{
		uint64_t before;

		if (strncmp(name, prefix, strlen(prefix)) != 0)
			continue;
		before = js_u64(js_get(v0, name));
		if (val(w, name) - before != js_u64(d))
			fail_msg("%s: delta %llu, want %llu", name,
			         (unsigned long long)(val(w, name) - before),
			         (unsigned long long)js_u64(d));
	}
}

/* 144 CPUs: every mode at step 0 with its kind, unit and 1/USER_HZ scale; exact deltas at
 * step 1 with only the changed values put; nothing when the file did not change. */
static void
test_steps(void **state)
{
	const struct series_info *si;
	struct world w;
	json_object *v0;
	int64_t changed;

	(void)state;
	world_open(&w, &source_cpu_ops, NULL);
	gen(&w, "--only stat");
	world_init(&w);
	sample(&w);
	/* 145 cpu lines of 10 modes, cpu.online and 5 stat lines. */
	assert_int_equal(w.sink.nput, 145 * 10 + 1 + 5);
	check_values(&w, "cpu.");
	check_values(&w, "stat.");
	assert_int_equal(val(&w, "cpu.online"), 144);
	si = series_get(&w.reg, must_find(&w, "cpu.143.guest_nice"));
	assert_int_equal(si->kind, SERIES_COUNTER);
	assert_string_equal(si->unit, "s");
	assert_true(si->scale == 1.0 / (double)sysconf(_SC_CLK_TCK));
	assert_int_equal(series_get(&w.reg, must_find(&w, "stat.procs_running"))->kind,
	                 SERIES_GAUGE);
	assert_int_equal(series_get(&w.reg, must_find(&w, "cpu.online"))->kind, SERIES_GAUGE);
	assert_int_equal(series_get(&w.reg, must_find(&w, "stat.ctxt"))->kind, SERIES_COUNTER);
	assert_int_equal(val(&w, "stat.intr"), 1000000000);
	v0 = json_object_get(js_get(w.js, "values"));
	changed = js_int(&w, "changed", "cpu");

	gen(&w, "--only stat --step 1");
	sample(&w);
	assert_int_equal(w.sink.nput, changed);
	assert_int_equal(w.sink.ngone, 0);
	check_values(&w, "cpu.");
	check_values(&w, "stat.");
	check_deltas(&w, "cpu.", v0);
	check_deltas(&w, "stat.ctxt", v0);
	assert_int_equal(val(&w, "stat.procs_blocked"), 1);
	json_object_put(v0);
	sample(&w);
	assert_int_equal(w.sink.nput, 0);
	world_close(&w);
}

/* CPU 3 offline: its ten series go and cpu.online drops; back online: the same ids. */
static void
test_offline(void **state)
{
	struct world w;
	series_id idle3;

	(void)state;
	world_open(&w, &source_cpu_ops, NULL);
	gen(&w, "--cpus 8 --only stat");
	world_init(&w);
	sample(&w);
	idle3 = must_find(&w, "cpu.3.idle");
	gen(&w, "--cpus 8 --only stat --offline 3");
	sample(&w);
	assert_int_equal(w.sink.ngone, 10);
	assert_true(w.sink.gone[idle3]);
	assert_int_equal(val(&w, "cpu.online"), 7);
	assert_true(w.sink.put[must_find(&w, "cpu.online")]);
	check_values(&w, "cpu.");
	check_absent(&w, "cpu.");
	assert_int_equal(w.sink.nput, 1); /* cpu.online: the rest did not move */

	gen(&w, "--cpus 8 --only stat --step 1");
	sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(must_find(&w, "cpu.3.idle"), idle3);
	assert_true(w.sink.put[idle3]);
	assert_true(series_get(&w.reg, idle3)->live);
	check_values(&w, "cpu.");
	world_close(&w);
}

/* Counters at 2^64-1 and a ctxt that wraps past 2^64 between two steps. */
static void
test_odd(void **state)
{
	struct world w;

	(void)state;
	world_open(&w, &source_cpu_ops, NULL);
	gen(&w, "--cpus 8 --odd --only stat");
	world_init(&w);
	sample(&w);
	check_values(&w, "cpu.");
	check_values(&w, "stat.");
	check_absent(&w, "cpu.");
	assert_true(val(&w, "cpu.0.guest_nice") == UINT64_MAX);
	assert_int_equal(val(&w, "cpu.online"), 6);
	gen(&w, "--cpus 8 --odd --only stat --step 1");
	sample(&w);
	check_values(&w, "stat.");
	assert_int_equal(val(&w, "stat.ctxt"), 50000 - 3000);
	world_close(&w);
}

/* An old kernel's four modes, a cut file (nothing goes), a line that only looks like a
 * cpu line. */
static void
test_handmade(void **state)
{
	struct world w;

	(void)state;
	world_open(&w, &source_cpu_ops, NULL);
	make_dir(&w, "proc");
	write_file(&w, "proc/stat",
	           "cpu  10 20 30 40\n"
	           "cpu0 5 10 15 20\n"
	           "cpu1 5 10 15 20\n"
	           "cpufreq 1 2 3\n"
	           "intr 12345 0 0 7 0\n"
	           "ctxt 99\n"
	           "btime 1700000000\n"
	           "processes 77\n"
	           "procs_running 3\n"
	           "procs_blocked 1\n");
	world_init(&w);
	sample(&w);
	assert_int_equal(w.sink.nput, 3 * 4 + 1 + 5);
	assert_int_equal(val(&w, "cpu.all.idle"), 40);
	assert_int_equal(val(&w, "cpu.1.system"), 15);
	assert_int_equal(series_find(&w.reg, "cpu.all.iowait"), SERIES_NONE);
	assert_int_equal(val(&w, "stat.intr"), 12345);
	assert_int_equal(val(&w, "stat.ctxt"), 99);
	assert_int_equal(val(&w, "stat.processes"), 77);
	assert_int_equal(val(&w, "stat.procs_running"), 3);
	assert_int_equal(val(&w, "cpu.online"), 2);

	write_file(&w, "proc/stat",
	           "cpu  10 20 30 41\n"
	           "cpu0 5 10 15 21\n"
	           "cpu1 5 1");
	sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(w.sink.nput, 2);
	assert_int_equal(val(&w, "cpu.0.idle"), 21);
	assert_int_equal(val(&w, "cpu.1.nice"), 10);
	world_close(&w);
}

/* A root without /proc/stat. */
static void
test_missing(void **state)
{
	struct nm_error err;
	struct world w;

	(void)state;
	world_open(&w, &source_cpu_ops, NULL);
	assert_int_equal(w.src.ops->init(&w.src, &err), -1);
	assert_string_equal(err.message, "source cpu: proc/stat: No such file or directory");
	world_close(&w);
}

/* This machine: idle time, one line per online CPU, context switches. */
static void
test_host(void **state)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct world w;
	char name[64];

	(void)state;
	world_open(&w, &source_cpu_ops, "/");
	world_init(&w);
	sample(&w);
	assert_true(val(&w, "cpu.all.idle") > 0);
	assert_int_equal(val(&w, "cpu.online"), ncpu);
	for (long c = 0; c < ncpu; c++) {
		snprintf(name, sizeof(name), "cpu.%ld.user", c);
		must_find(&w, name);
	}
	assert_true(val(&w, "stat.ctxt") > 0);
	assert_true(val(&w, "stat.intr") > 0);
	assert_true(val(&w, "stat.processes") > 0);
	assert_true(val(&w, "stat.procs_running") >= 1);
	world_close(&w);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_steps),   cmocka_unit_test(test_offline),
	    cmocka_unit_test(test_odd),     cmocka_unit_test(test_handmade),
	    cmocka_unit_test(test_missing), cmocka_unit_test(test_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
