/* test-source-ethtool.c: the ethtool source on the fixture drivers, its devices option,
 * repeated and changing names, and on the host a device's counters against ethtool_read. */
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
#include "ethtool.h"
#include "series.h"
#include "sink.h"
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

/* An ethtool source on root, with devices = devices when not NULL. */
static struct fixture *
start(const char *root, const char *devices)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct nm_error err;

	series_registry_init(&f->reg);
	f->src.ops = &source_ethtool_ops;
	f->src.index = 6;
	f->src.root = root;
	f->src.host = strcmp(root, "/") == 0;
	f->src.rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(f->src.rootfd >= 0);
	f->src.reg = &f->reg;
	if (devices != NULL && source_ethtool_ops.configure(&f->src, "devices", devices, &err) < 0)
		fail_msg("configure: %s", err.message);
	if (source_ethtool_ops.init(&f->src, &err) < 0)
		fail_msg("init: %s", err.message);
	return f;
}

/* Free what start() made. */
static void
stop(struct fixture *f)
{
	source_ethtool_ops.free(&f->src);
	close(f->src.rootfd);
	series_registry_free(&f->reg);
	free(f);
}

/* Sample once, expecting success. */
static void
sample(struct fixture *f)
{
	struct nm_error err;

	if (source_ethtool_ops.sample(&f->src, &f->sink, &err) < 0)
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

/* Every counter of every fixture device, names with blanks made '_'. */
static void
test_fixtures(void **state)
{
	struct fixture *f = start(FIXTURE_DIR, NULL);
	struct nm_error err;

	(void)state;
	sample(f);
	assert_int_equal(f->reg.n, 121 + 84 + 49 + 20 + 64 + 60 + 60 + 20);
	assert_int_equal(value(f, "ethtool.bnxt.[0]:_rx_ucast_packets"), 1000);
	assert_int_equal(value(f, "ethtool.be2net.rxq1:_rx_pkts"), 200);
	assert_int_equal(value(f, "ethtool.mlx5.rx_prio0_packets"), 1234567);
	assert_int_equal(value(f, "ethtool.i40e.rx-0.rx_packets"), 3000);
	assert_int_equal(value(f, "ethtool.ixgbe.tx_queue_3_bytes"), 120000);
	assert_int_equal(
	    series_get(&f->reg, series_find(&f->reg, "ethtool.ena.queue_0_rx_cnt"))->kind,
	    SERIES_COUNTER);
	sample(f);
	assert_int_equal(f->sink.nput[series_find(&f->reg, "ethtool.iavf.rx-1.packets")], 2);
	assert_int_equal(source_ethtool_ops.configure(&f->src, "speed", "1", &err), -1);
	{
		json_object *o = source_ethtool_ops.describe(&f->src), *d;
		assert_true(json_object_object_get_ex(o, "devices", &d));
		assert_int_equal(json_object_get_int(json_object_object_get(d, "bnxt")), 60);
		json_object_put(o);
	}
	stop(f);

	f = start(FIXTURE_DIR, "b*");
	sample(f);
	assert_int_equal(f->reg.n, 60 + 60);
	stop(f);
}

/* Write root/ethtool/name.txt with text; NULL removes it. */
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

/* Repeated names get #2; renamed counters and removed devices are gone. */
static void
test_names_change(void **state)
{
	char root[] = "/tmp/test-source-ethtool.XXXXXX", path[256];
	struct fixture *f;
	series_id a, b, c;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/ethtool", root);
	assert_int_equal(mkdir(path, 0755), 0);
	put_file(root, "vmx0",
	         "NIC statistics:\n     Tx Queue#: 0\n     ucast pkts tx: 10\n"
	         "     Tx Queue#: 1\n     ucast pkts tx: 20\n     drops: 3\n");
	f = start(root, NULL);
	sample(f);
	assert_int_equal(value(f, "ethtool.vmx0.Tx_Queue#"), 0);
	assert_int_equal(value(f, "ethtool.vmx0.Tx_Queue##2"), 1);
	assert_int_equal(value(f, "ethtool.vmx0.ucast_pkts_tx"), 10);
	assert_int_equal(value(f, "ethtool.vmx0.ucast_pkts_tx#2"), 20);
	a = series_find(&f->reg, "ethtool.vmx0.ucast_pkts_tx#2");
	b = series_find(&f->reg, "ethtool.vmx0.drops");
	/* One queue fewer and a new counter: the second queue's series go, drops stays. */
	put_file(root, "vmx0",
	         "NIC statistics:\n     Tx Queue#: 0\n     ucast pkts tx: 11\n"
	         "     drops: 4\n     resets: 1\n");
	sample(f);
	assert_true(f->sink.gone[a]);
	assert_false(f->sink.gone[b]);
	assert_int_equal(value(f, "ethtool.vmx0.drops"), 4);
	assert_int_equal(value(f, "ethtool.vmx0.resets"), 1);
	c = series_find(&f->reg, "ethtool.vmx0.resets");
	/* The device goes. */
	put_file(root, "vmx0", NULL);
	sample(f);
	assert_true(f->sink.gone[b]);
	assert_true(f->sink.gone[c]);
	stop(f);
	rmdir(path);
	rmdir(root);
}

/* On the host: a device's series are exactly its ethtool_read counters; lo has none. */
static void
test_host(void **state)
{
	struct fixture *f = start("/", NULL);
	struct ethtool_counters ec;
	const char *dev = NULL;
	char prefix[64];
	size_t nseries = 0;
	int fd;

	(void)state;
	sample(f);
	for (size_t id = 0; id < f->reg.n; id++) {
		assert_true(strncmp(f->reg.v[id].name, "ethtool.lo.", 11) != 0);
		if (dev == NULL && strncmp(f->reg.v[id].name, "ethtool.eth0.", 13) == 0)
			dev = "eth0";
	}
	if (dev == NULL) {
		stop(f);
		skip();
	}
	snprintf(prefix, sizeof(prefix), "ethtool.%s.", dev);
	for (size_t id = 0; id < f->reg.n; id++)
		nseries += strncmp(f->reg.v[id].name, prefix, strlen(prefix)) == 0;
	fd = ethtool_socket(NULL);
	ethtool_counters_init(&ec);
	assert_int_equal(ethtool_read(fd, dev, &ec, NULL), 0);
	assert_int_equal(nseries, ec.n);
	ethtool_counters_free(&ec);
	close(fd);
	stop(f);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixtures),
	    cmocka_unit_test(test_names_change),
	    cmocka_unit_test(test_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
