/* test-cgroup.c: cgroup.c's parsers: the cgroup v2 mount in mountinfo (this machine's
 * hybrid layout, a pure v2 host, none, a bind of a subtree) and the v2 line of
 * /proc/self/cgroup (hybrid: "0::/" among the v1 lines; a systemd unit). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cgroup.h"

static void
test_mountinfo(void **state)
{
	static const char hybrid[] =
	    "24 30 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
	    "28 24 0:25 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs "
	    "ro,mode=755\n"
	    "29 28 0:26 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - "
	    "cgroup2 cgroup2 rw,nsdelegate\n"
	    "30 28 0:27 / /sys/fs/cgroup/systemd rw,nosuid shared:11 - cgroup cgroup "
	    "rw,xattr,name=systemd\n";
	static const char pure[] =
	    "35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime "
	    "shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";
	static const char none[] = "24 30 0:22 / /sys rw shared:7 - sysfs sysfs rw\n"
	                           "30 28 0:27 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n";
	/* A bind of a subtree: its paths are not /proc/self/cgroup's. */
	static const char bind[] = "40 24 0:30 /system.slice /mnt/cg rw - cgroup2 cgroup2 rw\n";
	char buf[256];

	(void)state;
	assert_int_equal(cgroup_parse_mountinfo(hybrid, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/sys/fs/cgroup/unified");
	assert_int_equal(cgroup_parse_mountinfo(pure, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/sys/fs/cgroup");
	assert_int_equal(cgroup_parse_mountinfo(none, buf, sizeof(buf)), -1);
	assert_int_equal(cgroup_parse_mountinfo(bind, buf, sizeof(buf)), -1);
	assert_int_equal(cgroup_parse_mountinfo("", buf, sizeof(buf)), -1);
	assert_int_equal(cgroup_parse_mountinfo(pure, buf, 8), -1); /* does not fit */
}

static void
test_self(void **state)
{
	char buf[256];

	(void)state;
	assert_int_equal(
	    cgroup_parse_self("12:pids:/\n1:name=systemd:/init.scope\n0::/\n", buf, sizeof(buf)),
	    0);
	assert_string_equal(buf, "/");
	assert_int_equal(
	    cgroup_parse_self("0::/system.slice/netmetricsd.service\n", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/system.slice/netmetricsd.service");
	assert_int_equal(cgroup_parse_self("1:name=systemd:/x\n", buf, sizeof(buf)), -1);
	assert_int_equal(cgroup_parse_self("0::\n", buf, sizeof(buf)), -1);
	assert_int_equal(cgroup_parse_self("0::relative\n", buf, sizeof(buf)), -1);
	assert_int_equal(cgroup_parse_self("0::/a/very/long/path\n", buf, 8), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mountinfo),
	    cmocka_unit_test(test_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
