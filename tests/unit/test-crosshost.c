/* test-crosshost.c: a multi-host result put together from known reports and edges: a
 * lossless link whose counters were read with the edges apart (an injected skew) shows
 * loss 0 within the stated bound, never a negative loss; a loss beyond the bound is one;
 * more received than sent is no negative loss either; the time between two hosts' reads
 * is the smaller of their skews' difference and their round trips; and a peer's report
 * with a count out of range (tx_packets = -2^63, 2^62 + 1) or a nonsense edge time leaves
 * that host incomplete with the reason, nothing computed from it. */
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

#include "crosshost.h"

/* A host's report: one device sending tx and receiving rx packets (64 bytes each) over
 * span seconds. */
static json_object *
report(const char *dev, const char *tx, const char *rx, double span)
{
	char text[512];
	json_object *o;

	snprintf(text, sizeof(text),
	         "{\"window\":{\"duration_s\":%g,\"start_real_ns\":1796163255788542081},"
	         "\"span_s\":%g,\"figures\":{\"devices\":[{\"name\":\"%s\",\"tx_packets\":%s,"
	         "\"tx_bytes\":%s,\"rx_packets\":%s,\"rx_bytes\":%s}]}}",
	         span, span, dev, tx, strcmp(tx, "0") == 0 ? "0" : "6400000", rx,
	         strcmp(rx, "0") == 0 ? "0" : "6400000");
	o = json_tokener_parse(text);
	assert_non_null(o);
	return o;
}

/* Edges: the local host "snd", the peer "rcv" (and "other") with these skews and round
 * trips (ms) at the start and the stop. */
static json_object *
edges(double rcv_start, double rcv_stop, double rt)
{
	char text[1024];
	json_object *o;

	snprintf(text, sizeof(text),
	         "{\"start\":{\"local_real_ns\":1796163255788542081,\"local_host\":\"snd\","
	         "\"peers\":{\"rcv\":{\"round_trip_ms\":%g,\"real_ns\":1796163255790542081,"
	         "\"skew_ms\":%g},\"other\":{\"round_trip_ms\":1,\"real_ns\":1796163255788542081,"
	         "\"skew_ms\":0.5}}},"
	         "\"stop\":{\"local_real_ns\":1796163265788542081,\"local_host\":\"snd\","
	         "\"peers\":{\"rcv\":{\"round_trip_ms\":%g,\"real_ns\":1796163265789542081,"
	         "\"skew_ms\":%g},\"other\":{\"round_trip_ms\":1,\"real_ns\":1796163265788542081,"
	         "\"skew_ms\":-0.5}}}}",
	         rt, rcv_start, rt, rcv_stop);
	o = json_tokener_parse(text);
	assert_non_null(o);
	return o;
}

/* The cross entry of sender>receiver in extra, or NULL. */
static json_object *
entry(json_object *extra, const char *snd, const char *rcv)
{
	json_object *cross = json_object_object_get(extra, "cross");

	for (size_t i = 0; i < json_object_array_length(cross); i++) {
		json_object *x = json_object_array_get_idx(cross, i);
		if (strcmp(json_object_get_string(json_object_object_get(x, "sender")), snd) == 0 &&
		    strcmp(json_object_get_string(json_object_object_get(x, "receiver")), rcv) == 0)
			return x;
	}
	return NULL;
}

static int64_t
i64(json_object *o, const char *key)
{
	json_object *v = json_object_object_get(o, key);

	assert_non_null(v);
	return json_object_get_int64(v);
}

static double
dbl(json_object *o, const char *key)
{
	json_object *v = json_object_object_get(o, key);

	assert_non_null(v);
	return json_object_get_double(v);
}

static const char *
str(json_object *o, const char *key)
{
	json_object *v = json_object_object_get(o, key);

	assert_non_null(v);
	return json_object_get_string(v);
}

/* snd (this host) sends 100,000 packets/s for 10 s to rcv, losing nothing; rcv took its
 * start edge 2 ms before snd's (its counter then lacked 200 packets snd counts) and its
 * stop edge 1 ms after (100 more): rcv counted 300 more than snd sent. Put together from
 * rcv's report (and local's) as peer-window.c does. */
static json_object *
assemble(const char *rx, double rt)
{
	json_object *extra = json_object_new_object(), *parts = json_object_new_object();
	json_object *local = report("s0", "1000000", "0", 10), *e = edges(-2, 1, rt);

	json_object_object_add(parts, "rcv", report("r0", "0", rx, 10));
	crosshost_assemble(extra, "snd", local, parts, e);
	json_object_put(parts);
	json_object_put(local);
	json_object_put(e);
	return extra;
}

/* A lossless link read with the edges 2 ms and 1 ms apart: the counters say -300, the
 * bound is the link's rate (the faster end's: 100,030/s at the receiver) x 3 ms = 301
 * packets: loss 0 "within_skew", +-301 stated. (Before the bound, lost_packets was
 * tx - rx = -300 and loss_ratio -0.0003.) */
static void
test_lossless_with_skew(void **state)
{
	json_object *extra = assemble("1000300", 5), *x, *gap;

	(void)state;
	x = entry(extra, "snd", "rcv");
	assert_non_null(x);
	assert_int_equal(i64(x, "tx_packets"), 1000000);
	assert_int_equal(i64(x, "rx_packets"), 1000300);
	assert_int_equal(i64(x, "tx_minus_rx_packets"), -300);
	assert_int_equal(i64(x, "loss_bound_packets"), 301);
	assert_string_equal(str(x, "loss_state"), "within_skew");
	assert_int_equal(i64(x, "lost_packets"), 0);
	assert_true(dbl(x, "loss_ratio") == 0);
	gap = json_object_object_get(x, "edge_gap_ms");
	assert_true(fabs(dbl(gap, "start") - 2) < 1e-9 && fabs(dbl(gap, "stop") - 1) < 1e-9);
	assert_int_equal(
	    json_object_object_length(json_object_object_get(extra, "peers_incomplete")), 0);
	/* Hosts: this one null (window.c fills it in), the peer's report. */
	assert_true(json_object_object_get_ex(json_object_object_get(extra, "hosts"), "snd", &x));
	assert_null(x);
	json_object_put(extra);
}

/* A real loss, beyond the bound, stays a loss (with its bound); more received than sent
 * beyond the bound (other traffic reaches the receiver) is no negative loss. */
static void
test_beyond_the_bound(void **state)
{
	json_object *extra = assemble("990000", 5), *x;

	(void)state;
	x = entry(extra, "snd", "rcv");
	assert_string_equal(str(x, "loss_state"), "lost");
	assert_int_equal(i64(x, "lost_packets"), 10000);
	assert_int_equal(i64(x, "loss_bound_packets"), 300);
	assert_true(fabs(dbl(x, "loss_ratio") - 0.01) < 1e-12);
	json_object_put(extra);
	extra = assemble("1000400", 5); /* bound 100,040/s x 3 ms: 301 */
	x = entry(extra, "snd", "rcv");
	assert_string_equal(str(x, "loss_state"), "more_received");
	assert_int_equal(i64(x, "lost_packets"), 0);
	assert_int_equal(i64(x, "tx_minus_rx_packets"), -400);
	assert_true(dbl(x, "loss_ratio") == 0);
	json_object_put(extra);
}

/* The time between two hosts' reads: a round trip shorter than the skews bounds it (the
 * peer took its edge while its request was out, whatever its clock says); between two
 * peers, their skews' difference. */
static void
test_edge_gap(void **state)
{
	json_object *e = edges(-500, 300, 0.75), *extra, *x;

	(void)state;
	assert_true(
	    crosshost_edge_gap_ms(json_object_object_get(e, "start"), "snd", "snd", "rcv") == 0.75);
	assert_true(crosshost_edge_gap_ms(json_object_object_get(e, "start"), "snd", "rcv",
	                                  "other") == 1.75);
	assert_true(
	    crosshost_edge_gap_ms(json_object_object_get(e, "stop"), "snd", "other", "snd") == 0.5);
	assert_true(crosshost_edge_gap_ms(json_object_object_get(e, "stop"), "snd", "other",
	                                  "nobody") == -1);
	json_object_put(e);
	/* Round trips of 0.75 ms below the skews: 100,010/s x 1.5 ms = 151 (150.015 up). */
	extra = assemble("1000100", 0.75);
	x = entry(extra, "snd", "rcv");
	assert_int_equal(i64(x, "loss_bound_packets"), 151);
	assert_string_equal(str(x, "loss_state"), "within_skew");
	json_object_put(extra);
}

/* A peer's report with counts out of range: its host incomplete with the reason, no
 * cross figure computed from it; 2^62 itself is accepted. */
static void
test_counts_out_of_range(void **state)
{
	static const struct {
		const char *tx, *why;
	} bad[] = {
	    {"-9223372036854775808", "figures.devices.0.tx_packets"},
	    {"4611686018427387905", "figures.devices.0.tx_packets"},
	    {"18446744073709551615", "figures.devices.0.tx_packets"},
	    {"-1", "figures.devices.0.tx_packets (negative"},
	    {"1e300", "beyond 2^62"},
	};
	char why[400];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_object *extra = json_object_new_object(), *parts = json_object_new_object();
		json_object *local = report("s0", "0", "1000", 10), *e = edges(0, 0, 1), *h;
		const char *r;
		json_object_object_add(parts, "rcv", report("r0", bad[i].tx, "0", 10));
		assert_int_equal(
		    crosshost_check_report(json_object_object_get(parts, "rcv"), why, sizeof(why)),
		    -1);
		crosshost_assemble(extra, "snd", local, parts, e);
		h = json_object_object_get(json_object_object_get(extra, "hosts"), "rcv");
		assert_false(json_object_get_boolean(json_object_object_get(h, "complete")));
		r = str(h, "reason");
		if (strstr(r, bad[i].why) == NULL)
			fail_msg("%s: reason \"%s\" lacks \"%s\"", bad[i].tx, r, bad[i].why);
		assert_string_equal(str(json_object_object_get(extra, "peers_incomplete"), "rcv"),
		                    r);
		assert_null(entry(extra, "rcv", "snd"));
		assert_int_equal(json_object_array_length(json_object_object_get(extra, "cross")),
		                 0);
		json_object_put(extra);
		json_object_put(parts);
		json_object_put(local);
		json_object_put(e);
	}
	{
		json_object *ok = report("r0", "4611686018427387904", "0", 10);
		assert_int_equal(crosshost_check_report(ok, why, sizeof(why)), 0);
		json_object_put(ok);
	}
}

/* A peer's edge time out of range (a negative real_ns as the daemon records it: a uint64
 * past 2^63) leaves its host incomplete too. */
static void
test_edge_out_of_range(void **state)
{
	json_object *extra = json_object_new_object(), *parts = json_object_new_object();
	json_object *local = report("s0", "1000", "0", 10), *e = edges(0, 0, 1), *h;

	(void)state;
	json_object_object_add(
	    json_object_object_get(
	        json_object_object_get(json_object_object_get(e, "stop"), "peers"), "rcv"),
	    "real_ns", json_object_new_uint64(UINT64_MAX - 5));
	json_object_object_add(parts, "rcv", report("r0", "0", "1000", 10));
	crosshost_assemble(extra, "snd", local, parts, e);
	h = json_object_object_get(json_object_object_get(extra, "hosts"), "rcv");
	assert_false(json_object_get_boolean(json_object_object_get(h, "complete")));
	assert_non_null(strstr(str(h, "reason"), "stop edge time is out of range"));
	json_object_put(extra);
	json_object_put(parts);
	json_object_put(local);
	json_object_put(e);
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lossless_with_skew), cmocka_unit_test(test_beyond_the_bound),
	    cmocka_unit_test(test_edge_gap),           cmocka_unit_test(test_counts_out_of_range),
	    cmocka_unit_test(test_edge_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
