/* test-qpattern.c: the per-queue driver name patterns against real-looking `ethtool -S` output
 * of each driver (tests/fixtures/ethtool/DRIVER.txt), decoys, queue order, and patterns from
 * the configuration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"
#include "qpattern.h"

#define NAME_LEN 64

/* A device's counters as the test reads them from a fixture. */
struct counters {
	char (*names)[NAME_LEN];
	uint64_t *values;
	size_t n;
};

/* Split fixture lines at the last ": " (this module does not link the ethtool parser). */
static void
load(struct counters *c, const char *file)
{
	char path[512], line[256], *sep;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/ethtool/%s", FIXTURE_DIR, file);
	fp = fopen(path, "r");
	if (fp == NULL)
		fail_msg("cannot open %s", path);
	memset(c, 0, sizeof(*c));
	while (fgets(line, sizeof(line), fp) != NULL) {
		char *name = line + strspn(line, " \t");
		sep = NULL;
		for (char *p = name; (p = strstr(p, ": ")) != NULL; p++)
			sep = p;
		if (sep == NULL)
			continue;
		*sep = '\0';
		c->names = realloc(c->names, (c->n + 1) * sizeof(*c->names));
		c->values = realloc(c->values, (c->n + 1) * sizeof(*c->values));
		snprintf(c->names[c->n], NAME_LEN, "%s", name);
		c->values[c->n] = strtoull(sep + 2, NULL, 10);
		c->n++;
	}
	fclose(fp);
}

/* Free what load() made. */
static void
unload(struct counters *c)
{
	free(c->names);
	free(c->values);
}

/* Per-queue sums of a mapping, the way the queues source adds them up. */
struct sums {
	uint64_t v[2][2][16]; /* dir, kind, queue */
	unsigned terms[2][2][16];
	size_t nhits;
};

/* Map c with t and add up. */
static void
map(const struct qpattern_table *t, const struct counters *c, struct sums *s)
{
	struct qpattern_hit *hits = NULL;
	size_t cap = 0;

	memset(s, 0, sizeof(*s));
	s->nhits = qpattern_map(t, c->names[0], NAME_LEN, c->n, &hits, &cap);
	for (size_t i = 0; i < s->nhits; i++) {
		const struct qpattern_hit *h = &hits[i];
		assert_true(h->counter < c->n);
		assert_true(h->queue < 16);
		s->v[h->dir][h->kind][h->queue] += c->values[h->counter];
		s->terms[h->dir][h->kind][h->queue]++;
	}
	free(hits);
}

/* Map a fixture with the built-in table. */
static void
map_fixture(const char *file, struct sums *s)
{
	struct qpattern_table t;
	struct counters c;

	qpattern_table_init(&t);
	qpattern_table_add_builtin(&t);
	load(&c, file);
	map(&t, &c, s);
	unload(&c);
	qpattern_table_free(&t);
}

#define RX QPATTERN_RX
#define TX QPATTERN_TX
#define PK QPATTERN_PACKETS
#define BY QPATTERN_BYTES

/* mlx5: rxN_packets, not rx_prioN_packets, rxN_lro_packets nor txN_xdp_xmit. */
static void
test_mlx5(void **state)
{
	struct sums s;

	(void)state;
	map_fixture("mlx5.txt", &s);
	assert_int_equal(s.nhits, 8);
	assert_int_equal(s.v[RX][PK][0], 600000);
	assert_int_equal(s.v[RX][BY][0], 480000000);
	assert_int_equal(s.v[RX][PK][1], 634567);
	assert_int_equal(s.v[RX][BY][1], 507654321);
	assert_int_equal(s.v[TX][PK][0], 4000000);
	assert_int_equal(s.v[TX][BY][0], 60000000);
	assert_int_equal(s.v[TX][PK][1], 3654321);
	assert_int_equal(s.v[TX][BY][1], 63456789);
	/* The queues add up to the device totals in this capture. */
	assert_int_equal(s.v[RX][PK][0] + s.v[RX][PK][1], 1234567);
}

/* ixgbe (igb, ice, hv_netvsc): rx_queue_N_packets, tx listed before rx. */
static void
test_ixgbe(void **state)
{
	struct sums s;

	(void)state;
	map_fixture("ixgbe.txt", &s);
	assert_int_equal(s.nhits, 16);
	assert_int_equal(s.v[RX][PK][0], 1000);
	assert_int_equal(s.v[RX][PK][3], 400);
	assert_int_equal(s.v[RX][BY][2], 105000);
	assert_int_equal(s.v[TX][PK][0], 2500);
	assert_int_equal(s.v[TX][BY][3], 120000);
	assert_int_equal(s.v[RX][PK][0] + s.v[RX][PK][1] + s.v[RX][PK][2] + s.v[RX][PK][3], 3000);
}

/* i40e: rx-N.rx_packets; veb.tc_0_rx_packets is not a queue. */
static void
test_i40e(void **state)
{
	struct sums s;

	(void)state;
	map_fixture("i40e.txt", &s);
	assert_int_equal(s.nhits, 8);
	assert_int_equal(s.v[RX][PK][0], 3000);
	assert_int_equal(s.v[RX][BY][1], 2640000);
	assert_int_equal(s.v[TX][PK][1], 2100);
	assert_int_equal(s.v[TX][BY][0], 200000);
}

/* iavf: rx-N.packets. */
static void
test_iavf(void **state)
{
	struct sums s;

	(void)state;
	map_fixture("iavf.txt", &s);
	assert_int_equal(s.nhits, 8);
	assert_int_equal(s.v[RX][PK][0], 500);
	assert_int_equal(s.v[RX][PK][1], 428);
	assert_int_equal(s.v[TX][BY][1], 324288);
}

/* ena: queue_N_rx_cnt, with queue 2 listed first. */
static void
test_ena(void **state)
{
	struct sums s;

	(void)state;
	map_fixture("ena.txt", &s);
	assert_int_equal(s.nhits, 12);
	assert_int_equal(s.v[RX][PK][2], 220);
	assert_int_equal(s.v[RX][PK][0], 1100);
	assert_int_equal(s.v[RX][PK][1], 1210);
	assert_int_equal(s.v[TX][PK][2], 330);
	assert_int_equal(s.v[TX][BY][1], 12000);
	assert_int_equal(s.v[RX][BY][0], 110000);
}

/* bnxt_en: "[N]: rx_ucast_packets" + mcast + bcast make queue N. */
static void
test_bnxt(void **state)
{
	struct sums s;

	(void)state;
	map_fixture("bnxt.txt", &s);
	assert_int_equal(s.nhits, 24);
	assert_int_equal(s.terms[RX][PK][0], 3);
	assert_int_equal(s.v[RX][PK][0], 1023);
	assert_int_equal(s.v[RX][BY][0], 1502192);
	assert_int_equal(s.v[RX][PK][1], 2005);
	assert_int_equal(s.v[TX][PK][0], 801);
	assert_int_equal(s.v[TX][PK][1], 702);
	assert_int_equal(s.v[TX][BY][1], 105180);
}

/* be2net: "rxqN: rx_pkts"; rx_mcast_pkts is not added. */
static void
test_be2net(void **state)
{
	struct sums s;

	(void)state;
	map_fixture("be2net.txt", &s);
	assert_int_equal(s.nhits, 8);
	assert_int_equal(s.v[RX][PK][0], 400);
	assert_int_equal(s.v[RX][BY][1], 32000);
	assert_int_equal(s.v[TX][PK][0], 300);
	assert_int_equal(s.v[TX][BY][1], 22500);
}

/* virtio_net on 6.18 has no per-queue packets in ethtool -S (they are in qstats). */
static void
test_virtio(void **state)
{
	struct sums s;

	(void)state;
	map_fixture("virtio.txt", &s);
	assert_int_equal(s.nhits, 0);
}

/* Terms match whole names with digits at %u only. */
static void
test_term_match(void **state)
{
	uint32_t q = 99;

	(void)state;
	assert_true(qpattern_term_match("rx%u_packets", "rx12_packets", &q));
	assert_int_equal(q, 12);
	assert_true(qpattern_term_match("rx%u_packets", "rx007_packets", &q));
	assert_int_equal(q, 7);
	assert_false(qpattern_term_match("rx%u_packets", "rx_prio0_packets", &q));
	assert_false(qpattern_term_match("rx%u_packets", "rx0_lro_packets", &q));
	assert_false(qpattern_term_match("rx%u_packets", "rx_packets", &q));
	assert_false(qpattern_term_match("rx%u_packets", "rx0_packets_phy", &q));
	assert_false(qpattern_term_match("rx%u_packets", "xrx0_packets", &q));
	assert_false(qpattern_term_match("rx%u_packets", "rx-1_packets", &q));
	assert_false(qpattern_term_match("rx%u_packets", "rx99999999999_packets", &q));
	assert_false(qpattern_term_match("rx%u_packets", "rx65536_packets", &q));
	assert_true(qpattern_term_match("rx%u_packets", "rx65535_packets", &q));
	assert_false(qpattern_term_match("rx-%u.packets", "rx-0.rx_packets", &q));
	assert_true(qpattern_term_match("[%u]: rx_ucast_packets", "[15]: rx_ucast_packets", &q));
	assert_int_equal(q, 15);
	assert_false(qpattern_term_match("[%u]: rx_ucast_packets", "[]: rx_ucast_packets", &q));
	assert_true(qpattern_term_match("queue_%u_rx_cnt", "queue_3_rx_cnt", &q));
	assert_false(qpattern_term_match("queue_%u_rx_cnt", "queue_3_rx_cnt_x", &q));
	assert_false(qpattern_term_match("rx_queue_%u_packets", "rx_queue_0_xdp_packets", &q));
}

/* A driver whose names fit two conventions is counted once, by the earlier one. */
static void
test_no_double_count(void **state)
{
	static char names[][NAME_LEN] = {"rx0_packets", "rx_queue_0_packets", "rx1_packets",
	                                 "rx_queue_1_packets", "tx0_bytes"};
	struct counters c = {names, (uint64_t[]){1, 10, 2, 20, 5}, 5};
	struct qpattern_table t;
	struct sums s;

	(void)state;
	qpattern_table_init(&t);
	qpattern_table_add_builtin(&t);
	map(&t, &c, &s);
	assert_int_equal(s.nhits, 3);
	assert_int_equal(s.v[RX][PK][0], 10); /* rx_queue_N comes first in the table */
	assert_int_equal(s.v[RX][PK][1], 20);
	assert_int_equal(s.v[TX][BY][0], 5); /* other kinds choose on their own */
	qpattern_table_free(&t);
}

/* Configured patterns: syntax, precedence over the built-ins, sums, errors. */
static void
test_config(void **state)
{
	static char names[][NAME_LEN] = {"rx_queue_0_xdp_packets",
	                                 "rx_queue_1_xdp_packets",
	                                 "rx_queue_0_packets",
	                                 "q1 rx ucast",
	                                 "q1 rx mcast",
	                                 "tx_queue_0_xdp_xmit"};
	struct counters c = {names, (uint64_t[]){3, 4, 100, 7, 8, 9}, 6};
	struct qpattern_table user, t;
	struct nm_error err;
	struct sums s;

	(void)state;
	qpattern_table_init(&user);
	assert_int_equal(qpattern_table_add(&user, "rx packets rx_queue_%u_xdp_packets", &err), 0);
	assert_int_equal(qpattern_table_add(&user, "  tx   packets   tx_queue_%u_xdp_xmit  ", &err),
	                 0);
	assert_int_equal(qpattern_table_add(&user, "rx bytes q%u rx ucast + q%u rx mcast", &err),
	                 0);
	assert_int_equal(user.n, 3);
	assert_int_equal(user.v[2].nterms, 2);
	assert_string_equal(user.v[2].terms[0], "q%u rx ucast");
	assert_string_equal(user.v[2].terms[1], "q%u rx mcast");
	/* User patterns first, then the built-ins: the user's rx packets wins. */
	qpattern_table_init(&t);
	qpattern_table_append(&t, &user);
	qpattern_table_add_builtin(&t);
	map(&t, &c, &s);
	assert_int_equal(s.nhits, 5);
	assert_int_equal(s.v[RX][PK][0], 3);
	assert_int_equal(s.v[RX][PK][1], 4);
	assert_int_equal(s.v[RX][BY][1], 15);
	assert_int_equal(s.v[TX][PK][0], 9);
	qpattern_table_free(&t);
	/* Built-ins alone: rx_queue_0_packets. */
	qpattern_table_init(&t);
	qpattern_table_add_builtin(&t);
	map(&t, &c, &s);
	assert_int_equal(s.nhits, 1);
	assert_int_equal(s.v[RX][PK][0], 100);
	qpattern_table_free(&t);

	/* Errors name what is wrong and add nothing. */
	assert_int_equal(qpattern_table_add(&user, "up packets x%u", &err), -1);
	assert_non_null(strstr(err.message, "rx or tx"));
	assert_int_equal(qpattern_table_add(&user, "rx frames x%u", &err), -1);
	assert_non_null(strstr(err.message, "packets or bytes"));
	assert_int_equal(qpattern_table_add(&user, "rx packets", &err), -1);
	assert_int_equal(qpattern_table_add(&user, "rx packets x", &err), -1);
	assert_non_null(strstr(err.message, "%u"));
	assert_int_equal(qpattern_table_add(&user, "rx packets x%u%u", &err), -1);
	assert_int_equal(qpattern_table_add(&user, "rx packets x%d", &err), -1);
	assert_int_equal(qpattern_table_add(&user, "rx packets x%u + ", &err), -1);
	assert_int_equal(qpattern_table_add(&user, "rx packets a%u + b%u + c%u + d%u + e%u", &err),
	                 -1);
	assert_int_equal(
	    qpattern_table_add(
	        &user, "rx packets aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa%u", &err),
	    -1);
	assert_int_equal(user.n, 3);
	qpattern_table_free(&user);
}

/* Occurrence terms (vmxnet3: the same names per queue, after a "Tx Queue#: N" line): the
 * k-th "ucast pkts tx" is tx queue k; a name that only starts or ends like the term is not
 * one; a configured "NAME#%u" pattern works the same. */
static void
test_occurrence(void **state)
{
	static const char *const lines[] = {"Tx Queue#",      "ucast pkts tx", "mcast pkts tx",
	                                    "ucast pkts tx2", "Tx Queue#",     "ucast pkts tx",
	                                    "mcast pkts tx",  "Rx Queue#",     "ucast pkts rx",
	                                    "xucast pkts rx", "my rx"};
	static const uint64_t values[] = {0, 10, 1, 999, 1, 20, 2, 0, 30, 999, 5};
	struct qpattern_table t;
	struct counters c;
	struct sums s;
	size_t n = sizeof(lines) / sizeof(lines[0]);

	(void)state;
	memset(&c, 0, sizeof(c));
	c.names = calloc(n, sizeof(*c.names));
	c.values = calloc(n, sizeof(*c.values));
	for (size_t i = 0; i < n; i++) {
		snprintf(c.names[i], NAME_LEN, "%s", lines[i]);
		c.values[i] = values[i];
	}
	c.n = n;
	qpattern_table_init(&t);
	qpattern_table_add_builtin(&t);
	map(&t, &c, &s);
	assert_int_equal(s.v[TX][PK][0], 11);
	assert_int_equal(s.v[TX][PK][1], 22);
	assert_int_equal(s.terms[TX][PK][1], 2);
	assert_int_equal(s.v[RX][PK][0], 30);
	assert_int_equal(s.nhits, 5);
	qpattern_table_free(&t);
	qpattern_table_init(&t);
	assert_int_equal(qpattern_table_add(&t, "rx bytes my rx#%u", NULL), 0);
	map(&t, &c, &s);
	assert_int_equal(s.nhits, 1);
	assert_int_equal(s.v[RX][BY][0], 5);
	qpattern_table_free(&t);
	unload(&c);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mlx5),       cmocka_unit_test(test_ixgbe),
	    cmocka_unit_test(test_i40e),       cmocka_unit_test(test_iavf),
	    cmocka_unit_test(test_ena),        cmocka_unit_test(test_bnxt),
	    cmocka_unit_test(test_be2net),     cmocka_unit_test(test_virtio),
	    cmocka_unit_test(test_term_match), cmocka_unit_test(test_no_double_count),
	    cmocka_unit_test(test_config),     cmocka_unit_test(test_occurrence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
