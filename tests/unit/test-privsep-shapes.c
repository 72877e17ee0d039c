/* test-privsep-shapes.c: the privileged process's allow-list of what runs as root for an
 * admin (privsep_check_root_argv) against the command lines the pktgen driver really
 * builds, made by the driver's own functions (driver-pktgen.h: every ip and tc step, trafgen
 * and netmetrics-pktgen, with and without a namespace, paced or not, one thread or three):
 * every one passes, so a driver that changes its argv without the allow-list fails here.
 * And what a compromised main process could ask instead: iproute2's abbreviations of exec
 * and batch ("ip netns ex", "ip netns e", "ip -ba", "ip vrf e"), trafgen writing a file or
 * reading another configuration, netmetrics-pktgen on another directory or file: each
 * refused, with the word named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "driver-pktgen.h"
#include "error.h"
#include "privsep-check.h"
#include "runner.h"

/* Is argv allowed as root (the reason printed when not)? */
static int
root_ok(char *const *argv, const char *netns)
{
	char why[512];

	why[0] = '\0';
	if (privsep_check_root_argv(argv, netns, why, sizeof(why)) == 0)
		return 0;
	printf("    refused: %s\n", why);
	return -1;
}

/* A spec as test start fills it (the driver's own check sets the defaults). */
static void
spec_of(struct test_spec *s, const char *generator, const char *netns, unsigned threads,
        uint64_t count, double rate, uint64_t delay)
{
	const struct driver *drv = driver_find("pktgen");
	struct nm_error err;

	memset(s, 0, sizeof(*s));
	s->driver = drv;
	s->procs = 1;
	snprintf(s->name, sizeof(s->name), "pg");
	snprintf(s->dev, sizeof(s->dev), "vA");
	snprintf(s->netns, sizeof(s->netns), "%s", netns);
	snprintf(s->dst_mac, sizeof(s->dst_mac), "02:00:00:00:00:02");
	snprintf(s->src, sizeof(s->src), "172.31.9.1");
	s->threads = threads;
	s->count = count;
	s->rate_pps = rate;
	s->delay_ns = delay;
	s->duration_s = count ? 0 : 5;
	/* threads above the CPUs online are refused at start; the argv does not care */
	if (threads > (unsigned)sysconf(_SC_NPROCESSORS_ONLN))
		s->generator_on[0] = 'x';
	assert_int_equal(drv->check(s, &err), 0);
	s->generator_on[0] = '\0';
	snprintf(s->generator, sizeof(s->generator), "%s", generator);
}

/* Every command line the driver builds for s passes, also for an admin's spawn. */
static void
all_pass(const struct test_spec *s)
{
	static const enum pktgen_step steps[] = {PKTGEN_STEP_ADDR,    PKTGEN_STEP_ROUTE,
	                                         PKTGEN_STEP_NEIGH,   PKTGEN_STEP_QDISC,
	                                         PKTGEN_STEP_TBF_ADD, PKTGEN_STEP_TBF_DEL};
	char tmpl[256], cfg[300], path[64], why[512];
	char **v;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		snprintf(path, sizeof(path), "/usr/sbin/%s", pktgen_step_tool(steps[i]));
		v = pktgen_step_argv(steps[i], s, path, "10.1.0.1");
		assert_int_equal(root_ok(v, s->netns), 0);
		assert_int_equal(privsep_check_peer(1000, 1000, true, false, 0, 0, v, s->netns, why,
		                                    sizeof(why)),
		                 0);
		runner_strv_free(v);
	}
	/* trafgen's configuration where the driver writes it (mkdtemp below TMPDIR). */
	snprintf(tmpl, sizeof(tmpl), "/tmp/" PKTGEN_CFG_DIR "XXXXXX");
	assert_non_null(mkdtemp(tmpl));
	snprintf(cfg, sizeof(cfg), "%s/" PKTGEN_CFG_FILE, tmpl);
	v = pktgen_generator_argv(s,
	                          strcmp(s->generator, "pktgen") == 0
	                              ? "/usr/sbin/netmetrics-pktgen"
	                              : "/usr/sbin/trafgen",
	                          cfg);
	assert_int_equal(root_ok(v, s->netns), 0);
	runner_strv_free(v);
	rmdir(tmpl);
}

static void
test_driver_lines_pass(void **state)
{
	static const char *const gens[] = {"trafgen", "pktgen"};
	struct test_spec s;

	(void)state;
	for (size_t g = 0; g < 2; g++)
		for (int ns = 0; ns < 2; ns++) {
			const char *netns = ns ? "nm-gen" : "";
			spec_of(&s, gens[g], netns, 1, 0, 0, 0);
			all_pass(&s);
			spec_of(&s, gens[g], netns, 1, 2000, 20000, 0);
			all_pass(&s);
			spec_of(&s, gens[g], netns, 3, 1001, 0, 0);
			all_pass(&s);
			spec_of(&s, gens[g], netns, 3, 0, 0, 50000);
			all_pass(&s);
			spec_of(&s, gens[g], netns, 2, 0, 1e6, 0);
			all_pass(&s);
		}
}

/* What the issue found passing the block-list, and its neighbours: refused. */
static void
test_abbreviations_refused(void **state)
{
	char *ex[] = {"/usr/sbin/ip", "netns", "ex", "gen", "/bin/sh", NULL};
	char *e[] = {"/usr/sbin/ip", "netns", "e", "gen", "/bin/sh", NULL};
	char *exec[] = {"/usr/sbin/ip", "netns", "exec", "gen", "/bin/sh", NULL};
	char *ba[] = {"/usr/sbin/ip", "-ba", "/tmp/f", NULL};
	char *b[] = {"/usr/sbin/ip", "-b", "/tmp/f", NULL};
	char *vrf[] = {"/usr/sbin/ip", "vrf", "e", "v", "/bin/sh", NULL};
	char *nsex[] = {"/usr/sbin/ip", "-n", "gen", "netns", "ex", "x", "/bin/sh", NULL};
	char *force[] = {"/usr/sbin/ip", "-force", "-batch", "/tmp/f", NULL};
	char *jex[] = {"/usr/sbin/ip", "-j", "netns", "e", "x", "/bin/sh", NULL};
	char *tcb[] = {"/usr/sbin/tc", "-b", "/tmp/f", NULL};
	char *tcba[] = {"/usr/sbin/tc", "-ba", "/tmp/f", NULL};
	char *tcexec[] = {"/usr/sbin/tc", "exec", "bpf", "run", "/tmp/x", NULL};
	char *short_addr[] = {"/usr/sbin/ip", "-j", "a", "s", "dev", "vA", NULL};
	char *more[] = {"/usr/sbin/ip", "-j", "addr", "show", "dev", "vA", "netns", "e", NULL};
	char *optdev[] = {"/usr/sbin/ip", "-j", "addr", "show", "dev", "-batch", NULL};
	char *badns[] = {"/usr/sbin/ip", "-n", "-b", "-j", "addr", "show", "dev", "vA", NULL};
	char *route[] = {"/usr/sbin/ip", "-j", "-4", "route", "get", "10.0.0.1", "from", "x", NULL};
	char *tbf[] = {"/usr/sbin/tc", "qdisc", "add",   "dev", "vA",    "root", "tbf",
	               "rate",         "1bit",  "burst", "1",   "limit", "1;sh", NULL};
	char *sh[] = {"/bin/sh", "-c", "id", NULL};
	(void)state;
	assert_int_equal(root_ok(ex, ""), -1);
	assert_int_equal(root_ok(e, ""), -1);
	assert_int_equal(root_ok(exec, ""), -1);
	assert_int_equal(root_ok(ba, ""), -1);
	assert_int_equal(root_ok(b, ""), -1);
	assert_int_equal(root_ok(vrf, ""), -1);
	assert_int_equal(root_ok(nsex, ""), -1);
	assert_int_equal(root_ok(force, ""), -1);
	assert_int_equal(root_ok(jex, ""), -1);
	assert_int_equal(root_ok(tcb, ""), -1);
	assert_int_equal(root_ok(tcba, ""), -1);
	assert_int_equal(root_ok(tcexec, ""), -1);
	assert_int_equal(root_ok(short_addr, ""), -1);
	assert_int_equal(root_ok(more, ""), -1);
	assert_int_equal(root_ok(optdev, ""), -1);
	assert_int_equal(root_ok(badns, ""), -1);
	assert_int_equal(root_ok(route, ""), -1);
	assert_int_equal(root_ok(tbf, ""), -1);
	assert_int_equal(root_ok(sh, ""), -1);
	/* The reason names the word. */
	{
		char why[512];
		assert_int_equal(privsep_check_root_argv(ex, "", why, sizeof(why)), -1);
		assert_non_null(strstr(why, "word 1 (\"netns\")"));
		assert_int_equal(privsep_check_root_argv(ba, "", why, sizeof(why)), -1);
		assert_non_null(strstr(why, "word 1 (\"-ba\")"));
		assert_int_equal(privsep_check_root_argv(more, "", why, sizeof(why)), -1);
		assert_non_null(strstr(why, "word 6 (\"netns\")"));
		assert_int_equal(privsep_check_root_argv(sh, "", why, sizeof(why)), -1);
		assert_non_null(strstr(why, "sh is not a program the pktgen driver runs"));
	}
}

/* trafgen: -o takes a device only (a .pcap or .cfg "device" is a file trafgen writes),
 * -i the driver's configuration only; netmetrics-pktgen: pktgen's files and commands. */
static void
test_generators_refused(void **state)
{
#define TG(dev, cfg)                                                                               \
	{                                                                                          \
		"/usr/sbin/trafgen", "--no-sock-mem", "-Q", "-q", "-o", dev, "-i", cfg, "-P", "1", \
		    NULL                                                                           \
	}
	char *ok[] = TG("vA", "/tmp/netmetrics-pktgen.Ab12Z9/trafgen.cfg");
	char *pcap[] = TG("x.pcap", "/tmp/netmetrics-pktgen.Ab12Z9/trafgen.cfg");
	char *cfgout[] = TG("y.cfg", "/tmp/netmetrics-pktgen.Ab12Z9/trafgen.cfg");
	char *dash[] = TG("-", "/tmp/netmetrics-pktgen.Ab12Z9/trafgen.cfg");
	char *path[] = TG("/etc/x", "/tmp/netmetrics-pktgen.Ab12Z9/trafgen.cfg");
	char *shadow[] = TG("vA", "/etc/shadow");
	char *dots[] = TG("vA", "/tmp/netmetrics-pktgen.Ab12Z9/../../etc/trafgen.cfg");
	char *dots2[] = TG("vA", "/tmp/../etc/netmetrics-pktgen.Ab12Z9/trafgen.cfg");
	char *rel[] = TG("vA", "netmetrics-pktgen.Ab12Z9/trafgen.cfg");
	char *stdin_cfg[] = TG("vA", "-");
	char *cpp[] = {"/usr/sbin/trafgen",
	               "--no-sock-mem",
	               "-Q",
	               "-q",
	               "-o",
	               "vA",
	               "-i",
	               "/tmp/netmetrics-pktgen.Ab12Z9/trafgen.cfg",
	               "-P",
	               "1",
	               "--cpp",
	               NULL};
	char *hr[] = {"/usr/sbin/netmetrics-pktgen", "-r", "/etc", "-s", NULL};
	char *ctl[] = {"/usr/sbin/netmetrics-pktgen", "-w", "pgctrl", "reset", "-s", NULL};
	char *trav[] = {"/usr/sbin/netmetrics-pktgen", "-w", "../x", "y", "-s", NULL};
	char *cmd[] = {"/usr/sbin/netmetrics-pktgen", "-w", "vA@0", "count 1;x", "-s", NULL};
	char *nos[] = {"/usr/sbin/netmetrics-pktgen", "-w", "vA@0", "count 1", NULL};
	char *twos[] = {"/usr/sbin/netmetrics-pktgen", "-s", "-s", NULL};
	char *good[] = {"/usr/sbin/netmetrics-pktgen",
	                "-w",
	                "kpktgend_0",
	                "rem_device_all",
	                "-w",
	                "kpktgend_0",
	                "add_device vA@0",
	                "-w",
	                "vA@0",
	                "dst_mac 02:00:00:00:00:02",
	                "-s",
	                "-p",
	                "vA@0",
	                "-w",
	                "kpktgend_0",
	                "rem_device_all",
	                NULL};
	(void)state;
	assert_int_equal(root_ok(ok, ""), 0);
	assert_int_equal(root_ok(pcap, ""), -1);
	assert_int_equal(root_ok(cfgout, ""), -1);
	assert_int_equal(root_ok(dash, ""), -1);
	assert_int_equal(root_ok(path, ""), -1);
	assert_int_equal(root_ok(shadow, ""), -1);
	assert_int_equal(root_ok(dots, ""), -1);
	assert_int_equal(root_ok(dots2, ""), -1);
	assert_int_equal(root_ok(rel, ""), -1);
	assert_int_equal(root_ok(stdin_cfg, ""), -1);
	assert_int_equal(root_ok(cpp, ""), -1);
	assert_int_equal(root_ok(good, ""), 0);
	assert_int_equal(root_ok(good, "../x"), -1);
	assert_int_equal(root_ok(hr, ""), -1);
	assert_int_equal(root_ok(ctl, ""), -1);
	assert_int_equal(root_ok(trav, ""), -1);
	assert_int_equal(root_ok(cmd, ""), -1);
	assert_int_equal(root_ok(nos, ""), -1);
	assert_int_equal(root_ok(twos, ""), -1);
#undef TG
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_driver_lines_pass),
	    cmocka_unit_test(test_abbreviations_refused),
	    cmocka_unit_test(test_generators_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
