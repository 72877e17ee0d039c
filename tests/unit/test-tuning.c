/* test-tuning.c: the tuning a result records, read from a fixture root of an 8-CPU host
 * whose eth0 and eth1 have 4 rx and 4 tx queues (tests/fixtures/gen-host.py): the
 * rps_sock_flow_entries sysctl, per device the queue counts, the queues with RPS and XPS
 * masks and the flow counts, and the applied profile from the state directory. */
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
#include <json-c/json.h>

#include "jsonutil.h"
#include "tuning.h"

struct world {
	char base[64], root[96], state[96];
};

/* Run a shell command; fail the test when it fails. */
static void
run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

/* Write text to a file below dir. */
static void
put(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_non_null(fp = fopen(path, "w"));
	fputs(text, fp);
	fclose(fp);
}

/* A fresh fixture and an empty state directory. */
static int
setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));

	snprintf(w->base, sizeof(w->base), "/tmp/nm-test-tuning-XXXXXX");
	assert_non_null(mkdtemp(w->base));
	snprintf(w->root, sizeof(w->root), "%s/root", w->base);
	snprintf(w->state, sizeof(w->state), "%s/state", w->base);
	run("python3 %s/gen-host.py %s --cpus 8 --queues 4 --irqs 60 --only sys,sysctl",
	    FIXTURE_DIR, w->root);
	run("mkdir -p %s/profile", w->state);
	*state = w;
	return 0;
}

static int
teardown(void **state)
{
	struct world *w = *state;

	run("rm -rf %s", w->base);
	free(w);
	return 0;
}

/* The devices of a report: eth0 moved on the link and its queues, lo too, eth1 not. */
static json_object *
report(void)
{
	json_object *r = json_tokener_parse("{\"figures\":{\"devices\":[{\"name\":\"lo\"},"
	                                    "{\"name\":\"eth0\"},{\"name\":\"gone0\"}],"
	                                    "\"queues\":{\"devices\":[{\"name\":\"eth0\"}]}}}");

	assert_non_null(r);
	return r;
}

/* An integer member at a dotted path ("devices.0.rx_queues"); -1 for null. */
static long long
get(json_object *o, const char *path)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k != NULL; k = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(k));
		else if (!json_object_object_get_ex(o, k, &o))
			fail_msg("no member %s of %s", k, path);
	}
	return o == NULL ? -1 : json_object_get_int64(o);
}

/* The fixture as generated: no flow table, no RPS, XPS one to one; lo and devices that
 * are gone are left out; no profile applied. */
static void
test_pristine(void **state)
{
	struct world *w = *state;
	json_object *r = report(), *t = tuning_read(w->root, w->state, r), *p;

	assert_int_equal(get(t, "rps_sock_flow_entries"), 0);
	assert_int_equal(json_object_array_length(json_object_object_get(t, "devices")), 1);
	assert_string_equal(
	    json_object_get_string(json_object_object_get(
	        json_object_array_get_idx(json_object_object_get(t, "devices"), 0), "name")),
	    "eth0");
	assert_int_equal(get(t, "devices.0.rx_queues"), 4);
	assert_int_equal(get(t, "devices.0.tx_queues"), 4);
	assert_int_equal(get(t, "devices.0.rps_queues"), 0);
	assert_int_equal(get(t, "devices.0.flow_cnt"), 0);
	assert_int_equal(get(t, "devices.0.xps_queues"), 4);
	assert_true(json_object_object_get_ex(t, "profile", &p) && p == NULL);
	/* The fixture's ethtool text (4 combined channels, GRO on, LRO off), no NAPI files. */
	assert_int_equal(get(t, "devices.0.channels.combined"), 4);
	assert_int_equal(get(t, "devices.0.offloads.rx-gro"), 1);
	assert_int_equal(get(t, "devices.0.offloads.rx-lro"), 0);
	assert_int_equal(get(t, "devices.0.napi.threaded"), -1);
	json_object_put(t);
	json_object_put(r);
}

/* The NIC knobs: channel counts, offloads (as booleans) and the device's NAPI files. */
static void
test_nic_knobs(void **state)
{
	struct world *w = *state;
	json_object *r = report(), *t, *off;

	run("mkdir -p %s/ethtool", w->root);
	put(w->root, "ethtool/eth0.channels",
	    "Channel parameters for eth0:\nPre-set maximums:\nRX:\t\t8\nTX:\t\t8\n"
	    "Other:\t\tn/a\nCombined:\tn/a\nCurrent hardware settings:\nRX:\t\t2\n"
	    "TX:\t\t3\nOther:\t\tn/a\nCombined:\tn/a\n");
	put(w->root, "ethtool/eth0.features",
	    "Features for eth0:\ngeneric-receive-offload: on\nlarge-receive-offload: off "
	    "[fixed]\nrx-gro-hw: off\n");
	put(w->root, "ethtool/eth0.rings",
	    "Ring parameters for eth0:\nPre-set maximums:\nRX:\t\t8192\nTX:\t\t8192\n"
	    "Current hardware settings:\nRX:\t\t4096\nTX:\t\t1024\n");
	put(w->root, "ethtool/eth0.coalesce",
	    "Coalesce parameters for eth0:\nAdaptive RX: off  TX: on\n\nrx-usecs: 8\n");
	put(w->root, "ethtool/eth0.rss",
	    "RX flow hash indirection table for eth0 with 2 RX ring(s):\n"
	    "    0:      0     0     0     1     0     0     0     1\n"
	    "RSS hash key:\n01:02\nRSS hash function:\n    toeplitz: off\n    xor: on\n"
	    "    crc32: off\nrx-flow-hash tcp4: sdfn\n");
	put(w->root, "sys/class/net/eth0/gro_flush_timeout", "20000\n");
	put(w->root, "sys/class/net/eth0/napi_defer_hard_irqs", "2\n");
	put(w->root, "sys/class/net/eth0/threaded", "1\n");
	t = tuning_read(w->root, w->state, r);
	assert_int_equal(get(t, "devices.0.channels.rx"), 2);
	assert_int_equal(get(t, "devices.0.channels.tx"), 3);
	assert_int_equal(get(t, "devices.0.channels.max_rx"), 8);
	assert_int_equal(get(t, "devices.0.coalesce.rx-usecs"), 8);
	assert_int_equal(get(t, "devices.0.coalesce.adaptive-rx"), 0);
	assert_int_equal(get(t, "devices.0.coalesce.adaptive-tx"), 1);
	assert_int_equal(get(t, "devices.0.rings.rx"), 4096);
	assert_int_equal(get(t, "devices.0.rings.tx"), 1024);
	assert_int_equal(get(t, "devices.0.rings.max_rx"), 8192);
	assert_int_equal(get(t, "devices.0.napi.gro_flush_timeout"), 20000);
	assert_int_equal(get(t, "devices.0.napi.napi_defer_hard_irqs"), 2);
	assert_int_equal(get(t, "devices.0.napi.threaded"), 1);
	assert_int_equal(get(t, "devices.0.rss.entries"), 8);
	assert_int_equal(get(t, "devices.0.rss.queues.0"), 6);
	assert_int_equal(get(t, "devices.0.rss.queues.1"), 2);
	assert_int_equal(get(t, "devices.0.rss.equal"), -1);
	off = json_object_object_get(
	    json_object_array_get_idx(json_object_object_get(t, "devices"), 0), "rss");
	assert_string_equal(json_object_get_string(json_object_object_get(off, "hfunc")), "xor");
	assert_string_equal(json_object_get_string(json_object_object_get(off, "hkey")), "01:02");
	assert_string_equal(json_object_get_string(json_object_object_get(
	                        json_object_object_get(off, "fields"), "tcp4")),
	                    "sdfn");
	off = json_object_object_get(
	    json_object_array_get_idx(json_object_object_get(t, "devices"), 0), "offloads");
	assert_string_equal(json_object_to_json_string_ext(off, JSON_C_TO_STRING_PLAIN),
	                    "{\"rx-gro\":true,\"rx-lro\":false,\"rx-gro-hw\":false}");
	json_object_put(t);
	json_object_put(r);
}

/* RFS and RPS set on some queues, a profile recorded as applied (the kinds it turned on);
 * then a kernel without RPS (no rps_cpus files). */
static void
test_tuned(void **state)
{
	struct world *w = *state;
	json_object *r = report(), *t, *kinds;
	const char *q = "sys/class/net/eth0/queues";
	char rel[128];

	put(w->root, "proc/sys/net/core/rps_sock_flow_entries", "4096\n");
	snprintf(rel, sizeof(rel), "%s/rx-1/rps_cpus", q);
	put(w->root, rel, "0f\n");
	snprintf(rel, sizeof(rel), "%s/rx-1/rps_flow_cnt", q);
	put(w->root, rel, "512\n");
	snprintf(rel, sizeof(rel), "%s/rx-3/rps_flow_cnt", q);
	put(w->root, rel, "512\n");
	snprintf(rel, sizeof(rel), "%s/tx-2/xps_cpus", q);
	put(w->root, rel, "00\n");
	put(w->state, "profile/applied.json",
	    "{\"version\":1,\"profile\":\"rfs-512\",\"device\":\"eth0\",\"entries\":["
	    "{\"kind\":\"xps\",\"value\":\"00\"},{\"kind\":\"sysctl\",\"value\":\"0\"},"
	    "{\"kind\":\"flow_cnt\",\"value\":\"0\"},{\"kind\":\"flow_cnt\","
	    "\"value\":\"512\"},{\"kind\":\"bogus\",\"value\":\"1\"},{\"kind\":\"rps\"},"
	    "{\"kind\":\"rps\",\"value\":\"0f\"}]}");
	t = tuning_read(w->root, w->state, r);
	assert_int_equal(get(t, "rps_sock_flow_entries"), 4096);
	assert_int_equal(get(t, "devices.0.rps_queues"), 1);
	assert_int_equal(get(t, "devices.0.flow_cnt"), 1024);
	assert_int_equal(get(t, "devices.0.xps_queues"), 3);
	assert_string_equal(json_object_get_string(json_object_object_get(
	                        json_object_object_get(t, "profile"), "name")),
	                    "rfs-512");
	kinds = json_object_object_get(json_object_object_get(t, "profile"), "kinds");
	assert_string_equal(json_object_to_json_string_ext(kinds, JSON_C_TO_STRING_PLAIN),
	                    "[\"sysctl\",\"flow_cnt\",\"rps\"]");
	/* Only what the profile turned on: the empty XPS mask and the 0 flow count are not,
	 * an entry without a value or of an unknown kind says nothing. */
	json_object_put(t);
	/* The profile's device is read even when it did not move. */
	{
		json_object *none = json_tokener_parse("{\"figures\":{}}");
		t = tuning_read(w->root, w->state, none);
		assert_int_equal(json_object_array_length(json_object_object_get(t, "devices")), 1);
		assert_int_equal(get(t, "devices.0.rps_queues"), 1);
		json_object_put(t);
		json_object_put(none);
	}
	run("rm %s/%s/rx-*/rps_cpus %s/%s/rx-*/rps_flow_cnt", w->root, q, w->root, q);
	t = tuning_read(w->root, w->state, r);
	assert_int_equal(get(t, "devices.0.rps_queues"), -1);
	assert_int_equal(get(t, "devices.0.flow_cnt"), -1);
	assert_int_equal(get(t, "devices.0.rx_queues"), 4);
	json_object_put(t);
	json_object_put(r);
}

/* The values the applied profile set, read at both edges of a window: unchanged ones are
 * not flagged, one changed between the edges is, with both values (masks as CPU lists);
 * without a profile at the open, the profile changed; an open edge never read says
 * nothing about it. */
static void
test_knobs_edges(void **state)
{
	struct world *w = *state;
	json_object *open, *close, *t;

	assert_null(tuning_knobs_read(w->root, w->state));
	put(w->root, "sys/class/net/eth0/queues/tx-1/xps_cpus", "0f\n");
	put(w->root, "sys/class/net/eth0/queues/rx-0/rps_cpus", "3\n");
	put(w->state, "profile/applied.json",
	    "{\"version\":1,\"profile\":\"p\",\"device\":\"eth0\",\"time\":\"T1\",\"entries\":["
	    "{\"kind\":\"xps\",\"dev\":\"eth0\",\"index\":1,\"value\":\"0f\"},"
	    "{\"kind\":\"rps\",\"dev\":\"eth0\",\"index\":0,\"value\":\"3\"}]}");
	open = tuning_knobs_read(w->root, w->state);
	assert_non_null(open);
	assert_string_equal(json_object_to_json_string_ext(json_object_object_get(open, "values"),
	                                                   JSON_C_TO_STRING_PLAIN),
	                    "{\"\\/sys\\/class\\/net\\/eth0\\/queues\\/tx-1\\/xps_cpus\":\"0-3\","
	                    "\"\\/sys\\/class\\/net\\/eth0\\/queues\\/rx-0\\/rps_cpus\":\"0-1\"}");
	put(w->root, "sys/class/net/eth0/queues/tx-1/xps_cpus", "01\n");
	close = tuning_knobs_read(w->root, w->state);
	t = json_object_new_object();
	tuning_knobs_edges(t, true, open, close);
	assert_string_equal(
	    json_object_to_json_string_ext(
	        json_object_object_get(json_object_object_get(t, "knobs"), "changed"),
	        JSON_C_TO_STRING_PLAIN),
	    "[{\"path\":\"\\/sys\\/class\\/net\\/eth0\\/queues\\/tx-1\\/xps_cpus\","
	    "\"open\":\"0-3\",\"close\":\"0\"}]");
	assert_false(json_get_bool(json_object_object_get(t, "knobs"), "profile_changed", true));
	json_object_put(t);
	t = json_object_new_object();
	tuning_knobs_edges(t, true, NULL, close);
	assert_true(json_get_bool(json_object_object_get(t, "knobs"), "profile_changed", false));
	json_object_put(t);
	t = json_object_new_object();
	tuning_knobs_edges(t, true, open, NULL); /* reverted during the window */
	assert_true(json_get_bool(json_object_object_get(t, "knobs"), "profile_changed", false));
	assert_int_equal(json_object_array_length(
	                     json_object_object_get(json_object_object_get(t, "knobs"), "changed")),
	                 0);
	json_object_put(t);
	t = json_object_new_object();
	tuning_knobs_edges(t, false, NULL, close);
	assert_null(json_object_object_get(json_object_object_get(t, "knobs"), "profile_changed"));
	json_object_put(t);
	json_object_put(open);
	json_object_put(close);
}

/* The busiest devices of the report first, at most TUNING_MAX_DEVICES, the profile's
 * device before them all. */
static void
test_busiest(void **state)
{
	struct world *w = *state;
	json_object *r, *t, *devs;
	char names[128];

	for (int i = 2; i <= 6; i++)
		run("mkdir %s/sys/class/net/eth%d && cp -r %s/sys/class/net/eth1/queues "
		    "%s/sys/class/net/eth%d/",
		    w->root, i, w->root, w->root, i);
	r = json_tokener_parse("{\"figures\":{\"devices\":[{\"name\":\"eth1\",\"rx_packets\":5},"
	                       "{\"name\":\"eth2\",\"tx_packets\":7},{\"name\":\"lo\","
	                       "\"rx_packets\":900},{\"name\":\"eth3\",\"rx_packets\":1}],"
	                       "\"queues\":{\"devices\":[{\"name\":\"eth4\",\"total\":"
	                       "{\"rx_packets\":500,\"tx_packets\":1}},{\"name\":\"eth2\"}]}}}");
	assert_non_null(r);
	put(w->state, "profile/applied.json",
	    "{\"profile\":\"x\",\"device\":\"eth6\",\"entries\":[]}");
	t = tuning_read(w->root, w->state, r);
	devs = json_object_object_get(t, "devices");
	names[0] = '\0';
	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		size_t l = strlen(names);
		snprintf(names + l, sizeof(names) - l, "%s%s", l ? "," : "",
		         json_object_get_string(
		             json_object_object_get(json_object_array_get_idx(devs, i), "name")));
	}
	assert_int_equal(TUNING_MAX_DEVICES, 4);
	assert_string_equal(names, "eth6,eth4,eth2,eth1");
	json_object_put(t);
	json_object_put(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_pristine, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_nic_knobs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tuned, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_knobs_edges, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_busiest, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
