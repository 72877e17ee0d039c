/* test-source-sysctl.c: the sysctl source: its options, globs on a fixture tree of
 * /proc/sys, a changing copy of it, and this machine's /proc/sys. */
#include <fcntl.h>
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
#include "sink.h"
#include "source.h"
#include "xmalloc.h"

#define MAX_IDS 8192

/* The test double of the sampler's sink: what was put and declared gone, by id. */
struct sink {
	uint64_t val[MAX_IDS];
	bool put[MAX_IDS];  /* put in the current sample */
	bool gone[MAX_IDS]; /* declared gone in the current sample */
	size_t nput, ngone;
};

static struct sink rec;

/* Record a value. */
void
sink_put(struct sink *sink, series_id id, uint64_t raw)
{
	assert_true(id < MAX_IDS);
	sink->val[id] = raw;
	sink->put[id] = true;
	sink->nput++;
}

/* Record a series gone. */
void
sink_gone(struct sink *sink, series_id id)
{
	assert_true(id < MAX_IDS);
	sink->gone[id] = true;
	sink->ngone++;
}

/* Forget what the last sample put and declared gone (values stay). */
static void
rec_clear(void)
{
	memset(rec.put, 0, sizeof(rec.put));
	memset(rec.gone, 0, sizeof(rec.gone));
	rec.nput = rec.ngone = 0;
}

/* A source of ops on root with a fresh registry, as the sampler sets it up. */
static void
src_setup(struct source *src, struct series_registry *reg, const char *root)
{
	memset(src, 0, sizeof(*src));
	series_registry_init(reg);
	src->ops = &source_sysctl_ops;
	src->index = 3;
	src->root = root;
	src->host = strcmp(root, "/") == 0;
	src->rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(src->rootfd >= 0);
	src->reg = reg;
	memset(&rec, 0, sizeof(rec));
}

/* Free what src_setup and init made. */
static void
src_teardown(struct source *src, struct series_registry *reg)
{
	src->ops->free(src);
	assert_null(src->priv);
	close(src->rootfd);
	series_registry_free(reg);
}

/* Run one sample that must succeed. */
static void
sample_ok(struct source *src)
{
	struct nm_error err = {0};

	rec_clear();
	assert_int_equal(src->ops->sample(src, &rec, &err), 0);
}

/* The id of a series that must exist. */
static series_id
must_find(const struct series_registry *reg, const char *name)
{
	series_id id = series_find(reg, name);

	if (id == SERIES_NONE)
		fail_msg("no series %s", name);
	return id;
}

/* Check a series' value (put in the last sample), kind and source. */
static void
check(const struct series_registry *reg, const char *name, uint64_t val, enum series_kind kind)
{
	series_id id = must_find(reg, name);
	const struct series_info *si = series_get(reg, id);

	if (!rec.put[id])
		fail_msg("%s not put", name);
	if (rec.val[id] != val)
		fail_msg("%s = %llu, expected %llu", name, (unsigned long long)rec.val[id],
		         (unsigned long long)val);
	assert_int_equal(si->kind, kind);
	assert_int_equal(si->source, 3);
	assert_string_equal(si->unit, "");
}

/* A temporary copy of the fixture tree; the caller removes it with rm_tree. */
static char *
copy_fixture(void)
{
	char *dir = xstrdup("/tmp/nm-test-sysctl-XXXXXX");
	char cmd[512];

	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -a '%s/sysctl/.' '%s/'", FIXTURE_DIR, dir);
	assert_int_equal(system(cmd), 0);
	return dir;
}

/* Remove a temporary tree and free its name. */
static void
rm_tree(char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(dir);
}

/* Write a whole file below root. */
static void
write_file(const char *root, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Whether a series exists (whatever its state). */
static bool
exists(const struct series_registry *reg, const char *name)
{
	return series_find(reg, name) != SERIES_NONE;
}

/* Configure one option that must be accepted. */
static void
conf_ok(struct source *src, const char *key, const char *val)
{
	struct nm_error err = {0};

	if (src->ops->configure(src, key, val, &err) != 0)
		fail_msg("%s = %s refused: %s", key, val, err.message);
}

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
	struct series_registry reg;
	struct source src;

	(void)state;
	src_setup(&src, &reg, FIXTURE_DIR "/sysctl");
	conf_bad(&src, "matches", "net.core.somaxconn", "matches");
	conf_bad(&src, "kind", "counter32", "counter32");
	conf_bad(&src, "kind", "", "kind");
	conf_bad(&src, "rescan", "abc", "abc");
	conf_bad(&src, "rescan", "-1", "-1");
	conf_bad(&src, "rescan", "10s", "10s");
	conf_bad(&src, "rescan", "", "rescan");
	conf_bad(&src, "rescan", "99999999999999999999", "99999999999999999999");
	conf_bad(&src, "match", "  \t ", "match");
	conf_bad(&src, "match", "net/../../etc/passwd", "net/../../etc/passwd");
	conf_bad(&src, "match", "net/core/somaxconn ..", "..");
	conf_ok(&src, "kind", "counter");
	conf_ok(&src, "kind", "gauge");
	conf_ok(&src, "rescan", "0");
	conf_ok(&src, "rescan", "86400");
	conf_ok(&src, "match", "net.core.somaxconn");
	/* Free without init releases the options (--check-config). */
	src_teardown(&src, &reg);
	assert_null(src.opts);
}

/* Globs with both separators, several per option and the option given twice; a glob
 * matching two files (and a directory, ignored); a file of three values split in three;
 * a '.' in a path component; a negative value; a non-integer file skipped. */
static void
test_fixture_values(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};
	json_object *d;

	(void)state;
	src_setup(&src, &reg, FIXTURE_DIR "/sysctl");
	conf_ok(&src, "match", "net/core/*arfs* net.ipv4.tcp_mem");
	conf_ok(&src, "match", "net.core.somaxconn\tnet/ipv4/conf/eth0.100/*");
	conf_ok(&src, "match", "net.ipv4.tcp_congestion_control net.core.netdev_rss_key");
	conf_ok(&src, "match", "net/core/no_such_file");
	assert_int_equal(src.ops->init(&src, &err), 0);
	sample_ok(&src);

	check(&reg, "sysctl.net.core.rfs_arfs_added", 12, SERIES_GAUGE);
	check(&reg, "sysctl.net.core.rfs_arfs_expired", 3, SERIES_GAUGE);
	check(&reg, "sysctl.net.ipv4.tcp_mem.0", 1000, SERIES_GAUGE);
	check(&reg, "sysctl.net.ipv4.tcp_mem.1", 2000, SERIES_GAUGE);
	check(&reg, "sysctl.net.ipv4.tcp_mem.2", 3000, SERIES_GAUGE);
	assert_false(exists(&reg, "sysctl.net.ipv4.tcp_mem"));
	check(&reg, "sysctl.net.core.somaxconn", 1024, SERIES_GAUGE);
	check(&reg, "sysctl.net.ipv4.conf.eth0/100.rp_filter", 2, SERIES_GAUGE);
	check(&reg, "sysctl.net.ipv4.conf.eth0/100.neg_value", (uint64_t)-5, SERIES_GAUGE);
	assert_int_equal(reg.n, 8);
	assert_int_equal(rec.nput, 8);

	d = src.ops->describe(&src);
	assert_int_equal(json_object_array_length(json_object_object_get(d, "globs")), 7);
	/* arfs x2, tcp_mem, somaxconn, eth0.100 x2, congestion control, rss key */
	assert_int_equal(json_object_get_int(json_object_object_get(d, "matched")), 8);
	assert_int_equal(json_object_get_int(json_object_object_get(d, "read")), 6);
	json_object_put(d);

	/* A second sample puts the same values and interns nothing. */
	sample_ok(&src);
	assert_int_equal(rec.nput, 8);
	assert_int_equal(reg.n, 8);
	src_teardown(&src, &reg);
}

/* kind = counter applies to every series; two globs naming one file read it once. */
static void
test_kind_and_overlap(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};
	json_object *d;

	(void)state;
	src_setup(&src, &reg, FIXTURE_DIR "/sysctl");
	conf_ok(&src, "kind", "counter");
	conf_ok(&src, "match", "net.core.somaxconn net/core/somax* /net//core/somaxconn/");
	assert_int_equal(src.ops->init(&src, &err), 0);
	sample_ok(&src);
	check(&reg, "sysctl.net.core.somaxconn", 1024, SERIES_COUNTER);
	assert_int_equal(reg.n, 1);
	assert_int_equal(rec.nput, 1);
	d = src.ops->describe(&src);
	assert_int_equal(json_object_get_int(json_object_object_get(d, "matched")), 1);
	json_object_put(d);
	src_teardown(&src, &reg);
}

/* With rescan = 0 the globs are expanded each sample: values change, a file gets fewer
 * values, a new file matches, a removed one is gone. */
static void
test_two_samples(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};
	char *dir = copy_fixture();
	char path[512];

	(void)state;
	src_setup(&src, &reg, dir);
	conf_ok(&src, "match", "net/core/*arfs* net.ipv4.tcp_mem");
	conf_ok(&src, "rescan", "0");
	assert_int_equal(src.ops->init(&src, &err), 0);
	sample_ok(&src);
	check(&reg, "sysctl.net.ipv4.tcp_mem.2", 3000, SERIES_GAUGE);

	write_file(dir, "proc/sys/net/core/rfs_arfs_added", "13\n");
	write_file(dir, "proc/sys/net/ipv4/tcp_mem", "1001\t2002\n");
	write_file(dir, "proc/sys/net/core/rfs_arfs_new", "7\n");
	snprintf(path, sizeof(path), "%s/proc/sys/net/core/rfs_arfs_expired", dir);
	assert_int_equal(unlink(path), 0);
	sample_ok(&src);
	check(&reg, "sysctl.net.core.rfs_arfs_added", 13, SERIES_GAUGE);
	check(&reg, "sysctl.net.core.rfs_arfs_new", 7, SERIES_GAUGE);
	check(&reg, "sysctl.net.ipv4.tcp_mem.0", 1001, SERIES_GAUGE);
	check(&reg, "sysctl.net.ipv4.tcp_mem.1", 2002, SERIES_GAUGE);
	assert_true(rec.gone[series_find(&reg, "sysctl.net.ipv4.tcp_mem.2")]);
	assert_true(rec.gone[series_find(&reg, "sysctl.net.core.rfs_arfs_expired")]);
	assert_int_equal(rec.ngone, 2);

	/* A file that stops holding integers is skipped from then on. */
	write_file(dir, "proc/sys/net/core/rfs_arfs_new", "lots\n");
	sample_ok(&src);
	assert_true(rec.gone[series_find(&reg, "sysctl.net.core.rfs_arfs_new")]);
	write_file(dir, "proc/sys/net/core/rfs_arfs_new", "8\n");
	sample_ok(&src);
	assert_false(rec.put[series_find(&reg, "sysctl.net.core.rfs_arfs_new")]);
	src_teardown(&src, &reg);
	rm_tree(dir);
}

/* With the default rescan (60 s) a file created after init is not seen yet. */
static void
test_no_early_rescan(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};
	char *dir = copy_fixture();

	(void)state;
	src_setup(&src, &reg, dir);
	conf_ok(&src, "match", "net/core/*arfs*");
	assert_int_equal(src.ops->init(&src, &err), 0);
	sample_ok(&src);
	write_file(dir, "proc/sys/net/core/rfs_arfs_new", "7\n");
	sample_ok(&src);
	assert_false(exists(&reg, "sysctl.net.core.rfs_arfs_new"));
	assert_int_equal(rec.nput, 2);
	src_teardown(&src, &reg);
	rm_tree(dir);
}

/* No globs: no series, and sampling succeeds. */
static void
test_no_globs(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};

	(void)state;
	src_setup(&src, &reg, FIXTURE_DIR "/sysctl");
	assert_int_equal(src.ops->init(&src, &err), 0);
	sample_ok(&src);
	sample_ok(&src);
	assert_int_equal(reg.n, 0);
	assert_int_equal(rec.nput, 0);
	src_teardown(&src, &reg);
}

/* A root whose path holds glob metacharacters is taken literally. */
static void
test_root_with_metachars(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};
	char *dir = copy_fixture();
	char root[512], cmd[1100];

	(void)state;
	snprintf(root, sizeof(root), "%s/a[b]*?", dir);
	snprintf(cmd, sizeof(cmd), "mkdir '%s' && cp -a '%s/proc' '%s/'", root, dir, root);
	assert_int_equal(system(cmd), 0);
	src_setup(&src, &reg, root);
	conf_ok(&src, "match", "net.core.somaxconn");
	assert_int_equal(src.ops->init(&src, &err), 0);
	sample_ok(&src);
	check(&reg, "sysctl.net.core.somaxconn", 1024, SERIES_GAUGE);
	src_teardown(&src, &reg);
	rm_tree(dir);
}

/* This machine's /proc/sys: somaxconn reads as the file does; a write-only file is
 * skipped. */
static void
test_real_proc(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};
	char buf[64] = "";
	FILE *f;

	(void)state;
	f = fopen("/proc/sys/net/core/somaxconn", "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	src_setup(&src, &reg, "/");
	conf_ok(&src, "match", "net/core/somaxconn net.ipv4.route.flush net.ipv4.tcp_mem");
	assert_int_equal(src.ops->init(&src, &err), 0);
	sample_ok(&src);
	check(&reg, "sysctl.net.core.somaxconn", strtoull(buf, NULL, 10), SERIES_GAUGE);
	/* tcp_mem is not per namespace: a netns other than the first has none. */
	if (access("/proc/sys/net/ipv4/tcp_mem", R_OK) == 0)
		assert_true(exists(&reg, "sysctl.net.ipv4.tcp_mem.2"));
	/* route/flush is write-only (0200): skipped, even for root. */
	if (access("/proc/sys/net/ipv4/route/flush", F_OK) == 0)
		assert_false(exists(&reg, "sysctl.net.ipv4.route.flush"));
	assert_int_equal(reg.n, access("/proc/sys/net/ipv4/tcp_mem", R_OK) == 0 ? 4 : 1);
	src_teardown(&src, &reg);
}

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
