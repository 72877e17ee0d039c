/* test-config.c: defaults, the INI file, value parsers, errors that name the key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "error.h"

/* Write text to a temporary file; returns its path (static buffer). */
static const char *
write_conf(const char *text)
{
	static char path[64];
	FILE *fp;
	int fd;

	snprintf(path, sizeof(path), "/tmp/nm-test-config-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	fputs(text, fp);
	fclose(fp);
	return path;
}

static void
test_parsers(void **state)
{
	uint64_t v;
	bool b;

	(void)state;
	assert_int_equal(config_parse_size("64M", &v), 0);
	assert_int_equal(v, 64ull << 20);
	assert_int_equal(config_parse_size("512k", &v), 0);
	assert_int_equal(v, 512ull << 10);
	assert_int_equal(config_parse_size("1GiB", &v), 0);
	assert_int_equal(v, 1ull << 30);
	assert_int_equal(config_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(config_parse_size("-1", &v), -1);
	assert_int_equal(config_parse_size("12X", &v), -1);
	assert_int_equal(config_parse_duration_ms("10ms", &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(config_parse_duration_ms("1.5s", &v), 0);
	assert_int_equal(v, 1500);
	assert_int_equal(config_parse_duration_ms("2m", &v), 0);
	assert_int_equal(v, 120000);
	assert_int_equal(config_parse_duration_ms("3", &v), 0);
	assert_int_equal(v, 3000);
	assert_int_equal(config_parse_duration_ms("1m30s", &v), 0); /* time_parse_duration's */
	assert_int_equal(v, 90000);
	assert_int_equal(config_parse_duration_ms("-1s", &v), -1);
	assert_int_equal(config_parse_duration_ms("soon", &v), -1);
	assert_int_equal(config_parse_bool("yes", &b), 0);
	assert_true(b);
	assert_int_equal(config_parse_bool("off", &b), 0);
	assert_false(b);
	assert_int_equal(config_parse_bool("maybe", &b), -1);
}

static void
test_load(void **state)
{
	struct config cfg;
	struct nm_error err;
	const char *p = write_conf("[daemon]\nsocket = /tmp/x.sock\nadmin_group = wheel\n"
	                           "user = nm-priv_1\n"
	                           "socket_mode = 0600\n[limits]\nmax_clients = 12\n"
	                           "request_timeout = 500ms\n[sampling]\nring_memory = 8M\n"
	                           "interval = 250ms\n[source.sysctl]\nmatch = net/core/*\n"
	                           "match = net/ipv4/tcp_mem\n");

	(void)state;
	config_defaults(&cfg);
	assert_int_equal(config_load(&cfg, p, true, &err), 0);
	assert_string_equal(cfg.socket_path, "/tmp/x.sock");
	assert_string_equal(cfg.admin_group, "wheel");
	assert_string_equal(cfg.user, "nm-priv_1");
	assert_int_equal(cfg.socket_mode, 0600);
	assert_int_equal(cfg.max_clients, 12);
	assert_int_equal(cfg.request_timeout_ms, 500);
	assert_int_equal(cfg.ring_memory, 8u << 20);
	assert_int_equal(cfg.sample_interval_ms, 250);
	assert_int_equal(cfg.nsource_opts, 2);
	assert_string_equal(cfg.source_opts[1].source, "sysctl");
	assert_string_equal(cfg.source_opts[1].val, "net/ipv4/tcp_mem");
	/* Untouched keys keep their defaults. */
	assert_string_equal(cfg.state_dir, CONFIG_DEFAULT_STATEDIR);
	assert_int_equal(cfg.max_clients_per_uid, 64);
	config_free(&cfg);
	config_defaults(&cfg);
	assert_string_equal(cfg.user, "netmetrics");
	assert_int_equal(cfg.test_deadline_ms, 3600000);
	assert_null(cfg.test_env);
	config_free(&cfg);
	unlink(p);
}

/* [limits] test_deadline and test_env; a copy keeps test_env. */
static void
test_test_keys(void **state)
{
	struct config cfg, copy;
	struct nm_error err;
	const char *p = write_conf("[limits]\ntest_deadline = 90s\n"
	                           "test_env = LC_ALL=C.UTF-8  TZ=UTC\tEMPTY=\n");

	(void)state;
	config_defaults(&cfg);
	assert_int_equal(config_load(&cfg, p, true, &err), 0);
	assert_int_equal(cfg.test_deadline_ms, 90000);
	assert_non_null(cfg.test_env);
	assert_string_equal(cfg.test_env[0], "LC_ALL=C.UTF-8");
	assert_string_equal(cfg.test_env[1], "TZ=UTC");
	assert_string_equal(cfg.test_env[2], "EMPTY=");
	assert_null(cfg.test_env[3]);
	config_copy(&copy, &cfg);
	assert_string_equal(copy.test_env[1], "TZ=UTC");
	assert_ptr_not_equal(copy.test_env, cfg.test_env);
	config_free(&copy);
	config_free(&cfg);
	unlink(p);
}

/* The children's keys: child_path (absolute directories, no empty part), work_dir,
 * [limits] test_pids_max (0 or 8..4194304); defaults; a copy keeps them. */
static void
test_child_keys(void **state)
{
	static const char *const bad[] = {
	    "[daemon]\nchild_path = bin:/usr/bin\n", "[daemon]\nchild_path = /bin::/usr/bin\n",
	    "[daemon]\nchild_path = /bin:\n",        "[daemon]\nwork_dir = run\n",
	    "[limits]\ntest_pids_max = 3\n",         "[limits]\ntest_pids_max = -1\n",
	    "[limits]\ntest_pids_max = 5000000\n",
	};
	struct config cfg, copy;
	struct nm_error err;
	const char *p;

	(void)state;
	config_defaults(&cfg);
	assert_string_equal(cfg.child_path, CONFIG_DEFAULT_CHILD_PATH);
	assert_string_equal(cfg.child_path,
	                    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	assert_null(cfg.work_dir);
	assert_int_equal(cfg.test_pids_max, 4096);
	p = write_conf("[daemon]\nchild_path = /opt/bench/bin:/usr/bin\nwork_dir = /run/nm\n"
	               "[limits]\ntest_pids_max = 50\n");
	assert_int_equal(config_load(&cfg, p, true, &err), 0);
	assert_string_equal(cfg.child_path, "/opt/bench/bin:/usr/bin");
	assert_string_equal(cfg.work_dir, "/run/nm");
	assert_int_equal(cfg.test_pids_max, 50);
	config_copy(&copy, &cfg);
	assert_string_equal(copy.child_path, "/opt/bench/bin:/usr/bin");
	assert_ptr_not_equal(copy.work_dir, cfg.work_dir);
	config_free(&copy);
	config_free(&cfg);
	unlink(p);
	p = write_conf("[limits]\ntest_pids_max = 0\n");
	config_defaults(&cfg);
	assert_int_equal(config_load(&cfg, p, true, &err), 0);
	assert_int_equal(cfg.test_pids_max, 0);
	config_free(&cfg);
	unlink(p);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = write_conf(bad[i]);
		config_defaults(&cfg);
		assert_int_equal(config_load(&cfg, p, true, &err), -1);
		config_free(&cfg);
		unlink(p);
	}
}

/* [prometheus]: several listen and export lines kept in order, copied; off by default. */
static void
test_prometheus_keys(void **state)
{
	struct config cfg, copy;
	struct nm_error err;
	const char *p = write_conf("[prometheus]\nlisten = 127.0.0.1:9464\nlisten = [::1]:9464\n"
	                           "export = irq.*\nexport = !irq.0.*\nmax_series = 500\n"
	                           "max_connections = 2\ntimeout = 3s\n");

	(void)state;
	config_defaults(&cfg);
	assert_null(cfg.prom_listen);
	assert_int_equal(cfg.prom_max_series, 20000);
	assert_int_equal(config_load(&cfg, p, true, &err), 0);
	assert_string_equal(cfg.prom_listen[0], "127.0.0.1:9464");
	assert_string_equal(cfg.prom_listen[1], "[::1]:9464");
	assert_null(cfg.prom_listen[2]);
	assert_string_equal(cfg.prom_export[0], "irq.*");
	assert_string_equal(cfg.prom_export[1], "!irq.0.*");
	assert_null(cfg.prom_export[2]);
	assert_int_equal(cfg.prom_max_series, 500);
	assert_int_equal(cfg.prom_max_connections, 2);
	assert_int_equal(cfg.prom_timeout_ms, 3000);
	config_copy(&copy, &cfg);
	assert_ptr_not_equal(copy.prom_listen, cfg.prom_listen);
	assert_string_equal(copy.prom_export[1], "!irq.0.*");
	config_free(&copy);
	config_free(&cfg);
	unlink(p);
}

/* [prometheus] include/exclude in one ordered list, rollup, cpuset, drop_unmoved,
 * max_family_series; a bad selector or cpuset line is refused. */
static void
test_prometheus_selection(void **state)
{
	struct config cfg, copy;
	struct nm_error err;
	const char *p =
	    write_conf("[prometheus]\nexclude = irq_interrupts{cpu=~\"7[2-9]|1[0-4][0-9]\"}\n"
	               "include = irq_interrupts{cpu=\"100\", irq!=\"3\"}\nrollup = softirqs\n"
	               "rollup = none\ncpuset = nic=0-71\ncpuset = other=72-143\n"
	               "drop_unmoved = softirqs{type=\"HI\"}\ndrop_unmoved = none\n"
	               "max_family_series = 300\nweb_config = /etc/netmetricsd/web.yml\n");
	static const char *const bad[] = {"[prometheus]\nexclude = irq{cpu=~\"(\"}\n",
	                                  "[prometheus]\ninclude = irq{cpu=3}\n",
	                                  "[prometheus]\ninclude = irq{cpu=\"3\"\n",
	                                  "[prometheus]\nrollup = {}\n",
	                                  "[prometheus]\ncpuset = a=0-x\n",
	                                  "[prometheus]\ncpuset = =3\n",
	                                  "[prometheus]\nmax_family_series = 0\n",
	                                  "[prometheus]\nweb_config = web.yml\n"};

	(void)state;
	config_defaults(&cfg);
	assert_null(cfg.prom_unmoved);
	assert_int_equal(cfg.prom_max_family_series, 5000);
	assert_null(cfg.prom_rollup);
	assert_int_equal(config_load(&cfg, p, true, &err), 0);
	assert_string_equal(cfg.prom_select[0], "-irq_interrupts{cpu=~\"7[2-9]|1[0-4][0-9]\"}");
	assert_string_equal(cfg.prom_select[1], "+irq_interrupts{cpu=\"100\", irq!=\"3\"}");
	assert_null(cfg.prom_select[2]);
	assert_string_equal(cfg.prom_rollup[0], "softirqs");
	assert_string_equal(cfg.prom_rollup[1], "none");
	assert_string_equal(cfg.prom_cpuset[1], "other=72-143");
	assert_string_equal(cfg.prom_unmoved[0], "softirqs{type=\"HI\"}");
	assert_string_equal(cfg.prom_unmoved[1], "none");
	assert_int_equal(cfg.prom_max_family_series, 300);
	assert_string_equal(cfg.prom_web_config, "/etc/netmetricsd/web.yml");
	config_copy(&copy, &cfg);
	assert_string_equal(copy.prom_web_config, "/etc/netmetricsd/web.yml");
	assert_string_equal(copy.prom_select[1], cfg.prom_select[1]);
	assert_ptr_not_equal(copy.prom_cpuset, cfg.prom_cpuset);
	config_free(&copy);
	config_free(&cfg);
	unlink(p);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = write_conf(bad[i]);
		config_defaults(&cfg);
		if (config_load(&cfg, p, true, &err) == 0)
			fail_msg("accepted: %s", bad[i]);
		config_free(&cfg);
		unlink(p);
	}
}

/* [peer NAME]: argv split with quotes, ssh with its options, deep copies. */
static void
test_peers(void **state)
{
	struct config cfg, copy;
	struct nm_error err;
	const char *p =
	    write_conf("[peer rcv]\ncommand = ip netns exec 'a b' \"c\\\"d\" e\\ f\n"
	               "[peer far]\nssh = root@192.0.2.7:2222\n"
	               "ssh_options = -i /k\nproxy_command = /usr/bin/netmetricsctl proxy\n");
	char **v;

	(void)state;
	config_defaults(&cfg);
	assert_int_equal(config_load(&cfg, p, true, &err), 0);
	assert_int_equal(cfg.npeers, 2);
	assert_string_equal(cfg.peers[0].name, "rcv");
	v = cfg.peers[0].command;
	assert_string_equal(v[0], "ip");
	assert_string_equal(v[3], "a b");
	assert_string_equal(v[4], "c\"d");
	assert_string_equal(v[5], "e f");
	assert_null(v[6]);
	assert_null(cfg.peers[0].ssh);
	assert_string_equal(cfg.peers[1].ssh, "root@192.0.2.7:2222");
	assert_string_equal(cfg.peers[1].ssh_options[1], "/k");
	assert_string_equal(cfg.peers[1].proxy_command[0], "/usr/bin/netmetricsctl");
	config_copy(&copy, &cfg);
	assert_ptr_not_equal(copy.peers, cfg.peers);
	assert_string_equal(copy.peers[0].command[3], "a b");
	config_free(&copy);
	config_free(&cfg);
	unlink(p);
	v = config_split_words("a 'b", 8);
	assert_null(v);
	v = config_split_words("a b c", 2);
	assert_null(v);
}

/* config_strv_equal: same words in the same order; NULL is the empty vector (the reload
 * compares an unset prom_listen with a set one; peer.c's copy read through NULL). */
static void
test_strv_equal(void **state)
{
	char **ab = config_split_words("a b", 8), **ab2 = config_split_words("a 'b'", 8);
	char **a = config_split_words("a", 8), **ba = config_split_words("b a", 8);
	char **none = config_split_words("", 8);

	(void)state;
	assert_non_null(none);
	assert_true(config_strv_equal(ab, ab2));
	assert_false(config_strv_equal(ab, a));
	assert_false(config_strv_equal(a, ab));
	assert_false(config_strv_equal(ab, ba));
	assert_true(config_strv_equal(NULL, NULL));
	assert_true(config_strv_equal(NULL, none));
	assert_true(config_strv_equal(none, NULL));
	assert_false(config_strv_equal(NULL, a));
	assert_false(config_strv_equal(a, NULL));
	config_strv_free(ab);
	config_strv_free(ab2);
	config_strv_free(a);
	config_strv_free(ba);
	config_strv_free(none);
}

/* A bad file changes nothing and the message names the key. */
/* [sampling] fine and its keys: defaults, values, and the fine history's share of
 * ring_memory. */
static void
test_fine_keys(void **state)
{
	struct config cfg;
	struct nm_error err;
	const char *p;

	(void)state;
	config_defaults(&cfg);
	assert_int_equal(cfg.fine_sources, CONFIG_FINE_DEFAULT);
	assert_int_equal(cfg.fine_interval_ms, 10);
	assert_int_equal(cfg.fine_when, CONFIG_FINE_WINDOW);
	assert_int_equal(cfg.fine_keep_ms, 300000);
	assert_int_equal(config_fine_memory(&cfg), 8u << 20); /* 64M / 8 */
	cfg.ring_memory = 4u << 20;
	assert_int_equal(config_fine_memory(&cfg), 1u << 20); /* at least 1M */
	cfg.ring_memory = 1u << 20;
	assert_int_equal(config_fine_memory(&cfg), 0); /* no room: no fine history */
	config_free(&cfg);

	p = write_conf("[sampling]\nfine = softnet, link\nfine_interval = 20ms\n"
	               "fine_when = always\nfine_keep = 2m\nring_memory = 16M\n"
	               "fine_memory = 3M\n");
	config_defaults(&cfg);
	assert_int_equal(config_load(&cfg, p, true, &err), 0);
	assert_int_equal(cfg.fine_sources, 1u | 4u); /* link, softnet */
	assert_int_equal(cfg.fine_interval_ms, 20);
	assert_int_equal(cfg.fine_when, CONFIG_FINE_ALWAYS);
	assert_int_equal(cfg.fine_keep_ms, 120000);
	assert_int_equal(config_fine_memory(&cfg), 3u << 20);
	config_free(&cfg);
	unlink(p);

	/* [bursts] max_series: 48 by default, 0 (no cap) to 100000. */
	config_defaults(&cfg);
	assert_int_equal(cfg.bursts_max_series, 48);
	config_free(&cfg);
	p = write_conf("[bursts]\nmax_series = 0\n");
	config_defaults(&cfg);
	assert_int_equal(config_load(&cfg, p, true, &err), 0);
	assert_int_equal(cfg.bursts_max_series, 0);
	config_free(&cfg);
	unlink(p);
	p = write_conf("[bursts]\nmax_series = 100001\n");
	config_defaults(&cfg);
	assert_int_equal(config_load(&cfg, p, true, &err), -1);
	assert_non_null(strstr(err.message, "[bursts] max_series: bad value \"100001\""));
	config_free(&cfg);
	unlink(p);

	p = write_conf("[sampling]\nfine = none\nfine_when = never\nfine_memory = 0\n");
	config_defaults(&cfg);
	assert_int_equal(config_load(&cfg, p, true, &err), 0);
	assert_int_equal(cfg.fine_sources, 0);
	assert_int_equal(cfg.fine_when, CONFIG_FINE_NEVER);
	assert_int_equal(config_fine_memory(&cfg), 0);
	cfg.fine_sources = CONFIG_FINE_DEFAULT;
	cfg.fine_when = CONFIG_FINE_WINDOW;
	assert_int_equal(config_fine_memory(&cfg), 0); /* fine_memory = 0: peaks only */
	config_free(&cfg);
	unlink(p);
}

static void
test_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"[daemon]\nsocet = /x\n", "socet"},
	    {"[daemon]\nsocket = relative.sock\n", "socket"},
	    {"[limits]\nmax_clients = 0\n", "max_clients"},
	    {"[sampling]\ninterval = 1ms\n", "interval"},
	    {"[nonsense]\na = b\n", "nonsense"},
	    {"[limits]\nclient_output_low = 8M\nclient_output_high = 1M\n", "client_output_low"},
	    {"no section line\n", "syntax"},
	    {"[limits]\ntest_deadline = 10ms\n", "test_deadline"},
	    {"[limits]\ntest_env = NOEQUALS\n", "test_env"},
	    {"[limits]\ntest_env = 1X=a\n", "test_env"},
	    {"[limits]\ntest_env = A-B=a\n", "test_env"},
	    {"[daemon]\nuser = a/b\n", "user"},
	    {"[daemon]\nuser = -x\n", "user"},
	    {"[peer a]\nssh_options = -v\n", "give one of command = or ssh ="},
	    {"[peer a]\ncommand = x\nssh = h\n", "give one of"},
	    {"[peer a]\nssh = -oProxyCommand=x\n", "ssh"},
	    {"[peer a]\ncommand = 'x\n", "command"},
	    {"[peer a/b]\ncommand = x\n", "peer a/b"},
	    {"[peer a]\ncommand = x\nproxy_command = y\n", "go with ssh"},
	    {"[daemon]\nuser = averyveryveryveryveryverylongusername\n", "user"},
	    {"[prometheus]\nlisten = 9464\n", "listen"},
	    {"[prometheus]\nlisten = 127.0.0.1:0\n", "listen"},
	    {"[prometheus]\nlisten = 127.0.0.1:70000\n", "listen"},
	    {"[prometheus]\nexport = !\n", "export"},
	    {"[prometheus]\nmax_series = 0\n", "max_series"},
	    {"[prometheus]\ntimeout = 10ms\n", "timeout"},
	    {"[prometheus]\nlistn = 127.0.0.1:1\n", "listn"},
	    {"[sampling]\nfine = link cpu\n", "fine: \"cpu\" cannot be sampled fine (link, queues"},
	    {"[sampling]\nfine_interval = 5ms\n",
	     "fine_interval: \"5ms\" is not a duration from 10ms to 1s"},
	    {"[sampling]\nfine_interval = 2s\n", "from 10ms to 1s"},
	    {"[sampling]\nfine_when = sometimes\n",
	     "fine_when: \"sometimes\" is not window, always or never"},
	    {"[sampling]\nfine_keep = 1s\n", "fine_keep: \"1s\" is not a duration from 10s to 1h"},
	    {"[sampling]\nfine_memory = 1000\n", "fine_memory: \"1000\" is not 0"},
	    {"[sampling]\nring_memory = 8M\nfine_memory = 8M\n",
	     "must leave at least 1M of ring_memory"},
	    {"[sampling]\nfine_sources = link\n", "unknown key \"fine_sources\""},
	};
	struct config cfg;
	struct nm_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = write_conf(cases[i].text);
		config_defaults(&cfg);
		assert_int_equal(config_load(&cfg, p, true, &err), -1);
		if (strstr(err.message, cases[i].want) == NULL)
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.message, cases[i].want);
		assert_int_equal(cfg.max_clients, 256);
		config_free(&cfg);
		unlink(p);
	}
	config_defaults(&cfg);
	assert_int_equal(config_load(&cfg, "/nonexistent/netmetricsd.conf", false, &err), 0);
	assert_int_equal(config_load(&cfg, "/nonexistent/netmetricsd.conf", true, &err), -1);
	config_free(&cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parsers),
	    cmocka_unit_test(test_load),
	    cmocka_unit_test(test_test_keys),
	    cmocka_unit_test(test_child_keys),
	    cmocka_unit_test(test_prometheus_keys), /* [prometheus] */
	    cmocka_unit_test(test_prometheus_selection),
	    cmocka_unit_test(test_strv_equal),
	    cmocka_unit_test(test_fine_keys),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_peers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
