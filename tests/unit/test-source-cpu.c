/* test-source-cpu.c: /proc/stat parsing, on fixtures from gen-host.py, on hand-written
 * files and on this machine's /proc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpuutil.h"
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
	/* 145 cpu lines of 10 modes ("all" is the sum of the 144 CPUs, the same as the kernel's
	 * line with every CPU online and no guest time), 144 cpu.<N>.online, cpu.online and 5
	 * stat lines. */
	assert_int_equal(w.sink.nput, 145 * 10 + 144 + 1 + 5);
	assert_int_equal(harness_value(&w, "cpu.143.online"), 1);
	harness_check_values(&w, "cpu.");
	harness_check_values(&w, "stat.");
	assert_int_equal(harness_value(&w, "cpu.online"), 144);
	harness_labels(&w, "cpu.online", "source=cpu field=online unit=cpus");
	harness_labels(&w, "cpu.143.online", "source=cpu cpu=143 field=online unit=cpus");
	harness_labels(&w, "cpu.143.guest_nice", "source=cpu cpu=143 mode=guest_nice unit=s");
	harness_labels(&w, "cpu.all.softirq", "source=cpu mode=softirq unit=s");
	harness_labels(&w, "stat.ctxt", "source=cpu field=ctxt unit=switches");
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

/* CPU 3 offline: its series stay and stop moving, cpu.3.online and cpu.online drop, "all"
 * moves by the other CPUs only (the kernel's line, which gen-host.py keeps counting CPU 3
 * in, is not read); back online: the same ids move again. */
static void
test_offline(void **state)
{
	struct world w;
	series_id idle3;
	uint64_t idle3_0, all0, idle0_0;

	(void)state;
	harness_init(&w, &source_cpu_ops, NULL);
	harness_gen(&w, "--cpus 8 --only stat");
	harness_start(&w);
	harness_sample(&w);
	idle3 = harness_find(&w, "cpu.3.idle");
	idle3_0 = harness_value(&w, "cpu.3.idle");
	idle0_0 = harness_value(&w, "cpu.0.idle");
	all0 = harness_value(&w, "cpu.all.idle");
	harness_gen(&w, "--cpus 8 --only stat --offline 3 --step 1");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_false(w.sink.put[idle3]);
	assert_int_equal(harness_value(&w, "cpu.3.online"), 0);
	assert_int_equal(harness_value(&w, "cpu.online"), 7);
	assert_int_equal(harness_value(&w, "cpu.0.idle"), idle0_0 + 40);
	assert_int_equal(harness_value(&w, "cpu.all.idle"), all0 + 7 * 40);

	harness_gen(&w, "--cpus 8 --only stat --step 2");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(harness_find(&w, "cpu.3.idle"), idle3);
	assert_true(w.sink.put[idle3]);
	assert_int_equal(harness_value(&w, "cpu.3.online"), 1);
	/* Against its stand-in (the reading at step 0): two steps of 40. */
	assert_int_equal(harness_value(&w, "cpu.3.idle"), idle3_0 + 80);
	assert_int_equal(harness_value(&w, "cpu.all.idle"), all0 + 7 * 40 + 8 * 40 + 40);
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
	harness_check_values(&w, "cpu.1.");
	harness_check_values(&w, "stat.");
	/* nice is 100000*2 + 1000*0 here, less than guest_nice (2^64 - 1): guest_nice counts as
	 * much as nice has, nice the rest (0), so that the two add up to the kernel's nice. */
	assert_int_equal(harness_value(&w, "cpu.0.guest_nice"), 200000);
	assert_int_equal(harness_value(&w, "cpu.0.nice"), 0);
	assert_false(harness_exists(&w, "cpu.3.online")); /* never seen */
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
	assert_int_equal(w.sink.nput, 3 * 4 + 2 + 1 + 5);
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
	struct world w;

	(void)state;
	harness_init_missing(&w, &source_cpu_ops,
	                     "source cpu: proc/stat: No such file or directory");
	harness_free(&w);
}

/* This machine: idle time, one line per online CPU, context switches. */
static void
test_host(void **state)
{
	static const char *const per_cpu[] = {"cpu.%ld.user"};
	struct world w;
	long ncpu;

	(void)state;
	ncpu = harness_init_host_cpus(&w, &source_cpu_ops, per_cpu, 1);
	assert_true(harness_value(&w, "cpu.all.idle") > 0);
	assert_int_equal(harness_value(&w, "cpu.online"), ncpu);
	assert_true(harness_value(&w, "stat.ctxt") > 0);
	assert_true(harness_value(&w, "stat.intr") > 0);
	assert_true(harness_value(&w, "stat.processes") > 0);
	assert_true(harness_value(&w, "stat.procs_running") >= 1);
	harness_free(&w);
}

/* ---- mpstat's rules, case by case: percentages of increments between two readings ---- */

#define NCASE_CPUS 8

/* The source's values of every mode of every CPU ("all" last). */
struct reading {
	uint64_t v[NCASE_CPUS + 1][CPUUTIL_NMODES];
};

/* A /proc/stat with the given cpu lines (the aggregate line is nonsense on purpose: it must
 * not be read). */
static void
write_stat(struct world *w, const char *cpu_lines)
{
	char text[4096];

	snprintf(text, sizeof(text),
	         "cpu  1 1 1 1 1 1 1 1 1 1\n%sintr 1 0\nctxt 1\nbtime 1\nprocesses 1\n"
	         "procs_running 1\nprocs_blocked 0\n",
	         cpu_lines);
	harness_write(w, "proc/stat", text);
}

/* Sample the stat with these lines; keep every mode's value (0 for none). */
static void
take(struct world *w, const char *cpu_lines, struct reading *r)
{
	char name[64];

	write_stat(w, cpu_lines);
	harness_sample(w);
	for (int c = 0; c <= NCASE_CPUS; c++)
		for (int m = 0; m < CPUUTIL_NMODES; m++) {
			series_id id;
			if (c == NCASE_CPUS)
				snprintf(name, sizeof(name), "cpu.all.%s", cpuutil_modes[m]);
			else
				snprintf(name, sizeof(name), "cpu.%d.%s", c, cpuutil_modes[m]);
			id = series_find(&w->reg, name);
			r->v[c][m] = id == SERIES_NONE ? 0 : w->sink.val[id];
		}
}

/* The percentages of CPU c (NCASE_CPUS: all) from a to b are want (ten modes, /proc/stat
 * order), to 1e-9; they add up to 100. */
static void
check_pc(const struct reading *a, const struct reading *b, int c, const double want[10])
{
	double secs[CPUUTIL_NMODES], sum = 0;
	json_object *o, *v;

	for (int m = 0; m < CPUUTIL_NMODES; m++)
		secs[m] = (double)(b->v[c][m] - a->v[c][m]);
	o = cpuutil_json(secs, 1, 0);
	for (int m = 0; m < CPUUTIL_NMODES; m++) {
		double got;
		assert_true(json_object_object_get_ex(o, cpuutil_modes[m], &v));
		got = json_object_get_double(v);
		if (fabs(got - want[m]) > 1e-9)
			fail_msg("cpu %d %s: got %.10f%%, want %.10f%%", c, cpuutil_modes[m], got,
			         want[m]);
		assert_true(got >= 0 && got <= 100);
		sum += got;
	}
	if (fabs(sum - 100) > 1e-9)
		fail_msg("cpu %d: the modes add up to %.10f%%", c, sum);
	json_object_put(o);
}

/* The two readings the mpstat comparison runs on: guest time (cpu0), iowait falling while
 * idle rises (cpu1), iowait falling while idle does not (cpu2: back online), idle and iowait
 * restarted from 0 (cpu3: back online), no tick at all (cpu4), offline at the second
 * (cpu5: adds nothing to all, mpstat leaves it out). */
static const char *const mp_stat0 = "cpu0 100 10 50 1000 10 0 0 0 20 5\n"
                                    "cpu1 200 0 50 1000 10 0 0 0 0 0\n"
                                    "cpu2 300 0 50 1000 10 0 0 0 0 0\n"
                                    "cpu3 400 0 50 1000 10 3 7 0 0 0\n"
                                    "cpu4 500 0 50 1000 10 0 0 0 0 0\n"
                                    "cpu5 600 0 60 1000 10 0 0 0 0 0\n";
static const char *const mp_stat1 = "cpu0 160 14 60 1030 10 0 0 0 60 7\n"
                                    "cpu1 230 0 60 1060 9 0 0 0 0 0\n"
                                    "cpu2 320 0 55 1000 4 0 0 0 0 0\n"
                                    "cpu3 420 0 60 30 2 4 9 0 0 0\n"
                                    "cpu4 500 0 50 1000 10 0 0 0 0 0\n";

/* What those readings come to, by hand, per CPU and in all. */
static void
check_mp_cases(const struct reading *a, const struct reading *b)
{
	/* cpu0: user 60 - guest 40, nice 4 - guest_nice 2, system 10, idle 30: 104 ticks. */
	const double t0 = 104, t3 = 20 + 10 + 30 + 2 + 1 + 2, all = 104 + 100 + 29 + t3;
	const double cpu0[10] = {
	    100 * 20 / t0, 100 * 2 / t0, 100 * 10 / t0, 100 * 30 / t0, 0, 0, 0, 0,
	    100 * 40 / t0, 100 * 2 / t0};
	/* cpu1: iowait -1 while idle +60 is 0: user 30, system 10, idle 60. */
	const double cpu1[10] = {30, 0, 10, 60, 0, 0, 0, 0, 0, 0};
	/* cpu2: iowait fell, idle did not rise: iowait restarted, 4; user 20, system 5. */
	const double cpu2[10] = {
	    100 * 20 / 29.0, 0, 100 * 5 / 29.0, 0, 100 * 4 / 29.0, 0, 0, 0, 0, 0};
	/* cpu3: idle 30 and iowait 2 from 0, user 20, system 10, irq 1, softirq 2 carry on. */
	const double cpu3[10] = {100 * 20 / t3,
	                         0,
	                         100 * 10 / t3,
	                         100 * 30 / t3,
	                         100 * 2 / t3,
	                         100 * 1 / t3,
	                         100 * 2 / t3,
	                         0,
	                         0,
	                         0};
	const double cpu4[10] = {0, 0, 0, 100, 0, 0, 0, 0, 0, 0};
	const double sum[10] = {100 * 90 / all, 100 * 2 / all, 100 * 35 / all, 100 * 120 / all,
	                        100 * 6 / all,  100 * 1 / all, 100 * 2 / all,  0,
	                        100 * 40 / all, 100 * 2 / all};

	check_pc(a, b, 0, cpu0);
	check_pc(a, b, 1, cpu1);
	check_pc(a, b, 2, cpu2);
	check_pc(a, b, 3, cpu3);
	check_pc(a, b, 4, cpu4);
	for (int m = 0; m < CPUUTIL_NMODES; m++)
		assert_int_equal(b->v[5][m], a->v[5][m]); /* offline: stands still */
	check_pc(a, b, NCASE_CPUS, sum);
}

/* Guest time, iowait falling with idle rising and not, idle restarting, no tick, and "all"
 * the sum of the CPUs (the kernel's line says otherwise). */
static void
test_mpstat_rules(void **state)
{
	struct reading a, b;
	struct world w;

	(void)state;
	harness_init(&w, &source_cpu_ops, NULL);
	harness_mkdir(&w, "proc");
	write_stat(&w, mp_stat0);
	harness_start(&w);
	take(&w, mp_stat0, &a);
	take(&w, mp_stat1, &b);
	check_mp_cases(&a, &b);
	harness_free(&w);
}

/* Guest grew more than user (15 against 10: the kernel showed ticks in guest before user):
 * guest counts the 10 user grew, user 0, and the total is 40, the kernel's (user 10, system
 * 10, idle 20). When user catches up (15 more) guest's other 5 count and user 10: over both
 * intervals the modes add up to the kernel's 55, guest is its 15 and user its 25 less 15.
 * (mpstat shows 15 guest first and counts 15 user after: 60, the 5 twice.) */
static void
test_guest_shortfall(void **state)
{
	const double want[10] = {0, 0, 25, 50, 0, 0, 0, 0, 25};
	static const uint64_t kernel[10] = {10, 0, 10, 20, 0, 0, 0, 0, 15, 0};
	struct reading a, b, c;
	struct world w;
	uint64_t sum = 0;

	(void)state;
	harness_init(&w, &source_cpu_ops, NULL);
	harness_mkdir(&w, "proc");
	write_stat(&w, "cpu0 500 0 50 1000 0 0 0 0 100 0\n");
	harness_start(&w);
	take(&w, "cpu0 500 0 50 1000 0 0 0 0 100 0\n", &a);
	assert_int_equal(a.v[0][CPUUTIL_USER], 400);
	assert_int_equal(a.v[0][CPUUTIL_GUEST], 100);
	take(&w, "cpu0 510 0 60 1020 0 0 0 0 115 0\n", &b);
	check_pc(&a, &b, 0, want);
	check_pc(&a, &b, NCASE_CPUS, want);
	for (int m = 0; m < CPUUTIL_NMODES; m++)
		sum += b.v[0][m] - a.v[0][m];
	assert_int_equal(sum, 40);
	take(&w, "cpu0 525 0 60 1020 0 0 0 0 115 0\n", &c);
	assert_int_equal(c.v[0][CPUUTIL_GUEST] - b.v[0][CPUUTIL_GUEST], 5);
	assert_int_equal(c.v[0][CPUUTIL_USER] - b.v[0][CPUUTIL_USER], 10);
	for (int m = 0; m < CPUUTIL_NMODES; m++) {
		assert_int_equal(c.v[0][m] - a.v[0][m], kernel[m]);
		assert_int_equal(c.v[NCASE_CPUS][m] - a.v[NCASE_CPUS][m], kernel[m]);
	}
	/* The totals are the kernel's: user + guest is its user. */
	assert_int_equal(c.v[0][CPUUTIL_USER] + c.v[0][CPUUTIL_GUEST], 525);
	harness_free(&w);
}

/* cpu1 offline at the start edge, back within the window with idle restarted from 0; cpu2
 * back online mid-window; cpu3 offline at the end edge. Each stands in with its last
 * reading: it adds nothing while offline, what it did since once back. */
static void
test_offline_edges(void **state)
{
	const double cpu0[10] = {10, 0, 10, 80, 0, 0, 0, 0, 0, 0};
	const double cpu1[10] = {25, 0, 12.5, 62.5, 0, 0, 0, 0, 0, 0};
	const double cpu2[10] = {100 * 3 / 10.0, 0, 0, 100 * 7 / 10.0, 0, 0, 0, 0, 0, 0};
	const double cpu3[10] = {50, 0, 0, 50, 0, 0, 0, 0, 0, 0};
	struct reading r0, r1, r2, r3;
	struct world w;

	(void)state;
	harness_init(&w, &source_cpu_ops, NULL);
	harness_mkdir(&w, "proc");
	write_stat(&w, "cpu0 0 0 0 0 0 0 0 0 0 0\n");
	harness_start(&w);
	take(&w,
	     "cpu0 100 0 100 1000 0 0 0 0 0 0\ncpu1 10 0 10 100 0 0 0 0 0 0\n"
	     "cpu2 50 0 0 500 0 0 0 0 0 0\ncpu3 7 0 0 70 0 0 0 0 0 0\n",
	     &r0);
	/* cpu1 goes offline: the window [r1, r3] starts with it offline. */
	take(&w,
	     "cpu0 110 0 110 1080 0 0 0 0 0 0\ncpu2 51 0 0 504 0 0 0 0 0 0\n"
	     "cpu3 8 0 0 71 0 0 0 0 0 0\n",
	     &r1);
	assert_int_equal(harness_value(&w, "cpu.1.online"), 0);
	assert_int_equal(harness_value(&w, "cpu.online"), 3);
	/* cpu1 back (idle from 0); cpu2 offline (mid-window). */
	take(&w,
	     "cpu0 115 0 115 1120 0 0 0 0 0 0\ncpu1 11 0 11 2 0 0 0 0 0 0\n"
	     "cpu3 9 0 0 72 0 0 0 0 0 0\n",
	     &r2);
	assert_int_equal(harness_value(&w, "cpu.1.online"), 1);
	assert_int_equal(harness_value(&w, "cpu.2.online"), 0);
	/* cpu2 back with idle from 0; cpu3 offline at the end. */
	take(&w,
	     "cpu0 120 0 120 1160 0 0 0 0 0 0\ncpu1 12 0 11 5 0 0 0 0 0 0\n"
	     "cpu2 53 0 0 3 0 0 0 0 0 0\n",
	     &r3);
	assert_int_equal(harness_value(&w, "cpu.3.online"), 0);
	/* [r1, r3]: cpu1 against its stand-in of r0: user 2, system 1, idle 5 from 0. */
	check_pc(&r1, &r3, 0, cpu0);
	check_pc(&r1, &r3, 1, cpu1);
	/* cpu2: 51->53 user, idle 504 then offline then 3 from 0: 2 + 1 user, 4 + 3 idle... */
	{
		const double c2[10] = {100 * 2 / 5.0, 0, 0, 100 * 3 / 5.0, 0, 0, 0, 0, 0, 0};
		check_pc(&r1, &r3, 2, c2);
	}
	/* ...and over [r0, r3] 1 + 2 user, 4 + 3 idle. */
	check_pc(&r0, &r3, 2, cpu2);
	/* cpu3 offline at the end: what it did until then, 1 + 1 user and idle. */
	check_pc(&r1, &r3, 3, cpu3);
	/* all: the sum of the four CPUs' increments over [r1, r3]. */
	for (int m = 0; m < CPUUTIL_NMODES; m++) {
		uint64_t sum = 0;
		for (int c = 0; c < 4; c++)
			sum += r3.v[c][m] - r1.v[c][m];
		assert_int_equal(r3.v[NCASE_CPUS][m] - r1.v[NCASE_CPUS][m], sum);
	}
	harness_free(&w);
}

/* One row of mpstat's interval output: "HH:MM:SS CPU %usr ... %idle" (10 columns) for a
 * CPU or "all". Its "Average:" rows are left alone: they list a CPU offline at the second
 * reading as 100 % idle where the interval rows leave it out. */
static bool
mp_row(const char *line, char *cpu, size_t cpusz, double pc[10])
{
	char t[32], c[16];

	if (strncmp(line, "Average:", 8) == 0 ||
	    sscanf(line, "%31s %15s %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", t, c, &pc[0], &pc[1],
	           &pc[2], &pc[4], &pc[5], &pc[6], &pc[7], &pc[8], &pc[9], &pc[3]) != 12 ||
	    strchr(t, ':') == NULL)
		return false;
	snprintf(cpu, cpusz, "%s", c);
	return true;
}

/* busy_cpus of secs over span on ncpus CPUs. */
static double
busy_cpus_of(const double secs[CPUUTIL_NMODES], double span, unsigned ncpus)
{
	json_object *o = cpuutil_json(secs, span, ncpus), *v;
	double got;

	assert_true(json_object_object_get_ex(o, "busy_cpus", &v));
	got = json_object_get_double(v);
	json_object_put(o);
	return got;
}

/* Busy CPUs are busy seconds per second of the span, but never more CPUs than were counted:
 * a window that closed 0.42 ms after it opened (a test whose benchmark failed at once) saw
 * one CPU's system time step by 1/USER_HZ, which over the span alone is 24 CPUs busy on a
 * 2-CPU machine (a report said 13.67 before). */
static void
test_busy_cpus_bounded(void **state)
{
	double secs[CPUUTIL_NMODES] = {0};

	(void)state;
	/* 2 CPUs over 1 s, 0.5 s busy in all: 0.5 CPUs, the bound (0.5 / 2 * 2) equal. */
	secs[CPUUTIL_USER] = 0.2;
	secs[CPUUTIL_SYSTEM] = 0.3;
	secs[CPUUTIL_IDLE] = 1.5;
	assert_float_equal(busy_cpus_of(secs, 1.0, 2), 0.5, 1e-12);
	/* A CPU offline for half the span: 1.5 s counted, 0.5 s busy over 1 s is 0.5 CPUs
	 * (the share's 0.67 is no bound then). */
	secs[CPUUTIL_IDLE] = 1.0;
	assert_float_equal(busy_cpus_of(secs, 1.0, 2), 0.5, 1e-12);
	/* One step of 10 ms of system time and none idle within 0.42 ms: 23.8 CPUs by the
	 * span, bounded to the 2 there are, all busy. */
	memset(secs, 0, sizeof(secs));
	secs[CPUUTIL_SYSTEM] = 0.01;
	assert_float_equal(busy_cpus_of(secs, 0.00042, 2), 2.0, 1e-12);
	assert_float_equal(busy_cpus_of(secs, 0.00042, 0), 0.01 / 0.00042, 1e-9); /* unknown */
	/* Half of what was counted busy: 1 of 2. */
	secs[CPUUTIL_IDLE] = 0.01;
	assert_float_equal(busy_cpus_of(secs, 0.00042, 2), 1.0, 1e-12);
	/* Nothing counted: 0. */
	memset(secs, 0, sizeof(secs));
	assert_float_equal(busy_cpus_of(secs, 0.00042, 2), 0.0, 1e-12);
}

/* The real mpstat (Debian sysstat) on the same two readings as test_mpstat_rules: every row
 * agrees with ours to the hundredth of a percent (mpstat prints two decimals). */
static void
test_mpstat_binary(void **state)
{
	char f0[] = "/tmp/nm-mpstat0-XXXXXX", f1[] = "/tmp/nm-mpstat1-XXXXXX", cmd[512];
	char line[512], cpu[16];
	struct reading a, b;
	struct world w;
	double pc[10];
	unsigned rows = 0;
	FILE *p;
	int fd;

	(void)state;
	if (access("/usr/bin/mpstat", X_OK) != 0 || geteuid() != 0)
		skip();
	harness_init(&w, &source_cpu_ops, NULL);
	harness_mkdir(&w, "proc");
	write_stat(&w, mp_stat0);
	harness_start(&w);
	take(&w, mp_stat0, &a);
	take(&w, mp_stat1, &b);
	harness_free(&w); /* before anything that can skip or fail: no leak to fail the binary */
	fd = mkstemp(f0);
	assert_true(fd >= 0);
	dprintf(fd, "cpu  0 0 0 0 0 0 0 0 0 0\n%sintr 1 0\nctxt 1\nbtime 1\n", mp_stat0);
	close(fd);
	fd = mkstemp(f1);
	assert_true(fd >= 0);
	dprintf(fd, "cpu  0 0 0 0 0 0 0 0 0 0\n%sintr 1 0\nctxt 1\nbtime 1\n", mp_stat1);
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s/mpstat-on.sh 6 %s %s", TEST_SRCDIR, f0, f1);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p) != NULL) {
		double secs[CPUUTIL_NMODES];
		json_object *o, *v;
		int c;
		if (!mp_row(line, cpu, sizeof(cpu), pc))
			continue;
		c = strcmp(cpu, "all") == 0 ? NCASE_CPUS : atoi(cpu);
		for (int m = 0; m < CPUUTIL_NMODES; m++)
			secs[m] = (double)(b.v[c][m] - a.v[c][m]);
		o = cpuutil_json(secs, 1, 0);
		for (int m = 0; m < CPUUTIL_NMODES; m++) {
			assert_true(json_object_object_get_ex(o, cpuutil_modes[m], &v));
			if (fabs(round(json_object_get_double(v) * 100) / 100 - pc[m]) > 0.0051)
				fail_msg("cpu %s %s: ours %.4f%%, mpstat %.2f%%", cpu,
				         cpuutil_modes[m], json_object_get_double(v), pc[m]);
		}
		json_object_put(o);
		rows++;
	}
	fd = pclose(p);
	unlink(f0);
	unlink(f1);
	if (WIFEXITED(fd) && WEXITSTATUS(fd) == 77) {
		print_message("mpstat-on.sh cannot run here (its stderr above says why)\n");
		skip();
	}
	if (fd != 0)
		fail_msg("mpstat-on.sh failed (status %d; its stderr above says why)", fd);
	assert_int_equal(rows, 6); /* all and cpu0-4: not the offline cpu5 */
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_steps),
	    cmocka_unit_test(test_offline),
	    cmocka_unit_test(test_odd),
	    cmocka_unit_test(test_handmade),
	    cmocka_unit_test(test_missing),
	    cmocka_unit_test(test_host),
	    cmocka_unit_test(test_mpstat_rules),
	    cmocka_unit_test(test_guest_shortfall),
	    cmocka_unit_test(test_offline_edges),
	    cmocka_unit_test(test_mpstat_binary),
	    cmocka_unit_test(test_busy_cpus_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
