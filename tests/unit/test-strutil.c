/* test-strutil.c: the daemon's shared string tests (base/strutil.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "strutil.h"

/* strutil_ends_with: the whole suffix at the very end; "" ends every string. */
static void
test_ends_with(void **state)
{
	(void)state;
	assert_true(strutil_ends_with("r1.json", ".json"));
	assert_true(strutil_ends_with(".json", ".json"));
	assert_true(strutil_ends_with("entries", "entries"));
	assert_true(strutil_ends_with("x", ""));
	assert_true(strutil_ends_with("", ""));
	assert_false(strutil_ends_with("json", ".json"));
	assert_false(strutil_ends_with("r1.json.tmp", ".json"));
	assert_false(strutil_ends_with("", "x"));
	assert_false(strutil_ends_with("entries_search", "entries"));
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ends_with),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
