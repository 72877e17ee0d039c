/* test-source-snmp.c: the snmp source on a fixture tree, on a changing copy of it and on
 * this machine's /proc. */
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
	src->ops = &source_snmp_ops;
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
	char *dir = xstrdup("/tmp/nm-test-snmp-XXXXXX");
	char cmd[512];

	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -a '%s/snmp/.' '%s/'", FIXTURE_DIR, dir);
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

/* Every field of the fixture, with its kind and the exact value. */
static void
test_fixture_values(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};

	(void)state;
	src_setup(&src, &reg, FIXTURE_DIR "/snmp");
	assert_null(src.ops->configure);
	assert_int_equal(src.ops->init(&src, &err), 0);
	sample_ok(&src);

	check(&reg, "snmp.Tcp.InSegs", 123456789, SERIES_COUNTER);
	check(&reg, "snmp.Tcp.OutSegs", 98765, SERIES_COUNTER);
	check(&reg, "snmp.Tcp.RetransSegs", 17, SERIES_COUNTER);
	check(&reg, "snmp.Tcp.ActiveOpens", 13, SERIES_COUNTER);
	/* MaxConn is -1: a gauge holding the two's complement. */
	check(&reg, "snmp.Tcp.MaxConn", UINT64_MAX, SERIES_GAUGE);
	check(&reg, "snmp.Tcp.CurrEstab", 5, SERIES_GAUGE);
	check(&reg, "snmp.Tcp.RtoAlgorithm", 1, SERIES_GAUGE);
	check(&reg, "snmp.Tcp.RtoMin", 200, SERIES_GAUGE);
	check(&reg, "snmp.Tcp.RtoMax", 120000, SERIES_GAUGE);
	check(&reg, "snmp.Ip.Forwarding", 2, SERIES_GAUGE);
	check(&reg, "snmp.Ip.DefaultTTL", 64, SERIES_GAUGE);
	check(&reg, "snmp.Ip.InReceives", 1000, SERIES_COUNTER);
	check(&reg, "snmp.Ip.InDelivers", 990, SERIES_COUNTER);
	check(&reg, "snmp.Ip.OutTransmits", 686, SERIES_COUNTER);
	check(&reg, "snmp.IcmpMsg.InType3", 1, SERIES_COUNTER);
	check(&reg, "snmp.Udp.OutDatagrams", 27, SERIES_COUNTER);
	check(&reg, "snmp.UdpLite.MemErrors", 0, SERIES_COUNTER);
	check(&reg, "snmp.TcpExt.TCPSynRetrans", 42, SERIES_COUNTER);
	check(&reg, "snmp.TcpExt.TW", 11, SERIES_COUNTER);
	check(&reg, "snmp.IpExt.InOctets", 19563658, SERIES_COUNTER);
	/* Above INT64_MAX: parsed as unsigned. */
	check(&reg, "snmp.IpExt.OutOctets", 18446744073709551000ull, SERIES_COUNTER);
	check(&reg, "snmp.IpExt.InNoECTPkts", 807, SERIES_COUNTER);
	check(&reg, "snmp.MPTcpExt.MPCurrEstab", 0, SERIES_GAUGE);
	check(&reg, "snmp6.Ip6InReceives", 777, SERIES_COUNTER);
	check(&reg, "snmp6.Ip6OutRequests", 555, SERIES_COUNTER);
	check(&reg, "snmp6.Icmp6InMsgs", 1, SERIES_COUNTER);
	/* Prefixes are never fields, and every series was put once. */
	assert_int_equal(series_find(&reg, "snmp.Tcp.Tcp:"), SERIES_NONE);
	assert_int_equal(rec.nput, reg.n);
	assert_int_equal(rec.ngone, 0);
	for (size_t i = 0; i < reg.n; i++)
		assert_true(strncmp(reg.v[i].name, "snmp.", 5) == 0 ||
		            strncmp(reg.v[i].name, "snmp6.", 6) == 0);
	src_teardown(&src, &reg);
}

/* Unchanged lines put nothing; a changed values line puts its values; a changed names line
 * interns again and only the fields that left are gone. */
static void
test_two_samples(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};
	series_id insegs, inoctets, intype3, outtype3;
	size_t n;
	char *dir = copy_fixture();

	(void)state;
	src_setup(&src, &reg, dir);
	assert_int_equal(src.ops->init(&src, &err), 0);
	sample_ok(&src);
	n = reg.n;
	insegs = must_find(&reg, "snmp.Tcp.InSegs");
	inoctets = must_find(&reg, "snmp.IpExt.InOctets");
	intype3 = must_find(&reg, "snmp.IcmpMsg.InType3");

	/* Nothing changed: nothing put. */
	sample_ok(&src);
	assert_int_equal(rec.nput, 0);

	/* One value of Tcp changes: the Tcp line is put again, Ip is not. */
	edit_file(dir, "proc/net/snmp", "5 123456789 98765 17", "6 123456999 98765 18");
	sample_ok(&src);
	check(&reg, "snmp.Tcp.InSegs", 123456999, SERIES_COUNTER);
	check(&reg, "snmp.Tcp.RetransSegs", 18, SERIES_COUNTER);
	check(&reg, "snmp.Tcp.CurrEstab", 6, SERIES_GAUGE);
	check(&reg, "snmp.Tcp.MaxConn", UINT64_MAX, SERIES_GAUGE);
	assert_false(rec.put[must_find(&reg, "snmp.Ip.InReceives")]);
	assert_int_equal(rec.nput, 15); /* the Tcp line's fields */
	assert_int_equal(reg.n, n);

	/* IcmpMsg gains a type: a new series, the old one kept. */
	edit_file(dir, "proc/net/snmp", "IcmpMsg: InType3\nIcmpMsg: 1\n",
	          "IcmpMsg: InType3 OutType3\nIcmpMsg: 2 4\n");
	sample_ok(&src);
	check(&reg, "snmp.IcmpMsg.InType3", 2, SERIES_COUNTER);
	check(&reg, "snmp.IcmpMsg.OutType3", 4, SERIES_COUNTER);
	outtype3 = must_find(&reg, "snmp.IcmpMsg.OutType3");
	assert_int_equal(must_find(&reg, "snmp.IcmpMsg.InType3"), intype3);
	assert_int_equal(rec.ngone, 0);
	assert_int_equal(reg.n, n + 1);

	/* And loses it again: only OutType3 is gone. */
	edit_file(dir, "proc/net/snmp", "IcmpMsg: InType3 OutType3\nIcmpMsg: 2 4\n",
	          "IcmpMsg: InType3\nIcmpMsg: 3\n");
	sample_ok(&src);
	check(&reg, "snmp.IcmpMsg.InType3", 3, SERIES_COUNTER);
	assert_true(rec.gone[outtype3]);
	assert_int_equal(rec.ngone, 1);

	/* A group appears before IpExt: IpExt moves down a line, keeps its ids, is not gone. */
	edit_file(dir, "proc/net/netstat", "IpExt: InNoRoutes",
	          "FooExt: Bar Baz\nFooExt: 7 -3\nIpExt: InNoRoutes");
	sample_ok(&src);
	check(&reg, "snmp.FooExt.Bar", 7, SERIES_COUNTER);
	/* Negative: a gauge. */
	check(&reg, "snmp.FooExt.Baz", (uint64_t)-3, SERIES_GAUGE);
	check(&reg, "snmp.IpExt.InOctets", 19563658, SERIES_COUNTER);
	assert_int_equal(must_find(&reg, "snmp.IpExt.InOctets"), inoctets);
	assert_int_equal(rec.ngone, 0);

	/* snmp6 lines change too. */
	edit_file(dir, "proc/net/snmp6", "\t777\n", "\t778\n");
	sample_ok(&src);
	check(&reg, "snmp6.Ip6InReceives", 778, SERIES_COUNTER);
	assert_int_equal(rec.nput, 1);

	assert_int_equal(must_find(&reg, "snmp.Tcp.InSegs"), insegs);
	src_teardown(&src, &reg);
	rm_tree(dir);
}

/* Without /proc/net/snmp6 (IPv6 disabled) the source still works. */
static void
test_no_snmp6(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};
	char *dir = copy_fixture();
	char path[512];
	json_object *d;

	(void)state;
	snprintf(path, sizeof(path), "%s/proc/net/snmp6", dir);
	assert_int_equal(unlink(path), 0);
	src_setup(&src, &reg, dir);
	assert_int_equal(src.ops->init(&src, &err), 0);
	sample_ok(&src);
	check(&reg, "snmp.Tcp.InSegs", 123456789, SERIES_COUNTER);
	assert_int_equal(series_find(&reg, "snmp6.Ip6InReceives"), SERIES_NONE);
	d = src.ops->describe(&src);
	assert_int_equal(json_object_array_length(json_object_object_get(d, "files")), 2);
	json_object_put(d);
	src_teardown(&src, &reg);
	rm_tree(dir);
}

/* Without /proc/net/snmp init fails and names the file; free is safe after it. */
static void
test_missing_snmp(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};
	char *dir = xstrdup("/tmp/nm-test-snmp-XXXXXX");

	(void)state;
	assert_non_null(mkdtemp(dir));
	src_setup(&src, &reg, dir);
	assert_int_equal(src.ops->init(&src, &err), -1);
	assert_non_null(strstr(err.message, "proc/net/snmp"));
	src_teardown(&src, &reg);
	rm_tree(dir);
}

/* This machine's /proc. */
static void
test_real_proc(void **state)
{
	struct series_registry reg;
	struct source src;
	struct nm_error err = {0};
	series_id id;

	(void)state;
	src_setup(&src, &reg, "/");
	assert_int_equal(src.ops->init(&src, &err), 0);
	sample_ok(&src);
	id = must_find(&reg, "snmp.Tcp.InSegs");
	assert_true(rec.put[id]);
	assert_int_equal(series_get(&reg, id)->kind, SERIES_COUNTER);
	check(&reg, "snmp.Tcp.MaxConn", UINT64_MAX, SERIES_GAUGE);
	must_find(&reg, "snmp.TcpExt.TCPSynRetrans");
	must_find(&reg, "snmp.IpExt.InOctets");
	if (access("/proc/net/snmp6", R_OK) == 0)
		must_find(&reg, "snmp6.Ip6InReceives");
	/* A second sample works and interns nothing new. */
	{
		size_t n = reg.n;

		sample_ok(&src);
		assert_int_equal(reg.n, n);
		assert_int_equal(rec.ngone, 0);
	}
	src_teardown(&src, &reg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixture_values), cmocka_unit_test(test_two_samples),
	    cmocka_unit_test(test_no_snmp6),       cmocka_unit_test(test_missing_snmp),
	    cmocka_unit_test(test_real_proc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
