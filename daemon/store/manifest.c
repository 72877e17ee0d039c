/* manifest.c: the host's configuration at a window's edge (manifest_read), and the two
 * edges of a result put side by side (manifest_build).
 *
 * What one edge reads, and why it is bounded: a dozen small /proc and /sys files for the
 * kernel, the CPUs (three cpufreq files per online CPU: the only part that grows with the
 * host, ~1 ms on 144 CPUs) and the sysctls; per device (at most MANIFEST_MAX_DEVICES)
 * eight ethtool ioctls, six small sysfs files and the queue files tuning.c reads (three per
 * queue), the affinity file of each of its IRQs (at most MANIFEST_MAX_IRQS), three netdev
 * netlink requests per rx queue (at most MANIFEST_MAX_NAPI_QUEUES) for its NAPI; one
 * RTM_GETQDISC dump for all devices (with each qdisc's parameters); the files of
 * /proc/sys/net (at most MANIFEST_SYSCTL_FILES, ~600-1,100 here: a few ms) against this
 * boot's snapshot (manifest-sysctl.c), at most MANIFEST_SYSCTL_CHANGED listed. It
 * runs on the results writer thread (window.c), never on the loop. Values are cut at
 * MANIFEST_VALUE_MAX bytes, so a manifest stays within tens of kilobytes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpulist.h"
#include "error.h"
#include "ethtool.h"
#include "jsonutil.h"
#include "manifest-read.h"
#include "manifest.h"
#include "napinl.h"
#include "nldump.h"
#include "tuning.h"
#include "xmalloc.h"

/* Offloads by their short name (as `ethtool -K` takes them) and the ETH_SS_FEATURES bit
 * names that make them up (any on: on). */
static const struct offload {
	const char *name;
	const char *features[3];
} offloads[] = {
    {"tso", {"tx-tcp-segmentation", "tx-tcp6-segmentation", NULL}},
    {"gso", {"tx-generic-segmentation", NULL, NULL}},
    {"gro", {"rx-gro", NULL, NULL}},
    {"lro", {"rx-lro", NULL, NULL}},
    {"gro-hw", {"rx-gro-hw", NULL, NULL}},
    {"gro-list", {"rx-gro-list", NULL, NULL}},
    {"uso", {"tx-udp-segmentation", NULL, NULL}},
    {"sg", {"tx-scatter-gather", NULL, NULL}},
    {"rx-checksum", {"rx-checksum", NULL, NULL}},
    {"tx-checksum", {"tx-checksum-ip-generic", "tx-checksum-ipv4", "tx-checksum-ipv6"}},
    {"rxhash", {"rx-hashing", NULL, NULL}},
    {"ntuple", {"rx-ntuple-filter", NULL, NULL}},
};
#define NOFFLOADS (sizeof(offloads) / sizeof(offloads[0]))

/* Cut trailing whitespace, turn runs of tabs and spaces into one space, cut at the cap. */
static void
tidy(char *s)
{
	char *w = s;
	bool space = false;

	for (char *r = s; *r != '\0'; r++) {
		if (*r == '\t' || *r == ' ' || *r == '\n') {
			space = true;
			continue;
		}
		if (space && w != s)
			*w++ = ' ';
		space = false;
		*w++ = *r;
	}
	*w = '\0';
}

/* Read ROOT/rel (rel absolute: "/proc/cmdline") into buf, tidied; -1 when it cannot be read.
 * At most size - 1 bytes: a longer file is cut. */
int
manifest_read_small(const char *root, const char *rel, char *buf, size_t size)
{
	char path[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s%s", strcmp(root, "/") == 0 ? "" : root, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	tidy(buf);
	return 0;
}

/* settings[name] = the file's value, or null. */
void
manifest_add_file(json_object *o, const char *name, const char *root, const char *rel)
{
	char buf[MANIFEST_VALUE_MAX];

	if (manifest_read_small(root, rel, buf, sizeof(buf)) == 0)
		json_add_string(o, name, buf);
	else
		json_object_object_add(o, name, NULL);
}

/* The kernel: release and command line. */
static void
read_kernel(json_object *o, const char *root)
{
	manifest_add_file(o, "kernel.release", root, "/proc/sys/kernel/osrelease");
	manifest_add_file(o, "kernel.cmdline", root, "/proc/cmdline");
}

/* Per-CPU values grouped by value: "performance" when every CPU has it, else
 * "performance (0-3); powersave (4-7)". */
#define GROUPS_MAX 16
struct groups {
	char *value[GROUPS_MAX];
	struct cpuset cpus[GROUPS_MAX];
	size_t n;
	bool more; /* a value past GROUPS_MAX was left out */
};

static void
groups_add(struct groups *g, const char *v, unsigned cpu)
{
	size_t i;

	for (i = 0; i < g->n && strcmp(g->value[i], v) != 0; i++)
		;
	if (i == g->n) {
		if (g->n == GROUPS_MAX) {
			g->more = true;
			return;
		}
		g->value[g->n] = xstrdup(v);
		cpuset_zero(&g->cpus[g->n]);
		g->n++;
	}
	cpuset_add(&g->cpus[i], cpu);
}

/* settings[name] = the groups, or null when none; frees them. */
static void
groups_put(struct groups *g, json_object *o, const char *name)
{
	char out[MANIFEST_VALUE_MAX] = "", cpus[256];
	size_t len = 0;

	if (g->n == 0) {
		json_object_object_add(o, name, NULL);
		return;
	}
	for (size_t i = 0; i < g->n; i++) {
		if (g->n == 1 && !g->more)
			len += (size_t)snprintf(out + len, sizeof(out) - len, "%s", g->value[i]);
		else {
			cpuset_format_list(&g->cpus[i], cpus, sizeof(cpus));
			len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s (%s)",
			                        i ? "; " : "", g->value[i], cpus);
		}
		if (len >= sizeof(out))
			len = sizeof(out) - 1;
		free(g->value[i]);
	}
	if (g->more && len < sizeof(out))
		snprintf(out + len, sizeof(out) - len, "; ...");
	json_add_string(o, name, out);
}

/* The CPUs: model, online set, SMT, and per CPU the cpufreq governor and limits ("cpu.cpufreq"
 * says "absent" when no CPU has cpufreq: most VMs). */
static void
read_cpus(json_object *o, const char *root)
{
	static const char *const files[] = {"scaling_governor", "scaling_min_freq",
	                                    "scaling_max_freq"};
	static const char *const names[] = {"cpu.governor", "cpu.min_freq_khz", "cpu.max_freq_khz"};
	char buf[MANIFEST_VALUE_MAX], rel[256];
	struct groups g[3];
	struct cpuset online;
	struct nm_error err;
	char *info = xmalloc(65536);

	/* Read once per root: reading /proc/cpuinfo makes x86 kernels sample every CPU's
	 * frequency, which a window's edge should not do to the benchmark it measures. The
	 * manifest is read on one thread only (the results writer). */
	static char cached_root[256], cached_model[256];
	static bool cached;

	json_object_object_add(o, "cpu.model", NULL);
	if (cached && strcmp(cached_root, root) == 0) {
		if (cached_model[0])
			json_add_string(o, "cpu.model", cached_model);
	} else if (manifest_read_small(root, "/proc/cpuinfo", info, 65536) == 0) {
		/* tidied: "model name : Intel(R) ... stepping : 7" */
		char *m = strstr(info, "model name : ");
		if (m != NULL) {
			char *end = strstr(m + 13, " stepping :");
			if (end == NULL)
				end = strstr(m + 13, " microcode :");
			if (end != NULL)
				*end = '\0';
			json_add_string(o, "cpu.model", m + 13);
		}
		snprintf(cached_root, sizeof(cached_root), "%s", root);
		snprintf(cached_model, sizeof(cached_model), "%s", m != NULL ? m + 13 : "");
		cached = true;
	}
	free(info);
	manifest_add_file(o, "cpu.smt", root, "/sys/devices/system/cpu/smt/active");
	memset(g, 0, sizeof(g));
	cpuset_zero(&online);
	if (manifest_read_small(root, "/sys/devices/system/cpu/online", buf, sizeof(buf)) == 0) {
		json_add_string(o, "cpu.online", buf);
		if (cpuset_parse_list(&online, buf, &err) < 0)
			cpuset_zero(&online);
	} else
		json_object_object_add(o, "cpu.online", NULL);
	for (int c = cpuset_nth(&online, 0), k = 0; c >= 0; c = cpuset_nth(&online, (unsigned)++k))
		for (size_t f = 0; f < 3; f++) {
			snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu%d/cpufreq/%s", c,
			         files[f]);
			if (manifest_read_small(root, rel, buf, sizeof(buf)) == 0)
				groups_add(&g[f], buf, (unsigned)c);
		}
	json_add_string(o, "cpu.cpufreq", g[0].n + g[1].n + g[2].n > 0 ? "present" : "absent");
	for (size_t f = 0; f < 3; f++)
		groups_put(&g[f], o, names[f]);
}

/* The devices of the namespace below root, loopback left out, in ifindex order (on the
 * host) or name order (a fixture root), at most MANIFEST_MAX_DEVICES; *more counts the
 * rest. */
static size_t
list_devices(const char *root, char names[][IF_NAMESIZE + 1], int *ifindex, size_t *more)
{
	size_t n = 0;

	*more = 0;
	if (strcmp(root, "/") == 0) {
		struct if_nameindex *ni = if_nameindex(), *p;
		for (p = ni; p != NULL && p->if_index != 0; p++) {
			if (strcmp(p->if_name, "lo") == 0)
				continue;
			if (n == MANIFEST_MAX_DEVICES) {
				(*more)++;
				continue;
			}
			snprintf(names[n], IF_NAMESIZE + 1, "%s", p->if_name);
			ifindex[n++] = (int)p->if_index;
		}
		if (ni != NULL)
			if_freenameindex(ni);
		return n;
	}
	char path[4096];
	struct dirent **ents;
	int k;

	snprintf(path, sizeof(path), "%s/sys/class/net", root);
	k = scandir(path, &ents, NULL, alphasort);
	for (int i = 0; i < k; i++) {
		const char *d = ents[i]->d_name;
		if (d[0] != '.' && strcmp(d, "lo") != 0 && strlen(d) <= IF_NAMESIZE) {
			if (n < MANIFEST_MAX_DEVICES) {
				snprintf(names[n], IF_NAMESIZE + 1, "%s", d);
				ifindex[n++] = 0;
			} else
				(*more)++;
		}
		free(ents[i]);
	}
	if (k >= 0)
		free(ents);
	return n;
}

/* The qdiscs of every device, "kind handle parent" joined by "; ", by ifindex. */
struct qdiscs {
	int *ifindex;
	char (*text)[MANIFEST_VALUE_MAX];
	unsigned *count;
	size_t n;
};

/* A qdisc parameter the manifest words: its netlink attribute within TCA_OPTIONS, its
 * name as tc(8) shows it, and how its u32 reads: 'u' a number, 'p' packets ("10240p"), 't'
 * microseconds ("5ms", "250us"), 'b' on/off, 'r' a rate in bytes/s (~0: "unlimited"), 'l'
 * a log2 ("1024" for 10). */
struct qopt {
	unsigned short type;
	const char *name;
	char how;
};

/* The parameters of the qdiscs a benchmark host tunes; any other kind with options gets a
 * digest of them, so that a change is still seen. */
static const struct {
	const char *kind;
	struct qopt opts[10];
} qdisc_params[] = {
    {"fq_codel",
     {{TCA_FQ_CODEL_LIMIT, "limit", 'p'},
      {TCA_FQ_CODEL_FLOWS, "flows", 'u'},
      {TCA_FQ_CODEL_TARGET, "target", 't'},
      {TCA_FQ_CODEL_INTERVAL, "interval", 't'},
      {TCA_FQ_CODEL_QUANTUM, "quantum", 'u'},
      {TCA_FQ_CODEL_ECN, "ecn", 'b'},
      {TCA_FQ_CODEL_CE_THRESHOLD, "ce_threshold", 't'},
      {TCA_FQ_CODEL_DROP_BATCH_SIZE, "drop_batch", 'u'},
      {TCA_FQ_CODEL_MEMORY_LIMIT, "memory_limit", 'u'}}},
    {"fq",
     {{TCA_FQ_PLIMIT, "limit", 'p'},
      {TCA_FQ_FLOW_PLIMIT, "flow_limit", 'p'},
      {TCA_FQ_BUCKETS_LOG, "buckets", 'l'},
      {TCA_FQ_QUANTUM, "quantum", 'u'},
      {TCA_FQ_INITIAL_QUANTUM, "initial_quantum", 'u'},
      {TCA_FQ_FLOW_MAX_RATE, "maxrate", 'r'},
      {TCA_FQ_RATE_ENABLE, "pacing", 'b'},
      {TCA_FQ_CE_THRESHOLD, "ce_threshold", 't'},
      {TCA_FQ_HORIZON, "horizon", 't'},
      {TCA_FQ_HORIZON_DROP, "horizon_drop", 'b'}}},
};

/* One parameter's value as tc words it, into buf. */
static void
qopt_format(char how, uint32_t v, char *buf, size_t size)
{
	switch (how) {
	case 'p':
		snprintf(buf, size, "%up", v);
		break;
	case 't':
		if (v % 1000 == 0)
			snprintf(buf, size, "%ums", v / 1000);
		else
			snprintf(buf, size, "%uus", v);
		break;
	case 'b':
		snprintf(buf, size, "%s", v ? "on" : "off");
		break;
	case 'r':
		if (v == UINT32_MAX)
			snprintf(buf, size, "unlimited");
		else
			snprintf(buf, size, "%ubit", v * 8);
		break;
	case 'l':
		snprintf(buf, size, "%u", v < 32 ? 1u << v : v);
		break;
	default:
		snprintf(buf, size, "%u", v);
	}
}

static uint32_t fnv1a(const void *p, size_t n);

/* The options of the qdiscs that send a struct rather than attributes, and tbf's: pfifo and
 * bfifo ("limit 1000p", "limit 10000b"), pfifo_fast ("bands 3 priomap 1 2 2 2 ..."), tbf
 * ("rate 1000000000bit limit 32768b", and a digest of all its options, its burst being in
 * scheduler ticks). True when kind is one of them. */
static bool
qdisc_struct_options(const char *kind, const struct rtattr *opt, char *out, size_t size)
{
	const void *p = RTA_DATA(opt);
	size_t n = RTA_PAYLOAD(opt), used;

	if ((strcmp(kind, "pfifo") == 0 || strcmp(kind, "bfifo") == 0) &&
	    n >= sizeof(struct tc_fifo_qopt)) {
		snprintf(out, size, "limit %u%c", ((const struct tc_fifo_qopt *)p)->limit,
		         kind[0] == 'p' ? 'p' : 'b');
		return true;
	}
	if (strcmp(kind, "pfifo_fast") == 0 && n >= sizeof(struct tc_prio_qopt)) {
		const struct tc_prio_qopt *q = p;
		used = (size_t)snprintf(out, size, "bands %d priomap", q->bands);
		for (int i = 0; i <= TC_PRIO_MAX && used < size; i++)
			used += (size_t)snprintf(out + used, size - used, " %u", q->priomap[i]);
		return true;
	}
	if (strcmp(kind, "tbf") == 0) {
		const struct tc_tbf_qopt *q = NULL;
		uint64_t rate64 = 0;
		int len = (int)n;
		for (const struct rtattr *a = p; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
			if (a->rta_type == TCA_TBF_PARMS && RTA_PAYLOAD(a) >= sizeof(*q))
				q = RTA_DATA(a);
			else if (a->rta_type == TCA_TBF_RATE64 && RTA_PAYLOAD(a) >= 8)
				memcpy(&rate64, RTA_DATA(a), 8);
		}
		used = 0;
		if (q != NULL)
			used = (size_t)snprintf(
			    out, size, "rate %llubit limit %ub ",
			    (unsigned long long)(rate64 ? rate64 : q->rate.rate) * 8, q->limit);
		if (used < size)
			snprintf(out + used, size - used, "options fnv %08x", fnv1a(p, n));
		return true;
	}
	return false;
}

/* The parameters in a qdisc's TCA_OPTIONS (opt) into out: "limit 10240p flows 1024 ...",
 * in qdisc_params' order whatever order the kernel sends them in; a kind not in
 * qdisc_params: "options fnv 1a2b3c4d"; no options: "". */
static void
qdisc_options(const char *kind, const struct rtattr *opt, char *out, size_t size)
{
	size_t used = 0, k, nk = sizeof(qdisc_params) / sizeof(qdisc_params[0]);

	out[0] = '\0';
	if (opt == NULL || RTA_PAYLOAD(opt) == 0)
		return;
	if (qdisc_struct_options(kind, opt, out, size))
		return;
	for (k = 0; k < nk && strcmp(qdisc_params[k].kind, kind) != 0; k++)
		;
	if (k == nk) {
		snprintf(out, size, "options fnv %08x", fnv1a(RTA_DATA(opt), RTA_PAYLOAD(opt)));
		return;
	}
	for (size_t i = 0; i < 10 && qdisc_params[k].opts[i].name != NULL && used < size; i++) {
		const struct qopt *q = &qdisc_params[k].opts[i];
		int len = (int)RTA_PAYLOAD(opt);
		for (const struct rtattr *a = RTA_DATA(opt); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
			char v[32];
			if ((a->rta_type & NLA_TYPE_MASK) != q->type || RTA_PAYLOAD(a) < 4)
				continue;
			qopt_format(q->how, *(const uint32_t *)RTA_DATA(a), v, sizeof(v));
			used += (size_t)snprintf(out + used, size - used, "%s%s %s",
			                         used ? " " : "", q->name, v);
			break;
		}
	}
}

/* One RTM_NEWQDISC of the dump: appended to its device's text (a reply seen twice, after
 * a retried dump, is appended once). */
static void
qdisc_reply(const struct nlmsghdr *h, void *arg)
{
	struct qdiscs *q = arg;
	const struct tcmsg *t = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*t));
	const char *kind = "?";
	const struct rtattr *opt = NULL;
	char item[400], parent[32], params[300] = "";
	size_t i;

	if (h->nlmsg_type != RTM_NEWQDISC || len < 0)
		return;
	for (const struct rtattr *a =
	         (const struct rtattr *)((const char *)t + NLMSG_ALIGN(sizeof(*t)));
	     RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == TCA_KIND)
			kind = RTA_DATA(a);
		else if (a->rta_type == TCA_OPTIONS)
			opt = a;
	}
	for (i = 0; i < q->n && q->ifindex[i] != t->tcm_ifindex; i++)
		;
	if (i == q->n)
		return;
	if (t->tcm_parent == TC_H_ROOT)
		snprintf(parent, sizeof(parent), "root");
	else if (t->tcm_parent == TC_H_INGRESS)
		snprintf(parent, sizeof(parent), "ingress");
	else
		snprintf(parent, sizeof(parent), "parent %x:%x", TC_H_MAJ(t->tcm_parent) >> 16,
		         TC_H_MIN(t->tcm_parent));
	qdisc_options(kind, opt, params, sizeof(params));
	snprintf(item, sizeof(item), "%.32s %x: %s%s%s%s", kind, TC_H_MAJ(t->tcm_handle) >> 16,
	         parent, params[0] ? " (" : "", params, params[0] ? ")" : "");
	if (strstr(q->text[i], item) != NULL)
		return;
	if (q->count[i] == MANIFEST_MAX_QDISCS) {
		if (strstr(q->text[i], "; ...") == NULL)
			strncat(q->text[i], "; ...", MANIFEST_VALUE_MAX - strlen(q->text[i]) - 1);
		return;
	}
	size_t used = strlen(q->text[i]);
	snprintf(q->text[i] + used, MANIFEST_VALUE_MAX - used, "%s%s", used ? "; " : "", item);
	q->count[i]++;
}

/* Dump the qdiscs of the devices of q; the texts stay empty when the dump fails. */
static void
read_qdiscs(struct qdiscs *q)
{
	struct {
		struct nlmsghdr h;
		struct tcmsg t;
	} req;
	struct nldump d;
	struct nm_error err;

	if (nldump_open(&d, NETLINK_ROUTE, &err) < 0)
		return;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.t));
	req.h.nlmsg_type = RTM_GETQDISC;
	req.t.tcm_family = AF_UNSPEC;
	(void)nldump_run(&d, &req.h, qdisc_reply, q, &err);
	nldump_close(&d);
}

/* One device's driver, channels, coalescing, rings and offloads (ethtool ioctls through
 * fd). */
static void
read_ethtool(json_object *o, int fd, const char *dev)
{
	const char *names[NOFFLOADS * 3];
	int state[NOFFLOADS * 3];
	struct ethtool_info info;
	struct ethtool_chan ch;
	struct ethtool_ring r;
	uint32_t co[6];
	bool coal = fd >= 0;
	char key[128], v[160];
	size_t nn = 0;

	if (fd >= 0 && ethtool_get_info(fd, dev, &info) == 0) {
		snprintf(key, sizeof(key), "device.%s.driver", dev);
		json_add_string(o, key, info.driver);
		snprintf(key, sizeof(key), "device.%s.driver_version", dev);
		json_add_string(o, key, info.version);
		snprintf(key, sizeof(key), "device.%s.firmware", dev);
		json_add_string(o, key, info.firmware);
	}
	snprintf(key, sizeof(key), "device.%s.channels", dev);
	if (fd >= 0 && ethtool_get_channels(fd, dev, &ch) == 0) {
		snprintf(v, sizeof(v), "rx %u tx %u other %u combined %u", ch.rx, ch.tx, ch.other,
		         ch.combined);
		json_add_string(o, key, v);
	} else
		json_object_object_add(o, key, NULL);
	snprintf(key, sizeof(key), "device.%s.coalesce", dev);
	for (int i = ETHTOOL_COAL_RX_USECS; coal && i <= ETHTOOL_COAL_ADAPTIVE_TX; i++)
		coal = ethtool_get_coalesce(fd, dev, (enum ethtool_coal_param)i, &co[i]) == 0;
	if (coal) {
		snprintf(v, sizeof(v),
		         "rx-usecs %u rx-frames %u tx-usecs %u tx-frames %u adaptive-rx %s "
		         "adaptive-tx %s",
		         co[ETHTOOL_COAL_RX_USECS], co[ETHTOOL_COAL_RX_FRAMES],
		         co[ETHTOOL_COAL_TX_USECS], co[ETHTOOL_COAL_TX_FRAMES],
		         co[ETHTOOL_COAL_ADAPTIVE_RX] ? "on" : "off",
		         co[ETHTOOL_COAL_ADAPTIVE_TX] ? "on" : "off");
		json_add_string(o, key, v);
	} else
		json_object_object_add(o, key, NULL);
	snprintf(key, sizeof(key), "device.%s.rings", dev);
	if (fd >= 0 && ethtool_get_rings(fd, dev, &r) == 0) {
		snprintf(v, sizeof(v), "rx %u tx %u", r.rx, r.tx);
		json_add_string(o, key, v);
	} else
		json_object_object_add(o, key, NULL);
	for (size_t i = 0; i < NOFFLOADS; i++)
		for (size_t k = 0; k < 3 && offloads[i].features[k] != NULL; k++)
			names[nn++] = offloads[i].features[k];
	if (fd < 0 || ethtool_get_features(fd, dev, names, nn, state) < 0)
		return;
	nn = 0;
	for (size_t i = 0; i < NOFFLOADS; i++) {
		int on = -1;
		for (size_t k = 0; k < 3 && offloads[i].features[k] != NULL; k++, nn++)
			if (state[nn] >= 0)
				on = on > 0 ? on : state[nn];
		if (on < 0)
			continue; /* the device has no such feature */
		snprintf(key, sizeof(key), "device.%s.offload.%s", dev, offloads[i].name);
		json_add_string(o, key, on ? "on" : "off");
	}
}

#define RSS_INDIR_MAX 4096
#define RSS_KEY_MAX   256
#define RSS_QUEUES    16 /* queues whose share of the table is listed */

/* FNV-1a of n bytes: a short name for a table or key too long to keep. */
static uint32_t
fnv1a(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

/* The RSS hash function and table in a line: "toeplitz, 128 entries over queues 0-3 (32 32
 * 32 32), table fnv 1a2b3c4d, key 40 bytes fnv 5e6f7a8b"; null when the device has none. */
static void
read_rss(json_object *o, int fd, const char *dev)
{
	uint32_t *indir = xcalloc(RSS_INDIR_MAX, sizeof(uint32_t)), n = 0, nk = 0, top = 0;
	uint8_t key[RSS_KEY_MAX], hf = 0;
	unsigned count[RSS_QUEUES] = {0};
	char key_name[128], v[MANIFEST_VALUE_MAX];
	size_t len;

	snprintf(key_name, sizeof(key_name), "device.%s.rss", dev);
	if (fd < 0 ||
	    ethtool_get_rss(fd, dev, indir, RSS_INDIR_MAX, &n, key, RSS_KEY_MAX, &nk, &hf) < 0 ||
	    n == 0) {
		json_object_object_add(o, key_name, NULL);
		free(indir);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (indir[i] < RSS_QUEUES)
			count[indir[i]]++;
		if (indir[i] > top)
			top = indir[i];
	}
	len = (size_t)snprintf(v, sizeof(v), "%s, %u entries over queues 0-%u (",
	                       hf & 1   ? "toeplitz"
	                       : hf & 2 ? "xor"
	                       : hf & 4 ? "crc32"
	                                : "unknown hash",
	                       n, top);
	for (uint32_t q = 0; q <= top && q < RSS_QUEUES && len < sizeof(v); q++)
		len += (size_t)snprintf(v + len, sizeof(v) - len, "%s%u", q ? " " : "", count[q]);
	if (len < sizeof(v))
		snprintf(v + len, sizeof(v) - len, "%s), table fnv %08x, key %u bytes fnv %08x",
		         top >= RSS_QUEUES ? " ..." : "", fnv1a(indir, n * sizeof(uint32_t)), nk,
		         fnv1a(key, nk));
	json_add_string(o, key_name, v);
	free(indir);
}

/* One device's sysfs settings: MTU, NUMA node, NAPI. */
static void
read_sysfs(json_object *o, const char *root, const char *dev)
{
	static const char *const files[][2] = {
	    {"mtu", "mtu"},
	    {"numa_node", "device/numa_node"},
	    {"napi.gro_flush_timeout", "gro_flush_timeout"},
	    {"napi.napi_defer_hard_irqs", "napi_defer_hard_irqs"},
	    {"napi.threaded", "threaded"},
	};
	char key[128], rel[256];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(key, sizeof(key), "device.%s.%s", dev, files[i][0]);
		snprintf(rel, sizeof(rel), "/sys/class/net/%s/%s", dev, files[i][1]);
		manifest_add_file(o, key, root, rel);
	}
}

/* The RPS, RFS and XPS of each device as tuning.c records them, and irqbalance. */
static void
read_tuning(json_object *o, const char *root, char names[][IF_NAMESIZE + 1], size_t n)
{
	const char *devs[MANIFEST_MAX_DEVICES];
	bool irqbalance = false;
	json_object *arr;
	char key[128];

	for (size_t i = 0; i < n; i++)
		devs[i] = names[i];
	arr = tuning_devices_read(root, devs, n, &irqbalance);
	json_add_string(o, "host.irqbalance", irqbalance ? "running" : "not running");
	for (size_t i = 0; arr != NULL && i < json_object_array_length(arr); i++) {
		json_object *d = json_object_array_get_idx(arr, i);
		const char *dev = json_get_string(d, "name", "?");
		json_object_object_foreach(d, k, v)
		{
			/* Only the queue counts and RPS, RFS, XPS: the NIC knobs tuning.c records
			 * too (channels, rings, coalesce, offloads, napi) the manifest reads
			 * itself, setting by setting (read_ethtool, the NAPI files). */
			static const char *const kept[] = {"rx_queues", "tx_queues", "rps_queues",
			                                   "flow_cnt", "xps_queues"};
			bool take = false;
			for (size_t j = 0; j < sizeof(kept) / sizeof(kept[0]); j++)
				take = take || strcmp(k, kept[j]) == 0;
			if (!take)
				continue;
			snprintf(key, sizeof(key), "device.%s.%s", dev, k);
			if (v == NULL)
				json_object_object_add(o, key, NULL);
			else
				json_add_string(o, key, json_object_get_string(v));
		}
	}
	json_object_put(arr);
}

/* tuned's active profile (its file), or null when tuned is not installed. */
static void
read_host(json_object *o, const char *root)
{
	manifest_add_file(o, "host.tuned_profile", root, "/etc/tuned/active_profile");
}

/* The affinity of a device's IRQs (its MSI vectors: device/msi_irqs, or the parent's for a
 * virtio device), grouped by value: "0-1" when all share it, else "0 (irqs 24-25); 1 (irqs
 * 26-27)"; null when the device lists none (veth). At most MANIFEST_MAX_IRQS IRQs. */
static void
read_irq_affinity(json_object *o, const char *root, const char *dev)
{
	static const char *const dirs[] = {"device/msi_irqs", "device/../msi_irqs"};
	char path[4096], key[128], rel[128], buf[MANIFEST_VALUE_MAX];
	struct groups g = {0};
	size_t nirq = 0;

	snprintf(key, sizeof(key), "device.%s.irq_affinity", dev);
	for (size_t d = 0; d < 2 && nirq == 0; d++) {
		struct dirent **ents;
		int k;
		snprintf(path, sizeof(path), "%s/sys/class/net/%s/%s",
		         strcmp(root, "/") == 0 ? "" : root, dev, dirs[d]);
		/* In name order: the groups come out the same way each time. */
		if ((k = scandir(path, &ents, NULL, alphasort)) < 0)
			continue;
		for (int i = 0; i < k; i++) {
			char *end;
			const char *nm = ents[i]->d_name;
			unsigned long irq = strtoul(nm, &end, 10);
			if (nirq < MANIFEST_MAX_IRQS && nm[0] >= '0' && nm[0] <= '9' &&
			    *end == '\0' && irq < CPUSET_MAX_CPUS) {
				snprintf(rel, sizeof(rel), "/proc/irq/%lu/smp_affinity_list", irq);
				if (manifest_read_small(root, rel, buf, sizeof(buf)) == 0) {
					groups_add(&g, buf, (unsigned)irq);
					nirq++;
				}
			}
			free(ents[i]);
		}
		free(ents);
	}
	/* groups_put words the members as CPUs: here they are IRQs. */
	if (g.n <= 1) {
		groups_put(&g, o, key);
		return;
	}
	char out[MANIFEST_VALUE_MAX] = "", irqs[256];
	size_t len = 0;
	for (size_t i = 0; i < g.n; i++) {
		cpuset_format_list(&g.cpus[i], irqs, sizeof(irqs));
		if (len < sizeof(out))
			len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s (irqs %s)",
			                        i ? "; " : "", g.value[i], irqs);
		free(g.value[i]);
	}
	if (g.more && len < sizeof(out))
		snprintf(out + len, sizeof(out) - len, "; ...");
	json_add_string(o, key, out);
}

/* The settings of the NAPI instances polling a device's rx queues (netdev netlink queue-get
 * and napi-get, kernel 6.13+), grouped by value: "defer-hard-irqs 0 gro-flush-timeout 0 (rx
 * 0-3)", groups joined by "; "; null when no rx queue is linked to a NAPI (veth without
 * GRO, a driver that links none, an older kernel). At most MANIFEST_MAX_NAPI_QUEUES rx
 * queues (those of /sys/class/net/DEV/queues). */
static void
read_napi(json_object *o, struct napinl *nl, const char *dev, int ifindex)
{
	char path[300], key[128], v[128], out[MANIFEST_VALUE_MAX] = "", qs[256];
	struct groups g = {0};
	struct dirent **ents;
	struct nm_error err;
	unsigned nq = 0;
	size_t len = 0;
	int k;

	snprintf(key, sizeof(key), "device.%s.napi_instances", dev);
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", dev);
	if ((k = scandir(path, &ents, NULL, NULL)) >= 0) {
		for (int i = 0; i < k; i++) {
			nq += strncmp(ents[i]->d_name, "rx-", 3) == 0;
			free(ents[i]);
		}
		free(ents);
	}
	for (unsigned q = 0; nl != NULL && q < nq && q < MANIFEST_MAX_NAPI_QUEUES; q++) {
		uint32_t id;
		uint64_t defer, gro;
		if (napinl_rx_napi(nl, ifindex, q, &id, &err) < 0 ||
		    napinl_get(nl, id, NAPINL_DEFER_HARD_IRQS, &defer, &err) < 0 ||
		    napinl_get(nl, id, NAPINL_GRO_FLUSH_TIMEOUT, &gro, &err) < 0)
			continue;
		snprintf(v, sizeof(v), "defer-hard-irqs %llu gro-flush-timeout %llu",
		         (unsigned long long)defer, (unsigned long long)gro);
		groups_add(&g, v, q);
	}
	if (g.n == 0) {
		json_object_object_add(o, key, NULL);
		return;
	}
	for (size_t i = 0; i < g.n; i++) {
		cpuset_format_list(&g.cpus[i], qs, sizeof(qs));
		if (len < sizeof(out))
			len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s (rx %s)",
			                        i ? "; " : "", g.value[i], qs);
		free(g.value[i]);
	}
	if (g.more && len < sizeof(out))
		snprintf(out + len, sizeof(out) - len, "; ...");
	json_add_string(o, key, out);
}

json_object *
manifest_read(const char *root, const char *state_dir)
{
	json_object *o = json_object_new_object();
	char names[MANIFEST_MAX_DEVICES][IF_NAMESIZE + 1];
	int ifindex[MANIFEST_MAX_DEVICES];
	unsigned count[MANIFEST_MAX_DEVICES] = {0};
	char(*text)[MANIFEST_VALUE_MAX];
	bool host = strcmp(root, "/") == 0;
	struct nm_error err;
	size_t n, more;
	int fd = -1;
	char key[128];
	struct napinl napi, *nl = NULL;

	read_kernel(o, root);
	read_cpus(o, root);
	manifest_sysctls_fixed(o, root);
	manifest_sysctls_changed(o, root, state_dir);
	read_host(o, root);
	n = list_devices(root, names, ifindex, &more);
	if (more > 0)
		json_add_uint(o, "host.devices_left_out", more);
	text = xcalloc(MANIFEST_MAX_DEVICES, sizeof(*text));
	if (host) {
		struct qdiscs q = {ifindex, text, count, n};
		fd = ethtool_socket(&err);
		read_qdiscs(&q);
		if (napinl_open(&napi, &err) == 0)
			nl = &napi;
	}
	for (size_t i = 0; i < n; i++) {
		read_ethtool(o, fd, names[i]);
		read_rss(o, fd, names[i]);
		read_sysfs(o, root, names[i]);
		read_irq_affinity(o, root, names[i]);
		if (host)
			read_napi(o, nl, names[i], ifindex[i]);
		snprintf(key, sizeof(key), "device.%s.qdisc", names[i]);
		if (text[i][0] != '\0')
			json_add_string(o, key, text[i]);
		else
			json_object_object_add(o, key, NULL);
	}
	free(text);
	if (fd >= 0)
		close(fd);
	if (nl != NULL)
		napinl_close(nl);
	read_tuning(o, root, names, n);
	return o;
}
