/* test-driver-pktgen.c: the pktgen driver's pure parts (parse-pktgen.c): the commands the
 * kernel's pktgen gets, checked line by line against Documentation/networking/pktgen.rst
 * (thread commands rem_device_all and add_device DEV@N on kpktgend_N; device commands
 * count, clone_skb, pkt_size, delay or ratep, dst_min, dst_max, flag IPDST_RND, flows,
 * flowlen, dst_mac, src_min); the "Result:" of a device file, on the document's own
 * example; trafgen's configuration, byte for byte; trafgen's summary, as 0.6.8 printed it
 * on this machine (carriage returns included); and the JSON of ip and tc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parse-pktgen.h"
#include "strbuf.h"

/* vA, 2 threads, 1001 packets, the range, 256 x 8. */
static struct pktgen_opts
opts(void)
{
	struct pktgen_opts o;

	memset(&o, 0, sizeof(o));
	snprintf(o.dev, sizeof(o.dev), "vA");
	assert_int_equal(pktgen_parse_ipv4("10.0.0.0", &o.dst_min), 0);
	assert_int_equal(pktgen_parse_ipv4("10.18.255.255", &o.dst_max), 0);
	assert_int_equal(pktgen_parse_ipv4("172.31.9.1", &o.src), 0);
	assert_int_equal(pktgen_parse_mac("02:00:00:00:00:02", o.dst_mac), 0);
	assert_int_equal(pktgen_parse_mac("02:00:00:00:00:01", o.src_mac), 0);
	o.size = 64;
	o.flows = 256;
	o.flowlen = 8;
	o.threads = 2;
	o.count = 1001;
	return o;
}

/* The writes as "FILE: CMD" lines. */
static char *
lines(const struct pktgen_write *w, size_t n)
{
	struct strbuf sb;

	strbuf_init(&sb);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s: %s\n", w[i].file, w[i].cmd);
	strbuf_addch(&sb, '\0');
	return sb.buf;
}

static const char DEVICE_CMDS[] = "count %s\n"
                                  "clone_skb 0\n"
                                  "pkt_size 60\n"
                                  "%s\n"
                                  "dst_min 10.0.0.0\n"
                                  "dst_max 10.18.255.255\n"
                                  "flag IPDST_RND\n"
                                  "flows 256\n"
                                  "flowlen 8\n"
                                  "dst_mac 02:00:00:00:00:02\n"
                                  "src_min 172.31.9.1\n"
                                  "flag UDPCSUM\n"
                                  "flag QUEUE_MAP_CPU\n";

/* Each command line prefixed with the device file's name. */
static void
expect_device(struct strbuf *sb, const char *dev, const char *count, const char *pace)
{
	char block[1024], *line, *save = NULL;

	snprintf(block, sizeof(block), DEVICE_CMDS, count, pace);
	for (line = strtok_r(block, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		strbuf_addf(sb, "%s: %s\n", dev, line);
}

/* Two threads: the count shared out (501 + 500), delay 0 when unpaced. */
static void
test_commands(void **state)
{
	struct pktgen_opts o = opts();
	struct pktgen_write w[64];
	struct strbuf want;
	size_t n = pktgen_commands(&o, w, 64);
	char *got = lines(w, n);

	(void)state;
	strbuf_init(&want);
	strbuf_addstr(&want, "kpktgend_0: rem_device_all\n"
	                     "kpktgend_0: add_device vA@0\n"
	                     "kpktgend_1: rem_device_all\n"
	                     "kpktgend_1: add_device vA@1\n");
	expect_device(&want, "vA@0", "501", "delay 0");
	expect_device(&want, "vA@1", "500", "delay 0");
	strbuf_addch(&want, '\0');
	assert_int_equal(n, 4 + 2 * 13);
	assert_string_equal(got, want.buf);
	/* Counting only (w == NULL) gives the same number. */
	assert_int_equal(pktgen_commands(&o, NULL, 0), n);
	free(got);
	strbuf_free(&want);

	n = pktgen_cleanup(&o, w, 64);
	got = lines(w, n);
	assert_string_equal(got, "kpktgend_0: rem_device_all\nkpktgend_1: rem_device_all\n");
	free(got);
}

/* Paced: ratep shared out per device, or delay as given (per thread, pktgen's meaning);
 * one thread: no QUEUE_MAP_CPU, count 0 runs until stopped. */
static void
test_commands_paced(void **state)
{
	struct pktgen_opts o = opts();
	struct pktgen_write w[64];
	size_t n;

	(void)state;
	o.rate_pps = 20000;
	n = pktgen_commands(&o, w, 64);
	assert_string_equal(w[4 + 3].cmd, "ratep 10000");
	assert_string_equal(w[4 + 13 + 3].cmd, "ratep 10000");
	o.rate_pps = 0;
	o.delay_ns = 50000;
	o.threads = 1;
	o.count = 0;
	o.clone_skb = 10;
	o.size = 1518;
	n = pktgen_commands(&o, w, 64);
	assert_int_equal(n, 2 + 12);
	assert_string_equal(w[2].file, "vA@0");
	assert_string_equal(w[2].cmd, "count 0");
	assert_string_equal(w[3].cmd, "clone_skb 10");
	assert_string_equal(w[4].cmd, "pkt_size 1514");
	assert_string_equal(w[5].cmd, "delay 50000");
	assert_string_equal(w[13].cmd, "flag UDPCSUM");
	/* A short array is filled as far as it goes; the count is the whole. */
	assert_int_equal(pktgen_commands(&o, w, 3), n);
}

/* The helper's script: setup writes, start, reports, clean-up. */
static void
test_helper_argv(void **state)
{
	struct pktgen_opts o = opts();
	char **v;
	size_t n = 0, nset = pktgen_commands(&o, NULL, 0);

	(void)state;
	o.threads = 1;
	nset = pktgen_commands(&o, NULL, 0);
	v = pktgen_helper_argv(&o, "/usr/sbin/netmetrics-pktgen");
	while (v[n] != NULL)
		n++;
	assert_int_equal(n, 1 + 3 * nset + 1 + 2 + 3);
	assert_string_equal(v[0], "/usr/sbin/netmetrics-pktgen");
	assert_string_equal(v[1], "-w");
	assert_string_equal(v[2], "kpktgend_0");
	assert_string_equal(v[3], "rem_device_all");
	assert_string_equal(v[4], "-w");
	assert_string_equal(v[5], "kpktgend_0");
	assert_string_equal(v[6], "add_device vA@0");
	assert_string_equal(v[7], "-w");
	assert_string_equal(v[8], "vA@0");
	assert_string_equal(v[9], "count 1001");
	assert_string_equal(v[1 + 3 * nset], "-s");
	assert_string_equal(v[2 + 3 * nset], "-p");
	assert_string_equal(v[3 + 3 * nset], "vA@0");
	assert_string_equal(v[4 + 3 * nset], "-w");
	assert_string_equal(v[5 + 3 * nset], "kpktgend_0");
	assert_string_equal(v[6 + 3 * nset], "rem_device_all");
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The example of "Viewing devices" in pktgen.rst, as the kernel prints it. */
static const char DOC_DEVICE[] =
    "Params: count 100000  min_pkt_size: 60  max_pkt_size: 60\n"
    "     frags: 0  delay: 0  clone_skb: 64  ifname: eth4@0\n"
    "     flows: 0 flowlen: 0\n"
    "     queue_map_min: 0  queue_map_max: 0\n"
    "     dst_min: 192.168.81.2  dst_max:\n"
    "     src_min:   src_max:\n"
    "     src_mac: 90:e2:ba:0a:56:b4 dst_mac: 00:1b:21:3c:9d:f8\n"
    "     udp_src_min: 9  udp_src_max: 109  udp_dst_min: 9  udp_dst_max: 9\n"
    "     src_mac_count: 0  dst_mac_count: 0\n"
    "     Flags: UDPSRC_RND  NO_TIMESTAMP  QUEUE_MAP_CPU\n"
    "Current:\n"
    "     pkts-sofar: 100000  errors: 0\n"
    "     started: 623913381008us  stopped: 623913396439us idle: 25us\n"
    "     seq_num: 100001  cur_dst_mac_offset: 0  cur_src_mac_offset: 0\n"
    "     cur_saddr: 192.168.8.3  cur_daddr: 192.168.81.2\n"
    "     cur_udp_dst: 9  cur_udp_src: 42\n"
    "     cur_queue_map: 0\n"
    "     flows: 0\n"
    "Result: OK: 15430(c15405+d25) usec, 100000 (60byte,0frags)\n"
    "  6480562pps 3110Mb/sec (3110669760bps) errors: 0\n";

static void
test_result_doc(void **state)
{
	struct pktgen_result r;

	(void)state;
	assert_int_equal(parse_pktgen_result(DOC_DEVICE, &r), 0);
	assert_true(r.ok);
	assert_int_equal(r.packets, 100000);
	assert_int_equal(r.errors, 0);
	assert_float_equal(r.elapsed_s, 0.015430, 1e-9);
	assert_float_equal(r.pps, 6480562, 0);
	assert_float_equal(r.bps, 3110669760.0, 0);
	assert_string_equal(r.result, "");
}

/* A device that has not run, one that stopped part-way with errors, garbage. */
static void
test_result_other(void **state)
{
	struct pktgen_result r;
	char text[2048];

	(void)state;
	assert_int_equal(parse_pktgen_result("Params: count 0\nCurrent:\n     pkts-sofar: 0  "
	                                     "errors: 0\nResult: Idle\n",
	                                     &r),
	                 -1);
	assert_false(r.ok);
	assert_string_equal(r.result, "Idle");
	assert_int_equal(parse_pktgen_result("Current:\n     pkts-sofar: 1234  errors: 5\n"
	                                     "Result: No such parameter \"bogus\"\n",
	                                     &r),
	                 -1);
	assert_int_equal(r.packets, 1234);
	assert_int_equal(r.errors, 5);
	assert_string_equal(r.result, "No such parameter \"bogus\"");
	snprintf(text, sizeof(text), "%s", DOC_DEVICE);
	strcpy(strstr(text, "errors: 0\n" /* the Current one */) + 8, "7\nResult: OK: 2000000"
	                                                              "(c1+d1999999) usec, 20000 "
	                                                              "(1514byte,0frags)\n  "
	                                                              "10000pps 121Mb/sec "
	                                                              "(121120000bps) errors: 7\n");
	assert_int_equal(parse_pktgen_result(text, &r), 0);
	assert_int_equal(r.packets, 20000);
	assert_int_equal(r.errors, 7);
	assert_float_equal(r.elapsed_s, 2.0, 1e-9);
	assert_int_equal(parse_pktgen_result("Result: OK: 12(c", &r), -1);
	assert_int_equal(parse_pktgen_result("", &r), -1);
	assert_string_equal(r.result, "no Result line");
}

/* netmetrics-pktgen's output: a "== NAME" line before each file. */
static void
test_output(void **state)
{
	struct pktgen_result r[4];
	char text[4096];

	(void)state;
	snprintf(text, sizeof(text), "== vA@0\n%s== vA@1\nResult: Idle\n== vA@2\n%s", DOC_DEVICE,
	         DOC_DEVICE);
	assert_int_equal(parse_pktgen_output(text, r, 4), 3);
	assert_string_equal(r[0].name, "vA@0");
	assert_true(r[0].ok);
	assert_int_equal(r[0].packets, 100000);
	assert_string_equal(r[1].name, "vA@1");
	assert_false(r[1].ok);
	assert_string_equal(r[1].result, "Idle");
	assert_string_equal(r[2].name, "vA@2");
	assert_true(r[2].ok);
	assert_int_equal(parse_pktgen_output(text, r, 2), 2);
	assert_int_equal(parse_pktgen_output("netmetrics-pktgen: oops\n", r, 4), 0);
}

/* flowlen 1: one template, a random destination for every packet. */
static void
test_trafgen_random(void **state)
{
	struct pktgen_opts o = opts();
	struct strbuf sb;

	(void)state;
	o.flowlen = 1;
	strbuf_init(&sb);
	pktgen_trafgen_config(&o, &sb);
	strbuf_addch(&sb, '\0');
	assert_string_equal(
	    sb.buf, "/* netmetrics pktgen driver: 60-byte frames (64 with the FCS), UDP 9 "
	            "-> 9, TTL 64, to 10.0.0.0-10.18.255.255 */\n"
	            "/* every packet to a random destination */\n"
	            "{ eth(da=02:00:00:00:00:02, sa=02:00:00:00:00:01), ipv4(sa=172.31.9.1, "
	            "da=drnd(167772160, 169017343), ttl=64), udp(sp=9, dp=9), fill(0, 18) }\n");
	strbuf_free(&sb);
}

/* flows x flowlen: k-major templates, each flow on its own slice of the range. */
static void
test_trafgen_flows(void **state)
{
	struct pktgen_opts o = opts();
	struct strbuf sb;
	const char *head = "{ eth(da=02:00:00:00:00:02, sa=02:00:00:00:00:01), ipv4(sa=172.31.9.1, "
	                   "da=";
	const char *tail = ", ttl=64), udp(sp=9, dp=9), fill(0, 82) }\n";
	/* 10.0.0.0-10.0.0.9 (167772160-167772169) in 4 slices: 0-1, 2-4, 5-6, 7-9. */
	const char *das[] = {"dinc(167772160, 167772161, 1)", "dinc(167772162, 167772164, 1)",
	                     "dinc(167772165, 167772166, 1)", "dinc(167772167, 167772169, 1)"};
	struct strbuf want;

	(void)state;
	o.flows = 4;
	o.flowlen = 2;
	o.size = 128;
	pktgen_parse_ipv4("10.0.0.9", &o.dst_max);
	strbuf_init(&sb);
	strbuf_init(&want);
	pktgen_trafgen_config(&o, &sb);
	strbuf_addch(&sb, '\0');
	strbuf_addstr(&want, "/* netmetrics pktgen driver: 124-byte frames (128 with the FCS), UDP "
	                     "9 -> 9, TTL 64, to 10.0.0.0-10.0.0.9 */\n"
	                     "/* 4 flows of 2 packets: template (k, f) is packet k of flow f; flow "
	                     "f walks its own slice of the range, one address per round */\n");
	for (int k = 0; k < 2; k++)
		for (int f = 0; f < 4; f++)
			strbuf_addf(&want, "%s%s%s", head, das[f], tail);
	strbuf_addch(&want, '\0');
	assert_string_equal(sb.buf, want.buf);
	/* As many flows as addresses: each flow one fixed destination. */
	strbuf_reset(&sb);
	o.flows = 10;
	pktgen_trafgen_config(&o, &sb);
	strbuf_addch(&sb, '\0');
	assert_non_null(strstr(sb.buf, "da=10.0.0.0, ttl=64"));
	assert_non_null(strstr(sb.buf, "da=10.0.0.9, ttl=64"));
	assert_null(strstr(sb.buf, "dinc"));
	strbuf_free(&sb);
	strbuf_free(&want);
}

/* trafgen 0.6.8, -P 2 -n 1001, on this machine (the second worker's time raised from 0 to
 * 1 s, to check the usec that is not zero-padded). */
static const char TRAFGEN_OUT[] = "     1 packets to schedule\n"
                                  "    60 bytes in total\n"
                                  "Running! Hang up with ^C!\n"
                                  "\n"
                                  "\n"
                                  "\r        1001 packets outgoing\n"
                                  "\r       60060 bytes outgoing\n"
                                  "\r           0 sec, 2031 usec on CPU0 (500 packets)\n"
                                  "\r           1 sec, 3203 usec on CPU1 (501 packets)\n";

static void
test_trafgen_summary(void **state)
{
	struct trafgen_out *out = malloc(sizeof(*out));

	(void)state;
	assert_int_equal(parse_trafgen_summary(TRAFGEN_OUT, strlen(TRAFGEN_OUT), out), 0);
	assert_true(out->found);
	assert_int_equal(out->packets, 1001);
	assert_int_equal(out->bytes, 60060);
	assert_int_equal(out->workers, 2);
	assert_int_equal(out->worker_cpu[1], 1);
	assert_int_equal(out->worker_packets[0], 500);
	assert_float_equal(out->worker_s[0], 0.002031, 1e-9);
	/* usec is not zero-padded: "1 sec, 3203 usec" is 1.003203 s. */
	assert_float_equal(out->elapsed_s, 1.003203, 1e-9);
	/* Killed before the summary: nothing to report. */
	assert_int_equal(parse_trafgen_summary(TRAFGEN_OUT, 70, out), -1);
	assert_int_equal(parse_trafgen_summary("", 0, out), -1);
	free(out);
}

/* ip -j addr show, route get, neigh show; tc -j qdisc show: captured on this machine. */
static json_object *
parse(const char *s)
{
	json_object *j = json_tokener_parse(s);

	assert_non_null(j);
	return j;
}

static void
test_ip_json(void **state)
{
	json_object *j;
	struct pktgen_link l;
	uint32_t hop, want;
	uint8_t mac[6];
	char dev[16], why[128], kind[16];

	(void)state;
	j = parse(
	    "[{\"ifindex\":2,\"ifname\":\"vx0\",\"mtu\":1500,\"address\":\"e6:a6:ad:a0:13:f8\","
	    "\"addr_info\":[{\"family\":\"inet6\",\"local\":\"fe80::1\"},{\"family\":\"inet\","
	    "\"local\":\"172.31.9.1\",\"prefixlen\":24}]}]");
	assert_int_equal(pktgen_ip_link(j, &l, why, sizeof(why)), 0);
	assert_int_equal(l.mtu, 1500);
	assert_true(l.has_ipv4);
	pktgen_parse_ipv4("172.31.9.1", &want);
	assert_int_equal(l.ipv4, want);
	assert_int_equal(l.mac[0], 0xe6);
	assert_int_equal(l.mac[5], 0xf8);
	json_object_put(j);
	j = parse("[{\"ifname\":\"wg0\",\"mtu\":1420,\"address\":\"\"}]");
	assert_int_equal(pktgen_ip_link(j, &l, why, sizeof(why)), -1);
	json_object_put(j);

	j = parse("[{\"dst\":\"10.0.0.1\",\"gateway\":\"172.31.9.2\",\"dev\":\"vx0\"}]");
	assert_int_equal(pktgen_ip_nexthop(j, &hop, dev, sizeof(dev), why, sizeof(why)), 0);
	pktgen_parse_ipv4("172.31.9.2", &want);
	assert_int_equal(hop, want);
	assert_string_equal(dev, "vx0");
	json_object_put(j);
	j = parse("[{\"dst\":\"172.31.9.7\",\"dev\":\"vx0\",\"prefsrc\":\"172.31.9.1\"}]");
	assert_int_equal(pktgen_ip_nexthop(j, &hop, dev, sizeof(dev), why, sizeof(why)), 0);
	pktgen_parse_ipv4("172.31.9.7", &want);
	assert_int_equal(hop, want);
	json_object_put(j);

	pktgen_parse_ipv4("172.31.9.2", &hop);
	j = parse(
	    "[{\"dst\":\"172.31.9.3\",\"lladdr\":\"02:00:00:00:00:03\",\"state\":[\"STALE\"]},"
	    "{\"dst\":\"172.31.9.2\",\"lladdr\":\"DE:7A:3D:07:4F:28\",\"state\":[\"PERMANENT\"]}]");
	assert_int_equal(pktgen_ip_neigh(j, hop, mac, why, sizeof(why)), 0);
	assert_int_equal(mac[0], 0xde);
	assert_int_equal(mac[5], 0x28);
	json_object_put(j);
	j = parse("[{\"dst\":\"172.31.9.2\",\"state\":[\"FAILED\"]}]");
	assert_int_equal(pktgen_ip_neigh(j, hop, mac, why, sizeof(why)), -1);
	json_object_put(j);
	j = parse("[]");
	assert_int_equal(pktgen_ip_neigh(j, hop, mac, why, sizeof(why)), -1);
	assert_string_equal(why, "no neighbour entry for 172.31.9.2");
	json_object_put(j);

	j = parse("[{\"kind\":\"noqueue\",\"handle\":\"0:\",\"root\":true,\"refcnt\":2}]");
	assert_true(pktgen_tc_root_default(j, kind, sizeof(kind)));
	assert_string_equal(kind, "noqueue");
	json_object_put(j);
	j = parse("[{\"kind\":\"tbf\",\"handle\":\"8018:\",\"root\":true}]");
	assert_false(pktgen_tc_root_default(j, kind, sizeof(kind)));
	assert_string_equal(kind, "tbf");
	json_object_put(j);
}

/* Addresses: what is taken and what is not. */
static void
test_addresses(void **state)
{
	uint32_t ip;
	uint8_t mac[6];
	char buf[32];

	(void)state;
	assert_int_equal(pktgen_parse_ipv4("10.18.255.255", &ip), 0);
	assert_int_equal(ip, 169017343u);
	pktgen_format_ipv4(ip, buf, sizeof(buf));
	assert_string_equal(buf, "10.18.255.255");
	assert_int_equal(pktgen_parse_ipv4("10.0.0", &ip), -1);
	assert_int_equal(pktgen_parse_ipv4("10.0.0.256", &ip), -1);
	assert_int_equal(pktgen_parse_ipv4("::1", &ip), -1);
	assert_int_equal(pktgen_parse_mac("02:Ab:cd:EF:00:ff", mac), 0);
	pktgen_format_mac(mac, buf, sizeof(buf));
	assert_string_equal(buf, "02:ab:cd:ef:00:ff");
	assert_int_equal(pktgen_parse_mac("02:ab:cd:ef:00", mac), -1);
	assert_int_equal(pktgen_parse_mac("02-ab-cd-ef-00-ff", mac), -1);
	assert_int_equal(pktgen_parse_mac("02:ab:cd:ef:00:fg", mac), -1);
	assert_int_equal(pktgen_parse_mac(" 2:ab:cd:ef:00:ff", mac), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_commands),        cmocka_unit_test(test_commands_paced),
	    cmocka_unit_test(test_helper_argv),     cmocka_unit_test(test_result_doc),
	    cmocka_unit_test(test_result_other),    cmocka_unit_test(test_output),
	    cmocka_unit_test(test_trafgen_random),  cmocka_unit_test(test_trafgen_flows),
	    cmocka_unit_test(test_trafgen_summary), cmocka_unit_test(test_ip_json),
	    cmocka_unit_test(test_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
