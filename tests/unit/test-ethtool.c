/* test-ethtool.c: `ethtool -S` text parsing, in full and against the text parsed before
 * (ethtool_parse_text_since), and the ioctl path against the ethtool tool on the host when
 * there is a device with statistics. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

/* A text as lines, edited line by line between parses. */
#define TEXT_MAX_LINES 2048

struct text {
	char *line[TEXT_MAX_LINES]; /* without their '\n' */
	size_t n;
	bool final_nl; /* the last line ends in '\n' */
};

/* Put a formatted line at index at (allocated; the old one freed). */
static void
text_set(struct text *t, size_t at, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	assert_true(at < t->n);
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	free(t->line[at]);
	t->line[at] = strdup(buf);
}

/* Insert an empty line at index at, to be set by text_set. */
static void
text_insert(struct text *t, size_t at)
{
	assert_true(t->n < TEXT_MAX_LINES && at <= t->n);
	memmove(t->line + at + 1, t->line + at, (t->n - at) * sizeof(*t->line));
	t->line[at] = strdup("");
	t->n++;
}

/* Remove the line at index at. */
static void
text_delete(struct text *t, size_t at)
{
	assert_true(at < t->n);
	free(t->line[at]);
	memmove(t->line + at, t->line + at + 1, (t->n - at - 1) * sizeof(*t->line));
	t->n--;
}

/* Free every line. */
static void
text_free(struct text *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->line[i]);
	t->n = 0;
}

/* The lines joined by '\n' into a buffer of exactly *len bytes (no NUL after it, so that a
 * read past the end shows under ASan); the caller frees it. */
static char *
text_join(const struct text *t, size_t *len)
{
	size_t total = 0, off = 0, l;
	char *buf;

	for (size_t i = 0; i < t->n; i++)
		total += strlen(t->line[i]) + 1;
	if (t->n > 0 && !t->final_nl)
		total--;
	buf = malloc(total > 0 ? total : 1);
	for (size_t i = 0; i < t->n; i++) {
		l = strlen(t->line[i]);
		memcpy(buf + off, t->line[i], l);
		off += l;
		if (i + 1 < t->n || t->final_nl)
			buf[off++] = '\n';
	}
	*len = total;
	return buf;
}

/* "NIC statistics:" and n counters rx_queue_I_packets with values from value(i). */
static void
text_device(struct text *t, size_t n, uint64_t (*value)(size_t))
{
	t->n = 0;
	t->final_nl = true;
	text_insert(t, 0);
	text_set(t, 0, "NIC statistics:");
	for (size_t i = 0; i < n; i++) {
		text_insert(t, t->n);
		text_set(t, t->n - 1, "     rx_queue_%zu_packets: %llu", i,
		         (unsigned long long)value(i));
	}
}

/* Values of one to four digits, so that gaining a digit is near at hand. */
static uint64_t
mixed_value(size_t i)
{
	return (i * 37) % 10 == 0 ? 9 : (i * 37) % 2000;
}

/* One device's text parsed two ways: in full each time, and against the text before. */
struct two_ways {
	struct ethtool_counters full, since;
	char *prev; /* a copy of the text parsed last (NULL before the first) */
	size_t prevlen;
};

/* Start with no text parsed. */
static void
two_ways_init(struct two_ways *tw)
{
	ethtool_counters_init(&tw->full);
	ethtool_counters_init(&tw->since);
	tw->prev = NULL;
	tw->prevlen = 0;
}

/* Release both counter sets and the kept text. */
static void
two_ways_free(struct two_ways *tw)
{
	ethtool_counters_free(&tw->full);
	ethtool_counters_free(&tw->since);
	free(tw->prev);
}

/* Fail unless a and b hold the same counters, changes, generation and line places. */
static void
assert_same_counters(const struct ethtool_counters *a, const struct ethtool_counters *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->generation, b->generation);
	assert_int_equal(a->loaded, b->loaded);
	assert_int_equal(a->nchanged, b->nchanged);
	for (uint32_t i = 0; i < a->nchanged; i++)
		assert_int_equal(a->changed[i], b->changed[i]);
	for (uint32_t i = 0; i < a->n; i++) {
		assert_int_equal(a->nlen[i], b->nlen[i]);
		assert_memory_equal(a->names[i], b->names[i], a->nlen[i] + 1u);
		if (a->values[i] != b->values[i])
			fail_msg("%s: %llu in full, %llu against the text before", a->names[i],
			         (unsigned long long)a->values[i],
			         (unsigned long long)b->values[i]);
		/* The places kept for the next parse describe this text in both. */
		assert_int_equal(a->text_lines[i].eol, b->text_lines[i].eol);
		assert_int_equal(a->text_lines[i].skipped, b->text_lines[i].skipped);
	}
	assert_int_equal(a->text_valid, b->text_valid);
	assert_int_equal(a->text_len, b->text_len);
}

/* Parse buf[0..len) both ways (from a copy of exactly len bytes), check that they agree and
 * keep the text for the next step; the number of lines skipped. */
static size_t
two_ways_parse(struct two_ways *tw, const char *buf, size_t len)
{
	char *copy = malloc(len > 0 ? len : 1);
	size_t full, since;

	memcpy(copy, buf, len);
	full = ethtool_parse_text(copy, len, &tw->full);
	since = ethtool_parse_text_since(copy, len, tw->prev, tw->prevlen, &tw->since);
	assert_int_equal(full, since);
	assert_same_counters(&tw->full, &tw->since);
	free(tw->prev);
	tw->prev = copy;
	tw->prevlen = len;
	return full;
}

/* Join t and parse it both ways; the number of lines skipped. */
static size_t
two_ways_text(struct two_ways *tw, const struct text *t)
{
	size_t len, skipped;
	char *buf = text_join(t, &len);

	skipped = two_ways_parse(tw, buf, len);
	free(buf);
	return skipped;
}

/* Fail unless the last parse changed exactly the counters listed (ending with -1). */
static void
assert_changed(const struct ethtool_counters *ec, ...)
{
	va_list ap;
	uint32_t k = 0;
	int i;

	va_start(ap, ec);
	while ((i = va_arg(ap, int)) >= 0) {
		if (k >= ec->nchanged || ec->changed[k] != (uint32_t)i)
			fail_msg("changed[%u] should be %d", k, i);
		k++;
	}
	va_end(ap);
	assert_int_equal(ec->nchanged, k);
}

/* The counter line of counter i (line i + 1 while nothing is inserted before it). */
static void
set_counter(struct text *t, size_t line, size_t i, uint64_t v)
{
	text_set(t, line, "     rx_queue_%zu_packets: %llu", i, (unsigned long long)v);
}

/* Parsing against the text before gives what a full parse gives, through value changes,
 * digits gained and lost, a last line with and without '\n', renames, added and removed
 * lines, headers and bad lines in the middle, and cut texts. */
static void
test_since_steps(void **state)
{
	struct two_ways tw;
	struct ethtool_counters *ec = &tw.since;
	struct text t = {.n = 0};
	unsigned g;

	(void)state;
	two_ways_init(&tw);
	text_device(&t, 300, mixed_value);
	assert_int_equal(mixed_value(2), 74);
	assert_int_equal(mixed_value(10), 9);
	assert_int_equal(two_ways_text(&tw, &t), 0);
	g = ec->generation;
	assert_int_equal(ec->n, 300);
	assert_int_equal(ec->values[151], 1587);

	/* The same text: nothing changed. */
	assert_int_equal(two_ways_text(&tw, &t), 0);
	assert_changed(ec, -1);
	assert_int_equal(ec->generation, g);

	/* One value, same length. */
	set_counter(&t, 101, 100, 1701);
	assert_int_equal(two_ways_text(&tw, &t), 0);
	assert_changed(ec, 100, -1);
	assert_int_equal(ec->values[100], 1701);

	/* A digit gained early moves every line after it; later changes are still found. */
	set_counter(&t, 11, 10, 10);
	set_counter(&t, 251, 250, 7);
	assert_int_equal(two_ways_text(&tw, &t), 0);
	assert_changed(ec, 10, 250, -1);
	assert_int_equal(ec->values[10], 10);
	assert_int_equal(ec->values[250], 7);
	assert_int_equal(ec->values[251], 251 * 37 % 2000);
	assert_int_equal(ec->generation, g);

	/* And lost again, with the last line changed too. */
	set_counter(&t, 11, 10, 9);
	set_counter(&t, 300, 299, 123456);
	assert_int_equal(two_ways_text(&tw, &t), 0);
	assert_changed(ec, 10, 299, -1);
	assert_int_equal(ec->values[299], 123456);

	/* No '\n' after the last line: the same counters. */
	t.final_nl = false;
	assert_int_equal(two_ways_text(&tw, &t), 0);
	assert_changed(ec, -1);
	/* The last value changes there, in place and then gaining a digit. */
	set_counter(&t, 300, 299, 123457);
	assert_int_equal(two_ways_text(&tw, &t), 0);
	assert_changed(ec, 299, -1);
	set_counter(&t, 300, 299, 1234570);
	assert_int_equal(two_ways_text(&tw, &t), 0);
	assert_changed(ec, 299, -1);
	assert_int_equal(ec->values[299], 1234570);
	t.final_nl = true;
	assert_int_equal(two_ways_text(&tw, &t), 0);
	assert_changed(ec, -1);
	assert_int_equal(ec->generation, g);

	/* A new name: a new generation. */
	text_set(&t, 151, "     rx_queue_150_dropped: %llu", (unsigned long long)mixed_value(150));
	assert_int_equal(two_ways_text(&tw, &t), 0);
	assert_int_equal(ec->generation, ++g);
	assert_string_equal(ec->names[150], "rx_queue_150_dropped");
	assert_changed(ec, -1);

	/* A line added in the middle, then removed; then an old one removed and put back. */
	text_insert(&t, 52);
	text_set(&t, 52, "     extra_counter: 5");
	assert_int_equal(two_ways_text(&tw, &t), 0);
	assert_int_equal(ec->generation, ++g);
	assert_int_equal(ec->n, 301);
	assert_string_equal(ec->names[51], "extra_counter");
	assert_int_equal(ec->values[51], 5);
	assert_string_equal(ec->names[300], "rx_queue_299_packets");
	text_delete(&t, 52);
	assert_int_equal(two_ways_text(&tw, &t), 0);
	assert_int_equal(ec->generation, ++g);
	assert_int_equal(ec->n, 300);
	text_delete(&t, 11);
	assert_int_equal(two_ways_text(&tw, &t), 0);
	assert_int_equal(ec->generation, ++g);
	assert_int_equal(ec->n, 299);
	assert_string_equal(ec->names[10], "rx_queue_11_packets");
	text_insert(&t, 11);
	set_counter(&t, 11, 10, 9);
	assert_int_equal(two_ways_text(&tw, &t), 0);
	assert_int_equal(ec->generation, ++g);
	assert_int_equal(ec->n, 300);

	/* A header and a bad line in the middle (only the bad one counts as skipped) and a
	 * blank line: no name changed, so the generation stays; values around them change. */
	text_insert(&t, 121);
	text_set(&t, 121, "Queue stats:");
	text_insert(&t, 202);
	text_set(&t, 202, "     garbage line");
	text_insert(&t, 31);
	set_counter(&t, 6, 5, 1);
	set_counter(&t, 254, 250, 8);
	assert_int_equal(two_ways_text(&tw, &t), 1);
	assert_int_equal(ec->generation, g);
	assert_changed(ec, 5, 250, -1);
	assert_int_equal(ec->values[250], 8);
	/* The same again: the skipped lines are counted though their lines are stepped over. */
	assert_int_equal(two_ways_text(&tw, &t), 1);
	assert_changed(ec, -1);
	/* The header becomes a skipped line of the same length; the last value changes. */
	assert_string_equal(t.line[122], "Queue stats:");
	text_set(&t, 122, "Queue stats!");
	set_counter(&t, 303, 299, 55);
	assert_int_equal(two_ways_text(&tw, &t), 2);
	assert_changed(ec, 299, -1);
	assert_int_equal(two_ways_text(&tw, &t), 2);
	assert_int_equal(ec->generation, g);

	/* Cut in the middle of a value, of a name, then whole again. */
	{
		size_t len, cut;
		char *buf = text_join(&t, &len);
		const char *at = strstr(buf, "rx_queue_201_packets: ");

		assert_non_null(at);
		assert_int_equal(mixed_value(201), 1437);
		cut = (size_t)(at - buf) + strlen("rx_queue_201_packets: ") + 2;
		assert_int_equal(two_ways_parse(&tw, buf, cut), 2);
		assert_int_equal(ec->n, 202);
		assert_int_equal(ec->values[201], 14);
		assert_int_equal(ec->generation, ++g);
		at = strstr(buf, "rx_queue_100_packets: ");
		assert_int_equal(two_ways_parse(&tw, buf, (size_t)(at - buf) + 5), 1);
		assert_int_equal(ec->n, 100);
		assert_int_equal(ec->generation, ++g);
		free(buf);
	}
	assert_int_equal(two_ways_text(&tw, &t), 2);
	assert_int_equal(ec->n, 300);
	assert_int_equal(ec->generation, ++g);

	/* Two identical lines, then one of them gone. */
	text_insert(&t, 80);
	text_set(&t, 80, "%s", t.line[79]);
	assert_int_equal(two_ways_text(&tw, &t), 2);
	assert_int_equal(ec->n, 301);
	text_delete(&t, 79);
	assert_int_equal(two_ways_text(&tw, &t), 2);
	assert_int_equal(ec->n, 300);

	/* Nothing at all, then the text again. */
	assert_int_equal(two_ways_parse(&tw, "", 0), 0);
	assert_int_equal(ec->n, 0);
	assert_int_equal(two_ways_text(&tw, &t), 2);
	assert_int_equal(ec->n, 300);
	assert_int_equal(ec->values[299], 55);

	text_free(&t);
	two_ways_free(&tw);
}

/* The lines are stepped over, not parsed: told a wrong previous text (of the last one's
 * length), the parse keeps the values of the lines it believes unchanged, also after a line
 * that changed in place or gained a digit. A wrong length, or an ioctl read since, makes it
 * parse in full. */
static void
test_since_steps_over(void **state)
{
	static const char a[] = "NIC statistics:\n     a: 1\n     b: 2\n     c: 3\n";
	static const char b[] = "NIC statistics:\n     a: 1\n     b: 7\n     c: 3\n";
	static const char b2[] = "NIC statistics:\n     a: 1\n     b: 77\n     c: 3\n";
	/* Told prev_c9 for a, then prev_c8 for c9: "c" is taken for unchanged (3), after a line
	 * that changed in place and one that gained a digit. */
	static const char prev_c9[] = "NIC statistics:\n     a: 5\n     b: 2\n     c: 9\n";
	static const char c9[] = "NIC statistics:\n     a: 6\n     b: 2\n     c: 9\n";
	static const char prev_c8[] = "NIC statistics:\n     a: 6\n     b: 2\n     c: 8\n";
	static const char c8[] = "NIC statistics:\n     a: 16\n     b: 2\n     c: 8\n";
	struct ethtool_counters ec;
	struct nm_error err;
	int fd;

	(void)state;
	ethtool_counters_init(&ec);
	ethtool_parse_text(a, strlen(a), &ec);
	assert_true(ec.text_valid);
	assert_int_equal(ec.text_len, strlen(a));
	assert_int_equal(ec.text_lines[1].eol, strlen("NIC statistics:\n     a: 1\n     b: 2"));
	/* b told as its own previous text: "b: 7" is taken for unchanged. */
	assert_int_equal(ethtool_parse_text_since(b, strlen(b), b, strlen(b), &ec), 0);
	assert_int_equal(ec.values[1], 2);
	assert_int_equal(ec.nchanged, 0);
	/* The true previous text finds the change. */
	assert_int_equal(ethtool_parse_text_since(b, strlen(b), a, strlen(a), &ec), 0);
	assert_int_equal(ec.values[1], 7);
	assert_changed(&ec, 1, -1);
	/* A previous text of another length than the last parse's: a full parse. */
	assert_int_equal(ethtool_parse_text_since(b2, strlen(b2), b2, strlen(b2), &ec), 0);
	assert_int_equal(ec.values[1], 77);
	assert_changed(&ec, 1, -1);
	/* After a changed line, the walk steps over the unchanged ones again. */
	ethtool_parse_text(a, strlen(a), &ec);
	ethtool_parse_text_since(c9, strlen(c9), prev_c9, strlen(prev_c9), &ec);
	assert_int_equal(ec.values[0], 6);
	assert_int_equal(ec.values[2], 3);
	assert_changed(&ec, 0, -1);
	ethtool_parse_text_since(c8, strlen(c8), prev_c8, strlen(prev_c8), &ec);
	assert_int_equal(ec.values[0], 16);
	assert_int_equal(ec.values[2], 3);
	assert_changed(&ec, 0, -1);
	assert_int_equal(ec.text_lines[2].eol, strlen(c8) - 1);
	/* An ioctl read leaves no text that describes the names (the names forgotten first so
	 * that it reads lo's: none). */
	fd = ethtool_socket(&err);
	assert_true(fd >= 0);
	ec.loaded = false;
	assert_int_equal(ethtool_read(fd, "lo", &ec, &err), 0);
	assert_int_equal(ec.n, 0);
	assert_false(ec.text_valid);
	close(fd);
	ethtool_counters_free(&ec);
}

/* Read DIR/ethtool/DEV.txt after gen-host.py wrote step STEP of its ethtool group. */
static char *
gen_host_text(const char *dir, const char *dev, int step, size_t *len)
{
	char cmd[1024], path[512];

	snprintf(cmd, sizeof(cmd), "python3 -S %s/gen-host.py %s --only ethtool --step %d",
	         FIXTURE_DIR, dir, step);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/ethtool/%s.txt", dir, dev);
	return slurp(path, len);
}

/* gen-host.py's mlx5 ports (144 queues) through steps: eth0's counters all move and gain
 * digits, idle eth1 changes in 145 of 1,306 lines; going back to step 0 looks like a reset. */
static void
test_since_gen_host(void **state)
{
	static const int steps[] = {0, 1, 2, 3, 4, 50, 51, 0, 1, 1, 1000};
	struct two_ways eth0, eth1;
	char dir[] = "/tmp/nm-test-ethtool-XXXXXX", cmd[600], *buf;
	size_t len;
	unsigned g0 = 0, g1 = 0;
	int k, q;

	(void)state;
	assert_non_null(mkdtemp(dir));
	two_ways_init(&eth0);
	two_ways_init(&eth1);
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		k = steps[s];
		buf = gen_host_text(dir, "eth0", k, &len);
		assert_int_equal(two_ways_parse(&eth0, buf, len), 0);
		free(buf);
		snprintf(cmd, sizeof(cmd), "%s/ethtool/eth1.txt", dir);
		buf = slurp(cmd, &len);
		assert_int_equal(two_ways_parse(&eth1, buf, len), 0);
		free(buf);
		assert_int_equal(eth0.since.n, 10 + 144 * 9);
		assert_int_equal(eth1.since.n, 10 + 144 * 9);
		if (s == 0) {
			g0 = eth0.since.generation;
			g1 = eth1.since.generation;
		}
		assert_int_equal(eth0.since.generation, g0);
		assert_int_equal(eth1.since.generation, g1);
		/* rx_packets is the sum over the queues of 1000 (q + 1) + (20000 + 100 q) k. */
		assert_string_equal(eth0.since.names[0], "rx_packets");
		assert_int_equal(eth0.since.values[0], 10440000 + 3909600ull * (uint64_t)k);
		assert_string_equal(eth0.since.names[9], "rx_out_of_buffer");
		assert_int_equal(eth0.since.values[9], 2 * k);
		for (q = 0; q < 144; q += 47) {
			uint32_t ch = 10 + (uint32_t)q, rx = 10 + 144 + 5 * (uint32_t)q;
			assert_int_equal(eth0.since.values[ch], 10000 + 10 * k);
			assert_int_equal(eth1.since.values[ch], 10000 + 10 * k);
			assert_int_equal(eth0.since.values[rx],
			                 1000 * (q + 1) + (20000 + 100 * q) * (uint64_t)k);
			assert_int_equal(eth1.since.values[rx], 1000 * (q + 1));
		}
		if (s > 0 && k != steps[s - 1]) {
			/* eth1: its 144 chQ_events and rx_out_of_buffer. */
			assert_int_equal(eth1.since.nchanged, 145);
			assert_int_equal(eth1.since.changed[0], 9);
			assert_int_equal(eth1.since.changed[144], 10 + 143);
		} else if (s > 0) {
			assert_int_equal(eth0.since.nchanged, 0);
			assert_int_equal(eth1.since.nchanged, 0);
		}
	}
	two_ways_free(&eth0);
	two_ways_free(&eth1);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A small deterministic generator (xorshift64). */
static uint64_t
next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Make one random edit to t: a value changed (often by a digit), a line added, removed,
 * renamed, doubled or blanked, a header or bad line, a final newline toggled. */
static void
random_edit(struct text *t, uint64_t *rs)
{
	size_t at = t->n > 1 ? 1 + next_random(rs) % (t->n - 1) : 0;
	uint64_t r = next_random(rs);

	if (t->n < 2) {
		text_insert(t, t->n);
		text_set(t, t->n - 1, "     new_%llu: %llu", (unsigned long long)(r % 1000),
		         (unsigned long long)(r % 99));
		return;
	}
	switch (r % 12) {
	case 0:
	case 1:
	case 2:
	case 3: /* a value: a small step, or a jump of digits */
		text_set(t, at, "     rx_queue_%zu_packets: %llu", at,
		         (unsigned long long)(r % 4 == 0 ? (r >> 8) % 100000000 : (r >> 8) % 1000));
		break;
	case 4:
		text_insert(t, at);
		text_set(t, at, "     inserted_%llu: %llu", (unsigned long long)(r >> 8) % 50,
		         (unsigned long long)(r >> 16) % 1000);
		break;
	case 5:
		text_delete(t, at);
		break;
	case 6:
		text_set(t, at, "     renamed_%llu: 1", (unsigned long long)(r >> 8) % 50);
		break;
	case 7:
		text_insert(t, at);
		text_set(t, at, "%s", t->line[at + 1]);
		break;
	case 8:
		text_set(t, at, "%s", (r >> 8) % 2 ? "" : "   ");
		break;
	case 9:
		text_insert(t, at);
		text_set(t, at, "%s",
		         (r >> 8) % 3 == 0   ? "Queue:"
		         : (r >> 8) % 3 == 1 ? "bad line"
		                             : "  x: y");
		break;
	case 10:
		t->final_nl = !t->final_nl;
		break;
	default: /* the same line again, unchanged */
		break;
	}
}

/* Random edits, a few per step, and now and then a text cut anywhere: both parses agree at
 * every step. */
static void
test_since_random(void **state)
{
	struct two_ways tw;
	struct text t = {.n = 0};
	uint64_t rs = 0x9e3779b97f4a7c15ull;
	size_t len, edits;
	char *buf;

	(void)state;
	two_ways_init(&tw);
	text_device(&t, 120, mixed_value);
	for (int step = 0; step < 3000; step++) {
		if (step % 500 == 0) {
			text_free(&t);
			text_device(&t, 120, mixed_value);
		}
		edits = next_random(&rs) % 4;
		for (size_t e = 0; e < edits; e++)
			random_edit(&t, &rs);
		buf = text_join(&t, &len);
		if (len > 0 && next_random(&rs) % 10 == 0)
			len = next_random(&rs) % len;
		two_ways_parse(&tw, buf, len);
		free(buf);
	}
	text_free(&t);
	two_ways_free(&tw);
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
	    cmocka_unit_test(test_since_steps),      cmocka_unit_test(test_since_steps_over),
	    cmocka_unit_test(test_since_gen_host),   cmocka_unit_test(test_since_random),
	    cmocka_unit_test(test_ioctl_vs_tool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
