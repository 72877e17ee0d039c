/* test-series.c: the series registry's labels: atoms, labels kept per series, matchers and
 * selection, and the unit rule for counters known only by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpulist.h"
#include "error.h"
#include "series.h"

/* Atoms: one per string, found without creating, "" is none. */
static void
test_atoms(void **state)
{
	struct series_registry reg;
	series_atom a, b;

	(void)state;
	series_registry_init(&reg);
	a = series_atom_intern(&reg, "NET_RX", 6);
	b = series_atom_intern(&reg, "NET_RXsuffix", 6); /* the first 6 bytes only */
	assert_int_not_equal(a, SERIES_ATOM_NONE);
	assert_int_equal(a, b);
	assert_int_equal(series_atom_find(&reg, "NET_RX"), a);
	assert_int_equal(series_atom_find(&reg, "NET_TX"), SERIES_ATOM_NONE);
	assert_int_equal(series_atom_intern(&reg, "", 0), SERIES_ATOM_NONE);
	assert_string_equal(series_atom_str(&reg, a), "NET_RX");
	assert_string_equal(series_atom_str(&reg, SERIES_ATOM_NONE), "");
	/* many atoms: the table grows and every one is found again */
	for (int i = 0; i < 5000; i++) {
		char s[16];
		int n = snprintf(s, sizeof(s), "dev%d", i);
		assert_int_equal(series_atom_intern(&reg, s, (size_t)n), (series_atom)(i + 2));
	}
	assert_int_equal(series_atom_find(&reg, "dev4321"), 4323);
	assert_int_equal(series_atom_find(&reg, "NET_RX"), a);
	series_registry_free(&reg);
}

/* Labels are set on creation and kept; a second intern does not change them. */
static void
test_labels_kept(void **state)
{
	struct series_registry reg;
	struct series_labels l = SERIES_LABELS_NONE, other = SERIES_LABELS_NONE;
	series_id id, plain;

	(void)state;
	series_registry_init(&reg);
	series_registry_name_source(&reg, 4, "queues");
	l.device = series_atom_intern(&reg, "eth0", 4);
	l.field = series_atom_intern(&reg, "packets", 7);
	l.queue = 7;
	l.dir = SERIES_DIR_RX;
	id = series_intern(&reg, "queue.eth0.rx7.packets", 22, SERIES_COUNTER, 4, "packets", 1.0,
	                   &l);
	other.cpu = 3;
	assert_int_equal(series_intern(&reg, "queue.eth0.rx7.packets", 22, SERIES_COUNTER, 4,
	                               "packets", 1.0, &other),
	                 id);
	plain = series_intern(&reg, "x", 1, SERIES_GAUGE, 4, NULL, 1.0, NULL);
	assert_int_equal(series_labels_of(&reg, id).queue, 7);
	assert_int_equal(series_labels_of(&reg, id).dir, SERIES_DIR_RX);
	assert_int_equal(series_labels_of(&reg, id).cpu, -1);
	assert_string_equal(series_atom_str(&reg, series_labels_of(&reg, id).device), "eth0");
	assert_string_equal(series_source_name(&reg, id), "queues");
	assert_int_equal(series_labels_of(&reg, plain).cpu, -1);
	assert_int_equal(series_labels_of(&reg, plain).irq, -1);
	assert_int_equal(series_labels_of(&reg, plain).queue, -1);
	assert_int_equal(series_labels_of(&reg, plain).device, SERIES_ATOM_NONE);
	assert_int_equal(sizeof(struct series_label_cell), 24);
	series_registry_free(&reg);
}

/* Names that look like other structures are classified by their labels: a device named
 * "eth0.cpu3" has no CPU, a softirq type with a dot is one type. */
static void
test_select_not_by_name(void **state)
{
	struct series_registry reg;
	struct series_labels l = SERIES_LABELS_NONE;
	struct series_matcher m[2];
	struct nm_error err;
	struct cpuset set;
	series_id dev, sirq, sirq5, *out;
	size_t n;

	(void)state;
	series_registry_init(&reg);
	series_registry_name_source(&reg, 1, "softirqs");
	series_registry_name_source(&reg, 2, "link");
	l.device = series_atom_intern(&reg, "eth0.cpu3", 9);
	l.field = series_atom_intern(&reg, "rx_packets", 10);
	l.dir = SERIES_DIR_RX;
	dev = series_intern(&reg, "link.eth0.cpu3.rx_packets", 25, SERIES_COUNTER, 2, "packets",
	                    1.0, &l);
	l = SERIES_LABELS_NONE;
	l.type = series_atom_intern(&reg, "NET.RX", 6);
	l.cpu = 3;
	sirq = series_intern(&reg, "softirq.NET.RX.cpu3", 19, SERIES_COUNTER32, 1, "softirqs", 1.0,
	                     &l);
	l.cpu = 5;
	sirq5 = series_intern(&reg, "softirq.NET.RX.cpu5", 19, SERIES_COUNTER32, 1, "softirqs", 1.0,
	                      &l);

	assert_int_equal(series_matcher_set(&reg, &m[0], "cpu", "3", &err), 0);
	n = series_select(&reg, m, 1, &out);
	assert_int_equal(n, 1);
	assert_int_equal(out[0], sirq);
	free(out);

	assert_int_equal(series_matcher_set(&reg, &m[0], "source", "softirqs", &err), 0);
	assert_int_equal(series_matcher_set(&reg, &m[1], "type", "NET.RX", &err), 0);
	n = series_select(&reg, m, 2, &out);
	assert_int_equal(n, 2);
	assert_int_equal(out[0], sirq);
	assert_int_equal(out[1], sirq5);
	free(out);

	/* cpu in a set */
	cpuset_zero(&set);
	cpuset_add(&set, 5);
	cpuset_add(&set, 7);
	m[1].key = SERIES_KEY_CPU;
	m[1].cpus = &set;
	m[1].never = false;
	n = series_select(&reg, m, 2, &out);
	assert_int_equal(n, 1);
	assert_int_equal(out[0], sirq5);
	free(out);

	assert_int_equal(series_matcher_set(&reg, &m[0], "device", "eth0.cpu3", &err), 0);
	assert_true(series_matches(&reg, dev, m, 1));
	assert_false(series_matches(&reg, sirq, m, 1));
	assert_int_equal(series_matcher_set(&reg, &m[0], "device", "eth0", &err), 0);
	assert_true(m[0].never);
	assert_false(series_matches(&reg, dev, m, 1));
	assert_int_equal(series_matcher_set(&reg, &m[0], "direction", "rx", &err), 0);
	assert_true(series_matches(&reg, dev, m, 1));
	assert_false(series_matches(&reg, sirq, m, 1));
	assert_int_equal(series_matcher_set(&reg, &m[0], "unit", "packets", &err), 0);
	assert_true(series_matches(&reg, dev, m, 1));
	assert_false(series_matches(&reg, sirq, m, 1));
	assert_int_equal(series_matcher_set(&reg, &m[0], "cpu", "-1", &err), 0);
	assert_true(series_matches(&reg, dev, m, 1));

	assert_int_equal(series_matcher_set(&reg, &m[0], "colour", "red", &err), -1);
	assert_int_equal(err.code, NM_ERR_BAD_ARGS);
	assert_int_equal(series_matcher_set(&reg, &m[0], "cpu", "3x", &err), -1);
	assert_int_equal(series_matcher_set(&reg, &m[0], "cpu", "9000", &err), -1);
	assert_int_equal(series_matcher_set(&reg, &m[0], "direction", "up", &err), -1);
	series_registry_free(&reg);
}

/* The unit of a counter known by its name, by family (proto/PROTOCOL.md, Labels). */
static void
test_unit_guess(void **state)
{
	static const struct {
		const char *field, *unit;
		bool gauge;
	} cases[] = {
	    {"InOctets", "bytes", false},
	    {"rx_bytes", "bytes", false},
	    {"TCPSynRetrans", "segments", false},
	    {"RetransSegs", "segments", false},
	    {"InSegs", "segments", false},
	    {"InDatagrams", "packets", false},
	    {"InErrors", "errors", false},
	    {"AttemptFails", "errors", false},
	    {"InCsumErrors", "errors", false},
	    {"ListenDrops", "drops", false},
	    {"InDiscards", "drops", false},
	    {"rx_out_of_buffer", "drops", false},
	    {"rx_missed_errors", "drops", false},
	    {"ActiveOpens", "connections", false},
	    {"CurrEstab", "connections", true},
	    {"OutPkts", "packets", false},
	    {"ReasmOKs", "packets", false},
	    {"Forwarding", "value", true},
	    {"TCPTimeouts", "events", false},
	    /* The families SNMP and lnstat counters fell out of as "events". */
	    {"InReceives", "packets", false},
	    {"InDelivers", "packets", false},
	    {"OutRequests", "packets", false},
	    {"NoPorts", "packets", false},
	    {"ListenOverflows", "drops", false},
	    {"OfoPruned", "drops", false},
	    {"OutRsts", "segments", false},
	    {"TCPPureAcks", "segments", false},
	    {"DelayedACKs", "segments", false},
	    {"TCPOrigDataSent", "segments", false},
	    {"TCPAbortOnData", "connections", false},
	    {"TWKilled", "connections", false},
	    {"lookups", "lookups", false},
	    {"hits", "lookups", false},
	    {"allocs", "entries", false},
	    {"periodic_gc_runs", "runs", false},
	    {"insert", "connections", false},
	    {"insert_failed", "errors", false},
	    {"invalid", "errors", false},
	    {"early_drop", "drops", false},
	    {"in_martian_src", "errors", false},
	    {"in_no_route", "packets", false},
	    {"RtoMin", "ms", true},
	    {"DefaultTTL", "hops", true},
	    {"TCPLossProbes", "events", false},
	    {"hash_grows", "events", false},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *u =
		    series_unit_guess(cases[i].field, strlen(cases[i].field), cases[i].gauge);
		if (strcmp(u, cases[i].unit) != 0)
			fail_msg("%s: unit %s, expected %s", cases[i].field, u, cases[i].unit);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_atoms),
	    cmocka_unit_test(test_labels_kept),
	    cmocka_unit_test(test_select_not_by_name),
	    cmocka_unit_test(test_unit_guess),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
