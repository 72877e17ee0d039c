/* test-args.c: argument schema checks for every type and bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "jsonutil.h"
#include "proto.h"

/* A command with one argument of every type; only "name" is required. */
static const struct proto_command test_cmd = {
    .name = "test",
    .flags = PROTO_READONLY,
    .summary = "a command for tests",
    .usage = "",
    .args =
        {
            {.name = "name",
             .type = PROTO_ARG_STRING,
             .required = true,
             .max_len = 8,
             .help = "a short name"},
            {.name = "text", .type = PROTO_ARG_STRING, .help = "a string of default length"},
            {.name = "last", .type = PROTO_ARG_INT, .min = 1, .max = 86400, .help = "seconds"},
            {.name = "count", .type = PROTO_ARG_INT, .help = "unbounded"},
            {.name = "big",
             .type = PROTO_ARG_INT,
             .min = 0,
             .max = 9007199254740992.0,
             .help = "up to 2^53"},
            {.name = "ratio", .type = PROTO_ARG_NUMBER, .min = 0, .max = 1.5, .help = "a fraction"},
            {.name = "any", .type = PROTO_ARG_NUMBER, .help = "any number"},
            {.name = "dry_run", .type = PROTO_ARG_BOOL, .help = "only show"},
            {.name = "globs", .type = PROTO_ARG_STRINGS, .max_len = 4, .help = "patterns"},
            {.name = "cpus", .type = PROTO_ARG_CPULIST, .help = "a CPU list"},
            {.name = "extra", .type = PROTO_ARG_OBJECT, .help = "anything"},
        },
};

/* Check the arguments in JSON text json against test_cmd; want NULL means they pass,
 * else the check must fail with bad_args and exactly that message. */
static void
check(const char *json, const char *want)
{
	json_object *args = json_tokener_parse(json);
	struct nm_error err;
	int rc;

	assert_non_null(args);
	nm_error_clear(&err);
	rc = proto_args_check(&test_cmd, args, &err);
	if (want == NULL && rc != 0)
		fail_msg("%s: refused: %s", json, err.message);
	if (want != NULL) {
		if (rc != -1)
			fail_msg("%s: accepted", json);
		assert_int_equal(err.code, NM_ERR_BAD_ARGS);
		if (strcmp(err.message, want) != 0)
			fail_msg("%s: got \"%s\", want \"%s\"", json, err.message, want);
	}
	json_object_put(args);
}

/* Check like check(), but only that the message starts with prefix. */
static void
check_prefix(const char *json, const char *prefix)
{
	json_object *args = json_tokener_parse(json);
	struct nm_error err;

	assert_non_null(args);
	nm_error_clear(&err);
	assert_int_equal(proto_args_check(&test_cmd, args, &err), -1);
	assert_int_equal(err.code, NM_ERR_BAD_ARGS);
	if (strncmp(err.message, prefix, strlen(prefix)) != 0)
		fail_msg("%s: got \"%s\", want it to start with \"%s\"", json, err.message, prefix);
	json_object_put(args);
}

/* NULL and {} are fine for a command without required arguments; not for one with. */
static void
test_null_and_empty(void **state)
{
	const struct proto_command *status = proto_command_find("status");
	const struct proto_command *cancel = proto_command_find("cancel");
	json_object *empty = json_object_new_object();
	struct nm_error err;

	(void)state;
	assert_non_null(status);
	assert_non_null(cancel);
	assert_int_equal(proto_args_check(status, NULL, &err), 0);
	assert_int_equal(proto_args_check(status, empty, &err), 0);
	assert_int_equal(proto_args_check(cancel, NULL, &err), -1);
	assert_int_equal(err.code, NM_ERR_BAD_ARGS);
	assert_string_equal(err.message, "missing required argument \"id\"");
	assert_int_equal(proto_args_check(cancel, empty, &err), -1);
	assert_string_equal(err.message, "missing required argument \"id\"");
	json_object_put(empty);
	check("{}", "missing required argument \"name\"");
	check("{\"last\":5}", "missing required argument \"name\"");
}

/* Arguments that are not an object. */
static void
test_not_object(void **state)
{
	static const char *const bad[] = {"[]", "3", "\"x\"", "true"};
	const struct proto_command *status = proto_command_find("status");
	struct nm_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_object *args = json_tokener_parse(bad[i]);

		assert_int_equal(proto_args_check(status, args, &err), -1);
		assert_int_equal(err.code, NM_ERR_BAD_ARGS);
		assert_string_equal(err.message,
		                    "arguments of command \"status\" must be an object");
		json_object_put(args);
	}
}

/* Unknown arguments are named together with the command. */
static void
test_unknown(void **state)
{
	const struct proto_command *status = proto_command_find("status");
	json_object *args = json_tokener_parse("{\"foo\":1}");
	struct nm_error err;

	(void)state;
	assert_int_equal(proto_args_check(status, args, &err), -1);
	assert_int_equal(err.code, NM_ERR_BAD_ARGS);
	assert_string_equal(err.message, "unknown argument \"foo\" for command \"status\"");
	json_object_put(args);
	check("{\"name\":\"a\",\"Last\":5}", "unknown argument \"Last\" for command \"test\"");
	/* An unknown member is reported even when a required one is missing too. */
	check("{\"foo\":1}", "unknown argument \"foo\" for command \"test\"");
}

/* Strings: type, length limit (explicit and default), NUL bytes. */
static void
test_string(void **state)
{
	char json[PROTO_MAX_STRING + 64], s[PROTO_MAX_STRING + 2];

	(void)state;
	check("{\"name\":\"\"}", NULL);
	check("{\"name\":\"12345678\"}", NULL);
	check("{\"name\":\"123456789\"}", "argument \"name\": the string must be at most 8 bytes");
	check("{\"name\":\"\\u00e9\\u00e9\\u00e9\\u00e9\"}", NULL); /* 8 bytes */
	check("{\"name\":\"\\u00e9\\u00e9\\u00e9\\u00e9x\"}",
	      "argument \"name\": the string must be at most 8 bytes");
	check("{\"name\":5}", "argument \"name\": must be a string");
	check("{\"name\":null}", "argument \"name\": must be a string");
	check("{\"name\":[\"a\"]}", "argument \"name\": must be a string");
	check("{\"name\":\"a\\u0000b\"}", "argument \"name\": the string contains a NUL byte");

	memset(s, 'x', PROTO_MAX_STRING);
	s[PROTO_MAX_STRING] = '\0';
	snprintf(json, sizeof(json), "{\"name\":\"a\",\"text\":\"%s\"}", s);
	check(json, NULL);
	s[PROTO_MAX_STRING] = 'x';
	s[PROTO_MAX_STRING + 1] = '\0';
	snprintf(json, sizeof(json), "{\"name\":\"a\",\"text\":\"%s\"}", s);
	check(json, "argument \"text\": the string must be at most 4096 bytes");
}

/* Integers: type, both bounds, unbounded, 2^53 exactly, beyond int64. */
static void
test_int(void **state)
{
	(void)state;
	check("{\"name\":\"a\",\"last\":1}", NULL);
	check("{\"name\":\"a\",\"last\":86400}", NULL);
	check("{\"name\":\"a\",\"last\":0}",
	      "argument \"last\": must be an integer between 1 and 86400");
	check("{\"name\":\"a\",\"last\":86401}",
	      "argument \"last\": must be an integer between 1 and 86400");
	check("{\"name\":\"a\",\"last\":-5}",
	      "argument \"last\": must be an integer between 1 and 86400");
	check("{\"name\":\"a\",\"last\":2.5}",
	      "argument \"last\": must be an integer between 1 and 86400");
	check("{\"name\":\"a\",\"last\":60.0}",
	      "argument \"last\": must be an integer between 1 and 86400");
	check("{\"name\":\"a\",\"last\":\"60\"}",
	      "argument \"last\": must be an integer between 1 and 86400");
	check("{\"name\":\"a\",\"last\":true}",
	      "argument \"last\": must be an integer between 1 and 86400");
	check("{\"name\":\"a\",\"count\":-9223372036854775808}", NULL);
	check("{\"name\":\"a\",\"count\":9223372036854775807}", NULL);
	check("{\"name\":\"a\",\"count\":1.0}", "argument \"count\": must be an integer");
	check("{\"name\":\"a\",\"big\":9007199254740992}", NULL);
	check("{\"name\":\"a\",\"big\":9007199254740993}",
	      "argument \"big\": must be an integer between 0 and 9007199254740992");
	check("{\"name\":\"a\",\"big\":18446744073709551615}",
	      "argument \"big\": must be an integer between 0 and 9007199254740992");
	check("{\"name\":\"a\",\"big\":-1}",
	      "argument \"big\": must be an integer between 0 and 9007199254740992");
}

/* Numbers: integers and fractions within bounds, non-numbers. */
static void
test_number(void **state)
{
	(void)state;
	check("{\"name\":\"a\",\"ratio\":0}", NULL);
	check("{\"name\":\"a\",\"ratio\":0.25}", NULL);
	check("{\"name\":\"a\",\"ratio\":1.5}", NULL);
	check("{\"name\":\"a\",\"ratio\":1}", NULL);
	check("{\"name\":\"a\",\"ratio\":1.5000001}",
	      "argument \"ratio\": must be a number between 0 and 1.5");
	check("{\"name\":\"a\",\"ratio\":-0.1}",
	      "argument \"ratio\": must be a number between 0 and 1.5");
	check("{\"name\":\"a\",\"ratio\":2}",
	      "argument \"ratio\": must be a number between 0 and 1.5");
	check("{\"name\":\"a\",\"ratio\":\"0.5\"}",
	      "argument \"ratio\": must be a number between 0 and 1.5");
	check("{\"name\":\"a\",\"any\":-1e300}", NULL);
	check("{\"name\":\"a\",\"any\":123456789}", NULL);
	check("{\"name\":\"a\",\"any\":false}", "argument \"any\": must be a number");
	/* json-c's own parser accepts NaN; a request's never reaches here with it, but
	 * the check must not let it through either. */
	check("{\"name\":\"a\",\"any\":NaN}", "argument \"any\": must be a number");
}

/* Booleans. */
static void
test_bool(void **state)
{
	(void)state;
	check("{\"name\":\"a\",\"dry_run\":true}", NULL);
	check("{\"name\":\"a\",\"dry_run\":false}", NULL);
	check("{\"name\":\"a\",\"dry_run\":1}", "argument \"dry_run\": must be true or false");
	check("{\"name\":\"a\",\"dry_run\":\"true\"}",
	      "argument \"dry_run\": must be true or false");
}

/* Arrays of strings: type, item type, item length. */
static void
test_strings(void **state)
{
	(void)state;
	check("{\"name\":\"a\",\"globs\":[]}", NULL);
	check("{\"name\":\"a\",\"globs\":[\"eth*\",\"lo\"]}", NULL);
	check("{\"name\":\"a\",\"globs\":\"eth*\"}",
	      "argument \"globs\": must be an array of strings");
	check("{\"name\":\"a\",\"globs\":[\"a\",3]}",
	      "argument \"globs\": item 1 must be a string");
	check("{\"name\":\"a\",\"globs\":[\"a\",\"eth0*\"]}",
	      "argument \"globs\": item 1 must be at most 4 bytes");
	check("{\"name\":\"a\",\"globs\":[\"a\\u0000\"]}",
	      "argument \"globs\": item 0 contains a NUL byte");
}

/* CPU lists and masks, good and bad; the parser's message is included. */
static void
test_cpulist(void **state)
{
	(void)state;
	check("{\"name\":\"a\",\"cpus\":\"0-3,72\"}", NULL);
	check("{\"name\":\"a\",\"cpus\":\"0-15:2\"}", NULL);
	check("{\"name\":\"a\",\"cpus\":\"0xff\"}", NULL);
	check("{\"name\":\"a\",\"cpus\":\"00000000,00000001\"}", NULL);
	check("{\"name\":\"a\",\"cpus\":\"\"}", NULL);
	check_prefix("{\"name\":\"a\",\"cpus\":\"0-3,x\"}", "argument \"cpus\": ");
	check_prefix("{\"name\":\"a\",\"cpus\":\"3-1\"}", "argument \"cpus\": ");
	check_prefix("{\"name\":\"a\",\"cpus\":\"99999\"}", "argument \"cpus\": ");
	check("{\"name\":\"a\",\"cpus\":7}",
	      "argument \"cpus\": must be a string with a CPU list or mask");

	/* The parser's own message follows the argument's name. */
	{
		json_object *args = json_tokener_parse("{\"name\":\"a\",\"cpus\":\"0-3,x\"}");
		struct nm_error err, perr;
		struct cpuset set;
		char want[NM_ERROR_MSG_MAX + 32];

		assert_int_equal(cpuset_parse_any(&set, "0-3,x", &perr), -1);
		snprintf(want, sizeof(want), "argument \"cpus\": %s", perr.message);
		assert_int_equal(proto_args_check(&test_cmd, args, &err), -1);
		assert_string_equal(err.message, want);
		json_object_put(args);
	}
}

/* Objects. */
static void
test_object(void **state)
{
	(void)state;
	check("{\"name\":\"a\",\"extra\":{}}", NULL);
	check("{\"name\":\"a\",\"extra\":{\"x\":[1,2]}}", NULL);
	check("{\"name\":\"a\",\"extra\":[]}", "argument \"extra\": must be an object");
	check("{\"name\":\"a\",\"extra\":null}", "argument \"extra\": must be an object");
}

/* The real table: cancel's id. */
static void
test_cancel(void **state)
{
	const struct proto_command *cancel = proto_command_find("cancel");
	static const char *const good[] = {"{\"id\":0}", "{\"id\":7}", "{\"id\":9007199254740992}"};
	static const char *const bad[] = {"{\"id\":-1}", "{\"id\":\"7\"}",
	                                  "{\"id\":9007199254740993}", "{\"id\":1.5}"};
	struct nm_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		json_object *args = json_tokener_parse(good[i]);

		assert_int_equal(proto_args_check(cancel, args, &err), 0);
		json_object_put(args);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_object *args = json_tokener_parse(bad[i]);

		assert_int_equal(proto_args_check(cancel, args, &err), -1);
		assert_string_equal(err.message,
		                    "argument \"id\": must be an integer between 0 and "
		                    "9007199254740992");
		json_object_put(args);
	}
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_null_and_empty),
	    cmocka_unit_test(test_not_object),
	    cmocka_unit_test(test_unknown),
	    cmocka_unit_test(test_string),
	    cmocka_unit_test(test_int),
	    cmocka_unit_test(test_number),
	    cmocka_unit_test(test_bool),
	    cmocka_unit_test(test_strings),
	    cmocka_unit_test(test_cpulist),
	    cmocka_unit_test(test_object),
	    cmocka_unit_test(test_cancel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
