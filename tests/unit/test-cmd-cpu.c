/* test-cmd-cpu.c: the cpu, rates and softirqs commands on a /proc/stat fixture sampled on a driven
 * clock: which CPUs a span lists (one offline at the end that did nothing is not; one
 * online with no tick is, 100 % idle; one offline at the start and back within the span
 * adds what it did since), exact percentages, "all" the sum of the CPUs, and the span edges
 * on the cpu source's own samples, as a window gives them too. */
#include <math.h>
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
#include <json-c/json.h>

#include "daemon-world.h"

#include "cmd-util.h"
#include "cmd.h"
#include "dispatch.h"
#include "config.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "query.h"
#include "results.h"
#include "sampler.h"
#include "window.h"

#define SEC 1000000000ull
#define T0  (1000 * SEC) /* the timeline's 0, CLOCK_MONOTONIC */

static const char *const off[] = {"interrupts", "snmp",   "link",   "queues", "ethtool",
                                  "softnet",    "lnstat", "sysctl", NULL};

/* The cpu lines at samples 1..4 s: cpu1 idle, then offline from 3 s; cpu2 never ticks;
 * cpu3 offline at 2 s, back at 3 s with idle restarted from 0. */
static const char *const lines[] = {
    "cpu0 100 0 100 1000 0 0 0 0 0 0\ncpu1 10 0 10 100 0 0 0 0 0 0\n"
    "cpu2 5 0 5 500 0 0 0 0 0 0\ncpu3 50 0 50 300 0 0 0 0 0 0\n",
    "cpu0 150 0 120 1030 0 0 0 0 0 0\ncpu1 10 0 10 100 0 0 0 0 0 0\n"
    "cpu2 5 0 5 500 0 0 0 0 0 0\n",
    "cpu0 200 0 140 1060 0 0 0 0 0 0\ncpu2 5 0 5 500 0 0 0 0 0 0\n"
    "cpu3 52 0 51 7 0 0 0 0 0 0\n",
    "cpu0 250 0 160 1090 0 0 0 0 0 0\ncpu2 5 0 5 500 0 0 0 0 0 0\n"
    "cpu3 54 0 52 15 0 0 0 0 0 0\n",
};

/* Write proc/stat in place (the source keeps its fd) with these cpu lines. */
static void
put_stat(struct daemon_world *w, const char *cpu_lines)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/proc/stat", w->root);
	fp = fopen(path, "r+");
	if (fp == NULL)
		fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(ftruncate(fileno(fp), 0), 0);
	fprintf(fp, "cpu  9 9 9 9 9 9 9 9 9 9\n%sintr 1 0\nctxt 1\nprocesses 1\n", cpu_lines);
	fclose(fp);
}

/* Write proc/softirqs for the sample at k s: two types, one named as if it held a CPU
 * ("NET.cpu3X"), the other NET_RX; on CPU c NET.cpu3X grows by c + 1 a second, NET_RX by
 * 10 (c + 1). */
static void
put_softirqs(struct daemon_world *w, unsigned k)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/proc/softirqs", w->root);
	fp = fopen(path, "r+");
	if (fp == NULL)
		fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(ftruncate(fileno(fp), 0), 0);
	fprintf(fp, "                    CPU0       CPU1       CPU2       CPU3\n");
	fprintf(fp, "   NET.cpu3X: %10u %10u %10u %10u\n", k, 2 * k, 3 * k, 4 * k);
	fprintf(fp, "      NET_RX: %10u %10u %10u %10u\n", 10 * k, 20 * k, 30 * k, 40 * k);
	fclose(fp);
}

/* The daemon's parts over the fixture; a window "mid" from the sample at 2 s to the one
 * at 4 s; samples at 1, 2, 3, 4 s. */
static int
setup(void **state)
{
	struct daemon_world *w = calloc(1, sizeof(*w));
	struct nm_error err;
	json_object *r;

	daemon_world_init(w, "cmd-cpu", "proc", off);
	w->now = T0 + SEC;
	put_stat(w, lines[0]);
	put_softirqs(w, 1);
	daemon_world_start(w);
	for (unsigned k = 1; k <= 4; k++) {
		w->now = T0 + k * SEC;
		put_stat(w, lines[k - 1]);
		put_softirqs(w, k);
		if (k == 2) {
			/* window_start samples every source at its edge: the sample at 2 s. */
			assert_non_null(r = window_start(w->d.windows, "mid", "hand", &err));
			json_object_put(r);
		} else if (k == 4) {
			r = window_stop_inline(w->d.windows, "mid", NULL, "hand", NULL, &err);
			if (r == NULL)
				fail_msg("window_stop: %s", err.message);
			json_object_put(r);
		} else
			sampler_sample_all(w->d.sampler);
	}
	*state = w;
	return 0;
}

static int
teardown(void **state)
{
	struct daemon_world *w = *state;

	daemon_world_end(w);
	free(w);
	return 0;
}

/* Run a command with args (JSON text); its result, which must come. */
static json_object *
run(struct daemon_world *w,
    int (*fn)(struct cmd_ctx *, json_object *, json_object **, struct nm_error *),
    const char *args_text)
{
	struct cmd_ctx ctx = {.d = &w->d};
	json_object *args = json_tokener_parse(args_text), *result = NULL;
	struct nm_error err;

	assert_non_null(args);
	nm_error_clear(&err);
	if (fn(&ctx, args, &result, &err) != 0)
		fail_msg("%s: %s", args_text, err.message);
	json_object_put(args);
	return result;
}

/* The element of cpus whose "cpu" is c, or NULL. */
static json_object *
cpu_of(json_object *o, int c)
{
	json_object *arr = json_object_object_get(o, "cpus");

	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		if (json_get_int(e, "cpu", -1) == c)
			return e;
	}
	return NULL;
}

/* user, system, idle of o are these (the other modes 0), to 1e-9. */
static void
check_usi(json_object *o, double user, double sys, double idle)
{
	static const char *const zero[] = {"nice",  "iowait", "irq",       "softirq",
	                                   "steal", "guest",  "guest_nice"};

	assert_non_null(o);
	if (fabs(json_get_double(o, "user", -1) - user) > 1e-9 ||
	    fabs(json_get_double(o, "system", -1) - sys) > 1e-9 ||
	    fabs(json_get_double(o, "idle", -1) - idle) > 1e-9)
		fail_msg("got %s; want user %.9f system %.9f idle %.9f", json_object_get_string(o),
		         user, sys, idle);
	for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
		assert_true(json_get_double(o, zero[i], -1) == 0);
}

/* The checks of the span from 2 s to 4 s, however it was named. */
static void
check_mid(json_object *o)
{
	/* cpu0: user 100, system 40, idle 60. */
	check_usi(cpu_of(o, 0), 50, 20, 30);
	/* cpu1: offline at the end and idle in the span: not listed. */
	assert_null(cpu_of(o, 1));
	/* cpu2: online, no tick: 100 % idle. */
	check_usi(cpu_of(o, 2), 0, 0, 100);
	/* cpu3: offline at 2 s, against its stand-in of 1 s: user 2 + 2, system 1 + 1, idle
	 * 7 (from 0) + 8. */
	check_usi(cpu_of(o, 3), 100 * 4 / 21.0, 100 * 2 / 21.0, 100 * 15 / 21.0);
	/* all: the sum of the CPUs. */
	check_usi(json_object_object_get(o, "all"), 100 * 104 / 221.0, 100 * 42 / 221.0,
	          100 * 75 / 221.0);
	assert_int_equal(json_get_int(o, "online", -1), 3);
	assert_true(json_get_double(o, "span_s", -1) == 2.0);
}

/* cpu --last 2 at 4 s: from the sample at 2 s. */
static void
test_cpu_last(void **state)
{
	struct daemon_world *w = *state;
	json_object *o = run(w, dispatch_handler_find("cpu"), "{\"last\":2}");

	assert_string_equal(json_get_string(o, "source", ""), "cpu");
	check_mid(o);
	json_object_put(o);
	/* --last 1.4: the sample at 3 s is nearer to 2.6 s than the one at 2 s. */
	o = run(w, dispatch_handler_find("cpu"), "{\"last\":1.4}");
	assert_true(json_get_double(o, "span_s", -1) == 1.0);
	/* cpu3: user 2, system 1, idle 8. */
	check_usi(cpu_of(o, 3), 100 * 2 / 11.0, 100 / 11.0, 100 * 8 / 11.0);
	json_object_put(o);
}

/* cpu --window mid: the same span, named by the window. */
static void
test_cpu_window(void **state)
{
	struct daemon_world *w = *state;
	json_object *o = run(w, dispatch_handler_find("cpu"), "{\"window\":\"mid\"}");

	assert_string_equal(json_get_string(o, "window", ""), "mid");
	check_mid(o);
	json_object_put(o);
}

/* rates cpu.all.idle --last 2: the delta between exactly the two samples stated. */
static void
test_rates_last(void **state)
{
	struct daemon_world *w = *state;
	json_object *o = run(w, dispatch_handler_find("rates"),
	                     "{\"glob\":\"cpu.all.idle\",\"last\":2}"),
	            *m;
	double tick = 1.0 / (double)sysconf(_SC_CLK_TCK);

	assert_true(json_get_double(o, "span_s", -1) == 2.0);
	m = json_object_array_get_idx(json_object_object_get(o, "series"), 0);
	assert_non_null(m);
	assert_true(fabs(json_get_double(m, "delta", -1) - 75 * tick) < 1e-9);
	assert_true(json_get_double(m, "span_s", -1) == 2.0);
	json_object_put(o);
	o = run(w, dispatch_handler_find("rates"),
	        "{\"glob\":\"cpu.all.idle\",\"window\":\"mid\"}");
	m = json_object_array_get_idx(json_object_object_get(o, "series"), 0);
	assert_true(fabs(json_get_double(m, "delta", -1) - 75 * tick) < 1e-9);
	json_object_put(o);
}

/* The softirqs view takes types and CPUs from the series' labels: a type whose name looks
 * like a CPU is one type, its CPUs are the columns' (a view that split names found a type
 * "NET" on a CPU 3). */
static void
test_softirqs_labels(void **state)
{
	struct daemon_world *w = *state;
	json_object *o = run(w, dispatch_handler_find("softirqs"), "{\"window\":\"mid\"}"), *types,
	            *cpus, *tot;

	types = json_object_object_get(o, "types");
	assert_int_equal(json_object_array_length(types), 2);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(types, 0)),
	                    "NET.cpu3X");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(types, 1)), "NET_RX");
	cpus = json_object_object_get(o, "cpus");
	assert_int_equal(json_object_array_length(cpus), 4);
	for (int c = 0; c < 4; c++) {
		json_object *e = json_object_array_get_idx(cpus, (size_t)c), *r;
		assert_int_equal(json_get_int(e, "cpu", -1), c);
		r = json_object_object_get(e, "rates");
		assert_true(fabs(json_get_double(r, "NET.cpu3X", -1) - (c + 1)) < 1e-9);
		assert_true(fabs(json_get_double(r, "NET_RX", -1) - 10 * (c + 1)) < 1e-9);
	}
	tot = json_object_object_get(o, "total");
	assert_true(fabs(json_get_double(tot, "NET.cpu3X", -1) - 10) < 1e-9);
	assert_true(fabs(json_get_double(tot, "NET_RX", -1) - 100) < 1e-9);
	json_object_put(o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_cpu_last, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cpu_window, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rates_last, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_softirqs_labels, setup, teardown),
	};

	dispatch_init(cmd_table);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
