/* test-devlist.c: one devlist shared by an ethtool and a queues source, as the sampler shares
 * it, on a gen-host.py fixture (two mlx5 ports, eth0 busy and eth1 idle): the second source
 * at the same time takes the first one's listing and reads, both report what they report
 * alone, a later time reads again, the ethtool source puts what changed since its own last
 * sample after it missed a read, and entries go with their device or when nobody asks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "devlist.h"
#include "series.h"
#include "source-harness.h"
#include "source.h"

#define GEN    "--cpus 4 --queues 4 --only ethtool"
#define SECOND 1000000000ull
#define T0     (100 * SECOND) /* a sampler time: any but 0 */

/* Counters per fixture device: 10 globals, 4 channel events, 5 per rx queue, 3 per tx one. */
#define NCOUNTERS (10 + 4 + 4 * 5 + 4 * 3)

/* Packets of rx queue q of port (eth0 or eth1) at fixture step k, as gen-host.py makes
 * them: eth0's queues move, eth1's do not. */
static uint64_t
rx_packets(int port, int q, int k)
{
	return 1000ull * (uint64_t)(q + 1) +
	       (port == 0 ? (20000ull + 100ull * q) * (uint64_t)k : 0);
}

/* The worlds of one test: an ethtool and a queues source on one shared devlist, and the same
 * two sources alone (own devlists, always reading) to compare with. */
struct shared {
	struct world alone_eth; /* owns the fixture dir */
	struct world alone_q;
	struct world eth;
	struct world q;
	struct devlist *dl;
};

/* Set up the four worlds on a fixture at step 0 and start them; eth_devices filters the
 * shared ethtool source when not NULL. */
static void
shared_init(struct shared *t, const char *eth_devices)
{
	harness_init(&t->alone_eth, &source_ethtool_ops, NULL);
	harness_gen(&t->alone_eth, GEN);
	harness_init(&t->alone_q, &source_queues_ops, t->alone_eth.dir);
	harness_init(&t->eth, &source_ethtool_ops, t->alone_eth.dir);
	harness_init(&t->q, &source_queues_ops, t->alone_eth.dir);
	t->alone_eth.src.index = t->eth.src.index = 6;
	t->alone_q.src.index = t->q.src.index = 5;
	t->dl = devlist_new();
	t->dl->reuse_ns = 0; /* these tests count the listings of each sample time */
	t->eth.src.devlist = t->dl;
	t->q.src.devlist = t->dl;
	if (eth_devices != NULL)
		harness_configure(&t->eth, "devices", eth_devices);
	harness_start(&t->alone_eth);
	harness_start(&t->alone_q);
	harness_start(&t->eth);
	harness_start(&t->q);
}

/* Free the sources before the devlist they share, and the dir's owner last. */
static void
shared_free(struct shared *t)
{
	harness_free(&t->eth);
	harness_free(&t->q);
	harness_free(&t->alone_q);
	devlist_free(t->dl);
	harness_free(&t->alone_eth);
}

/* Rewrite the fixture at step k (in place). */
static void
shared_step(struct shared *t, int k)
{
	char args[128];

	snprintf(args, sizeof(args), GEN " --step %d", k);
	harness_gen(&t->alone_eth, args);
}

/* Sample w once at sampler time ns. */
static void
sample_at(struct world *w, uint64_t ns)
{
	w->src.sample_ns = ns;
	harness_sample(w);
}

/* b's last sample put exactly the series a's last sample put, with the same values. */
static void
check_same_puts(struct world *a, struct world *b)
{
	for (series_id id = 0; id < a->reg.n; id++) {
		const char *name = a->reg.v[id].name;
		series_id bid = harness_find(b, name);
		if (a->sink.put[id] != b->sink.put[bid])
			fail_msg("%s: put %d alone, %d shared", name, a->sink.put[id],
			         b->sink.put[bid]);
		if (a->sink.put[id] && a->sink.val[id] != b->sink.val[bid])
			fail_msg("%s: %llu alone, %llu shared", name,
			         (unsigned long long)a->sink.val[id],
			         (unsigned long long)b->sink.val[bid]);
	}
	assert_int_equal(a->reg.n, b->reg.n);
	assert_int_equal(a->sink.nput, b->sink.nput);
}

/* Every series of a has the same last value in b. */
static void
check_same_values(struct world *a, struct world *b)
{
	for (series_id id = 0; id < a->reg.n; id++) {
		const char *name = a->reg.v[id].name;
		if (harness_value(a, name) != harness_value(b, name))
			fail_msg("%s: %llu alone, %llu shared", name,
			         (unsigned long long)harness_value(a, name),
			         (unsigned long long)harness_value(b, name));
	}
	assert_int_equal(a->reg.n, b->reg.n);
}

/* Sample the sources alone too: the shared ones put what they put (puts) or hold the
 * values they hold. */
static void
check_alone(struct shared *t, bool puts)
{
	harness_sample(&t->alone_q);
	harness_sample(&t->alone_eth);
	if (puts) {
		check_same_puts(&t->alone_q, &t->q);
		check_same_puts(&t->alone_eth, &t->eth);
	} else {
		check_same_values(&t->alone_q, &t->q);
		check_same_values(&t->alone_eth, &t->eth);
	}
}

/* Sample w once at sampler time ns in the round that began at round_ns. */
static void
sample_in_round(struct world *w, uint64_t ns, uint64_t round_ns)
{
	w->src.round_ns = round_ns;
	sample_at(w, ns);
	w->src.round_ns = 0;
}

/* Sources sampled back to back share their round's reads however long the first one took
 * (the queues source on a 144-queue NIC takes longer than DEVLIST_FRESH_NS, so the ethtool
 * source after it parsed every device's text again); out of a round, the sample times
 * decide as before. */
static void
test_round_reads(void **state)
{
	struct shared t;

	(void)state;
	shared_init(&t, NULL);
	sample_in_round(&t.q, T0, T0);
	assert_int_equal(t.dl->reads, 2);
	sample_in_round(&t.eth, T0 + 3 * DEVLIST_FRESH_NS, T0);
	assert_int_equal(t.dl->reads, 2);
	assert_int_equal(t.dl->scans, 1);
	check_alone(&t, true);

	/* No round (a source sampled on its own): a later sample time reads again. */
	shared_step(&t, 1);
	sample_at(&t.q, T0 + SECOND);
	assert_int_equal(t.dl->reads, 4);
	sample_at(&t.eth, T0 + SECOND + 3 * DEVLIST_FRESH_NS);
	assert_int_equal(t.dl->reads, 6);
	check_alone(&t, false);
	shared_free(&t);
}

/* Two sources at one time read once; a later time reads again; the values are those of each
 * source alone. */
static void
test_shared_reads(void **state)
{
	struct shared t;

	(void)state;
	shared_init(&t, NULL);

	/* Step 0: queues lists and reads both devices, ethtool at the same time takes them. */
	sample_at(&t.q, T0);
	assert_int_equal(t.dl->reads, 2);
	assert_int_equal(t.dl->scans, 1);
	sample_at(&t.eth, T0);
	assert_int_equal(t.dl->reads, 2);
	assert_int_equal(t.dl->scans, 1);
	assert_int_equal(t.dl->nentries, 2);
	check_alone(&t, true);
	assert_int_equal(t.eth.reg.n, 2 * NCOUNTERS);
	assert_int_equal(t.eth.sink.nput, 2 * NCOUNTERS);
	assert_int_equal(harness_value(&t.eth, "ethtool.eth0.rx1_packets"), rx_packets(0, 1, 0));
	assert_int_equal(harness_value(&t.q, "queue.eth0.rx1.packets"), rx_packets(0, 1, 0));
	assert_int_equal(harness_value(&t.q, "queue.eth1.rx3.packets"), rx_packets(1, 3, 0));

	/* The same read again, even a moment later: nothing read, nothing new to put. */
	sample_at(&t.eth, T0 + DEVLIST_FRESH_NS / 2);
	assert_int_equal(t.dl->reads, 2);
	assert_int_equal(t.dl->scans, 1);
	assert_int_equal(t.eth.sink.nput, 0);

	/* Step 1, the next round: one read per device; ethtool puts just what changed. */
	shared_step(&t, 1);
	sample_at(&t.q, T0 + SECOND);
	assert_int_equal(t.dl->reads, 4);
	sample_at(&t.eth, T0 + SECOND);
	assert_int_equal(t.dl->reads, 4);
	assert_int_equal(t.dl->scans, 2);
	check_alone(&t, true);
	assert_true(t.eth.sink.nput > 0 && t.eth.sink.nput < 2 * NCOUNTERS);
	assert_false(t.eth.sink.put[harness_find(&t.eth, "ethtool.eth1.rx0_packets")]);
	assert_int_equal(harness_value(&t.eth, "ethtool.eth0.rx1_packets"), rx_packets(0, 1, 1));
	assert_int_equal(harness_value(&t.eth, "ethtool.eth0.rx_out_of_buffer"), 2);
	assert_int_equal(harness_value(&t.q, "queue.eth0.rx2.packets"), rx_packets(0, 2, 1));

	/* Step 2, ethtool 3 ms after queues: past the window, so both list and read. Queues
	 * read in between, so ethtool puts every counter, with the right values. */
	shared_step(&t, 2);
	sample_at(&t.q, T0 + 2 * SECOND);
	sample_at(&t.eth, T0 + 2 * SECOND + 3000000);
	assert_int_equal(t.dl->reads, 8);
	assert_int_equal(t.dl->scans, 4);
	harness_sample(&t.alone_q);
	harness_sample(&t.alone_eth);
	check_same_puts(&t.alone_q, &t.q);
	assert_int_equal(t.eth.sink.nput, 2 * NCOUNTERS);
	check_same_values(&t.alone_eth, &t.eth);
	assert_int_equal(harness_value(&t.eth, "ethtool.eth0.rx3_packets"), rx_packets(0, 3, 2));

	shared_free(&t);
}

/* Queues reads alone for a round; the ethtool source's next sample, sharing queues' read,
 * still puts what changed since its own last sample, including a counter that changed in
 * the round it missed and not since. */
static void
test_missed_read(void **state)
{
	struct shared t;
	series_id lro;

	(void)state;
	shared_init(&t, NULL);
	sample_at(&t.q, T0);
	sample_at(&t.eth, T0);
	harness_sample(&t.alone_eth);
	lro = harness_find(&t.eth, "ethtool.eth1.rx_lro_packets");
	assert_int_equal(harness_value(&t.eth, "ethtool.eth1.rx_lro_packets"), 0);

	/* Step 1: eth1's rx_lro_packets moves to 7; only queues samples. */
	shared_step(&t, 1);
	harness_edit(&t.alone_eth, "ethtool/eth1.txt", "rx_lro_packets: 0", "rx_lro_packets: 7");
	sample_at(&t.q, T0 + SECOND);
	assert_int_equal(t.dl->reads, 4);

	/* Step 2: rx_lro_packets stays at 7, so the read's changed list lacks it. */
	shared_step(&t, 2);
	harness_edit(&t.alone_eth, "ethtool/eth1.txt", "rx_lro_packets: 0", "rx_lro_packets: 7");
	sample_at(&t.q, T0 + 2 * SECOND);
	assert_int_equal(t.dl->reads, 6);
	sample_at(&t.eth, T0 + 2 * SECOND);
	assert_int_equal(t.dl->reads, 6);
	assert_true(t.eth.sink.put[lro]);
	assert_int_equal(t.eth.sink.val[lro], 7);
	assert_int_equal(harness_value(&t.eth, "ethtool.eth0.rx0_packets"), rx_packets(0, 0, 2));
	/* Alone, skipping the same round, the source puts a subset of those, the same values. */
	harness_sample(&t.alone_eth);
	assert_true(
	    t.alone_eth.sink.put[harness_find(&t.alone_eth, "ethtool.eth1.rx_lro_packets")]);
	for (series_id id = 0; id < t.alone_eth.reg.n; id++)
		if (t.alone_eth.sink.put[id])
			assert_true(
			    t.eth.sink.put[harness_find(&t.eth, t.alone_eth.reg.v[id].name)]);
	check_same_values(&t.alone_eth, &t.eth);

	/* Back in step: the next shared read's changed list is used again. */
	shared_step(&t, 3);
	harness_edit(&t.alone_eth, "ethtool/eth1.txt", "rx_lro_packets: 0", "rx_lro_packets: 7");
	sample_at(&t.q, T0 + 3 * SECOND);
	sample_at(&t.eth, T0 + 3 * SECOND);
	harness_sample(&t.alone_eth);
	check_same_puts(&t.alone_eth, &t.eth);
	assert_false(t.eth.sink.put[lro]);
	shared_free(&t);
}

/* Replace rel below w's dir by a new file (a new inode) holding text. */
static void
replace_file(struct world *w, const char *rel, const char *text)
{
	char tmp[512], path[512];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/new.tmp", w->dir);
	snprintf(path, sizeof(path), "%s/%s", w->dir, rel);
	f = fopen(tmp, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(rename(tmp, path), 0);
}

/* An entry nobody asks for goes after DEVLIST_IDLE_NS, a replaced file is read anew, a
 * removed one takes its entry and series with it. */
static void
test_entries(void **state)
{
	struct shared t;

	(void)state;
	shared_init(&t, "eth0");
	sample_at(&t.q, T0);
	sample_at(&t.eth, T0);
	assert_int_equal(t.dl->nentries, 2);
	assert_int_equal(t.eth.reg.n, NCOUNTERS);

	/* eth1 is read by queues only; queues stops. */
	sample_at(&t.eth, T0 + DEVLIST_IDLE_NS / 2);
	assert_int_equal(t.dl->nentries, 2);
	sample_at(&t.eth, T0 + DEVLIST_IDLE_NS + SECOND);
	assert_int_equal(t.dl->nentries, 1);
	assert_string_equal(t.dl->entries[0]->name, "eth0");

	/* eth0.txt replaced by a new file: the kept fd is let go, the new text read. */
	replace_file(&t.alone_eth, "ethtool/eth0.txt",
	             "NIC statistics:\n     rx_packets: 42\n     tx_packets: 43\n");
	sample_at(&t.eth, T0 + DEVLIST_IDLE_NS + 2 * SECOND);
	assert_int_equal(harness_value(&t.eth, "ethtool.eth0.rx_packets"), 42);
	assert_int_equal(harness_value(&t.eth, "ethtool.eth0.tx_packets"), 43);
	assert_true(t.eth.sink.gone[harness_find(&t.eth, "ethtool.eth0.rx0_packets")]);

	/* eth0 removed: its entry and its series go. */
	harness_write(&t.alone_eth, "ethtool/eth0.txt", NULL);
	sample_at(&t.eth, T0 + DEVLIST_IDLE_NS + 3 * SECOND);
	assert_int_equal(t.dl->nentries, 0);
	assert_true(t.eth.sink.gone[harness_find(&t.eth, "ethtool.eth0.rx_packets")]);
	shared_free(&t);
}

/* Set the mtime of w's ethtool directory an hour back: a listing made now is sure. */
static void
age_directory(struct world *w)
{
	struct timespec ts[2];
	char path[512];

	snprintf(path, sizeof(path), "%s/ethtool", w->dir);
	assert_int_equal(clock_gettime(CLOCK_REALTIME, &ts[0]), 0);
	ts[0].tv_sec -= 3600;
	ts[1] = ts[0];
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* At a fine interval a listing stands for later samples while the directory's mtime does not
 * move (up to DEVLIST_REUSE_NS); a device added, a listing made while the mtime was fresh
 * and an old listing all list again; the counters are read at every sample either way. */
static void
test_listing_reuse(void **state)
{
	const uint64_t ms = 1000000;
	struct shared t;

	(void)state;
	shared_init(&t, NULL);
	t.dl->reuse_ns = DEVLIST_REUSE_NS;
	age_directory(&t.alone_eth);
	sample_at(&t.q, T0);
	assert_int_equal(t.dl->scans, 1);

	/* The files change in place, not the directory: no new listing, new values read. */
	shared_step(&t, 1);
	age_directory(&t.alone_eth);
	sample_at(&t.q, T0 + 10 * ms);
	sample_at(&t.q, T0 + 20 * ms);
	assert_int_equal(t.dl->scans, 2); /* the step may have touched the directory: once */
	sample_at(&t.q, T0 + 30 * ms);
	assert_int_equal(t.dl->scans, 2);
	assert_true(t.dl->reused >= 2);
	assert_int_equal(harness_value(&t.q, "queue.eth0.rx1.packets"), rx_packets(0, 1, 1));
	assert_int_equal(t.dl->reads, 8);

	/* A device added: the mtime moved, listed again; the mtime is fresh then, so the next
	 * sample lists again too; once it is old, the listing stands. */
	replace_file(&t.alone_eth, "ethtool/eth2.txt",
	             "NIC statistics:\n     rx_queue_0_packets: 5\n");
	sample_at(&t.q, T0 + 40 * ms);
	assert_int_equal(t.dl->scans, 3);
	assert_int_equal(t.dl->nnames, 3);
	sample_at(&t.q, T0 + 50 * ms);
	assert_int_equal(t.dl->scans, 4);
	age_directory(&t.alone_eth);
	sample_at(&t.q, T0 + 60 * ms);
	assert_int_equal(t.dl->scans, 5); /* the mtime moved (back) */
	sample_at(&t.q, T0 + 70 * ms);
	assert_int_equal(t.dl->scans, 5);

	/* A listing older than DEVLIST_REUSE_NS is made again. */
	sample_at(&t.q, T0 + 60 * ms + DEVLIST_REUSE_NS);
	assert_int_equal(t.dl->scans, 6);
	shared_free(&t);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shared_reads),  cmocka_unit_test(test_round_reads),
	    cmocka_unit_test(test_missed_read),   cmocka_unit_test(test_entries),
	    cmocka_unit_test(test_listing_reuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
