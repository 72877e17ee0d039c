/* test-source-ethtool.c: the ethtool source on the fixture drivers, its devices option,
 * repeated and changing names, and on the host a device's counters against ethtool_read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "ethtool.h"
#include "series.h"
#include "source-harness.h"
#include "source.h"

/* Init w's ethtool source (index 6), with devices = devices when not NULL. */
static void
start(struct world *w, const char *devices)
{
	w->src.index = 6;
	if (devices != NULL)
		harness_configure(w, "devices", devices);
	harness_start(w);
}

/* Every counter of every fixture device, names with blanks made '_'. */
static void
test_fixtures(void **state)
{
	struct world w;
	struct nm_error err;
	struct series_labels lab;

	(void)state;
	harness_init(&w, &source_ethtool_ops, FIXTURE_DIR);
	start(&w, NULL);
	harness_sample(&w);
	assert_int_equal(w.reg.n, 121 + 84 + 49 + 20 + 64 + 60 + 60 + 20);
	assert_int_equal(harness_value(&w, "ethtool.bnxt.[0]:_rx_ucast_packets"), 1000);
	assert_int_equal(harness_value(&w, "ethtool.be2net.rxq1:_rx_pkts"), 200);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.rx_prio0_packets"), 1234567);
	harness_labels(
	    &w, "ethtool.mlx5.rx_prio0_packets",
	    "source=ethtool device=mlx5 direction=rx field=rx_prio0_packets unit=packets");
	/* the field is the driver's name as it gives it, blanks and all; the name's are '_' */
	lab = series_labels_of(&w.reg, harness_find(&w, "ethtool.bnxt.[0]:_rx_ucast_packets"));
	assert_string_equal(series_atom_str(&w.reg, lab.field), "[0]: rx_ucast_packets");
	assert_int_equal(harness_value(&w, "ethtool.i40e.rx-0.rx_packets"), 3000);
	assert_int_equal(harness_value(&w, "ethtool.ixgbe.tx_queue_3_bytes"), 120000);
	assert_int_equal(
	    series_get(&w.reg, series_find(&w.reg, "ethtool.ena.queue_0_rx_cnt"))->kind,
	    SERIES_COUNTER);
	/* Unchanged counters are not put again: the sink keeps their values. */
	harness_sample(&w);
	assert_int_equal(w.sink.count[series_find(&w.reg, "ethtool.iavf.rx-1.packets")], 1);
	assert_int_equal(w.sink.nput, 0);
	assert_int_equal(source_ethtool_ops.configure(&w.src, "speed", "1", &err), -1);
	{
		json_object *o = source_ethtool_ops.describe(&w.src), *d;
		assert_true(json_object_object_get_ex(o, "devices", &d));
		assert_int_equal(json_object_get_int(json_object_object_get(d, "bnxt")), 60);
		json_object_put(o);
	}
	harness_free(&w);

	harness_init(&w, &source_ethtool_ops, FIXTURE_DIR);
	start(&w, "b*");
	harness_sample(&w);
	assert_int_equal(w.reg.n, 60 + 60);
	harness_free(&w);
}

/* Repeated names get #2; renamed counters and removed devices are gone. */
static void
test_names_change(void **state)
{
	struct world w;
	series_id a, b, c;

	(void)state;
	harness_init(&w, &source_ethtool_ops, NULL);
	harness_mkdir(&w, "ethtool");
	harness_write(&w, "ethtool/vmx0.txt",
	              "NIC statistics:\n     Tx Queue#: 0\n     ucast pkts tx: 10\n"
	              "     Tx Queue#: 1\n     ucast pkts tx: 20\n     drops: 3\n");
	start(&w, NULL);
	harness_sample(&w);
	assert_int_equal(harness_value(&w, "ethtool.vmx0.Tx_Queue#"), 0);
	assert_int_equal(harness_value(&w, "ethtool.vmx0.Tx_Queue##2"), 1);
	assert_int_equal(harness_value(&w, "ethtool.vmx0.ucast_pkts_tx"), 10);
	assert_int_equal(harness_value(&w, "ethtool.vmx0.ucast_pkts_tx#2"), 20);
	a = series_find(&w.reg, "ethtool.vmx0.ucast_pkts_tx#2");
	b = series_find(&w.reg, "ethtool.vmx0.drops");
	/* One queue fewer and a new counter: the second queue's series go, drops stays. */
	harness_write(&w, "ethtool/vmx0.txt",
	              "NIC statistics:\n     Tx Queue#: 0\n     ucast pkts tx: 11\n"
	              "     drops: 4\n     resets: 1\n");
	harness_sample(&w);
	assert_true(w.sink.gone[a]);
	assert_false(w.sink.gone[b]);
	assert_int_equal(harness_value(&w, "ethtool.vmx0.drops"), 4);
	assert_int_equal(harness_value(&w, "ethtool.vmx0.resets"), 1);
	c = series_find(&w.reg, "ethtool.vmx0.resets");
	/* The device goes. */
	harness_write(&w, "ethtool/vmx0.txt", NULL);
	harness_sample(&w);
	assert_true(w.sink.gone[b]);
	assert_true(w.sink.gone[c]);
	harness_free(&w);
}

/* Only counters whose value changed are put; a value that grows a digit, blanks and a CRLF
 * line end are read as by a full parse; a renamed counter puts them all again. */
static void
test_changed_only(void **state)
{
	struct world w;

	(void)state;
	harness_init(&w, &source_ethtool_ops, NULL);
	harness_mkdir(&w, "ethtool");
	harness_write(&w, "ethtool/eth9.txt",
	              "NIC statistics:\n     rx_packets: 9\n     tx_packets: 5\n"
	              "     [0]: rx_bytes: 100\r\n     drops: 0\n");
	start(&w, NULL);
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 4);
	harness_write(&w, "ethtool/eth9.txt",
	              "NIC statistics:\n     rx_packets: 10\n     tx_packets: 5\n"
	              "     [0]: rx_bytes:  120 \r\n     drops: 0\n");
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 2);
	assert_int_equal(harness_value(&w, "ethtool.eth9.rx_packets"), 10);
	assert_int_equal(harness_value(&w, "ethtool.eth9.[0]:_rx_bytes"), 120);
	assert_false(w.sink.put[harness_find(&w, "ethtool.eth9.tx_packets")]);
	/* Not a number any more: skipped, the others still read. */
	harness_write(&w, "ethtool/eth9.txt",
	              "NIC statistics:\n     rx_packets: 11\n     tx_packets: 5x\n"
	              "     [0]: rx_bytes: 120\n     drops: 1\n");
	harness_sample(&w);
	assert_int_equal(harness_value(&w, "ethtool.eth9.rx_packets"), 11);
	assert_int_equal(harness_value(&w, "ethtool.eth9.drops"), 1);
	assert_true(w.sink.gone[harness_find(&w, "ethtool.eth9.tx_packets")]);
	/* A renamed counter: every counter is put again. */
	harness_write(&w, "ethtool/eth9.txt",
	              "NIC statistics:\n     rx_packets: 11\n     tx_pkts: 5\n"
	              "     [0]: rx_bytes: 120\n     drops: 1\n");
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 4);
	assert_int_equal(harness_value(&w, "ethtool.eth9.tx_pkts"), 5);
	harness_free(&w);
}

/* On the host: a device's series are exactly its ethtool_read counters; lo has none. */
static void
test_host(void **state)
{
	struct world w;
	struct ethtool_counters ec;
	const char *dev = NULL;
	char prefix[64];
	size_t nseries = 0;
	int fd;

	(void)state;
	harness_init(&w, &source_ethtool_ops, "/");
	start(&w, NULL);
	harness_sample(&w);
	for (size_t id = 0; id < w.reg.n; id++) {
		assert_true(strncmp(w.reg.v[id].name, "ethtool.lo.", 11) != 0);
		if (dev == NULL && strncmp(w.reg.v[id].name, "ethtool.eth0.", 13) == 0)
			dev = "eth0";
	}
	if (dev == NULL) {
		harness_free(&w);
		skip();
	}
	snprintf(prefix, sizeof(prefix), "ethtool.%s.", dev);
	for (size_t id = 0; id < w.reg.n; id++)
		nseries += strncmp(w.reg.v[id].name, prefix, strlen(prefix)) == 0;
	fd = ethtool_socket(NULL);
	ethtool_counters_init(&ec);
	assert_int_equal(ethtool_read(fd, dev, &ec, NULL), 0);
	assert_int_equal(nseries, ec.n);
	ethtool_counters_free(&ec);
	close(fd);
	harness_free(&w);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixtures),
	    cmocka_unit_test(test_names_change),
	    cmocka_unit_test(test_changed_only),
	    cmocka_unit_test(test_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
