/* test-profile.c: tuning profiles on a fixture root of a 144-CPU host with a 144-queue mlx5
 * eth0 (tests/fixtures/gen-host.py): every shipped profile parses; bad profiles are refused
 * with a message naming the key; a dry run touches nothing; apply writes every file byte for
 * byte as expected (masks above 64 CPUs included), status sees drift, revert restores the
 * tree exactly and a second revert is harmless; a write that fails half-way (a read-only
 * file) rolls everything back; validation refuses offline and isolated CPUs, missing queues,
 * bad device names and a fixed ntuple feature before writing anything; an [irq] profile
 * applies with the interrupts source disabled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"
#include "error.h"
#include "jsonutil.h"
#include "profile.h"
#include "sampler.h"
#include "daemon.h"
#include "irqtable.h"
#include "strbuf.h"
#include "xmalloc.h"

#define PROFILES_DIR TEST_SRCDIR "/../../conf/profiles"
#define NCPUS        144
#define NQ           144

struct world {
	char base[64];  /* mkdtemp: base/root, base/orig, base/state */
	char root[96];  /* the fixture root the profile works on */
	char orig[96];  /* a pristine copy */
	char state[96]; /* the state directory */
	struct config cfg;
	struct sampler *s;
	struct profile_host h;
	int irq_of_queue[NQ]; /* eth0's mlx5_comp<q> IRQ number */
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

/* Is the tree below the root the same as the pristine copy, byte for byte? */
static bool
tree_same(struct world *w)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "diff -r --no-dereference %s %s", w->orig, w->root);
	return system(cmd) == 0;
}

/* The text of a file below the root (static buffer). */
static const char *
slurp(struct world *w, const char *rel)
{
	static char buf[65536];
	char path[512];
	size_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", w->root, rel);
	if ((fp = fopen(path, "r")) == NULL)
		fail_msg("cannot open %s", path);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return buf;
}

/* Replace a file below the root. */
static void
put(struct world *w, const char *rel, const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", w->root, rel);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* Replace a file of the pristine copy too (a test that changes the fixture itself). */
static void
put_both(struct world *w, const char *rel, const char *text)
{
	char path[512];
	FILE *fp;

	put(w, rel, text);
	snprintf(path, sizeof(path), "%s/%s", w->orig, rel);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* A kernel mask of 144 CPUs with one CPU set, built here independently of cpulist.c: five
 * comma groups, the first of 4 hex digits (CPUs 128-143), the others of 8. */
static void
mask_of(const int *cpus, size_t n, char *buf)
{
	uint32_t g[5] = {0};

	for (size_t i = 0; i < n; i++)
		g[cpus[i] / 32] |= 1u << (cpus[i] % 32);
	sprintf(buf, "%04x,%08x,%08x,%08x,%08x\n", g[4], g[3], g[2], g[1], g[0]);
}

/* Group setup: the fixture, its pristine copy, a sampler with only the interrupts source
 * (for the IRQ table) and eth0's queue IRQs. */
static int
setup_group(void **state)
{
	static const char *const others[] = {"softirqs", "cpu",     "snmp",   "link",  "queues",
	                                     "ethtool",  "softnet", "lnstat", "sysctl"};
	struct world *w = calloc(1, sizeof(*w));
	struct nm_error err;
	const struct irq_info *irqs;
	size_t n;

	/* tmpfs when there is one: every test copies the tree afresh. */
	snprintf(w->base, sizeof(w->base), "%s/nm-test-profile-XXXXXX",
	         access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	assert_non_null(mkdtemp(w->base));
	snprintf(w->root, sizeof(w->root), "%s/root", w->base);
	snprintf(w->orig, sizeof(w->orig), "%s/orig", w->base);
	snprintf(w->state, sizeof(w->state), "%s/state", w->base);
	run("python3 %s/gen-host.py %s --cpus %d --queues %d --irqs 400 "
	    "--only interrupts,irq,sys,sysctl,ethtool",
	    FIXTURE_DIR, w->orig, NCPUS, NQ);
	run("cp -a %s %s", w->orig, w->root);
	config_defaults(&w->cfg);
	free(w->cfg.root);
	w->cfg.root = strdup(w->root);
	w->cfg.ring_memory = 1u << 20;
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		config_add_source_opt(&w->cfg, others[i], "enable", "no");
	w->s = sampler_new(&w->cfg, &err);
	assert_non_null(w->s);
	sampler_sample_all(w->s);
	irqs = sampler_irq_table(w->s, NULL)->v;
	n = sampler_irq_table(w->s, NULL)->n;
	assert_non_null(irqs);
	for (size_t i = 0; i < n; i++) {
		unsigned q;
		char tail[32];
		if (sscanf(irqs[i].name, "mlx5_comp%u@pci:%31s", &q, tail) == 2 && q < NQ &&
		    strcmp(tail, "0000:08:00.0") == 0)
			w->irq_of_queue[q] = irqs[i].irq;
	}
	for (unsigned q = 0; q < NQ; q++)
		assert_true(w->irq_of_queue[q] > 0);
	*state = w;
	return 0;
}

/* Remove the fixture and the sampler. */
static int
teardown_group(void **state)
{
	struct world *w = *state;

	sampler_free(w->s);
	config_free(&w->cfg);
	run("rm -rf %s", w->base);
	free(w);
	return 0;
}

/* Per test: a pristine root, no saved state, a host on eth0 with the IRQ table. */
static int
setup(void **state)
{
	struct world *w = *state;
	struct nm_error err;

	run("rm -rf %s %s && cp -a %s %s", w->root, w->state, w->orig, w->root);
	assert_int_equal(mkdir(w->state, 0750), 0);
	assert_int_equal(profile_host_open(&w->h, w->root, &err), 0);
	w->h.irqs = sampler_irq_table(w->s, NULL)->v;
	w->h.nirqs = sampler_irq_table(w->s, NULL)->n;
	if (profile_host_set_device(&w->h, "eth0", &err) < 0)
		fail_msg("%s", err.message);
	return 0;
}

/* Close the host. */
static int
teardown(void **state)
{
	struct world *w = *state;

	profile_host_close(&w->h);
	return 0;
}

/* Parse INI text; fail the test with the message when it does not parse. */
static void
parse_ok(struct profile *p, const char *text)
{
	struct nm_error err;

	if (profile_parse_ini(p, "t", text, strlen(text), &err) < 0)
		fail_msg("profile does not parse: %s", err.message);
}

/* Parse, plan and apply as the daemon does. 0, or -1 with err. */
static int
apply_text(struct world *w, const char *text, struct nm_error *err)
{
	struct profile_origin o = {"t", "test", 0, 1};
	struct profile p;
	struct plan pl;
	int r;

	parse_ok(&p, text);
	plan_init(&pl);
	r = plan_build(&pl, &p, &w->h, err);
	if (r == 0)
		r = profile_apply(w->state, &pl, &w->h, &o, err);
	plan_free(&pl);
	profile_free(&p);
	return r;
}

/* Does a state file exist? */
static bool
state_file(struct world *w, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/profile/%s", w->state, name);
	return access(path, F_OK) == 0;
}

/* Every file in conf/profiles parses; the example parses to what it says. */
static void
test_shipped_profiles(void **state)
{
	json_object *list = profile_list_json(PROFILES_DIR), *o;
	static const char *const want[] = {
	    "arfs-1024", "arfs-512",      "defaults",   "example-eth0", "rps-all",
	    "spread",    "napi-threaded", "throughput", "latency",      "many-flows"};
	struct profile p;
	struct nm_error err;
	char path[4096];
	size_t n = json_object_array_length(list), found = 0;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		o = json_object_array_get_idx(list, i);
		if (json_object_object_get_ex(o, "error", NULL))
			fail_msg("%s", json_get_string(o, "error", ""));
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
			found += strcmp(json_get_string(o, "name", ""), want[k]) == 0;
	}
	assert_int_equal(found, sizeof(want) / sizeof(want[0]));
	json_object_put(list);

	assert_int_equal(profile_load(&p, PROFILES_DIR, "example-eth0", path, sizeof(path), &err),
	                 0);
	assert_string_equal(p.device, "eth0");
	assert_int_equal(p.irq.policy, PROFILE_POLICY_SPREAD);
	assert_int_equal(p.irq.cpus.kind, PROFILE_CPUS_SET);
	assert_int_equal(cpuset_count(&p.irq.cpus.set), 144);
	assert_int_equal(p.xps.policy, PROFILE_POLICY_ONE_TO_ONE);
	assert_int_equal(p.rfs, PROFILE_SWITCH_ON);
	assert_int_equal(p.flow_cnt, 512);
	assert_int_equal(p.sock_mode, PROFILE_SOCK_DEFAULT);
	profile_free(&p);
	assert_int_equal(profile_load(&p, PROFILES_DIR, "napi-threaded", path, sizeof(path), &err),
	                 0);
	assert_int_equal(p.channels.rx, 2);
	assert_int_equal(p.channels.tx, 2);
	assert_int_equal(p.noffloads, 2);
	assert_string_equal(p.offloads[0].name, "rx-gro");
	assert_true(p.offloads[0].on);
	assert_true(p.napi.has_gro_flush_timeout && p.napi.gro_flush_timeout == 20000);
	assert_true(p.napi.has_defer_hard_irqs && p.napi.defer_hard_irqs == 2);
	assert_int_equal(p.napi.threaded, PROFILE_SWITCH_ON);
	profile_free(&p);
	assert_int_equal(profile_load(&p, PROFILES_DIR, "../etc/passwd", path, sizeof(path), &err),
	                 -1);
	assert_int_equal(profile_load(&p, PROFILES_DIR, "nosuch", path, sizeof(path), &err), -1);
	assert_int_equal(err.code, NM_ERR_NOT_FOUND);
	/* A file by path wherever a name is taken: labelled by its base name. */
	{
		char abs[4096];
		assert_non_null(realpath(PROFILES_DIR "/rps-all.conf", abs));
		assert_int_equal(profile_load(&p, "/nonexistent", abs, path, sizeof(path), &err),
		                 0);
		assert_string_equal(p.name, "rps-all");
		assert_string_equal(path, abs);
		profile_free(&p);
	}
	assert_int_equal(profile_load(&p, PROFILES_DIR, "rel/x.conf", path, sizeof(path), &err),
	                 -1);
	assert_non_null(strstr(err.message, "absolute path"));
	assert_int_equal(
	    profile_load(&p, PROFILES_DIR, "/nonexistent/x.conf", path, sizeof(path), &err), -1);
	assert_int_equal(err.code, NM_ERR_NOT_FOUND);
	assert_string_equal(err.message, "no profile file /nonexistent/x.conf");
	/* A template's description keeps its ${NAME}: not "RFS with 1 flows per rx queue". */
	list = profile_list_json(PROFILES_DIR);
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		o = json_object_array_get_idx(list, i);
		if (strcmp(json_get_string(o, "name", ""), "rfs-template") == 0)
			assert_string_equal(
			    json_get_string(o, "description", ""),
			    "RFS with ${rfs} flows per rx queue (a suite template)");
	}
	json_object_put(list);
}

/* Bad profiles: refused, with the key (and the line for INI) in the message. */
static void
test_parse_errors(void **state)
{
	static const struct {
		const char *text, *word;
	} bad[] = {
	    {"[irq]\npolicy = sprad\ncpus = 0-3\n", "sprad"},
	    {"[irq]\npolicy = spread\n", "needs cpus"},
	    {"[irq]\npolicy = spread\ncpus = 0-3,x\n", "cpus"},
	    {"[xps]\npolicy = one-to-one\ncpus = 1\ntx-3x = 4\n", "tx-3x"},
	    {"[rps]\n", "changes nothing"},
	    {"[rfs]\nflow_cnt = 99999999999\n", "flow_cnt"},
	    {"[rfs]\nflow_cnt = -1\n", "flow_cnt"},
	    {"[arfs]\nntuple = on\n", "needs RFS"},
	    {"[arfs]\nntuple = maybe\n", "ntuple"},
	    {"[sysctl]\nkernel.panic = 1\n", "kernel.panic"},
	    {"[sysctl]\nnet.core..x = 1\n", "net.core..x"},
	    {"[sysctl]\nnet/../../etc/x = 1\n", "net/../../etc/x"},
	    {"[profile]\ndevice = ../etc\n[rps]\ncpus = 1\n", "../etc"},
	    {"[profile]\ndevice = eth0/x\n[rps]\ncpus = 1\n", "eth0/x"},
	    {"[frob]\nx = 1\n", "[frob]"},
	    {"[rfs]\nflow_cnt = 1\n[sysctl]\nnet.core.rps_sock_flow_entries = 5\n",
	     "rps_sock_flow_entries"},
	    {"[irq\npolicy = all\n", "outside any section"},
	    {"[irq]\npolicy\n", "syntax"},
	};
	struct profile p;
	struct nm_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (profile_parse_ini(&p, "bad", bad[i].text, strlen(bad[i].text), &err) == 0)
			fail_msg("accepted: %s", bad[i].text);
		if (strstr(err.message, bad[i].word) == NULL)
			fail_msg("\"%s\" lacks \"%s\"", err.message, bad[i].word);
	}
	/* The line of the bad key. */
	assert_int_equal(
	    profile_parse_ini(&p, "f", "[xps]\npolicy = none\n\ncpus = zz\n", 31, &err), -1);
	assert_non_null(strstr(err.message, "f:4:"));
}

/* The JSON form takes the same sections and keys. */
static void
test_parse_json(void **state)
{
	static const char text[] =
	    "{\"device\":\"eth0\",\"irq\":{\"policy\":\"all\",\"cpus\":\"0-3\",\"queue.2\":\"7\"},"
	    "\"rfs\":{\"flow_cnt\":512,\"sock_flow_entries\":\"keep\"},\"arfs\":{\"ntuple\":true},"
	    "\"sysctl\":{\"net.core.netdev_max_backlog\":5000}}";
	char msg[128];
	json_object *o = json_parse_bounded(text, strlen(text), 16, msg, sizeof(msg));
	struct profile p;
	struct nm_error err;

	(void)state;
	assert_non_null(o);
	if (profile_parse_json(&p, "inline", o, &err) < 0)
		fail_msg("%s", err.message);
	assert_string_equal(p.device, "eth0");
	assert_int_equal(p.irq.policy, PROFILE_POLICY_ALL);
	assert_int_equal(p.irq.nqueues, 1);
	assert_true(cpuset_has(&profile_knob_queue(&p.irq, 2)->set, 7));
	assert_int_equal(p.flow_cnt, 512);
	assert_int_equal(p.sock_mode, PROFILE_SOCK_KEEP);
	assert_int_equal(p.ntuple, PROFILE_SWITCH_ON);
	assert_string_equal(p.sysctls[0].value, "5000");
	profile_free(&p);
	json_object_put(o);
	o = json_parse_bounded("{\"irq\":{\"policy\":[1]}}", 22, 16, msg, sizeof(msg));
	assert_non_null(o);
	assert_int_equal(profile_parse_json(&p, "inline", o, &err), -1);
	assert_non_null(strstr(err.message, "policy"));
	json_object_put(o);
}

/* A dry run of the example plans the RFS writes (IRQs and XPS are spread already)
 * and touches nothing. */
static void
test_dry_run(void **state)
{
	struct world *w = *state;
	struct profile p;
	struct plan pl;
	struct nm_error err;
	char path[4096];
	json_object *ch;

	assert_int_equal(profile_load(&p, PROFILES_DIR, "example-eth0", path, sizeof(path), &err),
	                 0);
	plan_init(&pl);
	if (plan_build(&pl, &p, &w->h, &err) < 0)
		fail_msg("%s", err.message);
	/* 144 IRQs, 144 xps, 144 flow counts and the socket table, of which the flow counts
	 * and the socket table change. */
	assert_int_equal(pl.n, 3 * NQ + 1);
	assert_int_equal(plan_nchanges(&pl), NQ + 1);
	ch = plan_changes_json(&pl);
	assert_string_equal(json_get_string(json_object_array_get_idx(ch, 0), "path", ""),
	                    "/proc/sys/net/core/rps_sock_flow_entries");
	assert_string_equal(json_get_string(json_object_array_get_idx(ch, 0), "new", ""), "73728");
	json_object_put(ch);
	plan_free(&pl);
	profile_free(&p);
	assert_true(tree_same(w));
	assert_false(state_file(w, "saved.json"));
}

static const char *const BIG =
    "[profile]\ndevice = eth0\n"
    "[irq]\npolicy = spread\ncpus = 64-143\nqueue.5 = 1-2\n"
    "[xps]\npolicy = one-to-one\ncpus = 64-143\n"
    "[rps]\ncpus = 100-143\nrx-7 = ffff,00000000,00000000,00000000,00000001\n"
    "[rfs]\nflow_cnt = 1000\n"
    "[arfs]\nntuple = on\n"
    "[sysctl]\nnet.core.netdev_max_backlog = 5000\n";

/* Apply writes every file as expected; status sees drift; revert restores every byte. */
static void
test_apply_status_revert(void **state)
{
	struct world *w = *state;
	struct nm_error err;
	char rel[128], want[64];
	int rps[44], cpu;
	json_object *st, *res;

	if (apply_text(w, BIG, &err) < 0)
		fail_msg("%s", err.message);
	for (int i = 0; i < 44; i++)
		rps[i] = 100 + i;
	for (unsigned q = 0; q < NQ; q++) {
		cpu = 64 + (int)(q % 80);
		snprintf(rel, sizeof(rel), "proc/irq/%d/smp_affinity_list", w->irq_of_queue[q]);
		snprintf(want, sizeof(want), q == 5 ? "1-2\n" : "%d\n", cpu);
		assert_string_equal(slurp(w, rel), want);
		snprintf(rel, sizeof(rel), "sys/class/net/eth0/queues/tx-%u/xps_cpus", q);
		mask_of(&cpu, 1, want);
		assert_string_equal(slurp(w, rel), want);
		snprintf(rel, sizeof(rel), "sys/class/net/eth0/queues/rx-%u/rps_cpus", q);
		if (q == 7) {
			int two[] = {0,   128, 129, 130, 131, 132, 133, 134, 135,
			             136, 137, 138, 139, 140, 141, 142, 143};
			mask_of(two, 17, want);
		} else
			mask_of(rps, 44, want);
		assert_string_equal(slurp(w, rel), want);
		snprintf(rel, sizeof(rel), "sys/class/net/eth0/queues/rx-%u/rps_flow_cnt", q);
		assert_string_equal(slurp(w, rel), "1000\n");
	}
	/* Spot checks of the masks, written out by hand. */
	assert_string_equal(slurp(w, "sys/class/net/eth0/queues/tx-0/xps_cpus"),
	                    "0000,00000000,00000001,00000000,00000000\n");
	assert_string_equal(slurp(w, "sys/class/net/eth0/queues/tx-36/xps_cpus"),
	                    "0000,00000010,00000000,00000000,00000000\n");
	assert_string_equal(slurp(w, "sys/class/net/eth0/queues/tx-79/xps_cpus"),
	                    "8000,00000000,00000000,00000000,00000000\n");
	assert_string_equal(slurp(w, "sys/class/net/eth0/queues/rx-0/rps_cpus"),
	                    "ffff,fffffff0,00000000,00000000,00000000\n");
	assert_string_equal(slurp(w, "proc/sys/net/core/rps_sock_flow_entries"), "144000\n");
	assert_string_equal(slurp(w, "proc/sys/net/core/netdev_max_backlog"), "5000\n");
	assert_non_null(strstr(slurp(w, "ethtool/eth0.features"), "\nntuple-filters: on\n"));
	/* eth1 and the other IRQs are untouched. */
	assert_string_equal(slurp(w, "sys/class/net/eth1/queues/tx-3/xps_cpus"),
	                    "0000,00000000,00000000,00000000,00000008\n");
	assert_true(state_file(w, "saved.json") && state_file(w, "applied.json"));

	st = profile_state_status(w->state, &w->h);
	assert_true(json_get_bool(st, "applied", false));
	assert_false(json_get_bool(st, "drift", true));
	assert_int_equal(json_get_int(st, "entries", 0), 4 * NQ + 3);
	json_object_put(st);
	/* Someone moves an IRQ: status says which, what was applied and what it is now. */
	snprintf(rel, sizeof(rel), "proc/irq/%d/smp_affinity_list", w->irq_of_queue[3]);
	put(w, rel, "0-143\n");
	st = profile_state_status(w->state, &w->h);
	assert_true(json_get_bool(st, "drift", false));
	res = json_object_array_get_idx(json_object_object_get(st, "drifted"), 0);
	assert_string_equal(json_get_string(res, "expected", ""), "67");
	assert_string_equal(json_get_string(res, "live", ""), "0-143");
	json_object_put(st);

	/* Revert (from the state directory alone, as after a restart): every byte back. */
	profile_host_close(&w->h);
	assert_int_equal(profile_host_open(&w->h, w->root, &err), 0);
	res = profile_state_revert(w->state, &w->h, &err);
	if (res == NULL)
		fail_msg("%s", err.message);
	assert_true(json_get_bool(res, "reverted", false));
	assert_int_equal(json_get_int(res, "restored", 0), 4 * NQ + 3);
	json_object_put(res);
	assert_true(tree_same(w));
	assert_false(state_file(w, "saved.json") || state_file(w, "applied.json"));
	/* A second revert finds nothing and says so. */
	res = profile_state_revert(w->state, &w->h, &err);
	assert_non_null(res);
	assert_false(json_get_bool(res, "reverted", true));
	json_object_put(res);
	assert_true(tree_same(w));
}

/* With the interrupts source disabled (every source is), the daemon's profile host still
 * has the IRQ table, read from the files: an [irq] profile applies and spreads eth0's queue
 * IRQs; after the writes the table's affinities are read again. */
static void
test_irq_without_interrupts_source(void **state)
{
	static const char *const all[] = {"interrupts", "softirqs", "cpu",     "snmp",   "link",
	                                  "queues",     "ethtool",  "softnet", "lnstat", "sysctl"};
	struct world *w = *state;
	struct daemon d;
	struct nm_error err;
	struct profile_host h;
	const struct irq_info *irq;
	char rel[128], want[32];

	memset(&d, 0, sizeof(d));
	config_defaults(&d.config);
	free(d.config.root);
	d.config.root = strdup(w->root);
	d.config.ring_memory = 1u << 20;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		config_add_source_opt(&d.config, all[i], "enable", "no");
	d.sampler = sampler_new(&d.config, &err);
	assert_non_null(d.sampler);
	sampler_sample_all(d.sampler);
	assert_int_equal(profile_host_open_sampled(&h, d.config.root, d.sampler, &err), 0);
	assert_non_null(h.irqs);
	assert_true(h.nirqs >= NQ);
	assert_int_equal(profile_host_set_device(&h, "eth0", &err), 0);
	profile_host_close(&w->h);
	w->h = h;
	if (apply_text(w, "[profile]\ndevice = eth0\n[irq]\npolicy = spread\ncpus = 64-143\n",
	               &err) < 0)
		fail_msg("%s", err.message);
	for (unsigned q = 0; q < NQ; q++) {
		snprintf(rel, sizeof(rel), "proc/irq/%d/smp_affinity_list", w->irq_of_queue[q]);
		snprintf(want, sizeof(want), "%d\n", 64 + (int)(q % 80));
		assert_string_equal(slurp(w, rel), want);
	}
	sampler_irq_refresh_affinity(d.sampler);
	irq = irqtable_find_irq(sampler_irq_table(d.sampler, NULL), w->irq_of_queue[3]);
	assert_non_null(irq);
	assert_true(irq->has_affinity);
	assert_int_equal(cpuset_count(&irq->affinity), 1);
	assert_true(cpuset_has(&irq->affinity, 67));
	sampler_free(d.sampler);
	config_free(&d.config);
}

/* Two applies, then one revert: back to before the first (the oldest value is kept). */
static void
test_two_applies_one_revert(void **state)
{
	struct world *w = *state;
	struct nm_error err;
	json_object *res;

	if (apply_text(w, "[rps]\ncpus = 0-3\n[rfs]\nflow_cnt = 64\n", &err) < 0)
		fail_msg("%s", err.message);
	if (apply_text(w, "[rps]\ncpus = 4-5\n[xps]\npolicy = none\n", &err) < 0)
		fail_msg("%s", err.message);
	assert_string_equal(slurp(w, "sys/class/net/eth0/queues/rx-9/rps_cpus"),
	                    "0000,00000000,00000000,00000000,00000030\n");
	res = profile_state_revert(w->state, &w->h, &err);
	assert_non_null(res);
	json_object_put(res);
	assert_true(tree_same(w));
}

/* Drop or restore CAP_DAC_OVERRIDE (root writes read-only files otherwise). */
static void
dac_override(bool on)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2];

	if (geteuid() != 0)
		return;
	assert_int_equal(syscall(SYS_capget, &hdr, data), 0);
	if (on)
		data[0].effective |= 1u << CAP_DAC_OVERRIDE;
	else
		data[0].effective &= ~(1u << CAP_DAC_OVERRIDE);
	assert_int_equal(syscall(SYS_capset, &hdr, data), 0);
}

/* tx-72's xps_cpus is read-only: the RFS, RPS and XPS writes before it are rolled back, the
 * error names the file and the reason, and no state is left saved. */
static void
test_failure_rolls_back(void **state)
{
	struct world *w = *state;
	struct nm_error err;
	char path[256];

	snprintf(path, sizeof(path), "%s/sys/class/net/eth0/queues/tx-72/xps_cpus", w->root);
	assert_int_equal(chmod(path, 0444), 0);
	dac_override(false);
	assert_int_equal(apply_text(w, BIG, &err), -1);
	dac_override(true);
	assert_int_equal(chmod(path, 0644), 0);
	if (strstr(err.message, "write /sys/class/net/eth0/queues/tx-72/xps_cpus: Permission "
	                        "denied") == NULL ||
	    strstr(err.message, "rolled back") == NULL)
		fail_msg("%s", err.message);
	assert_true(tree_same(w));
	assert_false(state_file(w, "saved.json") || state_file(w, "applied.json"));
}

/* Plan text on w's host: the result of plan_build, the plan in pl (caller frees). */
static int
plan_text(struct world *w, const char *text, struct plan *pl, struct nm_error *err)
{
	struct profile p;
	int r;

	parse_ok(&p, text);
	plan_init(pl);
	r = plan_build(pl, &p, &w->h, err);
	profile_free(&p);
	return r;
}

/* How many entries of kind the plan has. */
static size_t
plan_count(const struct plan *pl, enum plan_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < pl->n; i++)
		n += pl->e[i].kind == kind;
	return n;
}

/* [napi]: the three device-wide files are written first (before the flow counts), read
 * back, saved, seen drifting, and reverted byte for byte; a threaded write the kernel
 * refuses (EIO: no NAPI instance) rolls back the files written before it. */
static void
test_napi(void **state)
{
	static const char text[] = "[rfs]\nflow_cnt = 512\n[napi]\ngro_flush_timeout = 20000\n"
	                           "napi_defer_hard_irqs = 2\nthreaded = on\n";
	static const char *const files[] = {"gro_flush_timeout", "napi_defer_hard_irqs",
	                                    "threaded"};
	struct world *w = *state;
	struct strbuf sb = STRBUF_INIT;
	struct nm_error err;
	struct plan pl;
	json_object *st, *d;
	char rel[128];

	for (size_t i = 0; i < 3; i++) {
		snprintf(rel, sizeof(rel), "sys/class/net/eth0/%s", files[i]);
		put_both(w, rel, "0\n");
	}
	assert_int_equal(plan_text(w, text, &pl, &err), 0);
	assert_int_equal(plan_count(&pl, PLAN_NAPI), 3);
	assert_int_equal(pl.e[0].kind, PLAN_NAPI);
	assert_string_equal(pl.e[0].path, "/sys/class/net/eth0/gro_flush_timeout");
	assert_string_equal(pl.e[1].path, "/sys/class/net/eth0/napi_defer_hard_irqs");
	assert_string_equal(pl.e[2].path, "/sys/class/net/eth0/threaded");
	assert_string_equal(pl.e[2].new, "1");
	assert_true(pl.e[0].change && pl.e[1].change && pl.e[2].change);
	plan_free(&pl);

	if (apply_text(w, text, &err) < 0)
		fail_msg("%s", err.message);
	assert_string_equal(slurp(w, "sys/class/net/eth0/gro_flush_timeout"), "20000\n");
	assert_string_equal(slurp(w, "sys/class/net/eth0/napi_defer_hard_irqs"), "2\n");
	assert_string_equal(slurp(w, "sys/class/net/eth0/threaded"), "1\n");
	st = profile_state_status(w->state, &w->h);
	assert_false(json_get_bool(st, "drift", true));
	json_object_put(st);
	assert_int_equal(profile_save_text(&w->h, "now", &sb, &err), 0);
	if (strstr(sb.buf, "\n[napi]\ngro_flush_timeout = 20000\nnapi_defer_hard_irqs = 2\n"
	                   "threaded = on\n") == NULL)
		fail_msg("%s", sb.buf);
	strbuf_free(&sb);
	/* Someone else turns threading off: drift names the file, both values. */
	put(w, "sys/class/net/eth0/threaded", "0\n");
	st = profile_state_status(w->state, &w->h);
	assert_true(json_get_bool(st, "drift", false));
	d = json_object_array_get_idx(json_object_object_get(st, "drifted"), 0);
	assert_string_equal(json_get_string(d, "path", ""), "/sys/class/net/eth0/threaded");
	assert_string_equal(json_get_string(d, "expected", ""), "1");
	assert_string_equal(json_get_string(d, "live", ""), "0");
	json_object_put(st);
	json_object_put(profile_state_revert(w->state, &w->h, &err));
	assert_true(tree_same(w));

	/* threaded refused: the timeout and the defer count written before it roll back. */
	snprintf(rel, sizeof(rel), "%s/sys/class/net/eth0/threaded", w->root);
	assert_int_equal(chmod(rel, 0444), 0);
	dac_override(false);
	assert_int_equal(apply_text(w, text, &err), -1);
	dac_override(true);
	assert_int_equal(chmod(rel, 0644), 0);
	if (strstr(err.message, "/sys/class/net/eth0/threaded") == NULL ||
	    strstr(err.message, "rolled back") == NULL)
		fail_msg("%s", err.message);
	assert_true(tree_same(w));

	for (size_t i = 0; i < 3; i++) {
		run("rm -f %s/sys/class/net/eth0/%s %s/sys/class/net/eth0/%s", w->root, files[i],
		    w->orig, files[i]);
	}
}

/* [offloads] on a fixture's `ethtool -k` text: short names become the kernel's, written
 * before [napi]; applied, saved, drift, revert byte for byte; a feature the device lacks
 * refuses the profile; a [fixed] one that would change skips the section (strict: refuses
 * it). */
static void
test_offloads(void **state)
{
	static const char features[] = "Features for eth0:\ntcp-segmentation-offload: on\n"
	                               "\ttx-tcp-segmentation: on\ngeneric-receive-offload: on\n"
	                               "large-receive-offload: off\nrx-gro-hw: off [fixed]\n"
	                               "rx-gro-list: off\nntuple-filters: off\n";
	static const char text[] = "[offloads]\ngro = off\nrx-gro-list = on\ntso = off\n"
	                           "[napi]\ngro_flush_timeout = 1000\n";
	struct world *w = *state;
	struct strbuf sb = STRBUF_INIT;
	char *was = strdup(slurp(w, "ethtool/eth0.features"));
	struct nm_error err;
	struct plan pl;
	json_object *st, *d;

	put_both(w, "ethtool/eth0.features", features);
	put_both(w, "sys/class/net/eth0/gro_flush_timeout", "0\n");
	assert_int_equal(plan_text(w, text, &pl, &err), 0);
	assert_int_equal(pl.n, 4);
	assert_string_equal(pl.e[0].path, "ethtool eth0 rx-gro");
	assert_string_equal(pl.e[0].old, "on");
	assert_string_equal(pl.e[0].new, "off");
	assert_string_equal(pl.e[1].path, "ethtool eth0 rx-gro-list");
	assert_string_equal(pl.e[2].path, "ethtool eth0 tx-tcp-segmentation");
	assert_int_equal(pl.e[3].kind, PLAN_NAPI);
	plan_free(&pl);

	if (apply_text(w, text, &err) < 0)
		fail_msg("%s", err.message);
	assert_string_equal(slurp(w, "ethtool/eth0.features"),
	                    "Features for eth0:\ntcp-segmentation-offload: on\n"
	                    "\ttx-tcp-segmentation: off\ngeneric-receive-offload: off\n"
	                    "large-receive-offload: off\nrx-gro-hw: off [fixed]\n"
	                    "rx-gro-list: on\nntuple-filters: off\n");
	assert_int_equal(profile_save_text(&w->h, "now", &sb, &err), 0);
	if (strstr(sb.buf, "\n[offloads]\nrx-gro = off\nrx-lro = off\ntx-tcp-segmentation = off\n"
	                   "rx-gro-list = on\n") == NULL)
		fail_msg("%s", sb.buf);
	strbuf_free(&sb);
	st = profile_state_status(w->state, &w->h);
	assert_false(json_get_bool(st, "drift", true));
	json_object_put(st);
	put(w, "ethtool/eth0.features", features); /* someone turns them back */
	st = profile_state_status(w->state, &w->h);
	assert_true(json_get_bool(st, "drift", false));
	assert_int_equal(json_object_array_length(json_object_object_get(st, "drifted")), 3);
	d = json_object_array_get_idx(json_object_object_get(st, "drifted"), 0);
	assert_string_equal(json_get_string(d, "path", ""), "ethtool eth0 rx-gro");
	assert_string_equal(json_get_string(d, "expected", ""), "off");
	assert_string_equal(json_get_string(d, "live", ""), "on");
	json_object_put(st);
	json_object_put(profile_state_revert(w->state, &w->h, &err));
	assert_true(tree_same(w));

	assert_int_equal(plan_text(w, "[offloads]\nrx-nope = on\n", &pl, &err), -1);
	if (strstr(err.message, "ethtool eth0 rx-nope: the device has no such feature") == NULL)
		fail_msg("%s", err.message);
	plan_free(&pl);
	assert_int_equal(
	    plan_text(w, "[offloads]\nrx-gro-hw = on\n[napi]\nthreaded = on\n", &pl, &err),
	    -1); /* no threaded file in this fixture: the read fails */
	plan_free(&pl);
	assert_int_equal(plan_text(w, "[offloads]\nrx-gro-hw = on\ngro = off\n", &pl, &err), 0);
	assert_int_equal(pl.n, 0);
	assert_string_equal(
	    json_object_get_string(json_object_array_get_idx(pl.skipped, 0)),
	    "[offloads] skipped: eth0 cannot turn rx-gro-hw on: \"ethtool -k eth0\" "
	    "shows it off [fixed]");
	plan_free(&pl);
	assert_int_equal(
	    apply_text(w, "[profile]\nstrict = yes\n[offloads]\nrx-gro-hw = on\n", &err), -1);
	assert_non_null(strstr(err.message, "strict = yes"));
	assert_true(tree_same(w));

	put_both(w, "ethtool/eth0.features", was);
	run("rm -f %s/sys/class/net/eth0/gro_flush_timeout %s/sys/class/net/eth0/gro_flush_timeout",
	    w->root, w->orig);
	free(was);
}

/* [channels] on a fixture's `ethtool -l` text (eth0: 144 combined, rx and tx n/a): planned
 * first, checked against the maximum, applied, saved, reverted byte for byte; a count the
 * device has no maximum for skips the section; a change with per-queue sections is
 * refused before anything is written. */
static void
test_channels(void **state)
{
	struct world *w = *state;
	struct strbuf sb = STRBUF_INIT;
	struct nm_error err;
	struct plan pl;
	json_object *res;

	assert_int_equal(
	    plan_text(w, "[rfs]\nflow_cnt = 512\n[channels]\ncombined = 144\n", &pl, &err), 0);
	assert_int_equal(pl.e[0].kind, PLAN_CHANNELS);
	assert_string_equal(pl.e[0].path, "ethtool eth0 channels combined");
	assert_false(pl.e[0].change);
	plan_free(&pl);
	assert_int_equal(plan_text(w, "[channels]\ncombined = 200\n", &pl, &err), -1);
	assert_string_equal(
	    err.message, "[channels] combined = 200: eth0 has at most 144 (\"ethtool -l eth0\")");
	plan_free(&pl);
	assert_int_equal(plan_text(w, "[channels]\nrx = 4\n", &pl, &err), 0);
	assert_int_equal(pl.n, 0);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(pl.skipped, 0)),
	                    "[channels] skipped: eth0 has no separate rx channel count (\"ethtool "
	                    "-l eth0\" shows n/a)");
	plan_free(&pl);
	/* A count change with a queue section: two stages. The counts; the XPS masks of every
	 * queue now, kept for a revert; the masks planned on the 72 queues there will be. */
	assert_int_equal(
	    plan_text(w, "[channels]\ncombined = 72\n[xps]\npolicy = none\n", &pl, &err), 0);
	assert_non_null(pl.replan);
	assert_int_equal(pl.layout_ntx, 72);
	assert_int_equal(pl.stage2, 1 + NQ);
	assert_int_equal(pl.n, 1 + NQ + 72);
	assert_true(pl.e[0].change && !pl.e[0].keep);
	assert_true(pl.e[1].keep && !pl.e[1].change && pl.e[1].kind == PLAN_XPS);
	assert_int_equal(pl.e[NQ].index, NQ - 1);
	assert_true(pl.e[1 + NQ].kind == PLAN_XPS && !pl.e[1 + NQ].keep);
	assert_int_equal(pl.e[pl.n - 1].index, 71);
	if (strstr(json_object_get_string(json_object_array_get_idx(pl.warnings, 0)),
	           "[channels] changes eth0's queues (rx 144 -> 72, tx 144 -> 72): the sections "
	           "that hang on them are planned here on the new counts, and planned again "
	           "after the channel writes") == NULL)
		fail_msg("%s", json_object_to_json_string(pl.warnings));
	plan_free(&pl);
	/* Applied in two stages (the fixture's queue directories stay: 144 planned again),
	 * reverted counts first, byte for byte. */
	if (apply_text(w, "[channels]\ncombined = 72\n[xps]\npolicy = none\n", &err) < 0)
		fail_msg("%s", err.message);
	assert_string_equal(slurp(w, "sys/class/net/eth0/queues/tx-100/xps_cpus"),
	                    "0000,00000000,00000000,00000000,00000000\n");
	json_object_put(profile_state_revert(w->state, &w->h, &err));
	assert_true(tree_same(w));

	if (apply_text(w, "[channels]\ncombined = 72\n", &err) < 0)
		fail_msg("%s", err.message);
	assert_non_null(strstr(slurp(w, "ethtool/eth0.channels"),
	                       "Current hardware settings:\nRX:\t\tn/a\nTX:\t\tn/a\nOther:\t\t1\n"
	                       "Combined:\t72\n"));
	assert_non_null(strstr(slurp(w, "ethtool/eth0.channels"), "Combined:\t144\n"));
	assert_int_equal(profile_save_text(&w->h, "now", &sb, &err), 0);
	if (strstr(sb.buf, "\n# With the queue sections above, this applies where the channel "
	                   "counts are\n# these already; elsewhere apply [channels] alone "
	                   "first.\n[channels]\ncombined = 72\n") == NULL)
		fail_msg("%s", sb.buf);
	strbuf_free(&sb);
	res = profile_state_revert(w->state, &w->h, &err);
	assert_non_null(res);
	assert_int_equal(json_get_int(res, "restored", 0), 1);
	json_object_put(res);
	assert_true(tree_same(w));
}

/* [napi_queue]: keys for every rx queue and per queue parse (the queue's own key wins);
 * bad keys are refused naming them; under a fixture root (no netlink) the section is
 * skipped, saying why, and strict refuses it. */
static void
test_napi_queue(void **state)
{
	static const char text[] = "[napi_queue]\ndefer_hard_irqs = 2\ngro_flush_timeout = 20000\n"
	                           "rx-3.defer_hard_irqs = 0\nrx-3.defer_hard_irqs = 1\n";
	struct world *w = *state;
	struct nm_error err;
	struct profile p;
	struct plan pl;
	static const char bad1[] = "[napi_queue]\nrx-x.defer_hard_irqs = 1\n",
	                  bad2[] = "[napi_queue]\nrx-1.threaded = 1\n";

	parse_ok(&p, text);
	assert_true(p.napiq.has_all[0] && p.napiq.all[0] == 2);
	assert_true(p.napiq.has_all[1] && p.napiq.all[1] == 20000);
	assert_int_equal(p.napiq.n, 1);
	assert_int_equal(p.napiq.q[0].queue, 3);
	assert_int_equal(p.napiq.q[0].value, 1);
	profile_free(&p);
	assert_int_equal(profile_parse_ini(&p, "t", bad1, strlen(bad1), &err), -1);
	assert_non_null(strstr(err.message, "[napi_queue]: unknown key \"rx-x.defer_hard_irqs\""));
	assert_int_equal(profile_parse_ini(&p, "t", bad2, strlen(bad2), &err), -1);
	assert_non_null(strstr(err.message, "unknown key \"rx-1.threaded\""));
	assert_int_equal(plan_text(w, text, &pl, &err), 0);
	assert_int_equal(pl.n, 0);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(pl.skipped, 0)),
	                    "[napi_queue] skipped: per-NAPI settings are netlink's (napi-set) on "
	                    "the host only: a fixture root has none");
	plan_free(&pl);
	assert_int_equal(
	    apply_text(w, "[profile]\nstrict = yes\n[napi_queue]\ndefer_hard_irqs = 1\n", &err),
	    -1);
	assert_non_null(strstr(err.message, "strict = yes"));
	assert_true(tree_same(w));
}

/* [rings] on a fixture's `ethtool -g` text: planned after [channels], before [offloads],
 * checked against the maxima, the dry run warns of the reset; applied, saved, reverted byte
 * for byte; a driver that rounds ("# rounds to 1024") reads back another size: a failure
 * naming both, rolled back. */
static void
test_rings(void **state)
{
	static const char rings[] = "Ring parameters for eth0:\nPre-set maximums:\nRX:\t\t8192\n"
	                            "RX Mini:\tn/a\nRX Jumbo:\tn/a\nTX:\t\t8192\n"
	                            "Current hardware settings:\nRX:\t\t1024\nRX Mini:\tn/a\n"
	                            "RX Jumbo:\tn/a\nTX:\t\t1024\n";
	struct world *w = *state;
	struct strbuf sb = STRBUF_INIT;
	struct nm_error err;
	struct plan pl;
	char *text;

	put_both(w, "ethtool/eth0.rings", rings);
	assert_int_equal(plan_text(w,
	                           "[offloads]\ngro = on\n[rings]\nrx = 4096\ntx = 1024\n"
	                           "[channels]\ncombined = 144\n",
	                           &pl, &err),
	                 0);
	assert_int_equal(pl.n, 4);
	assert_string_equal(pl.e[0].path, "ethtool eth0 channels combined");
	assert_string_equal(pl.e[1].path, "ethtool eth0 rings rx");
	assert_string_equal(pl.e[1].old, "1024");
	assert_string_equal(pl.e[1].new, "4096");
	assert_true(pl.e[1].change);
	assert_false(pl.e[2].change);
	assert_string_equal(pl.e[3].path, "ethtool eth0 rx-gro");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(pl.warnings, 0)),
	                    "resizing eth0's rings makes most drivers reset the device: its link "
	                    "goes down for a moment");
	plan_free(&pl);
	assert_int_equal(plan_text(w, "[rings]\nrx = 9000\n", &pl, &err), -1);
	assert_string_equal(err.message,
	                    "[rings] rx = 9000: eth0 has at most 8192 (\"ethtool -g eth0\")");
	plan_free(&pl);

	if (apply_text(w, "[rings]\nrx = 4096\n", &err) < 0)
		fail_msg("%s", err.message);
	assert_non_null(strstr(slurp(w, "ethtool/eth0.rings"),
	                       "Current hardware settings:\nRX:\t\t4096\nRX Mini:\tn/a\n"));
	assert_int_equal(profile_save_text(&w->h, "now", &sb, &err), 0);
	if (strstr(sb.buf, "\n[rings]\nrx = 4096\ntx = 1024\n") == NULL)
		fail_msg("%s", sb.buf);
	strbuf_free(&sb);
	json_object_put(profile_state_revert(w->state, &w->h, &err));
	assert_true(tree_same(w));

	text = xasprintf("%s# rounds to 1024\n", rings);
	put_both(w, "ethtool/eth0.rings", text);
	free(text);
	assert_int_equal(apply_text(w, "[offloads]\ngro = off\n[rings]\nrx = 3000\n", &err), -1);
	if (strstr(err.message, "write ethtool eth0 rings rx: wrote \"3000\" but it reads back "
	                        "\"3072\" (the driver rounds ring sizes") == NULL ||
	    strstr(err.message, "rolled back: 1 value restored") == NULL)
		fail_msg("%s", err.message);
	assert_true(tree_same(w));
	run("rm -f %s/ethtool/eth0.rings %s/ethtool/eth0.rings", w->root, w->orig);
}

/* [coalesce] on a fixture's `ethtool -c` text: adaptive off and small fixed values (a
 * latency setting) applied after [rings], saved, reverted byte for byte; a driver that
 * rounds usecs ("# rounds usecs to 4") reads back another value: a failure naming both,
 * rolled back; without coalescing the section is skipped. */
static void
test_coalesce(void **state)
{
	static const char coal[] = "Coalesce parameters for eth0:\nAdaptive RX: on  TX: on\n"
	                           "stats-block-usecs: n/a\n\nrx-usecs: 8\nrx-frames: 128\n\n"
	                           "tx-usecs: 16\ntx-frames: 32\n";
	static const char text[] = "[coalesce]\nadaptive-rx = off\nrx-usecs = 2\nrx-frames = 1\n";
	struct world *w = *state;
	struct strbuf sb = STRBUF_INIT;
	struct nm_error err;
	struct plan pl;
	char *t;

	assert_int_equal(plan_text(w, text, &pl, &err), 0);
	assert_int_equal(pl.n, 0);
	assert_string_equal(
	    json_object_get_string(json_object_array_get_idx(pl.skipped, 0)),
	    "[coalesce] skipped: eth0: coalescing unknown (no ethtool/eth0.coalesce "
	    "under the root)");
	plan_free(&pl);
	put_both(w, "ethtool/eth0.coalesce", coal);
	assert_int_equal(plan_text(w, text, &pl, &err), 0);
	assert_int_equal(pl.n, 3);
	assert_string_equal(pl.e[0].path, "ethtool eth0 coalesce rx-usecs");
	assert_string_equal(pl.e[0].old, "8");
	assert_string_equal(pl.e[0].new, "2");
	assert_string_equal(pl.e[2].path, "ethtool eth0 coalesce adaptive-rx");
	assert_string_equal(pl.e[2].old, "on");
	assert_string_equal(pl.e[2].new, "off");
	plan_free(&pl);
	if (apply_text(w, text, &err) < 0)
		fail_msg("%s", err.message);
	assert_string_equal(slurp(w, "ethtool/eth0.coalesce"),
	                    "Coalesce parameters for eth0:\nAdaptive RX: off  TX: on\n"
	                    "stats-block-usecs: n/a\n\nrx-usecs: 2\nrx-frames: 1\n\n"
	                    "tx-usecs: 16\ntx-frames: 32\n");
	assert_int_equal(profile_save_text(&w->h, "now", &sb, &err), 0);
	if (strstr(sb.buf, "\n[coalesce]\nrx-usecs = 2\nrx-frames = 1\ntx-usecs = 16\n"
	                   "tx-frames = 32\nadaptive-rx = off\nadaptive-tx = on\n") == NULL)
		fail_msg("%s", sb.buf);
	strbuf_free(&sb);
	json_object_put(profile_state_revert(w->state, &w->h, &err));
	assert_true(tree_same(w));

	t = xasprintf("%s# rounds usecs to 4\n", coal);
	put_both(w, "ethtool/eth0.coalesce", t);
	free(t);
	assert_int_equal(apply_text(w, "[coalesce]\nrx-frames = 1\ntx-usecs = 5\n", &err), -1);
	if (strstr(err.message, "write ethtool eth0 coalesce tx-usecs: wrote \"5\" but it reads "
	                        "back \"8\" (the driver rounds or ignores it") == NULL ||
	    strstr(err.message, "rolled back: 2 values restored") == NULL)
		fail_msg("%s", err.message);
	assert_true(tree_same(w));
	run("rm -f %s/ethtool/eth0.coalesce %s/ethtool/eth0.coalesce", w->root, w->orig);
}

/* [rss] on a fixture's `ethtool -x` text: weights make the table, the hash function, key
 * and a flow type's fields are one entry each (hfunc, hkey, indir, fields: written in that
 * order); applied (the file as ethtool prints it), saved, drift seen, reverted byte for
 * byte; sizes and queues the device does not have are refused before anything is written;
 * a driver that ignores the hash function reads back the old one: a failure naming both,
 * rolled back; a channel count change with a table is refused. */
static void
test_rss(void **state)
{
	static const char rss[] =
	    "RX flow hash indirection table for eth0 with 4 RX ring(s):\n"
	    "    0:      0     1     2     3     0     1     2     3\n"
	    "    8:      0     1     2     3     0     1     2     3\n"
	    "RSS hash key:\n6d:5a:56:da\nRSS hash function:\n    toeplitz: on\n    xor: off\n"
	    "    crc32: off\nrx-flow-hash tcp4: sdfn\nrx-flow-hash udp4: sd\n";
	static const char text[] = "[rss]\nweights = 1,3\nhfunc = xor\nhkey = 01:02:03:04\n"
	                           "fields.udp4 = sdfn\n";
	static const char both[] = "[rss]\nequal = 2\nweights = 1,1\n";
	struct profile p;
	struct world *w = *state;
	struct strbuf sb = STRBUF_INIT;
	struct nm_error err;
	struct plan pl;
	json_object *st, *d, *ch;
	char *t;

	assert_int_equal(plan_text(w, text, &pl, &err), 0);
	assert_int_equal(pl.n, 0);
	assert_string_equal(
	    json_object_get_string(json_object_array_get_idx(pl.skipped, 0)),
	    "[rss] skipped: eth0: RSS unknown (no ethtool/eth0.rss under the root)");
	plan_free(&pl);
	put_both(w, "ethtool/eth0.rss", rss);
	assert_int_equal(plan_text(w, text, &pl, &err), 0);
	assert_int_equal(pl.n, 4);
	assert_string_equal(pl.e[0].path, "ethtool eth0 rss hfunc");
	assert_string_equal(pl.e[0].old, "toeplitz");
	assert_string_equal(pl.e[0].new, "xor");
	assert_string_equal(pl.e[1].path, "ethtool eth0 rss hkey");
	assert_string_equal(pl.e[1].old, "6d:5a:56:da");
	assert_string_equal(pl.e[1].new, "01:02:03:04");
	assert_string_equal(pl.e[2].path, "ethtool eth0 rss indir");
	assert_string_equal(pl.e[2].old, "0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3");
	assert_string_equal(pl.e[2].new, "0 0 0 0 1 1 1 1 1 1 1 1 1 1 1 1");
	assert_string_equal(pl.e[3].path, "ethtool eth0 rss fields.udp4");
	assert_string_equal(pl.e[3].old, "sd");
	assert_string_equal(pl.e[3].new, "sdfn");
	ch = plan_changes_json(&pl);
	assert_string_equal(json_get_string(json_object_array_get_idx(ch, 2), "old", ""),
	                    "equal 4 (16 entries)");
	json_object_put(ch);
	plan_free(&pl);

	if (apply_text(w, text, &err) < 0)
		fail_msg("%s", err.message);
	assert_string_equal(slurp(w, "ethtool/eth0.rss"),
	                    "RX flow hash indirection table for eth0 with 4 RX ring(s):\n"
	                    "    0:      0     0     0     0     1     1     1     1\n"
	                    "    8:      1     1     1     1     1     1     1     1\n"
	                    "RSS hash key:\n01:02:03:04\nRSS hash function:\n    toeplitz: off\n"
	                    "    xor: on\n    crc32: off\nrx-flow-hash tcp4: sdfn\n"
	                    "rx-flow-hash udp4: sdfn\n");
	st = profile_state_status(w->state, &w->h);
	assert_false(json_get_bool(st, "drift", true));
	json_object_put(st);
	assert_int_equal(profile_save_text(&w->h, "now", &sb, &err), 0);
	if (strstr(sb.buf, "\n[rss]\ntable = 0 0 0 0 1 1 1 1 1 1 1 1 1 1 1 1\nhfunc = xor\n"
	                   "hkey = 01:02:03:04\nfields.tcp4 = sdfn\nfields.udp4 = sdfn\n") == NULL)
		fail_msg("%s", sb.buf);
	strbuf_free(&sb);
	/* Someone else spreads the table evenly again: drift names the part, both values. */
	t = xasprintf("RX flow hash indirection table for eth0 with 4 RX ring(s):\n"
	              "    0:      0     1     2     3     0     1     2     3\n"
	              "    8:      0     1     2     3     0     1     2     3\n"
	              "RSS hash key:\n01:02:03:04\nRSS hash function:\n    toeplitz: off\n"
	              "    xor: on\n    crc32: off\nrx-flow-hash tcp4: sdfn\n"
	              "rx-flow-hash udp4: sdfn\n");
	put(w, "ethtool/eth0.rss", t);
	free(t);
	st = profile_state_status(w->state, &w->h);
	assert_true(json_get_bool(st, "drift", false));
	d = json_object_array_get_idx(json_object_object_get(st, "drifted"), 0);
	assert_string_equal(json_get_string(d, "path", ""), "ethtool eth0 rss indir");
	assert_string_equal(json_get_string(d, "live", ""), "equal 4 (16 entries)");
	json_object_put(st);
	json_object_put(profile_state_revert(w->state, &w->h, &err));
	assert_true(tree_same(w));

	/* What the device does not have: refused, nothing written. */
	assert_int_equal(apply_text(w, "[rss]\nequal = 5\n", &err), -1);
	assert_string_equal(err.message, "[rss] equal: needs 5 rx queues, eth0 has 4 (\"ethtool -x "
	                                 "eth0\")");
	assert_int_equal(apply_text(w, "[rss]\ntable = 0 1 2 3\n", &err), -1);
	assert_string_equal(err.message, "[rss] table: 4 entries, eth0's indirection table has 16");
	assert_int_equal(apply_text(w, "[rss]\nhkey = 01:02\n", &err), -1);
	assert_string_equal(err.message,
	                    "[rss] hkey: 2 bytes, eth0's key has 4 (\"ethtool -x eth0\")");
	assert_int_equal(profile_parse_ini(&p, "t", both, strlen(both), &err), -1);
	assert_non_null(strstr(err.message, "give one"));
	assert_true(tree_same(w));

	/* A driver that ignores the hash function: read back, rolled back. */
	t = xasprintf("%s# ignores hfunc\n", rss);
	put_both(w, "ethtool/eth0.rss", t);
	free(t);
	assert_int_equal(apply_text(w, "[rss]\nequal = 2\nhfunc = crc32\n", &err), -1);
	if (strstr(err.message, "write ethtool eth0 rss hfunc: wrote \"crc32\" but it reads back "
	                        "\"toeplitz\"") == NULL ||
	    strstr(err.message, "rolled back") == NULL)
		fail_msg("%s", err.message);
	assert_true(tree_same(w));
	run("rm -f %s/ethtool/eth0.rss %s/ethtool/eth0.rss", w->root, w->orig);
}

/* A device whose ntuple feature is fixed: [arfs] is skipped, with the reason, and the rest
 * applies (the dry run's plan has no ntuple change to promise); strict = yes refuses the
 * profile before anything is written; a fixed feature already as asked is no change. */
static void
test_ntuple_fixed(void **state)
{
	struct world *w = *state;
	struct nm_error err;
	struct plan pl;
	char *was = strdup(slurp(w, "ethtool/eth0.features"));

	put_both(w, "ethtool/eth0.features", "Features for eth0:\nntuple-filters: off [fixed]\n");
	assert_int_equal(plan_text(w, "[rfs]\nflow_cnt = 512\n[arfs]\nntuple = on\n", &pl, &err),
	                 0);
	assert_int_equal(plan_count(&pl, PLAN_NTUPLE), 0);
	assert_int_equal(plan_count(&pl, PLAN_FLOW_CNT), NQ);
	assert_int_equal(json_object_array_length(pl.skipped), 1);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(pl.skipped, 0)),
	                    "[arfs] skipped: eth0 cannot turn ntuple filters on: \"ethtool -k "
	                    "eth0\" shows ntuple-filters: off [fixed]");
	plan_free(&pl);
	assert_int_equal(apply_text(w, "[rfs]\nflow_cnt = 512\n[arfs]\nntuple = on\n", &err), 0);
	assert_string_equal(slurp(w, "sys/class/net/eth0/queues/rx-7/rps_flow_cnt"), "512\n");
	assert_non_null(strstr(slurp(w, "ethtool/eth0.features"), "ntuple-filters: off [fixed]"));
	json_object_put(profile_state_revert(w->state, &w->h, &err));
	assert_true(tree_same(w));

	assert_int_equal(apply_text(w,
	                            "[profile]\nstrict = yes\n[rfs]\nflow_cnt = 512\n[arfs]\n"
	                            "ntuple = on\n",
	                            &err),
	                 -1);
	if (strstr(err.message, "[arfs]: eth0 cannot turn ntuple filters on") == NULL ||
	    strstr(err.message, "strict = yes") == NULL)
		fail_msg("%s", err.message);
	assert_true(tree_same(w));

	assert_int_equal(plan_text(w, "[arfs]\nntuple = off\n", &pl, &err), 0);
	assert_int_equal(plan_count(&pl, PLAN_NTUPLE), 1);
	assert_false(pl.e[0].change);
	assert_int_equal(json_object_array_length(pl.skipped), 0);
	plan_free(&pl);
	put_both(w, "ethtool/eth0.features", was);
	free(was);
}

/* profile save: the tuning after BIG (but its sysctl), saved as text, applied after a revert, gives
 * the same files byte for byte (IRQ affinities of 144 queues, masks above 64 CPUs, flow counts,
 * ntuple). */
static void
test_save_round_trip(void **state)
{
	struct world *w = *state;
	struct strbuf sb = STRBUF_INIT;
	struct nm_error err;
	char tuned[128];

	char *big = strdup(BIG);

	/* The device's tuning: sysctls are the host's, not saved. */
	*strstr(big, "[sysctl]") = '\0';
	if (apply_text(w, big, &err) < 0)
		fail_msg("%s", err.message);
	free(big);
	snprintf(tuned, sizeof(tuned), "%s/tuned", w->base);
	run("rm -rf %s && cp -a %s %s", tuned, w->root, tuned);
	assert_int_equal(profile_save_text(&w->h, "saved", &sb, &err), 0);
	assert_non_null(strstr(sb.buf, "\n[irq]\npolicy = explicit\nqueue.0 = "));
	assert_non_null(strstr(sb.buf, "\n[xps]\npolicy = explicit\n"));
	assert_non_null(strstr(sb.buf, "device = eth0\n"));
	json_object_put(profile_state_revert(w->state, &w->h, &err));
	assert_true(tree_same(w));
	if (apply_text(w, sb.buf, &err) < 0)
		fail_msg("%s\n%s", err.message, sb.buf);
	{
		char cmd[512];
		snprintf(cmd, sizeof(cmd), "diff -r --no-dereference %s %s >&2", tuned, w->root);
		if (system(cmd) != 0)
			fail_msg("the saved profile does not give the tuned tree back:\n%s",
			         sb.buf);
	}
	json_object_put(profile_state_revert(w->state, &w->h, &err));
	assert_true(tree_same(w));
	run("rm -rf %s", tuned);
	strbuf_free(&sb);
}

/* Sections the device cannot have are skipped with why: no queue IRQs -> [irq], one tx
 * queue -> [xps]; RPS stays (single-queue devices are what it is for); strict refuses. */
static void
test_skip_what_the_device_lacks(void **state)
{
	static const char *const spread = "[irq]\npolicy = spread\ncpus = all\n[xps]\npolicy = "
	                                  "one-to-one\ncpus = all\n[rps]\ncpus = 0-3\n";
	struct world *w = *state;
	struct nm_error err;
	struct plan pl;
	size_t nirqs = w->h.nirqs;
	unsigned ntx = w->h.ntx;

	w->h.nirqs = 0; /* a table without eth0's IRQs: a virtual device */
	w->h.ntx = 1;
	assert_int_equal(plan_text(w, spread, &pl, &err), 0);
	assert_int_equal(plan_count(&pl, PLAN_IRQ), 0);
	assert_int_equal(plan_count(&pl, PLAN_XPS), 0);
	assert_int_equal(plan_count(&pl, PLAN_RPS), NQ);
	assert_int_equal(json_object_array_length(pl.skipped), 2);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(pl.skipped, 0)),
	                    "[xps] skipped: eth0 has one tx queue: XPS has no queue to choose");
	assert_non_null(strstr(json_object_get_string(json_object_array_get_idx(pl.skipped, 1)),
	                       "[irq] skipped: eth0 has no queue IRQs in /proc/interrupts"));
	plan_free(&pl);
	assert_int_equal(
	    plan_text(w, "[profile]\nstrict = on\n[irq]\npolicy = spread\ncpus = all\n", &pl, &err),
	    -1);
	assert_non_null(strstr(err.message, "[irq]: eth0 has no queue IRQs"));
	assert_non_null(strstr(err.message, "strict = yes"));
	plan_free(&pl);
	w->h.nirqs = nirqs;
	w->h.ntx = ntx;
	/* With what the device has, nothing is skipped. */
	assert_int_equal(plan_text(w, spread, &pl, &err), 0);
	assert_int_equal(plan_count(&pl, PLAN_IRQ), NQ);
	assert_int_equal(plan_count(&pl, PLAN_XPS), NQ);
	assert_int_equal(json_object_array_length(pl.skipped), 0);
	plan_free(&pl);
	assert_true(tree_same(w));
}

/* Validation refuses before anything is written. */
static void
test_validation(void **state)
{
	static const struct {
		const char *text, *word;
	} bad[] = {
	    {"[irq]\npolicy = spread\ncpus = 0-143\n", "CPU 5 is offline"},
	    {"[xps]\npolicy = one-to-one\ncpus = 6-200\n", "CPU 144 does not exist"},
	    {"[xps]\npolicy = explicit\ntx-200 = 1\n", "tx-200"},
	    {"[irq]\npolicy = explicit\nqueue.150 = 1\n", "queue.150"},
	    {"[rps]\ncpus = 10-12\n", "CPU 11 is isolated"},
	    {"[sysctl]\nnet.core.no_such_thing = 1\n", "no_such_thing"},
	};
	struct world *w = *state;
	struct profile p;
	struct plan pl;
	struct nm_error err;

	put_both(w, "sys/devices/system/cpu/online", "0-4,6-143\n");
	put_both(w, "sys/devices/system/cpu/isolated", "11\n");
	profile_host_close(&w->h);
	assert_int_equal(profile_host_open(&w->h, w->root, &err), 0);
	w->h.irqs = sampler_irq_table(w->s, NULL)->v;
	w->h.nirqs = sampler_irq_table(w->s, NULL)->n;
	assert_int_equal(profile_host_set_device(&w->h, "eth0", &err), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		parse_ok(&p, bad[i].text);
		plan_init(&pl);
		if (plan_build(&pl, &p, &w->h, &err) == 0)
			fail_msg("accepted: %s", bad[i].text);
		if (strstr(err.message, bad[i].word) == NULL)
			fail_msg("\"%s\" lacks \"%s\"", err.message, bad[i].word);
		plan_free(&pl);
		profile_free(&p);
	}
	/* "all" leaves the offline and isolated CPUs out. */
	parse_ok(&p, "[rps]\ncpus = all\n");
	plan_init(&pl);
	assert_int_equal(plan_build(&pl, &p, &w->h, &err), 0);
	assert_string_equal(pl.e[0].new, "ffff,ffffffff,ffffffff,ffffffff,fffff7df");
	plan_free(&pl);
	profile_free(&p);
	assert_true(tree_same(w));
	put_both(w, "sys/devices/system/cpu/online", "0-143\n");
	put_both(w, "sys/devices/system/cpu/isolated", "\n");
}

/* Devices: the default route's, missing ones, names that would leave sys/class/net. */
static void
test_devices(void **state)
{
	struct world *w = *state;
	struct nm_error err;

	assert_int_equal(profile_host_set_device(&w->h, NULL, &err), 0);
	assert_string_equal(w->h.dev, "eth0");
	assert_true(w->h.dev_from_route);
	assert_int_equal(w->h.nrx, NQ);
	assert_int_equal(w->h.ntx, NQ);
	assert_int_equal(profile_host_set_device(&w->h, "eth9", &err), -1);
	assert_int_equal(err.code, NM_ERR_NOT_FOUND);
	assert_int_equal(profile_host_set_device(&w->h, "..", &err), -1);
	assert_int_equal(err.code, NM_ERR_BAD_ARGS);
	assert_int_equal(profile_host_set_device(&w->h, "../../etc", &err), -1);
	assert_int_equal(profile_host_openat(&w->h, PROFILE_BASE_NETDEV, "eth0",
	                                     "queues/../../../../../etc/passwd", 0),
	                 -1);
	/* The device link itself is a symlink: nothing below the device may follow one. */
	assert_int_equal(
	    profile_host_openat(&w->h, PROFILE_BASE_NETDEV, "eth0", "device/vendor", 0), -1);
	assert_int_equal(profile_host_set_device(&w->h, "eth0", &err), 0);
}

/* irqbalance is seen through proc/PID/comm. */
static void
test_irqbalance(void **state)
{
	struct world *w = *state;
	char path[256];

	assert_false(profile_host_irqbalance(&w->h));
	snprintf(path, sizeof(path), "%s/proc/4242", w->root);
	assert_int_equal(mkdir(path, 0755), 0);
	put(w, "proc/4242/comm", "irqbalance\n");
	assert_true(profile_host_irqbalance(&w->h));
}

/* tuned, another agent that rewrites tuning: found by its comm, with its active profile. */
static void
test_tuned(void **state)
{
	struct world *w = *state;
	char path[256], prof[64];

	assert_false(profile_host_tuned(&w->h, prof, sizeof(prof)));
	assert_string_equal(prof, "");
	snprintf(path, sizeof(path), "%s/proc/4343", w->root);
	assert_int_equal(mkdir(path, 0755), 0);
	put(w, "proc/4343/comm", "tuned\n");
	snprintf(path, sizeof(path), "%s/etc/tuned", w->root);
	run("mkdir -p %s", path);
	put(w, "etc/tuned/active_profile", "network-throughput\n");
	assert_true(profile_host_tuned(&w->h, prof, sizeof(prof)));
	assert_string_equal(prof, "network-throughput");
	assert_false(profile_host_irqbalance(&w->h));
}

/* Competing agents: other netmetricsd processes (not this daemon's family), irqbalance and
 * tuned are listed in status, and a drifted value says which of them could have changed
 * it: an IRQ affinity irqbalance, tuned (its irq plugin) and the other daemon; an XPS mask
 * only the other daemon. */
static void
test_agents(void **state)
{
	static const char text[] = "[irq]\npolicy = all\ncpus = 0\n[xps]\npolicy = none\n";
	struct world *w = *state;
	struct nm_error err;
	json_object *st, *d, *who, *ag;
	char path[256], rel[64];
	struct plan pl;
	long pids[4];
	int irq = -1;

	assert_int_equal(profile_agents_daemons(&w->h, pids, 4), 0);
	for (int i = 0; i < 3; i++) {
		static const char *const comm[] = {"netmetricsd\n", "netmetricsd\n",
		                                   "irqbalance\n"};
		static const int pid[] = {5151, 77, 4040};
		snprintf(path, sizeof(path), "%s/proc/%d", w->root, pid[i]);
		assert_int_equal(mkdir(path, 0755), 0);
		snprintf(rel, sizeof(rel), "proc/%d/comm", pid[i]);
		put(w, rel, comm[i]);
	}
	put(w, "proc/77/status", "Name:\tnetmetricsd\nPPid:\t1\n");
	assert_int_equal(profile_agents_daemons(&w->h, pids, 4), 2);
	assert_int_equal(pids[0], 77);
	assert_int_equal(pids[1], 5151);
	if (apply_text(w, text, &err) < 0)
		fail_msg("%s", err.message);
	st = profile_state_status(w->state, &w->h);
	assert_false(json_get_bool(st, "drift", true));
	ag = json_object_object_get(st, "agents");
	assert_true(json_get_bool(ag, "irqbalance", false));
	assert_string_equal(json_object_to_json_string_ext(
	                        json_object_object_get(ag, "netmetricsd"), JSON_C_TO_STRING_PLAIN),
	                    "[77,5151]");
	json_object_put(st);
	/* Someone rewrites an IRQ's affinity and a queue's XPS mask. */
	assert_int_equal(plan_text(w, text, &pl, &err), 0);
	for (size_t i = 0; i < pl.n && irq < 0; i++)
		if (pl.e[i].kind == PLAN_IRQ)
			irq = pl.e[i].index;
	plan_free(&pl);
	snprintf(rel, sizeof(rel), "proc/irq/%d/smp_affinity_list", irq);
	put(w, rel, "1\n");
	put(w, "sys/class/net/eth0/queues/tx-0/xps_cpus", "1\n");
	st = profile_state_status(w->state, &w->h);
	assert_true(json_get_bool(st, "drift", false));
	d = json_object_object_get(st, "drifted");
	for (size_t i = 0; i < json_object_array_length(d); i++) {
		json_object *x = json_object_array_get_idx(d, i);
		who = json_object_object_get(x, "who");
		if (strcmp(json_get_string(x, "kind", ""), "irq") == 0)
			assert_string_equal(
			    json_object_to_json_string_ext(who, JSON_C_TO_STRING_PLAIN),
			    "[\"irqbalance\",\"netmetricsd pid 77\",\"netmetricsd "
			    "pid 5151\"]");
		else
			assert_string_equal(
			    json_object_to_json_string_ext(who, JSON_C_TO_STRING_PLAIN),
			    "[\"netmetricsd pid 77\",\"netmetricsd pid 5151\"]");
	}
	if (json_object_array_length(d) != 2)
		fail_msg("%s", json_object_to_json_string(d));
	json_object_put(st);
	/* tuned running: named with its profile for the IRQ, not for XPS. */
	snprintf(path, sizeof(path), "%s/proc/4343", w->root);
	assert_int_equal(mkdir(path, 0755), 0);
	put(w, "proc/4343/comm", "tuned\n");
	run("mkdir -p %s/etc/tuned", w->root);
	put(w, "etc/tuned/active_profile", "latency-performance\n");
	ag = profile_agents_json(&w->h, "eth0");
	who = profile_agents_who(ag, PLAN_IRQ);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(who, 1)),
	                    "tuned (profile latency-performance)");
	json_object_put(who);
	who = profile_agents_who(ag, PLAN_XPS);
	assert_int_equal(json_object_array_length(who), 2);
	json_object_put(who);
	json_object_put(ag);
	json_object_put(profile_state_revert(w->state, &w->h, &err));
	run("rm -rf %s/proc/5151 %s/proc/77 %s/proc/4040 %s/proc/4343 %s/etc/tuned", w->root,
	    w->root, w->root, w->root, w->root);
}

/* Run every test in this file. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shipped_profiles),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_parse_json),
	    cmocka_unit_test_setup_teardown(test_dry_run, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_apply_status_revert, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_two_applies_one_revert, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failure_rolls_back, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ntuple_fixed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_napi, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_offloads, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_channels, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rings, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_coalesce, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rss, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_agents, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_napi_queue, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_skip_what_the_device_lacks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_save_round_trip, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_validation, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_devices, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_irqbalance, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tuned, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_irq_without_interrupts_source, setup, teardown),
	};

	return cmocka_run_group_tests(tests, setup_group, teardown_group);
}
