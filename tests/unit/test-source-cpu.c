/* test-source-cpu.c: /proc/stat parsing, on fixtures from gen-host.py, on hand-written
 * files and on this machine's /proc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>
#include <unistd.h>

#include "error.h"
#include "series.h"
#include "source-harness.h"
#include "source.h"

/* Check that every summary delta of a prefix is what was put minus v0 (64-bit). */
static void
check_deltas(struct world *w, const char *prefix, json_object *v0)
{
	json_object_object_foreach(harness_js(w->js, "deltas"), name, d)
	{
		uint64_t before;

		if (strncmp(name, prefix, strlen(prefix)) != 0)
			continue;
		before = harness_js_u64(harness_js(v0, name));
		if (harness_value(w, name) - before != harness_js_u64(d))
			fail_msg("%s: delta %llu, want %llu", name,
			         (unsigned long long)(harness_value(w, name) - before),
			         (unsigned long long)harness_js_u64(d));
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
	harness_init(&w, &source_cpu_ops, NULL);
	harness_gen(&w, "--only stat");
	harness_start(&w);
	harness_sample(&w);
	/* 145 cpu lines of 10 modes, cpu.online and 5 stat lines. */
	assert_int_equal(w.sink.nput, 145 * 10 + 1 + 5);
	harness_check_values(&w, "cpu.");
	harness_check_values(&w, "stat.");
	assert_int_equal(harness_value(&w, "cpu.online"), 144);
	si = series_get(&w.reg, harness_find(&w, "cpu.143.guest_nice"));
	assert_int_equal(si->kind, SERIES_COUNTER);
	assert_string_equal(si->unit, "s");
	assert_true(si->scale == 1.0 / (double)sysconf(_SC_CLK_TCK));
	assert_int_equal(series_get(&w.reg, harness_find(&w, "stat.procs_running"))->kind,
	                 SERIES_GAUGE);
	assert_int_equal(series_get(&w.reg, harness_find(&w, "cpu.online"))->kind, SERIES_GAUGE);
	assert_int_equal(series_get(&w.reg, harness_find(&w, "stat.ctxt"))->kind, SERIES_COUNTER);
	assert_int_equal(harness_value(&w, "stat.intr"), 1000000000);
	v0 = json_object_get(harness_js(w.js, "values"));
	changed = harness_js_int(&w, "changed", "cpu");

	harness_gen(&w, "--only stat --step 1");
	harness_sample(&w);
	assert_int_equal(w.sink.nput, changed);
	assert_int_equal(w.sink.ngone, 0);
	harness_check_values(&w, "cpu.");
	harness_check_values(&w, "stat.");
	check_deltas(&w, "cpu.", v0);
	check_deltas(&w, "stat.ctxt", v0);
	assert_int_equal(harness_value(&w, "stat.procs_blocked"), 1);
	json_object_put(v0);
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 0);
	harness_free(&w);
}

/* CPU 3 offline: its ten series go and cpu.online drops; back online: the same ids. */
static void
test_offline(void **state)
{
	struct world w;
	series_id idle3;

	(void)state;
	harness_init(&w, &source_cpu_ops, NULL);
	harness_gen(&w, "--cpus 8 --only stat");
	harness_start(&w);
	harness_sample(&w);
	idle3 = harness_find(&w, "cpu.3.idle");
	harness_gen(&w, "--cpus 8 --only stat --offline 3");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 10);
	assert_true(w.sink.gone[idle3]);
	assert_int_equal(harness_value(&w, "cpu.online"), 7);
	assert_true(w.sink.put[harness_find(&w, "cpu.online")]);
	harness_check_values(&w, "cpu.");
	harness_check_absent(&w, "cpu.");
	assert_int_equal(w.sink.nput, 1); /* cpu.online: the rest did not move */

	harness_gen(&w, "--cpus 8 --only stat --step 1");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(harness_find(&w, "cpu.3.idle"), idle3);
	assert_true(w.sink.put[idle3]);
	assert_true(series_get(&w.reg, idle3)->live);
	harness_check_values(&w, "cpu.");
	harness_free(&w);
}

/* Counters at 2^64-1 and a ctxt that wraps past 2^64 between two steps. */
static void
test_odd(void **state)
{
	struct world w;

	(void)state;
	harness_init(&w, &source_cpu_ops, NULL);
	harness_gen(&w, "--cpus 8 --odd --only stat");
	harness_start(&w);
	harness_sample(&w);
	harness_check_values(&w, "cpu.");
	harness_check_values(&w, "stat.");
	harness_check_absent(&w, "cpu.");
	assert_true(harness_value(&w, "cpu.0.guest_nice") == UINT64_MAX);
	assert_int_equal(harness_value(&w, "cpu.online"), 6);
	harness_gen(&w, "--cpus 8 --odd --only stat --step 1");
	harness_sample(&w);
	harness_check_values(&w, "stat.");
	assert_int_equal(harness_value(&w, "stat.ctxt"), 50000 - 3000);
	harness_free(&w);
}

/* An old kernel's four modes, a cut file (nothing goes), a line that only looks like a
 * cpu line. */
static void
test_handmade(void **state)
{
	struct world w;

	(void)state;
	harness_init(&w, &source_cpu_ops, NULL);
	harness_mkdir(&w, "proc");
	harness_write(&w, "proc/stat",
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
	harness_start(&w);
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 3 * 4 + 1 + 5);
	assert_int_equal(harness_value(&w, "cpu.all.idle"), 40);
	assert_int_equal(harness_value(&w, "cpu.1.system"), 15);
	assert_int_equal(series_find(&w.reg, "cpu.all.iowait"), SERIES_NONE);
	assert_int_equal(harness_value(&w, "stat.intr"), 12345);
	assert_int_equal(harness_value(&w, "stat.ctxt"), 99);
	assert_int_equal(harness_value(&w, "stat.processes"), 77);
	assert_int_equal(harness_value(&w, "stat.procs_running"), 3);
	assert_int_equal(harness_value(&w, "cpu.online"), 2);

	harness_write(&w, "proc/stat",
	              "cpu  10 20 30 41\n"
	              "cpu0 5 10 15 21\n"
	              "cpu1 5 1");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(w.sink.nput, 2);
	assert_int_equal(harness_value(&w, "cpu.0.idle"), 21);
	assert_int_equal(harness_value(&w, "cpu.1.nice"), 10);
	harness_free(&w);
}

/* A root without /proc/stat. */
static void
test_missing(void **state)
{
	struct nm_error err;
	struct world w;

	(void)state;
	harness_init(&w, &source_cpu_ops, NULL);
	assert_int_equal(w.src.ops->init(&w.src, &err), -1);
	assert_string_equal(err.message, "source cpu: proc/stat: No such file or directory");
	harness_free(&w);
}

/* This machine: idle time, one line per online CPU, context switches. */
static void
test_host(void **state)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct world w;
	char name[64];

	(void)state;
	harness_init(&w, &source_cpu_ops, "/");
	harness_start(&w);
	harness_sample(&w);
	assert_true(harness_value(&w, "cpu.all.idle") > 0);
	assert_int_equal(harness_value(&w, "cpu.online"), ncpu);
	for (long c = 0; c < ncpu; c++) {
		snprintf(name, sizeof(name), "cpu.%ld.user", c);
		harness_find(&w, name);
	}
	assert_true(harness_value(&w, "stat.ctxt") > 0);
	assert_true(harness_value(&w, "stat.intr") > 0);
	assert_true(harness_value(&w, "stat.processes") > 0);
	assert_true(harness_value(&w, "stat.procs_running") >= 1);
	harness_free(&w);
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
