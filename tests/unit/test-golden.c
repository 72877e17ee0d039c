/* test-golden.c: the golden tests of the /proc parsers (STYLE.md). tests/golden/PARSER/
 * holds captures, NAME.in, each the text of one /proc file, and NAME.ok, what the source
 * that reads that file makes of it: one line per series its first sample puts, in the order
 * the source creates them, "name kind value". The captures come from a host (host-*.in,
 * this machine's /proc when they were taken) and from tests/fixtures (fixture-*.in, among
 * them small gen-host.py trees); PARSER names the file:
 *
 *   interrupts  proc/interrupts            (the interrupts source)
 *   softirqs    proc/softirqs              (the softirqs source)
 *   stat        proc/stat                  (the cpu source)
 *   softnet     proc/net/softnet_stat      (the softnet source)
 *   snmp        proc/net/snmp              (the snmp source; netstat written empty)
 *   netstat     proc/net/netstat           (the snmp source; snmp written empty)
 *   snmp6       proc/net/snmp6             (the snmp source; snmp, netstat empty)
 *   lnstat      proc/net/stat/TABLE, TABLE the name up to its first '.' (the lnstat
 *               source)
 *
 *   test-golden DIR            compare every DIR/PARSER/NAME.in's output with NAME.ok
 *   test-golden DIR --update   write the .ok files anew (ninja golden-update)
 *
 * A parser change that changes what a capture gives shows as a diff of its .ok file. Every
 * series a capture puts must have a unit, and some named ones a given unit (test_units). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "series.h"
#include "source-harness.h"
#include "source.h"

#define GOLDEN_MAX_FILE (4u << 20)

/* A parser: its directory below DIR, the source that reads it, the file (lnstat: the
 * directory of its tables) and the files the source also needs, written empty. */
static const struct parser {
	const char *name;
	const struct source_ops *ops;
	const char *rel;
	const char *empty[2];
} parsers[] = {
    {"interrupts", &source_interrupts_ops, "proc/interrupts", {NULL, NULL}},
    {"softirqs", &source_softirqs_ops, "proc/softirqs", {NULL, NULL}},
    {"stat", &source_cpu_ops, "proc/stat", {NULL, NULL}},
    {"softnet", &source_softnet_ops, "proc/net/softnet_stat", {NULL, NULL}},
    {"snmp", &source_snmp_ops, "proc/net/snmp", {"proc/net/netstat", NULL}},
    {"netstat", &source_snmp_ops, "proc/net/netstat", {"proc/net/snmp", NULL}},
    {"snmp6", &source_snmp_ops, "proc/net/snmp6", {"proc/net/snmp", "proc/net/netstat"}},
    {"lnstat", &source_lnstat_ops, "proc/net/stat/", {NULL, NULL}},
};

static const char *golden_dir;
static bool update;

/* Series whose unit the captures must show (test_units), once a capture has put them: the
 * ones that fell to the catch-all "events" or a wrong family before. */
static struct {
	const char *name, *unit;
	const char *got; /* the unit seen, NULL until a capture put the series */
} spot[] = {
    {"snmp.Ip.InReceives", "packets", NULL},
    {"snmp.Ip.OutRequests", "packets", NULL},
    {"snmp.Ip.InDiscards", "drops", NULL},
    {"snmp.Icmp.InMsgs", "messages", NULL},
    {"snmp.Icmp.InErrors", "errors", NULL},
    {"snmp.IcmpMsg.OutType3", "messages", NULL},
    {"snmp6.Icmp6InEchos", "messages", NULL},
    {"snmp.Udp.NoPorts", "packets", NULL},
    {"snmp.Tcp.OutRsts", "segments", NULL},
    {"snmp.Tcp.RtoMin", "ms", NULL},
    {"snmp.TcpExt.ListenOverflows", "drops", NULL},
    {"snmp.TcpExt.TCPPureAcks", "segments", NULL},
    {"softnet.cpu0.dropped", "drops", NULL},
    {"softnet.cpu0.received_rps", "interrupts", NULL},
    {"lnstat.arp_cache.lookups", "lookups", NULL},
    {"lnstat.nf_conntrack.insert", "connections", NULL},
};

/* Every series a capture put has a unit; the spot ones theirs. */
static void
check_units(const struct series_registry *reg, const struct sink *sink, const char *in_name)
{
	for (series_id id = 0; id < reg->n; id++) {
		const char *u = reg->v[id].unit;
		if (!sink->put[id])
			continue;
		if (u == NULL || u[0] == '\0')
			fail_msg("%s: %s has no unit", in_name, reg->v[id].name);
		for (size_t i = 0; i < sizeof(spot) / sizeof(spot[0]); i++)
			if (strcmp(spot[i].name, reg->v[id].name) == 0)
				spot[i].got = u;
	}
}

/* The whole file at path, NUL-terminated (the caller frees it), or NULL when missing. */
static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;

	if (f == NULL)
		return NULL;
	buf = malloc(GOLDEN_MAX_FILE + 1);
	assert_non_null(buf);
	*len = fread(buf, 1, GOLDEN_MAX_FILE, f);
	fclose(f);
	assert_true(*len < GOLDEN_MAX_FILE);
	buf[*len] = '\0';
	return buf;
}

/* What the parser makes of the text: its source's first sample as lines (new). */
static char *
run_parser(const struct parser *p, const char *in_name, const char *text)
{
	char rel[256], *out = NULL;
	size_t outlen = 0;
	struct world w;
	FILE *mem;

	harness_init(&w, p->ops, NULL);
	harness_mkdir(&w, "proc");
	harness_mkdir(&w, "proc/net");
	snprintf(rel, sizeof(rel), "%s", p->rel);
	if (strcmp(p->name, "lnstat") == 0) {
		/* The parser's every cell: the per-CPU ones are series only when asked. */
		harness_configure(&w, "per-cpu", "yes");
		harness_mkdir(&w, "proc/net/stat");
		snprintf(rel, sizeof(rel), "%s%.*s", p->rel, (int)strcspn(in_name, "."), in_name);
	}
	harness_write(&w, rel, text);
	for (size_t i = 0; i < 2 && p->empty[i] != NULL; i++)
		harness_write(&w, p->empty[i], "");
	harness_start(&w);
	harness_sample(&w);
	mem = open_memstream(&out, &outlen);
	assert_non_null(mem);
	for (series_id id = 0; id < w.reg.n; id++)
		if (w.sink.put[id])
			fprintf(mem, "%s %s %llu\n", w.reg.v[id].name,
			        series_kind_name(w.reg.v[id].kind),
			        (unsigned long long)w.sink.val[id]);
	fclose(mem);
	check_units(&w.reg, &w.sink, in_name);
	harness_free(&w);
	return out;
}

/* The first line where a and b differ, for the failure message. */
static void
first_diff(const char *a, const char *b, char *buf, size_t size)
{
	size_t line = 1;
	const char *sa = a, *sb = b;

	while (*a && *a == *b) {
		if (*a == '\n') {
			line++;
			sa = a + 1;
			sb = b + 1;
		}
		a++;
		b++;
	}
	snprintf(buf, size, "line %zu: got \"%.*s\", want \"%.*s\"", line, (int)strcspn(sa, "\n"),
	         sa, (int)strcspn(sb, "\n"), sb);
}

/* Compare (or write) NAME.ok of every NAME.in of one parser; returns the captures. */
static size_t
check_parser(const struct parser *p)
{
	char dir[512], path[1024], msg[1024];
	struct dirent **ents;
	size_t ncases = 0;
	int n;

	snprintf(dir, sizeof(dir), "%s/%s", golden_dir, p->name);
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		fail_msg("%s: no captures", dir);
	for (int i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		size_t len = strlen(nm), inlen, oklen;
		char *in, *ok, *got;

		if (len < 4 || strcmp(nm + len - 3, ".in") != 0) {
			free(ents[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, nm);
		in = slurp(path, &inlen);
		assert_non_null(in);
		got = run_parser(p, nm, in);
		snprintf(path, sizeof(path), "%s/%.*s.ok", dir, (int)(len - 3), nm);
		if (update) {
			FILE *f = fopen(path, "w");
			assert_non_null(f);
			fputs(got, f);
			assert_int_equal(fclose(f), 0);
		} else if ((ok = slurp(path, &oklen)) == NULL) {
			fail_msg("%s missing: ninja golden-update writes it", path);
		} else {
			if (strcmp(got, ok) != 0) {
				first_diff(got, ok, msg, sizeof(msg));
				fail_msg("%s: %s (ninja golden-update rewrites the .ok files)",
				         path, msg);
			}
			free(ok);
		}
		if (got[0] == '\0')
			fail_msg("%s/%s: the source put nothing", dir, nm);
		free(got);
		free(in);
		free(ents[i]);
		ncases++;
	}
	free(ents);
	return ncases;
}

/* Every parser has captures, and each one gives its .ok. */
static void
test_golden(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(parsers) / sizeof(parsers[0]); i++) {
		size_t n = check_parser(&parsers[i]);
		if (n < 2)
			fail_msg("%s: %zu captures; at least 2 (a host's and a fixture's)",
			         parsers[i].name, n);
		if (update)
			printf("%s: %zu .ok files written\n", parsers[i].name, n);
	}
}

/* After test_golden: every capture's series had a unit (check_units), and the spot ones
 * were put, each with its unit. */
static void
test_units(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(spot) / sizeof(spot[0]); i++) {
		if (spot[i].got == NULL)
			fail_msg("%s: no capture put it", spot[i].name);
		if (strcmp(spot[i].got, spot[i].unit) != 0)
			fail_msg("%s: unit %s, want %s", spot[i].name, spot[i].got, spot[i].unit);
	}
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_golden),
	                                   cmocka_unit_test(test_units)};

	if (argc < 2 || (argc == 3 && strcmp(argv[2], "--update") != 0) || argc > 3) {
		fprintf(stderr, "usage: test-golden DIR [--update]\n");
		return 2;
	}
	golden_dir = argv[1];
	update = argc == 3;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
