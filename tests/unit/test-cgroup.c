/* test-cgroup.c: cgroup.c's parsers: the cgroup v2 mount in mountinfo (this machine's
 * hybrid layout, a pure v2 host, none, a bind of a subtree) and the v2 line of
 * /proc/self/cgroup (hybrid: "0::/" among the v1 lines; a systemd unit). */
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

/* Write text to dir/name. */
static void
put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(fp = fopen(path, "w"));
	fputs(text, fp);
	fclose(fp);
}

/* What dir/name holds. */
static char *
get(const char *dir, const char *name, char *buf, size_t size)
{
	char path[512];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(fp = fopen(path, "r"));
	n = fread(buf, 1, size - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

/* The pids controller on a tree of plain files standing in for cgroupfs: enabled in the
 * parent's subtree_control when missing there, then in the test groups' parent; refused
 * with the reason when the tree does not list it (this machine's hybrid v2 tree). */
static void
test_enable_pids(void **state)
{
	char root[] = "/tmp/nm-cg-XXXXXX", dir[64], why[512], buf[256];

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/netmetricsd-x", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	put(root, "cgroup.subtree_control", "cpu\n");
	put(dir, "cgroup.controllers", "cpu pids\n");
	put(dir, "cgroup.subtree_control", "");
	assert_int_equal(cgroup_enable_pids(root, dir, why, sizeof(why)), 0);
	assert_string_equal(get(root, "cgroup.subtree_control", buf, sizeof(buf)), "+pids");
	assert_string_equal(get(dir, "cgroup.subtree_control", buf, sizeof(buf)), "+pids");
	/* A unit's delegated group: no parent to touch. */
	put(dir, "cgroup.subtree_control", "");
	assert_int_equal(cgroup_enable_pids(NULL, dir, why, sizeof(why)), 0);
	assert_string_equal(get(dir, "cgroup.subtree_control", buf, sizeof(buf)), "+pids");
	/* No pids controller in the tree. */
	put(dir, "cgroup.controllers", "hugetlb\n");
	put(dir, "cgroup.subtree_control", "");
	assert_int_equal(cgroup_enable_pids(root, dir, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no pids controller"));
	assert_non_null(strstr(why, "\"hugetlb\""));
	assert_string_equal(get(dir, "cgroup.subtree_control", buf, sizeof(buf)), "");
	/* "pids" only as a word: not "xpids". */
	put(dir, "cgroup.controllers", "xpids cpu\n");
	assert_int_equal(cgroup_enable_pids(NULL, dir, why, sizeof(why)), -1);
	snprintf(buf, sizeof(buf), "rm -rf %s", root);
	assert_int_equal(system(buf), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mountinfo),
	    cmocka_unit_test(test_self),
	    cmocka_unit_test(test_enable_pids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
