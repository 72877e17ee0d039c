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

/* A value that ends the text, in a buffer that ends there too: no byte past it is read (ASan
 * watches), whatever its length, on a first parse and on the next ones (the same names). */
static void
test_parse_value_at_end(void **state)
{
	static const char *const texts[] = {
	    "     a: 1",         "     a: 1234567", "     a: 12345678",
	    "     a: 123456789", "     a: 1234568", "     a: 12345679",
	};
	struct ethtool_counters ec;

	(void)state;
	ethtool_counters_init(&ec);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		size_t len = strlen(texts[i]);
		char *buf = malloc(len);

		memcpy(buf, texts[i], len); /* no NUL */
		assert_int_equal(ethtool_parse_text(buf, len, &ec), 0);
		assert_int_equal(ec.n, 1);
		assert_int_equal(ec.values[0], strtoull(texts[i] + 8, NULL, 10));
		free(buf);
	}
	ethtool_counters_free(&ec);
}

/* One line of a generated `ethtool -S` text. */
struct gen_line {
	enum { GEN_COUNTER, GEN_HEADER, GEN_JUNK, GEN_BLANK } kind;
	char name[40]; /* GEN_COUNTER: the name, up to 33 bytes (one past the limit) */
	uint64_t value;
	bool overflow; /* the value is printed as 2^64, which no counter can hold */
	char tail[4];  /* after the value: "", "\r", blanks, or "x" (not a counter then) */
};

#define GEN_MAX_LINES 160

/* A random counter name: mostly short, sometimes holding ": " or as long as allowed, rarely
 * one byte longer (the line is then not a counter). */
static void
gen_name(char *name)
{
	static const char alpha[] = "abcdefghijklmnopqrstuvwxyz_0123456789";
	int r = rand() % 200, len = r == 0 ? 33 : r < 10 ? 32 : 1 + rand() % 20, i;

	for (i = 0; i < len; i++)
		name[i] = alpha[rand() % (int)(sizeof(alpha) - 1)];
	name[len] = '\0';
	if (rand() % 10 == 0 && len > 6)
		memcpy(name + 1, ": ", 2); /* "[3]: rx_packets" style */
}

/* A new value for a counter: a small step (the common case), a step that adds digits,
 * fewer digits, 0, the largest u64, or one past it. */
static void
gen_value(struct gen_line *l)
{
	int r = rand() % 10;

	l->overflow = false;
	if (l->tail[0] == 'x')
		l->tail[0] = '\0'; /* a counter again */
	if (r < 5)
		l->value += (uint64_t)(rand() % 1000);
	else if (r == 5)
		l->value = l->value * 10 + 7;
	else if (r == 6)
		l->value /= 10;
	else if (r == 7)
		l->value = 0;
	else if (r == 8)
		l->value = UINT64_MAX;
	else
		l->overflow = rand() % 20 == 0;
}

/* A random line of the given kind. */
static void
gen_line(struct gen_line *l, int kind)
{
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	if (kind == GEN_COUNTER) {
		gen_name(l->name);
		l->value = (uint64_t)rand() * (uint64_t)(rand() % 100000);
	}
}

/* Write the lines as text into buf; returns its length. */
static size_t
gen_render(const struct gen_line *lines, size_t n, bool final_newline, char *buf)
{
	static const char *const junk[] = {"bogus line", "x: 12y", "name:  ", ": 5", "  a:b 3"};
	size_t off = 0;

	for (size_t i = 0; i < n; i++) {
		const struct gen_line *l = &lines[i];
		switch (l->kind) {
		case GEN_COUNTER:
			if (l->overflow)
				off += (size_t)sprintf(buf + off, "     %s: 18446744073709551616%s",
				                       l->name, l->tail);
			else
				off += (size_t)sprintf(buf + off, "     %s: %llu%s", l->name,
				                       (unsigned long long)l->value, l->tail);
			break;
		case GEN_HEADER:
			off += (size_t)sprintf(buf + off, "NIC statistics:");
			break;
		case GEN_JUNK:
			off += (size_t)sprintf(buf + off, "%s", junk[l->value % 5]);
			break;
		case GEN_BLANK:
			off += (size_t)sprintf(buf + off, "   ");
			break;
		}
		if (i + 1 < n || final_newline)
			buf[off++] = '\n';
	}
	return off;
}

/* Texts that change the way a NIC's do (values, most a small step, some gaining or losing
 * digits) and the ways they should not (renames, lines added and removed, trailing blanks,
 * CRLF, a value past 2^64, a text cut mid-line), each parsed into the same counters, as a
 * source does: the result is what a first parse of the text gives (counters, names, values,
 * skipped lines), it is the generator's (every counter line, in order, with its value), and
 * while the names hold, the changed list is the counters whose value moved, in order. The
 * same texts go through ethtool_parse_text_since into counters of their own, given the text
 * before, as the devlist does: the same counters, values, changed list, skipped lines and
 * generation moves, whichever way each text differs from the one before. */
static void
test_parse_generated(void **state)
{
	struct gen_line lines[GEN_MAX_LINES];
	struct ethtool_counters ec, fresh, since;
	uint64_t *before = calloc(GEN_MAX_LINES, sizeof(*before));
	char *buf = malloc(GEN_MAX_LINES * 80), *prev = malloc(GEN_MAX_LINES * 80);
	size_t n = 0, len, sk, nbefore = 0, prevlen = 0;
	bool final_newline = true, have_prev = false;
	unsigned gen, since_gen;
	unsigned compared = 0, values_only = 0, by_compare = 0;

	(void)state;
	srand(20261130);
	lines[n++].kind = GEN_HEADER;
	while (n < 100)
		gen_line(&lines[n++], GEN_COUNTER);
	ethtool_counters_init(&ec);
	ethtool_counters_init(&since);
	for (int round = 0; round < 4000; round++) {
		int r = rand() % 100;
		size_t i;

		if (r < 70) { /* values move */
			for (int k = 1 + rand() % 30; k > 0; k--) {
				i = (size_t)rand() % n;
				if (lines[i].kind == GEN_COUNTER)
					gen_value(&lines[i]);
			}
		} else if (r < 76) {
			i = (size_t)rand() % n;
			if (lines[i].kind == GEN_COUNTER)
				gen_name(lines[i].name);
		} else if (r < 82 && n < GEN_MAX_LINES) {
			i = (size_t)rand() % (n + 1);
			memmove(&lines[i + 1], &lines[i], (n - i) * sizeof(lines[0]));
			gen_line(&lines[i], rand() % 4 == 0 ? GEN_JUNK + rand() % 2 : GEN_COUNTER);
			n++;
		} else if (r < 88 && n > 1) {
			i = (size_t)rand() % n;
			memmove(&lines[i], &lines[i + 1], (n - i - 1) * sizeof(lines[0]));
			n--;
		} else if (r < 94) {
			i = (size_t)rand() % n;
			snprintf(lines[i].tail, sizeof(lines[i].tail), "%s",
			         (const char *[]){"", "\r", " ", "  ", "x"}[rand() % 5]);
		} else if (r < 97) {
			final_newline = !final_newline;
		}
		len = gen_render(lines, n, final_newline, buf);
		if (r >= 97) /* cut mid-line, this read only */
			len = (size_t)rand() % (len + 1);
		gen = ec.generation;
		since_gen = since.generation;
		sk = ethtool_parse_text(buf, len, &ec);
		ethtool_counters_init(&fresh);
		assert_int_equal(ethtool_parse_text(buf, len, &fresh), sk);
		assert_int_equal(ec.n, fresh.n);
		for (i = 0; i < ec.n; i++) {
			assert_string_equal(ec.names[i], fresh.names[i]);
			assert_int_equal(ec.values[i], fresh.values[i]);
		}
		ethtool_counters_free(&fresh);
		compared += have_prev && since.text_ok && prevlen == since.text_len;
		assert_int_equal(
		    ethtool_parse_text_since(buf, len, have_prev ? prev : NULL, prevlen, &since),
		    sk);
		assert_int_equal(since.n, ec.n);
		assert_int_equal(since.generation != since_gen, ec.generation != gen);
		for (i = 0; i < ec.n; i++) {
			assert_string_equal(since.names[i], ec.names[i]);
			assert_int_equal(since.values[i], ec.values[i]);
		}
		if (ec.generation == gen) {
			assert_int_equal(since.nchanged, ec.nchanged);
			for (i = 0; i < ec.nchanged; i++)
				assert_int_equal(since.changed[i], ec.changed[i]);
		}
		if (r < 70 && have_prev)
			values_only++;
		by_compare += since.text_compared;
		memcpy(prev, buf, len);
		prevlen = len;
		have_prev = true;
		if (ec.generation == gen && round > 0) {
			size_t k = 0;
			assert_int_equal(ec.n, nbefore);
			for (i = 0; i < ec.n; i++) {
				if (ec.values[i] == before[i])
					continue;
				assert_true(k < ec.nchanged);
				assert_int_equal(ec.changed[k], i);
				k++;
			}
			assert_int_equal(k, ec.nchanged);
		}
		memcpy(before, ec.values, ec.n * sizeof(*before));
		nbefore = ec.n;
		if (r < 97) {
			uint32_t k = 0;
			for (i = 0; i < n; i++) {
				const struct gen_line *gl = &lines[i];
				if (gl->kind != GEN_COUNTER || strlen(gl->name) > 32 ||
				    gl->overflow || gl->tail[0] == 'x')
					continue;
				assert_true(k < ec.n);
				assert_string_equal(ec.names[k], gl->name);
				if (ec.values[k] != gl->value)
					fail_msg("round %d counter %u (%s): %llu, written %llu",
					         round, k, gl->name,
					         (unsigned long long)ec.values[k],
					         (unsigned long long)gl->value);
				k++;
			}
			assert_int_equal(k, ec.n);
		}
	}
	/* Nearly every text was compared with the one before (not: the first, and a text after
	 * one past 4 GiB, which there is none of here), and most of those whose values alone
	 * moved took the compare alone (the others: a value past 2^64, a text after a cut one;
	 * 2,437 of 2,775 with this seed). */
	assert_true(compared > 3900);
	assert_true(by_compare * 10 >= values_only * 8);
	ethtool_counters_free(&ec);
	ethtool_counters_free(&since);
	free(before);
	free(buf);
	free(prev);
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
	    cmocka_unit_test(test_parse_generated),  cmocka_unit_test(test_parse_value_at_end),
	    cmocka_unit_test(test_ioctl_vs_tool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
