/* test-error.c: error codes, their wire names and the error struct. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"

/* The wire names, fixed by the protocol. */
static const struct {
	enum nm_errcode code;
	const char *name;
} names[] = {
    {NM_OK, "ok"},
    {NM_ERR_BAD_REQUEST, "bad_request"},
    {NM_ERR_TOO_LONG, "too_long"},
    {NM_ERR_UNKNOWN_CMD, "unknown_command"},
    {NM_ERR_BAD_ARGS, "bad_args"},
    {NM_ERR_DENIED, "denied"},
    {NM_ERR_NOT_FOUND, "not_found"},
    {NM_ERR_EXISTS, "exists"},
    {NM_ERR_BUSY, "busy"},
    {NM_ERR_UNSUPPORTED, "unsupported"},
    {NM_ERR_FAILED, "failed"},
    {NM_ERR_INTERNAL, "internal"},
    {NM_ERR_TOO_LARGE, "too_large"},
};

/* Every code has its fixed name, and the name maps back to the code. */
static void
test_names(void **state)
{
	size_t i;

	(void)state;
	assert_int_equal(sizeof names / sizeof names[0], NM_ERR__COUNT);
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		assert_string_equal(nm_error_name(names[i].code), names[i].name);
		assert_int_equal(nm_error_from_name(names[i].name), names[i].code);
	}
}

/* Every code round-trips through its name, and the names are distinct. */
static void
test_round_trip(void **state)
{
	int c, d;

	(void)state;
	for (c = 0; c < NM_ERR__COUNT; c++) {
		assert_int_equal(nm_error_from_name(nm_error_name((enum nm_errcode)c)), c);
		for (d = 0; d < c; d++)
			assert_string_not_equal(nm_error_name((enum nm_errcode)c),
			                        nm_error_name((enum nm_errcode)d));
	}
}

/* Out-of-range codes and unknown names fall back to internal. */
static void
test_unknown(void **state)
{
	(void)state;
	assert_string_equal(nm_error_name(NM_ERR__COUNT), "internal");
	assert_string_equal(nm_error_name((enum nm_errcode)1000), "internal");
	assert_string_equal(nm_error_name((enum nm_errcode) - 1), "internal");
	assert_int_equal(nm_error_from_name("nope"), NM_ERR_INTERNAL);
	assert_int_equal(nm_error_from_name(""), NM_ERR_INTERNAL);
	assert_int_equal(nm_error_from_name("OK"), NM_ERR_INTERNAL);
	assert_int_equal(nm_error_from_name("bad_args "), NM_ERR_INTERNAL);
	assert_int_equal(nm_error_from_name(NULL), NM_ERR_INTERNAL);
}

/* nm_error_set fills code and message and returns -1; clear resets them. */
static void
test_set_clear(void **state)
{
	struct nm_error err;
	char longmsg[2 * NM_ERROR_MSG_MAX];

	(void)state;
	nm_error_clear(&err);
	assert_int_equal(err.code, NM_OK);
	assert_string_equal(err.message, "");

	assert_int_equal(nm_error_set(&err, NM_ERR_NOT_FOUND, "no window named %s (%d)", "run1", 7),
	                 -1);
	assert_int_equal(err.code, NM_ERR_NOT_FOUND);
	assert_string_equal(err.message, "no window named run1 (7)");

	nm_error_clear(&err);
	assert_int_equal(err.code, NM_OK);
	assert_string_equal(err.message, "");

	/* A long message is truncated to fit. */
	memset(longmsg, 'm', sizeof longmsg - 1);
	longmsg[sizeof longmsg - 1] = '\0';
	assert_int_equal(nm_error_set(&err, NM_ERR_FAILED, "%s", longmsg), -1);
	assert_int_equal(strlen(err.message), NM_ERROR_MSG_MAX - 1);
	assert_int_equal(err.message[0], 'm');

	/* A NULL err is allowed for callers that don't want the details. */
	assert_int_equal(nm_error_set(NULL, NM_ERR_BUSY, "ignored %d", 1), -1);
	nm_error_clear(NULL);
}

/* nm_error_prefix: the context, ": ", the message it held; the code given; the end of the
 * message cut when the whole does not fit, the context kept; a NULL err ignored. */
static void
test_prefix(void **state)
{
	struct nm_error e;
	char long_msg[NM_ERROR_MSG_MAX + 100];

	(void)state;
	nm_error_set(&e, NM_ERR_NOT_FOUND, "no profile named %s", "rr8");
	assert_int_equal(nm_error_prefix(&e, e.code, "test %s: profile %s", "t1", "rr8"), -1);
	assert_int_equal(e.code, NM_ERR_NOT_FOUND);
	assert_string_equal(e.message, "test t1: profile rr8: no profile named rr8");
	assert_int_equal(nm_error_prefix(&e, NM_ERR_BAD_ARGS, "run %d", 3), -1);
	assert_int_equal(e.code, NM_ERR_BAD_ARGS);
	assert_string_equal(e.message, "run 3: test t1: profile rr8: no profile named rr8");

	memset(long_msg, 'x', sizeof(long_msg) - 1);
	long_msg[sizeof(long_msg) - 1] = '\0';
	nm_error_set(&e, NM_ERR_FAILED, "%s", long_msg);
	nm_error_prefix(&e, e.code, "ctx");
	assert_int_equal(strlen(e.message), NM_ERROR_MSG_MAX - 1);
	assert_memory_equal(e.message, "ctx: xxx", 8);

	/* A context that fills the message alone: it is what is kept. */
	nm_error_set(&e, NM_ERR_FAILED, "m");
	nm_error_prefix(&e, e.code, "%s", long_msg);
	assert_int_equal(strlen(e.message), NM_ERROR_MSG_MAX - 1);
	assert_int_equal(e.message[0], 'x');

	assert_int_equal(nm_error_prefix(NULL, NM_ERR_FAILED, "ctx"), -1);
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),   cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_unknown), cmocka_unit_test(test_set_clear),
	    cmocka_unit_test(test_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
