/* test-frame.c: line framing: partial lines, several lines, the limit, CRLF, UTF-8. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

/* Pop one line and check it equals want. */
static void
expect_line(struct frame_reader *fr, const char *want)
{
	const char *line = NULL;
	size_t len = 0;

	assert_int_equal(frame_pop(fr, &line, &len), FRAME_LINE);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(line, want, len);
	assert_int_equal(line[len], '\0');
}

/* Pop and check that no complete line is left. */
static void
expect_none(struct frame_reader *fr)
{
	const char *line = NULL;
	size_t len = 0;

	assert_int_equal(frame_pop(fr, &line, &len), FRAME_NONE);
}

/* Pop and check the status without caring about a line. */
static void
expect_status(struct frame_reader *fr, enum frame_status want)
{
	const char *line = NULL;
	size_t len = 0;

	assert_int_equal(frame_pop(fr, &line, &len), want);
}

/* Feed a C string. */
static void
feed(struct frame_reader *fr, const char *s)
{
	frame_feed(fr, s, strlen(s));
}

/* A line split over three feeds comes out whole, once. */
static void
test_partial_three_feeds(void **state)
{
	struct frame_reader fr;

	(void)state;
	frame_init(&fr, PROTO_MAX_REQUEST);
	feed(&fr, "{\"cmd\":");
	expect_none(&fr);
	assert_int_equal(frame_pending(&fr), 7);
	feed(&fr, "\"sta");
	expect_none(&fr);
	assert_int_equal(frame_pending(&fr), 11);
	feed(&fr, "tus\"}\n");
	expect_line(&fr, "{\"cmd\":\"status\"}");
	expect_none(&fr);
	assert_int_equal(frame_pending(&fr), 0);
	frame_free(&fr);
}

/* Several lines in one feed are popped one by one, and the unfinished rest waits. */
static void
test_several_in_one_feed(void **state)
{
	struct frame_reader fr;

	(void)state;
	frame_init(&fr, PROTO_MAX_REQUEST);
	feed(&fr, "{\"id\":1,\"cmd\":\"hello\"}\n{\"id\":2,\"cmd\":\"status\"}\n{\"id\":3,\"cm");
	expect_line(&fr, "{\"id\":1,\"cmd\":\"hello\"}");
	expect_line(&fr, "{\"id\":2,\"cmd\":\"status\"}");
	expect_none(&fr);
	assert_int_equal(frame_pending(&fr), strlen("{\"id\":3,\"cm"));
	feed(&fr, "d\":\"hello\"}\n");
	expect_line(&fr, "{\"id\":3,\"cmd\":\"hello\"}");
	expect_none(&fr);
	frame_free(&fr);
}

/* Many lines, fed and popped in turns, keep their order and content. */
static void
test_many_lines_order(void **state)
{
	struct frame_reader fr;
	char line[64], want[64];
	int i, j;

	(void)state;
	frame_init(&fr, 100);
	for (i = 0; i < 1000; i += 10) {
		for (j = i; j < i + 10; j++) {
			snprintf(line, sizeof(line), "line %d\n", j);
			feed(&fr, line);
		}
		for (j = i; j < i + 10; j++) {
			snprintf(want, sizeof(want), "line %d", j);
			expect_line(&fr, want);
		}
		expect_none(&fr);
	}
	/* Everything was popped, so the buffer never had to hold more than ten lines. */
	assert_true(fr.cap <= 256);
	frame_free(&fr);
}

/* n bytes of c followed by a newline (feed n + 1 bytes for a line); the caller frees. */
static char *
make_line(size_t n, char c)
{
	char *s = malloc(n + 2);

	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\n';
	s[n + 1] = '\0';
	return s;
}

/* A line of exactly the limit is accepted. */
static void
test_exact_limit(void **state)
{
	struct frame_reader fr;
	char *big = make_line(PROTO_MAX_REQUEST, 'a');
	const char *line;
	size_t len;

	(void)state;
	frame_init(&fr, PROTO_MAX_REQUEST);
	frame_feed(&fr, big, PROTO_MAX_REQUEST + 1);
	assert_int_equal(frame_pop(&fr, &line, &len), FRAME_LINE);
	assert_int_equal(len, PROTO_MAX_REQUEST);
	assert_memory_equal(line, big, PROTO_MAX_REQUEST);
	expect_none(&fr);
	frame_free(&fr);
	free(big);
}

/* One byte over the limit: one FRAME_TOO_LONG, and the next line is parsed as usual. */
static void
test_over_limit(void **state)
{
	struct frame_reader fr;
	char *big = make_line(PROTO_MAX_REQUEST + 1, 'a');

	(void)state;
	frame_init(&fr, PROTO_MAX_REQUEST);
	frame_feed(&fr, big, PROTO_MAX_REQUEST + 2);
	feed(&fr, "{\"cmd\":\"hello\"}\n");
	expect_status(&fr, FRAME_TOO_LONG);
	expect_line(&fr, "{\"cmd\":\"hello\"}");
	expect_none(&fr);
	frame_free(&fr);
	free(big);
}

/* The limit is reported as soon as it is passed, before the newline, and only once. */
static void
test_over_limit_early(void **state)
{
	struct frame_reader fr;
	char *big = make_line(PROTO_MAX_REQUEST + 1, 'b');

	(void)state;
	frame_init(&fr, PROTO_MAX_REQUEST);
	feed(&fr, "{\"cmd\":\"hello\"}\n");
	frame_feed(&fr, big, PROTO_MAX_REQUEST + 1); /* no newline yet */
	expect_line(&fr, "{\"cmd\":\"hello\"}");
	expect_status(&fr, FRAME_TOO_LONG);
	expect_none(&fr);
	frame_feed(&fr, big, 1000);
	expect_none(&fr);
	feed(&fr, "tail of the long line\n{\"cmd\":\"status\"}\n");
	expect_line(&fr, "{\"cmd\":\"status\"}");
	expect_none(&fr);
	frame_free(&fr);
	free(big);
}

/* Over-long lines between good ones in one feed keep their place in the stream. */
static void
test_over_limit_order(void **state)
{
	struct frame_reader fr;

	(void)state;
	frame_init(&fr, 8);
	feed(&fr, "one\n0123456789\ntwo\nabcdefghijklmnop\nthree\n12345678\n");
	expect_line(&fr, "one");
	expect_status(&fr, FRAME_TOO_LONG);
	expect_line(&fr, "two");
	expect_status(&fr, FRAME_TOO_LONG);
	expect_line(&fr, "three");
	expect_line(&fr, "12345678");
	expect_none(&fr);
	frame_free(&fr);
}

/* An over-long line whose newline arrives before any pop is reported once, in order. */
static void
test_over_limit_across_feeds(void **state)
{
	struct frame_reader fr;

	(void)state;
	frame_init(&fr, 8);
	feed(&fr, "one\n0123");
	feed(&fr, "456789xyz");
	feed(&fr, "more\ntwo\n");
	expect_line(&fr, "one");
	expect_status(&fr, FRAME_TOO_LONG);
	expect_line(&fr, "two");
	expect_none(&fr);
	frame_free(&fr);
}

/* 1 MiB without a newline never holds more than limit + 1 bytes. */
static void
test_megabyte_bounded(void **state)
{
	struct frame_reader fr;
	char chunk[4096];
	size_t i;
	int too_long = 0;
	const char *line;
	size_t len;
	enum frame_status st;

	(void)state;
	memset(chunk, 'x', sizeof(chunk));
	frame_init(&fr, PROTO_MAX_REQUEST);
	for (i = 0; i < (1 << 20) / sizeof(chunk); i++) {
		frame_feed(&fr, chunk, sizeof(chunk));
		assert_true(frame_pending(&fr) <= PROTO_MAX_REQUEST + 1);
		assert_true(fr.len - fr.scan <= PROTO_MAX_REQUEST + 1);
		while ((st = frame_pop(&fr, &line, &len)) != FRAME_NONE) {
			assert_int_equal(st, FRAME_TOO_LONG);
			too_long++;
		}
	}
	assert_int_equal(too_long, 1);
	assert_true(fr.cap <= 2 * (PROTO_MAX_REQUEST + 1));

	/* The same megabyte in one feed. */
	frame_free(&fr);
	frame_init(&fr, PROTO_MAX_REQUEST);
	{
		char *mb = make_line(1 << 20, 'y');

		frame_feed(&fr, mb, 1 << 20);
		assert_true(frame_pending(&fr) <= PROTO_MAX_REQUEST + 1);
		assert_true(fr.cap <= 2 * (PROTO_MAX_REQUEST + 1));
		expect_status(&fr, FRAME_TOO_LONG);
		expect_none(&fr);
		feed(&fr, "\n{\"cmd\":\"hello\"}\n");
		expect_line(&fr, "{\"cmd\":\"hello\"}");
		free(mb);
	}
	frame_free(&fr);
}

/* CRLF line ends are accepted and the '\r' is stripped. */
static void
test_crlf(void **state)
{
	struct frame_reader fr;

	(void)state;
	frame_init(&fr, PROTO_MAX_REQUEST);
	feed(&fr, "{\"cmd\":\"hello\"}\r\n{\"cmd\":\"status\"}\r");
	expect_line(&fr, "{\"cmd\":\"hello\"}");
	expect_none(&fr);
	feed(&fr, "\n");
	expect_line(&fr, "{\"cmd\":\"status\"}");
	/* Only one '\r' before the newline belongs to the line end. */
	feed(&fr, "a\r\r\n");
	expect_line(&fr, "a\r");
	expect_none(&fr);
	frame_free(&fr);
}

/* Empty lines (and bare CRLFs) are skipped. */
static void
test_empty_lines(void **state)
{
	struct frame_reader fr;

	(void)state;
	frame_init(&fr, PROTO_MAX_REQUEST);
	feed(&fr, "\n\n\r\n");
	expect_none(&fr);
	feed(&fr, "\nx\n\n\ny\n\n");
	expect_line(&fr, "x");
	expect_line(&fr, "y");
	expect_none(&fr);
	frame_free(&fr);
}

/* A complete line that is not UTF-8 is reported and dropped; the next one is fine. */
static void
test_bad_utf8_line(void **state)
{
	struct frame_reader fr;

	(void)state;
	frame_init(&fr, PROTO_MAX_REQUEST);
	feed(&fr, "{\"cmd\":\"\xc0\x80\"}\n{\"cmd\":\"hello\"}\n");
	expect_status(&fr, FRAME_BAD_UTF8);
	expect_line(&fr, "{\"cmd\":\"hello\"}");
	expect_none(&fr);
	frame_free(&fr);
}

struct utf8_case {
	const char *bytes;
	size_t len;
	bool valid;
};

#define U8(s, v)                                                                                   \
	{                                                                                          \
		s, sizeof(s) - 1, v                                                                \
	}

/* The validator against a table of valid and invalid sequences. */
static void
test_utf8_table(void **state)
{
	static const struct utf8_case cases[] = {
	    U8("", true),
	    U8("plain ascii {}", true),
	    U8("\x00", true),
	    U8("caf\xc3\xa9", true),       /* U+00E9 */
	    U8("\xe2\x82\xac", true),      /* U+20AC */
	    U8("\xed\x9f\xbf", true),      /* U+D7FF, just below the surrogates */
	    U8("\xee\x80\x80", true),      /* U+E000, just above them */
	    U8("\xef\xbf\xbf", true),      /* U+FFFF */
	    U8("\xf0\x90\x80\x80", true),  /* U+10000 */
	    U8("\xf0\x9f\x98\x80", true),  /* U+1F600 */
	    U8("\xf4\x8f\xbf\xbf", true),  /* U+10FFFF */
	    U8("\xc0\x80", false),         /* overlong NUL */
	    U8("\xc1\xbf", false),         /* overlong 2-byte */
	    U8("\xe0\x80\xaf", false),     /* overlong 3-byte '/' */
	    U8("\xe0\x9f\xbf", false),     /* overlong 3-byte */
	    U8("\xf0\x80\x80\xaf", false), /* overlong 4-byte */
	    U8("\xf0\x8f\xbf\xbf", false), /* overlong 4-byte */
	    U8("\xed\xa0\x80", false),     /* U+D800 surrogate */
	    U8("\xed\xbf\xbf", false),     /* U+DFFF surrogate */
	    U8("\xf4\x90\x80\x80", false), /* U+110000 */
	    U8("\xf5\x80\x80\x80", false), /* lead byte past U+10FFFF */
	    U8("\xff", false),             /* never in UTF-8 */
	    U8("\xc3", false),             /* truncated 2-byte */
	    U8("\xe2\x82", false),         /* truncated 3-byte */
	    U8("\xf0\x9f\x98", false),     /* truncated 4-byte */
	    U8("ab\xe2\x82", false),       /* truncated at the end */
	    U8("\xe2\x82x", false),        /* cut short by ASCII */
	    U8("\x80", false),             /* stray continuation */
	    U8("a\xbf"
	       "b",
	       false),                 /* stray continuation inside */
	    U8("\xc3\xa9\xa9", false), /* one continuation too many */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (frame_utf8_valid(cases[i].bytes, cases[i].len) != cases[i].valid)
			fail_msg("case %zu: expected %s", i, cases[i].valid ? "valid" : "invalid");
	}
}

/* Random lines fed in random chunks come out as a whole-stream split says they should. */
static void
test_random_chunking(void **state)
{
	enum { LIMIT = 40, NLINES = 3000 };
	struct frame_reader fr;
	static char stream[NLINES * (LIMIT + 12)];
	static int want_status[NLINES];
	static size_t want_off[NLINES], want_len[NLINES];
	size_t slen = 0, nwant = 0, got = 0, off = 0, i, n, chunk;
	enum frame_status st;
	const char *line;
	size_t len;

	(void)state;
	srandom(12345);
	/* Build the stream and what a reader must report for it. */
	for (i = 0; i < NLINES; i++) {
		size_t start = slen;

		n = (size_t)random() % (LIMIT + 10);
		while (slen - start < n)
			stream[slen++] = (char)('a' + random() % 26);
		if (random() % 4 == 0)
			stream[slen++] = '\r';
		stream[slen++] = '\n';
		n = slen - start - 1; /* bytes before the newline */
		if (n > LIMIT) {
			want_status[nwant++] = FRAME_TOO_LONG;
			continue;
		}
		if (n > 0 && stream[start + n - 1] == '\r')
			n--;
		if (n == 0)
			continue;
		want_status[nwant] = FRAME_LINE;
		want_off[nwant] = start;
		want_len[nwant++] = n;
	}
	frame_init(&fr, LIMIT);
	while (off < slen) {
		chunk = 1 + (size_t)random() % (3 * LIMIT);
		if (chunk > slen - off)
			chunk = slen - off;
		frame_feed(&fr, stream + off, chunk);
		off += chunk;
		assert_true(frame_pending(&fr) <= LIMIT + 1);
		/* Sometimes leave lines unpopped so the buffer holds several across feeds. */
		if (off < slen && random() % 3 == 0)
			continue;
		while ((st = frame_pop(&fr, &line, &len)) != FRAME_NONE) {
			assert_true(got < nwant);
			assert_int_equal(st, want_status[got]);
			if (st == FRAME_LINE) {
				assert_int_equal(len, want_len[got]);
				assert_memory_equal(line, stream + want_off[got], len);
			}
			got++;
		}
	}
	assert_int_equal(got, nwant);
	frame_free(&fr);
}

/* A reader can be freed and initialised again, and a fresh one pops nothing. */
static void
test_init_free(void **state)
{
	struct frame_reader fr;

	(void)state;
	frame_init(&fr, 16);
	expect_none(&fr);
	assert_int_equal(frame_pending(&fr), 0);
	frame_free(&fr);
	frame_free(&fr);
	frame_init(&fr, 16);
	feed(&fr, "x\n");
	expect_line(&fr, "x");
	frame_free(&fr);
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_partial_three_feeds),
	    cmocka_unit_test(test_several_in_one_feed),
	    cmocka_unit_test(test_many_lines_order),
	    cmocka_unit_test(test_exact_limit),
	    cmocka_unit_test(test_over_limit),
	    cmocka_unit_test(test_over_limit_early),
	    cmocka_unit_test(test_over_limit_order),
	    cmocka_unit_test(test_over_limit_across_feeds),
	    cmocka_unit_test(test_megabyte_bounded),
	    cmocka_unit_test(test_crlf),
	    cmocka_unit_test(test_empty_lines),
	    cmocka_unit_test(test_bad_utf8_line),
	    cmocka_unit_test(test_utf8_table),
	    cmocka_unit_test(test_random_chunking),
	    cmocka_unit_test(test_init_free),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
