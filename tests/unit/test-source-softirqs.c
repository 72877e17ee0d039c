/* test-source-softirqs.c: /proc/softirqs parsing, on fixtures from gen-host.py, on
 * hand-written files and on this machine's /proc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>

#include "error.h"
#include "series.h"
#include "source-harness.h"
#include "source.h"

/* 144 CPUs: every cell at step 0, only the changed ones at step 1 (one wraps at 2^32),
 * nothing when the file did not change. */
static void
test_steps(void **state)
{
	struct world w;
	uint64_t v0;
	int64_t changed;

	(void)state;
	harness_init(&w, &source_softirqs_ops, NULL);
	harness_gen(&w, "--only softirqs");
	harness_start(&w);
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 10 * 144);
	harness_check_values(&w, "softirq.");
	v0 = harness_value(&w, "softirq.NET_RX.cpu1");
	assert_int_equal(v0, 4294967296 - 500);
	assert_int_equal(series_get(&w.reg, harness_find(&w, "softirq.RCU.cpu143"))->kind,
	                 SERIES_COUNTER32);
	assert_string_equal(series_get(&w.reg, harness_find(&w, "softirq.RCU.cpu143"))->unit,
	                    "softirqs");
	changed = harness_js_int(&w, "changed", "softirqs");
	harness_labels(&w, "softirq.NET_RX.cpu1",
	               "source=softirqs type=NET_RX cpu=1 unit=softirqs");
	harness_labels(&w, "softirq.RCU.cpu143", "source=softirqs type=RCU cpu=143 unit=softirqs");

	harness_gen(&w, "--only softirqs --step 1");
	harness_sample(&w);
	assert_int_equal(w.sink.nput, changed);
	assert_int_equal(w.sink.ngone, 0);
	harness_check_values(&w, "softirq.");
	assert_int_equal((uint32_t)(harness_value(&w, "softirq.NET_RX.cpu1") - v0),
	                 harness_js_int(&w, "deltas", "softirq.NET_RX.cpu1"));
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 0);
	harness_free(&w);
}

/* A type whose name holds a dot and ".cpu" still has one type and its CPU as labels: the
 * views and reports read those, never the name. */
static void
test_labels_dotted_type(void **state)
{
	struct world w;

	(void)state;
	harness_init(&w, &source_softirqs_ops, NULL);
	harness_mkdir(&w, "proc");
	harness_write(&w, "proc/softirqs",
	              "                    CPU0       CPU7\n"
	              "   NET.cpu3X:          1          2\n"
	              "      NET_RX:         10         20\n");
	harness_start(&w);
	harness_sample(&w);
	assert_int_equal(harness_value(&w, "softirq.NET.cpu3X.cpu7"), 2);
	harness_labels(&w, "softirq.NET.cpu3X.cpu7",
	               "source=softirqs type=NET.cpu3X cpu=7 unit=softirqs");
	harness_labels(&w, "softirq.NET_RX.cpu0",
	               "source=softirqs type=NET_RX cpu=0 unit=softirqs");
	harness_free(&w);
}

/* Columns follow the header: a CPU missing, then added, then another removed. */
static void
test_header(void **state)
{
	struct world w;
	series_id a2;

	(void)state;
	harness_init(&w, &source_softirqs_ops, NULL);
	harness_mkdir(&w, "proc");
	harness_write(&w, "proc/softirqs",
	              "                    CPU0       CPU2       CPU3\n"
	              "          HI:          1          2          3\n"
	              "      NET_RX:         10         20         30\n");
	harness_start(&w);
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 6);
	assert_int_equal(harness_value(&w, "softirq.NET_RX.cpu2"), 20);
	assert_int_equal(harness_value(&w, "softirq.NET_RX.cpu3"), 30);
	assert_int_equal(series_find(&w.reg, "softirq.NET_RX.cpu1"), SERIES_NONE);
	a2 = harness_find(&w, "softirq.HI.cpu2");

	harness_write(&w, "proc/softirqs",
	              "                    CPU0       CPU1       CPU2       CPU3\n"
	              "          HI:          1          5          2          3\n"
	              "      NET_RX:         10         50         20         31\n");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(harness_value(&w, "softirq.NET_RX.cpu1"), 50);
	assert_int_equal(harness_value(&w, "softirq.NET_RX.cpu3"), 31);
	assert_int_equal(harness_value(&w, "softirq.HI.cpu2"), 2);

	harness_write(&w, "proc/softirqs",
	              "                    CPU0       CPU1       CPU3\n"
	              "          HI:          1          5          3\n"
	              "      NET_RX:         10         50         32\n");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 2);
	assert_true(w.sink.gone[a2]);
	assert_int_equal(harness_value(&w, "softirq.NET_RX.cpu3"), 32);

	/* CPU 2 back: the same ids, put again. */
	harness_write(&w, "proc/softirqs",
	              "                    CPU0       CPU1       CPU2       CPU3\n"
	              "          HI:          1          5          2          3\n"
	              "      NET_RX:         10         50         20         32\n");
	harness_sample(&w);
	assert_int_equal(harness_find(&w, "softirq.HI.cpu2"), a2);
	assert_true(w.sink.put[a2]);
	harness_free(&w);
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
	harness_init(&w, &source_softirqs_ops, NULL);
	harness_mkdir(&w, "proc");
	harness_write(&w, "proc/softirqs",
	              "            CPU0  CPU1\n"
	              "     HI:        9     1\n"
	              "  TIMER:      100   200\n");
	harness_start(&w);
	harness_sample(&w);
	timer0 = harness_find(&w, "softirq.TIMER.cpu0");
	/* 9 -> 10 in place: one cell. */
	harness_write(&w, "proc/softirqs",
	              "            CPU0  CPU1\n"
	              "     HI:       10     1\n"
	              "  TIMER:      100   200\n");
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 1);
	assert_int_equal(harness_value(&w, "softirq.HI.cpu0"), 10);
	/* Reordered, a new type, a longer line. */
	harness_write(&w, "proc/softirqs",
	              "            CPU0  CPU1\n"
	              "  TIMER:   123456   201\n"
	              "     HI:       10     1\n"
	              "    NEW:        7     8\n");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(w.sink.nput, 4);
	assert_int_equal(w.sink.val[timer0], 123456);
	assert_int_equal(harness_value(&w, "softirq.NEW.cpu1"), 8);
	/* Listed twice: the first counts. Cut mid-line: nothing goes. */
	harness_write(&w, "proc/softirqs",
	              "            CPU0  CPU1\n"
	              "  TIMER:   123457   201\n"
	              "  TIMER:        1     1\n"
	              "     HI:    ");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(w.sink.val[timer0], 123457);
	/* HI gone for good: its two cells and NEW's. */
	harness_write(&w, "proc/softirqs",
	              "            CPU0  CPU1\n"
	              "  TIMER:   123458   201\n");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 4);
	assert_true(w.sink.gone[harness_find(&w, "softirq.HI.cpu0")]);
	assert_int_equal(w.sink.val[timer0], 123458);

	harness_write(&w, "proc/softirqs", "TIMER: 1 2\n");
	assert_int_equal(w.src.ops->sample(&w.src, &w.sink, &err), -1);
	assert_string_equal(err.message, "source softirqs: proc/softirqs: no CPU header");
	harness_free(&w);
}

/* A root without /proc/softirqs. */
static void
test_missing(void **state)
{
	struct world w;

	(void)state;
	harness_init_missing(&w, &source_softirqs_ops,
	                     "source softirqs: proc/softirqs: No such file or directory");
	harness_free(&w);
}

/* This machine: every type has a cell per online CPU; timers tick. */
static void
test_host(void **state)
{
	static const char *const per_cpu[] = {"softirq.NET_RX.cpu%ld", "softirq.TIMER.cpu%ld"};
	struct world w;
	long ncpu;

	(void)state;
	ncpu = harness_init_host_cpus(&w, &source_softirqs_ops, per_cpu, 2);
	assert_true(
	    harness_value(&w, "softirq.TIMER.cpu0") + harness_value(&w, "softirq.SCHED.cpu0") > 0);
	assert_true(w.sink.nput >= 10 * (size_t)ncpu);
	harness_free(&w);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_steps),   cmocka_unit_test(test_labels_dotted_type),
	    cmocka_unit_test(test_header),  cmocka_unit_test(test_rows),
	    cmocka_unit_test(test_missing), cmocka_unit_test(test_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
