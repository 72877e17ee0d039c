/* test-source-softnet.c: /proc/net/softnet_stat parsing, on fixtures from gen-host.py, on
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

/* 144 CPUs: seven series each at step 0 with their kinds; exact deltas at step 1 (CPU 2's
 * processed wraps at 2^32) with only the changed values put; nothing when unchanged. */
static void
test_steps(void **state)
{
	uint64_t p2, b5;
	struct world w;
	int64_t changed;

	(void)state;
	harness_init(&w, &source_softnet_ops, NULL);
	harness_gen(&w, "--only softnet");
	harness_start(&w);
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 144 * 7);
	harness_check_values(&w, "softnet.");
	assert_int_equal(series_get(&w.reg, harness_find(&w, "softnet.cpu9.dropped"))->kind,
	                 SERIES_COUNTER32);
	assert_int_equal(series_get(&w.reg, harness_find(&w, "softnet.cpu9.backlog"))->kind,
	                 SERIES_GAUGE);
	assert_string_equal(series_get(&w.reg, harness_find(&w, "softnet.cpu9.processed"))->unit,
	                    "packets");
	p2 = harness_value(&w, "softnet.cpu2.processed");
	harness_labels(&w, "softnet.cpu9.processed",
	               "source=softnet cpu=9 field=processed unit=packets");
	b5 = harness_value(&w, "softnet.cpu5.backlog");
	changed = harness_js_int(&w, "changed", "softnet");

	harness_gen(&w, "--only softnet --step 1");
	harness_sample(&w);
	assert_int_equal(w.sink.nput, changed);
	assert_int_equal(w.sink.ngone, 0);
	harness_check_values(&w, "softnet.");
	assert_true(harness_value(&w, "softnet.cpu2.processed") < p2);
	assert_int_equal((uint32_t)(harness_value(&w, "softnet.cpu2.processed") - p2),
	                 harness_js_int(&w, "deltas", "softnet.cpu2.processed"));
	assert_int_equal(harness_value(&w, "softnet.cpu5.backlog") - b5,
	                 harness_js_int(&w, "deltas", "softnet.cpu5.backlog"));
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 0);
	harness_free(&w);
}

/* Offline CPUs: lines carry their CPU number, so the rows after a gap map right; going
 * offline declares the series gone, coming back revives the same ids. */
static void
test_offline(void **state)
{
	struct world w;
	series_id p3;

	(void)state;
	harness_init(&w, &source_softnet_ops, NULL);
	harness_gen(&w, "--cpus 8 --odd --only softnet");
	harness_start(&w);
	harness_sample(&w);
	harness_check_values(&w, "softnet.");
	harness_check_absent(&w, "softnet.");
	assert_int_equal(w.sink.nput, 6 * 7);
	assert_int_equal(harness_value(&w, "softnet.cpu4.processed"), 1000000 + 4000);

	harness_gen(&w, "--cpus 8 --only softnet");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	harness_check_values(&w, "softnet.");
	p3 = harness_find(&w, "softnet.cpu3.processed");
	assert_int_equal(w.sink.nput, 2 * 7); /* CPUs 3 and 5, new */

	harness_gen(&w, "--cpus 8 --only softnet --offline 3 --step 1");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 7);
	assert_true(w.sink.gone[p3]);
	harness_check_values(&w, "softnet.");
	harness_check_absent(&w, "softnet.");

	harness_gen(&w, "--cpus 8 --only softnet --step 2");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(harness_find(&w, "softnet.cpu3.processed"), p3);
	assert_true(w.sink.put[p3]);
	harness_check_values(&w, "softnet.");
	harness_free(&w);
}

/* Layouts of older kernels (no backlog or CPU column: the line's place is its CPU; 2.6.32's
 * nine columns, cpu_collision the last), a last line without a final newline (whole: the
 * read reached the end of the file), rows of too few columns or not hex (skipped). */
static void
test_layouts(void **state)
{
	struct world w;

	(void)state;
	harness_init(&w, &source_softnet_ops, NULL);
	harness_mkdir(&w, "proc");
	harness_mkdir(&w, "proc/net");
	harness_write(&w, "proc/net/softnet_stat",
	              "0000000a 00000001 00000002 00000000 00000000 00000000 00000000 00000000 "
	              "00000007 00000003 00000004\n"
	              "0000000b 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
	              "00000000 00000000 00000000\n");
	harness_start(&w);
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 2 * 6);
	assert_int_equal(harness_value(&w, "softnet.cpu0.processed"), 10);
	assert_int_equal(harness_value(&w, "softnet.cpu0.dropped"), 1);
	assert_int_equal(harness_value(&w, "softnet.cpu0.time_squeeze"), 2);
	assert_int_equal(harness_value(&w, "softnet.cpu0.cpu_collision"), 7);
	assert_int_equal(harness_value(&w, "softnet.cpu0.received_rps"), 3);
	assert_int_equal(harness_value(&w, "softnet.cpu0.flow_limit_count"), 4);
	assert_int_equal(harness_value(&w, "softnet.cpu1.processed"), 11);
	assert_int_equal(series_find(&w.reg, "softnet.cpu0.backlog"), SERIES_NONE);

	/* 5.10 layout, CPU 1 offline: the second line is CPU 2, the last, with no '\n'. */
	harness_write(&w, "proc/net/softnet_stat",
	              "0000000c 00000001 00000002 00000000 00000000 00000000 00000000 00000000 "
	              "00000007 00000003 00000004 00000009 00000000\n"
	              "ffffffff 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
	              "00000000 00000000 00000000 00000000 00000002");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 6); /* CPU 1's (it never had a backlog) */
	assert_true(w.sink.gone[harness_find(&w, "softnet.cpu1.processed")]);
	assert_int_equal(harness_value(&w, "softnet.cpu0.processed"), 12);
	assert_int_equal(harness_value(&w, "softnet.cpu0.backlog"), 9);
	assert_int_equal(harness_value(&w, "softnet.cpu2.processed"), UINT32_MAX);
	assert_int_equal(harness_value(&w, "softnet.cpu2.backlog"), 0);

	/* The same, the last line now with its '\n' and unchanged: nothing put, nothing gone. */
	harness_write(&w, "proc/net/softnet_stat",
	              "0000000c 00000001 00000002 00000000 00000000 00000000 00000000 00000000 "
	              "00000007 00000003 00000004 00000009 00000000\n"
	              "ffffffff 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
	              "00000000 00000000 00000000 00000000 00000002\n");
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 0);
	assert_int_equal(w.sink.ngone, 0);

	/* A row of four columns and one not hex are no CPU's: CPU 2 is gone. */
	harness_write(&w, "proc/net/softnet_stat",
	              "0000000c 00000001 00000002 00000000 00000000 00000000 00000000 00000000 "
	              "00000007 00000003 00000004 00000009 00000000\n"
	              "ffffffff 00000000 00000000 00000002\n"
	              "zzzz\n");
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 0);
	assert_int_equal(w.sink.ngone, 7);
	assert_true(w.sink.gone[harness_find(&w, "softnet.cpu2.processed")]);

	/* 2.6.32: nine columns, no final newline; CPU 0 by its place. */
	harness_write(&w, "proc/net/softnet_stat",
	              "0000000e 00000001 00000002 00000000 00000000 00000000 00000000 00000000 "
	              "00000008");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(w.sink.nput, 2);
	assert_int_equal(harness_value(&w, "softnet.cpu0.processed"), 14);
	assert_int_equal(harness_value(&w, "softnet.cpu0.cpu_collision"), 8);
	harness_free(&w);
}

/* Samples the grid compare took, from status. */
static uint64_t
grid_samples(struct world *w)
{
	json_object *d = w->src.ops->describe(&w->src), *v;
	uint64_t n;

	assert_true(json_object_object_get_ex(d, "grid_samples", &v));
	n = (uint64_t)json_object_get_int64(v);
	json_object_put(d);
	return n;
}

/* The line of CPU cpu (a 5.10 line, 13 columns) with processed p and dropped d. */
static void
grid_line(char *out, unsigned cpu, unsigned p, unsigned d)
{
	sprintf(out,
	        "%08x %08x 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
	        "00000000 00000000 00000000 %08x\n",
	        p, d, cpu);
}

/* softnet_stat made of the lines given (up to three; NULL ends them). */
static void
write_lines(struct world *w, const char *l0, const char *l1, const char *l2)
{
	char text[480];

	snprintf(text, sizeof(text), "%s%s%s", l0, l1 != NULL ? l1 : "",
	         l1 != NULL && l2 != NULL ? l2 : "");
	harness_write(w, "proc/net/softnet_stat", text);
}

/* The same, then a sample. */
static void
write_and_sample(struct world *w, const char *l0, const char *l1, const char *l2)
{
	write_lines(w, l0, l1, l2);
	harness_sample(w);
}

/* The grid compare: the fixture's steps after the first read go by it with the values of a
 * full parse; a CPU number that changes in place (CPU 1 offline, CPU 2 online, same length)
 * stops it before the line's other change reaches CPU 1's series; a changed blank, an
 * upper-case digit and a longer file go the per-line way with right values, and the compare
 * takes the read after each again. */
static void
test_grid(void **state)
{
	char a[160], b[160], c[160];
	struct world w;
	uint64_t g;

	(void)state;
	harness_init(&w, &source_softnet_ops, NULL);
	for (int step = 0; step < 8; step++) {
		char args[64];
		snprintf(args, sizeof(args), "--only softnet --step %d", step);
		harness_gen(&w, args);
		if (step == 0)
			harness_start(&w);
		harness_sample(&w);
		harness_check_values(&w, "softnet.");
		assert_int_equal(grid_samples(&w), (uint64_t)step);
	}
	harness_free(&w);

	harness_init(&w, &source_softnet_ops, NULL);
	harness_mkdir(&w, "proc");
	harness_mkdir(&w, "proc/net");
	grid_line(a, 0, 10, 1);
	grid_line(b, 1, 20, 2);
	write_lines(&w, a, b, NULL);
	harness_start(&w);
	harness_sample(&w);
	assert_int_equal(harness_value(&w, "softnet.cpu1.processed"), 20);
	grid_line(b, 1, 21, 2);
	write_and_sample(&w, a, b, NULL);
	assert_int_equal(grid_samples(&w), 1);
	assert_int_equal(w.sink.nput, 1);
	assert_int_equal(harness_value(&w, "softnet.cpu1.processed"), 21);

	/* CPU 2 in CPU 1's place, its processed 30: CPU 1's series gone, untouched. */
	grid_line(b, 2, 30, 2);
	write_and_sample(&w, a, b, NULL);
	assert_int_equal(grid_samples(&w), 1);
	assert_true(w.sink.gone[harness_find(&w, "softnet.cpu1.processed")]);
	assert_int_equal(w.sink.val[harness_find(&w, "softnet.cpu1.processed")], 21);
	assert_int_equal(harness_value(&w, "softnet.cpu2.processed"), 30);
	assert_int_equal(harness_value(&w, "softnet.cpu2.dropped"), 2);

	/* Back to the compare. */
	grid_line(a, 0, 11, 1);
	write_and_sample(&w, a, b, NULL);
	assert_int_equal(grid_samples(&w), 2);
	assert_int_equal(w.sink.nput, 1);
	assert_int_equal(harness_value(&w, "softnet.cpu0.processed"), 11);

	/* A tab for the blank after CPU 0's processed, which moves too: per line. */
	grid_line(a, 0, 12, 1);
	a[8] = '\t';
	g = grid_samples(&w);
	write_and_sample(&w, a, b, NULL);
	assert_int_equal(grid_samples(&w), g);
	assert_int_equal(harness_value(&w, "softnet.cpu0.processed"), 12);

	/* An upper-case digit in CPU 2's processed (0x3A): per line, the same value read. */
	grid_line(a, 0, 12, 1);
	grid_line(b, 2, 0x3a, 2);
	write_and_sample(&w, a, b, NULL); /* the tab gone: a grid again, per line */
	assert_int_equal(harness_value(&w, "softnet.cpu2.processed"), 0x3a);
	b[7] = 'B';
	g = grid_samples(&w);
	write_and_sample(&w, a, b, NULL);
	assert_int_equal(grid_samples(&w), g);
	assert_int_equal(harness_value(&w, "softnet.cpu2.processed"), 0x3b);

	/* CPU 3 comes (the file longer): per line; then the compare again. */
	grid_line(b, 2, 0x3c, 2);
	grid_line(c, 3, 40, 0);
	write_and_sample(&w, a, b, c);
	assert_int_equal(grid_samples(&w), g);
	assert_int_equal(harness_value(&w, "softnet.cpu3.processed"), 40);
	assert_int_equal(harness_value(&w, "softnet.cpu2.processed"), 0x3c);
	grid_line(c, 3, 41, 0);
	write_and_sample(&w, a, b, c);
	assert_int_equal(grid_samples(&w), g + 1);
	assert_int_equal(w.sink.nput, 1);
	assert_int_equal(harness_value(&w, "softnet.cpu3.processed"), 41);
	harness_free(&w);
}

/* A root without /proc/net/softnet_stat. */
static void
test_missing(void **state)
{
	struct world w;

	(void)state;
	harness_init_missing(&w, &source_softnet_ops,
	                     "source softnet: proc/net/softnet_stat: No such file or directory");
	harness_free(&w);
}

/* This machine: one line per online CPU. */
static void
test_host(void **state)
{
	/* backlog: kernels since 5.10 */
	static const char *const per_cpu[] = {"softnet.cpu%ld.processed", "softnet.cpu%ld.backlog"};
	struct world w;
	char name[64];
	long ncpu;

	(void)state;
	ncpu = harness_init_host_cpus(&w, &source_softnet_ops, per_cpu, 2);
	snprintf(name, sizeof(name), "softnet.cpu%ld.processed", ncpu);
	assert_int_equal(series_find(&w.reg, name), SERIES_NONE);
	assert_int_equal(w.sink.nput, 7 * (size_t)ncpu);
	harness_free(&w);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_steps),   cmocka_unit_test(test_offline),
	    cmocka_unit_test(test_layouts), cmocka_unit_test(test_missing),
	    cmocka_unit_test(test_host),    cmocka_unit_test(test_grid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
