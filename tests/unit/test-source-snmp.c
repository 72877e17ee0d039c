/* test-source-snmp.c: the snmp source on a fixture tree, on a changing copy of it and on
 * this machine's /proc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "series.h"
#include "source-harness.h"
#include "source.h"

/* Every field of the fixture, with its kind and the exact value. */
static void
test_fixture_values(void **state)
{
	struct world w;
	struct nm_error err = {0};

	(void)state;
	harness_init(&w, &source_snmp_ops, FIXTURE_DIR "/snmp");
	assert_null(w.src.ops->configure);
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);

	harness_check(&w, "snmp.Tcp.InSegs", 123456789, SERIES_COUNTER);
	harness_check(&w, "snmp.Tcp.OutSegs", 98765, SERIES_COUNTER);
	harness_check(&w, "snmp.Tcp.RetransSegs", 17, SERIES_COUNTER);
	harness_labels(&w, "snmp.Tcp.RetransSegs",
	               "source=snmp table=Tcp field=RetransSegs unit=segments");
	harness_labels(&w, "snmp.Tcp.ActiveOpens",
	               "source=snmp table=Tcp field=ActiveOpens unit=connections");
	harness_check(&w, "snmp.Tcp.ActiveOpens", 13, SERIES_COUNTER);
	/* MaxConn is -1: a gauge holding the two's complement. */
	harness_check(&w, "snmp.Tcp.MaxConn", UINT64_MAX, SERIES_GAUGE);
	harness_check(&w, "snmp.Tcp.CurrEstab", 5, SERIES_GAUGE);
	harness_check(&w, "snmp.Tcp.RtoAlgorithm", 1, SERIES_GAUGE);
	harness_check(&w, "snmp.Tcp.RtoMin", 200, SERIES_GAUGE);
	harness_check(&w, "snmp.Tcp.RtoMax", 120000, SERIES_GAUGE);
	harness_check(&w, "snmp.Ip.Forwarding", 2, SERIES_GAUGE);
	harness_check(&w, "snmp.Ip.DefaultTTL", 64, SERIES_GAUGE);
	harness_check(&w, "snmp.Ip.InReceives", 1000, SERIES_COUNTER);
	harness_check(&w, "snmp.Ip.InDelivers", 990, SERIES_COUNTER);
	harness_check(&w, "snmp.Ip.OutTransmits", 686, SERIES_COUNTER);
	harness_check(&w, "snmp.IcmpMsg.InType3", 1, SERIES_COUNTER);
	harness_check(&w, "snmp.Udp.OutDatagrams", 27, SERIES_COUNTER);
	harness_check(&w, "snmp.UdpLite.MemErrors", 0, SERIES_COUNTER);
	harness_check(&w, "snmp.TcpExt.TCPSynRetrans", 42, SERIES_COUNTER);
	harness_check(&w, "snmp.TcpExt.TW", 11, SERIES_COUNTER);
	harness_check(&w, "snmp.IpExt.InOctets", 19563658, SERIES_COUNTER);
	/* Above INT64_MAX: parsed as unsigned. */
	harness_check(&w, "snmp.IpExt.OutOctets", 18446744073709551000ull, SERIES_COUNTER);
	harness_check(&w, "snmp.IpExt.InNoECTPkts", 807, SERIES_COUNTER);
	harness_check(&w, "snmp.MPTcpExt.MPCurrEstab", 0, SERIES_GAUGE);
	harness_check(&w, "snmp6.Ip6InReceives", 777, SERIES_COUNTER);
	harness_check(&w, "snmp6.Ip6OutRequests", 555, SERIES_COUNTER);
	harness_check(&w, "snmp6.Icmp6InMsgs", 1, SERIES_COUNTER);
	/* Prefixes are never fields, and every series was put once. */
	assert_int_equal(series_find(&w.reg, "snmp.Tcp.Tcp:"), SERIES_NONE);
	assert_int_equal(w.sink.nput, w.reg.n);
	assert_int_equal(w.sink.ngone, 0);
	for (size_t i = 0; i < w.reg.n; i++)
		assert_true(strncmp(w.reg.v[i].name, "snmp.", 5) == 0 ||
		            strncmp(w.reg.v[i].name, "snmp6.", 6) == 0);
	harness_free(&w);
}

/* Unchanged lines put nothing; a changed values line puts its values; a changed names line
 * interns again and only the fields that left are gone. */
static void
test_two_samples(void **state)
{
	struct world w;
	struct nm_error err = {0};
	series_id insegs, inoctets, intype3, outtype3;
	size_t n;

	(void)state;
	harness_init(&w, &source_snmp_ops, NULL);
	harness_copy_fixture("snmp", w.dir);
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);
	n = w.reg.n;
	insegs = harness_find(&w, "snmp.Tcp.InSegs");
	inoctets = harness_find(&w, "snmp.IpExt.InOctets");
	intype3 = harness_find(&w, "snmp.IcmpMsg.InType3");

	/* Nothing changed: nothing put. */
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 0);

	/* One value of Tcp changes: the Tcp line is put again, Ip is not. */
	harness_edit(&w, "proc/net/snmp", "5 123456789 98765 17", "6 123456999 98765 18");
	harness_sample(&w);
	harness_check(&w, "snmp.Tcp.InSegs", 123456999, SERIES_COUNTER);
	harness_check(&w, "snmp.Tcp.RetransSegs", 18, SERIES_COUNTER);
	harness_check(&w, "snmp.Tcp.CurrEstab", 6, SERIES_GAUGE);
	harness_check(&w, "snmp.Tcp.MaxConn", UINT64_MAX, SERIES_GAUGE);
	assert_false(w.sink.put[harness_find(&w, "snmp.Ip.InReceives")]);
	assert_int_equal(w.sink.nput, 15); /* the Tcp line's fields */
	assert_int_equal(w.reg.n, n);

	/* IcmpMsg gains a type: a new series, the old one kept. */
	harness_edit(&w, "proc/net/snmp", "IcmpMsg: InType3\nIcmpMsg: 1\n",
	             "IcmpMsg: InType3 OutType3\nIcmpMsg: 2 4\n");
	harness_sample(&w);
	harness_check(&w, "snmp.IcmpMsg.InType3", 2, SERIES_COUNTER);
	harness_check(&w, "snmp.IcmpMsg.OutType3", 4, SERIES_COUNTER);
	outtype3 = harness_find(&w, "snmp.IcmpMsg.OutType3");
	assert_int_equal(harness_find(&w, "snmp.IcmpMsg.InType3"), intype3);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(w.reg.n, n + 1);

	/* And loses it again: only OutType3 is gone. */
	harness_edit(&w, "proc/net/snmp", "IcmpMsg: InType3 OutType3\nIcmpMsg: 2 4\n",
	             "IcmpMsg: InType3\nIcmpMsg: 3\n");
	harness_sample(&w);
	harness_check(&w, "snmp.IcmpMsg.InType3", 3, SERIES_COUNTER);
	assert_true(w.sink.gone[outtype3]);
	assert_int_equal(w.sink.ngone, 1);

	/* A group appears before IpExt: IpExt moves down a line, keeps its ids, is not gone. */
	harness_edit(&w, "proc/net/netstat", "IpExt: InNoRoutes",
	             "FooExt: Bar Baz\nFooExt: 7 -3\nIpExt: InNoRoutes");
	harness_sample(&w);
	harness_check(&w, "snmp.FooExt.Bar", 7, SERIES_COUNTER);
	/* Negative: a gauge. */
	harness_check(&w, "snmp.FooExt.Baz", (uint64_t)-3, SERIES_GAUGE);
	harness_check(&w, "snmp.IpExt.InOctets", 19563658, SERIES_COUNTER);
	assert_int_equal(harness_find(&w, "snmp.IpExt.InOctets"), inoctets);
	assert_int_equal(w.sink.ngone, 0);

	/* snmp6 lines change too. */
	harness_edit(&w, "proc/net/snmp6", "\t777\n", "\t778\n");
	harness_sample(&w);
	harness_check(&w, "snmp6.Ip6InReceives", 778, SERIES_COUNTER);
	assert_int_equal(w.sink.nput, 1);

	assert_int_equal(harness_find(&w, "snmp.Tcp.InSegs"), insegs);
	harness_free(&w);
}

/* Without /proc/net/snmp6 (IPv6 disabled) the source still works. */
static void
test_no_snmp6(void **state)
{
	struct world w;
	struct nm_error err = {0};
	json_object *d;

	(void)state;
	harness_init(&w, &source_snmp_ops, NULL);
	harness_copy_fixture("snmp", w.dir);
	harness_write(&w, "proc/net/snmp6", NULL);
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);
	harness_check(&w, "snmp.Tcp.InSegs", 123456789, SERIES_COUNTER);
	assert_int_equal(series_find(&w.reg, "snmp6.Ip6InReceives"), SERIES_NONE);
	d = w.src.ops->describe(&w.src);
	assert_int_equal(json_object_array_length(json_object_object_get(d, "files")), 2);
	json_object_put(d);
	harness_free(&w);
}

/* Without /proc/net/snmp init fails and names the file; free is safe after it. */
static void
test_missing_snmp(void **state)
{
	struct world w;

	(void)state;
	harness_init_missing(&w, &source_snmp_ops, "proc/net/snmp");
	harness_free(&w);
}

/* This machine's /proc. */
static void
test_real_proc(void **state)
{
	struct world w;
	struct nm_error err = {0};
	series_id id;

	(void)state;
	harness_init(&w, &source_snmp_ops, "/");
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);
	id = harness_find(&w, "snmp.Tcp.InSegs");
	assert_true(w.sink.put[id]);
	assert_int_equal(series_get(&w.reg, id)->kind, SERIES_COUNTER);
	harness_check(&w, "snmp.Tcp.MaxConn", UINT64_MAX, SERIES_GAUGE);
	harness_find(&w, "snmp.TcpExt.TCPSynRetrans");
	harness_find(&w, "snmp.IpExt.InOctets");
	if (access("/proc/net/snmp6", R_OK) == 0)
		harness_find(&w, "snmp6.Ip6InReceives");
	/* A second sample works and interns nothing new. */
	{
		size_t n = w.reg.n;

		harness_sample(&w);
		assert_int_equal(w.reg.n, n);
		assert_int_equal(w.sink.ngone, 0);
	}
	harness_free(&w);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixture_values), cmocka_unit_test(test_two_samples),
	    cmocka_unit_test(test_no_snmp6),       cmocka_unit_test(test_missing_snmp),
	    cmocka_unit_test(test_real_proc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
