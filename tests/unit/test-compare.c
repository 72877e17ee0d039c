/* test-compare.c: comparisons of known results: absolute and % changes, the better
 * direction of each kind of figure, figures one side leaves out, nulls, and sets of three
 * iterations with their mean, min, max and sample standard deviation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "compare.h"

/* Two reports of the same host, B after a tuning change. */
static const char *const result_a =
    "{\"window\":{\"name\":\"org\"},\"span_s\":10,\"figures\":{"
    "\"queues\":{\"min_rate\":0,\"devices\":[{\"name\":\"eth0\",\"queues\":["
    "{\"queue\":3,\"rx_pps\":100,\"tx_pps\":50,\"rx_packets\":1000,\"tx_packets\":500,"
    "\"irq_cpus\":\"3\"}],\"hidden\":0}],"
    "\"cpusets\":[{\"name\":\"expected\",\"cpus\":\"0-3\",\"by_irq_cpu\":{\"rx_pps\":80}}],"
    "\"ratio\":{\"sets\":[\"expected\",\"unexpected\"],\"by_irq_cpu\":2,"
    "\"by_queue_index\":null}},"
    "\"cpu\":{\"all\":{\"busy\":50,\"busy_cpus\":2},\"busy_us_per_packet\":4},"
    "\"devices\":[{\"name\":\"eth0\",\"rx_packets\":1000,\"rx_dropped\":8,"
    "\"driver_drops\":{\"rx_out_of_buffer\":4}}],"
    "\"softnet\":{\"time_squeeze\":2},"
    "\"tcp\":{\"in_segs\":1000,\"retrans_segs\":20,\"retrans_ratio\":0.01,"
    "\"tcpext\":{\"TCPTimeouts\":4,\"TCPOrigDataSent\":10}}}}";
static const char *const result_b =
    "{\"window\":{\"name\":\"new\"},\"span_s\":10,\"figures\":{"
    "\"queues\":{\"min_rate\":0,\"devices\":[{\"name\":\"eth0\",\"queues\":["
    "{\"queue\":3,\"rx_pps\":150,\"tx_pps\":25,\"rx_packets\":1500,\"tx_packets\":250,"
    "\"irq_cpus\":\"3\"},"
    "{\"queue\":5,\"rx_pps\":10,\"tx_pps\":0,\"rx_packets\":100,\"tx_packets\":0,"
    "\"irq_cpus\":\"5\"}],\"hidden\":0}],"
    "\"cpusets\":[{\"name\":\"expected\",\"cpus\":\"0-3\",\"by_irq_cpu\":{\"rx_pps\":80}}],"
    "\"ratio\":{\"sets\":[\"expected\",\"unexpected\"],\"by_irq_cpu\":3,"
    "\"by_queue_index\":null}},"
    "\"cpu\":{\"all\":{\"busy_cpus\":3},\"busy_us_per_packet\":3},"
    "\"devices\":[{\"name\":\"eth0\",\"rx_packets\":1500,\"rx_dropped\":2,"
    "\"driver_drops\":{}}],"
    "\"softnet\":{\"time_squeeze\":3},"
    "\"tcp\":{\"in_segs\":1500,\"retrans_segs\":10,\"retrans_ratio\":0.005,"
    "\"tcpext\":{\"TCPTimeouts\":4,\"TCPOrigDataSent\":15}}}}";

/* The figure line of a comparison for path; fails when missing. */
static json_object *
figure(json_object *cmp, const char *path)
{
	json_object *arr = json_object_object_get(cmp, "figures");

	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *f = json_object_array_get_idx(arr, i);
		if (strcmp(json_object_get_string(json_object_object_get(f, "figure")), path) == 0)
			return f;
	}
	fail_msg("no figure %s", path);
	return NULL;
}

/* A number at a dotted path below o ("a.mean"); NAN for null. */
static double
num(json_object *o, const char *path)
{
	char buf[64], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k != NULL; k = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(o, k, &o))
			fail_msg("no member %s of %s", k, path);
	return o == NULL ? NAN : json_object_get_double(o);
}

/* A figure's sides, change and % change, and its better direction (NULL: null). */
static void
check(json_object *cmp, const char *path, double a, double b, double change, double pct,
      const char *better)
{
	json_object *f = figure(cmp, path), *v;
	const double e[4] = {a, b, change, pct};
	const char *const keys[4] = {"a.mean", "b.mean", "change", "change_pct"};

	for (int i = 0; i < 4; i++) {
		double got = num(f, keys[i]);
		if (isnan(e[i]) ? !isnan(got) : fabs(got - e[i]) > 1e-12 * fmax(1, fabs(e[i])))
			fail_msg("%s %s: got %.15g, want %.15g", path, keys[i], got, e[i]);
	}
	v = json_object_object_get(f, "better");
	if (better == NULL)
		assert_null(v);
	else
		assert_string_equal(json_object_get_string(v), better);
}

/* Parse a result text. */
static json_object *
parse(const char *text)
{
	json_object *o = json_tokener_parse(text);

	assert_non_null(o);
	return o;
}

/* One result against another: changes, % changes, directions; a figure B leaves out
 * counts as 0 (a count) or as missing (a share); a figure only B has counts as 0 in A. */
static void
test_one_to_one(void **state)
{
	json_object *a = parse(result_a), *b = parse(result_b), *cmp, *f;

	(void)state;
	cmp = compare_results(&a, 1, &b, 1);
	assert_int_equal(
	    json_object_get_int(json_object_object_get(json_object_object_get(cmp, "a"), "n")), 1);
	check(cmp, "span_s", 10, 10, 0, 0, NULL);
	check(cmp, "tcp.in_segs", 1000, 1500, 500, 50, "higher");
	check(cmp, "tcp.retrans_segs", 20, 10, -10, -50, "lower");
	check(cmp, "tcp.retrans_ratio", 0.01, 0.005, -0.005, -50, "lower");
	check(cmp, "tcp.tcpext.TCPTimeouts", 4, 4, 0, 0, "lower");
	check(cmp, "tcp.tcpext.TCPOrigDataSent", 10, 15, 5, 50, NULL);
	check(cmp, "queues.devices.eth0.queues.3.rx_pps", 100, 150, 50, 50, "higher");
	check(cmp, "queues.devices.eth0.queues.3.tx_packets", 500, 250, -250, -50, "higher");
	check(cmp, "queues.devices.eth0.queues.5.rx_pps", 0, 10, 10, NAN, "higher");
	check(cmp, "queues.cpusets.expected.by_irq_cpu.rx_pps", 80, 80, 0, 0, NULL);
	check(cmp, "queues.ratio.by_irq_cpu", 2, 3, 1, 50, "higher");
	check(cmp, "queues.ratio.by_queue_index", NAN, NAN, NAN, NAN, "higher");
	check(cmp, "cpu.all.busy", 50, NAN, NAN, NAN, NULL);
	check(cmp, "cpu.all.busy_cpus", 2, 3, 1, 50, NULL);
	check(cmp, "cpu.busy_us_per_packet", 4, 3, -1, -25, "lower");
	check(cmp, "devices.eth0.rx_packets", 1000, 1500, 500, 50, "higher");
	check(cmp, "devices.eth0.rx_dropped", 8, 2, -6, -75, "lower");
	check(cmp, "devices.eth0.driver_drops.rx_out_of_buffer", 4, 0, -4, -100, "lower");
	check(cmp, "softnet.time_squeeze", 2, 3, 1, 50, "lower");
	/* Names and labels are no figures. */
	f = json_object_object_get(cmp, "figures");
	for (size_t i = 0; i < json_object_array_length(f); i++) {
		const char *p = json_object_get_string(
		    json_object_object_get(json_object_array_get_idx(f, i), "figure"));
		size_t l = strlen(p);
		assert_null(strstr(p, "irq_cpus"));
		assert_false(l > 6 && strcmp(p + l - 6, ".queue") == 0);
		assert_false(l > 5 && strcmp(p + l - 5, ".cpus") == 0);
		assert_false(l > 5 && strcmp(p + l - 5, ".name") == 0);
		assert_null(strstr(p, "ratio.sets"));
	}
	/* A's figures come first, in A's order. */
	assert_string_equal(json_object_get_string(
	                        json_object_object_get(json_object_array_get_idx(f, 0), "figure")),
	                    "span_s");
	/* One result a side: the mean only. */
	assert_false(json_object_object_get_ex(
	    json_object_object_get(figure(cmp, "tcp.in_segs"), "a"), "min", NULL));
	json_object_put(cmp);
	json_object_put(a);
	json_object_put(b);
}

/* A result of three iterations per side, from a template with two numbers filled in. */
static json_object *
iteration(long in_segs, const char *ratio, const char *extra)
{
	char buf[512];

	snprintf(buf, sizeof(buf),
	         "{\"span_s\":10,\"figures\":{\"tcp\":{\"in_segs\":%ld},"
	         "\"queues\":{\"ratio\":{\"by_irq_cpu\":%s}}%s}}",
	         in_segs, ratio, extra);
	return parse(buf);
}

/* Three iterations against three: mean, min, max, sample standard deviation, n; a null
 * is left out of its side; a count one iteration leaves out is 0 there; a share only one
 * iteration has stands alone. */
static void
test_sets_of_three(void **state)
{
	json_object *a[3], *b[3], *cmp, *f;

	(void)state;
	a[0] = iteration(1, "2", "");
	a[1] = iteration(2, "null", "");
	a[2] = iteration(3, "2", "");
	b[0] = iteration(2, "1", ",\"softnet\":{\"dropped\":6},\"cpu\":{\"all\":{\"busy\":60}}");
	b[1] = iteration(4, "2", "");
	b[2] = iteration(6, "3", "");
	cmp = compare_results(a, 3, b, 3);
	check(cmp, "tcp.in_segs", 2, 4, 2, 100, "higher");
	f = figure(cmp, "tcp.in_segs");
	assert_true(num(f, "a.min") == 1 && num(f, "a.max") == 3 && num(f, "a.stddev") == 1);
	assert_true(num(f, "b.min") == 2 && num(f, "b.max") == 6 && num(f, "b.stddev") == 2);
	assert_true(num(f, "a.n") == 3 && num(f, "b.n") == 3);
	f = figure(cmp, "queues.ratio.by_irq_cpu");
	check(cmp, "queues.ratio.by_irq_cpu", 2, 2, 0, 0, "higher");
	assert_true(num(f, "a.n") == 2 && num(f, "a.stddev") == 0);
	assert_true(num(f, "b.min") == 1 && num(f, "b.max") == 3 && num(f, "b.stddev") == 1);
	/* softnet.dropped: 6, 0, 0 on B (mean 2, stddev sqrt(12)); 0 on A. */
	f = figure(cmp, "softnet.dropped");
	check(cmp, "softnet.dropped", 0, 2, 2, NAN, "lower");
	assert_true(num(f, "a.stddev") == 0 && num(f, "a.n") == 3);
	assert_true(fabs(num(f, "b.stddev") - sqrt(12)) < 1e-6 && num(f, "b.max") == 6);
	/* cpu.all.busy, a share, only in B's first: A has none, B one. */
	f = figure(cmp, "cpu.all.busy");
	check(cmp, "cpu.all.busy", NAN, 60, NAN, NAN, NULL);
	assert_true(num(f, "a.n") == 0 && num(f, "b.n") == 1 && num(f, "b.stddev") == 0);
	json_object_put(cmp);
	for (int i = 0; i < 3; i++) {
		json_object_put(a[i]);
		json_object_put(b[i]);
	}
}

/* The direction table for each group's figures. */
static void
test_kinds(void **state)
{
	static const char *const cases[][3] = {
	    {"queues.devices.eth0.total.rx_pps", "packets/s", "higher"},
	    {"queues.devices.eth0.hidden", "queues", NULL},
	    {"queues.cpusets.expected.by_queue_index.tx_packets", "packets", NULL},
	    {"cpu.sets.expected.softirq", "%", NULL},
	    {"cpu.sets.expected.busy_cpus", "CPUs", NULL},
	    {"interrupts.ipi_cal_per_s", "IPIs/s", "lower"},
	    {"interrupts.ipis.RES.total", "IPIs", "lower"},
	    {"interrupts.devices.0000:08:00.0.per_s", "interrupts/s", NULL},
	    {"softirqs.per_cpu.5.net_rx_per_s", "softirqs/s", NULL},
	    {"softirqs.sets.expected.packets_per_net_rx", "packets", "higher"},
	    {"devices.eth0.tx_bytes_per_s", "bytes/s", "higher"},
	    {"devices.eth0.driver_drops_per_s.rx_missed_errors", "packets/s", "lower"},
	    {"devices.eth0.tx_packets_per_s", "packets/s", "higher"},
	    {"softnet.processed", "packets", "higher"},
	    {"softnet.flow_limit_count_per_s", "events/s", "lower"},
	    {"tcp.out_segs_per_s", "segments/s", "higher"},
	    {"tcp.tcpext.TCPLossProbes", "", "lower"},
	    {"udp.in_datagrams_per_s", "datagrams/s", "higher"},
	    {"udp.rcvbuf_errors", "datagrams", "lower"},
	    {"udp.no_ports_per_s", "datagrams/s", "lower"},
	    {"udp.in_loss_pct", "%", "lower"},
	    {"test.loss_pct", "%", "lower"},
	    {"test.sent_datagrams", "", NULL},
	    {"sysctl.net.core.arfs_add", "", NULL},
	    {"lnstat.rt_cache.in_hit", "", NULL},
	};
	const char *unit, *better;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		compare_figure_kind(cases[i][0], &unit, &better);
		if (strcmp(unit, cases[i][1]) != 0)
			fail_msg("%s: unit %s, want %s", cases[i][0], unit, cases[i][1]);
		if (cases[i][2] == NULL ? better != NULL
		                        : better == NULL || strcmp(better, cases[i][2]) != 0)
			fail_msg("%s: better %s", cases[i][0], better ? better : "null");
	}
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_to_one),
	    cmocka_unit_test(test_sets_of_three),
	    cmocka_unit_test(test_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
