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
	check(cmp, "tcp.in_segs", 1000, 1500, 500, 50, NULL);
	check(cmp, "tcp.retrans_segs", 20, 10, -10, -50, "lower");
	check(cmp, "tcp.retrans_ratio", 0.01, 0.005, -0.005, -50, "lower");
	check(cmp, "tcp.tcpext.TCPTimeouts", 4, 4, 0, 0, "lower");
	check(cmp, "tcp.tcpext.TCPOrigDataSent", 10, 15, 5, 50, NULL);
	check(cmp, "queues.devices.eth0.queues.3.rx_pps", 100, 150, 50, 50, NULL);
	check(cmp, "queues.devices.eth0.queues.3.tx_packets", 500, 250, -250, -50, NULL);
	check(cmp, "queues.devices.eth0.queues.5.rx_pps", 0, 10, 10, NAN, NULL);
	check(cmp, "queues.cpusets.expected.by_irq_cpu.rx_pps", 80, 80, 0, 0, NULL);
	check(cmp, "queues.ratio.by_irq_cpu", 2, 3, 1, 50, "higher");
	check(cmp, "queues.ratio.by_queue_index", NAN, NAN, NAN, NAN, "higher");
	check(cmp, "cpu.all.busy", 50, NAN, NAN, NAN, NULL);
	check(cmp, "cpu.all.busy_cpus", 2, 3, 1, 50, NULL);
	check(cmp, "cpu.busy_us_per_packet", 4, 3, -1, -25, NULL);
	check(cmp, "devices.eth0.rx_packets", 1000, 1500, 500, 50, NULL);
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
	check(cmp, "tcp.in_segs", 2, 4, 2, 100, NULL);
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
	    {"queues.devices.eth0.total.rx_pps", "packets/s", NULL},
	    {"queues.devices.eth0.queues.3.tx_packets", "packets", NULL},
	    {"queues.devices.eth0.hidden", "queues", NULL},
	    {"queues.cpusets.expected.by_queue_index.tx_packets", "packets", NULL},
	    {"cpu.sets.expected.softirq", "%", NULL},
	    {"cpu.sets.expected.busy_cpus", "CPUs", NULL},
	    {"interrupts.ipi_cal_per_s", "IPIs/s", "lower"},
	    {"interrupts.ipis.RES.total", "IPIs", "lower"},
	    {"interrupts.devices.0000:08:00.0.per_s", "interrupts/s", NULL},
	    {"softirqs.per_cpu.5.net_rx_per_s", "softirqs/s", NULL},
	    {"softirqs.sets.expected.packets_per_net_rx", "packets", NULL},
	    {"softirqs.packets_per_net_rx", "packets", NULL},
	    {"cpu.busy_us_per_packet", "us", NULL},
	    {"devices.eth0.tx_bytes_per_s", "bytes/s", "higher"},
	    {"devices.eth0.rx_bytes", "bytes", "higher"},
	    {"devices.eth0.driver_drops_per_s.rx_missed_errors", "packets/s", "lower"},
	    {"devices.eth0.tx_packets_per_s", "packets/s", NULL},
	    {"devices.eth0.rx_packets", "packets", NULL},
	    {"devices.eth0.rx_dropped_per_s", "packets/s", "lower"},
	    {"softnet.processed", "packets", NULL},
	    {"softnet.processed_per_s", "packets/s", NULL},
	    {"softnet.flow_limit_count_per_s", "events/s", "lower"},
	    {"tcp.out_segs_per_s", "segments/s", NULL},
	    {"tcp.in_segs", "segments", NULL},
	    {"tcp.retrans_segs_per_s", "segments/s", "lower"},
	    {"tcp.tcpext.TCPLossProbes", "", "lower"},
	    {"udp.in_datagrams_per_s", "datagrams/s", NULL},
	    {"udp.out_datagrams", "datagrams", NULL},
	    {"summary.packets_sent", "packets", NULL},
	    {"summary.packets_dropped", "packets", "lower"},
	    {"udp.rcvbuf_errors", "datagrams", "lower"},
	    {"udp.no_ports_per_s", "datagrams/s", "lower"},
	    {"udp.in_loss_pct", "%", "lower"},
	    {"test.loss_pct", "%", "lower"},
	    {"test.sent_datagrams", "", NULL},
	    {"sysctl.net.core.arfs_add", "", NULL},
	    {"lnstat.rt_cache.in_hit", "", NULL},
	    {"bursts.link.vB.rx_packets.peak_to_mean", "ratio", NULL},
	    {"bursts.softnet.cpu0.processed.peak_per_s", "/s", NULL},
	    {"bursts.queue.eth0.rx7.packets.longest_run_s", "s", NULL},
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

/* A result whose benchmark gave transactions/s v. */
static json_object *
rr_result(double v)
{
	char buf[256];

	snprintf(buf, sizeof(buf),
	         "{\"span_s\":10,\"test\":{\"figures\":{\"transactions_per_s\":%.17g}},"
	         "\"figures\":{\"tcp\":{\"retrans_segs\":5}}}",
	         v);
	return parse(buf);
}

/* A string member of a figure, or NULL (null or absent). */
static const char *
str(json_object *f, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(f, key, &v) || v == NULL)
		return NULL;
	return json_object_get_string(v);
}

/* Ten iterations against twenty (Wikipedia's second Welch example, see test-stats.c):
 * each side's 95 % CI, Welch's t, df and p, "within noise"; the third example's sets are
 * "significant". A figure the same in every result is "same", with p 1. */
static void
test_sets_welch(void **state)
{
	static const double b1[] = {17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5, 24.2, 14.7, 21.8};
	static const double b2[] = {21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5, 20.7, 23.4, 21.8,
	                            20.7, 21.7, 21.5, 22.5, 23.6, 21.5, 22.5, 23.5, 21.5, 21.8};
	static const double c1[] = {19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0};
	static const double c2[] = {28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7,
	                            23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 23.9, 13.3};
	json_object *a[10], *b[20], *cmp, *f;
	double half;

	(void)state;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < 10; i++)
			a[i] = rr_result(pass ? c1[i] : b1[i]);
		for (int i = 0; i < 20; i++)
			b[i] = rr_result(pass ? c2[i] : b2[i]);
		cmp = compare_results(a, 10, b, 20);
		f = figure(cmp, "test.transactions_per_s");
		if (pass == 0) {
			check(cmp, "test.transactions_per_s", 20.61, 22.135, 1.525,
			      100 * 1.525 / 20.61, "higher");
			assert_true(fabs(num(f, "t") - 1.56543352359851) < 1e-9);
			assert_true(fabs(num(f, "df") - 9.90474124865083) < 1e-9);
			assert_true(fabs(num(f, "p") - 0.148841696605328) < 1e-9);
			assert_string_equal(str(f, "significance"), "within noise");
			/* A: sd 3.00682556860221, t(0.975, 9) 2.26215716279821. */
			half = 2.26215716279821 * 3.00682556860221 / sqrt(10);
			assert_true(fabs(num(f, "a.ci95_low") - (20.61 - half)) < 1e-9);
			assert_true(fabs(num(f, "a.ci95_high") - (20.61 + half)) < 1e-9);
		} else {
			assert_true(fabs(num(f, "p") - 0.0354845308300102) < 1e-9);
			assert_string_equal(str(f, "significance"), "significant");
		}
		assert_string_equal(str(f, "verdict"), "better");
		f = figure(cmp, "tcp.retrans_segs");
		assert_string_equal(str(f, "verdict"), "same");
		assert_true(num(f, "p") == 1);
		assert_string_equal(str(f, "significance"), "within noise");
		/* span_s has no better direction: no verdict, only the test. */
		assert_null(str(figure(cmp, "span_s"), "verdict"));
		json_object_put(cmp);
		for (int i = 0; i < 10; i++)
			json_object_put(a[i]);
		for (int i = 0; i < 20; i++)
			json_object_put(b[i]);
	}
	/* One result a side: a verdict, but no test and no interval. */
	a[0] = rr_result(100);
	b[0] = rr_result(90);
	cmp = compare_results(a, 1, b, 1);
	f = figure(cmp, "test.transactions_per_s");
	assert_string_equal(str(f, "verdict"), "worse");
	assert_false(json_object_object_get_ex(f, "p", NULL));
	assert_false(json_object_object_get_ex(f, "significance", NULL));
	assert_false(json_object_object_get_ex(json_object_object_get(f, "a"), "ci95_low", NULL));
	json_object_put(cmp);
	json_object_put(a[0]);
	json_object_put(b[0]);
}

/* A result whose benchmark gave p99_latency_us v (a skewed figure). */
static json_object *
lat_result(double v)
{
	char buf[256];

	snprintf(buf, sizeof(buf),
	         "{\"span_s\":10,\"test\":{\"figures\":{\"p99_latency_us\":%.17g,"
	         "\"mean_latency_us\":%.17g,\"transactions_per_s\":%.17g}}}",
	         v, v, 1e6 / v);
	return parse(buf);
}

/* A latency percentile is judged by the rank test: the skewed pair of test-stats.c (R's
 * wilcox.test: W 7, exact p 0.00699300699300699) is "significant" by ranks where Welch's t
 * (p > 0.5, through one outlier a side) says "within noise"; transactions/s, not a latency,
 * keeps Welch's. Which names are skewed. */
static void
test_rank_for_latency(void **state)
{
	static const double la[] = {50, 52, 51, 49, 300, 53, 50.5, 48};
	static const double lb[] = {55, 57, 56, 54, 58, 400, 56.5, 59};
	json_object *a[8], *b[8], *cmp, *f;

	(void)state;
	for (int i = 0; i < 8; i++) {
		a[i] = lat_result(la[i]);
		b[i] = lat_result(lb[i]);
	}
	cmp = compare_results(a, 8, b, 8);
	f = figure(cmp, "test.p99_latency_us");
	assert_true(num(f, "p") > 0.5);
	assert_true(fabs(num(f, "rank_test.w") - 7) < 1e-12);
	assert_true(fabs(num(f, "rank_test.p") - 0.00699300699300699) < 1e-8);
	assert_string_equal(str(json_object_object_get(f, "rank_test"), "method"), "exact");
	assert_string_equal(str(f, "significance"), "significant");
	assert_string_equal(str(f, "significance_by"), "rank test");
	f = figure(cmp, "test.mean_latency_us");
	assert_string_equal(str(f, "significance_by"), "rank test");
	f = figure(cmp, "test.transactions_per_s");
	assert_false(json_object_object_get_ex(f, "rank_test", NULL));
	assert_null(str(f, "significance_by"));
	json_object_put(cmp);
	for (int i = 0; i < 8; i++) {
		json_object_put(a[i]);
		json_object_put(b[i]);
	}
	assert_true(compare_skewed_figure("test.p99_latency_us_max"));
	assert_true(compare_skewed_figure("test.p99"));
	assert_true(compare_skewed_figure("rtt_p999.x"));
	assert_true(compare_skewed_figure("test.latency_us"));
	assert_true(compare_skewed_figure("x.percentile_90"));
	assert_false(compare_skewed_figure("test.throughput_mbps"));
	assert_false(compare_skewed_figure("devices.vA.tx_packets"));
	assert_false(compare_skewed_figure("cpu.p1"));
	assert_false(compare_skewed_figure("cpu.ap99"));
	assert_false(compare_skewed_figure("test.p99x"));
}

/* A full report and the kit's rows of it. */
static const char *const summary_result =
    "{\"span_s\":10,\"figures\":{"
    "\"queues\":{\"devices\":[],\"cpusets\":["
    "{\"name\":\"near\",\"cpus\":\"0-1\",\"by_irq_cpu\":{\"rx_pps\":1,\"tx_pps\":1,"
    "\"rx_packets\":700,\"tx_packets\":300},\"by_queue_index\":{\"rx_packets\":1}},"
    "{\"name\":\"far\",\"cpus\":\"2-3\",\"by_irq_cpu\":{\"rx_packets\":40,\"tx_packets\":2}},"
    "{\"name\":\"third\",\"cpus\":\"4\",\"by_irq_cpu\":{\"rx_packets\":9}}],"
    "\"ratio\":{\"by_irq_cpu\":23.8}},"
    "\"cpu\":{\"all\":{\"user\":10,\"busy\":42.5},\"busy_us_per_packet\":3},"
    "\"interrupts\":{\"ipi_all\":5000,\"ipi_all_per_s\":500,\"ipi_cal_per_s\":200},"
    "\"softirqs\":{\"net_rx\":300,\"net_rx_per_s\":30,\"net_tx\":20},"
    "\"devices\":[{\"name\":\"eth0\",\"rx_packets\":1000,\"tx_packets\":800,"
    "\"rx_dropped\":3,\"tx_dropped\":1},{\"name\":\"eth1\",\"rx_packets\":10,"
    "\"tx_packets\":20,\"rx_dropped\":0,\"tx_dropped\":2}],"
    "\"softnet\":{\"processed\":1000,\"dropped\":4},"
    "\"tcp\":{\"out_segs\":900,\"retrans_segs\":7},"
    "\"sysctl\":{\"net.core.tcp_mem\":1,\"net.core.arfs_add\":11,\"net.core.arfs_update\":12,"
    "\"net.core.arfs_skip\":13,\"net.core.arfs_delete\":14}}}";

/* The summary: 13 rows in the kit's order, each the sum the kit made. */
static void
test_summary(void **state)
{
	static const struct {
		const char *path;
		double v;
	} rows[] = {
	    {"summary.queue_packets.near", 1000},
	    {"summary.queue_packets.far", 42},
	    {"cpu.all.busy", 42.5},
	    {"interrupts.ipi_all_per_s", 500},
	    {"summary.packets_sent", 820},
	    {"summary.packets_received", 1010},
	    {"summary.packets_dropped", 3 + 1 + 2 + 4},
	    {"tcp.retrans_segs", 7},
	    {"summary.softirqs", 320},
	    {"sysctl.net.core.arfs_add", 11},
	    {"sysctl.net.core.arfs_update", 12},
	    {"sysctl.net.core.arfs_skip", 13},
	    {"sysctl.net.core.arfs_delete", 14},
	};
	json_object *r = parse(summary_result), *cmp, *figs;

	(void)state;
	cmp = compare_summary(&r, 1, &r, 1);
	figs = json_object_object_get(cmp, "figures");
	assert_int_equal(json_object_array_length(figs), 13);
	assert_true(json_object_get_boolean(json_object_object_get(cmp, "summary")));
	for (size_t i = 0; i < 13; i++) {
		json_object *f = json_object_array_get_idx(figs, i);
		assert_string_equal(str(f, "figure"), rows[i].path);
		if (fabs(num(f, "a.mean") - rows[i].v) > 1e-12)
			fail_msg("%s: %g, want %g", rows[i].path, num(f, "a.mean"), rows[i].v);
	}
	check(cmp, "summary.packets_dropped", 10, 10, 0, 0, "lower");
	check(cmp, "summary.packets_sent", 820, 820, 0, 0, NULL);
	check(cmp, "summary.queue_packets.near", 1000, 1000, 0, 0, NULL);
	json_object_put(cmp);
	json_object_put(r);
}

/* A result of transactions/s v with the tuning its window closed with (tuning.h). */
static json_object *
tuned(double v, const char *vars, const char *tuning)
{
	char buf[1024];

	snprintf(buf, sizeof(buf),
	         "{\"span_s\":10,\"test\":{\"profile\":\"rfs\",\"profile_vars\":%s,"
	         "\"figures\":{\"transactions_per_s\":%g}},"
	         "\"figures\":{\"cpu\":{\"all\":{\"busy\":%g}}},\"tuning\":%s}",
	         vars, v, v / 10, tuning);
	return parse(buf);
}

/* The warning of code on side of a comparison, or NULL. */
static json_object *
warning(json_object *cmp, const char *code, const char *side)
{
	json_object *w = json_object_object_get(cmp, "warnings");

	for (size_t i = 0; w && i < json_object_array_length(w); i++) {
		json_object *o = json_object_array_get_idx(w, i);
		if (strcmp(str(o, "code"), code) == 0 && strcmp(str(o, "side"), side) == 0)
			return o;
	}
	return NULL;
}

/* The case: RFS 1024 against 512 while rps_sock_flow_entries is 0 on both: each
 * side is warned, and the figure that went better says so; with a flow table, nothing.
 * RPS masks on a device without rps_cpus, XPS on one tx queue. */
static void
test_tuning_warnings(void **state)
{
	static const char *const off =
	    "{\"rps_sock_flow_entries\":0,\"profile\":{\"name\":\"rfs\",\"device\":\"eth0\","
	    "\"kinds\":[\"sysctl\"]},\"devices\":[{\"name\":\"eth0\",\"rx_queues\":4,"
	    "\"tx_queues\":4,\"rps_queues\":0,\"flow_cnt\":0,\"xps_queues\":4}]}";
	static const char *const on =
	    "{\"rps_sock_flow_entries\":4096,\"profile\":null,\"devices\":[{\"name\":\"eth0\","
	    "\"rx_queues\":4,\"tx_queues\":4,\"rps_queues\":0,\"flow_cnt\":2048,"
	    "\"xps_queues\":4}]}";
	static const char *const flows_no_table =
	    "{\"rps_sock_flow_entries\":0,\"devices\":[{\"name\":\"eth0\",\"rx_queues\":4,"
	    "\"tx_queues\":4,\"rps_queues\":0,\"flow_cnt\":2048,\"xps_queues\":4}]}";
	static const char *const no_rps_one_tx =
	    "{\"rps_sock_flow_entries\":4096,\"profile\":{\"name\":\"rps-all\",\"device\":"
	    "\"veth0\",\"kinds\":[\"rps\",\"xps\"]},\"devices\":[{\"name\":\"veth0\","
	    "\"rx_queues\":1,\"tx_queues\":1,\"rps_queues\":null,\"flow_cnt\":null,"
	    "\"xps_queues\":0}]}";
	json_object *a[2], *b[2], *cmp, *w, *f;

	(void)state;
	a[0] = tuned(100, "{\"rfs\":\"512\"}", off);
	a[1] = tuned(110, "{\"rfs\":\"512\"}", off);
	b[0] = tuned(140, "{\"rfs\":\"1024\"}", off);
	b[1] = tuned(150, "{\"rfs\":\"1024\"}", off);
	cmp = compare_results(a, 2, b, 2);
	assert_non_null(w = warning(cmp, "rfs_inactive", "A"));
	assert_true(num(w, "results") == 2 && num(w, "of") == 2);
	assert_non_null(strstr(str(w, "message"), "rps_sock_flow_entries is 0"));
	assert_non_null(strstr(str(w, "message"), "rfs=512"));
	assert_non_null(w = warning(cmp, "rfs_inactive", "B"));
	assert_non_null(strstr(str(w, "message"), "rfs=1024"));
	assert_int_equal(json_object_array_length(json_object_object_get(cmp, "warnings")), 2);
	/* Beside the figure that went better, not beside one that has no direction. */
	f = figure(cmp, "test.transactions_per_s");
	assert_string_equal(str(f, "verdict"), "better");
	assert_string_equal(
	    json_object_to_json_string_ext(json_object_object_get(f, "warnings"), 0),
	    "[\"rfs_inactive\"]");
	assert_false(json_object_object_get_ex(figure(cmp, "cpu.all.busy"), "warnings", NULL));
	json_object_put(cmp);
	/* The same in the summary. */
	cmp = compare_summary(a, 2, b, 2);
	assert_non_null(warning(cmp, "rfs_inactive", "B"));
	json_object_put(cmp);
	for (int i = 0; i < 2; i++) {
		json_object_put(a[i]);
		json_object_put(b[i]);
	}

	/* A flow table on B; A has flow counts but none: only A is warned, for its
	 * rps_flow_cnt. */
	a[0] = tuned(100, "{}", flows_no_table);
	b[0] = tuned(140, "{\"rfs\":\"1024\"}", on);
	cmp = compare_results(a, 1, b, 1);
	assert_non_null(w = warning(cmp, "rfs_inactive", "A"));
	assert_non_null(strstr(str(w, "message"), "eth0 has rps_flow_cnt 2048"));
	assert_null(warning(cmp, "rfs_inactive", "B"));
	json_object_put(cmp);
	json_object_put(a[0]);
	/* Nothing asked for RFS and nothing is active: no warning at all. */
	a[0] = tuned(100, "{}", off);
	cmp = compare_results(a, 1, b, 1);
	assert_false(json_object_object_get_ex(cmp, "warnings", NULL));
	assert_false(
	    json_object_object_get_ex(figure(cmp, "test.transactions_per_s"), "warnings", NULL));
	json_object_put(cmp);
	json_object_put(a[0]);
	json_object_put(b[0]);

	/* RPS masks on a device with no rps_cpus, XPS on one tx queue. */
	a[0] = tuned(100, "{}", on);
	b[0] = tuned(90, "{}", no_rps_one_tx);
	cmp = compare_results(a, 1, b, 1);
	assert_non_null(w = warning(cmp, "rps_inactive", "B"));
	assert_non_null(strstr(str(w, "message"), "veth0 has no rps_cpus"));
	assert_non_null(w = warning(cmp, "xps_one_queue", "B"));
	assert_non_null(strstr(str(w, "message"), "veth0 has one tx queue"));
	assert_null(warning(cmp, "rfs_inactive", "A"));
	f = figure(cmp, "test.transactions_per_s");
	assert_string_equal(str(f, "verdict"), "worse");
	assert_string_equal(
	    json_object_to_json_string_ext(json_object_object_get(f, "warnings"), 0),
	    "[\"rps_inactive\",\"xps_one_queue\"]");
	json_object_put(cmp);
	json_object_put(a[0]);
	json_object_put(b[0]);
}

/* A window of span seconds at 100 bytes/s received on eth0 (packets have no direction), with 1
 * retransmit/s. */
static json_object *
steady(double span, double per_s)
{
	char text[512];

	snprintf(text, sizeof(text),
	         "{\"span_s\":%g,\"figures\":{\"devices\":[{\"name\":\"eth0\","
	         "\"rx_bytes\":%g,\"rx_bytes_per_s\":%g}],"
	         "\"tcp\":{\"retrans_segs\":%g,\"retrans_segs_per_s\":1,"
	         "\"retrans_ratio\":0.01}}}",
	         span, span * per_s, per_s, span);
	return parse(text);
}

/* Windows of 10 s and 20 s at the same rate: the totals are twice as large, which is no
 * better and no worse: they get no verdict, their per-second figures compare as "same";
 * rates and ratios are judged as always. Within COMPARE_SPAN_TOLERANCE_PCT (10 s against
 * 10.4 s) the totals are judged. */
static void
test_unequal_windows(void **state)
{
	json_object *a = steady(10, 100), *b = steady(20, 100), *cmp, *f, *w, *ps;

	(void)state;
	cmp = compare_results(&a, 1, &b, 1);
	w = json_object_object_get(cmp, "windows");
	assert_non_null(w);
	assert_false(json_object_get_boolean(json_object_object_get(w, "totals_judged")));
	assert_true(num(w, "a_span_s") == 10 && num(w, "b_span_s") == 20);
	assert_true(num(w, "difference_pct") == 50 && num(w, "tolerance_pct") == 5);
	assert_non_null(json_object_object_get(w, "reason"));
	/* A total: its change stands, its verdict is null, per second it is the same. */
	f = figure(cmp, "devices.eth0.rx_bytes");
	check(cmp, "devices.eth0.rx_bytes", 1000, 2000, 1000, 100, "higher");
	assert_true(json_object_is_type(json_object_object_get(f, "verdict"), json_type_null));
	assert_non_null(str(f, "unjudged"));
	ps = json_object_object_get(f, "per_s");
	assert_non_null(ps);
	assert_true(num(ps, "a.mean") == 100 && num(ps, "b.mean") == 100);
	assert_true(num(ps, "change") == 0 && num(ps, "change_pct") == 0);
	assert_string_equal(str(ps, "verdict"), "same");
	f = figure(cmp, "tcp.retrans_segs");
	assert_true(json_object_is_type(json_object_object_get(f, "verdict"), json_type_null));
	assert_string_equal(str(json_object_object_get(f, "per_s"), "verdict"), "same");
	/* Rates and ratios: judged, no per_s. */
	f = figure(cmp, "devices.eth0.rx_bytes_per_s");
	assert_string_equal(str(f, "verdict"), "same");
	assert_null(json_object_object_get(f, "per_s"));
	assert_null(json_object_object_get(f, "unjudged"));
	assert_string_equal(str(figure(cmp, "tcp.retrans_ratio"), "verdict"), "same");
	json_object_put(cmp);
	json_object_put(b);

	/* 10 s against 10.4 s (3.8 % apart): the totals are judged. */
	b = steady(10.4, 100);
	cmp = compare_results(&a, 1, &b, 1);
	w = json_object_object_get(cmp, "windows");
	assert_true(json_object_get_boolean(json_object_object_get(w, "totals_judged")));
	f = figure(cmp, "devices.eth0.rx_bytes");
	assert_string_equal(str(f, "verdict"), "better");
	assert_null(json_object_object_get(f, "per_s"));
	json_object_put(cmp);
	json_object_put(b);

	/* Two iterations a side, 10 s each against 20 s and 21 s: the sides' means apart. */
	{
		json_object *sa[2] = {a, steady(10, 100)},
		            *sb[2] = {steady(20, 100), steady(21, 100)};
		cmp = compare_results(sa, 2, sb, 2);
		f = figure(cmp, "tcp.retrans_segs");
		assert_true(
		    json_object_is_type(json_object_object_get(f, "verdict"), json_type_null));
		ps = json_object_object_get(f, "per_s");
		assert_true(num(ps, "a.mean") == 1 && num(ps, "b.mean") == 1);
		json_object_put(cmp);
		json_object_put(sa[1]);
		json_object_put(sb[0]);
		json_object_put(sb[1]);
	}
	json_object_put(a);
}

/* B after turning GRO off on the receiver (a veth counts what it passes on): the same bytes
 * as four times the packets, each cheaper, four times as many to a NET_RX; and fewer
 * retransmits, more drops. */
static const char *const gro_on =
    "{\"span_s\":10,\"test\":{\"figures\":{\"throughput_mbps\":9000,"
    "\"mean_latency_us\":40,\"lost_datagrams\":50}},\"figures\":{"
    "\"queues\":{\"devices\":[{\"name\":\"veth0\",\"queues\":[{\"queue\":0,"
    "\"rx_pps\":100000,\"rx_packets\":1000000}]}]},"
    "\"cpu\":{\"all\":{\"busy\":50},\"busy_us_per_packet\":4},"
    "\"interrupts\":{\"ipi_all_per_s\":900},"
    "\"softirqs\":{\"packets_per_net_rx\":8,\"rx_packets\":1000000},"
    "\"devices\":[{\"name\":\"veth0\",\"rx_packets\":1000000,\"rx_packets_per_s\":100000,"
    "\"rx_bytes\":11250000000,\"rx_bytes_per_s\":1125000000,\"rx_dropped\":2,"
    "\"rx_dropped_per_s\":0.2,\"driver_drops\":{\"rx_out_of_buffer\":0}}],"
    "\"softnet\":{\"processed\":1000000,\"processed_per_s\":100000,\"dropped\":5,"
    "\"time_squeeze\":30},"
    "\"tcp\":{\"in_segs\":1000000,\"in_segs_per_s\":100000,\"retrans_segs\":40,"
    "\"retrans_segs_per_s\":4,\"retrans_ratio\":0.00004,"
    "\"tcpext\":{\"TCPTimeouts\":3,\"TCPLostRetransmit\":6}},"
    "\"udp\":{\"in_datagrams\":1000,\"rcvbuf_errors\":9,\"in_loss_pct\":0.9}}}";
static const char *const gro_off =
    "{\"span_s\":10,\"test\":{\"figures\":{\"throughput_mbps\":9000,"
    "\"mean_latency_us\":50,\"lost_datagrams\":20}},\"figures\":{"
    "\"queues\":{\"devices\":[{\"name\":\"veth0\",\"queues\":[{\"queue\":0,"
    "\"rx_pps\":400000,\"rx_packets\":4000000}]}]},"
    "\"cpu\":{\"all\":{\"busy\":60},\"busy_us_per_packet\":1.2},"
    "\"interrupts\":{\"ipi_all_per_s\":1200},"
    "\"softirqs\":{\"packets_per_net_rx\":32,\"rx_packets\":4000000},"
    "\"devices\":[{\"name\":\"veth0\",\"rx_packets\":4000000,\"rx_packets_per_s\":400000,"
    "\"rx_bytes\":11250000000,\"rx_bytes_per_s\":1125000000,\"rx_dropped\":8,"
    "\"rx_dropped_per_s\":0.8,\"driver_drops\":{\"rx_out_of_buffer\":3}}],"
    "\"softnet\":{\"processed\":4000000,\"processed_per_s\":400000,\"dropped\":1,"
    "\"time_squeeze\":30},"
    "\"tcp\":{\"in_segs\":4000000,\"in_segs_per_s\":400000,\"retrans_segs\":10,"
    "\"retrans_segs_per_s\":1,\"retrans_ratio\":0.0000025,"
    "\"tcpext\":{\"TCPTimeouts\":5,\"TCPLostRetransmit\":2}},"
    "\"udp\":{\"in_datagrams\":4000,\"rcvbuf_errors\":2,\"in_loss_pct\":0.05}}}";

/* A figure's direction and verdict (NULL: null). */
static void
judged(json_object *cmp, const char *path, const char *better, const char *verdict)
{
	json_object *f = figure(cmp, path);
	const char *b = str(f, "better"), *v = str(f, "verdict");

	if (better == NULL ? b != NULL : b == NULL || strcmp(b, better) != 0)
		fail_msg("%s: better %s, want %s", path, b ? b : "null", better ? better : "null");
	if (verdict == NULL ? v != NULL : v == NULL || strcmp(v, verdict) != 0)
		fail_msg("%s: verdict %s, want %s", path, v ? v : "null",
		         verdict ? verdict : "null");
}

/* Verdicts both ways along both directions: a lower-is-better figure that fell is better
 * and one that rose worse (retransmits, drops, errors, losses, timeouts, IPIs, latency),
 * the other way round for higher-is-better; and none for what counts packets, segments
 * or datagrams, or divides by them: after GRO is turned off the same bytes come as more,
 * smaller packets, each cheaper and more to a NET_RX, and that is not better. Each way
 * round (A against B, then B against A) the verdicts swap. */
static void
test_verdicts(void **state)
{
	static const struct {
		const char *path, *better, *verdict; /* verdict of gro_off against gro_on */
	} cases[] = {
	    {"tcp.retrans_segs", "lower", "better"},
	    {"tcp.retrans_segs_per_s", "lower", "better"},
	    {"tcp.retrans_ratio", "lower", "better"},
	    {"tcp.tcpext.TCPLostRetransmit", "lower", "better"},
	    {"tcp.tcpext.TCPTimeouts", "lower", "worse"},
	    {"devices.veth0.rx_dropped", "lower", "worse"},
	    {"devices.veth0.rx_dropped_per_s", "lower", "worse"},
	    {"devices.veth0.driver_drops.rx_out_of_buffer", "lower", "worse"},
	    {"softnet.dropped", "lower", "better"},
	    {"softnet.time_squeeze", "lower", "same"},
	    {"udp.rcvbuf_errors", "lower", "better"},
	    {"udp.in_loss_pct", "lower", "better"},
	    {"interrupts.ipi_all_per_s", "lower", "worse"},
	    {"test.mean_latency_us", "lower", "worse"},
	    {"test.lost_datagrams", "lower", "better"},
	    {"test.throughput_mbps", "higher", "same"},
	    {"devices.veth0.rx_bytes", "higher", "same"},
	    {"devices.veth0.rx_bytes_per_s", "higher", "same"},
	    {"devices.veth0.rx_packets", NULL, NULL},
	    {"devices.veth0.rx_packets_per_s", NULL, NULL},
	    {"queues.devices.veth0.queues.0.rx_pps", NULL, NULL},
	    {"queues.devices.veth0.queues.0.rx_packets", NULL, NULL},
	    {"softnet.processed", NULL, NULL},
	    {"softnet.processed_per_s", NULL, NULL},
	    {"tcp.in_segs", NULL, NULL},
	    {"tcp.in_segs_per_s", NULL, NULL},
	    {"udp.in_datagrams", NULL, NULL},
	    {"cpu.busy_us_per_packet", NULL, NULL},
	    {"softirqs.packets_per_net_rx", NULL, NULL},
	    {"softirqs.rx_packets", NULL, NULL},
	    {"cpu.all.busy", NULL, NULL},
	};
	json_object *on = parse(gro_on), *off = parse(gro_off), *cmp;

	(void)state;
	for (int swap = 0; swap < 2; swap++) {
		cmp = swap ? compare_results(&off, 1, &on, 1) : compare_results(&on, 1, &off, 1);
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			const char *v = cases[i].verdict;
			if (swap && v != NULL && strcmp(v, "same") != 0)
				v = strcmp(v, "better") == 0 ? "worse" : "better";
			judged(cmp, cases[i].path, cases[i].better, v);
		}
		json_object_put(cmp);
	}
	/* The kit's rows: packets sent and received have no direction, drops do. */
	cmp = compare_summary(&on, 1, &off, 1);
	judged(cmp, "summary.packets_received", NULL, NULL);
	judged(cmp, "summary.packets_dropped", "lower", "worse");
	judged(cmp, "tcp.retrans_segs", "lower", "better");
	json_object_put(cmp);
	json_object_put(on);
	json_object_put(off);
}

/* Run every test in this file. */
/* A result with the burst figures of one series (bursts.h). */
static json_object *
bursts_result(double ptm, double peak, double mean)
{
	char text[512];

	snprintf(text, sizeof(text),
	         "{\"window\":{\"name\":\"b\"},\"span_s\":5,\"figures\":{},"
	         "\"bursts\":{\"threshold\":0.8,\"series\":[{\"series\":\"link.vB.rx_packets\","
	         "\"kind\":\"device\",\"peak_to_mean\":%g,\"peak\":%g,\"mean\":%g,"
	         "\"longest_run_s\":0.02,\"runs\":5,\"peak_at\":\"x\"}],\"top\":[]}}",
	         ptm, peak, mean);
	return parse(text);
}

/* compare's burst figures: each series' peak-to-mean, peak and longest run,
 * with no better direction (a higher peak-to-mean is burstier: no verdict); a result
 * without bursts has them missing, not 0. */
static void
test_bursts(void **state)
{
	json_object *a = bursts_result(50, 700000, 14000), *b = bursts_result(25, 350000, 14000);
	json_object *none = parse(result_a), *cmp, *f;

	(void)state;
	cmp = compare_results(&a, 1, &b, 1);
	check(cmp, "bursts.link.vB.rx_packets.peak_to_mean", 50, 25, -25, -50, NULL);
	check(cmp, "bursts.link.vB.rx_packets.peak_per_s", 700000, 350000, -350000, -50, NULL);
	check(cmp, "bursts.link.vB.rx_packets.longest_run_s", 0.02, 0.02, 0, 0, NULL);
	/* The mean (the report's rates again) and the runs (more in a longer window) are not
	 * compared. */
	for (size_t i = 0; i < json_object_array_length(json_object_object_get(cmp, "figures"));
	     i++) {
		const char *p = json_object_get_string(json_object_object_get(
		    json_object_array_get_idx(json_object_object_get(cmp, "figures"), i),
		    "figure"));
		assert_null(strstr(p, ".mean_per_s"));
		assert_null(strstr(p, ".runs"));
	}
	f = figure(cmp, "bursts.link.vB.rx_packets.peak_to_mean");
	assert_string_equal(json_object_get_string(json_object_object_get(f, "unit")), "ratio");
	assert_null(json_object_object_get(f, "verdict"));
	json_object_put(cmp);
	cmp = compare_results(&none, 1, &a, 1);
	f = figure(cmp, "bursts.link.vB.rx_packets.peak_to_mean");
	assert_true(isnan(num(f, "a.mean")));
	json_object_put(cmp);
	json_object_put(a);
	json_object_put(b);
	json_object_put(none);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_to_one),
	    cmocka_unit_test(test_sets_of_three),
	    cmocka_unit_test(test_kinds),
	    cmocka_unit_test(test_sets_welch),
	    cmocka_unit_test(test_rank_for_latency),
	    cmocka_unit_test(test_summary),
	    cmocka_unit_test(test_tuning_warnings),
	    cmocka_unit_test(test_unequal_windows),
	    cmocka_unit_test(test_verdicts),
	    cmocka_unit_test(test_bursts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
