/* test-regfile.c: only regular files are read from the state and profile directories:
 * symbolic links are not followed, FIFOs and devices never block and are refused, and
 * files are capped in size. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "regfile.h"

static char dir[] = "/tmp/nm-regfile-XXXXXX";

/* dir/name into buf. */
static const char *
at(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}

/* Write text to dir/name. */
static void
put(const char *name, const char *text)
{
	char p[256];
	FILE *fp = fopen(at(name, p, sizeof(p)), "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static int
setup(void **state)
{
	char p[256], q[256];

	(void)state;
	if (mkdtemp(dir) == NULL)
		return -1;
	put("ok.json", "{\"a\":1}");
	put("ten", "0123456789");
	if (symlink(at("ok.json", q, sizeof(q)), at("link.json", p, sizeof(p))) < 0 ||
	    mkfifo(at("fifo.json", p, sizeof(p)), 0600) < 0 ||
	    mkdir(at("sub", p, sizeof(p)), 0700) < 0)
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	char p[256];
	static const char *const names[] = {"ok.json", "ten", "link.json", "fifo.json"};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(at(names[i], p, sizeof(p)));
	rmdir(at("sub", p, sizeof(p)));
	rmdir(dir);
	return 0;
}

/* A regular file is read whole, NUL-terminated. */
static void
test_regular(void **state)
{
	struct nm_error err;
	char p[256], *buf;
	size_t len = 99;

	(void)state;
	buf = regfile_read(at("ok.json", p, sizeof(p)), 100, &len, &err);
	assert_non_null(buf);
	assert_int_equal(len, 7);
	assert_string_equal(buf, "{\"a\":1}");
	free(buf);
	/* Exactly at the cap is fine; one byte over is too long. */
	buf = regfile_read(at("ten", p, sizeof(p)), 10, &len, &err);
	assert_non_null(buf);
	assert_int_equal(len, 10);
	free(buf);
	assert_null(regfile_read(at("ten", p, sizeof(p)), 9, &len, &err));
	assert_int_equal(err.code, NM_ERR_TOO_LONG);
	/* An empty file is an empty string. */
	put("ten", "");
	buf = regfile_read(at("ten", p, sizeof(p)), 10, &len, &err);
	assert_non_null(buf);
	assert_int_equal(len, 0);
	assert_string_equal(buf, "");
	free(buf);
}

/* Missing, a symbolic link, a FIFO (which would block an open without O_NONBLOCK), a
 * directory, a device: refused with a reason. */
static void
test_refused(void **state)
{
	struct nm_error err;
	char p[256];
	size_t len;
	int fd;

	(void)state;
	assert_null(regfile_read(at("missing", p, sizeof(p)), 100, &len, &err));
	assert_int_equal(err.code, NM_ERR_NOT_FOUND);

	assert_null(regfile_read(at("link.json", p, sizeof(p)), 100, &len, &err));
	assert_int_equal(err.code, NM_ERR_FAILED);
	assert_non_null(strstr(err.message, "symbolic link"));

	assert_null(regfile_read(at("fifo.json", p, sizeof(p)), 100, &len, &err));
	assert_int_equal(err.code, NM_ERR_FAILED);
	assert_non_null(strstr(err.message, "not a regular file"));

	assert_int_equal(regfile_open(at("sub", p, sizeof(p)), 100, &err), -1);
	assert_int_equal(err.code, NM_ERR_FAILED);

	assert_null(regfile_read("/dev/zero", 100, &len, &err));
	assert_non_null(strstr(err.message, "not a regular file"));

	/* What is opened is close-on-exec. */
	fd = regfile_open(at("ok.json", p, sizeof(p)), 100, &err);
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_regular),
	    cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
