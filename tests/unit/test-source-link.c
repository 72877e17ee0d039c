/* test-source-link.c: the link source on a fixture /proc/net/dev (exact values, devices
 * vanishing and appearing) and on the host (lo counts a UDP packet to 127.0.0.1). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "series.h"
#include "source-harness.h"
#include "source.h"

/* Every column of the fixture lands in its series, 64-bit values intact. */
static void
test_procnet_values(void **state)
{
	struct world w;

	(void)state;
	harness_init(&w, &source_link_ops, FIXTURE_DIR "/link");
	harness_start(&w);
	harness_sample(&w);
	assert_int_equal(harness_value(&w, "link.lo.rx_packets"), 1234);
	assert_int_equal(harness_value(&w, "link.lo.tx_bytes"), 123456);
	assert_int_equal(harness_value(&w, "link.eth0.rx_bytes"), 98765432101ull);
	assert_int_equal(harness_value(&w, "link.eth0.rx_packets"), 87654321);
	harness_labels(&w, "link.eth0.rx_packets",
	               "source=link device=eth0 direction=rx field=rx_packets unit=packets");
	harness_labels(&w, "link.lo.tx_bytes",
	               "source=link device=lo direction=tx field=tx_bytes unit=bytes");
	assert_int_equal(harness_value(&w, "link.eth0.rx_errors"), 3);
	assert_int_equal(harness_value(&w, "link.eth0.rx_dropped"), 17);
	assert_int_equal(harness_value(&w, "link.eth0.rx_fifo_errors"), 1);
	assert_int_equal(harness_value(&w, "link.eth0.rx_frame_errors"), 2);
	assert_int_equal(harness_value(&w, "link.eth0.rx_compressed"), 0);
	assert_int_equal(harness_value(&w, "link.eth0.multicast"), 4321);
	assert_int_equal(harness_value(&w, "link.eth0.tx_bytes"), 12345678901ull);
	assert_int_equal(harness_value(&w, "link.eth0.tx_packets"), 23456789);
	assert_int_equal(harness_value(&w, "link.eth0.tx_errors"), 5);
	assert_int_equal(harness_value(&w, "link.eth0.tx_dropped"), 6);
	assert_int_equal(harness_value(&w, "link.eth0.tx_fifo_errors"), 7);
	assert_int_equal(harness_value(&w, "link.eth0.collisions"), 8);
	assert_int_equal(harness_value(&w, "link.eth0.tx_carrier_errors"), 9);
	assert_int_equal(harness_value(&w, "link.eth0.tx_compressed"), 10);
	assert_true(harness_value(&w, "link.ens1f0np0.rx_bytes") == UINT64_MAX);
	assert_int_equal(harness_value(&w, "link.ens1f0np0.rx_packets"), 4294967296ull);
	assert_int_equal(harness_value(&w, "link.ens1f0np0.tx_bytes"), 4294967295ull);
	assert_int_equal(harness_value(&w, "link.veth-a.100.rx_packets"), 0);
	/* Statistics /proc/net/dev lacks are not invented. */
	assert_int_equal(series_find(&w.reg, "link.eth0.rx_nohandler"), SERIES_NONE);
	assert_int_equal(series_find(&w.reg, "link.eth0.rx_crc_errors"), SERIES_NONE);
	/* 4 devices x 16 columns, with kind and unit. */
	assert_int_equal(w.reg.n, 64);
	{
		const struct series_info *si =
		    series_get(&w.reg, series_find(&w.reg, "link.eth0.rx_bytes"));
		assert_int_equal(si->kind, SERIES_COUNTER);
		assert_int_equal(si->source, 3);
		assert_string_equal(si->unit, "bytes");
		si = series_get(&w.reg, series_find(&w.reg, "link.eth0.tx_packets"));
		assert_string_equal(si->unit, "packets");
	}
	/* A second sample puts the same values again. */
	harness_sample(&w);
	assert_int_equal(w.sink.count[series_find(&w.reg, "link.eth0.rx_packets")], 2);
	{
		json_object *o = source_link_ops.describe(&w.src);
		assert_string_equal(json_object_get_string(json_object_object_get(o, "method")),
		                    "proc/net/dev");
		assert_int_equal(json_object_get_int(json_object_object_get(o, "devices")), 4);
		json_object_put(o);
	}
	harness_free(&w);
}

/* Write a /proc/net/dev with the given device lines under root. */
static void
write_procnet(const char *root, const char *lines)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/proc/net/dev", root);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp,
	        "Inter-|   Receive                                                |  Transmit\n"
	        " face |bytes    packets errs drop fifo frame compressed multicast|bytes    "
	        "packets errs drop fifo colls carrier compressed\n%s",
	        lines);
	fclose(fp);
}

/* A device that leaves has its series gone; a new one appears; malformed lines are skipped. */
static void
test_procnet_churn(void **state)
{
	struct world w;
	series_id a, b, c;

	(void)state;
	harness_init(&w, &source_link_ops, NULL);
	harness_mkdir(&w, "proc");
	harness_mkdir(&w, "proc/net");
	write_procnet(w.dir, "  vA: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
	                     "  vB: 10 20 0 0 0 0 0 0 30 40 0 0 0 0 0 0\n");
	harness_start(&w);
	harness_sample(&w);
	a = series_find(&w.reg, "link.vA.rx_packets");
	b = series_find(&w.reg, "link.vB.rx_packets");
	assert_int_equal(w.sink.val[a], 2);
	assert_int_equal(w.sink.val[b], 20);
	/* vB leaves, vC arrives, a torn line and a short line are ignored. */
	write_procnet(w.dir, "  vA: 101 102 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
	                     "  vC: 5 6 0 0 0 0 0 0 7 8 0 0 0 0 0 0\n"
	                     "  vD: 1 2 3\n"
	                     "garbage without colon\n");
	harness_sample(&w);
	c = series_find(&w.reg, "link.vC.tx_packets");
	assert_int_equal(w.sink.val[a], 102);
	assert_true(w.sink.gone[b]);
	assert_true(w.sink.gone[series_find(&w.reg, "link.vB.tx_bytes")]);
	assert_false(w.sink.gone[a]);
	assert_int_equal(w.sink.val[c], 8);
	assert_int_equal(series_find(&w.reg, "link.vD.rx_packets"), SERIES_NONE);
	/* vB comes back: its series are revived with the same ids. */
	write_procnet(w.dir, "  vB: 11 21 0 0 0 0 0 0 30 40 0 0 0 0 0 0\n");
	harness_sample(&w);
	assert_int_equal(series_find(&w.reg, "link.vB.rx_packets"), b);
	assert_false(w.sink.gone[b]);
	assert_int_equal(w.sink.val[b], 21);
	assert_true(w.sink.gone[a]);
	harness_free(&w);
}

/* On the host: lo's rx_packets grows after a UDP datagram to 127.0.0.1. */
static void
test_host_lo(void **state)
{
	struct world w;
	struct sockaddr_in to = {.sin_family = AF_INET};
	uint64_t before, after;
	int fd;

	(void)state;
	harness_init(&w, &source_link_ops, "/");
	harness_start(&w);
	harness_sample(&w);
	if (series_find(&w.reg, "link.lo.rx_packets") == SERIES_NONE) {
		harness_free(&w);
		skip();
	}
	before = harness_value(&w, "link.lo.rx_packets");
	/* 24 statistics for lo, all from the netlink dump. */
	assert_true(series_find(&w.reg, "link.lo.rx_nohandler") != SERIES_NONE);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(fd >= 0);
	to.sin_port = htons(9); /* discard: the packet is counted even if nobody listens */
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (sendto(fd, "x", 1, 0, (struct sockaddr *)&to, sizeof(to)) != 1) {
		close(fd);
		harness_free(&w);
		skip(); /* lo is down here */
	}
	close(fd);
	harness_sample(&w);
	after = harness_value(&w, "link.lo.rx_packets");
	assert_true(after >= before + 1);
	harness_free(&w);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_procnet_values),
	    cmocka_unit_test(test_procnet_churn),
	    cmocka_unit_test(test_host_lo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
