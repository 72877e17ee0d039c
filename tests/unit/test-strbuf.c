/* test-strbuf.c: the growable byte buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "strbuf.h"

/* A new buffer owns nothing; the first add makes it a NUL-terminated string. */
static void
test_init_and_add(void **state)
{
	struct strbuf sb = STRBUF_INIT, sb2;

	(void)state;
	assert_null(sb.buf);
	assert_int_equal(sb.len, 0);
	assert_int_equal(sb.cap, 0);
	strbuf_init(&sb2);
	assert_null(sb2.buf);
	assert_int_equal(sb2.len, 0);

	strbuf_addstr(&sb, "hello");
	assert_string_equal(sb.buf, "hello");
	assert_int_equal(sb.len, 5);
	assert_true(sb.cap > sb.len);
	strbuf_addch(&sb, ',');
	strbuf_addch(&sb, ' ');
	strbuf_add(&sb, "world!!!", 5);
	assert_string_equal(sb.buf, "hello, world");
	assert_int_equal(sb.len, 12);

	/* An empty add still gives a string. */
	strbuf_add(&sb2, "", 0);
	assert_non_null(sb2.buf);
	assert_string_equal(sb2.buf, "");
	assert_int_equal(sb2.len, 0);

	strbuf_free(&sb);
	strbuf_free(&sb2);
	assert_null(sb.buf);
	assert_int_equal(sb.len, 0);
	assert_int_equal(sb.cap, 0);
}

/* Bytes may include NULs; len counts them. */
static void
test_binary(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_add(&sb, "a\0b", 3);
	strbuf_addch(&sb, '\0');
	assert_int_equal(sb.len, 4);
	assert_memory_equal(sb.buf, "a\0b\0", 5);
	strbuf_free(&sb);
}

/* Formatting, including output far larger than the first allocation. */
static void
test_addf(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char big[5000];
	size_t i;

	(void)state;
	strbuf_addf(&sb, "%d-%s-%05.1f", 42, "x", 2.25);
	assert_string_equal(sb.buf, "42-x-002.2");
	assert_int_equal(sb.len, 10);
	strbuf_addf(&sb, "%s", "");
	assert_int_equal(sb.len, 10);

	memset(big, 'z', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	strbuf_addf(&sb, "[%s]", big);
	assert_int_equal(sb.len, 10 + 2 + 4999);
	assert_int_equal(strlen(sb.buf), sb.len);
	assert_memory_equal(sb.buf, "42-x-002.2[zzz", 14);
	assert_int_equal(sb.buf[sb.len - 1], ']');
	assert_true(sb.cap > sb.len);

	/* Many small appends. */
	strbuf_reset(&sb);
	for (i = 0; i < 10000; i++)
		strbuf_addf(&sb, "%zu,", i % 10);
	assert_int_equal(sb.len, 20000);
	assert_memory_equal(sb.buf, "0,1,2,3,4,5,6,7,8,9,0,", 22);
	assert_memory_equal(sb.buf + 19996, "8,9,", 5);
	strbuf_free(&sb);
}

/* reset empties but keeps the memory. */
static void
test_reset(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *mem;
	size_t cap;

	(void)state;
	strbuf_reset(&sb); /* on an empty buffer */
	assert_null(sb.buf);
	strbuf_addstr(&sb, "some text");
	mem = sb.buf;
	cap = sb.cap;
	strbuf_reset(&sb);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");
	assert_ptr_equal(sb.buf, mem);
	assert_int_equal(sb.cap, cap);
	strbuf_addstr(&sb, "new");
	assert_string_equal(sb.buf, "new");
	strbuf_free(&sb);
}

/* consume drops a prefix, as a line reader does after each line. */
static void
test_consume(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_consume(&sb, 3); /* on an empty buffer */
	assert_int_equal(sb.len, 0);

	strbuf_addstr(&sb, "line1\nline2\npartial");
	strbuf_consume(&sb, 6);
	assert_string_equal(sb.buf, "line2\npartial");
	assert_int_equal(sb.len, 13);
	strbuf_consume(&sb, 0);
	assert_string_equal(sb.buf, "line2\npartial");
	strbuf_consume(&sb, 6);
	assert_string_equal(sb.buf, "partial");
	assert_int_equal(sb.len, 7);
	strbuf_addstr(&sb, " more");
	assert_string_equal(sb.buf, "partial more");
	strbuf_consume(&sb, sb.len);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");
	strbuf_addstr(&sb, "abc");
	strbuf_consume(&sb, 100);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");
	strbuf_free(&sb);
}

/* detach hands over the string and leaves an empty buffer. */
static void
test_detach(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = 99;
	char *s;

	(void)state;
	strbuf_addstr(&sb, "owned");
	s = strbuf_detach(&sb, &len);
	assert_string_equal(s, "owned");
	assert_int_equal(len, 5);
	assert_null(sb.buf);
	assert_int_equal(sb.len, 0);
	assert_int_equal(sb.cap, 0);
	free(s);

	/* Never NULL, even when nothing was added. */
	s = strbuf_detach(&sb, &len);
	assert_non_null(s);
	assert_string_equal(s, "");
	assert_int_equal(len, 0);
	free(s);

	/* len may be NULL; the buffer is reusable afterwards. */
	strbuf_addstr(&sb, "x");
	s = strbuf_detach(&sb, NULL);
	assert_string_equal(s, "x");
	free(s);
	strbuf_addstr(&sb, "again");
	assert_string_equal(sb.buf, "again");
	strbuf_free(&sb);
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_init_and_add), cmocka_unit_test(test_binary),
	    cmocka_unit_test(test_addf),         cmocka_unit_test(test_reset),
	    cmocka_unit_test(test_consume),      cmocka_unit_test(test_detach),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
