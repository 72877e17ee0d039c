/* test-utf8.c: UTF-8 validation and the sanitiser for text from children and files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "utf8.h"

struct sanitize_case {
	const char *in;
	size_t len; /* 0: strlen(in) */
	unsigned flags;
	const char *want;
};

/* Each kind of bad byte and control character, and what it becomes. */
static void
test_sanitize_table(void **state)
{
	static const struct sanitize_case cases[] = {
	    {"plain ascii", 0, 0, "plain ascii"},
	    {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0, 0,
	     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
	    {"\xff", 0, 0, "\\xFF"},
	    {"a\x80z", 0, 0, "a\\x80z"},                             /* a lone continuation byte */
	    {"\xc0\xaf", 0, 0, "\\xC0\\xAF"},                        /* overlong '/' */
	    {"\xe0\x80\xaf", 0, 0, "\\xE0\\x80\\xAF"},               /* overlong, three bytes */
	    {"\xed\xa0\x80", 0, 0, "\\xED\\xA0\\x80"},               /* a surrogate */
	    {"\xf4\x90\x80\x80", 0, 0, "\\xF4\\x90\\x80\\x80"},      /* above U+10FFFF */
	    {"x\xe2\x82", 0, 0, "x\\xE2\\x82"},                      /* cut mid-character */
	    {"\xe2\x82z", 0, 0, "\\xE2\\x82z"},                      /* broken, then text */
	    {"\x1b[31mred\x07", 0, 0, "\\x1B[31mred\\x07"},          /* ESC, BEL */
	    {"a\rb\x7f", 0, 0, "a\\x0Db\\x7F"},                      /* CR, DEL */
	    {"l1\nl2\tx", 0, 0, "l1\\x0Al2\\x09x"},                  /* newline escaped in a line */
	    {"l1\nl2\tx\r", 0, UTF8_KEEP_NEWLINE, "l1\nl2\tx\\x0D"}, /* kept in text */
	    {"\xc2\x9b"
	     "2J",
	     0, 0, "\\u009B2J"},            /* C1 CSI */
	    {"\xc2\xa0", 0, 0, "\xc2\xa0"}, /* U+00A0 is no control */
	    {"a\0b", 3, 0, "a\\x00b"},      /* a NUL byte */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sanitize_case *c = &cases[i];
		size_t len = c->len ? c->len : strlen(c->in);
		char out[128], *dup;
		size_t n = utf8_sanitize(out, sizeof(out), c->in, len, c->flags);

		assert_string_equal(out, c->want);
		assert_int_equal(n, strlen(c->want));
		assert_true(utf8_valid(out, n));
		assert_int_equal(utf8_needs_sanitize(c->in, len, c->flags),
		                 strcmp(c->in, c->want) != 0 || len != strlen(c->in));
		dup = utf8_sanitize_dup(c->in, len, c->flags);
		assert_string_equal(dup, c->want);
		free(dup);
	}
}

/* A short buffer cuts between characters and escapes, never inside one. */
static void
test_cut_at_boundary(void **state)
{
	char out[8];

	(void)state;
	/* "a" + e-acute (2 bytes) needs 3 + NUL: with 3 bytes only "a" fits. */
	assert_int_equal(utf8_sanitize(out, 3, "a\xc3\xa9", 3, 0), 1);
	assert_string_equal(out, "a");
	assert_int_equal(utf8_sanitize(out, 4, "a\xc3\xa9", 3, 0), 3);
	assert_string_equal(out, "a\xc3\xa9");
	/* A four-byte emoji does not fit in 3 bytes + NUL. */
	assert_int_equal(utf8_sanitize(out, 4, "\xf0\x9f\x98\x80", 4, 0), 0);
	assert_string_equal(out, "");
	/* An escape is four bytes, whole or not at all. */
	assert_int_equal(utf8_sanitize(out, 6, "ab\x1b", 3, 0), 2);
	assert_string_equal(out, "ab");
	assert_int_equal(utf8_sanitize(out, 7, "ab\x1b", 3, 0), 6);
	assert_string_equal(out, "ab\\x1B");
	/* size 1: only the NUL. */
	assert_int_equal(utf8_sanitize(out, 1, "abc", 3, 0), 0);
	assert_string_equal(out, "");
}

/* Arbitrary bytes always come out valid, without control characters, within the size. */
static void
test_random_bytes(void **state)
{
	uint32_t x = 12345;
	char in[300], out[257], *dup;

	(void)state;
	for (int round = 0; round < 20000; round++) {
		size_t len = 1 + round % sizeof(in), n;
		for (size_t i = 0; i < len; i++) {
			x = x * 1103515245u + 12345u;
			/* Mostly high bytes and controls: the interesting ones. */
			in[i] = (char)((x >> 16) & 0xff);
		}
		n = utf8_sanitize(out, sizeof(out), in, len, 0);
		assert_true(n < sizeof(out));
		assert_int_equal(strlen(out), n);
		assert_true(utf8_valid(out, n));
		for (size_t i = 0; i < n; i++)
			assert_true((unsigned char)out[i] >= 0x20 && out[i] != 0x7f);
		assert_false(utf8_needs_sanitize(out, n, 0));
		dup = utf8_sanitize_dup(in, len, 0);
		assert_true(utf8_valid(dup, strlen(dup)));
		/* The buffer's copy is the start of the whole one. */
		assert_memory_equal(out, dup, n);
		free(dup);
	}
}

/* utf8_seqlen on each kind of start byte. */
static void
test_seqlen(void **state)
{
	(void)state;
	assert_int_equal(utf8_seqlen("", 0), 0);
	assert_int_equal(utf8_seqlen("a", 1), 1);
	assert_int_equal(utf8_seqlen("\xc3\xa9", 2), 2);
	assert_int_equal(utf8_seqlen("\xc3\xa9", 1), 0);
	assert_int_equal(utf8_seqlen("\xe2\x82\xac", 3), 3);
	assert_int_equal(utf8_seqlen("\xf0\x9f\x98\x80", 4), 4);
	assert_int_equal(utf8_seqlen("\xf5\x80\x80\x80", 4), 0);
	assert_int_equal(utf8_seqlen("\xc1\x81", 2), 0);
	assert_true(utf8_valid("", 0));
	assert_false(utf8_valid("ok\xff", 3));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sanitize_table),
	    cmocka_unit_test(test_cut_at_boundary),
	    cmocka_unit_test(test_random_bytes),
	    cmocka_unit_test(test_seqlen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
