/* test-manifest.c: a result's manifest from its two edges (manifest_build: per-edge values,
 * "changed", the benchmark), the settings compare finds between two sides
 * (compare_manifest: grouped, the cause in words, settings that vary within a side, size
 * offloads), what that does to the figures (not comparable packet counts, the cause beside
 * a verdict), and manifest_read on a fixture root. */
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

#include "compare-manifest.h"
#include "compare.h"
#include "manifest.h"

/* A setting of a manifest: {"start", "end", "changed"}. */
static json_object *
setting(json_object *m, const char *name)
{
	json_object *s = json_object_object_get(json_object_object_get(m, "settings"), name);

	assert_non_null(s);
	return s;
}

static const char *
str(json_object *o, const char *key)
{
	json_object *v = json_object_object_get(o, key);

	return v ? json_object_get_string(v) : NULL;
}

/* Two edges, one setting changed between them, one only at the end, a benchmark. */
static void
test_build(void **state)
{
	json_object *start = json_tokener_parse("{\"kernel.release\":\"6.18.0\","
	                                        "\"device.eth0.offload.gro\":\"on\","
	                                        "\"sysctl.net.core.busy_poll\":null}");
	json_object *end = json_tokener_parse("{\"kernel.release\":\"6.18.0\","
	                                      "\"device.eth0.offload.gro\":\"off\","
	                                      "\"sysctl.net.core.busy_poll\":null,"
	                                      "\"device.veth9.mtu\":\"1500\"}");
	json_object *bench =
	    json_tokener_parse("{\"program\":\"/usr/bin/netperf\","
	                       "\"version\":\"Netperf version 2.7.0\","
	                       "\"argv\":[\"/usr/bin/netperf\",\"-H\",\"10.0.0.2\"],"
	                       "\"procs\":2}");
	json_object *m = manifest_build(start, end, bench), *s, *ch;
	(void)state;

	assert_string_equal(json_object_to_json_string(json_object_object_get(m, "edges")),
	                    "[ \"start\", \"end\" ]");
	s = setting(m, "device.eth0.offload.gro");
	assert_string_equal(str(s, "start"), "on");
	assert_string_equal(str(s, "end"), "off");
	assert_true(json_object_get_boolean(json_object_object_get(s, "changed")));
	s = setting(m, "kernel.release");
	assert_string_equal(str(s, "end"), "6.18.0");
	assert_false(json_object_get_boolean(json_object_object_get(s, "changed")));
	s = setting(m, "sysctl.net.core.busy_poll");
	assert_null(str(s, "start"));
	assert_false(json_object_get_boolean(json_object_object_get(s, "changed")));
	/* A device that appeared during the window: changed, from nothing. */
	s = setting(m, "device.veth9.mtu");
	assert_null(str(s, "start"));
	assert_string_equal(str(s, "end"), "1500");
	assert_true(json_object_get_boolean(json_object_object_get(s, "changed")));
	ch = json_object_object_get(m, "changed");
	assert_int_equal(json_object_array_length(ch), 2);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(ch, 0)),
	                    "device.eth0.offload.gro");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(ch, 1)),
	                    "device.veth9.mtu");
	/* The benchmark: the same at both edges, argv joined. */
	s = setting(m, "benchmark.argv");
	assert_string_equal(str(s, "start"), "/usr/bin/netperf -H 10.0.0.2");
	assert_string_equal(str(s, "end"), "/usr/bin/netperf -H 10.0.0.2");
	assert_string_equal(str(setting(m, "benchmark.version"), "end"), "Netperf version 2.7.0");
	assert_string_equal(str(setting(m, "benchmark.procs"), "end"), "2");
	assert_string_equal(manifest_value(m, "device.eth0.offload.gro"), "off");
	assert_null(manifest_value(m, "sysctl.net.core.busy_poll"));
	assert_null(manifest_value(m, "no.such"));
	json_object_put(m);
	/* Only the end edge read (a window recovered after a crash): nothing "changed". */
	m = manifest_build(NULL, end, NULL);
	assert_string_equal(json_object_to_json_string(json_object_object_get(m, "edges")),
	                    "[ \"end\" ]");
	assert_int_equal(json_object_array_length(json_object_object_get(m, "changed")), 0);
	assert_string_equal(manifest_value(m, "device.eth0.offload.gro"), "off");
	json_object_put(m);
	json_object_put(start);
	json_object_put(end);
	json_object_put(bench);
}

/* A result with figures and a manifest whose edges are both settings (a JSON object
 * text). */
static json_object *
result(const char *figures, const char *settings)
{
	json_object *r = json_object_new_object();
	json_object *s = json_tokener_parse(settings);

	json_object_object_add(r, "span_s", json_object_new_int(10));
	json_object_object_add(r, "figures", json_tokener_parse(figures));
	json_object_object_add(r, "manifest", manifest_build(s, s, NULL));
	json_object_put(s);
	return r;
}

#define FIGS_A                                                                                     \
	"{\"test\":{\"throughput_mbps\":9000},\"cpu\":{\"busy_us_per_packet\":4},"                 \
	"\"devices\":[{\"name\":\"vA\",\"tx_packets\":1000,\"tx_bytes\":5000000,"                  \
	"\"tx_dropped\":2}],\"tcp\":{\"out_segs\":1000,\"retrans_segs\":4}}"
#define FIGS_B                                                                                     \
	"{\"test\":{\"throughput_mbps\":4000},\"cpu\":{\"busy_us_per_packet\":1},"                 \
	"\"devices\":[{\"name\":\"vA\",\"tx_packets\":5000,\"tx_bytes\":2500000,"                  \
	"\"tx_dropped\":1}],\"tcp\":{\"out_segs\":5000,\"retrans_segs\":2}}"

/* The line of path in a comparison's figures. */
static json_object *
figure(json_object *cmp, const char *path)
{
	json_object *arr = json_object_object_get(cmp, "figures");

	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *f = json_object_array_get_idx(arr, i);
		if (strcmp(str(f, "figure"), path) == 0)
			return f;
	}
	fail_msg("no figure %s", path);
	return NULL;
}

/* Offloads and a sysctl differ: listed grouped (device before sysctl, by name within), the
 * cause names the first three, packet figures are not comparable, the rest keep their
 * verdict with the cause. */
static void
test_compare_offloads(void **state)
{
	json_object *a = result(FIGS_A, "{\"device.vA.offload.tso\":\"on\","
	                                "\"device.vA.offload.gso\":\"on\","
	                                "\"device.vA.offload.sg\":\"on\","
	                                "\"sysctl.net.core.rmem_max\":\"212992\","
	                                "\"kernel.release\":\"6.18.0\"}");
	json_object *b = result(FIGS_B, "{\"device.vA.offload.tso\":\"off\","
	                                "\"device.vA.offload.gso\":\"off\","
	                                "\"device.vA.offload.sg\":\"on\","
	                                "\"sysctl.net.core.rmem_max\":\"4194304\","
	                                "\"kernel.release\":\"6.18.0\"}");
	json_object *cmp = compare_results(&a, 1, &b, 1), *st, *d, *f;
	(void)state;

	/* The settings come first in the reply. */
	json_object_object_foreach(cmp, k, v)
	{
		(void)v;
		assert_string_equal(k, "settings");
		break;
	}
	st = json_object_object_get(cmp, "settings");
	d = json_object_object_get(st, "differences");
	assert_int_equal(json_object_array_length(d), 3);
	assert_string_equal(str(json_object_array_get_idx(d, 0), "setting"),
	                    "device.vA.offload.gso");
	assert_string_equal(str(json_object_array_get_idx(d, 0), "group"), "device");
	assert_string_equal(str(json_object_array_get_idx(d, 1), "setting"),
	                    "device.vA.offload.tso");
	assert_string_equal(str(json_object_array_get_idx(d, 1), "a"), "on");
	assert_string_equal(str(json_object_array_get_idx(d, 1), "b"), "off");
	assert_string_equal(str(json_object_array_get_idx(d, 2), "setting"),
	                    "sysctl.net.core.rmem_max");
	assert_string_equal(str(json_object_array_get_idx(d, 2), "group"), "sysctl");
	assert_string_equal(json_object_to_json_string(json_object_object_get(st, "size_offloads")),
	                    "[ \"gso\", \"tso\" ]");
	assert_string_equal(str(st, "cause"),
	                    "after 3 settings changed: device.vA.offload.gso (on -> off), "
	                    "device.vA.offload.tso (on -> off), sysctl.net.core.rmem_max (212992 "
	                    "-> 4194304)");
	/* Throughput: worse, put down to the settings. */
	f = figure(cmp, "test.throughput_mbps");
	assert_string_equal(str(f, "verdict"), "worse");
	assert_string_equal(str(f, "cause"), str(st, "cause"));
	assert_null(json_object_object_get(f, "not_comparable"));
	/* Packets and per-packet figures: not comparable, no verdict. */
	const char *nc[] = {"cpu.busy_us_per_packet", "devices.vA.tx_packets", "tcp.out_segs"};
	for (size_t i = 0; i < 3; i++) {
		f = figure(cmp, nc[i]);
		assert_string_equal(str(f, "not_comparable"), "not comparable: gso, tso differ");
		assert_null(json_object_object_get(f, "verdict"));
		assert_null(json_object_object_get(f, "cause"));
	}
	/* A loss keeps its direction whatever the packets' size. */
	f = figure(cmp, "devices.vA.tx_dropped");
	assert_string_equal(str(f, "verdict"), "better");
	assert_null(json_object_object_get(f, "not_comparable"));
	f = figure(cmp, "tcp.retrans_segs");
	assert_string_equal(str(f, "verdict"), "better");
	/* Bytes: judged, with the cause. */
	f = figure(cmp, "devices.vA.tx_bytes");
	assert_string_equal(str(f, "verdict"), "worse");
	assert_non_null(str(f, "cause"));
	json_object_put(cmp);
	json_object_put(a);
	json_object_put(b);
}

/* Exactly one setting differs, not an offload: "after S changed from X to Y"; packet
 * figures keep their (null) verdict and are comparable. */
static void
test_compare_one(void **state)
{
	json_object *a = result(FIGS_A, "{\"sysctl.net.ipv4.tcp_congestion_control\":\"cubic\","
	                                "\"device.vA.offload.tso\":\"on\"}");
	json_object *b = result(FIGS_B, "{\"sysctl.net.ipv4.tcp_congestion_control\":\"bbr\","
	                                "\"device.vA.offload.tso\":\"on\"}");
	json_object *cmp = compare_results(&a, 1, &b, 1), *st, *f;
	(void)state;

	st = json_object_object_get(cmp, "settings");
	assert_int_equal(json_object_array_length(json_object_object_get(st, "differences")), 1);
	assert_string_equal(
	    str(st, "cause"),
	    "after sysctl.net.ipv4.tcp_congestion_control changed from cubic to bbr");
	assert_int_equal(json_object_array_length(json_object_object_get(st, "size_offloads")), 0);
	f = figure(cmp, "test.throughput_mbps");
	assert_string_equal(
	    str(f, "cause"),
	    "after sysctl.net.ipv4.tcp_congestion_control changed from cubic to bbr");
	f = figure(cmp, "devices.vA.tx_packets");
	assert_null(json_object_object_get(f, "not_comparable"));
	assert_null(json_object_object_get(f, "verdict"));
	json_object_put(cmp);
	json_object_put(a);
	json_object_put(b);
}

/* Nothing differs: no cause, nothing added to the figures. A result without a manifest
 * says nothing. */
static void
test_compare_same(void **state)
{
	json_object *a = result(FIGS_A, "{\"device.vA.offload.tso\":\"on\"}");
	json_object *b = result(FIGS_B, "{\"device.vA.offload.tso\":\"on\"}");
	json_object *bare = json_tokener_parse("{\"span_s\":10,\"figures\":" FIGS_B "}");
	json_object *cmp = compare_results(&a, 1, &b, 1), *st;
	(void)state;

	st = json_object_object_get(cmp, "settings");
	assert_int_equal(json_object_array_length(json_object_object_get(st, "differences")), 0);
	assert_null(json_object_object_get(st, "cause"));
	assert_null(json_object_object_get(figure(cmp, "test.throughput_mbps"), "cause"));
	json_object_put(cmp);
	cmp = compare_results(&a, 1, &bare, 1);
	st = json_object_object_get(cmp, "settings");
	assert_int_equal(json_object_array_length(json_object_object_get(st, "differences")), 0);
	assert_int_equal(json_object_get_int(json_object_object_get(st, "without_manifest")), 1);
	json_object_put(cmp);
	json_object_put(a);
	json_object_put(b);
	json_object_put(bare);
}

/* Iterations of one side that differ in a setting: a warning ("varying"), not a difference;
 * the settings both sides agree on still are. */
static void
test_compare_varying(void **state)
{
	json_object *a[3], *b[2], *cmp, *st, *v, *vals;
	(void)state;

	a[0] = result(FIGS_A, "{\"cpu.governor\":\"performance\",\"kernel.release\":\"6.1\"}");
	a[1] = result(FIGS_A, "{\"cpu.governor\":\"powersave\",\"kernel.release\":\"6.1\"}");
	a[2] = result(FIGS_A, "{\"cpu.governor\":\"performance\",\"kernel.release\":\"6.1\"}");
	b[0] = result(FIGS_B, "{\"cpu.governor\":\"performance\",\"kernel.release\":\"6.18\"}");
	b[1] = result(FIGS_B, "{\"cpu.governor\":\"performance\",\"kernel.release\":\"6.18\"}");
	cmp = compare_results(a, 3, b, 2);
	st = json_object_object_get(cmp, "settings");
	v = json_object_object_get(st, "varying");
	assert_int_equal(json_object_array_length(v), 1);
	assert_string_equal(str(json_object_array_get_idx(v, 0), "side"), "A");
	assert_string_equal(str(json_object_array_get_idx(v, 0), "setting"), "cpu.governor");
	vals = json_object_object_get(json_object_array_get_idx(v, 0), "values");
	assert_string_equal(json_object_to_json_string(vals), "[ \"performance\", \"powersave\" ]");
	assert_int_equal(json_object_array_length(json_object_object_get(st, "differences")), 1);
	assert_string_equal(str(st, "cause"), "after kernel.release changed from 6.1 to 6.18");
	json_object_put(cmp);
	for (size_t i = 0; i < 3; i++)
		json_object_put(a[i]);
	for (size_t i = 0; i < 2; i++)
		json_object_put(b[i]);
}

/* Which names are size offloads, and groups. */
static void
test_names(void **state)
{
	const char *s = NULL;
	char g[32];
	(void)state;

	assert_true(manifest_is_size_offload("device.eth0.offload.gro", &s));
	assert_string_equal(s, "gro");
	assert_true(manifest_is_size_offload("device.eth0.100.offload.tso", &s));
	assert_string_equal(s, "tso");
	assert_false(manifest_is_size_offload("device.eth0.offload.sg", NULL));
	assert_false(manifest_is_size_offload("sysctl.net.core.gro", NULL));
	manifest_group("device.eth0.mtu", g, sizeof(g));
	assert_string_equal(g, "device");
	manifest_group("kernel", g, sizeof(g));
	assert_string_equal(g, "kernel");
	assert_true(compare_manifest_packet_figure("devices.eth0.rx_packets", "packets", NULL));
	assert_true(compare_manifest_packet_figure("cpu.busy_us_per_packet", "us", NULL));
	assert_false(compare_manifest_packet_figure("devices.eth0.rx_dropped", "packets", "lower"));
	assert_false(compare_manifest_packet_figure("test.throughput_mbps", "Mbit/s", "higher"));
}

/* Write text to root/rel, making its directories. */
static void
put(const char *root, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* manifest_read on a fixture root: files below it, grouped per-CPU values, no ioctls. */
static void
test_read_fixture(void **state)
{
	char root[] = "/tmp/nm-test-manifest-XXXXXX", cmd[256];
	json_object *o;
	(void)state;

	assert_non_null(mkdtemp(root));
	put(root, "proc/sys/kernel/osrelease", "6.18.0-test\n");
	put(root, "proc/cmdline", "root=/dev/vda1 isolcpus=2-3\n");
	put(root, "proc/cpuinfo",
	    "processor\t: 0\nmodel name\t: Test CPU @ 2.0GHz\nstepping\t: 7\n");
	put(root, "proc/sys/net/ipv4/tcp_rmem", "4096\t131072\t6291456\n");
	put(root, "proc/sys/net/core/busy_poll", "50\n");
	put(root, "sys/devices/system/cpu/online", "0-3\n");
	put(root, "sys/devices/system/cpu/smt/active", "1\n");
	for (int c = 0; c < 4; c++) {
		char rel[128];
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
		         c);
		put(root, rel, c < 2 ? "performance\n" : "powersave\n");
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/scaling_max_freq",
		         c);
		put(root, rel, "3000000\n");
	}
	put(root, "sys/class/net/eth0/mtu", "9000\n");
	put(root, "sys/class/net/eth0/gro_flush_timeout", "20000\n");
	put(root, "sys/class/net/lo/mtu", "65536\n");
	put(root, "etc/tuned/active_profile", "network-latency\n");
	o = manifest_read(root, NULL);
	assert_string_equal(str(o, "kernel.release"), "6.18.0-test");
	assert_string_equal(str(o, "kernel.cmdline"), "root=/dev/vda1 isolcpus=2-3");
	assert_string_equal(str(o, "cpu.model"), "Test CPU @ 2.0GHz");
	assert_string_equal(str(o, "cpu.smt"), "1");
	assert_string_equal(str(o, "cpu.cpufreq"), "present");
	assert_string_equal(str(o, "cpu.governor"), "performance (0-1); powersave (2-3)");
	assert_string_equal(str(o, "cpu.max_freq_khz"), "3000000");
	assert_null(str(o, "cpu.min_freq_khz"));
	assert_string_equal(str(o, "sysctl.net.ipv4.tcp_rmem"), "4096 131072 6291456");
	assert_string_equal(str(o, "sysctl.net.core.busy_poll"), "50");
	assert_true(json_object_object_get_ex(o, "sysctl.net.core.rmem_max", NULL));
	assert_null(str(o, "sysctl.net.core.rmem_max"));
	assert_string_equal(str(o, "device.eth0.mtu"), "9000");
	assert_string_equal(str(o, "device.eth0.napi.gro_flush_timeout"), "20000");
	assert_null(str(o, "device.eth0.qdisc"));
	assert_false(json_object_object_get_ex(o, "device.lo.mtu", NULL));
	assert_string_equal(str(o, "host.tuned_profile"), "network-latency");
	assert_string_equal(str(o, "host.irqbalance"), "not running");
	json_object_put(o);
	/* Without cpufreq (a VM): said so. */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/sys/devices/system/cpu/cpu*", root);
	assert_int_equal(system(cmd), 0);
	o = manifest_read(root, NULL);
	assert_string_equal(str(o, "cpu.cpufreq"), "absent");
	assert_null(str(o, "cpu.governor"));
	json_object_put(o);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

/* The affinity of a device's IRQs (its msi_irqs), grouped by value; a device without any
 * (veth) null. The net sysctls that differ from this boot's snapshot: listed with the boot's
 * value, the fixed ones not twice, one snapshot per boot. */
static void
test_irqs_and_snapshot(void **state)
{
	char root[] = "/tmp/nm-test-manifest-XXXXXX", sd[300], cmd[400];
	json_object *o;
	(void)state;

	assert_non_null(mkdtemp(root));
	snprintf(sd, sizeof(sd), "%s/state", root);
	assert_int_equal(mkdir(sd, 0755), 0);
	put(root, "sys/class/net/eth0/mtu", "1500\n");
	put(root, "sys/class/net/eth0/device/msi_irqs/24", "msix\n");
	put(root, "sys/class/net/eth0/device/msi_irqs/25", "msix\n");
	put(root, "sys/class/net/eth0/device/msi_irqs/26", "msix\n");
	put(root, "sys/class/net/eth1/mtu", "1500\n");
	put(root, "sys/class/net/eth1/device/msi_irqs/30", "msix\n");
	put(root, "sys/class/net/veth0/mtu", "1500\n");
	put(root, "proc/irq/24/smp_affinity_list", "0-1\n");
	put(root, "proc/irq/25/smp_affinity_list", "0-1\n");
	put(root, "proc/irq/26/smp_affinity_list", "3\n");
	put(root, "proc/irq/30/smp_affinity_list", "2\n");
	put(root, "proc/sys/kernel/random/boot_id", "boot-1\n");
	put(root, "proc/sys/net/ipv4/tcp_slow_start_after_idle", "1\n");
	put(root, "proc/sys/net/ipv4/tcp_rmem", "4096 131072 6291456\n");
	put(root, "proc/sys/net/core/somaxconn", "4096\n");
	put(root, "proc/sys/net/core/netdev_rss_key", "aa:bb\n");
	assert_int_equal(manifest_snapshot(root, sd), 0);
	put(root, "proc/sys/net/ipv4/tcp_slow_start_after_idle", "0\n");
	put(root, "proc/sys/net/ipv4/tcp_rmem", "4096 131072 16777216\n");
	put(root, "proc/sys/net/core/netdev_rss_key", "cc:dd\n");
	put(root, "proc/sys/net/ipv4/conf/new0/forwarding", "1\n");
	o = manifest_read(root, sd);
	assert_string_equal(str(o, "device.eth0.irq_affinity"), "0-1 (irqs 24-25); 3 (irqs 26)");
	assert_string_equal(str(o, "device.eth1.irq_affinity"), "2");
	assert_null(str(o, "device.veth0.irq_affinity"));
	assert_string_equal(str(o, "sysctl.net.ipv4.tcp_slow_start_after_idle"), "0 (boot 1)");
	assert_string_equal(str(o, "sysctl.net.ipv4.tcp_rmem"), "4096 131072 16777216");
	assert_false(json_object_object_get_ex(o, "sysctl.net.core.somaxconn", NULL));
	assert_false(json_object_object_get_ex(o, "sysctl.net.core.netdev_rss_key", NULL));
	assert_false(json_object_object_get_ex(o, "sysctl.net.ipv4.conf.new0.forwarding", NULL));
	json_object_put(o);
	/* The same boot: the snapshot stays; without a state directory nothing is listed. */
	put(root, "proc/sys/net/core/somaxconn", "1024\n");
	assert_int_equal(manifest_snapshot(root, sd), 0);
	o = manifest_read(root, sd);
	assert_string_equal(str(o, "sysctl.net.core.somaxconn"), "1024 (boot 4096)");
	json_object_put(o);
	o = manifest_read(root, NULL);
	assert_false(json_object_object_get_ex(o, "sysctl.net.core.somaxconn", NULL));
	json_object_put(o);
	/* A new boot: a new snapshot, nothing differs. */
	put(root, "proc/sys/kernel/random/boot_id", "boot-2\n");
	assert_int_equal(manifest_snapshot(root, sd), 0);
	o = manifest_read(root, sd);
	assert_false(json_object_object_get_ex(o, "sysctl.net.core.somaxconn", NULL));
	assert_false(
	    json_object_object_get_ex(o, "sysctl.net.ipv4.tcp_slow_start_after_idle", NULL));
	json_object_put(o);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_build),           cmocka_unit_test(test_compare_offloads),
	    cmocka_unit_test(test_compare_one),     cmocka_unit_test(test_compare_same),
	    cmocka_unit_test(test_compare_varying), cmocka_unit_test(test_names),
	    cmocka_unit_test(test_read_fixture),    cmocka_unit_test(test_irqs_and_snapshot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
