/* test-log.c: log lines quote clients, children and files, so each message is one line of
 * valid UTF-8 with its control characters escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"

/* What fn(arg) writes to stderr. */
static void
capture(void (*fn)(const char *), const char *arg, char *out, size_t size)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	assert_non_null(tmp);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	fn(arg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, size - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
}

static void
debug_quote(const char *s)
{
	log_debug("request refused: no window named %s", s);
}

static void
warn_quote(const char *s)
{
	log_warnx("test t: exited with status 1: %s", s);
}

/* A newline cannot forge a second line, ESC and BEL cannot reach a terminal, and bytes
 * that are not UTF-8 are escaped too. */
static void
test_escaped(void **state)
{
	char out[512];

	(void)state;
	log_init("nmtest", LOG_TARGET_STDERR, LOG_LEVEL_DEBUG);
	capture(debug_quote, "a\nnetmetricsd: FAKE\r\x1b[2J\x07", out, sizeof(out));
	assert_string_equal(out, "nmtest: request refused: no window named "
	                         "a\\x0Anetmetricsd: FAKE\\x0D\\x1B[2J\\x07\n");
	capture(warn_quote, "bad \xff cut \xe2\x82", out, sizeof(out));
	assert_string_equal(out,
	                    "nmtest: test t: exited with status 1: bad \\xFF cut \\xE2\\x82\n");
	/* Plain text and UTF-8 stay as they are. */
	capture(warn_quote, "caf\xc3\xa9\tok", out, sizeof(out));
	assert_string_equal(out, "nmtest: test t: exited with status 1: caf\xc3\xa9\\x09ok\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
