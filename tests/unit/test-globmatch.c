/* test-globmatch.c: globmatch answers as fnmatch(pat, s, 0) does (in the C locale), for the
 * patterns it matches itself ('*', '?') and those it leaves to fnmatch ('[...]', '\'), on
 * series-like names and on the corner cases of '*' (empty, several, at either end,
 * backtracking). */
#include <fnmatch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "globmatch.h"

static const char *const pats[] = {
    "*",          "",       "?",          "irq.*.cpu1", "irq.*.cpu1*",
    "*.cpu1",     "irq.*",  "irq.?.cpu?", "**",         "*a*b*c",
    "a*a*a*b",    "*x",     "x*",         "irq.*.*",    "link.*.rx_?ytes",
    "*.rx_bytes", "a?c",    "abc",        "[ab]*",      "irq.[0-9]*.cpu1",
    "a\\*b",      "a\\?",   "[!i]*",      "*[",         "a**?",
    "?*?",        "*\x80*", "\xc3\xa9*",  "?\xa9*",
};
static const char *const names[] = {
    "",
    "a",
    "abc",
    "aXbYc",
    "aaab",
    "aaaab",
    "abab",
    "x",
    "xx",
    "irq.24.cpu1",
    "irq.24.cpu10",
    "irq.LOC.cpu1",
    "irq..cpu1",
    "irq.1.cpu1",
    "irq.1.cpu12",
    "irq.24.cpu1.x",
    "link.eth0.rx_bytes",
    "link.eth0.rx_Bytes",
    "link.eth0.tx_bytes",
    "a*b",
    "a?",
    "ab",
    "cpu.all.user",
    "\xc3\xa9t\xc3\xa9",
    "a\x80"
    "b",
    "[",
    "a[",
};

static void
test_same_as_fnmatch(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
			bool want = fnmatch(pats[i], names[j], 0) == 0;
			struct globmatch g;
			globmatch_compile(&g, pats[i]);
			if (globmatch(pats[i], names[j]) != want ||
			    globmatch_exec(&g, names[j]) != want) {
				fprintf(stderr, "pattern \"%s\", name \"%s\": fnmatch says %d\n",
				        pats[i], names[j], want);
				fail();
			}
		}
}

static void
test_cases(void **state)
{
	(void)state;
	assert_true(globmatch("irq.*.cpu1", "irq.24.cpu1"));
	assert_false(globmatch("irq.*.cpu1", "irq.24.cpu10"));
	assert_true(globmatch("a*a*a*b", "aaaab"));
	assert_false(globmatch("a*a*a*b", "aab"));
	assert_true(globmatch("*", ""));
	assert_false(globmatch("?", ""));
	assert_true(globmatch_simple("irq.*.cpu?"));
	assert_false(globmatch_simple("irq.[0-9]*"));
	assert_false(globmatch_simple("a\\*"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_as_fnmatch),
	    cmocka_unit_test(test_cases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
