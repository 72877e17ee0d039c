/* test-ethtool.c: `ethtool -S` text parsing, and the ioctl path against the ethtool tool on the
 * host when there is a device with statistics. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "ethtool.h"

/* Read a whole file into a NUL-terminated buffer the caller frees. */
static char *
slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "r");
	char *buf;
	long n;

	if (fp == NULL)
		fail_msg("cannot open %s", path);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	*len = (size_t)n;
	return buf;
}

/* Parse s into ec; the number of skipped lines. */
static size_t
parse(struct ethtool_counters *ec, const char *s)
{
	return ethtool_parse_text(s, strlen(s), ec);
}

/* The index of the counter named name, or -1. */
static int
find(const struct ethtool_counters *ec, const char *name)
{
	for (uint32_t i = 0; i < ec->n; i++)
		if (strcmp(ec->names[i], name) == 0)
			return (int)i;
	return -1;
}

/* Names holding ": " keep everything before the last one; the header is not a counter. */
static void
test_parse_colons(void **state)
{
	struct ethtool_counters ec;

	(void)state;
	ethtool_counters_init(&ec);
	assert_int_equal(parse(&ec, "NIC statistics:\n"
	                            "     rx_packets: 12\n"
	                            "     [0]: rx_ucast_packets: 1000\n"
	                            "     [12]: tx_bcast_bytes: 18446744073709551615\n"
	                            "     rxq3: rx_pkts: 7\n"
	                            "     rx-0.rx_packets: 5\n"
	                            "     Tx Queue#: 0\n"),
	                 0);
	assert_int_equal(ec.n, 6);
	assert_string_equal(ec.names[0], "rx_packets");
	assert_int_equal(ec.values[0], 12);
	assert_string_equal(ec.names[1], "[0]: rx_ucast_packets");
	assert_int_equal(ec.values[1], 1000);
	assert_string_equal(ec.names[2], "[12]: tx_bcast_bytes");
	assert_true(ec.values[2] == UINT64_MAX);
	assert_string_equal(ec.names[3], "rxq3: rx_pkts");
	assert_int_equal(ec.values[3], 7);
	assert_string_equal(ec.names[4], "rx-0.rx_packets");
	/* vmxnet3's queue headers look like counters; the caller decides what they mean. */
	assert_string_equal(ec.names[5], "Tx Queue#");
	assert_int_equal(ec.values[5], 0);
	ethtool_counters_free(&ec);
}

/* Bad lines are skipped and counted; names up to 32 bytes are kept, longer ones are not. */
static void
test_parse_malformed(void **state)
{
	struct ethtool_counters ec;

	(void)state;
	ethtool_counters_init(&ec);
	assert_int_equal(parse(&ec, "NIC statistics:\n"
	                            "\n"
	                            "     no_value:\n"
	                            "     not_a_number: 12x\n"
	                            "     negative: -1\n"
	                            "     too_big: 18446744073709551616\n"
	                            "     no separator 17\n"
	                            "     : 5\n"
	                            "     abcdefghijklmnopqrstuvwxyz012345: 32\n"
	                            "     abcdefghijklmnopqrstuvwxyz0123456: 33\n"
	                            "\tspaced  :  9  \r\n"
	                            "     last_without_newline: 4"),
	                 6);
	assert_int_equal(ec.n, 3);
	assert_string_equal(ec.names[0], "abcdefghijklmnopqrstuvwxyz012345");
	assert_int_equal(ec.values[0], 32);
	assert_string_equal(ec.names[1], "spaced  ");
	assert_int_equal(ec.values[1], 9);
	assert_string_equal(ec.names[2], "last_without_newline");
	assert_int_equal(ec.values[2], 4);
	ethtool_counters_free(&ec);
}

/* The generation moves when names change, not when values do. */
static void
test_parse_generation(void **state)
{
	struct ethtool_counters ec;
	unsigned g;

	(void)state;
	ethtool_counters_init(&ec);
	parse(&ec, "NIC statistics:\n     a: 1\n     b: 2\n");
	g = ec.generation;
	assert_true(ec.loaded);
	parse(&ec, "NIC statistics:\n     a: 10\n     b: 20\n");
	assert_int_equal(ec.generation, g);
	assert_int_equal(ec.values[1], 20);
	parse(&ec, "NIC statistics:\n     a: 10\n     c: 20\n");
	assert_int_equal(ec.generation, g + 1);
	parse(&ec, "NIC statistics:\n     a: 10\n");
	assert_int_equal(ec.generation, g + 2);
	assert_int_equal(ec.n, 1);
	parse(&ec, "NIC statistics:\n     a: 10\n     c: 1\n     d: 2\n");
	assert_int_equal(ec.generation, g + 3);
	assert_string_equal(ec.names[2], "d");
	/* Growing past the first allocation keeps everything. */
	{
		char *big = malloc(1000 * 32);
		size_t off = (size_t)sprintf(big, "NIC statistics:\n");
		for (int i = 0; i < 1000; i++)
			off +=
			    (size_t)sprintf(big + off, "     rx_queue_%d_packets: %d\n", i, i * 3);
		parse(&ec, big);
		assert_int_equal(ec.n, 1000);
		assert_string_equal(ec.names[999], "rx_queue_999_packets");
		assert_int_equal(ec.values[999], 2997);
		free(big);
	}
	ethtool_counters_free(&ec);
}

/* Every fixture parses cleanly; spot values. */
static void
test_parse_fixtures(void **state)
{
	static const struct {
		const char *file;
		uint32_t n;
		const char *name;
		uint64_t value;
	} cases[] = {
	    {"mlx5.txt", 121, "rx_prio0_packets", 1234567},
	    {"ixgbe.txt", 84, "rx_queue_3_bytes", 60000},
	    {"i40e.txt", 49, "tx-1.tx_packets", 2100},
	    {"iavf.txt", 20, "rx-1.packets", 428},
	    {"ena.txt", 64, "queue_2_rx_cnt", 220},
	    {"bnxt.txt", 60, "[1]: rx_bcast_packets", 5},
	    {"be2net.txt", 60, "rxq0: rx_pkts", 400},
	    {"virtio.txt", 20, "rx0_kicks", UINT64_MAX},
	};
	char path[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ethtool_counters ec;
		size_t len;
		char *buf;
		int k;

		snprintf(path, sizeof(path), "%s/ethtool/%s", FIXTURE_DIR, cases[i].file);
		buf = slurp(path, &len);
		ethtool_counters_init(&ec);
		assert_int_equal(ethtool_parse_text(buf, len, &ec), 0);
		if (ec.n != cases[i].n)
			fail_msg("%s: %u counters, expected %u", cases[i].file, ec.n, cases[i].n);
		k = find(&ec, cases[i].name);
		assert_true(k >= 0);
		if (cases[i].value != UINT64_MAX)
			assert_int_equal(ec.values[k], cases[i].value);
		ethtool_counters_free(&ec);
		free(buf);
	}
}

/* A device of this host with statistics, or NULL. */
static const char *
host_device(int fd, char *name, size_t size)
{
	struct ethtool_counters ec;
	struct dirent *de;
	DIR *d = opendir("/sys/class/net");
	const char *found = NULL;

	if (d == NULL)
		return NULL;
	while (found == NULL && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= size)
			continue;
		ethtool_counters_init(&ec);
		if (ethtool_read(fd, de->d_name, &ec, NULL) == 0 && ec.n > 0) {
			snprintf(name, size, "%s", de->d_name);
			found = name;
		}
		ethtool_counters_free(&ec);
	}
	closedir(d);
	return found;
}

/* The ioctl path gives the names `ethtool -S` prints, and values that never go back. */
static void
test_ioctl_vs_tool(void **state)
{
	struct ethtool_counters ec, text;
	struct nm_error err;
	char name[32], cmd[128], *out = NULL;
	size_t cap = 0, len = 0, n;
	FILE *p;
	int fd;

	(void)state;
	fd = ethtool_socket(&err);
	assert_true(fd >= 0);
	/* lo has no statistics: 0 counters, not an error. */
	ethtool_counters_init(&ec);
	assert_int_equal(ethtool_read(fd, "lo", &ec, &err), 0);
	assert_int_equal(ec.n, 0);
	ethtool_counters_free(&ec);
	/* A device that does not exist. */
	ethtool_counters_init(&ec);
	assert_int_equal(ethtool_read(fd, "nm-no-such0", &ec, &err), -1);
	assert_int_equal(err.code, NM_ERR_NOT_FOUND);
	ethtool_counters_free(&ec);

	if (host_device(fd, name, sizeof(name)) == NULL || access("/usr/sbin/ethtool", X_OK) != 0) {
		close(fd);
		skip();
	}
	snprintf(cmd, sizeof(cmd), "/usr/sbin/ethtool -S %s", name);
	p = popen(cmd, "r");
	assert_non_null(p);
	out = malloc(cap = 1 << 20);
	while ((n = fread(out + len, 1, cap - len - 1, p)) > 0)
		len += n;
	out[len] = '\0';
	pclose(p);
	ethtool_counters_init(&text);
	ethtool_parse_text(out, len, &text);
	ethtool_counters_init(&ec);
	assert_int_equal(ethtool_read(fd, name, &ec, &err), 0);
	assert_int_equal(ec.n, text.n);
	for (uint32_t i = 0; i < ec.n; i++) {
		assert_string_equal(ec.names[i], text.names[i]);
		/* Counters never go back (other names may be levels: a temperature). */
		if (strstr(ec.names[i], "packets") != NULL || strstr(ec.names[i], "bytes") != NULL)
			assert_true(ec.values[i] >= text.values[i]);
	}
	/* Reading again keeps the names (no new generation) and allocates nothing new. */
	{
		unsigned g = ec.generation;
		ethtool_name *names = ec.names;
		assert_int_equal(ethtool_read(fd, name, &ec, &err), 0);
		assert_int_equal(ec.generation, g);
		assert_ptr_equal(ec.names, names);
	}
	{
		char drv[32];
		int ifindex = 0;
		bool lo = true;
		assert_int_equal(ethtool_driver(fd, name, drv, sizeof(drv)), 0);
		assert_true(drv[0] != '\0');
		assert_int_equal(ethtool_ifindex(fd, name, &ifindex, &lo), 0);
		assert_true(ifindex > 0);
		assert_false(lo);
	}
	ethtool_counters_free(&ec);
	ethtool_counters_free(&text);
	free(out);
	close(fd);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_colons),     cmocka_unit_test(test_parse_malformed),
	    cmocka_unit_test(test_parse_generation), cmocka_unit_test(test_parse_fixtures),
	    cmocka_unit_test(test_ioctl_vs_tool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
