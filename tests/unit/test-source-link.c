/* test-source-link.c: the link source on a fixture /proc/net/dev (exact values, devices
 * vanishing and appearing) and on the host (lo counts a UDP packet to 127.0.0.1). */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "series.h"
#include "sink.h"
#include "source.h"

/* The test double of the sampler's sink: raw values and gone marks by series id. */
#define MAX_IDS 4096
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

/* Set up a link source on root. */
static void
start(struct fixture *f, const char *root)
{
	struct nm_error err;

	memset(f, 0, sizeof(*f));
	series_registry_init(&f->reg);
	f->src.ops = &source_link_ops;
	f->src.index = 3;
	f->src.root = root;
	f->src.host = strcmp(root, "/") == 0;
	f->src.rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(f->src.rootfd >= 0);
	f->src.reg = &f->reg;
	assert_int_equal(source_link_ops.init(&f->src, &err), 0);
}

/* Tear down what start() made. */
static void
stop(struct fixture *f)
{
	source_link_ops.free(&f->src);
	close(f->src.rootfd);
	series_registry_free(&f->reg);
}

/* Sample once, expecting success. */
static void
sample(struct fixture *f)
{
	struct nm_error err;

	memset(&err, 0, sizeof(err));
	if (source_link_ops.sample(&f->src, &f->sink, &err) != 0)
		fail_msg("sample: %s", err.message);
}

/* The last value put for a series (which must exist, be live and have been put). */
static uint64_t
value(struct fixture *f, const char *name)
{
	series_id id = series_find(&f->reg, name);

	if (id == SERIES_NONE)
		fail_msg("no series %s", name);
	assert_true(f->sink.nput[id] > 0);
	assert_false(f->sink.gone[id]);
	return f->sink.val[id];
}

/* Every column of the fixture lands in its series, 64-bit values intact. */
static void
test_procnet_values(void **state)
{
	struct fixture *f = malloc(sizeof(*f));

	(void)state;
	start(f, FIXTURE_DIR "/link");
	sample(f);
	assert_int_equal(value(f, "link.lo.rx_packets"), 1234);
	assert_int_equal(value(f, "link.lo.tx_bytes"), 123456);
	assert_int_equal(value(f, "link.eth0.rx_bytes"), 98765432101ull);
	assert_int_equal(value(f, "link.eth0.rx_packets"), 87654321);
	assert_int_equal(value(f, "link.eth0.rx_errors"), 3);
	assert_int_equal(value(f, "link.eth0.rx_dropped"), 17);
	assert_int_equal(value(f, "link.eth0.rx_fifo_errors"), 1);
	assert_int_equal(value(f, "link.eth0.rx_frame_errors"), 2);
	assert_int_equal(value(f, "link.eth0.rx_compressed"), 0);
	assert_int_equal(value(f, "link.eth0.multicast"), 4321);
	assert_int_equal(value(f, "link.eth0.tx_bytes"), 12345678901ull);
	assert_int_equal(value(f, "link.eth0.tx_packets"), 23456789);
	assert_int_equal(value(f, "link.eth0.tx_errors"), 5);
	assert_int_equal(value(f, "link.eth0.tx_dropped"), 6);
	assert_int_equal(value(f, "link.eth0.tx_fifo_errors"), 7);
	assert_int_equal(value(f, "link.eth0.collisions"), 8);
	assert_int_equal(value(f, "link.eth0.tx_carrier_errors"), 9);
	assert_int_equal(value(f, "link.eth0.tx_compressed"), 10);
	assert_true(value(f, "link.ens1f0np0.rx_bytes") == UINT64_MAX);
	assert_int_equal(value(f, "link.ens1f0np0.rx_packets"), 4294967296ull);
	assert_int_equal(value(f, "link.ens1f0np0.tx_bytes"), 4294967295ull);
	assert_int_equal(value(f, "link.veth-a.100.rx_packets"), 0);
	/* Statistics /proc/net/dev lacks are not invented. */
	assert_int_equal(series_find(&f->reg, "link.eth0.rx_nohandler"), SERIES_NONE);
	assert_int_equal(series_find(&f->reg, "link.eth0.rx_crc_errors"), SERIES_NONE);
	/* 4 devices x 16 columns, with kind and unit. */
	assert_int_equal(f->reg.n, 64);
	{
		const struct series_info *si =
		    series_get(&f->reg, series_find(&f->reg, "link.eth0.rx_bytes"));
		assert_int_equal(si->kind, SERIES_COUNTER);
		assert_int_equal(si->source, 3);
		assert_string_equal(si->unit, "bytes");
		si = series_get(&f->reg, series_find(&f->reg, "link.eth0.tx_packets"));
		assert_string_equal(si->unit, "packets");
	}
	/* A second sample puts the same values again. */
	sample(f);
	assert_int_equal(f->sink.nput[series_find(&f->reg, "link.eth0.rx_packets")], 2);
	{
		json_object *o = source_link_ops.describe(&f->src);
		assert_string_equal(json_object_get_string(json_object_object_get(o, "method")),
		                    "proc/net/dev");
		assert_int_equal(json_object_get_int(json_object_object_get(o, "devices")), 4);
		json_object_put(o);
	}
	stop(f);
	free(f);
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
	struct fixture *f = malloc(sizeof(*f));
	char tmp[] = "/tmp/test-source-link.XXXXXX", path[128];
	series_id a, b, c;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	snprintf(path, sizeof(path), "%s/proc", tmp);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/net", tmp);
	mkdir(path, 0755);
	write_procnet(tmp, "  vA: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
	                   "  vB: 10 20 0 0 0 0 0 0 30 40 0 0 0 0 0 0\n");
	start(f, tmp);
	sample(f);
	a = series_find(&f->reg, "link.vA.rx_packets");
	b = series_find(&f->reg, "link.vB.rx_packets");
	assert_int_equal(f->sink.val[a], 2);
	assert_int_equal(f->sink.val[b], 20);
	/* vB leaves, vC arrives, a torn line and a short line are ignored. */
	write_procnet(tmp, "  vA: 101 102 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
	                   "  vC: 5 6 0 0 0 0 0 0 7 8 0 0 0 0 0 0\n"
	                   "  vD: 1 2 3\n"
	                   "garbage without colon\n");
	sample(f);
	c = series_find(&f->reg, "link.vC.tx_packets");
	assert_int_equal(f->sink.val[a], 102);
	assert_true(f->sink.gone[b]);
	assert_true(f->sink.gone[series_find(&f->reg, "link.vB.tx_bytes")]);
	assert_false(f->sink.gone[a]);
	assert_int_equal(f->sink.val[c], 8);
	assert_int_equal(series_find(&f->reg, "link.vD.rx_packets"), SERIES_NONE);
	/* vB comes back: its series are revived with the same ids. */
	write_procnet(tmp, "  vB: 11 21 0 0 0 0 0 0 30 40 0 0 0 0 0 0\n");
	sample(f);
	assert_int_equal(series_find(&f->reg, "link.vB.rx_packets"), b);
	assert_false(f->sink.gone[b]);
	assert_int_equal(f->sink.val[b], 21);
	assert_true(f->sink.gone[a]);
	stop(f);
	snprintf(path, sizeof(path), "%s/proc/net/dev", tmp);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc/net", tmp);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/proc", tmp);
	rmdir(path);
	rmdir(tmp);
	free(f);
}

/* On the host: lo's rx_packets grows after a UDP datagram to 127.0.0.1. */
static void
test_host_lo(void **state)
{
	struct fixture *f = malloc(sizeof(*f));
	struct sockaddr_in to = {.sin_family = AF_INET};
	uint64_t before, after;
	int fd;

	(void)state;
	start(f, "/");
	sample(f);
	if (series_find(&f->reg, "link.lo.rx_packets") == SERIES_NONE) {
		stop(f);
		free(f);
		skip();
	}
	before = value(f, "link.lo.rx_packets");
	/* 24 statistics for lo, all from the netlink dump. */
	assert_true(series_find(&f->reg, "link.lo.rx_nohandler") != SERIES_NONE);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(fd >= 0);
	to.sin_port = htons(9); /* discard: the packet is counted even if nobody listens */
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (sendto(fd, "x", 1, 0, (struct sockaddr *)&to, sizeof(to)) != 1) {
		close(fd);
		stop(f);
		free(f);
		skip(); /* lo is down here */
	}
	close(fd);
	sample(f);
	after = value(f, "link.lo.rx_packets");
	assert_true(after >= before + 1);
	stop(f);
	free(f);
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
