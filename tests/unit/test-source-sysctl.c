/* test-source-sysctl.c: the sysctl source: its options, globs on a fixture tree of
 * /proc/sys, a changing copy of it, and this machine's /proc/sys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "series.h"
#include "source-harness.h"
#include "source.h"

/* Configure one option that must be refused with a message naming what is wrong. */
static void
conf_bad(struct source *src, const char *key, const char *val, const char *named)
{
	struct nm_error err = {0};

	assert_int_equal(src->ops->configure(src, key, val, &err), -1);
	assert_int_equal(err.code, NM_ERR_BAD_ARGS);
	if (strstr(err.message, named) == NULL)
		fail_msg("\"%s\" does not name \"%s\"", err.message, named);
}

/* Unknown options and bad values are refused; good ones accepted. */
static void
test_configure(void **state)
{
	struct world w;

	(void)state;
	harness_init(&w, &source_sysctl_ops, FIXTURE_DIR "/sysctl");
	conf_bad(&w.src, "matches", "net.core.somaxconn", "matches");
	conf_bad(&w.src, "kind", "counter32", "counter32");
	conf_bad(&w.src, "kind", "", "kind");
	conf_bad(&w.src, "rescan", "abc", "abc");
	conf_bad(&w.src, "rescan", "-1", "-1");
	conf_bad(&w.src, "rescan", "10s", "10s");
	conf_bad(&w.src, "rescan", "", "rescan");
	conf_bad(&w.src, "rescan", "99999999999999999999", "99999999999999999999");
	conf_bad(&w.src, "match", "  \t ", "match");
	conf_bad(&w.src, "match", "net/../../etc/passwd", "net/../../etc/passwd");
	conf_bad(&w.src, "match", "net/core/somaxconn ..", "..");
	harness_configure(&w, "kind", "counter");
	harness_configure(&w, "kind", "gauge");
	harness_configure(&w, "rescan", "0");
	harness_configure(&w, "rescan", "86400");
	harness_configure(&w, "match", "net.core.somaxconn");
	/* Free without init releases the options (--check-config). */
	harness_free(&w);
	assert_null(w.src.opts);
}

/* Globs with both separators, several per option and the option given twice; a glob
 * matching two files (and a directory, ignored); a file of three values split in three;
 * a '.' in a path component; a negative value; a non-integer file skipped. */
static void
test_fixture_values(void **state)
{
	struct world w;
	struct nm_error err = {0};
	json_object *d;

	(void)state;
	harness_init(&w, &source_sysctl_ops, FIXTURE_DIR "/sysctl");
	harness_configure(&w, "match", "net/core/*arfs* net.ipv4.tcp_mem");
	harness_configure(&w, "match", "net.core.somaxconn\tnet/ipv4/conf/eth0.100/*");
	harness_configure(&w, "match", "net.ipv4.tcp_congestion_control net.core.netdev_rss_key");
	harness_configure(&w, "match", "net/core/no_such_file");
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);

	harness_check(&w, "sysctl.net.core.rfs_arfs_added", 12, SERIES_GAUGE);
	harness_check(&w, "sysctl.net.core.rfs_arfs_expired", 3, SERIES_GAUGE);
	harness_check(&w, "sysctl.net.ipv4.tcp_mem.0", 1000, SERIES_GAUGE);
	harness_check(&w, "sysctl.net.ipv4.tcp_mem.1", 2000, SERIES_GAUGE);
	harness_labels(&w, "sysctl.net.ipv4.tcp_mem.1",
	               "source=sysctl field=net.ipv4.tcp_mem.1 unit=value");
	harness_check(&w, "sysctl.net.ipv4.tcp_mem.2", 3000, SERIES_GAUGE);
	assert_false(harness_exists(&w, "sysctl.net.ipv4.tcp_mem"));
	harness_check(&w, "sysctl.net.core.somaxconn", 1024, SERIES_GAUGE);
	harness_check(&w, "sysctl.net.ipv4.conf.eth0/100.rp_filter", 2, SERIES_GAUGE);
	harness_check(&w, "sysctl.net.ipv4.conf.eth0/100.neg_value", (uint64_t)-5, SERIES_GAUGE);
	assert_int_equal(w.reg.n, 8);
	assert_int_equal(w.sink.nput, 8);

	d = w.src.ops->describe(&w.src);
	assert_int_equal(json_object_array_length(json_object_object_get(d, "globs")), 7);
	/* arfs x2, tcp_mem, somaxconn, eth0.100 x2, congestion control, rss key */
	assert_int_equal(json_object_get_int(json_object_object_get(d, "matched")), 8);
	assert_int_equal(json_object_get_int(json_object_object_get(d, "read")), 6);
	json_object_put(d);

	/* A second sample puts the same values and interns nothing. */
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 8);
	assert_int_equal(w.reg.n, 8);
	harness_free(&w);
}

/* kind = counter applies to every series; two globs naming one file read it once. */
static void
test_kind_and_overlap(void **state)
{
	struct world w;
	struct nm_error err = {0};
	json_object *d;

	(void)state;
	harness_init(&w, &source_sysctl_ops, FIXTURE_DIR "/sysctl");
	harness_configure(&w, "kind", "counter");
	harness_configure(&w, "match", "net.core.somaxconn net/core/somax* /net//core/somaxconn/");
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);
	harness_check(&w, "sysctl.net.core.somaxconn", 1024, SERIES_COUNTER);
	assert_int_equal(w.reg.n, 1);
	assert_int_equal(w.sink.nput, 1);
	d = w.src.ops->describe(&w.src);
	assert_int_equal(json_object_get_int(json_object_object_get(d, "matched")), 1);
	json_object_put(d);
	harness_free(&w);
}

/* With rescan = 0 the globs are expanded each sample: values change, a file gets fewer
 * values, a new file matches, a removed one is gone. */
static void
test_two_samples(void **state)
{
	struct world w;
	struct nm_error err = {0};

	(void)state;
	harness_init(&w, &source_sysctl_ops, NULL);
	harness_copy_fixture("sysctl", w.dir);
	harness_configure(&w, "match", "net/core/*arfs* net.ipv4.tcp_mem");
	harness_configure(&w, "rescan", "0");
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);
	harness_check(&w, "sysctl.net.ipv4.tcp_mem.2", 3000, SERIES_GAUGE);

	harness_write(&w, "proc/sys/net/core/rfs_arfs_added", "13\n");
	harness_write(&w, "proc/sys/net/ipv4/tcp_mem", "1001\t2002\n");
	harness_write(&w, "proc/sys/net/core/rfs_arfs_new", "7\n");
	harness_write(&w, "proc/sys/net/core/rfs_arfs_expired", NULL);
	harness_sample(&w);
	harness_check(&w, "sysctl.net.core.rfs_arfs_added", 13, SERIES_GAUGE);
	harness_check(&w, "sysctl.net.core.rfs_arfs_new", 7, SERIES_GAUGE);
	harness_check(&w, "sysctl.net.ipv4.tcp_mem.0", 1001, SERIES_GAUGE);
	harness_check(&w, "sysctl.net.ipv4.tcp_mem.1", 2002, SERIES_GAUGE);
	assert_true(w.sink.gone[series_find(&w.reg, "sysctl.net.ipv4.tcp_mem.2")]);
	assert_true(w.sink.gone[series_find(&w.reg, "sysctl.net.core.rfs_arfs_expired")]);
	assert_int_equal(w.sink.ngone, 2);

	/* A file that stops holding integers is skipped from then on. */
	harness_write(&w, "proc/sys/net/core/rfs_arfs_new", "lots\n");
	harness_sample(&w);
	assert_true(w.sink.gone[series_find(&w.reg, "sysctl.net.core.rfs_arfs_new")]);
	harness_write(&w, "proc/sys/net/core/rfs_arfs_new", "8\n");
	harness_sample(&w);
	assert_false(w.sink.put[series_find(&w.reg, "sysctl.net.core.rfs_arfs_new")]);
	harness_free(&w);
}

/* With the default rescan (60 s) a file created after init is not seen yet. */
static void
test_no_early_rescan(void **state)
{
	struct world w;
	struct nm_error err = {0};

	(void)state;
	harness_init(&w, &source_sysctl_ops, NULL);
	harness_copy_fixture("sysctl", w.dir);
	harness_configure(&w, "match", "net/core/*arfs*");
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);
	harness_write(&w, "proc/sys/net/core/rfs_arfs_new", "7\n");
	harness_sample(&w);
	assert_false(harness_exists(&w, "sysctl.net.core.rfs_arfs_new"));
	assert_int_equal(w.sink.nput, 2);
	harness_free(&w);
}

/* No globs: no series, and sampling succeeds. */
static void
test_no_globs(void **state)
{
	struct world w;
	struct nm_error err = {0};

	(void)state;
	harness_init(&w, &source_sysctl_ops, FIXTURE_DIR "/sysctl");
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);
	harness_sample(&w);
	assert_int_equal(w.reg.n, 0);
	assert_int_equal(w.sink.nput, 0);
	harness_free(&w);
}

/* A root whose path holds glob metacharacters is taken literally. */
static void
test_root_with_metachars(void **state)
{
	struct world w;
	struct nm_error err = {0};
	char *dir = harness_tempdir();
	char root[512], cmd[1100];

	(void)state;
	harness_copy_fixture("sysctl", dir);
	snprintf(root, sizeof(root), "%s/a[b]*?", dir);
	snprintf(cmd, sizeof(cmd), "mkdir '%s' && cp -a '%s/proc' '%s/'", root, dir, root);
	assert_int_equal(system(cmd), 0);
	harness_init(&w, &source_sysctl_ops, root);
	harness_configure(&w, "match", "net.core.somaxconn");
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);
	harness_check(&w, "sysctl.net.core.somaxconn", 1024, SERIES_GAUGE);
	harness_free(&w);
	harness_rmtree(dir);
}

/* This machine's /proc/sys: somaxconn reads as the file does; a write-only file is
 * skipped. */
static void
test_real_proc(void **state)
{
	struct world w;
	struct nm_error err = {0};
	char buf[64] = "";
	FILE *f;

	(void)state;
	f = fopen("/proc/sys/net/core/somaxconn", "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	harness_init(&w, &source_sysctl_ops, "/");
	harness_configure(&w, "match", "net/core/somaxconn net.ipv4.route.flush net.ipv4.tcp_mem");
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);
	harness_check(&w, "sysctl.net.core.somaxconn", strtoull(buf, NULL, 10), SERIES_GAUGE);
	/* tcp_mem is not per namespace: a netns other than the first has none. */
	if (access("/proc/sys/net/ipv4/tcp_mem", R_OK) == 0)
		assert_true(harness_exists(&w, "sysctl.net.ipv4.tcp_mem.2"));
	/* route/flush is write-only (0200): skipped, even for root. */
	if (access("/proc/sys/net/ipv4/route/flush", F_OK) == 0)
		assert_false(harness_exists(&w, "sysctl.net.ipv4.route.flush"));
	assert_int_equal(w.reg.n, access("/proc/sys/net/ipv4/tcp_mem", R_OK) == 0 ? 4 : 1);
	harness_free(&w);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_configure),           cmocka_unit_test(test_fixture_values),
	    cmocka_unit_test(test_kind_and_overlap),    cmocka_unit_test(test_two_samples),
	    cmocka_unit_test(test_no_early_rescan),     cmocka_unit_test(test_no_globs),
	    cmocka_unit_test(test_root_with_metachars), cmocka_unit_test(test_real_proc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
