/* test-source-queues.c: the queues source on the fixture drivers (tests/fixtures/ethtool),
 * its options, queues and devices coming and going, and on the host the qstats totals
 * against the device's own counters. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "series.h"
#include "sink.h"
#include "source-queues.h"
#include "source.h"

/* The test double of the sampler's sink: raw values and gone marks by series id. */
#define MAX_IDS 8192
struct sink {
	uint64_t val[MAX_IDS];
	unsigned nput[MAX_IDS];
	bool gone[MAX_IDS];
};

/* Record a raw value as the sampler's sink would. */
void
sink_put(struct sink *s, series_id id, uint64_t raw)
{
	assert_true(id < MAX_IDS);
	s->val[id] = raw;
	s->nput[id]++;
	s->gone[id] = false;
}

/* Record that a series went away. */
void
sink_gone(struct sink *s, series_id id)
{
	assert_true(id < MAX_IDS);
	s->gone[id] = true;
}

struct fixture {
	struct series_registry reg;
	struct source src;
	struct sink sink;
};

/* A queues source on root, configured with key=value pairs (NULL-terminated). */
static struct fixture *
start(const char *root, const char *const *opts)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct nm_error err;

	series_registry_init(&f->reg);
	f->src.ops = &source_queues_ops;
	f->src.index = 5;
	f->src.root = root;
	f->src.host = strcmp(root, "/") == 0;
	f->src.rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(f->src.rootfd >= 0);
	f->src.reg = &f->reg;
	for (; opts != NULL && opts[0] != NULL; opts += 2)
		if (source_queues_ops.configure(&f->src, opts[0], opts[1], &err) < 0)
			fail_msg("configure: %s", err.message);
	if (source_queues_ops.init(&f->src, &err) < 0)
		fail_msg("init: %s", err.message);
	return f;
}

/* Free what start() made. */
static void
stop(struct fixture *f)
{
	source_queues_ops.free(&f->src);
	close(f->src.rootfd);
	series_registry_free(&f->reg);
	free(f);
}

/* Sample once, expecting success. */
static void
sample(struct fixture *f)
{
	struct nm_error err;

	if (source_queues_ops.sample(&f->src, &f->sink, &err) < 0)
		fail_msg("sample: %s", err.message);
}

/* The last value of a live series that was put. */
static uint64_t
value(struct fixture *f, const char *name)
{
	series_id id = series_find(&f->reg, name);

	if (id == SERIES_NONE)
		fail_msg("no series %s", name);
	if (f->sink.nput[id] == 0 || f->sink.gone[id])
		fail_msg("series %s not put or gone", name);
	return f->sink.val[id];
}

/* Every fixture driver's queues, with the values of its own naming. */
static void
test_fixture_drivers(void **state)
{
	struct fixture *f = start(FIXTURE_DIR, NULL);
	const struct queue_info *qi;
	size_t n;

	(void)state;
	qi = source_queues_list(&f->src, &n);
	assert_int_equal(n, 0);
	sample(f);
	assert_int_equal(value(f, "queue.mlx5.rx0.packets"), 600000);
	assert_int_equal(value(f, "queue.mlx5.tx1.bytes"), 63456789);
	assert_int_equal(value(f, "queue.ixgbe.rx3.packets"), 400);
	assert_int_equal(value(f, "queue.i40e.tx1.packets"), 2100);
	assert_int_equal(value(f, "queue.iavf.rx1.bytes"), 448576);
	assert_int_equal(value(f, "queue.ena.rx2.packets"), 220);
	assert_int_equal(value(f, "queue.ena.tx0.bytes"), 11000);
	assert_int_equal(value(f, "queue.bnxt.rx0.packets"), 1023);
	assert_int_equal(value(f, "queue.bnxt.tx1.bytes"), 105180);
	assert_int_equal(value(f, "queue.be2net.rx1.packets"), 200);
	assert_int_equal(series_find(&f->reg, "queue.virtio.rx0.packets"), SERIES_NONE);
	assert_string_equal(series_get(&f->reg, series_find(&f->reg, "queue.mlx5.rx0.bytes"))->unit,
	                    "bytes");

	/* The exported list: 34 queues; per device rx before tx, by index; ids agree. */
	qi = source_queues_list(&f->src, &n);
	assert_int_equal(n, 4 + 8 + 4 + 4 + 6 + 4 + 4);
	for (size_t i = 0; i < n; i++) {
		char name[128];
		snprintf(name, sizeof(name), "queue.%s.%s%u.packets", qi[i].dev,
		         qi[i].dir == QUEUE_RX ? "rx" : "tx", qi[i].index);
		assert_int_equal(qi[i].packets, series_find(&f->reg, name));
		if (i > 0 && strcmp(qi[i].dev, qi[i - 1].dev) == 0)
			assert_true(qi[i].dir > qi[i - 1].dir ||
			            (qi[i].dir == qi[i - 1].dir && qi[i].index > qi[i - 1].index));
		if (strcmp(qi[i].dev, "ena") == 0 && qi[i].dir == QUEUE_RX && qi[i].index == 2)
			assert_int_equal(f->sink.val[qi[i].bytes], 22000);
	}
	/* Steady state: the same list, values put again. */
	sample(f);
	assert_int_equal(f->sink.nput[series_find(&f->reg, "queue.ena.rx2.packets")], 2);
	source_queues_list(&f->src, &n);
	assert_int_equal(n, 34);
	{
		json_object *o = source_queues_ops.describe(&f->src);
		json_object *d;
		assert_true(json_object_object_get_ex(o, "devices", &d));
		assert_string_equal(json_object_get_string(json_object_object_get(d, "mlx5")),
		                    "ethtool");
		assert_string_equal(json_object_get_string(json_object_object_get(d, "virtio")),
		                    "none");
		json_object_put(o);
	}
	stop(f);
}

/* devices limits the devices; configured patterns come first or alone. */
static void
test_options(void **state)
{
	static const char *const only[] = {"devices", "mlx5, e*", NULL};
	static const char *const lro[] = {
	    "builtin-patterns",        "no", "pattern", "rx packets rx%u_lro_packets", "pattern",
	    "tx bytes tx%u_tso_bytes", NULL};
	struct fixture *f;
	struct nm_error err;
	size_t n;

	(void)state;
	f = start(FIXTURE_DIR, only);
	sample(f);
	source_queues_list(&f->src, &n);
	assert_int_equal(n, 4 + 6);
	assert_int_equal(series_find(&f->reg, "queue.ixgbe.rx0.packets"), SERIES_NONE);
	stop(f);

	f = start(FIXTURE_DIR, lro);
	sample(f);
	assert_int_equal(value(f, "queue.mlx5.rx0.packets"), 17);
	assert_int_equal(value(f, "queue.mlx5.tx1.bytes"), 900000);
	assert_int_equal(series_find(&f->reg, "queue.ixgbe.rx0.packets"), SERIES_NONE);
	source_queues_list(&f->src, &n);
	assert_int_equal(n, 4);
	/* Bad options are refused with a message naming them. */
	assert_int_equal(source_queues_ops.configure(&f->src, "colour", "red", &err), -1);
	assert_non_null(strstr(err.message, "colour"));
	assert_int_equal(source_queues_ops.configure(&f->src, "pattern", "rx packets nope", &err),
	                 -1);
	assert_int_equal(source_queues_ops.configure(&f->src, "builtin-patterns", "maybe", &err),
	                 -1);
	assert_int_equal(source_queues_ops.configure(&f->src, "devices", " , ", &err), -1);
	stop(f);
}

/* Write root/ethtool/name.txt with text; NULL text removes it. */
static void
put_file(const char *root, const char *name, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/ethtool/%s.txt", root, name);
	if (text == NULL) {
		unlink(path);
		return;
	}
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* Queues and devices that go away are gone; new ones appear; the list follows. */
static void
test_churn(void **state)
{
	char root[] = "/tmp/test-source-queues.XXXXXX", path[256];
	struct fixture *f;
	series_id q2, q0;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/ethtool", root);
	assert_int_equal(mkdir(path, 0755), 0);
	put_file(root, "nic0",
	         "NIC statistics:\n     rx_queue_0_packets: 5\n     rx_queue_1_packets: 6\n"
	         "     rx_queue_2_packets: 7\n     tx_queue_0_packets: 8\n");
	put_file(root, "nic1", "NIC statistics:\n     rx0_packets: 1\n");
	put_file(root, "lo", "NIC statistics:\n     rx_queue_0_packets: 1\n");
	f = start(root, NULL);
	sample(f);
	source_queues_list(&f->src, &n);
	assert_int_equal(n, 5);
	assert_int_equal(series_find(&f->reg, "queue.lo.rx0.packets"), SERIES_NONE);
	q2 = series_find(&f->reg, "queue.nic0.rx2.packets");
	q0 = series_find(&f->reg, "queue.nic1.rx0.packets");
	/* Channels reduced on nic0; nic1 removed. */
	put_file(root, "nic0",
	         "NIC statistics:\n     rx_queue_0_packets: 15\n"
	         "     rx_queue_1_packets: 16\n     tx_queue_0_packets: 18\n");
	put_file(root, "nic1", NULL);
	sample(f);
	assert_true(f->sink.gone[q2]);
	assert_true(f->sink.gone[q0]);
	assert_int_equal(value(f, "queue.nic0.rx1.packets"), 16);
	source_queues_list(&f->src, &n);
	assert_int_equal(n, 3);
	/* And back. */
	put_file(root, "nic0",
	         "NIC statistics:\n     rx_queue_2_packets: 27\n"
	         "     rx_queue_0_packets: 25\n     rx_queue_1_packets: 26\n"
	         "     tx_queue_0_packets: 28\n");
	sample(f);
	assert_int_equal(value(f, "queue.nic0.rx2.packets"), 27);
	assert_int_equal(series_find(&f->reg, "queue.nic0.rx2.packets"), q2);
	source_queues_list(&f->src, &n);
	assert_int_equal(n, 4);
	stop(f);
	put_file(root, "nic0", NULL);
	put_file(root, "lo", NULL);
	rmdir(path);
	rmdir(root);
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
	struct fixture *f = start("/", NULL);
	const struct queue_info *qi;
	json_object *o, *devs;
	size_t n, checked = 0;

	(void)state;
	sample(f);
	o = source_queues_ops.describe(&f->src);
	assert_true(json_object_object_get_ex(o, "devices", &devs));
	qi = source_queues_list(&f->src, &n);
	json_object_object_foreach(devs, dev, via)
	{
		uint64_t sum[2] = {0, 0}, sys[2];
		if (strcmp(json_object_get_string(via), "qstats") != 0)
			continue;
		for (size_t i = 0; i < n; i++)
			if (strcmp(qi[i].dev, dev) == 0 && qi[i].packets != SERIES_NONE)
				sum[qi[i].dir] += f->sink.val[qi[i].packets];
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
	stop(f);
	if (checked == 0)
		skip();
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixture_drivers),
	    cmocka_unit_test(test_options),
	    cmocka_unit_test(test_churn),
	    cmocka_unit_test(test_host_qstats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
