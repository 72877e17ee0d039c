/* test-cpulist.c: CPU sets, lists and kernel masks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cpulist.h"
#include "error.h"

/* Parse a list that must be valid. */
static struct cpuset
list(const char *s)
{
	struct cpuset set;
	struct nm_error err;

	nm_error_clear(&err);
	if (cpuset_parse_list(&set, s, &err) != 0)
		fail_msg("cpuset_parse_list(\"%s\"): %s", s, err.message);
	return set;
}

/* Parse a mask that must be valid. */
static struct cpuset
mask(const char *s)
{
	struct cpuset set;
	struct nm_error err;

	nm_error_clear(&err);
	if (cpuset_parse_mask(&set, s, &err) != 0)
		fail_msg("cpuset_parse_mask(\"%s\"): %s", s, err.message);
	return set;
}

/* Format set as a list into a static buffer. */
static const char *
fmt_list(const struct cpuset *set)
{
	static char buf[65536];
	size_t n = cpuset_format_list(set, buf, sizeof buf);

	assert_int_equal(n, strlen(buf));
	return buf;
}

/* Format set as a mask for ncpus into a static buffer. */
static const char *
fmt_mask(const struct cpuset *set, unsigned ncpus)
{
	static char buf[4096];
	size_t n = cpuset_format_mask(set, ncpus, buf, sizeof buf);

	assert_int_equal(n, strlen(buf));
	return buf;
}

/* A set of the given CPUs, ended by -1. */
static struct cpuset
cpus(int first, ...)
{
	struct cpuset set;
	va_list ap;
	int c;

	cpuset_zero(&set);
	va_start(ap, first);
	for (c = first; c >= 0; c = va_arg(ap, int))
		cpuset_add(&set, (unsigned)c);
	va_end(ap);
	return set;
}

/* The list parser refuses s with BAD_ARGS, names token in the message, keeps the set. */
static void
list_fails(const char *s, const char *token)
{
	struct cpuset set = cpus(77, -1), before = set;
	struct nm_error err;

	nm_error_clear(&err);
	if (cpuset_parse_list(&set, s, &err) != -1)
		fail_msg("cpuset_parse_list(\"%s\") accepted it as %s", s, fmt_list(&set));
	assert_int_equal(err.code, NM_ERR_BAD_ARGS);
	if (strstr(err.message, token) == NULL)
		fail_msg("message for \"%s\" is \"%s\", lacks \"%s\"", s, err.message, token);
	assert_true(cpuset_equal(&set, &before));
}

/* The mask parser refuses s with BAD_ARGS, names token in the message, keeps the set. */
static void
mask_fails(const char *s, const char *token)
{
	struct cpuset set = cpus(77, -1), before = set;
	struct nm_error err;

	nm_error_clear(&err);
	if (cpuset_parse_mask(&set, s, &err) != -1)
		fail_msg("cpuset_parse_mask(\"%s\") accepted it as %s", s, fmt_list(&set));
	assert_int_equal(err.code, NM_ERR_BAD_ARGS);
	if (strstr(err.message, token) == NULL)
		fail_msg("message for \"%s\" is \"%s\", lacks \"%s\"", s, err.message, token);
	assert_true(cpuset_equal(&set, &before));
}

/* add, del, has, count, empty, equal, or, and. */
static void
test_basic_ops(void **state)
{
	struct cpuset a, b;

	(void)state;
	cpuset_zero(&a);
	assert_true(cpuset_empty(&a));
	assert_int_equal(cpuset_count(&a), 0);
	cpuset_add(&a, 0);
	cpuset_add(&a, 63);
	cpuset_add(&a, 64);
	cpuset_add(&a, CPUSET_MAX_CPUS - 1);
	cpuset_add(&a, CPUSET_MAX_CPUS); /* ignored */
	cpuset_add(&a, 64);              /* twice */
	assert_false(cpuset_empty(&a));
	assert_int_equal(cpuset_count(&a), 4);
	assert_true(cpuset_has(&a, 0));
	assert_true(cpuset_has(&a, 63));
	assert_true(cpuset_has(&a, 64));
	assert_false(cpuset_has(&a, 1));
	assert_false(cpuset_has(&a, 65));
	assert_false(cpuset_has(&a, CPUSET_MAX_CPUS));
	assert_true(cpuset_has(&a, CPUSET_MAX_CPUS - 1));
	cpuset_del(&a, 63);
	cpuset_del(&a, 5); /* absent */
	cpuset_del(&a, CPUSET_MAX_CPUS + 10);
	assert_int_equal(cpuset_count(&a), 3);
	assert_false(cpuset_has(&a, 63));

	b = cpus(0, 1, 2, -1);
	assert_false(cpuset_equal(&a, &b));
	cpuset_or(&b, &a);
	assert_string_equal(fmt_list(&b), "0-2,64,8191");
	b = cpus(64, 100, 8191, -1);
	cpuset_and(&b, &a);
	assert_string_equal(fmt_list(&b), "64,8191");
	a = cpus(64, 8191, -1);
	assert_true(cpuset_equal(&a, &b));
	cpuset_and(&b, &(struct cpuset){{0}});
	assert_true(cpuset_empty(&b));
}

/* cpuset_last and cpuset_nth. */
static void
test_last_nth(void **state)
{
	struct cpuset set;
	int i;

	(void)state;
	cpuset_zero(&set);
	assert_int_equal(cpuset_last(&set), -1);
	assert_int_equal(cpuset_nth(&set, 0), -1);

	set = list("3,64-65,143,8191");
	assert_int_equal(cpuset_last(&set), 8191);
	assert_int_equal(cpuset_nth(&set, 0), 3);
	assert_int_equal(cpuset_nth(&set, 1), 64);
	assert_int_equal(cpuset_nth(&set, 2), 65);
	assert_int_equal(cpuset_nth(&set, 3), 143);
	assert_int_equal(cpuset_nth(&set, 4), 8191);
	assert_int_equal(cpuset_nth(&set, 5), -1);
	assert_int_equal(cpuset_nth(&set, 1000000), -1);

	set = list("0");
	assert_int_equal(cpuset_last(&set), 0);
	assert_int_equal(cpuset_nth(&set, 0), 0);

	set = list("0-143");
	assert_int_equal(cpuset_count(&set), 144);
	assert_int_equal(cpuset_last(&set), 143);
	for (i = 0; i < 144; i++)
		assert_int_equal(cpuset_nth(&set, (unsigned)i), i);
	assert_int_equal(cpuset_nth(&set, 144), -1);

	set = list("0-8191:2");
	assert_int_equal(cpuset_count(&set), 4096);
	assert_int_equal(cpuset_last(&set), 8190);
	assert_int_equal(cpuset_nth(&set, 4095), 8190);
	assert_int_equal(cpuset_nth(&set, 100), 200);
}

/* Lists parse to the right CPUs. */
static void
test_parse_list(void **state)
{
	struct cpuset set;

	(void)state;
	set = list("0-3,8");
	assert_int_equal(cpuset_count(&set), 5);
	assert_true(cpuset_has(&set, 0) && cpuset_has(&set, 3) && cpuset_has(&set, 8));
	assert_false(cpuset_has(&set, 4));

	set = list("");
	assert_true(cpuset_empty(&set));
	set = list("\n");
	assert_true(cpuset_empty(&set));
	set = list("  \t ");
	assert_true(cpuset_empty(&set));

	set = list(" 0-3 , 8 \n");
	assert_string_equal(fmt_list(&set), "0-3,8");
	set = list("72-143\n");
	assert_string_equal(fmt_list(&set), "72-143");
	set = list("5,3,1,3");
	assert_string_equal(fmt_list(&set), "1,3,5");
	set = list("007,0010");
	assert_string_equal(fmt_list(&set), "7,10");
	set = list("4-4");
	assert_string_equal(fmt_list(&set), "4");
	set = list("0-3,2-5");
	assert_string_equal(fmt_list(&set), "0-5");
	set = list("8191");
	assert_string_equal(fmt_list(&set), "8191");
	set = list("0-8191");
	assert_int_equal(cpuset_count(&set), CPUSET_MAX_CPUS);
	assert_string_equal(fmt_list(&set), "0-8191");
}

/* Strided ranges, "A-B:S". */
static void
test_parse_stride(void **state)
{
	struct cpuset set;

	(void)state;
	set = list("0-15:2");
	assert_string_equal(fmt_list(&set), "0,2,4,6,8,10,12,14");
	set = list("1-10:3");
	assert_string_equal(fmt_list(&set), "1,4,7,10");
	set = list("1-11:3");
	assert_string_equal(fmt_list(&set), "1,4,7,10");
	set = list("0-7:1");
	assert_string_equal(fmt_list(&set), "0-7");
	set = list("5-5:4");
	assert_string_equal(fmt_list(&set), "5");
	set = list("0-3:100");
	assert_string_equal(fmt_list(&set), "0");
	set = list("0-143:72,1");
	assert_string_equal(fmt_list(&set), "0-1,72");
	set = list("8000-8191:8192");
	assert_string_equal(fmt_list(&set), "8000");
}

/* Bad lists are refused with the bad token named. */
static void
test_parse_list_errors(void **state)
{
	(void)state;
	list_fails("3-1", "reversed CPU range \"3-1\"");
	list_fails("0-3,9-8", "\"9-8\"");
	list_fails("8192", "CPU out of range (0-8191) in CPU list item \"8192\"");
	list_fails("0-8192", "\"0-8192\"");
	list_fails("99999999999999999999999", "\"99999999999999999999999\"");
	list_fails("abc", "\"abc\"");
	list_fails("0-3,x", "\"x\"");
	list_fails("1,,2", "empty item");
	list_fails("1,", "empty item");
	list_fails(",1", "empty item");
	list_fails("1, ,2", "empty item");
	list_fails("-1", "\"-1\"");
	list_fails("+1", "\"+1\"");
	list_fails("1-", "\"1-\"");
	list_fails("1--2", "\"1--2\"");
	list_fails("1-2-3", "\"1-2-3\"");
	list_fails("1-2:0", "bad stride in CPU range \"1-2:0\"");
	list_fails("1-2:", "\"1-2:\"");
	list_fails("1-2:x", "\"1-2:x\"");
	list_fails("1:2", "\"1:2\"");
	list_fails("0x3", "\"0x3\"");
	list_fails("ff", "\"ff\"");
	list_fails("1 2", "\"1 2\"");
	list_fails("1 - 2", "\"1 - 2\"");
	list_fails("1;2", "\"1;2\"");
	list_fails("all", "\"all\"");
}

/* Formatting a list: canonical ranges, truncation like snprintf. */
static void
test_format_list(void **state)
{
	struct cpuset set;
	char buf[8];
	size_t n;

	(void)state;
	cpuset_zero(&set);
	assert_int_equal(cpuset_format_list(&set, buf, sizeof buf), 0);
	assert_string_equal(buf, "");

	set = cpus(0, 1, 2, 3, 72, -1);
	assert_string_equal(fmt_list(&set), "0-3,72");
	set = cpus(0, 1, -1);
	assert_string_equal(fmt_list(&set), "0-1");
	set = cpus(0, 2, 4, -1);
	assert_string_equal(fmt_list(&set), "0,2,4");
	set = cpus(63, 64, 127, 128, 8191, -1);
	assert_string_equal(fmt_list(&set), "63-64,127-128,8191");

	set = cpus(0, 1, 2, 3, 72, -1);
	memset(buf, 'X', sizeof buf);
	n = cpuset_format_list(&set, buf, 4);
	assert_int_equal(n, 6);
	assert_string_equal(buf, "0-3");
	assert_int_equal(buf[4], 'X');
	n = cpuset_format_list(&set, buf, 6);
	assert_int_equal(n, 6);
	assert_string_equal(buf, "0-3,7");
	n = cpuset_format_list(&set, buf, 7);
	assert_int_equal(n, 6);
	assert_string_equal(buf, "0-3,72");
	n = cpuset_format_list(&set, buf, 1);
	assert_int_equal(n, 6);
	assert_string_equal(buf, "");
	assert_int_equal(cpuset_format_list(&set, NULL, 0), 6);
}

/* Canonical lists survive parse and format unchanged; random sets survive format and parse. */
static void
test_list_round_trip(void **state)
{
	static const char *const canon[] = {
	    "",
	    "0",
	    "0-1",
	    "0-3,72",
	    "1,3,5",
	    "0-71",
	    "72-143",
	    "0-8191",
	    "8191",
	    "0,8191",
	    "5-9,11,13-20,100-200,4000",
	};
	struct cpuset set, back;
	uint64_t x = 88172645463325252ULL;
	size_t i;
	int round, k;

	(void)state;
	for (i = 0; i < sizeof canon / sizeof canon[0]; i++) {
		set = list(canon[i]);
		assert_string_equal(fmt_list(&set), canon[i]);
	}
	for (round = 0; round < 200; round++) {
		cpuset_zero(&set);
		for (k = 0; k < round * 5; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* Mostly below 160, so that runs form, sometimes anywhere. */
			cpuset_add(&set, (unsigned)(k % 3 ? x % 160 : x % CPUSET_MAX_CPUS));
		}
		back = list(fmt_list(&set));
		assert_true(cpuset_equal(&set, &back));
	}
}

/* Masks are formatted byte for byte as the kernel prints them. */
static void
test_format_mask(void **state)
{
	struct cpuset set;

	(void)state;
	cpuset_zero(&set);
	assert_string_equal(fmt_mask(&set, 0), "");
	assert_string_equal(fmt_mask(&set, 1), "0");
	assert_string_equal(fmt_mask(&set, 2), "0");
	assert_string_equal(fmt_mask(&set, 32), "00000000");
	assert_string_equal(fmt_mask(&set, 144), "0000,00000000,00000000,00000000,00000000");

	/* 2 CPUs */
	set = cpus(0, -1);
	assert_string_equal(fmt_mask(&set, 2), "1");
	set = cpus(1, -1);
	assert_string_equal(fmt_mask(&set, 2), "2");
	set = cpus(0, 1, -1);
	assert_string_equal(fmt_mask(&set, 2), "3");
	set = cpus(0, 5, 40, -1); /* CPUs beyond ncpus are left out */
	assert_string_equal(fmt_mask(&set, 2), "1");

	/* 8 CPUs */
	set = cpus(0, -1);
	assert_string_equal(fmt_mask(&set, 8), "01");
	set = list("0-7");
	assert_string_equal(fmt_mask(&set, 8), "ff");
	set = cpus(4, 7, -1);
	assert_string_equal(fmt_mask(&set, 8), "90");

	/* 32 CPUs */
	set = cpus(0, -1);
	assert_string_equal(fmt_mask(&set, 32), "00000001");
	set = cpus(31, -1);
	assert_string_equal(fmt_mask(&set, 32), "80000000");
	set = list("0-31");
	assert_string_equal(fmt_mask(&set, 32), "ffffffff");
	set = list("0-35");
	assert_string_equal(fmt_mask(&set, 32), "ffffffff");

	/* 33 CPUs */
	set = cpus(0, -1);
	assert_string_equal(fmt_mask(&set, 33), "0,00000001");
	set = cpus(32, -1);
	assert_string_equal(fmt_mask(&set, 33), "1,00000000");
	set = list("0-32");
	assert_string_equal(fmt_mask(&set, 33), "1,ffffffff");

	/* 64 CPUs */
	set = cpus(0, -1);
	assert_string_equal(fmt_mask(&set, 64), "00000000,00000001");
	set = cpus(63, -1);
	assert_string_equal(fmt_mask(&set, 64), "80000000,00000000");
	set = list("4-7,32-35");
	assert_string_equal(fmt_mask(&set, 64), "0000000f,000000f0");

	/* 144 CPUs */
	set = cpus(0, -1);
	assert_string_equal(fmt_mask(&set, 144), "0000,00000000,00000000,00000000,00000001");
	set = cpus(143, -1);
	assert_string_equal(fmt_mask(&set, 144), "8000,00000000,00000000,00000000,00000000");
	set = list("0-71");
	assert_string_equal(fmt_mask(&set, 144), "0000,00000000,000000ff,ffffffff,ffffffff");
	set = list("72-143");
	assert_string_equal(fmt_mask(&set, 144), "ffff,ffffffff,ffffff00,00000000,00000000");
	set = list("0-143:2");
	assert_string_equal(fmt_mask(&set, 144), "5555,55555555,55555555,55555555,55555555");

	/* All 8192 */
	set = list("0-8191");
	assert_int_equal(strlen(fmt_mask(&set, 8192)), 8192 / 4 + 8192 / 32 - 1);
	set = cpus(8191, -1);
	assert_int_equal(strncmp(fmt_mask(&set, 8192), "80000000,00000000,", 18), 0);
}

/* Mask formatting truncates like snprintf. */
static void
test_format_mask_truncation(void **state)
{
	struct cpuset set = cpus(143, -1);
	char buf[8];

	(void)state;
	memset(buf, 'X', sizeof buf);
	assert_int_equal(cpuset_format_mask(&set, 144, buf, 6), 40);
	assert_string_equal(buf, "8000,");
	assert_int_equal(buf[6], 'X');
	assert_int_equal(cpuset_format_mask(&set, 144, NULL, 0), 40);
	assert_int_equal(cpuset_format_mask(&set, 2, buf, sizeof buf), 1);
	assert_string_equal(buf, "0");
}

/* Masks parse to the right CPUs. */
static void
test_parse_mask(void **state)
{
	struct cpuset set;
	char big[257 * 9 + 1];
	int i;

	(void)state;
	set = mask("3");
	assert_string_equal(fmt_list(&set), "0-1");
	set = mask("0x3");
	assert_string_equal(fmt_list(&set), "0-1");
	set = mask("0X3");
	assert_string_equal(fmt_list(&set), "0-1");
	set = mask("ff\n");
	assert_string_equal(fmt_list(&set), "0-7");
	set = mask(" FF ");
	assert_string_equal(fmt_list(&set), "0-7");
	set = mask("0");
	assert_true(cpuset_empty(&set));
	set = mask("00000000,00000000");
	assert_true(cpuset_empty(&set));
	set = mask("0000,00000000,00000000,00000000,00000001");
	assert_string_equal(fmt_list(&set), "0");
	set = mask("8000,00000000,00000000,00000000,00000000");
	assert_string_equal(fmt_list(&set), "143");
	set = mask("0000,00000000,000000ff,ffffffff,ffffffff\n");
	assert_string_equal(fmt_list(&set), "0-71");
	set = mask("1,0"); /* groups with fewer digits are still 32 bits each */
	assert_string_equal(fmt_list(&set), "32");
	set = mask("1,00000000");
	assert_string_equal(fmt_list(&set), "32");
	set = mask("f,f,f");
	assert_string_equal(fmt_list(&set), "0-3,32-35,64-67");
	set = mask("0x1,00000001");
	assert_string_equal(fmt_list(&set), "0,32");
	set = mask("100000000"); /* one group may be longer than 8 digits */
	assert_string_equal(fmt_list(&set), "32");
	set = mask("0x8"
	           "00000000000000000000000000000000000"); /* 36 digits */
	assert_string_equal(fmt_list(&set), "143");
	set = mask("000000000000000000000000000000000000000000000000000000000000001");
	assert_string_equal(fmt_list(&set), "0");

	/* CPU 8191 is the last that fits. */
	strcpy(big, "80000000");
	for (i = 0; i < 255; i++)
		strcat(big, ",00000000");
	set = mask(big);
	assert_string_equal(fmt_list(&set), "8191");
	strcpy(big, "1");
	for (i = 0; i < 256; i++)
		strcat(big, ",00000000");
	mask_fails(big, "sets a CPU above 8191");
	/* Leading zero groups beyond 8192 CPUs are harmless. */
	strcpy(big, "0");
	for (i = 0; i < 256; i++)
		strcat(big, i == 255 ? ",00000001" : ",00000000");
	set = mask(big);
	assert_string_equal(fmt_list(&set), "0");
}

/* Bad masks are refused with the bad part named. */
static void
test_parse_mask_errors(void **state)
{
	(void)state;
	mask_fails("", "empty CPU mask");
	mask_fails("\n", "empty CPU mask");
	mask_fails("0x", "empty CPU mask \"0x\"");
	mask_fails("g", "bad group \"g\"");
	mask_fails("0-3", "bad group \"0-3\"");
	mask_fails("ff,0000000g", "bad group \"0000000g\"");
	mask_fails("1,,2", "empty group");
	mask_fails(",1", "empty group");
	mask_fails("1,", "empty group");
	mask_fails("123456789,00000000", "group \"123456789\" in CPU mask has more than 8 digits");
	mask_fails("1, 00000000", "\" 00000000\"");
	mask_fails("1,0000 000", "bad group \"0000 000\"");
	mask_fails("0x0x1", "bad group \"0x1\"");
	mask_fails("-1", "\"-1\"");
	mask_fails("1"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "000000000000000000000000000000000000000000000000000000000000000000000000000000"
	           "0000000000000000000000000000000000",
	           "sets a CPU above 8191");
}

/* Sets survive formatting as a mask and parsing it back, for several widths. */
static void
test_mask_round_trip(void **state)
{
	static const unsigned widths[] = {1, 2, 7, 8, 31, 32, 33, 63, 64, 65, 144, 1000, 8192};
	struct cpuset set, back, part;
	uint64_t x = 2463534242ULL;
	size_t w;
	int k;

	(void)state;
	for (w = 0; w < sizeof widths / sizeof widths[0]; w++) {
		cpuset_zero(&set);
		for (k = 0; k < 50; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			cpuset_add(&set, (unsigned)(x % widths[w]));
		}
		/* A CPU beyond the width is dropped by the format. */
		part = set;
		cpuset_add(&set, widths[w]);
		back = mask(fmt_mask(&set, widths[w]));
		assert_true(cpuset_equal(&back, &part));
	}
}

/* parse_any tells masks from lists as its header says. */
static void
test_parse_any(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
	    {"0-3", "0-3"},
	    {"3", "3"},
	    {"10,20", "10,20"},
	    {"1,2", "1-2"},
	    {"0x3", "0-1"},
	    {" 0x10\n", "4"},
	    {"00000001", "0"},
	    {"00000010\n", "4"},
	    {"ffffffff", "0-31"},
	    {"00000001,00000000", "32"},
	    {"0000,00000000,00000000,00000000,00000001", "0"},
	    {"8000,00000000,00000000,00000000,00000000\n", "143"},
	    {"1,00000000", "32"},
	    {"0-15:2", "0,2,4,6,8,10,12,14"},
	    {"", ""},
	    {"0000001", "1"},     /* 7 digits: a list */
	    {"1,0000000", "0-1"}, /* last group of 7 digits: a list */
	};
	struct cpuset set;
	struct nm_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (cpuset_parse_any(&set, cases[i].in, &err) != 0)
			fail_msg("cpuset_parse_any(\"%s\"): %s", cases[i].in, err.message);
		if (strcmp(fmt_list(&set), cases[i].want) != 0)
			fail_msg("cpuset_parse_any(\"%s\") gave %s, want %s", cases[i].in,
			         fmt_list(&set), cases[i].want);
	}
	/* "ff" is neither a list nor shaped like a kernel mask. */
	assert_int_equal(cpuset_parse_any(&set, "ff", &err), -1);
	assert_int_equal(err.code, NM_ERR_BAD_ARGS);
	assert_non_null(strstr(err.message, "\"ff\""));
	assert_int_equal(cpuset_parse_any(&set, "0xzz", &err), -1);
	assert_non_null(strstr(err.message, "\"zz\""));
	assert_int_equal(cpuset_parse_any(&set, "3-1", &err), -1);
	assert_non_null(strstr(err.message, "reversed"));
	/* A NULL err is allowed. */
	assert_int_equal(cpuset_parse_any(&set, "x", NULL), -1);
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_basic_ops),
	    cmocka_unit_test(test_last_nth),
	    cmocka_unit_test(test_parse_list),
	    cmocka_unit_test(test_parse_stride),
	    cmocka_unit_test(test_parse_list_errors),
	    cmocka_unit_test(test_format_list),
	    cmocka_unit_test(test_list_round_trip),
	    cmocka_unit_test(test_format_mask),
	    cmocka_unit_test(test_format_mask_truncation),
	    cmocka_unit_test(test_parse_mask),
	    cmocka_unit_test(test_parse_mask_errors),
	    cmocka_unit_test(test_mask_round_trip),
	    cmocka_unit_test(test_parse_any),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
