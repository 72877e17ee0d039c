/* test-source-lnstat.c: the lnstat source on a fixture tree of /proc/net/stat, on a
 * changing copy of it and on this machine's /proc. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "series.h"
#include "source-harness.h"
#include "source.h"

/* Sums, per-CPU cells and the entries gauge of the fixture tables, exactly. */
static void
test_fixture_values(void **state)
{
	struct world w;
	struct nm_error err = {0};
	json_object *d;

	(void)state;
	harness_init(&w, &source_lnstat_ops, FIXTURE_DIR "/lnstat");
	harness_configure(&w, "per-cpu", "yes");
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);

	/* arp_cache: 2 CPUs. */
	harness_check(&w, "lnstat.arp_cache.entries", 3, SERIES_GAUGE);
	assert_false(harness_exists(&w, "lnstat.arp_cache.cpu0.entries"));
	assert_false(harness_exists(&w, "lnstat.arp_cache.cpu1.entries"));
	harness_check(&w, "lnstat.arp_cache.cpu0.allocs", 0x10, SERIES_COUNTER32);
	harness_check(&w, "lnstat.arp_cache.cpu1.allocs", 0x20, SERIES_COUNTER32);
	harness_check(&w, "lnstat.arp_cache.allocs", 0x30, SERIES_COUNTER);
	harness_labels(&w, "lnstat.arp_cache.allocs",
	               "source=lnstat table=arp_cache field=allocs unit=entries");
	harness_labels(&w, "lnstat.arp_cache.cpu1.allocs",
	               "source=lnstat table=arp_cache cpu=1 field=allocs unit=entries");
	harness_labels(&w, "lnstat.arp_cache.entries",
	               "source=lnstat table=arp_cache field=entries unit=entries");
	harness_check(&w, "lnstat.arp_cache.destroys", 3, SERIES_COUNTER);
	harness_check(&w, "lnstat.arp_cache.cpu0.lookups", 0xfffffff0, SERIES_COUNTER32);
	harness_check(&w, "lnstat.arp_cache.cpu1.lookups", 5, SERIES_COUNTER32);
	/* The sum is 64-bit: it does not wrap at 2^32. */
	harness_check(&w, "lnstat.arp_cache.lookups", 0xfffffff5ull, SERIES_COUNTER);
	harness_check(&w, "lnstat.arp_cache.hits", 0xa7, SERIES_COUNTER);
	harness_check(&w, "lnstat.arp_cache.periodic_gc_runs", 0x2f, SERIES_COUNTER);
	harness_check(&w, "lnstat.arp_cache.table_fulls", 0, SERIES_COUNTER);
	assert_false(harness_exists(&w, "lnstat.arp_cache.cpu2.allocs"));

	/* rt_cache: 4 CPUs. */
	harness_check(&w, "lnstat.rt_cache.entries", 5, SERIES_GAUGE);
	harness_check(&w, "lnstat.rt_cache.cpu0.in_slow_tot", 0x1, SERIES_COUNTER32);
	harness_check(&w, "lnstat.rt_cache.cpu3.in_slow_tot", 0x1000, SERIES_COUNTER32);
	harness_check(&w, "lnstat.rt_cache.in_slow_tot", 0x1111, SERIES_COUNTER);
	harness_check(&w, "lnstat.rt_cache.out_slow_tot", 14, SERIES_COUNTER);
	harness_check(&w, "lnstat.rt_cache.cpu3.out_hlist_search", 0, SERIES_COUNTER32);

	/* synproxy: tab-separated, as the kernel prints it. */
	harness_check(&w, "lnstat.synproxy.entries", 0, SERIES_GAUGE);
	harness_check(&w, "lnstat.synproxy.syn_received", 0x15, SERIES_COUNTER);
	harness_check(&w, "lnstat.synproxy.cpu1.syn_received", 0xb, SERIES_COUNTER32);
	harness_check(&w, "lnstat.synproxy.cookie_valid", 3, SERIES_COUNTER);

	/* Each table: entries + (fields - 1) sums + rows x (fields - 1) cells. */
	assert_int_equal(w.reg.n, (1 + 12 + 2 * 12) + (1 + 16 + 4 * 16) + (1 + 5 + 2 * 5));
	assert_int_equal(w.sink.nput, w.reg.n);
	d = w.src.ops->describe(&w.src);
	assert_int_equal(json_object_array_length(json_object_object_get(d, "tables")), 3);
	json_object_put(d);
	harness_free(&w);
}

/* A second sample: a cell that wraps adds its 32-bit increment to the sum; unchanged cells
 * are not put; the entries gauge follows row 0. */
static void
test_two_samples(void **state)
{
	struct world w;
	struct nm_error err = {0};

	(void)state;
	harness_init(&w, &source_lnstat_ops, NULL);
	harness_configure(&w, "per-cpu", "yes");
	harness_copy_fixture("lnstat", w.dir);
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);
	harness_write(
	    &w, "proc/net/stat/arp_cache",
	    "entries  allocs   destroys hash_grows lookups  hits     res_failed "
	    "rcv_probes_mcast rcv_probes_ucast periodic_gc_runs forced_gc_runs "
	    "unresolved_discards table_fulls\n"
	    "00000004 00000010 00000001 00000000   00000010 00000007 00000000   00000000 "
	    "        00000000         0000002f         00000000       00000000            "
	    "00000000\n"
	    "00000009 00000020 00000002 00000000   00000006 000000a0 00000000   00000000 "
	    "        00000000         00000000         00000000       00000000            "
	    "00000000\n");
	harness_sample(&w);
	harness_check(&w, "lnstat.arp_cache.cpu0.lookups", 0x10, SERIES_COUNTER32);
	harness_check(&w, "lnstat.arp_cache.cpu1.lookups", 6, SERIES_COUNTER32);
	/* 0xfffffff5 + (0x10 - 0xfffffff0 mod 2^32 = 0x20) + 1 */
	harness_check(&w, "lnstat.arp_cache.lookups", 0x100000016ull, SERIES_COUNTER);
	harness_check(&w, "lnstat.arp_cache.entries", 4, SERIES_GAUGE);
	harness_check(&w, "lnstat.arp_cache.allocs", 0x30, SERIES_COUNTER);
	assert_false(w.sink.put[series_find(&w.reg, "lnstat.arp_cache.cpu0.allocs")]);
	assert_false(w.sink.put[series_find(&w.reg, "lnstat.rt_cache.cpu0.in_slow_tot")]);
	assert_int_equal(w.sink.ngone, 0);

	/* A third sample with nothing changed puts no per-CPU cell. */
	harness_sample(&w);
	for (size_t i = 0; i < w.reg.n; i++)
		if (strstr(w.reg.v[i].name, ".cpu") != NULL)
			assert_false(w.sink.put[i]);
	harness_free(&w);
}

/* By default (per-cpu = no) no per-CPU cell is a series, and the sums are the same as with
 * them: a cell that wraps adds its 32-bit increment. status says per_cpu false; per-cpu takes
 * a boolean only. */
static void
test_sums_only_by_default(void **state)
{
	struct world w;
	struct nm_error err = {0};
	json_object *d, *v;

	(void)state;
	harness_init(&w, &source_lnstat_ops, NULL);
	assert_int_equal(w.src.ops->configure(&w.src, "per-cpu", "maybe", &err), -1);
	assert_non_null(strstr(err.message, "per-cpu = maybe: not a boolean"));
	assert_int_equal(w.src.ops->configure(&w.src, "per_cpu", "yes", &err), -1);
	harness_copy_fixture("lnstat", w.dir);
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);
	harness_write(
	    &w, "proc/net/stat/arp_cache",
	    "entries  allocs   destroys hash_grows lookups  hits     res_failed "
	    "rcv_probes_mcast rcv_probes_ucast periodic_gc_runs forced_gc_runs "
	    "unresolved_discards table_fulls\n"
	    "00000004 00000010 00000001 00000000   00000010 00000007 00000000   00000000 "
	    "        00000000         0000002f         00000000       00000000            "
	    "00000000\n"
	    "00000009 00000020 00000002 00000000   00000006 000000a0 00000000   00000000 "
	    "        00000000         00000000         00000000       00000000            "
	    "00000000\n");
	harness_sample(&w);
	for (size_t i = 0; i < w.reg.n; i++)
		assert_null(strstr(w.reg.v[i].name, ".cpu"));
	/* As test_two_samples, which has the cells: 0xfffffff5 + 0x20 + 1. */
	harness_check(&w, "lnstat.arp_cache.lookups", 0x100000016ull, SERIES_COUNTER);
	harness_check(&w, "lnstat.arp_cache.entries", 4, SERIES_GAUGE);
	harness_check(&w, "lnstat.arp_cache.allocs", 0x30, SERIES_COUNTER);
	d = w.src.ops->describe(&w.src);
	assert_true(json_object_object_get_ex(d, "per_cpu", &v));
	assert_false(json_object_get_boolean(v));
	json_object_put(d);
	harness_free(&w);
}

/* Rows are compared with the previous read: only cells whose bytes changed are parsed; a token
 * that is not a hex count is skipped and its row parsed in full until it is one again; a row
 * that changes length is parsed in full. The values are those a full parse gives. */
static void
test_changed_cells(void **state)
{
	struct world w;
	struct nm_error err = {0};

	(void)state;
	harness_init(&w, &source_lnstat_ops, NULL);
	harness_configure(&w, "per-cpu", "yes");
	harness_copy_fixture("lnstat", w.dir);
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);

	/* Two cells of row 1 change in place: those two and their sums. */
	harness_edit(&w, "proc/net/stat/arp_cache", "00000003 00000020 00000002",
	             "00000003 00000021 00000004");
	harness_sample(&w);
	harness_check(&w, "lnstat.arp_cache.cpu1.allocs", 0x21, SERIES_COUNTER32);
	harness_check(&w, "lnstat.arp_cache.cpu1.destroys", 4, SERIES_COUNTER32);
	harness_check(&w, "lnstat.arp_cache.allocs", 0x31, SERIES_COUNTER);
	harness_check(&w, "lnstat.arp_cache.destroys", 5, SERIES_COUNTER);
	assert_false(w.sink.put[harness_find(&w, "lnstat.arp_cache.cpu1.lookups")]);
	assert_false(w.sink.put[harness_find(&w, "lnstat.arp_cache.cpu0.allocs")]);

	/* A token that is not a count: skipped, the row's other cells still read. */
	harness_edit(&w, "proc/net/stat/arp_cache", "00000003 00000021 00000004",
	             "00000003 0000002g 00000005");
	harness_sample(&w);
	assert_false(w.sink.put[harness_find(&w, "lnstat.arp_cache.cpu1.allocs")]);
	harness_check(&w, "lnstat.arp_cache.cpu1.destroys", 5, SERIES_COUNTER32);
	harness_check(&w, "lnstat.arp_cache.allocs", 0x31, SERIES_COUNTER);
	/* Unchanged since: nothing put. */
	harness_sample(&w);
	assert_false(w.sink.put[harness_find(&w, "lnstat.arp_cache.cpu1.destroys")]);
	/* A count again. */
	harness_edit(&w, "proc/net/stat/arp_cache", "0000002g", "00000023");
	harness_sample(&w);
	harness_check(&w, "lnstat.arp_cache.cpu1.allocs", 0x23, SERIES_COUNTER32);
	harness_check(&w, "lnstat.arp_cache.allocs", 0x33, SERIES_COUNTER);
	assert_false(w.sink.put[harness_find(&w, "lnstat.arp_cache.cpu1.destroys")]);

	/* The table grows: entries changes on every row; the gauge follows row 0, and row 1's
	 * entries cell, which is not even compared, does not hide its other changes. */
	harness_edit(&w, "proc/net/stat/arp_cache", "00000003 00000010", "00000009 00000010");
	harness_edit(&w, "proc/net/stat/arp_cache", "00000003 00000023 00000005",
	             "00000009 00000023 00000007");
	harness_sample(&w);
	harness_check(&w, "lnstat.arp_cache.entries", 9, SERIES_GAUGE);
	harness_check(&w, "lnstat.arp_cache.cpu1.destroys", 7, SERIES_COUNTER32);
	assert_false(w.sink.put[harness_find(&w, "lnstat.arp_cache.cpu1.allocs")]);
	/* Only row 1's entries moves: nothing is put. */
	harness_edit(&w, "proc/net/stat/arp_cache", "00000009 00000023", "0000000a 00000023");
	harness_sample(&w);
	assert_false(w.sink.put[harness_find(&w, "lnstat.arp_cache.entries")]);
	assert_false(w.sink.put[harness_find(&w, "lnstat.arp_cache.cpu1.destroys")]);
	/* A line end inside that skipped cell, the file's length kept: row 1 is now "0000"
	 * and a row 2 begins, which the compare must not miss. */
	harness_edit(&w, "proc/net/stat/arp_cache", "0000000a 00000023 00000007",
	             "0000\n000 00000023 00000008");
	harness_sample(&w);
	harness_check(&w, "lnstat.arp_cache.cpu2.allocs", 0x23, SERIES_COUNTER32);
	harness_check(&w, "lnstat.arp_cache.cpu2.destroys", 8, SERIES_COUNTER32);
	assert_false(w.sink.put[harness_find(&w, "lnstat.arp_cache.cpu1.destroys")]);
	harness_edit(&w, "proc/net/stat/arp_cache", "0000\n000 00000023 00000008",
	             "00000003 00000023 00000005");
	harness_sample(&w);
	assert_true(w.sink.gone[harness_find(&w, "lnstat.arp_cache.cpu2.allocs")]);
	harness_check(&w, "lnstat.arp_cache.cpu1.destroys", 5, SERIES_COUNTER32);

	/* Shorter cells: the row is parsed in full, then its new layout diffed. */
	harness_edit(&w, "proc/net/stat/arp_cache", "00000003 00000023 00000005", "3 23 6");
	harness_sample(&w);
	harness_check(&w, "lnstat.arp_cache.cpu1.destroys", 6, SERIES_COUNTER32);
	assert_false(w.sink.put[harness_find(&w, "lnstat.arp_cache.cpu1.allocs")]);
	harness_edit(&w, "proc/net/stat/arp_cache", "3 23 6", "3 2a 6");
	harness_sample(&w);
	harness_check(&w, "lnstat.arp_cache.cpu1.allocs", 0x2a, SERIES_COUNTER32);
	/* Row 2's 0x23 stays in the sum: it was counted while the row lived. */
	harness_check(&w, "lnstat.arp_cache.allocs", 0x3a + 0x23, SERIES_COUNTER);
	assert_false(w.sink.put[harness_find(&w, "lnstat.arp_cache.cpu1.destroys")]);
	assert_int_equal(w.sink.ngone, 0);
	harness_free(&w);
}

/* A header that changes interns again: fields that left are gone, kept ones keep their
 * ids; rows that left are gone. */
static void
test_header_and_rows_change(void **state)
{
	struct world w;
	struct nm_error err = {0};
	series_id in_hit, cpu3_in_hit;

	(void)state;
	harness_init(&w, &source_lnstat_ops, NULL);
	harness_configure(&w, "per-cpu", "yes");
	harness_copy_fixture("lnstat", w.dir);
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);
	harness_edit(&w, "proc/net/stat/rt_cache", "00000005 00000000 00000001",
	             "00000005 00000100 00000001");
	harness_sample(&w);
	harness_check(&w, "lnstat.rt_cache.in_hit", 0x100, SERIES_COUNTER);
	in_hit = series_find(&w.reg, "lnstat.rt_cache.in_hit");
	cpu3_in_hit = series_find(&w.reg, "lnstat.rt_cache.cpu3.in_hit");
	harness_write(&w, "proc/net/stat/rt_cache",
	              "entries in_hit in_new\n"
	              "00000006 00000101 00000002\n"
	              "00000006 00000003 00000004\n");
	harness_sample(&w);
	harness_check(&w, "lnstat.rt_cache.entries", 6, SERIES_GAUGE);
	/* The kept field's sum runs on: 0x100 + 1 (cpu0) + 3 (cpu1), not a restart. */
	harness_check(&w, "lnstat.rt_cache.in_hit", 0x104, SERIES_COUNTER);
	harness_check(&w, "lnstat.rt_cache.cpu0.in_hit", 0x101, SERIES_COUNTER32);
	harness_check(&w, "lnstat.rt_cache.in_new", 6, SERIES_COUNTER);
	harness_check(&w, "lnstat.rt_cache.cpu1.in_new", 4, SERIES_COUNTER32);
	assert_int_equal(series_find(&w.reg, "lnstat.rt_cache.in_hit"), in_hit);
	assert_false(w.sink.gone[in_hit]);
	assert_false(w.sink.gone[series_find(&w.reg, "lnstat.rt_cache.cpu0.in_hit")]);
	assert_false(w.sink.gone[series_find(&w.reg, "lnstat.rt_cache.entries")]);
	/* Rows 2 and 3 left; in_slow_tot and the others left. */
	assert_true(w.sink.gone[cpu3_in_hit]);
	assert_true(w.sink.gone[series_find(&w.reg, "lnstat.rt_cache.in_slow_tot")]);
	assert_true(w.sink.gone[series_find(&w.reg, "lnstat.rt_cache.cpu0.in_slow_tot")]);
	/* 16 sums and 4 x 16 cells before; in_hit sum and cpu0/cpu1 in_hit kept. */
	assert_int_equal(w.sink.ngone, 16 + 64 - 1 - 2);

	/* Same header, one row fewer: that row's cells are gone, the sums stay. */
	harness_write(&w, "proc/net/stat/rt_cache",
	              "entries in_hit in_new\n"
	              "00000006 00000101 00000002\n");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 2);
	assert_true(w.sink.gone[series_find(&w.reg, "lnstat.rt_cache.cpu1.in_new")]);
	assert_true(w.sink.gone[series_find(&w.reg, "lnstat.rt_cache.cpu1.in_hit")]);
	harness_check(&w, "lnstat.rt_cache.in_hit", 0x104, SERIES_COUNTER);

	/* A new header and fewer rows at once: each id that left is gone once. */
	harness_write(&w, "proc/net/stat/rt_cache",
	              "entries in_hit in_other\n"
	              "00000006 00000101 00000002\n"
	              "00000006 00000101 00000002\n");
	harness_sample(&w);
	harness_write(&w, "proc/net/stat/rt_cache", "entries in_hit\n00000006 00000102\n");
	harness_sample(&w);
	/* in_other: the sum and 2 cells; cpu1.in_hit. */
	assert_int_equal(w.sink.ngone, 4);
	assert_true(w.sink.gone[series_find(&w.reg, "lnstat.rt_cache.cpu1.in_hit")]);
	harness_check(&w, "lnstat.rt_cache.in_hit", 0x104 + 0x101 + 1, SERIES_COUNTER);
	harness_free(&w);
}

/* The directory is listed again after 60 samples: a new table appears, a removed one is
 * gone. */
static void
test_rescan(void **state)
{
	struct world w;
	struct nm_error err = {0};
	int i;

	(void)state;
	harness_init(&w, &source_lnstat_ops, NULL);
	harness_configure(&w, "per-cpu", "yes");
	harness_copy_fixture("lnstat", w.dir);
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);
	harness_write(&w, "proc/net/stat/synproxy", NULL);
	harness_write(&w, "proc/net/stat/nf_conntrack",
	              "entries  clashres found new\n"
	              "00000002  00000000 00000005 00000001\n"
	              "00000002  00000000 00000006 00000000\n");
	/* Not every sample lists the directory. */
	for (i = 1; i < 70 && !harness_exists(&w, "lnstat.nf_conntrack.found"); i++)
		harness_sample(&w);
	assert_int_equal(i, 61);
	harness_check(&w, "lnstat.nf_conntrack.found", 11, SERIES_COUNTER);
	harness_check(&w, "lnstat.nf_conntrack.entries", 2, SERIES_GAUGE);
	assert_true(w.sink.gone[series_find(&w.reg, "lnstat.synproxy.syn_received")]);
	assert_true(w.sink.gone[series_find(&w.reg, "lnstat.synproxy.cpu1.syn_received")]);
	assert_true(w.sink.gone[series_find(&w.reg, "lnstat.synproxy.entries")]);
	assert_int_equal(w.sink.ngone, 1 + 5 + 2 * 5);
	harness_free(&w);
}

/* Without /proc/net/stat init fails and names it. */
static void
test_missing_dir(void **state)
{
	struct world w;

	(void)state;
	harness_init_missing(&w, &source_lnstat_ops, "proc/net/stat");
	harness_free(&w);
}

/* This machine's /proc/net/stat: every table there is read. */
static void
test_real_proc(void **state)
{
	struct world w;
	struct nm_error err = {0};
	struct dirent *de;
	char name[512];
	size_t tables = 0;
	bool found;
	DIR *d;

	(void)state;
	harness_init(&w, &source_lnstat_ops, "/");
	harness_configure(&w, "per-cpu", "yes");
	assert_int_equal(w.src.ops->init(&w.src, &err), 0);
	harness_sample(&w);
	d = opendir("/proc/net/stat");
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		tables++;
		/* Some series of the table exists and was put. */
		snprintf(name, sizeof(name), "lnstat.%s.", de->d_name);
		found = false;
		for (size_t i = 0; i < w.reg.n && !found; i++)
			found = strncmp(w.reg.v[i].name, name, strlen(name)) == 0 && w.sink.put[i];
		if (!found)
			fail_msg("no series %s*", name);
	}
	closedir(d);
	assert_true(tables > 0);
	if (access("/proc/net/stat/arp_cache", R_OK) == 0) {
		assert_true(harness_exists(&w, "lnstat.arp_cache.cpu0.lookups"));
		assert_true(harness_exists(&w, "lnstat.arp_cache.lookups"));
	}
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	harness_free(&w);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixture_values),
	    cmocka_unit_test(test_two_samples),
	    cmocka_unit_test(test_sums_only_by_default),
	    cmocka_unit_test(test_changed_cells),
	    cmocka_unit_test(test_header_and_rows_change),
	    cmocka_unit_test(test_rescan),
	    cmocka_unit_test(test_missing_dir),
	    cmocka_unit_test(test_real_proc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
