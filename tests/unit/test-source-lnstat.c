/* test-source-lnstat.c: the lnstat source on a fixture tree of /proc/net/stat, on a
 * changing copy of it and on this machine's /proc. */
#include <dirent.h>
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
	src->ops = &source_lnstat_ops;
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
	char *dir = xstrdup("/tmp/nm-test-lnstat-XXXXXX");
	char cmd[512];

	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -a '%s/lnstat/.' '%s/'", FIXTURE_DIR, dir);
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

/* Replace the first occurrence of old by new in root/rel, in place (same inode, as /proc
 * changes under a kept fd). */
static void
edit_file(const char *root, const char *rel, const char *old, const char *new)
{
	char path[512], buf[65536], *at;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	at = strstr(buf, old);
	if (at == NULL)
		fail_msg("%s: no \"%s\"", rel, old);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(buf, 1, (size_t)(at - buf), f);
	fputs(new, f);
	fputs(at + strlen(old), f);
	fclose(f);
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

/* Sums, per-CPU cells and the entries gauge of the fixture tables, exactly. */
static void
test_fixture_values(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};
	json_object *d;

	(void)state;
	src_setup(&src, &reg, FIXTURE_DIR "/lnstat");
	assert_null(src.ops->configure);
	assert_int_equal(src.ops->init(&src, &err), 0);
	sample_ok(&src);

	/* arp_cache: 2 CPUs. */
	check(&reg, "lnstat.arp_cache.entries", 3, SERIES_GAUGE);
	assert_false(exists(&reg, "lnstat.arp_cache.cpu0.entries"));
	assert_false(exists(&reg, "lnstat.arp_cache.cpu1.entries"));
	check(&reg, "lnstat.arp_cache.cpu0.allocs", 0x10, SERIES_COUNTER32);
	check(&reg, "lnstat.arp_cache.cpu1.allocs", 0x20, SERIES_COUNTER32);
	check(&reg, "lnstat.arp_cache.allocs", 0x30, SERIES_COUNTER);
	check(&reg, "lnstat.arp_cache.destroys", 3, SERIES_COUNTER);
	check(&reg, "lnstat.arp_cache.cpu0.lookups", 0xfffffff0, SERIES_COUNTER32);
	check(&reg, "lnstat.arp_cache.cpu1.lookups", 5, SERIES_COUNTER32);
	/* The sum is 64-bit: it does not wrap at 2^32. */
	check(&reg, "lnstat.arp_cache.lookups", 0xfffffff5ull, SERIES_COUNTER);
	check(&reg, "lnstat.arp_cache.hits", 0xa7, SERIES_COUNTER);
	check(&reg, "lnstat.arp_cache.periodic_gc_runs", 0x2f, SERIES_COUNTER);
	check(&reg, "lnstat.arp_cache.table_fulls", 0, SERIES_COUNTER);
	assert_false(exists(&reg, "lnstat.arp_cache.cpu2.allocs"));

	/* rt_cache: 4 CPUs. */
	check(&reg, "lnstat.rt_cache.entries", 5, SERIES_GAUGE);
	check(&reg, "lnstat.rt_cache.cpu0.in_slow_tot", 0x1, SERIES_COUNTER32);
	check(&reg, "lnstat.rt_cache.cpu3.in_slow_tot", 0x1000, SERIES_COUNTER32);
	check(&reg, "lnstat.rt_cache.in_slow_tot", 0x1111, SERIES_COUNTER);
	check(&reg, "lnstat.rt_cache.out_slow_tot", 14, SERIES_COUNTER);
	check(&reg, "lnstat.rt_cache.cpu3.out_hlist_search", 0, SERIES_COUNTER32);

	/* synproxy: tab-separated, as the kernel prints it. */
	check(&reg, "lnstat.synproxy.entries", 0, SERIES_GAUGE);
	check(&reg, "lnstat.synproxy.syn_received", 0x15, SERIES_COUNTER);
	check(&reg, "lnstat.synproxy.cpu1.syn_received", 0xb, SERIES_COUNTER32);
	check(&reg, "lnstat.synproxy.cookie_valid", 3, SERIES_COUNTER);

	/* Each table: entries + (fields - 1) sums + rows x (fields - 1) cells. */
	assert_int_equal(reg.n, (1 + 12 + 2 * 12) + (1 + 16 + 4 * 16) + (1 + 5 + 2 * 5));
	assert_int_equal(rec.nput, reg.n);
	d = src.ops->describe(&src);
	assert_int_equal(json_object_array_length(json_object_object_get(d, "tables")), 3);
	json_object_put(d);
	src_teardown(&src, &reg);
}

/* A second sample: a cell that wraps adds its 32-bit increment to the sum; unchanged cells
 * are not put; the entries gauge follows row 0. */
static void
test_two_samples(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};
	char *dir = copy_fixture();

	(void)state;
	src_setup(&src, &reg, dir);
	assert_int_equal(src.ops->init(&src, &err), 0);
	sample_ok(&src);
	write_file(dir, "proc/net/stat/arp_cache",
	           "entries  allocs   destroys hash_grows lookups  hits     res_failed "
	           "rcv_probes_mcast rcv_probes_ucast periodic_gc_runs forced_gc_runs "
	           "unresolved_discards table_fulls\n"
	           "00000004 00000010 00000001 00000000   00000010 00000007 00000000   00000000 "
	           "        00000000         0000002f         00000000       00000000            "
	           "00000000\n"
	           "00000009 00000020 00000002 00000000   00000006 000000a0 00000000   00000000 "
	           "        00000000         00000000         00000000       00000000            "
	           "00000000\n");
	sample_ok(&src);
	check(&reg, "lnstat.arp_cache.cpu0.lookups", 0x10, SERIES_COUNTER32);
	check(&reg, "lnstat.arp_cache.cpu1.lookups", 6, SERIES_COUNTER32);
	/* 0xfffffff5 + (0x10 - 0xfffffff0 mod 2^32 = 0x20) + 1 */
	check(&reg, "lnstat.arp_cache.lookups", 0x100000016ull, SERIES_COUNTER);
	check(&reg, "lnstat.arp_cache.entries", 4, SERIES_GAUGE);
	check(&reg, "lnstat.arp_cache.allocs", 0x30, SERIES_COUNTER);
	assert_false(rec.put[series_find(&reg, "lnstat.arp_cache.cpu0.allocs")]);
	assert_false(rec.put[series_find(&reg, "lnstat.rt_cache.cpu0.in_slow_tot")]);
	assert_int_equal(rec.ngone, 0);

	/* A third sample with nothing changed puts no per-CPU cell. */
	sample_ok(&src);
	for (size_t i = 0; i < reg.n; i++)
		if (strstr(reg.v[i].name, ".cpu") != NULL)
			assert_false(rec.put[i]);
	src_teardown(&src, &reg);
	rm_tree(dir);
}

/* A header that changes interns again: fields that left are gone, kept ones keep their
 * ids; rows that left are gone. */
static void
test_header_and_rows_change(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};
	series_id in_hit, cpu3_in_hit;
	char *dir = copy_fixture();

	(void)state;
	src_setup(&src, &reg, dir);
	assert_int_equal(src.ops->init(&src, &err), 0);
	sample_ok(&src);
	edit_file(dir, "proc/net/stat/rt_cache", "00000005 00000000 00000001",
	          "00000005 00000100 00000001");
	sample_ok(&src);
	check(&reg, "lnstat.rt_cache.in_hit", 0x100, SERIES_COUNTER);
	in_hit = series_find(&reg, "lnstat.rt_cache.in_hit");
	cpu3_in_hit = series_find(&reg, "lnstat.rt_cache.cpu3.in_hit");
	write_file(dir, "proc/net/stat/rt_cache",
	           "entries in_hit in_new\n"
	           "00000006 00000101 00000002\n"
	           "00000006 00000003 00000004\n");
	sample_ok(&src);
	check(&reg, "lnstat.rt_cache.entries", 6, SERIES_GAUGE);
	/* The kept field's sum runs on: 0x100 + 1 (cpu0) + 3 (cpu1), not a restart. */
	check(&reg, "lnstat.rt_cache.in_hit", 0x104, SERIES_COUNTER);
	check(&reg, "lnstat.rt_cache.cpu0.in_hit", 0x101, SERIES_COUNTER32);
	check(&reg, "lnstat.rt_cache.in_new", 6, SERIES_COUNTER);
	check(&reg, "lnstat.rt_cache.cpu1.in_new", 4, SERIES_COUNTER32);
	assert_int_equal(series_find(&reg, "lnstat.rt_cache.in_hit"), in_hit);
	assert_false(rec.gone[in_hit]);
	assert_false(rec.gone[series_find(&reg, "lnstat.rt_cache.cpu0.in_hit")]);
	assert_false(rec.gone[series_find(&reg, "lnstat.rt_cache.entries")]);
	/* Rows 2 and 3 left; in_slow_tot and the others left. */
	assert_true(rec.gone[cpu3_in_hit]);
	assert_true(rec.gone[series_find(&reg, "lnstat.rt_cache.in_slow_tot")]);
	assert_true(rec.gone[series_find(&reg, "lnstat.rt_cache.cpu0.in_slow_tot")]);
	/* 16 sums and 4 x 16 cells before; in_hit sum and cpu0/cpu1 in_hit kept. */
	assert_int_equal(rec.ngone, 16 + 64 - 1 - 2);

	/* Same header, one row fewer: that row's cells are gone, the sums stay. */
	write_file(dir, "proc/net/stat/rt_cache",
	           "entries in_hit in_new\n"
	           "00000006 00000101 00000002\n");
	sample_ok(&src);
	assert_int_equal(rec.ngone, 2);
	assert_true(rec.gone[series_find(&reg, "lnstat.rt_cache.cpu1.in_new")]);
	assert_true(rec.gone[series_find(&reg, "lnstat.rt_cache.cpu1.in_hit")]);
	check(&reg, "lnstat.rt_cache.in_hit", 0x104, SERIES_COUNTER);

	/* A new header and fewer rows at once: each id that left is gone once. */
	write_file(dir, "proc/net/stat/rt_cache",
	           "entries in_hit in_other\n"
	           "00000006 00000101 00000002\n"
	           "00000006 00000101 00000002\n");
	sample_ok(&src);
	write_file(dir, "proc/net/stat/rt_cache", "entries in_hit\n00000006 00000102\n");
	sample_ok(&src);
	/* in_other: the sum and 2 cells; cpu1.in_hit. */
	assert_int_equal(rec.ngone, 4);
	assert_true(rec.gone[series_find(&reg, "lnstat.rt_cache.cpu1.in_hit")]);
	check(&reg, "lnstat.rt_cache.in_hit", 0x104 + 0x101 + 1, SERIES_COUNTER);
	src_teardown(&src, &reg);
	rm_tree(dir);
}

/* The directory is listed again after 60 samples: a new table appears, a removed one is
 * gone. */
static void
test_rescan(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};
	char *dir = copy_fixture();
	char path[512];
	int i;

	(void)state;
	src_setup(&src, &reg, dir);
	assert_int_equal(src.ops->init(&src, &err), 0);
	sample_ok(&src);
	snprintf(path, sizeof(path), "%s/proc/net/stat/synproxy", dir);
	assert_int_equal(unlink(path), 0);
	write_file(dir, "proc/net/stat/nf_conntrack",
	           "entries  clashres found new\n"
	           "00000002  00000000 00000005 00000001\n"
	           "00000002  00000000 00000006 00000000\n");
	/* Not every sample lists the directory. */
	for (i = 1; i < 70 && !exists(&reg, "lnstat.nf_conntrack.found"); i++)
		sample_ok(&src);
	assert_int_equal(i, 61);
	check(&reg, "lnstat.nf_conntrack.found", 11, SERIES_COUNTER);
	check(&reg, "lnstat.nf_conntrack.entries", 2, SERIES_GAUGE);
	assert_true(rec.gone[series_find(&reg, "lnstat.synproxy.syn_received")]);
	assert_true(rec.gone[series_find(&reg, "lnstat.synproxy.cpu1.syn_received")]);
	assert_true(rec.gone[series_find(&reg, "lnstat.synproxy.entries")]);
	assert_int_equal(rec.ngone, 1 + 5 + 2 * 5);
	src_teardown(&src, &reg);
	rm_tree(dir);
}

/* Without /proc/net/stat init fails and names it. */
static void
test_missing_dir(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};
	char *dir = xstrdup("/tmp/nm-test-lnstat-XXXXXX");

	(void)state;
	assert_non_null(mkdtemp(dir));
	src_setup(&src, &reg, dir);
	assert_int_equal(src.ops->init(&src, &err), -1);
	assert_non_null(strstr(err.message, "proc/net/stat"));
	src_teardown(&src, &reg);
	rm_tree(dir);
}

/* This machine's /proc/net/stat: every table there is read. */
static void
test_real_proc(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};
	struct dirent *de;
	char name[512];
	size_t tables = 0;
	bool found;
	DIR *d;

	(void)state;
	src_setup(&src, &reg, "/");
	assert_int_equal(src.ops->init(&src, &err), 0);
	sample_ok(&src);
	d = opendir("/proc/net/stat");
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		tables++;
		/* Some series of the table exists and was put. */
		snprintf(name, sizeof(name), "lnstat.%s.", de->d_name);
		found = false;
		for (size_t i = 0; i < reg.n && !found; i++)
			found = strncmp(reg.v[i].name, name, strlen(name)) == 0 && rec.put[i];
		if (!found)
			fail_msg("no series %s*", name);
	}
	closedir(d);
	assert_true(tables > 0);
	if (access("/proc/net/stat/arp_cache", R_OK) == 0) {
		assert_true(exists(&reg, "lnstat.arp_cache.cpu0.lookups"));
		assert_true(exists(&reg, "lnstat.arp_cache.lookups"));
	}
	sample_ok(&src);
	assert_int_equal(rec.ngone, 0);
	src_teardown(&src, &reg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixture_values),
	    cmocka_unit_test(test_two_samples),
	    cmocka_unit_test(test_header_and_rows_change),
	    cmocka_unit_test(test_rescan),
	    cmocka_unit_test(test_missing_dir),
	    cmocka_unit_test(test_real_proc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
