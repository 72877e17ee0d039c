/* test-privsep-check.c: the privileged process's allow-list (privsep-check.c): the tuning
 * files and values a profile writes pass; crafted requests outside the list (other files,
 * traversal, other sysctls, bad values, foreign groups, planted executables) are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/ethtool.h>
#include <string.h>

#include <cmocka.h>

#include "ethtool.h"
#include "privsep-check.h"
#include "profile.h"

static int
w(int base, const char *dev, const char *rel, const char *val)
{
	char why[256];

	why[0] = '\0';
	return privsep_check_write(base, dev, rel, val, why, sizeof(why));
}

/* What profile-plan.c writes. */
static void
test_allowed(void **state)
{
	(void)state;
	assert_int_equal(w(PROFILE_BASE_IRQ, NULL, "24/smp_affinity_list", "0-3,8"), 0);
	assert_int_equal(w(PROFILE_BASE_IRQ, NULL, "0/smp_affinity_list", "1"), 0);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "eth0", "queues/tx-0/xps_cpus", "ff"), 0);
	assert_int_equal(
	    w(PROFILE_BASE_NETDEV, "veth-a.1", "queues/rx-12/rps_cpus", "00000000,0000000f"), 0);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "eth0", "queues/rx-3/rps_flow_cnt", "4096"), 0);
	assert_int_equal(w(PROFILE_BASE_SYSCTL, NULL, "net/core/rps_sock_flow_entries", "32768"),
	                 0);
	assert_int_equal(w(PROFILE_BASE_SYSCTL, NULL, "net/ipv4/tcp_rmem", "4096\t87380 6291456"),
	                 0);
	assert_int_equal(w(PROFILE_BASE_SYSCTL, NULL, "net/ipv4/conf/eth0.100/rp_filter", "0"), 0);
	assert_int_equal(w(PROFILE_BASE_SYSCTL, NULL, "net/core/default_qdisc", "fq"), 0);
	/* [napi]: the three device-wide files. */
	assert_int_equal(w(PROFILE_BASE_NETDEV, "eth0", "gro_flush_timeout", "20000"), 0);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "eth0", "napi_defer_hard_irqs", "2"), 0);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "eth0", "threaded", "1"), 0);
}

/* [offloads]: feature names as the kernel spells them, nothing else. */
static void
test_feature_names(void **state)
{
	char why[64];

	(void)state;
	assert_int_equal(privsep_check_feature("rx-gro", why, sizeof(why)), 0);
	assert_int_equal(privsep_check_feature("tx-tcp6-segmentation", why, sizeof(why)), 0);
	assert_int_equal(privsep_check_feature("", why, sizeof(why)), -1);
	assert_string_equal(why, "not an ethtool feature name");
	assert_int_equal(privsep_check_feature("-rx", why, sizeof(why)), -1);
	assert_int_equal(privsep_check_feature("rx-GRO", why, sizeof(why)), -1);
	assert_int_equal(privsep_check_feature("rx gro", why, sizeof(why)), -1);
	assert_int_equal(privsep_check_feature("../rx", why, sizeof(why)), -1);
	assert_int_equal(
	    privsep_check_feature("a-name-that-is-longer-than-31-by", why, sizeof(why)), -1);
}

/* RSS requests are checked against the device: the table's size and queues, the key's
 * size, one hash function, a known flow type and fields. */
static void
test_rss(void **state)
{
	uint32_t t[4] = {0, 1, 0, 1}, bad[4] = {0, 1, 4, 1}, f = RXH_IP_SRC | RXH_IP_DST;
	uint8_t key[4] = {1, 2, 3, 4};
	char why[128];

	(void)state;
	assert_int_equal(privsep_check_rss(ETHTOOL_RSS_INDIR, 0, t, 16, 4, 2, 40, why, sizeof(why)),
	                 0);
	assert_int_equal(privsep_check_rss(ETHTOOL_RSS_INDIR, 0, t, 12, 4, 2, 40, why, sizeof(why)),
	                 -1);
	assert_string_equal(why, "the indirection table has 4 entries, the request 3");
	assert_int_equal(
	    privsep_check_rss(ETHTOOL_RSS_INDIR, 0, bad, 16, 4, 4, 40, why, sizeof(why)), -1);
	assert_string_equal(why, "entry 2 is queue 4: the device has 4 rx rings");
	assert_int_equal(privsep_check_rss(ETHTOOL_RSS_KEY, 0, key, 4, 4, 4, 4, why, sizeof(why)),
	                 0);
	assert_int_equal(privsep_check_rss(ETHTOOL_RSS_KEY, 0, key, 4, 4, 4, 40, why, sizeof(why)),
	                 -1);
	assert_string_equal(why, "the hash key has 40 bytes, the request 4");
	assert_int_equal(
	    privsep_check_rss(ETHTOOL_RSS_HFUNC, 2, NULL, 0, 0, 0, 0, why, sizeof(why)), 0);
	assert_int_equal(
	    privsep_check_rss(ETHTOOL_RSS_HFUNC, 3, NULL, 0, 0, 0, 0, why, sizeof(why)), -1);
	assert_int_equal(
	    privsep_check_rss(ETHTOOL_RSS_FIELDS, TCP_V4_FLOW, &f, 4, 0, 0, 0, why, sizeof(why)),
	    0);
	assert_int_equal(
	    privsep_check_rss(ETHTOOL_RSS_FIELDS, 99, &f, 4, 0, 0, 0, why, sizeof(why)), -1);
	f = 1; /* not an RXH_ bit */
	assert_int_equal(
	    privsep_check_rss(ETHTOOL_RSS_FIELDS, TCP_V4_FLOW, &f, 4, 0, 0, 0, why, sizeof(why)),
	    -1);
	assert_string_equal(why, "not hash fields (mvtsdfnr)");
	assert_int_equal(privsep_check_rss(7, 0, NULL, 0, 0, 0, 0, why, sizeof(why)), -1);
	assert_string_equal(why, "not a part of RSS");
}

/* Crafted requests: every one refused, with a reason. */
static void
test_refused(void **state)
{
	char why[256];

	(void)state;
	/* Paths outside the allow-list. */
	assert_int_equal(w(PROFILE_BASE_IRQ, NULL, "24/../../sys/kernel/core_pattern", "x"), -1);
	assert_int_equal(w(PROFILE_BASE_IRQ, NULL, "24/smp_affinity", "f"), -1);
	assert_int_equal(w(PROFILE_BASE_IRQ, NULL, "default_smp_affinity", "f"), -1);
	assert_int_equal(w(PROFILE_BASE_IRQ, NULL, "/24/smp_affinity_list", "1"), -1);
	assert_int_equal(w(PROFILE_BASE_IRQ, NULL, "024/smp_affinity_list", "1"), -1);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "eth0", "queues/tx-0/../../mtu", "ff"), -1);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "eth0", "mtu", "9000"), -1);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "eth0", "threaded", "2"), -1);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "eth0", "gro_flush_timeout", "-1"), -1);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "eth0", "napi_defer_hard_irqs", "1 "), -1);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "eth0", "queues/rx-0/threaded", "1"), -1);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "eth0", "queues/tx-0/rps_cpus", "ff"), -1);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "eth0", "queues/rx-0/xps_cpus", "ff"), -1);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "eth0", "queues/tx-/xps_cpus", "ff"), -1);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "../../../etc", "queues/tx-0/xps_cpus", "ff"), -1);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "..", "queues/tx-0/xps_cpus", "ff"), -1);
	assert_int_equal(w(PROFILE_BASE_NETDEV, NULL, "queues/tx-0/xps_cpus", "ff"), -1);
	assert_int_equal(
	    w(PROFILE_BASE_NETDEV, "averyveryverylongname", "queues/tx-0/xps_cpus", "ff"), -1);
	assert_int_equal(w(PROFILE_BASE_SYSCTL, NULL, "kernel/core_pattern", "|/tmp/x"), -1);
	assert_int_equal(w(PROFILE_BASE_SYSCTL, NULL, "net/../kernel/modprobe", "/tmp/x"), -1);
	/* The same with values that pass: refused for the name alone. */
	assert_int_equal(w(PROFILE_BASE_SYSCTL, NULL, "net/../kernel/modprobe", "x"), -1);
	assert_int_equal(w(PROFILE_BASE_SYSCTL, NULL, "net/core/../../kernel/sysrq", "1"), -1);
	assert_int_equal(w(PROFILE_BASE_SYSCTL, NULL, "net/./core/somaxconn", "1"), -1);
	assert_int_equal(w(PROFILE_BASE_SYSCTL, NULL, "net/core/bpf_jit_harden", "0"), -1);
	assert_int_equal(w(PROFILE_BASE_SYSCTL, NULL, "net//core/x", "0"), -1);
	assert_int_equal(w(PROFILE_BASE_SYSCTL, NULL, "net/core/", "0"), -1);
	assert_int_equal(w(PROFILE_BASE_ROOT, NULL, "ethtool/eth0.features", "x"), -1);
	assert_int_equal(w(99, NULL, "24/smp_affinity_list", "1"), -1);
	/* Values of the wrong syntax. */
	assert_int_equal(w(PROFILE_BASE_IRQ, NULL, "24/smp_affinity_list", "1\n2"), -1);
	assert_int_equal(w(PROFILE_BASE_IRQ, NULL, "24/smp_affinity_list", ""), -1);
	assert_int_equal(w(PROFILE_BASE_IRQ, NULL, "24/smp_affinity_list", "-1"), -1);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "eth0", "queues/tx-0/xps_cpus", "fg"), -1);
	assert_int_equal(w(PROFILE_BASE_NETDEV, "eth0", "queues/rx-0/rps_flow_cnt", "-1"), -1);
	assert_int_equal(w(PROFILE_BASE_SYSCTL, NULL, "net/core/somaxconn", "1\n"), -1);
	assert_int_equal(w(PROFILE_BASE_SYSCTL, NULL, "net/core/somaxconn", "$(reboot)"), -1);
	/* The reason names the file. */
	assert_int_equal(privsep_check_write(PROFILE_BASE_SYSCTL, NULL, "kernel/core_pattern", "x",
	                                     why, sizeof(why)),
	                 -1);
	assert_non_null(strstr(why, "kernel/core_pattern"));
}

static void
test_exec(void **state)
{
	struct stat st;
	char why[256];

	(void)state;
	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFREG | 0755;
	assert_int_equal(privsep_check_exec("/usr/bin/iperf3", &st, 1000, why, sizeof(why)), 0);
	assert_int_equal(privsep_check_exec("usr/bin/iperf3", &st, 1000, why, sizeof(why)), -1);
	/* Planted by the main process's user (or writable by it): refused. */
	st.st_uid = 995;
	assert_int_equal(privsep_check_exec("/var/lib/netmetricsd/x", &st, 0, why, sizeof(why)),
	                 -1);
	assert_int_equal(privsep_check_exec("/var/lib/netmetricsd/x", &st, 1000, why, sizeof(why)),
	                 -1);
	/* A user's own program runs as that user. */
	st.st_uid = 1000;
	assert_int_equal(privsep_check_exec("/home/u/bench", &st, 1000, why, sizeof(why)), 0);
	st.st_uid = 0;
	st.st_mode = S_IFREG | 0775;
	assert_int_equal(privsep_check_exec("/usr/bin/x", &st, 0, why, sizeof(why)), -1);
	st.st_mode = S_IFREG | 0644;
	assert_int_equal(privsep_check_exec("/usr/bin/x", &st, 0, why, sizeof(why)), -1);
	st.st_mode = S_IFDIR | 0755;
	assert_int_equal(privsep_check_exec("/usr/bin", &st, 0, why, sizeof(why)), -1);
}

static void
test_groups(void **state)
{
	const gid_t mine[] = {1000, 27, 1001};
	const gid_t ok[] = {1000, 1001}, foreign[] = {1000, 0};
	char why[256];

	(void)state;
	assert_int_equal(privsep_check_groups(1000, 1000, ok, 2, mine, 3, why, sizeof(why)), 0);
	assert_int_equal(privsep_check_groups(1000, 27, ok, 2, mine, 3, why, sizeof(why)), 0);
	assert_int_equal(privsep_check_groups(1000, 0, ok, 2, mine, 3, why, sizeof(why)), -1);
	assert_int_equal(privsep_check_groups(1000, 1000, foreign, 2, mine, 3, why, sizeof(why)),
	                 -1);
	assert_non_null(strstr(why, "group 0"));
	assert_int_equal(privsep_check_groups(0, 0, foreign, 2, mine, 3, why, sizeof(why)), 0);
}

static void
test_strv(void **state)
{
	char *argv[] = {"/bin/true", NULL}, *none[] = {NULL};
	char *env[] = {"PATH=/bin", "LANG=C", NULL}, *badenv[] = {"PATH=/bin", "JUNK", NULL};
	char why[256];

	(void)state;
	assert_int_equal(privsep_check_strv(argv, 4, false, why, sizeof(why)), 0);
	assert_int_equal(privsep_check_strv(none, 4, false, why, sizeof(why)), -1);
	assert_int_equal(privsep_check_strv(env, 4, true, why, sizeof(why)), 0);
	assert_int_equal(privsep_check_strv(badenv, 4, true, why, sizeof(why)), -1);
	assert_int_equal(privsep_check_strv(env, 1, true, why, sizeof(why)), -1);
	{
		char *preload[] = {"PATH=/bin", "LD_PRELOAD=/var/lib/netmetricsd/x.so", NULL};
		char *gconv[] = {"GCONV_PATH=/tmp", NULL};
		assert_int_equal(privsep_check_strv(preload, 4, true, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "LD_PRELOAD"));
		assert_int_equal(privsep_check_strv(gconv, 4, true, why, sizeof(why)), -1);
	}
}

/* A spawn as whom, for which client (SO_PEERCRED): what a compromised main process would
 * ask for another's connection. */
static void
test_peer(void **state)
{
	char *sh[] = {"/bin/sh", "-c", "id", NULL};
	char *ip[] = {"/usr/sbin/ip", "-j", "addr", "show", "dev", "vA", NULL};
	char *ipexec[] = {"/usr/sbin/ip", "-n", "x", "netns", "exec", "x", "/bin/sh", NULL};
	char *tc[] = {"/usr/sbin/tc", "-j", "qdisc", "show", "dev", "vA", NULL};
	char *tcb[] = {"tc", "-batch", "f", NULL};
	char why[512];

	(void)state;
	/* Root: anything, as anyone. */
	assert_int_equal(privsep_check_peer(0, 0, true, false, 0, 0, sh, "", why, sizeof(why)), 0);
	assert_int_equal(privsep_check_peer(0, 0, true, true, 1000, 1000, sh, "", why, sizeof(why)),
	                 0);
	/* A user: as itself only. */
	assert_int_equal(
	    privsep_check_peer(1000, 1000, false, true, 1000, 1000, sh, "", why, sizeof(why)), 0);
	assert_int_equal(
	    privsep_check_peer(1000, 1000, false, true, 1001, 1000, sh, "", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "for a client of uid 1000"));
	assert_int_equal(
	    privsep_check_peer(1000, 1000, true, true, 1000, 0, sh, "", why, sizeof(why)), -1);
	/* uid 0 asked as a user's spawn, or as root: refused, also for an admin... */
	assert_int_equal(privsep_check_peer(1000, 1000, true, true, 0, 0, sh, "", why, sizeof(why)),
	                 -1);
	assert_int_equal(
	    privsep_check_peer(1000, 1000, true, false, 0, 0, sh, "", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "only the command lines a privileged driver builds"));
	assert_non_null(strstr(why, "sh is not a program the pktgen driver runs"));
	assert_int_equal(
	    privsep_check_peer(1000, 1000, false, false, 0, 0, ip, "", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not an admin"));
	/* ...but an admin's pktgen command lines run as root (the allow-list word by word:
	 * test-privsep-shapes.c), not exec or batch files, not in a bad namespace name. */
	assert_int_equal(
	    privsep_check_peer(1000, 1000, true, false, 0, 0, ip, "", why, sizeof(why)), 0);
	assert_int_equal(
	    privsep_check_peer(1000, 1000, true, false, 0, 0, ip, "gen", why, sizeof(why)), 0);
	assert_int_equal(
	    privsep_check_peer(1000, 1000, true, false, 0, 0, tc, "", why, sizeof(why)), 0);
	assert_int_equal(
	    privsep_check_peer(1000, 1000, true, false, 0, 0, ipexec, "", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "word 3 (\"netns\")"));
	assert_int_equal(
	    privsep_check_peer(1000, 1000, true, false, 0, 0, tcb, "", why, sizeof(why)), -1);
	assert_int_equal(
	    privsep_check_peer(1000, 1000, true, false, 0, 0, NULL, "", why, sizeof(why)), -1);
	assert_int_equal(
	    privsep_check_peer(1000, 1000, true, false, 0, 0, ip, "-x", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a namespace name"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_allowed), cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_rss),     cmocka_unit_test(test_exec),
	    cmocka_unit_test(test_groups),  cmocka_unit_test(test_strv),
	    cmocka_unit_test(test_peer),    cmocka_unit_test(test_feature_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
