/* test-source-ethtool.c: the ethtool source on the fixture drivers, its devices option,
 * repeated and changing names, and on the host a device's counters against ethtool_read. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/ethtool_netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "error.h"
#include "ethstd.h"
#include "ethtool.h"
#include "series.h"
#include "source-harness.h"
#include "source.h"

/* Init w's ethtool source (index 6), with devices = devices when not NULL. */
static void
start(struct world *w, const char *devices)
{
	w->src.index = 6;
	if (devices != NULL)
		harness_configure(w, "devices", devices);
	harness_start(w);
}

/* Every counter of every fixture device, names with blanks made '_'. */
static void
test_fixtures(void **state)
{
	struct world w;
	struct nm_error err;
	struct series_labels lab;

	(void)state;
	harness_init(&w, &source_ethtool_ops, FIXTURE_DIR);
	start(&w, NULL);
	harness_sample(&w);
	assert_int_equal(w.reg.n, 121 + 84 + 49 + 20 + 64 + 60 + 60 + 20);
	assert_int_equal(harness_value(&w, "ethtool.bnxt.[0]:_rx_ucast_packets"), 1000);
	assert_int_equal(harness_value(&w, "ethtool.be2net.rxq1:_rx_pkts"), 200);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.rx_prio0_packets"), 1234567);
	harness_labels(
	    &w, "ethtool.mlx5.rx_prio0_packets",
	    "source=ethtool device=mlx5 direction=rx field=rx_prio0_packets unit=packets");
	/* the field is the driver's name as it gives it, blanks and all; the name's are '_' */
	lab = series_labels_of(&w.reg, harness_find(&w, "ethtool.bnxt.[0]:_rx_ucast_packets"));
	assert_string_equal(series_atom_str(&w.reg, lab.field), "[0]: rx_ucast_packets");
	assert_int_equal(harness_value(&w, "ethtool.i40e.rx-0.rx_packets"), 3000);
	assert_int_equal(harness_value(&w, "ethtool.ixgbe.tx_queue_3_bytes"), 120000);
	assert_int_equal(
	    series_get(&w.reg, series_find(&w.reg, "ethtool.ena.queue_0_rx_cnt"))->kind,
	    SERIES_COUNTER);
	/* Unchanged counters are not put again: the sink keeps their values. */
	harness_sample(&w);
	assert_int_equal(w.sink.count[series_find(&w.reg, "ethtool.iavf.rx-1.packets")], 1);
	assert_int_equal(w.sink.nput, 0);
	assert_int_equal(source_ethtool_ops.configure(&w.src, "speed", "1", &err), -1);
	{
		json_object *o = source_ethtool_ops.describe(&w.src), *d;
		assert_true(json_object_object_get_ex(o, "devices", &d));
		assert_int_equal(json_object_get_int(json_object_object_get(d, "bnxt")), 60);
		json_object_put(o);
	}
	harness_free(&w);

	harness_init(&w, &source_ethtool_ops, FIXTURE_DIR);
	start(&w, "b*");
	harness_sample(&w);
	assert_int_equal(w.reg.n, 60 + 60);
	harness_free(&w);
}

/* Repeated names get #2; renamed counters and removed devices are gone. */
static void
test_names_change(void **state)
{
	struct world w;
	series_id a, b, c;

	(void)state;
	harness_init(&w, &source_ethtool_ops, NULL);
	harness_mkdir(&w, "ethtool");
	harness_write(&w, "ethtool/vmx0.txt",
	              "NIC statistics:\n     Tx Queue#: 0\n     ucast pkts tx: 10\n"
	              "     Tx Queue#: 1\n     ucast pkts tx: 20\n     drops: 3\n");
	start(&w, NULL);
	harness_sample(&w);
	assert_int_equal(harness_value(&w, "ethtool.vmx0.Tx_Queue#"), 0);
	assert_int_equal(harness_value(&w, "ethtool.vmx0.Tx_Queue##2"), 1);
	assert_int_equal(harness_value(&w, "ethtool.vmx0.ucast_pkts_tx"), 10);
	assert_int_equal(harness_value(&w, "ethtool.vmx0.ucast_pkts_tx#2"), 20);
	a = series_find(&w.reg, "ethtool.vmx0.ucast_pkts_tx#2");
	b = series_find(&w.reg, "ethtool.vmx0.drops");
	/* One queue fewer and a new counter: the second queue's series go, drops stays. */
	harness_write(&w, "ethtool/vmx0.txt",
	              "NIC statistics:\n     Tx Queue#: 0\n     ucast pkts tx: 11\n"
	              "     drops: 4\n     resets: 1\n");
	harness_sample(&w);
	assert_true(w.sink.gone[a]);
	assert_false(w.sink.gone[b]);
	assert_int_equal(harness_value(&w, "ethtool.vmx0.drops"), 4);
	assert_int_equal(harness_value(&w, "ethtool.vmx0.resets"), 1);
	c = series_find(&w.reg, "ethtool.vmx0.resets");
	/* The device goes. */
	harness_write(&w, "ethtool/vmx0.txt", NULL);
	harness_sample(&w);
	assert_true(w.sink.gone[b]);
	assert_true(w.sink.gone[c]);
	harness_free(&w);
}

/* Only counters whose value changed are put; a value that grows a digit, blanks and a CRLF
 * line end are read as by a full parse; a renamed counter puts them all again. */
static void
test_changed_only(void **state)
{
	struct world w;

	(void)state;
	harness_init(&w, &source_ethtool_ops, NULL);
	harness_mkdir(&w, "ethtool");
	harness_write(&w, "ethtool/eth9.txt",
	              "NIC statistics:\n     rx_packets: 9\n     tx_packets: 5\n"
	              "     [0]: rx_bytes: 100\r\n     drops: 0\n");
	start(&w, NULL);
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 4);
	harness_write(&w, "ethtool/eth9.txt",
	              "NIC statistics:\n     rx_packets: 10\n     tx_packets: 5\n"
	              "     [0]: rx_bytes:  120 \r\n     drops: 0\n");
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 2);
	assert_int_equal(harness_value(&w, "ethtool.eth9.rx_packets"), 10);
	assert_int_equal(harness_value(&w, "ethtool.eth9.[0]:_rx_bytes"), 120);
	assert_false(w.sink.put[harness_find(&w, "ethtool.eth9.tx_packets")]);
	/* Not a number any more: skipped, the others still read. */
	harness_write(&w, "ethtool/eth9.txt",
	              "NIC statistics:\n     rx_packets: 11\n     tx_packets: 5x\n"
	              "     [0]: rx_bytes: 120\n     drops: 1\n");
	harness_sample(&w);
	assert_int_equal(harness_value(&w, "ethtool.eth9.rx_packets"), 11);
	assert_int_equal(harness_value(&w, "ethtool.eth9.drops"), 1);
	assert_true(w.sink.gone[harness_find(&w, "ethtool.eth9.tx_packets")]);
	/* A renamed counter: every counter is put again. */
	harness_write(&w, "ethtool/eth9.txt",
	              "NIC statistics:\n     rx_packets: 11\n     tx_pkts: 5\n"
	              "     [0]: rx_bytes: 120\n     drops: 1\n");
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 4);
	assert_int_equal(harness_value(&w, "ethtool.eth9.tx_pkts"), 5);
	harness_free(&w);
}

/* On the host: a device's series are exactly its ethtool_read counters; lo has none. */
static void
test_host(void **state)
{
	struct world w;
	struct ethtool_counters ec;
	const char *dev = NULL;
	char prefix[64];
	size_t nseries = 0;
	int fd;

	(void)state;
	harness_init(&w, &source_ethtool_ops, "/");
	start(&w, NULL);
	harness_sample(&w);
	for (size_t id = 0; id < w.reg.n; id++) {
		assert_true(strncmp(w.reg.v[id].name, "ethtool.lo.", 11) != 0);
		if (dev == NULL && strncmp(w.reg.v[id].name, "ethtool.eth0.", 13) == 0)
			dev = "eth0";
	}
	if (dev == NULL) {
		harness_free(&w);
		skip();
	}
	snprintf(prefix, sizeof(prefix), "ethtool.%s.", dev);
	for (size_t id = 0; id < w.reg.n; id++)
		nseries += strncmp(w.reg.v[id].name, prefix, strlen(prefix)) == 0;
	fd = ethtool_socket(NULL);
	ethtool_counters_init(&ec);
	assert_int_equal(ethtool_read(fd, dev, &ec, NULL), 0);
	assert_int_equal(nseries, ec.n);
	ethtool_counters_free(&ec);
	close(fd);
	harness_free(&w);
}

/* One ETHTOOL_A_STATS_GRP_STAT nest: counter index of the group's string set = val, as the
 * kernel's stat_put writes it (with the pad a platform without unaligned access puts). */
static void
put_stat(struct nl_msg *m, int index, uint64_t val)
{
	struct nlattr *n;

	nla_put(m, ETHTOOL_A_STATS_GRP_PAD, 0, NULL);
	n = nla_nest_start(m, ETHTOOL_A_STATS_GRP_STAT);
	nla_put_u64(m, index, val);
	nla_nest_end(m, n);
}

/* One histogram bucket nest (attr ETHTOOL_A_STATS_GRP_HIST_RX or _TX). */
static void
put_bucket(struct nl_msg *m, int attr, uint32_t low, uint32_t high, uint64_t val)
{
	struct nlattr *n = nla_nest_start(m, attr);

	nla_put_u32(m, ETHTOOL_A_STATS_GRP_HIST_BKT_LOW, low);
	nla_put_u32(m, ETHTOOL_A_STATS_GRP_HIST_BKT_HI, high);
	nla_put_u64(m, ETHTOOL_A_STATS_GRP_HIST_VAL, val);
	nla_nest_end(m, n);
}

/* Open a group nest with its id and string set id, as stats_put_stats does. */
static struct nlattr *
open_group(struct nl_msg *m, uint32_t id, uint32_t ss_id)
{
	struct nlattr *n = nla_nest_start(m, ETHTOOL_A_STATS_GRP);

	nla_put_u32(m, ETHTOOL_A_STATS_GRP_ID, id);
	nla_put_u32(m, ETHTOOL_A_STATS_GRP_SS_ID, ss_id);
	return n;
}

/* Write to DIR/ethtool/DEV.std the reply the kernel's net/ethtool/stats.c builds for an
 * mlx5-like device asked for the five groups: eth-phy (group 0, string set 17, as this
 * kernel numbers them) with its one counter, eth-mac (1, 18) with what mlx5e sets, eth-ctrl
 * (2, 19) empty, rmon (3, 20) with
 * ten rx buckets first, then its four counters, and phydev (4, 21) with two counters of a
 * PHY. rx_frames is eth-mac's FramesReceivedOK
 * (index 3). With empty, every group is an empty nest: a driver with none. A tx bucket
 * without an upper bound (high 0) is added, as a driver with tx buckets gives one. */
static void
write_reply(struct world *w, const char *dev, uint64_t rx_frames, bool empty)
{
	static const uint32_t ranges[10][2] = {
	    {0, 64},      {65, 127},    {128, 255},   {256, 511},   {512, 1023},
	    {1024, 1518}, {1519, 2047}, {2048, 4095}, {4096, 8191}, {8192, 10239}};
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *n;
	char path[512];
	FILE *f;

	assert_non_null(
	    genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, 0x15, 0, 0, ETHTOOL_MSG_STATS_GET_REPLY, 1));
	n = nla_nest_start(m, ETHTOOL_A_STATS_HEADER);
	nla_put_u32(m, ETHTOOL_A_HEADER_DEV_INDEX, 7);
	nla_put_string(m, ETHTOOL_A_HEADER_DEV_NAME, dev);
	nla_nest_end(m, n);
	n = open_group(m, 0, 17);
	if (!empty)
		put_stat(m, 0, 7); /* SymbolErrorDuringCarrier */
	nla_nest_end(m, n);
	n = open_group(m, 1, 18);
	if (!empty) {
		put_stat(m, 0, 5000001);     /* FramesTransmittedOK */
		put_stat(m, 3, rx_frames);   /* FramesReceivedOK */
		put_stat(m, 4, 3);           /* FrameCheckSequenceErrors */
		put_stat(m, 5, 0);           /* AlignmentErrors */
		put_stat(m, 6, 7500001500);  /* OctetsTransmittedOK */
		put_stat(m, 12, 6000003000); /* OctetsReceivedOK */
		put_stat(m, 14, 11);         /* MulticastFramesXmittedOK */
		put_stat(m, 15, 12);         /* BroadcastFramesXmittedOK */
		put_stat(m, 17, 21);         /* MulticastFramesReceivedOK */
		put_stat(m, 18, 22);         /* BroadcastFramesReceivedOK */
		put_stat(m, 19, 1);          /* InRangeLengthErrors */
		put_stat(m, 20, 2);          /* OutOfRangeLengthField */
		put_stat(m, 21, 4);          /* FrameTooLongErrors */
	}
	nla_nest_end(m, n);
	nla_nest_end(m, open_group(m, 2, 19));
	n = open_group(m, 3, 20);
	if (!empty) {
		for (int i = 0; i < 10; i++)
			put_bucket(m, ETHTOOL_A_STATS_GRP_HIST_RX, ranges[i][0], ranges[i][1],
			           100 * (uint64_t)(i + 1));
		put_bucket(m, ETHTOOL_A_STATS_GRP_HIST_TX, 1519, 0, 77);
		put_stat(m, 0, 1); /* etherStatsUndersizePkts */
		put_stat(m, 1, 2); /* etherStatsOversizePkts */
		put_stat(m, 2, 3); /* etherStatsFragments */
		put_stat(m, 3, 4); /* etherStatsJabbers */
	}
	nla_nest_end(m, n);
	n = open_group(m, 4, 21); /* phydev (6.14): a PHY's own counters */
	if (!empty) {
		put_stat(m, 0, 11111); /* RxFrames */
		put_stat(m, 4, 22222); /* TxOctets */
	}
	nla_nest_end(m, n);
	snprintf(path, sizeof(path), "%s/ethtool/%s.std", w->dir, dev);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, 1, f), 1);
	fclose(f);
	nlmsg_free(m);
}

/* The describe of the source's standard groups: member key as a JSON text. */
static void
check_describe(struct world *w, const char *key, const char *want)
{
	json_object *o = source_ethtool_ops.describe(&w->src), *v;

	assert_true(json_object_object_get_ex(o, key, &v));
	assert_string_equal(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), want);
	json_object_put(o);
}

/* One string of a string set (ETHTOOL_A_STRINGS_STRING), as strset_fill_string puts it. */
static void
put_string(struct nl_msg *m, uint32_t index, const char *value)
{
	struct nlattr *n = nla_nest_start(m, ETHTOOL_A_STRINGS_STRING);

	nla_put_u32(m, ETHTOOL_A_STRING_INDEX, index);
	nla_put_string(m, ETHTOOL_A_STRING_VALUE, value);
	nla_nest_end(m, n);
}

/* Write msg to DIR/ethtool/DEV.EXT. */
static void
write_msg(struct world *w, const char *dev, const char *ext, struct nl_msg *m)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/ethtool/%s.%s", w->dir, dev, ext);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, 1, f), 1);
	fclose(f);
}

/* DEV.std: eth-mac (1, string set 18) with counters 0, 3, 5 and 22 (a counter newer than
 * the built-in table), rmon (3, 20) with its counter 0. */
static void
write_newer_reply(struct world *w, const char *dev)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *n;

	assert_non_null(
	    genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, 0x15, 0, 0, ETHTOOL_MSG_STATS_GET_REPLY, 1));
	n = open_group(m, 1, 18);
	put_stat(m, 0, 5);
	put_stat(m, 3, 6);
	put_stat(m, 5, 7);
	put_stat(m, 22, 9);
	nla_nest_end(m, n);
	n = open_group(m, 3, 20);
	put_stat(m, 0, 1);
	nla_nest_end(m, n);
	write_msg(w, dev, "std", m);
	nlmsg_free(m);
}

/* DEV.strset: the reply of ETHTOOL_MSG_STRSET_GET for string set 18 as a newer kernel would
 * give it: the names of 0 and 3 as the table has them, 5 renamed, 22 a name the table lacks,
 * 23 a name that cannot be part of a series name (not kept). No set 20: rmon keeps the
 * table's names. */
static void
write_strset(struct world *w, const char *dev)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *sets, *set, *strs;

	assert_non_null(
	    genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, 0x15, 0, 0, ETHTOOL_MSG_STRSET_GET_REPLY, 1));
	sets = nla_nest_start(m, ETHTOOL_A_STRSET_STRINGSETS);
	set = nla_nest_start(m, ETHTOOL_A_STRINGSETS_STRINGSET);
	nla_put_u32(m, ETHTOOL_A_STRINGSET_ID, 18);
	nla_put_u32(m, ETHTOOL_A_STRINGSET_COUNT, 24);
	strs = nla_nest_start(m, ETHTOOL_A_STRINGSET_STRINGS);
	put_string(m, 0, "FramesTransmittedOK");
	put_string(m, 3, "FramesReceivedOK");
	put_string(m, 5, "AlignmentErrorsKernel");
	put_string(m, 22, "RxFramesNewer");
	put_string(m, 23, "bad.name");
	nla_nest_end(m, strs);
	nla_nest_end(m, set);
	nla_nest_end(m, sets);
	write_msg(w, dev, "strset", m);
	nlmsg_free(m);
}

/* The groups' names from the kernel's string sets (DEV.strset) first, the table after:
 * a counter the table does not know gets its kernel name and direction; without the file,
 * the table's names ("stat22" for the unknown one). */
static void
test_std_kernel_names(void **state)
{
	struct world w;

	(void)state;
	harness_init(&w, &source_ethtool_ops, NULL);
	harness_mkdir(&w, "ethtool");
	harness_write(&w, "ethtool/kn.txt", "NIC statistics:\n     rx0_packets: 5\n");
	harness_write(&w, "ethtool/tb.txt", "NIC statistics:\n     rx0_packets: 5\n");
	write_newer_reply(&w, "kn");
	write_strset(&w, "kn");
	write_newer_reply(&w, "tb");
	harness_start(&w);
	harness_sample(&w);
	assert_int_equal(harness_value(&w, "ethtool.kn.std.eth-mac.RxFramesNewer"), 9);
	harness_labels(&w, "ethtool.kn.std.eth-mac.RxFramesNewer",
	               "source=ethtool device=kn table=eth-mac direction=rx field=RxFramesNewer "
	               "unit=packets");
	assert_int_equal(harness_value(&w, "ethtool.kn.std.eth-mac.FramesReceivedOK"), 6);
	assert_int_equal(harness_value(&w, "ethtool.kn.std.eth-mac.FramesTransmittedOK"), 5);
	assert_int_equal(harness_value(&w, "ethtool.kn.std.eth-mac.AlignmentErrorsKernel"), 7);
	assert_false(harness_exists(&w, "ethtool.kn.std.eth-mac.AlignmentErrors"));
	assert_false(harness_exists(&w, "ethtool.kn.std.eth-mac.stat22"));
	assert_int_equal(harness_value(&w, "ethtool.kn.std.rmon.etherStatsUndersizePkts"), 1);
	assert_int_equal(harness_value(&w, "ethtool.tb.std.eth-mac.stat22"), 9);
	assert_int_equal(harness_value(&w, "ethtool.tb.std.eth-mac.AlignmentErrors"), 7);
	check_describe(&w, "std_kernel_names", "{\"kn\":[\"eth-mac\"],\"tb\":[]}");
	harness_free(&w);
}

/* The standard groups from a constructed ETHTOOL_MSG_STATS_GET reply: every value as its
 * series with its group, direction and range; only changed values put again; a device
 * whose driver gives no group is not asked again until the device list changes. */
static void
test_std_groups(void **state)
{
	struct world w;
	size_t n = 0;

	(void)state;
	harness_init(&w, &source_ethtool_ops, NULL);
	harness_mkdir(&w, "ethtool");
	harness_write(&w, "ethtool/mlx5.txt", "NIC statistics:\n     rx0_packets: 5\n");
	harness_write(&w, "ethtool/plain.txt", "NIC statistics:\n     rx_packets: 9\n");
	write_reply(&w, "mlx5", 4000002, false);
	start(&w, NULL);
	harness_sample(&w);
	/* 2 ethtool -S counters; 1 eth-phy, 13 eth-mac, 4 rmon counters and 11 buckets, 2 phydev */
	assert_int_equal(w.sink.nput, 2 + 1 + 13 + 4 + 11 + 2);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.phydev.RxFrames"), 11111);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.phydev.TxOctets"), 22222);
	harness_labels(&w, "ethtool.mlx5.std.phydev.TxOctets",
	               "source=ethtool device=mlx5 table=phydev direction=tx field=TxOctets "
	               "unit=bytes");
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.eth-phy.SymbolErrorDuringCarrier"), 7);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.eth-mac.FramesTransmittedOK"),
	                 5000001);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.eth-mac.FramesReceivedOK"), 4000002);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.eth-mac.FrameCheckSequenceErrors"), 3);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.eth-mac.AlignmentErrors"), 0);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.eth-mac.OctetsTransmittedOK"),
	                 7500001500ull);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.eth-mac.OctetsReceivedOK"),
	                 6000003000ull);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.eth-mac.MulticastFramesXmittedOK"),
	                 11);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.eth-mac.BroadcastFramesXmittedOK"),
	                 12);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.eth-mac.MulticastFramesReceivedOK"),
	                 21);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.eth-mac.BroadcastFramesReceivedOK"),
	                 22);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.eth-mac.InRangeLengthErrors"), 1);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.eth-mac.OutOfRangeLengthField"), 2);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.eth-mac.FrameTooLongErrors"), 4);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.rmon.etherStatsUndersizePkts"), 1);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.rmon.etherStatsOversizePkts"), 2);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.rmon.etherStatsFragments"), 3);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.rmon.etherStatsJabbers"), 4);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.rmon.rx.0-64"), 100);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.rmon.rx.65-127"), 200);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.rmon.rx.128-255"), 300);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.rmon.rx.256-511"), 400);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.rmon.rx.512-1023"), 500);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.rmon.rx.1024-1518"), 600);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.rmon.rx.1519-2047"), 700);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.rmon.rx.2048-4095"), 800);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.rmon.rx.4096-8191"), 900);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.rmon.rx.8192-10239"), 1000);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.rmon.tx.1519-max"), 77);
	harness_labels(&w, "ethtool.mlx5.std.eth-mac.FramesReceivedOK",
	               "source=ethtool device=mlx5 table=eth-mac direction=rx "
	               "field=FramesReceivedOK unit=packets");
	harness_labels(&w, "ethtool.mlx5.std.eth-mac.OctetsTransmittedOK",
	               "source=ethtool device=mlx5 table=eth-mac direction=tx "
	               "field=OctetsTransmittedOK unit=bytes");
	harness_labels(&w, "ethtool.mlx5.std.rmon.rx.65-127",
	               "source=ethtool device=mlx5 table=rmon direction=rx field=65-127 "
	               "unit=packets");
	harness_labels(&w, "ethtool.mlx5.std.rmon.tx.1519-max",
	               "source=ethtool device=mlx5 table=rmon direction=tx field=1519-max "
	               "unit=packets");
	for (size_t id = 0; id < w.reg.n; id++)
		n += strncmp(w.reg.v[id].name, "ethtool.plain.std.", 18) == 0;
	assert_int_equal(n, 0);
	check_describe(&w, "std_groups",
	               "{\"mlx5\":[\"eth-phy\",\"eth-mac\",\"rmon\",\"phydev\"],\"plain\":[]}");
	check_describe(&w, "std_kernel_groups",
	               "[\"eth-phy\",\"eth-mac\",\"eth-ctrl\",\"rmon\",\"phydev\"]");
	check_describe(&w, "std_requests", "2");
	check_describe(&w, "std_method", "\"DEV.std files\"");

	/* The same reply: nothing put; plain, which gave none, is not asked again. */
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 0);
	check_describe(&w, "std_requests", "3");
	/* One value moved: only it is put. plain now has groups, but is not asked. */
	write_reply(&w, "mlx5", 4000010, false);
	write_reply(&w, "plain", 1, false);
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 1);
	assert_int_equal(harness_value(&w, "ethtool.mlx5.std.eth-mac.FramesReceivedOK"), 4000010);
	check_describe(&w, "std_requests", "4");
	assert_false(harness_exists(&w, "ethtool.plain.std.eth-mac.FramesReceivedOK"));
	/* A device comes: every device is asked again. */
	harness_write(&w, "ethtool/new0.txt", "NIC statistics:\n     rx_packets: 1\n");
	harness_sample(&w);
	check_describe(&w, "std_requests", "7");
	assert_int_equal(harness_value(&w, "ethtool.plain.std.eth-mac.FramesReceivedOK"), 1);
	check_describe(&w, "std_groups",
	               "{\"mlx5\":[\"eth-phy\",\"eth-mac\",\"rmon\",\"phydev\"],"
	               "\"plain\":[\"eth-phy\",\"eth-mac\",\"rmon\",\"phydev\"],\"new0\":[]}");
	/* The driver stops giving them: its series go. */
	write_reply(&w, "mlx5", 0, true);
	harness_sample(&w);
	assert_true(w.sink.gone[harness_find(&w, "ethtool.mlx5.std.eth-mac.FramesReceivedOK")]);
	assert_true(w.sink.gone[harness_find(&w, "ethtool.mlx5.std.rmon.rx.65-127")]);
	assert_false(w.sink.gone[harness_find(&w, "ethtool.mlx5.rx0_packets")]);
	harness_free(&w);
}

/* On the host the request is made and answered: every device listed has an answer (its
 * groups; virtio_net and veth give none), the kernel knows the groups asked for, and a
 * device that gave none is not asked again. */
static void
test_host_std(void **state)
{
	struct world w;
	json_object *o, *v;
	int64_t requests;

	(void)state;
	harness_init(&w, &source_ethtool_ops, "/");
	start(&w, NULL);
	harness_sample(&w);
	o = source_ethtool_ops.describe(&w.src);
	assert_true(json_object_object_get_ex(o, "std_method", &v));
	if (strcmp(json_object_get_string(v), "off") == 0) {
		json_object_put(o);
		harness_free(&w);
		skip();
	}
	assert_string_equal(json_object_get_string(v), "netlink ETHTOOL_MSG_STATS_GET");
	/* the four groups of 5.13, and phydev since 6.14 */
	assert_true(json_object_object_get_ex(o, "std_kernel_groups", &v));
	assert_true(strcmp(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
	                   "[\"eth-phy\",\"eth-mac\",\"eth-ctrl\",\"rmon\",\"phydev\"]") == 0 ||
	            strcmp(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
	                   "[\"eth-phy\",\"eth-mac\",\"eth-ctrl\",\"rmon\"]") == 0);
	assert_true(json_object_object_get_ex(o, "std_requests", &v));
	requests = json_object_get_int64(v);
	assert_true(requests > 0);
	json_object_put(o);
	harness_sample(&w);
	o = source_ethtool_ops.describe(&w.src);
	assert_true(json_object_object_get_ex(o, "std_groups", &v));
	{
		int64_t giving = 0;
		json_object_object_foreach(v, dev, groups)
		{
			(void)dev;
			giving += json_object_array_length(groups) > 0;
		}
		assert_true(json_object_object_get_ex(o, "std_requests", &v));
		/* the second sample asks only the devices that gave groups */
		assert_int_equal(json_object_get_int64(v), requests + giving);
	}
	json_object_put(o);
	harness_free(&w);
}

/* A kernel that refuses a group bit it does not know (EINVAL: phydev before 6.14) is asked
 * for the first four from then on. Provoked here with a sixth bit no kernel knows yet, on
 * lo: the request falls back, is answered with the four groups' nests, and stays at four. */
static void
test_host_fallback(void **state)
{
	struct ethstd_sock s;
	struct ethstd_reply r = {0};
	struct nm_error err;

	(void)state;
	if (ethstd_open(&s, &err) < 0)
		skip();
	s.ngroups = 6;
	assert_int_equal(ethstd_request(&s, "lo", &r, &err), 0);
	assert_int_equal(s.ngroups, ETHSTD_NGROUPS_OLD);
	assert_int_equal(r.listed, 0xf);
	assert_int_equal(s.requests, 2);
	assert_int_equal(ethstd_request(&s, "lo", &r, &err), 0);
	assert_int_equal(s.requests, 3);
	/* A device that does not exist: ENODEV, not a fall back. */
	s.ngroups = ETHSTD_NGROUPS;
	assert_int_equal(ethstd_request(&s, "nm-no-such0", &r, &err), -1);
	assert_int_equal(errno, ENODEV);
	assert_int_equal(s.ngroups, ETHSTD_NGROUPS);
	ethstd_reply_free(&r);
	ethstd_close(&s);
}

/* The kernel's string sets of the groups (ETHTOOL_MSG_STRSET_GET, asked on lo's behalf:
 * they are the same for every device): each group's set is given, and every name the
 * built-in table has is the kernel's at the same index (the table is the fallback, so it
 * must agree where both have a name). A kernel without set 21 (phydev, 6.14) is asked for
 * 17-20. */
static void
test_host_names(void **state)
{
	struct ethstd_sock s;
	struct ethstd_names kn = {0};
	struct nm_error err;
	uint32_t ss[ETHSTD_NGROUPS] = {17, 18, 19, 20, 21};
	unsigned ngroups = ETHSTD_NGROUPS, checked = 0;

	(void)state;
	if (ethstd_open(&s, &err) < 0)
		skip();
	if (ethstd_request_names(&s, "lo", ss, &kn, &err) < 0) {
		assert_int_equal(errno, EINVAL);
		ss[4] = 0;
		ngroups = ETHSTD_NGROUPS_OLD;
		assert_int_equal(ethstd_request_names(&s, "lo", ss, &kn, &err), 0);
	}
	assert_int_equal(kn.got, (1u << ngroups) - 1);
	for (unsigned g = 0; g < ngroups; g++) {
		assert_true(kn.count[g] > 0);
		for (uint32_t i = 0; i < kn.count[g] + 4; i++) {
			struct ethstd_stat st = {
			    .group = (uint8_t)g, .kind = ETHSTD_STAT, .index = i};
			char table[64], kernel[64];
			const char *f, *u;
			size_t fl;
			uint8_t d1, d2;
			ethstd_stat_name(&st, NULL, table, sizeof(table), &f, &fl, &d1, &u);
			ethstd_stat_name(&st, &kn, kernel, sizeof(kernel), &f, &fl, &d2, &u);
			if (strncmp(table, "stat", 4) == 0)
				continue; /* the table has no name there */
			assert_string_equal(kernel, table);
			assert_string_equal(ethstd_names_get(&kn, g, i), table);
			assert_int_equal(d1, d2);
			checked++;
		}
	}
	/* the table's names: 1 + 22 + 3 + 4 (+ 6 phydev) */
	assert_int_equal(checked, ngroups == ETHSTD_NGROUPS ? 36 : 30);
	/* A device that does not exist: ENODEV, names emptied. */
	assert_int_equal(ethstd_request_names(&s, "nm-no-such0", ss, &kn, &err), -1);
	assert_int_equal(errno, ENODEV);
	assert_int_equal(kn.got, 0);
	assert_null(ethstd_names_get(&kn, 1, 0));
	ethstd_names_free(&kn);
	ethstd_close(&s);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixtures),         cmocka_unit_test(test_names_change),
	    cmocka_unit_test(test_changed_only),     cmocka_unit_test(test_host),
	    cmocka_unit_test(test_std_groups),       cmocka_unit_test(test_host_std),
	    cmocka_unit_test(test_std_kernel_names), cmocka_unit_test(test_host_names),
	    cmocka_unit_test(test_host_fallback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
