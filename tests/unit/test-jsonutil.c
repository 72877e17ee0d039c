/* test-jsonutil.c: bounded JSON parsing, typed lookups, builders and output. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "jsonutil.h"
#include "utf8.h"

/* n nested arrays around inner ("" for none), e.g. nest(2, "1") is "[[1]]". */
static const char *
nest(int n, const char *inner)
{
	static char buf[1024];
	size_t k = 0;
	int i;

	for (i = 0; i < n; i++)
		buf[k++] = '[';
	k += (size_t)snprintf(buf + k, sizeof buf - k, "%s", inner);
	for (i = 0; i < n; i++)
		buf[k++] = ']';
	buf[k] = '\0';
	return buf;
}

/* Parse s (all of it) at max_depth, expecting success. */
static json_object *
parse_ok(const char *s, int max_depth)
{
	char errbuf[256] = "";
	json_object *obj = json_parse_bounded(s, strlen(s), max_depth, errbuf, sizeof errbuf);

	if (obj == NULL)
		fail_msg("json_parse_bounded(\"%s\", %d): %s", s, max_depth, errbuf);
	return obj;
}

/* Parse buf[0..len) at max_depth, expecting failure with a message containing want. */
static void
parse_fails(const char *buf, size_t len, int max_depth, const char *want)
{
	char errbuf[256] = "";
	json_object *obj = json_parse_bounded(buf, len, max_depth, errbuf, sizeof errbuf);

	if (obj != NULL) {
		json_object_put(obj);
		fail_msg("json_parse_bounded(\"%.*s\", %d) accepted it", (int)len, buf, max_depth);
	}
	if (strstr(errbuf, want) == NULL)
		fail_msg("message for \"%.*s\" is \"%s\", lacks \"%s\"", (int)len, buf, errbuf,
		         want);
}

/* Containers may nest exactly max_depth deep, whatever is innermost. */
static void
test_depth(void **state)
{
	const char *s;

	(void)state;
	json_object_put(parse_ok(nest(16, ""), 16));
	json_object_put(parse_ok(nest(16, "1"), 16));
	json_object_put(parse_ok(nest(16, "{}"), 17));
	s = nest(17, "");
	parse_fails(s, strlen(s), 16, "JSON nested deeper than 16");
	s = nest(17, "1");
	parse_fails(s, strlen(s), 16, "JSON nested deeper than 16");
	s = nest(16, "{}");
	parse_fails(s, strlen(s), 16, "JSON nested deeper than 16");
	s = nest(40, "");
	parse_fails(s, strlen(s), 16, "JSON nested deeper than 16");
	s = nest(16, "{\"a\":1}");
	parse_fails(s, strlen(s), 16, "JSON nested deeper than 16");

	/* Objects count as arrays do; a deep branch is found beside a shallow one. */
	json_object_put(parse_ok("{\"a\":{\"b\":{\"c\":[1,2]}}}", 4));
	parse_fails("{\"a\":{\"b\":{\"c\":[1,2]}}}", 23, 3, "nested deeper than 3");
	json_object_put(parse_ok("[1,[2,[3]],{}]", 3));
	parse_fails("[1,[2,[3]],{}]", 14, 2, "nested deeper than 2");
	parse_fails("[[],{\"x\":[[]]}]", 15, 3, "nested deeper than 3");

	/* Depth 0 allows only scalars. */
	json_object_put(parse_ok("\"s\"", 0));
	parse_fails("[]", 2, 0, "nested deeper than 0");
	parse_fails("{}", 2, 0, "nested deeper than 0");
	json_object_put(parse_ok("[]", 1));
}

/* Anything but whitespace after the value is refused. */
static void
test_trailing(void **state)
{
	(void)state;
	parse_fails("{} x", 4, 16, "byte 3");
	parse_fails("{}{}", 4, 16, "byte 2");
	parse_fails("{}]", 3, 16, "byte 2");
	parse_fails("1 2", 3, 16, "byte 2");
	parse_fails("\"a\"b", 4, 16, "byte 3");
	parse_fails("{}\0", 3, 16, "byte 2");
	parse_fails("{}\n\0", 4, 16, "byte 3");
	parse_fails("{} \n{}", 6, 16, "byte 4");
}

/* Whitespace around the value is accepted; the buffer needn't be NUL-terminated. */
static void
test_whitespace(void **state)
{
	json_object *obj;
	char errbuf[64];

	(void)state;
	obj = parse_ok(" \t{\"a\": [1, 2] }\r\n\t ", 16);
	assert_true(json_object_is_type(obj, json_type_object));
	assert_int_equal(json_object_array_length(json_object_object_get(obj, "a")), 2);
	json_object_put(obj);

	obj = parse_ok("{}\n", 16);
	json_object_put(obj);

	/* Only the first len bytes are read. */
	obj = json_parse_bounded("{\"n\":5}garbage", 7, 16, errbuf, sizeof errbuf);
	assert_non_null(obj);
	assert_int_equal(json_get_int(obj, "n", 0), 5);
	json_object_put(obj);
	obj = json_parse_bounded("12345", 3, 16, errbuf, sizeof errbuf);
	assert_non_null(obj);
	assert_int_equal(json_object_get_int64(obj), 123);
	json_object_put(obj);
}

/* Scalars at the top level, which json-c finishes only at the end of the input. */
static void
test_scalars(void **state)
{
	json_object *obj;

	(void)state;
	obj = parse_ok("42", 16);
	assert_true(json_object_is_type(obj, json_type_int));
	assert_int_equal(json_object_get_int64(obj), 42);
	json_object_put(obj);
	obj = parse_ok("-1.5e3", 16);
	assert_true(json_object_is_type(obj, json_type_double));
	assert_true(json_object_get_double(obj) == -1500.0);
	json_object_put(obj);
	obj = parse_ok("true", 16);
	assert_true(json_object_get_boolean(obj));
	json_object_put(obj);
	obj = parse_ok("\"x\"", 16);
	assert_string_equal(json_object_get_string(obj), "x");
	json_object_put(obj);
	obj = parse_ok("7 ", 16);
	assert_int_equal(json_object_get_int64(obj), 7);
	json_object_put(obj);
}

/* Malformed and incomplete input. */
static void
test_bad_input(void **state)
{
	char errbuf[8];

	(void)state;
	parse_fails("", 0, 16, "bad JSON");
	parse_fails("   ", 3, 16, "bad JSON");
	parse_fails("{\"a\":", 5, 16, "bad JSON");
	parse_fails("[1", 2, 16, "bad JSON");
	parse_fails("tru", 3, 16, "bad JSON");
	parse_fails("[1,]", 4, 16, "bad JSON");
	parse_fails("{\"a\" 1}", 7, 16, "bad JSON");
	parse_fails("\"\xff\"", 3, 16, "bad JSON");
	parse_fails("\"\xc3\"", 3, 16, "bad JSON");
	/* NULL or tiny error buffers are fine. */
	assert_null(json_parse_bounded("[", 1, 16, NULL, 0));
	assert_null(json_parse_bounded("[", 1, 16, errbuf, sizeof errbuf));
	assert_int_equal(strlen(errbuf), sizeof errbuf - 1);
	assert_null(json_parse_bounded(NULL, 0, 16, errbuf, sizeof errbuf));
}

/* Typed lookups return the member or the default. */
static void
test_getters(void **state)
{
	json_object *obj;

	(void)state;
	obj = parse_ok("{\"s\":\"str\",\"i\":-12,\"big\":9223372036854775807,\"d\":2.5,"
	               "\"b\":true,\"f\":false,\"n\":null,\"a\":[1],\"o\":{}}",
	               16);
	assert_string_equal(json_get_string(obj, "s", "def"), "str");
	assert_string_equal(json_get_string(obj, "i", "def"), "def");
	assert_string_equal(json_get_string(obj, "n", "def"), "def");
	assert_string_equal(json_get_string(obj, "missing", "def"), "def");
	assert_null(json_get_string(obj, "missing", NULL));

	assert_int_equal(json_get_int(obj, "i", 0), -12);
	assert_true(json_get_int(obj, "big", 0) == INT64_MAX);
	assert_int_equal(json_get_int(obj, "d", 99), 99);
	assert_int_equal(json_get_int(obj, "s", 99), 99);
	assert_int_equal(json_get_int(obj, "b", 99), 99);
	assert_int_equal(json_get_int(obj, "missing", -5), -5);

	assert_true(json_get_double(obj, "d", 0) == 2.5);
	assert_true(json_get_double(obj, "i", 0) == -12.0);
	assert_true(json_get_double(obj, "s", 0.25) == 0.25);
	assert_true(json_get_double(obj, "missing", 0.5) == 0.5);

	assert_true(json_get_bool(obj, "b", false));
	assert_false(json_get_bool(obj, "f", true));
	assert_true(json_get_bool(obj, "i", true));
	assert_false(json_get_bool(obj, "n", false));
	assert_true(json_get_bool(obj, "missing", true));

	/* Not an object, or no object at all: always the default. */
	assert_int_equal(json_get_int(json_object_object_get(obj, "a"), "0", 3), 3);
	assert_string_equal(json_get_string(NULL, "s", "d"), "d");
	assert_int_equal(json_get_int(NULL, "i", 4), 4);
	assert_true(json_get_double(NULL, "d", 1.0) == 1.0);
	assert_false(json_get_bool(NULL, "b", false));
	json_object_put(obj);
}

/* Builders and the one-line output, byte for byte. */
static void
test_build_and_line(void **state)
{
	json_object *obj, *back;
	const char *line;
	size_t len;

	(void)state;
	obj = json_object_new_object();
	assert_ptr_equal(json_add_string(obj, "path", "/run/netmetrics.sock"), obj);
	json_add_int(obj, "neg", -5);
	json_add_int(obj, "min", INT64_MIN);
	json_add_uint(obj, "max", UINT64_MAX);
	json_add_double(obj, "d", 1.5);
	json_add_bool(obj, "t", true);
	json_add_bool(obj, "f", false);
	json_add_string(obj, "null", NULL);
	json_add_double(obj, "nan", NAN);
	json_add_double(obj, "inf", -INFINITY);
	json_add_string(obj, "esc", "a\"b\\c\n\xc3\xa9");
	line = json_to_line(obj, &len);
	assert_string_equal(line, "{\"path\":\"/run/netmetrics.sock\",\"neg\":-5,"
	                          "\"min\":-9223372036854775808,\"max\":18446744073709551615,"
	                          "\"d\":1.5,\"t\":true,\"f\":false,\"null\":null,\"nan\":null,"
	                          "\"inf\":null,\"esc\":\"a\\\"b\\\\c\\n\xc3\xa9\"}");
	assert_int_equal(len, strlen(line));
	assert_ptr_equal(json_to_line(obj, NULL), line);

	/* Adding a key again replaces it. */
	json_add_int(obj, "neg", 6);
	assert_int_equal(json_get_int(obj, "neg", 0), 6);

	/* The line parses back to the same values. */
	line = json_to_line(obj, &len);
	back = json_parse_bounded(line, len, 1, NULL, 0);
	assert_non_null(back);
	assert_string_equal(json_get_string(back, "path", NULL), "/run/netmetrics.sock");
	assert_true(json_get_int(back, "min", 0) == INT64_MIN);
	assert_true(json_object_get_uint64(json_object_object_get(back, "max")) == UINT64_MAX);
	assert_true(json_get_double(back, "d", 0) == 1.5);
	assert_string_equal(json_get_string(back, "esc", NULL), "a\"b\\c\n\xc3\xa9");
	json_object_put(back);
	json_object_put(obj);

	obj = json_object_new_object();
	assert_string_equal(json_to_line(obj, &len), "{}");
	assert_int_equal(len, 2);
	json_object_put(obj);
}

/* Run every test in this file. */
/* A string member made of a child's bytes (not UTF-8, cut mid-character) is stored escaped,
 * so that the line parses back; a valid one is stored as it is, controls and all. */
static void
test_add_string_not_utf8(void **state)
{
	json_object *o = json_object_new_object(), *back;
	char msg[256];
	size_t len;
	const char *line;

	(void)state;
	json_add_string(o, "stderr", "bad \xff byte, cut \xe2\x82");
	json_add_string(o, "ok", "caf\xc3\xa9\x1b");
	line = json_to_line(o, &len);
	back = json_parse_bounded(line, len, 8, msg, sizeof(msg));
	assert_non_null(back);
	assert_string_equal(json_get_string(back, "stderr", ""), "bad \\xFF byte, cut \\xE2\\x82");
	assert_string_equal(json_get_string(back, "ok", ""), "caf\xc3\xa9\x1b");
	json_object_put(back);
	json_object_put(o);
}

/* For people: every string, member names too, is escaped in place. */
static void
test_sanitize_strings(void **state)
{
	char msg[256];
	const char *text = "{\"a\\u001b[2J\":[\"x\\u0007\",{\"r\":\"l1\\nl2\"}],\"n\":5}";
	json_object *o = json_parse_bounded(text, strlen(text), 8, msg, sizeof(msg)), *a;

	(void)state;
	assert_non_null(o);
	json_sanitize_strings(o, UTF8_KEEP_NEWLINE);
	assert_false(json_object_object_get_ex(o, "a\x1b[2J", NULL));
	assert_true(json_object_object_get_ex(o, "a\\x1B[2J", &a));
	assert_string_equal(json_object_get_string(json_object_array_get_idx(a, 0)), "x\\x07");
	assert_string_equal(json_get_string(json_object_array_get_idx(a, 1), "r", ""), "l1\nl2");
	assert_int_equal(json_get_int(o, "n", 0), 5);
	json_object_put(o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_depth),
	    cmocka_unit_test(test_trailing),
	    cmocka_unit_test(test_whitespace),
	    cmocka_unit_test(test_scalars),
	    cmocka_unit_test(test_bad_input),
	    cmocka_unit_test(test_getters),
	    cmocka_unit_test(test_build_and_line),
	    cmocka_unit_test(test_add_string_not_utf8),
	    cmocka_unit_test(test_sanitize_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
