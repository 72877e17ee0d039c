/* test-compare-hosts.c: two multi-host results compared host by host: hosts matched by
 * name whatever their order, a device on one side only listed as missing (no -100 %), a
 * host on one side only listed as missing, the cross-host figures pair by pair, and
 * results without hosts left as they were. */
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "compare-hosts.h"
#include "compare.h"

/* A: hosts va (vA, eth9) and rcv (vB); B: rcv first, then va (vA only), and old, a host A
 * lacks. A's va has eth9, which B's va lacks. */
static const char *const result_a =
    "{\"span_s\":10,\"figures\":{\"devices\":[{\"name\":\"vA\",\"tx_packets\":1000}]},"
    "\"hosts\":{"
    "\"va\":{\"span_s\":10,\"figures\":{\"devices\":["
    "{\"name\":\"vA\",\"tx_packets\":1000,\"tx_bytes\":100000},"
    "{\"name\":\"eth9\",\"tx_packets\":500}]}},"
    "\"rcv\":{\"span_s\":10,\"figures\":{\"devices\":["
    "{\"name\":\"vB\",\"rx_packets\":990,\"rx_bytes\":99000}]}}},"
    "\"cross\":[{\"sender\":\"va\",\"sender_device\":\"vA\",\"receiver\":\"rcv\","
    "\"receiver_device\":\"vB\",\"tx_packets\":1000,\"rx_packets\":990,"
    "\"lost_packets\":10,\"loss_ratio\":0.01}]}";
static const char *const result_b =
    "{\"span_s\":10,\"figures\":{\"devices\":[{\"name\":\"vA\",\"tx_packets\":2000}]},"
    "\"hosts\":{"
    "\"rcv\":{\"span_s\":10,\"figures\":{\"devices\":["
    "{\"name\":\"vB\",\"rx_packets\":1980,\"rx_bytes\":198000}]}},"
    "\"va\":{\"span_s\":10,\"figures\":{\"devices\":["
    "{\"name\":\"vA\",\"tx_packets\":2000,\"tx_bytes\":200000}]}},"
    "\"old\":{\"span_s\":10,\"figures\":{}}},"
    "\"cross\":[{\"sender\":\"va\",\"sender_device\":\"vA\",\"receiver\":\"rcv\","
    "\"receiver_device\":\"vB\",\"tx_packets\":2000,\"rx_packets\":1980,"
    "\"lost_packets\":20,\"loss_ratio\":0.01},"
    "{\"sender\":\"rcv\",\"sender_device\":\"vB\",\"receiver\":\"va\","
    "\"receiver_device\":\"vA\",\"tx_packets\":5,\"rx_packets\":5}]}";

/* The figure line of a comparison's figures array for path, or NULL. */
static json_object *
find(json_object *figs, const char *path)
{
	for (size_t i = 0; i < json_object_array_length(figs); i++) {
		json_object *f = json_object_array_get_idx(figs, i);
		if (strcmp(json_object_get_string(json_object_object_get(f, "figure")), path) == 0)
			return f;
	}
	return NULL;
}

/* A figure's A mean, B mean and % change. */
static void
check(json_object *figs, const char *path, double a, double b, double pct)
{
	json_object *f = find(figs, path);

	if (f == NULL)
		fail_msg("no figure %s", path);
	assert_true(fabs(json_object_get_double(
	                     json_object_object_get(json_object_object_get(f, "a"), "mean")) -
	                 a) < 1e-9);
	assert_true(fabs(json_object_get_double(
	                     json_object_object_get(json_object_object_get(f, "b"), "mean")) -
	                 b) < 1e-9);
	assert_true(fabs(json_object_get_double(json_object_object_get(f, "change_pct")) - pct) <
	            1e-9);
}

/* The "KEY" and "in" of entry i of a missing list. */
static void
check_missing(json_object *missing, size_t i, const char *key, const char *name, const char *side)
{
	json_object *m = json_object_array_get_idx(missing, i);

	assert_non_null(m);
	assert_string_equal(json_object_get_string(json_object_object_get(m, key)), name);
	assert_string_equal(json_object_get_string(json_object_object_get(m, "in")), side);
}

/* Hosts by name, devices and hosts on one side only as missing, the cross figures. */
static void
test_host_by_host(void **state)
{
	json_object *a = json_tokener_parse(result_a), *b = json_tokener_parse(result_b);
	json_object *out, *hosts, *va, *rcv, *miss, *cross, *figs;

	(void)state;
	out = compare_results(&a, 1, &b, 1);
	compare_hosts_add(out, &a, 1, &b, 1, compare_results);
	assert_true(json_object_object_get_ex(out, "hosts", &hosts));
	assert_int_equal(json_object_object_length(hosts), 2);
	/* Matched by name, not by position: va against va, rcv against rcv. */
	va = json_object_object_get(hosts, "va");
	rcv = json_object_object_get(hosts, "rcv");
	assert_non_null(va);
	assert_non_null(rcv);
	figs = json_object_object_get(va, "figures");
	check(figs, "devices.vA.tx_packets", 1000, 2000, 100);
	check(figs, "devices.vA.tx_bytes", 100000, 200000, 100);
	/* eth9 is in A's va only: listed as missing, no figure (never -100 %). */
	assert_null(find(figs, "devices.eth9.tx_packets"));
	miss = json_object_object_get(va, "missing");
	assert_int_equal(json_object_array_length(miss), 1);
	check_missing(miss, 0, "device", "eth9", "a");
	check(json_object_object_get(rcv, "figures"), "devices.vB.rx_packets", 990, 1980, 100);
	assert_int_equal(json_object_array_length(json_object_object_get(rcv, "missing")), 0);
	/* old is in B only. */
	miss = json_object_object_get(out, "hosts_missing");
	assert_int_equal(json_object_array_length(miss), 1);
	check_missing(miss, 0, "host", "old", "b");
	/* Across hosts: va>rcv on both sides, rcv>va in B only. */
	cross = json_object_object_get(out, "cross");
	assert_non_null(cross);
	figs = json_object_object_get(cross, "figures");
	check(figs, "va>rcv.tx_packets", 1000, 2000, 100);
	check(figs, "va>rcv.rx_packets", 990, 1980, 100);
	check(figs, "va>rcv.lost_packets", 10, 20, 100);
	assert_null(find(figs, "rcv>va.tx_packets"));
	miss = json_object_object_get(cross, "missing");
	assert_int_equal(json_object_array_length(miss), 1);
	check_missing(miss, 0, "pair", "rcv>va", "b");
	json_object_put(out);
	json_object_put(a);
	json_object_put(b);
}

/* Results without hosts: nothing added. */
static void
test_single_host(void **state)
{
	json_object *a = json_tokener_parse("{\"span_s\":1,\"figures\":{\"x\":1}}");
	json_object *b = json_tokener_parse("{\"span_s\":1,\"figures\":{\"x\":2}}");
	json_object *out;

	(void)state;
	out = compare_results(&a, 1, &b, 1);
	compare_hosts_add(out, &a, 1, &b, 1, compare_results);
	assert_false(json_object_object_get_ex(out, "hosts", NULL));
	assert_false(json_object_object_get_ex(out, "cross", NULL));
	json_object_put(out);
	json_object_put(a);
	json_object_put(b);
}

/* A cross entry of snd>rcv as stored: 20,000 packets/s over span s; rx is tx less diff. A
 * new result has its loss bounded (loss_state ...); an old one (new false) has only
 * lost_packets = tx - rx. Both have edges 0.5 ms apart at each edge. */
static json_object *
cross_result(double span, long long tx, long long diff, bool new)
{
	char text[2048], loss[256];

	if (new)
		snprintf(loss, sizeof(loss),
		         "\"tx_minus_rx_packets\":%lld,\"loss_bound_packets\":20,"
		         "\"loss_state\":\"within_skew\",\"lost_packets\":0,"
		         "\"loss_ratio\":0,\"edge_gap_ms\":{\"start\":0.5,\"stop\":0.5}",
		         diff);
	else
		snprintf(loss, sizeof(loss), "\"lost_packets\":%lld,\"loss_ratio\":%g", diff,
		         (double)diff / (double)tx);
	snprintf(text, sizeof(text),
	         "{\"span_s\":%g,\"local_host\":\"snd\",\"figures\":{},"
	         "\"hosts\":{\"snd\":{\"window\":{\"duration_s\":%g},\"span_s\":%g,"
	         "\"figures\":{}},\"rcv\":{\"window\":{\"duration_s\":%g},\"span_s\":%g,"
	         "\"figures\":{}}},"
	         "\"edges\":{\"start\":{\"peers\":{\"rcv\":{\"skew_ms\":0.5,"
	         "\"round_trip_ms\":2}}},\"stop\":{\"peers\":{\"rcv\":{\"skew_ms\":-0.5,"
	         "\"round_trip_ms\":2}}}},"
	         "\"cross\":[{\"sender\":\"snd\",\"sender_device\":\"s0\","
	         "\"receiver\":\"rcv\",\"receiver_device\":\"r0\",\"tx_packets\":%lld,"
	         "\"rx_packets\":%lld,\"tx_bytes\":%lld,\"rx_bytes\":%lld,%s}]}",
	         span, span, span, span, span, tx, tx - diff, tx * 1000, (tx - diff) * 1000, loss);
	return json_tokener_parse(text);
}

/* Across hosts: no negative loss is compared (an old result's tx - rx of -16, within
 * the 20 packets its edges' skew allows, counts as 0), the counters' raw difference and
 * the bound are not compared, and windows of 28 s and 16 s leave the totals unjudged
 * while the loss ratio is judged. */
static void
test_cross_bounded(void **state)
{
	json_object *a = cross_result(28, 560000, -16, false),
	            *b = cross_result(16, 320000, -9, true), *out, *cross, *figs, *f, *v;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	out = compare_results(&a, 1, &b, 1);
	compare_hosts_add(out, &a, 1, &b, 1, compare_results);
	cross = json_object_object_get(out, "cross");
	figs = json_object_object_get(cross, "figures");
	check(figs, "snd>rcv.lost_packets", 0, 0, 0);
	check(figs, "snd>rcv.loss_ratio", 0, 0, 0);
	assert_string_equal(json_object_get_string(json_object_object_get(
	                        find(figs, "snd>rcv.loss_ratio"), "verdict")),
	                    "same");
	assert_null(find(figs, "snd>rcv.tx_minus_rx_packets"));
	assert_null(find(figs, "snd>rcv.loss_bound_packets"));
	assert_null(find(figs, "snd>rcv.edge_gap_ms.start"));
	assert_null(find(figs, "span_s"));
	/* Packets have no direction (their size decides): no verdict, no per_s. */
	f = find(figs, "snd>rcv.tx_packets");
	assert_non_null(f);
	assert_true(json_object_object_get_ex(f, "verdict", &v) && v == NULL);
	assert_null(json_object_object_get(f, "per_s"));
	/* 560 MB in 28 s against 320 MB in 16 s: both 20 MB/s. */
	f = find(figs, "snd>rcv.tx_bytes");
	assert_non_null(f);
	assert_true(json_object_object_get_ex(f, "verdict", &v) && v == NULL);
	v = json_object_object_get(f, "per_s");
	assert_string_equal(json_object_get_string(json_object_object_get(v, "verdict")), "same");
	v = json_object_object_get(cross, "windows");
	assert_non_null(v);
	assert_false(json_object_get_boolean(json_object_object_get(v, "totals_judged")));
	json_object_put(out);
	json_object_put(a);
	json_object_put(b);
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_host_by_host),
	    cmocka_unit_test(test_single_host),
	    cmocka_unit_test(test_cross_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
