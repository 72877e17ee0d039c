/* test-source-queues.c: the queues source on the fixture drivers (tests/fixtures/ethtool),
 * its options, queues and devices coming and going, and on the host the qstats totals
 * against the device's own counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "series.h"
#include "source-queues.h"
#include "source-harness.h"
#include "source.h"

/* Configure w's queues source (index 5) with key=value pairs (NULL-terminated); init it. */
static void
start(struct world *w, const char *const *opts)
{
	w->src.index = 5;
	for (; opts != NULL && opts[0] != NULL; opts += 2)
		harness_configure(w, opts[0], opts[1]);
	harness_start(w);
}

/* Every fixture driver's queues, with the values of its own naming. */
static void
test_fixture_drivers(void **state)
{
	struct world w;
	const struct queue_info *qi;
	size_t n;

	(void)state;
	harness_init(&w, &source_queues_ops, FIXTURE_DIR);
	start(&w, NULL);
	qi = source_queues_list(&w.src, &n);
	assert_int_equal(n, 0);
	harness_sample(&w);
	assert_int_equal(harness_value(&w, "queue.mlx5.rx0.packets"), 600000);
	assert_int_equal(harness_value(&w, "queue.mlx5.tx1.bytes"), 63456789);
	assert_int_equal(harness_value(&w, "queue.ixgbe.rx3.packets"), 400);
	harness_labels(
	    &w, "queue.ixgbe.rx3.packets",
	    "source=queues device=ixgbe queue=3 direction=rx field=packets unit=packets");
	harness_labels(&w, "queue.mlx5.tx1.bytes",
	               "source=queues device=mlx5 queue=1 direction=tx field=bytes unit=bytes");
	assert_int_equal(harness_value(&w, "queue.i40e.tx1.packets"), 2100);
	assert_int_equal(harness_value(&w, "queue.iavf.rx1.bytes"), 448576);
	assert_int_equal(harness_value(&w, "queue.ena.rx2.packets"), 220);
	assert_int_equal(harness_value(&w, "queue.ena.tx0.bytes"), 11000);
	assert_int_equal(harness_value(&w, "queue.bnxt.rx0.packets"), 1023);
	assert_int_equal(harness_value(&w, "queue.bnxt.tx1.bytes"), 105180);
	assert_int_equal(harness_value(&w, "queue.be2net.rx1.packets"), 200);
	assert_int_equal(series_find(&w.reg, "queue.virtio.rx0.packets"), SERIES_NONE);
	assert_string_equal(series_get(&w.reg, series_find(&w.reg, "queue.mlx5.rx0.bytes"))->unit,
	                    "bytes");

	/* The exported list: 34 queues; per device rx before tx, by index; ids agree. */
	qi = source_queues_list(&w.src, &n);
	assert_int_equal(n, 4 + 8 + 4 + 4 + 6 + 4 + 4);
	for (size_t i = 0; i < n; i++) {
		char name[128];
		snprintf(name, sizeof(name), "queue.%s.%s%u.packets", qi[i].dev,
		         qi[i].dir == QUEUE_RX ? "rx" : "tx", qi[i].index);
		assert_int_equal(qi[i].packets, series_find(&w.reg, name));
		if (i > 0 && strcmp(qi[i].dev, qi[i - 1].dev) == 0)
			assert_true(qi[i].dir > qi[i - 1].dir ||
			            (qi[i].dir == qi[i - 1].dir && qi[i].index > qi[i - 1].index));
		if (strcmp(qi[i].dev, "ena") == 0 && qi[i].dir == QUEUE_RX && qi[i].index == 2)
			assert_int_equal(w.sink.val[qi[i].bytes], 22000);
	}
	/* Steady state: the same list; sums that did not change are not put again (the sink
	 * keeps them). */
	harness_sample(&w);
	assert_int_equal(w.sink.count[series_find(&w.reg, "queue.ena.rx2.packets")], 1);
	assert_int_equal(w.sink.nput, 0);
	assert_int_equal(harness_value(&w, "queue.ena.rx2.packets"), 220);
	source_queues_list(&w.src, &n);
	assert_int_equal(n, 34);
	{
		json_object *o = source_queues_ops.describe(&w.src);
		json_object *d;
		assert_true(json_object_object_get_ex(o, "devices", &d));
		assert_string_equal(json_object_get_string(json_object_object_get(d, "mlx5")),
		                    "ethtool");
		assert_string_equal(json_object_get_string(json_object_object_get(d, "virtio")),
		                    "none");
		json_object_put(o);
	}
	/* Each queue and device says where its figures come from; virtio says why none. */
	qi = source_queues_list(&w.src, &n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(qi[i].counters, "ethtool");
	{
		const struct queue_dev *qd = source_queues_devices(&w.src, &n);
		size_t seen = 0;
		assert_int_equal(n, 8);
		for (size_t i = 0; i < n; i++) {
			if (strcmp(qd[i].dev, "virtio") == 0) {
				assert_string_equal(qd[i].counters, "none");
				assert_non_null(strstr(qd[i].why,
				                       "none of its ethtool counters names a "
				                       "queue"));
				seen++;
			} else if (strcmp(qd[i].dev, "mlx5") == 0) {
				assert_string_equal(qd[i].counters, "ethtool");
				assert_string_equal(qd[i].why, "");
				seen++;
			}
		}
		assert_int_equal(seen, 2);
	}
	harness_free(&w);
}

/* devices limits the devices; configured patterns come first or alone. */
static void
test_options(void **state)
{
	static const char *const only[] = {"devices", "mlx5, e*", NULL};
	static const char *const lro[] = {
	    "builtin-patterns",        "no", "pattern", "rx packets rx%u_lro_packets", "pattern",
	    "tx bytes tx%u_tso_bytes", NULL};
	struct world w;
	struct nm_error err;
	size_t n;

	(void)state;
	harness_init(&w, &source_queues_ops, FIXTURE_DIR);
	start(&w, only);
	harness_sample(&w);
	source_queues_list(&w.src, &n);
	assert_int_equal(n, 4 + 6);
	assert_int_equal(series_find(&w.reg, "queue.ixgbe.rx0.packets"), SERIES_NONE);
	harness_free(&w);

	harness_init(&w, &source_queues_ops, FIXTURE_DIR);
	start(&w, lro);
	harness_sample(&w);
	assert_int_equal(harness_value(&w, "queue.mlx5.rx0.packets"), 17);
	assert_int_equal(harness_value(&w, "queue.mlx5.tx1.bytes"), 900000);
	assert_int_equal(series_find(&w.reg, "queue.ixgbe.rx0.packets"), SERIES_NONE);
	source_queues_list(&w.src, &n);
	assert_int_equal(n, 4);
	/* Bad options are refused with a message naming them. */
	assert_int_equal(source_queues_ops.configure(&w.src, "colour", "red", &err), -1);
	assert_non_null(strstr(err.message, "colour"));
	assert_int_equal(source_queues_ops.configure(&w.src, "pattern", "rx packets nope", &err),
	                 -1);
	assert_int_equal(source_queues_ops.configure(&w.src, "builtin-patterns", "maybe", &err),
	                 -1);
	assert_int_equal(source_queues_ops.configure(&w.src, "devices", " , ", &err), -1);
	harness_free(&w);
}

/* Queues and devices that go away are gone; new ones appear; the list follows. */
static void
test_churn(void **state)
{
	struct world w;
	series_id q2, q0;
	size_t n;

	(void)state;
	harness_init(&w, &source_queues_ops, NULL);
	harness_mkdir(&w, "ethtool");
	harness_write(&w, "ethtool/nic0.txt",
	              "NIC statistics:\n     rx_queue_0_packets: 5\n     rx_queue_1_packets: 6\n"
	              "     rx_queue_2_packets: 7\n     tx_queue_0_packets: 8\n");
	harness_write(&w, "ethtool/nic1.txt", "NIC statistics:\n     rx0_packets: 1\n");
	harness_write(&w, "ethtool/lo.txt", "NIC statistics:\n     rx_queue_0_packets: 1\n");
	start(&w, NULL);
	harness_sample(&w);
	source_queues_list(&w.src, &n);
	assert_int_equal(n, 5);
	assert_int_equal(series_find(&w.reg, "queue.lo.rx0.packets"), SERIES_NONE);
	q2 = series_find(&w.reg, "queue.nic0.rx2.packets");
	q0 = series_find(&w.reg, "queue.nic1.rx0.packets");
	/* Channels reduced on nic0; nic1 removed. */
	harness_write(&w, "ethtool/nic0.txt",
	              "NIC statistics:\n     rx_queue_0_packets: 15\n"
	              "     rx_queue_1_packets: 16\n     tx_queue_0_packets: 18\n");
	harness_write(&w, "ethtool/nic1.txt", NULL);
	harness_sample(&w);
	assert_true(w.sink.gone[q2]);
	assert_true(w.sink.gone[q0]);
	assert_int_equal(harness_value(&w, "queue.nic0.rx1.packets"), 16);
	source_queues_list(&w.src, &n);
	assert_int_equal(n, 3);
	/* And back. */
	harness_write(&w, "ethtool/nic0.txt",
	              "NIC statistics:\n     rx_queue_2_packets: 27\n"
	              "     rx_queue_0_packets: 25\n     rx_queue_1_packets: 26\n"
	              "     tx_queue_0_packets: 28\n");
	harness_sample(&w);
	assert_int_equal(harness_value(&w, "queue.nic0.rx2.packets"), 27);
	assert_int_equal(series_find(&w.reg, "queue.nic0.rx2.packets"), q2);
	source_queues_list(&w.src, &n);
	assert_int_equal(n, 4);
	/* One queue moves: only its sum is put. */
	harness_write(&w, "ethtool/nic0.txt",
	              "NIC statistics:\n     rx_queue_2_packets: 27\n"
	              "     rx_queue_0_packets: 35\n     rx_queue_1_packets: 26\n"
	              "     tx_queue_0_packets: 28\n");
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 1);
	assert_true(w.sink.put[series_find(&w.reg, "queue.nic0.rx0.packets")]);
	assert_int_equal(harness_value(&w, "queue.nic0.rx0.packets"), 35);
	assert_int_equal(harness_value(&w, "queue.nic0.rx1.packets"), 26);
	harness_free(&w);
}

/* The sums of the fold plan against those of the plain fold (source_queues_no_plan), sample
 * by sample: two worlds read the same text, values moving or not, a queue dropped, queues
 * added past the end of the array, names moving, counters of a queue summed (mlx5's
 * rx and rx_xdp packets), a counter that is no queue's; the same series, values, puts and
 * gones each time. */
static void
test_plan(void **state)
{
	static const char *const steps[] = {
	    "NIC statistics:\n     rx_queue_0_packets: 5\n     rx_queue_0_bytes: 500\n"
	    "     rx_queue_1_packets: 6\n     rx_queue_1_bytes: 600\n     tx_queue_0_packets: 8\n"
	    "     tx_queue_0_bytes: 800\n     rx_dropped: 3\n",
	    /* values move, some not */
	    "NIC statistics:\n     rx_queue_0_packets: 7\n     rx_queue_0_bytes: 500\n"
	    "     rx_queue_1_packets: 6\n     rx_queue_1_bytes: 900\n     tx_queue_0_packets: 9\n"
	    "     tx_queue_0_bytes: 800\n     rx_dropped: 4\n",
	    /* nothing moves */
	    "NIC statistics:\n     rx_queue_0_packets: 7\n     rx_queue_0_bytes: 500\n"
	    "     rx_queue_1_packets: 6\n     rx_queue_1_bytes: 900\n     tx_queue_0_packets: 9\n"
	    "     tx_queue_0_bytes: 800\n     rx_dropped: 4\n",
	    /* a value goes down (a reset: put as it is) */
	    "NIC statistics:\n     rx_queue_0_packets: 1\n     rx_queue_0_bytes: 500\n"
	    "     rx_queue_1_packets: 6\n     rx_queue_1_bytes: 900\n     tx_queue_0_packets: 9\n"
	    "     tx_queue_0_bytes: 800\n     rx_dropped: 4\n",
	    /* rx queue 1 goes */
	    "NIC statistics:\n     rx_queue_0_packets: 2\n     rx_queue_0_bytes: 510\n"
	    "     tx_queue_0_packets: 9\n     tx_queue_0_bytes: 810\n     rx_dropped: 4\n",
	    "NIC statistics:\n     rx_queue_0_packets: 3\n     rx_queue_0_bytes: 510\n"
	    "     tx_queue_0_packets: 10\n     tx_queue_0_bytes: 810\n     rx_dropped: 4\n",
	    /* it comes back with queue 9 (the queue array grows), in another order */
	    "NIC statistics:\n     rx_queue_9_packets: 90\n     rx_queue_0_packets: 3\n"
	    "     rx_queue_1_packets: 60\n     rx_queue_0_bytes: 520\n     tx_queue_0_packets: 10\n"
	    "     tx_queue_0_bytes: 810\n",
	    "NIC statistics:\n     rx_queue_9_packets: 91\n     rx_queue_0_packets: 4\n"
	    "     rx_queue_1_packets: 60\n     rx_queue_0_bytes: 530\n     tx_queue_0_packets: 11\n"
	    "     tx_queue_0_bytes: 810\n",
	    "NIC statistics:\n     rx_queue_9_packets: 91\n     rx_queue_0_packets: 4\n"
	    "     rx_queue_1_packets: 61\n     rx_queue_0_bytes: 530\n     tx_queue_0_packets: 11\n"
	    "     tx_queue_0_bytes: 811\n",
	};
	static const char *const mlx[] = {
	    "NIC statistics:\n     rx0_packets: 10\n     rx0_xdp_tx_xmit: 0\n     rx0_bytes: 100\n"
	    "     tx0_packets: 20\n     tx0_bytes: 200\n",
	    "NIC statistics:\n     rx0_packets: 11\n     rx0_xdp_tx_xmit: 0\n     rx0_bytes: 110\n"
	    "     tx0_packets: 20\n     tx0_bytes: 200\n",
	    "NIC statistics:\n     rx0_packets: 11\n     rx0_xdp_tx_xmit: 0\n     rx0_bytes: 110\n"
	    "     tx0_packets: 25\n     tx0_bytes: 260\n",
	};
	struct world w[2];
	size_t nsteps = sizeof(steps) / sizeof(steps[0]), rounds = 2 * nsteps + 6;

	(void)state;
	for (int k = 0; k < 2; k++) {
		harness_init(&w[k], &source_queues_ops, NULL);
		harness_mkdir(&w[k], "ethtool");
		harness_write(&w[k], "ethtool/nic0.txt", steps[0]);
		harness_write(&w[k], "ethtool/mlx5.txt", mlx[0]);
		start(&w[k], NULL);
	}
	for (size_t r = 0; r < rounds; r++) {
		/* Each step twice in a row (the plan is made on the first, used on the second),
		 * then a few as they come. */
		const char *text = r < 2 * nsteps ? steps[r / 2] : steps[(r * 5) % nsteps];
		for (int k = 0; k < 2; k++) {
			harness_write(&w[k], "ethtool/nic0.txt", text);
			harness_write(&w[k], "ethtool/mlx5.txt", mlx[(r / 3) % 3]);
			source_queues_no_plan = k == 1;
			harness_sample(&w[k]);
		}
		source_queues_no_plan = false;
		assert_int_equal(w[0].reg.n, w[1].reg.n);
		assert_int_equal(w[0].sink.nput, w[1].sink.nput);
		assert_int_equal(w[0].sink.ngone, w[1].sink.ngone);
		for (series_id id = 0; id < w[0].reg.n; id++) {
			assert_string_equal(series_get(&w[0].reg, id)->name,
			                    series_get(&w[1].reg, id)->name);
			assert_int_equal(w[0].sink.val[id], w[1].sink.val[id]);
			assert_int_equal(w[0].sink.put[id], w[1].sink.put[id]);
			assert_int_equal(w[0].sink.gone[id], w[1].sink.gone[id]);
			assert_int_equal(w[0].sink.count[id], w[1].sink.count[id]);
		}
	}
	/* The values are the text's, by the plan (two samples of one text: the second is
	 * folded by the plan the first made). */
	for (int i = 0; i < 2; i++) {
		harness_write(&w[0], "ethtool/nic0.txt", steps[7]);
		harness_sample(&w[0]);
	}
	assert_int_equal(harness_value(&w[0], "queue.nic0.rx9.packets"), 91);
	assert_int_equal(harness_value(&w[0], "queue.nic0.rx0.bytes"), 530);
	assert_int_equal(harness_value(&w[0], "queue.nic0.tx0.packets"), 11);
	harness_free(&w[0]);
	harness_free(&w[1]);
}

/* A counter of /sys/class/net/DEV/statistics. */
static uint64_t
sysfs_stat(const char *dev, const char *stat)
{
	char path[256];
	unsigned long long v = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", dev, stat);
	fp = fopen(path, "r");
	if (fp == NULL)
		return 0;
	if (fscanf(fp, "%llu", &v) != 1)
		v = 0;
	fclose(fp);
	return v;
}

/* On the host: for devices on qstats, the queues add up to the device's own counters. */
static void
test_host_qstats(void **state)
{
	struct world w;
	const struct queue_info *qi;
	json_object *o, *devs;
	size_t n, checked = 0;

	(void)state;
	harness_init(&w, &source_queues_ops, "/");
	start(&w, NULL);
	harness_sample(&w);
	o = source_queues_ops.describe(&w.src);
	assert_true(json_object_object_get_ex(o, "devices", &devs));
	qi = source_queues_list(&w.src, &n);
	json_object_object_foreach(devs, dev, via)
	{
		uint64_t sum[2] = {0, 0}, sys[2];
		if (strcmp(json_object_get_string(via), "qstats") != 0)
			continue;
		for (size_t i = 0; i < n; i++)
			if (strcmp(qi[i].dev, dev) == 0 && qi[i].packets != SERIES_NONE)
				sum[qi[i].dir] += w.sink.val[qi[i].packets];
		sys[0] = sysfs_stat(dev, "rx_packets");
		sys[1] = sysfs_stat(dev, "tx_packets");
		for (int d = 0; d < 2; d++) {
			uint64_t diff = sys[d] > sum[d] ? sys[d] - sum[d] : sum[d] - sys[d];
			if (diff > 100 + sys[d] / 100)
				fail_msg("%s %s: queues %llu, device %llu", dev, d ? "tx" : "rx",
				         (unsigned long long)sum[d], (unsigned long long)sys[d]);
		}
		checked++;
	}
	json_object_put(o);
	harness_free(&w);
	if (checked == 0)
		skip();
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixture_drivers), cmocka_unit_test(test_options),
	    cmocka_unit_test(test_churn),           cmocka_unit_test(test_plan),
	    cmocka_unit_test(test_host_qstats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
