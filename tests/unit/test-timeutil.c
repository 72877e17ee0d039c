/* test-timeutil.c: the duration parser every time on the command line and in the
 * configuration goes through: units, compound values, bare numbers in the caller's unit,
 * the sign, and what it refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "timeutil.h"

#define SEC INT64_C(1000000000)

/* s parsed with bare numbers in seconds, negatives allowed. */
static int64_t
secs_ns(const char *s)
{
	int64_t ns = 12345;

	if (time_parse_duration(s, (uint64_t)SEC, 1, &ns) != 0)
		fail_msg("\"%s\" refused", s);
	return ns;
}

static void
test_units(void **state)
{
	(void)state;
	assert_int_equal(secs_ns("5m"), 300 * SEC);
	assert_int_equal(secs_ns("5min"), 300 * SEC);
	assert_int_equal(secs_ns("10s"), 10 * SEC);
	assert_int_equal(secs_ns("500ms"), SEC / 2);
	assert_int_equal(secs_ns("250us"), 250000);
	assert_int_equal(secs_ns("7ns"), 7);
	assert_int_equal(secs_ns("2h"), 7200 * SEC);
	assert_int_equal(secs_ns("1d"), 86400 * SEC);
	assert_int_equal(secs_ns("1.5s"), 1500000000);
	assert_int_equal(secs_ns(".25s"), SEC / 4);
}

static void
test_compound(void **state)
{
	(void)state;
	assert_int_equal(secs_ns("1m30s"), 90 * SEC);
	assert_int_equal(secs_ns("1h2m3s"), 3723 * SEC);
	assert_int_equal(secs_ns("1s500ms"), 1500000000);
	assert_int_equal(secs_ns("-1m30s"), -90 * SEC);
}

static void
test_bare_and_sign(void **state)
{
	int64_t ns;

	(void)state;
	assert_int_equal(secs_ns("3"), 3 * SEC);
	assert_int_equal(secs_ns("0.5"), SEC / 2);
	assert_int_equal(secs_ns("-10s"), -10 * SEC);
	assert_int_equal(secs_ns("-300"), -300 * SEC);
	assert_int_equal(secs_ns("1764590000"), INT64_C(1764590000) * SEC);
	/* A bare number counts in the caller's unit: milliseconds here. */
	assert_int_equal(time_parse_duration("250", 1000000, 0, &ns), 0);
	assert_int_equal(ns, 250000000);
	/* A sign only where the caller takes one. */
	assert_int_equal(time_parse_duration("-10s", (uint64_t)SEC, 0, &ns), -1);
}

static void
test_refused(void **state)
{
	static const char *const bad[] = {
	    "",
	    "-",
	    "s",
	    "soon",
	    "5 m",
	    "5x",
	    "1m30",
	    "5mm",
	    "1e3s",
	    "0x10",
	    "inf",
	    "nan",
	    "--5s",
	    "+5s",
	    "5s ",
	    " 5s",
	    "1..5s",
	    "5sec",
	    "99999999999999999999999s",
	    "50000d",
	};
	int64_t ns = 42;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (time_parse_duration(bad[i], (uint64_t)SEC, 1, &ns) != -1)
			fail_msg("\"%s\" taken as %lld ns", bad[i], (long long)ns);
		assert_int_equal(ns, 42); /* untouched */
	}
	assert_int_equal(time_parse_duration(NULL, (uint64_t)SEC, 1, &ns), -1);
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_units),
	    cmocka_unit_test(test_compound),
	    cmocka_unit_test(test_bare_and_sign),
	    cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
