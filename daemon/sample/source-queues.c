/* source-queues.c: per-queue packets and bytes of every device,
 * `queue.<ifname>.rx<N>.packets|bytes` and `queue.<ifname>.tx<N>.packets|bytes`.
 *
 * First choice is the netdev generic netlink family's qstats-get, dumped once per sample for
 * all devices with the queue scope. It also gives drop, checksum and GRO/GSO counters, kept
 * as `queue.<ifname>.rx<N>.<attribute>` with the attribute's name from netdev.yaml,
 * '-' made '_' (queue.eth0.rx0.rx_alloc_fail). A device that has answered qstats once stays
 * on it. The others fall back to their `ethtool -S` counters read through the driver name
 * patterns of qpattern.c; a device none of whose counters fits a pattern is read again only
 * a minute later (QUEUES_RECHECK_NS), in case its driver changes its names.
 *
 * A device with neither (veth: no qstats, and its ethtool queue counters count XDP only)
 * may still have per-tx-queue counts: those of an mq root qdisc's classes. mq's class :N
 * is tx queue N-1, and its statistics are those of the qdisc of that queue (every packet
 * sent on it). They are dumped with RTM_GETTCLASS for the device (what `tc -s class show
 * dev DEV` prints), bytes and packets from TCA_STATS2 (TCA_STATS_BASIC, TCA_STATS_PKT64
 * past 2^32 packets) or the old TCA_STATS, read in place like the qstats replies: libnl's
 * class cache would allocate per class and sample. `queue.<ifname>.tx<N>.packets|bytes`
 * again; no rx queues. A device without mq classes is asked again a minute later.
 * These rechecks, and the count of a device's queues, go by the sample's time, not by
 * samples: a fine cadence (sampler.h) would do them 100 times as often.
 * source_queues_devices says, per device, where its figures come from, or why there are
 * none.
 *
 * [source.queues] options:
 *	devices = GLOB ...		the devices to read (default: all but lo)
 *	pattern = DIR KIND TERM ...	a driver convention tried before the built-ins
 *					(syntax in qpattern.c); may be repeated
 *	builtin-patterns = no		use only the configured patterns
 *
 * Under a fixture root there is no netlink: devices are DIR/ethtool/DEV.txt and their queues
 * come from those files through the patterns.
 *
 * The device listing and the `ethtool -S` counters come from the devlist the sampler shares
 * with the ethtool source (devlist.h): on the host one SIOCETHTOOL GSTATS per device, under a
 * fixture root the DEV.txt file kept open and read with one pread. When both sources sample
 * at the same time the second one takes the first one's listing and reads. The counters are
 * used whole (each queue's sums are made afresh), so any current read will do. */
#include <linux/gen_stats.h>
#include <linux/genetlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "devlist.h"
#include "error.h"
#include "ethtool.h"
#include "log.h"
#include "napitable.h"
#include "nldump.h"
#include "qpattern.h"
#include "source-queues.h"
#include "source.h"
#include "xmalloc.h"

/* The netdev family (Debian 12's uapi headers predate it). */
#define NETDEV_FAMILY_NAME        "netdev"
#define NETDEV_CMD_QSTATS_GET     12
#define NETDEV_A_QSTATS_IFINDEX   1
#define NETDEV_A_QSTATS_QTYPE     2
#define NETDEV_A_QSTATS_QID       3
#define NETDEV_A_QSTATS_SCOPE     4
#define NETDEV_QSTATS_SCOPE_QUEUE 1
#define QSTATS_FIRST              8  /* NETDEV_A_QSTATS_RX_PACKETS */
#define QSTATS_LAST               34 /* NETDEV_A_QSTATS_TX_WAKE, 6.18 */
#define QSTATS_N                  (QSTATS_LAST - QSTATS_FIRST + 1)

/* Series suffix of each qstats attribute from QSTATS_FIRST; packets and bytes of both
 * directions share a name because the queue part says rx or tx. */
static const char *const qstats_names[QSTATS_N] = {
    "packets",                /* 8 rx-packets */
    "bytes",                  /* 9 rx-bytes */
    "packets",                /* 10 tx-packets */
    "bytes",                  /* 11 tx-bytes */
    "rx_alloc_fail",          /* 12 */
    "rx_hw_drops",            /* 13 */
    "rx_hw_drop_overruns",    /* 14 */
    "rx_csum_complete",       /* 15 */
    "rx_csum_unnecessary",    /* 16 */
    "rx_csum_none",           /* 17 */
    "rx_csum_bad",            /* 18 */
    "rx_hw_gro_packets",      /* 19 */
    "rx_hw_gro_bytes",        /* 20 */
    "rx_hw_gro_wire_packets", /* 21 */
    "rx_hw_gro_wire_bytes",   /* 22 */
    "rx_hw_drop_ratelimits",  /* 23 */
    "tx_hw_drops",            /* 24 */
    "tx_hw_drop_errors",      /* 25 */
    "tx_csum_none",           /* 26 */
    "tx_needs_csum",          /* 27 */
    "tx_hw_gso_packets",      /* 28 */
    "tx_hw_gso_bytes",        /* 29 */
    "tx_hw_gso_wire_packets", /* 30 */
    "tx_hw_gso_wire_bytes",   /* 31 */
    "tx_hw_drop_ratelimits",  /* 32 */
    "tx_stop",                /* 33 */
    "tx_wake",                /* 34 */
};

/* How stale the NAPI table may be when no device or queue changed: its settings. */
#define NAPI_REFRESH_NS (5ull * 1000000000ull)

/* queue-get and napi-get (KERNEL-NOTES.md, "NAPI through netdev netlink"). */
#define NETDEV_CMD_QUEUE_GET              10
#define NETDEV_CMD_NAPI_GET               11
#define NETDEV_A_QUEUE_ID                 1
#define NETDEV_A_QUEUE_IFINDEX            2
#define NETDEV_A_QUEUE_TYPE               3
#define NETDEV_A_QUEUE_NAPI_ID            4
#define NETDEV_A_NAPI_IFINDEX             1
#define NETDEV_A_NAPI_ID                  2
#define NETDEV_A_NAPI_IRQ                 3
#define NETDEV_A_NAPI_PID                 4
#define NETDEV_A_NAPI_DEFER_HARD_IRQS     5
#define NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT   6
#define NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT 7
#define NETDEV_A_NAPI_THREADED            8

#define QUEUES_RECHECK_NS (60ull * 1000000000ull)

/* The slot of a queue's hardware drops (qstats rx-hw-drops, tx-hw-drops). */
#define DROP_SLOT(dir) ((dir) == QUEUE_RX ? 13 - QSTATS_FIRST : 24 - QSTATS_FIRST)

/* The slot in a queue's ids of packets/bytes for dir: that of the qstats attribute. */
#define SLOT(dir, kind) ((dir) == QUEUE_RX ? 0 + (kind) : 2 + (kind))

struct queues_opts {
	struct devlist_filter filter;
	struct qpattern_table patterns; /* configured ones, tried first */
	bool no_builtin;
};

struct qqueue {
	bool present;
	unsigned seen;          /* sample generation that last reported it */
	unsigned sumgen;        /* ethtool: generation the sums are of */
	series_id id[QSTATS_N]; /* by attribute - QSTATS_FIRST */
	uint64_t sum[2];        /* ethtool: packets, bytes */
	bool have[2];
	uint64_t put[2]; /* ethtool: the sums last put; an unchanged sum is not put again (the
	                    sink keeps it), as an idle port's queues are on most samples */
	bool have_put[2];
};

enum qdev_via { VIA_NONE = 0, VIA_QSTATS, VIA_ETHTOOL, VIA_TCCLASS };

/* One sum of an ethtool device's fold plan: a queue's packets or bytes. */
struct qfold {
	struct qqueue *q;
	series_id id; /* q->id of the slot, SERIES_NONE until put_slot makes it */
	uint32_t index;
	uint8_t dir, kind;
	bool have_put; /* q->have_put[kind] and q->put[kind] while the plan holds */
	uint64_t put;
};

/* What sample_ethtool's fold does each sample for a device whose counters, queues and
 * channel count did not change, made from one fold done the plain way: each counter's sum
 * (hitfold), the sums in the order they are put, with their queue, series and last value put
 * (fold), so that a sample reads the counters and a few dense arrays, not the queues (168
 * bytes each, a cache miss each on a 144-queue device, three times a sample). */
struct qplan {
	bool ok;
	struct qfold *fold;
	size_t nfold, capfold;
	uint32_t *hitfold; /* [hit]: its sum, or QPLAN_NONE (a slot of the driver's table) */
	size_t caphitfold;
	uint64_t *sum; /* [nfold] */
};

#define QPLAN_NONE UINT32_MAX

/* Tests: fold every sample the plain way (the plan's results are checked against it). */
bool source_queues_no_plan;

/* Where a device's queue figures come from, by enum qdev_via (queue_info.counters). */
static const char *const via_names[] = {"none", "qstats", "ethtool", "mq-class"};

struct qdev {
	char name[DEVLIST_NAME_MAX];
	struct devlist_status ds; /* ds.nostats: ethtool gives no statistics, or a loopback */

	int ifindex;         /* 0 when unknown (fixture root) */
	unsigned answered;   /* sample generation that last read its queues */
	enum qdev_via via;   /* VIA_QSTATS is for good */
	uint64_t next_read;  /* ethtool without queue counters: sample time to retry */
	unsigned hits_names; /* the devlist entry's names stamp the hits were mapped for */
	struct qpattern_hit *hits;
	size_t nhits, caphits;
	struct qqueue *q[2]; /* by direction, indexed by queue number */
	size_t nq[2];
	char driver[32];  /* the ethtool driver name, "" when unknown */
	const char *note; /* what its ethtool queue figures lack (qpattern_driver.note), or NULL */
	int nreal[2];     /* rx, tx queues the device has now (its queues/ directory); -1 unknown */
	uint64_t next_count; /* sample time to count them again */
	uint64_t next_tc;    /* no mq classes: sample time to ask again */
	struct qplan plan;   /* ethtool: the fold, while the layout holds */
	uint64_t seq;        /* ethtool: the devlist entry's read the last fold took (its seq) */
	char why[320];       /* source_queues_devices: where the figures come from, or why none */
};

struct queues_state {
	struct devlist *dl;  /* the sampler's, or own */
	struct devlist *own; /* made when the source has no sampler's devlist */
	struct nldump nl;
	int family; /* netdev family id; 0 when qstats are not to be asked */
	int fd;     /* ethtool socket on the host, else -1 */
	struct qpattern_table pats;
	struct qdev **devs;
	size_t ndevs, capdevs;
	size_t hint;
	struct qdev *last; /* qstats replies come grouped by device */
	int *ignored;      /* ifindexes of devices not listed or filtered out */
	size_t nignored, capignored;
	unsigned gen;
	struct queue_info *info;
	size_t ninfo, capinfo;
	struct queue_dev *notes; /* source_queues_devices */
	size_t capnotes;
	struct nldump rt;        /* NETLINK_ROUTE, for mq classes; opened when first needed */
	bool rt_open, rt_off;    /* rt_off: it could not be opened */
	struct qdev *tc_dev;     /* the device of the class dump under way */
	unsigned tc_found;       /* mq classes it gave */
	bool layout_changed;     /* info must be rebuilt at the end of the sample */
	struct napi_table *napi; /* the sampler's (source.napitab), or own_napi */
	struct napi_table own_napi;
	bool napi_off;    /* queue-get refused: not asked again */
	uint64_t napi_ns; /* the sample time of the last NAPI dump; 0: none yet */
	/* during a sample */
	struct source *src;
	struct sink *sink;
};

/* Give d's queues back what its plan put and forget the plan: the queues change (or may
 * move), or the counters do. */
static void
plan_drop(struct qdev *d)
{
	struct qplan *pl = &d->plan;

	if (!pl->ok)
		return;
	for (size_t j = 0; j < pl->nfold; j++) {
		pl->fold[j].q->have_put[pl->fold[j].kind] = pl->fold[j].have_put;
		pl->fold[j].q->put[pl->fold[j].kind] = pl->fold[j].put;
	}
	pl->ok = false;
}

/* Free d's plan (d is being freed: nothing to give back). */
static void
plan_free(struct qdev *d)
{
	free(d->plan.fold);
	free(d->plan.hitfold);
	free(d->plan.sum);
	memset(&d->plan, 0, sizeof(d->plan));
}

/* get_queue for a queue not yet known: grow d's array, mark it present. */
static __attribute__((noinline)) struct qqueue *
add_queue(struct queues_state *st, struct qdev *d, unsigned dir, uint32_t index)
{
	struct qqueue *q;

	if (dir > QUEUE_TX || index > QPATTERN_MAX_QUEUE)
		return NULL;
	plan_drop(d);
	if (index >= d->nq[dir]) {
		size_t n = d->nq[dir] ? d->nq[dir] : 4;
		while (n <= index)
			n *= 2;
		d->q[dir] = xreallocarray(d->q[dir], n, sizeof(*d->q[dir]));
		memset(d->q[dir] + d->nq[dir], 0, (n - d->nq[dir]) * sizeof(*d->q[dir]));
		d->nq[dir] = n;
	}
	q = &d->q[dir][index];
	if (!q->present) {
		q->present = true;
		for (int i = 0; i < QSTATS_N; i++)
			q->id[i] = SERIES_NONE;
		st->layout_changed = true;
	}
	return q;
}

/* The queue dir/index of d, created when new; NULL for an absurd index. Called for every
 * counter of every queue each sample: the known queue is found inline. */
static inline struct qqueue *
get_queue(struct queues_state *st, struct qdev *d, unsigned dir, uint32_t index)
{
	if (dir <= QUEUE_TX && index < d->nq[dir] && d->q[dir][index].present)
		return &d->q[dir][index];
	return add_queue(st, d, dir, index);
}

/* Put value into queue q's series for attribute slot (created on first use). */
static void
put_slot(struct queues_state *st, struct qdev *d, unsigned dir, uint32_t index, struct qqueue *q,
         int slot, uint64_t value)
{
	struct source *src = st->src;
	const char *name = qstats_names[slot];

	if (q->id[slot] == SERIES_NONE) {
		const char *unit;
		size_t len = strlen(name);
		struct series_labels l = source_labels(src);
		if (len >= 5 && strcmp(name + len - 5, "bytes") == 0)
			unit = "bytes";
		else if (len >= 7 && strcmp(name + len - 7, "packets") == 0)
			unit = "packets";
		else
			unit = series_unit_guess(name, len, false);
		l.device = source_atom(src, d->name, strlen(d->name));
		l.queue = (int32_t)index;
		l.dir = dir == QUEUE_RX ? SERIES_DIR_RX : SERIES_DIR_TX;
		l.field = source_atom(src, name, len);
		q->id[slot] = series_internf(src->reg, SERIES_COUNTER, src->index, unit, 1.0, &l,
		                             "queue.%s.%s%u.%s", d->name,
		                             dir == QUEUE_RX ? "rx" : "tx", index, name);
		if (slot < 4 || slot == DROP_SLOT(dir))
			st->layout_changed = true;
	}
	sink_put(st->sink, q->id[slot], value);
}

/* Forget queue q, telling the sink its series are gone. */
static void
drop_queue(struct queues_state *st, struct qqueue *q)
{
	if (st->sink != NULL)
		for (int i = 0; i < QSTATS_N; i++)
			if (q->id[i] != SERIES_NONE)
				sink_gone(st->sink, q->id[i]);
	memset(q, 0, sizeof(*q));
	st->layout_changed = true;
}

/* Forget every queue of d. */
static void
drop_queues(struct queues_state *st, struct qdev *d)
{
	plan_drop(d);
	for (unsigned dir = 0; dir < 2; dir++)
		for (size_t i = 0; i < d->nq[dir]; i++)
			if (d->q[dir][i].present)
				drop_queue(st, &d->q[dir][i]);
}

/* Forget d and its queues. */
static void
drop_dev(struct queues_state *st, struct qdev *d)
{
	drop_queues(st, d);
	plan_free(d);
	free(d->hits);
	free(d->q[0]);
	free(d->q[1]);
	free(d);
	st->layout_changed = true;
	st->nignored = 0; /* the list of indexes would only grow with deleted devices */
}

/* The device named name, created if new. */
static struct qdev *
find_dev(struct queues_state *st, const char *name)
{
	bool created, loopback = false;
	struct qdev *d =
	    DEVLIST_FIND_DEV(st->devs, st->ndevs, st->capdevs, st->hint, name, &created);

	if (!created)
		return d;
	if (st->fd >= 0 && ethtool_ifindex(st->fd, name, &d->ifindex, &loopback) < 0)
		d->ifindex = 0;
	if (st->fd >= 0 && ethtool_driver(st->fd, name, d->driver, sizeof(d->driver)) < 0)
		d->driver[0] = '\0';
	d->ds.nostats = loopback;
	st->nignored = 0; /* an index ignored so far may be this device's */
	return d;
}

/* devlist_scan callback: mark a listed device that passes the filter. */
static void
on_device(const char *name, void *arg)
{
	struct queues_state *st = arg;
	struct queues_opts *o = st->src->opts;

	if (devlist_filter_match(o ? &o->filter : NULL, name))
		find_dev(st, name)->ds.seen = st->gen;
}

/* The listed device with this ifindex, or NULL. An unknown ifindex is looked up by name
 * once: a device deleted and created again keeps its name but not its index. */
static struct qdev *
dev_by_ifindex(struct queues_state *st, int ifindex)
{
	char name[DEVLIST_NAME_MAX];

	if (st->last != NULL && st->last->ifindex == ifindex)
		return st->last;
	for (size_t i = 0; i < st->ndevs; i++)
		if (st->devs[i]->ifindex == ifindex && st->devs[i]->ds.seen == st->gen)
			return st->last = st->devs[i];
	for (size_t i = 0; i < st->nignored; i++)
		if (st->ignored[i] == ifindex)
			return NULL;
	if (ethtool_ifname(st->fd, ifindex, name, sizeof(name)) == 0)
		for (size_t i = 0; i < st->ndevs; i++)
			if (strcmp(st->devs[i]->name, name) == 0 &&
			    st->devs[i]->ds.seen == st->gen) {
				st->devs[i]->ifindex = ifindex;
				return st->last = st->devs[i];
			}
	if (st->nignored == st->capignored) {
		st->capignored = st->capignored ? st->capignored * 2 : 16;
		st->ignored = xreallocarray(st->ignored, st->capignored, sizeof(*st->ignored));
	}
	st->ignored[st->nignored++] = ifindex;
	return NULL;
}

/* Read one attribute as an unsigned number (4 or 8 bytes); false otherwise. */
static bool
attr_uint(const struct nlattr *a, uint64_t *v)
{
	uint32_t v32;

	switch (nla_len(a)) {
	case 4:
		memcpy(&v32, nla_data(a), 4);
		*v = v32;
		return true;
	case 8:
		memcpy(v, nla_data(a), 8);
		return true;
	default:
		return false;
	}
}

/* One qstats-get reply: the counters of one queue of one device. */
static void
on_qstats(const struct nlmsghdr *h, void *arg)
{
	struct queues_state *st = arg;
	const struct nlattr *a, *vals[QSTATS_N] = {NULL};
	uint64_t ifindex = 0, type = 2, qid = UINT64_MAX, v;
	struct qdev *d;
	struct qqueue *q;
	int rem, t;

	if (h->nlmsg_type != st->family || h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return;
	nla_for_each_attr(a, nlmsg_attrdata(h, GENL_HDRLEN), nlmsg_attrlen(h, GENL_HDRLEN), rem)
	{
		t = nla_type(a);
		if (t == NETDEV_A_QSTATS_IFINDEX)
			attr_uint(a, &ifindex);
		else if (t == NETDEV_A_QSTATS_QTYPE)
			attr_uint(a, &type);
		else if (t == NETDEV_A_QSTATS_QID)
			attr_uint(a, &qid);
		else if (t >= QSTATS_FIRST && t <= QSTATS_LAST)
			vals[t - QSTATS_FIRST] = a;
	}
	if (ifindex == 0 || ifindex > INT32_MAX || type > QUEUE_TX || qid > QPATTERN_MAX_QUEUE)
		return;
	d = dev_by_ifindex(st, (int)ifindex);
	if (d == NULL)
		return; /* filtered out, or appeared after the listing */
	if (d->via != VIA_QSTATS) {
		/* Series fed from ethtool until now: start them afresh from qstats. */
		drop_queues(st, d);
		d->via = VIA_QSTATS;
	}
	d->answered = st->gen;
	q = get_queue(st, d, (unsigned)type, (uint32_t)qid);
	if (q == NULL)
		return;
	q->seen = st->gen;
	for (int i = 0; i < QSTATS_N; i++)
		if (vals[i] != NULL && attr_uint(vals[i], &v))
			put_slot(st, d, (unsigned)type, (uint32_t)qid, q, i, v);
}

/* Dump qstats of every device; 0 or -1 with err (qstats are then off when unsupported). */
static int
sample_qstats(struct queues_state *st, struct nm_error *err)
{
	struct {
		struct nlmsghdr h;
		struct genlmsghdr g;
		struct nlattr a;
		uint32_t scope;
	} req;
	struct nm_error e;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = (uint16_t)st->family;
	req.g.cmd = NETDEV_CMD_QSTATS_GET;
	req.g.version = 1;
	req.a.nla_len = NLA_HDRLEN + sizeof(req.scope);
	req.a.nla_type = NETDEV_A_QSTATS_SCOPE;
	req.scope = NETDEV_QSTATS_SCOPE_QUEUE;
	st->last = NULL;
	if (nldump_run(&st->nl, &req.h, on_qstats, st, &e) == 0)
		return 0;
	if (e.code == NM_ERR_UNSUPPORTED) {
		log_info("source queues: qstats unsupported here, using ethtool counters");
		st->family = 0;
		return 0;
	}
	return nm_error_set(err, e.code, "source queues: qstats: %s", e.message);
}

/* The name of the device with this ifindex: a listed one's, else asked (SIOCGIFNAME); false
 * when it is gone. */
static bool
ifindex_name(struct queues_state *st, int ifindex, char *buf, size_t size)
{
	for (size_t i = 0; i < st->ndevs; i++)
		if (st->devs[i]->ifindex == ifindex) {
			snprintf(buf, size, "%s", st->devs[i]->name);
			return true;
		}
	return ethtool_ifname(st->fd, ifindex, buf, size) == 0;
}

/* One queue-get reply: a queue and the NAPI it is linked to. */
static void
on_queue(const struct nlmsghdr *h, void *arg)
{
	struct queues_state *st = arg;
	struct napi_queue q = {.ifindex = 0};
	uint64_t ifindex = 0, type = 2, id = UINT64_MAX, napi = 0;
	const struct nlattr *a;
	int rem, t;

	if (h->nlmsg_type != st->family || h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return;
	nla_for_each_attr(a, nlmsg_attrdata(h, GENL_HDRLEN), nlmsg_attrlen(h, GENL_HDRLEN), rem)
	{
		t = nla_type(a);
		if (t == NETDEV_A_QUEUE_IFINDEX)
			attr_uint(a, &ifindex);
		else if (t == NETDEV_A_QUEUE_TYPE)
			attr_uint(a, &type);
		else if (t == NETDEV_A_QUEUE_ID)
			attr_uint(a, &id);
		else if (t == NETDEV_A_QUEUE_NAPI_ID)
			attr_uint(a, &napi);
	}
	/* Other types (xsk) and absurd numbers are not ours. */
	if (ifindex == 0 || ifindex > INT32_MAX || type > QUEUE_TX || id > QPATTERN_MAX_QUEUE ||
	    napi > UINT32_MAX)
		return;
	q.ifindex = (int)ifindex;
	q.dir = (uint8_t)type;
	q.index = (uint32_t)id;
	q.napi_id = (uint32_t)napi;
	napitable_add_queue(st->napi, &q);
}

/* Attribute t of a reply when it came and is at most max, else -1. */
static int64_t
num_or(const bool *have, const uint64_t *v, int t, int64_t max)
{
	return have[t] && v[t] <= (uint64_t)max ? (int64_t)v[t] : -1;
}

/* One napi-get reply: a NAPI instance, its IRQ, thread and settings. */
static void
on_napi(const struct nlmsghdr *h, void *arg)
{
	struct queues_state *st = arg;
	uint64_t v[NETDEV_A_NAPI_THREADED + 1];
	bool have[NETDEV_A_NAPI_THREADED + 1] = {false};
	const struct nlattr *a;
	struct napi_entry *e;
	int rem, t;

	if (h->nlmsg_type != st->family || h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return;
	nla_for_each_attr(a, nlmsg_attrdata(h, GENL_HDRLEN), nlmsg_attrlen(h, GENL_HDRLEN), rem)
	{
		t = nla_type(a);
		if (t >= NETDEV_A_NAPI_IFINDEX && t <= NETDEV_A_NAPI_THREADED)
			have[t] = attr_uint(a, &v[t]);
	}
	if (!have[NETDEV_A_NAPI_IFINDEX] || !have[NETDEV_A_NAPI_ID] ||
	    v[NETDEV_A_NAPI_IFINDEX] == 0 || v[NETDEV_A_NAPI_IFINDEX] > INT32_MAX ||
	    v[NETDEV_A_NAPI_ID] == 0 || v[NETDEV_A_NAPI_ID] > UINT32_MAX)
		return;
	e = napitable_add_napi(st->napi);
	e->ifindex = (int)v[NETDEV_A_NAPI_IFINDEX];
	e->id = (uint32_t)v[NETDEV_A_NAPI_ID];
	if (!ifindex_name(st, e->ifindex, e->dev, sizeof(e->dev))) {
		st->napi->n--; /* the device went away */
		return;
	}
	e->irq = (int)num_or(have, v, NETDEV_A_NAPI_IRQ, INT32_MAX);
	e->pid = (int)num_or(have, v, NETDEV_A_NAPI_PID, INT32_MAX);
	e->defer_hard_irqs = num_or(have, v, NETDEV_A_NAPI_DEFER_HARD_IRQS, INT64_MAX);
	e->gro_flush_timeout = num_or(have, v, NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT, INT64_MAX);
	e->irq_suspend_timeout = num_or(have, v, NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT, INT64_MAX);
	e->threaded = (int)num_or(have, v, NETDEV_A_NAPI_THREADED, INT32_MAX);
}

/* Dump a netdev command for every device into the NAPI table; 0 or -1 with e. */
static int
napi_dump(struct queues_state *st, uint8_t cmd, void (*fn)(const struct nlmsghdr *, void *),
          struct nm_error *e)
{
	struct {
		struct nlmsghdr h;
		struct genlmsghdr g;
	} req;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = (uint16_t)st->family;
	req.g.cmd = cmd;
	req.g.version = 1;
	return nldump_run(&st->nl, &req.h, fn, st, e);
}

/* Fill the NAPI table from queue-get and napi-get, every device's. Not every sample: the
 * links change when a device does (its queues come or go: a reconfigured device renumbers
 * its NAPIs), which queues_sample sees, and a setting written through sysfs or napi-set shows
 * within NAPI_REFRESH_NS. */
static void
sample_napi(struct queues_state *st)
{
	struct nm_error e;

	napitable_begin(st->napi);
	if (napi_dump(st, NETDEV_CMD_QUEUE_GET, on_queue, &e) < 0) {
		if (e.code == NM_ERR_UNSUPPORTED) {
			log_info("source queues: queue-get unsupported here: IRQs by name only");
			st->napi_off = true;
		} else
			log_debug("source queues: queue-get: %s", e.message);
		st->napi->nq = 0;
	} else if (napi_dump(st, NETDEV_CMD_NAPI_GET, on_napi, &e) < 0) {
		log_debug("source queues: napi-get: %s", e.message);
		st->napi->n = 0;
	} else
		st->napi->answered = true;
	napitable_end(st->napi);
}

/* Count the rx-N and tx-N of sys/class/net/DEV/queues: the queues the device has now
 * (real_num_rx_queues, real_num_tx_queues). A driver that lists every slot of its queue
 * table in ethtool -S (ixgbe: 64, idpf and nfp: their maximum) names queues it does not
 * have; those are not queues. -1 each when the directory cannot be read. */
static void
count_queues(struct queues_state *st, struct qdev *d)
{
	char path[DEVLIST_NAME_MAX + 32];
	struct dirent *de;
	DIR *dir;
	int fd;

	d->nreal[0] = d->nreal[1] = -1;
	snprintf(path, sizeof(path), "sys/class/net/%s/queues", d->name);
	if (strchr(d->name, '/') != NULL || (fd = source_open(st->src, path)) < 0)
		return;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	d->nreal[0] = d->nreal[1] = 0;
	while ((de = readdir(dir)) != NULL) {
		const char *n = de->d_name;
		int k = strncmp(n, "rx-", 3) == 0 ? 0 : strncmp(n, "tx-", 3) == 0 ? 1 : -1;
		char *end;
		unsigned long v;
		if (k < 0 || n[3] < '0' || n[3] > '9')
			continue;
		v = strtoul(n + 3, &end, 10);
		if (*end == '\0' && v < QPATTERN_MAX_QUEUE && (int)v + 1 > d->nreal[k])
			d->nreal[k] = (int)v + 1;
	}
	closedir(dir);
}

/* What d's ethtool queue figures lack: its driver's note, else that of the driver whose
 * names matched (a fixture root knows no driver), else what the names show missing. */
static const char *
ethtool_note(const struct queues_state *st, const struct qdev *d)
{
	const struct qpattern_driver *dr = qpattern_driver_find(d->driver);
	bool kinds[2] = {false, false};

	for (size_t i = 0; dr == NULL && i < d->nhits; i++) {
		const struct qpattern_driver *m =
		    qpattern_driver_at(st->pats.v[d->hits[i].pattern].driver);
		if (m != NULL && m->note != NULL)
			dr = m;
	}
	if (dr != NULL)
		return dr->note;
	for (size_t i = 0; i < d->nhits; i++)
		kinds[d->hits[i].kind] = true;
	if (d->nhits > 0 && !kinds[QPATTERN_BYTES])
		return "the driver counts packets per queue, not bytes";
	if (d->nhits > 0 && !kinds[QPATTERN_PACKETS])
		return "the driver counts bytes per queue, not packets";
	return NULL;
}

/* Fold d's counters into its queues' sums the plain way: each hit found in its queue (made
 * when new), each sum put when it changed. */
static void
fold_plain(struct queues_state *st, struct qdev *d, const struct ethtool_counters *ec)
{
	struct qqueue *q;

	for (size_t i = 0; i < d->nhits; i++) {
		const struct qpattern_hit *h = &d->hits[i];
		if (d->nreal[h->dir] >= 0 && h->queue >= (uint32_t)d->nreal[h->dir])
			continue; /* a slot of the driver's table, not a queue it has */
		q = get_queue(st, d, h->dir, h->queue);
		if (q == NULL)
			continue;
		if (q->sumgen != st->gen) {
			q->sumgen = st->gen;
			q->sum[0] = q->sum[1] = 0;
			q->have[0] = q->have[1] = false;
		}
		q->sum[h->kind] += ec->values[h->counter];
		q->have[h->kind] = true;
	}
	for (unsigned dir = 0; dir < 2; dir++)
		for (uint32_t i = 0; i < d->nq[dir]; i++) {
			q = &d->q[dir][i];
			if (!q->present || q->sumgen != st->gen)
				continue;
			q->seen = st->gen;
			for (int k = 0; k < 2; k++) {
				if (!q->have[k] || (q->have_put[k] && q->put[k] == q->sum[k]))
					continue;
				put_slot(st, d, dir, i, q, SLOT(dir, k), q->sum[k]);
				q->put[k] = q->sum[k];
				q->have_put[k] = true;
			}
		}
}

/* Make d's plan from the plain fold just done (allocates: once per layout). */
static void
plan_build(struct queues_state *st, struct qdev *d)
{
	struct qplan *pl = &d->plan;
	uint32_t *at[2] = {NULL, NULL}; /* [dir][index * 2 + kind]: the sum's index */
	size_t present = 0, summed = 0;

	pl->nfold = 0;
	for (unsigned dir = 0; dir < 2; dir++) {
		at[dir] = xcalloc(d->nq[dir] * 2 + 1, sizeof(*at[dir]));
		for (uint32_t i = 0; i < d->nq[dir]; i++) {
			struct qqueue *q = &d->q[dir][i];
			if (!q->present)
				continue;
			present++;
			if (q->sumgen != st->gen)
				continue;
			summed++;
			for (uint8_t k = 0; k < 2; k++) {
				at[dir][i * 2 + k] = QPLAN_NONE;
				if (!q->have[k])
					continue;
				if (pl->nfold == pl->capfold) {
					pl->capfold = pl->capfold ? pl->capfold * 2 : 64;
					pl->fold =
					    xreallocarray(pl->fold, pl->capfold, sizeof(*pl->fold));
					pl->sum =
					    xreallocarray(pl->sum, pl->capfold, sizeof(*pl->sum));
				}
				at[dir][i * 2 + k] = (uint32_t)pl->nfold;
				pl->fold[pl->nfold++] =
				    (struct qfold){q, q->id[SLOT(dir, k)], i,        (uint8_t)dir,
				                   k, q->have_put[k],      q->put[k]};
			}
		}
	}
	if (d->nhits > pl->caphitfold) {
		pl->caphitfold = d->nhits;
		pl->hitfold = xreallocarray(pl->hitfold, pl->caphitfold, sizeof(*pl->hitfold));
	}
	pl->ok = true;
	for (size_t i = 0; i < d->nhits; i++) {
		const struct qpattern_hit *h = &d->hits[i];
		pl->hitfold[i] = QPLAN_NONE;
		if (d->nreal[h->dir] >= 0 && h->queue >= (uint32_t)d->nreal[h->dir])
			continue;
		/* Every hit the plain fold took has its sum; one it could not (an absurd
		 * index) has none, and the plan is not used. */
		if (h->dir > QUEUE_TX || h->queue >= d->nq[h->dir] ||
		    at[h->dir][h->queue * 2 + h->kind] == QPLAN_NONE ||
		    !d->q[h->dir][h->queue].present) {
			pl->ok = false;
			break;
		}
		pl->hitfold[i] = at[h->dir][h->queue * 2 + h->kind];
	}
	/* The plan marks no queue seen: it is used only when every present queue has a sum,
	 * so that sweep has none to drop. */
	if (present != summed)
		pl->ok = false;
	free(at[0]);
	free(at[1]);
}

/* The fold by d's plan: the same sums, put in the same order, as fold_plain. */
static void
fold_planned(struct queues_state *st, struct qdev *d, const struct ethtool_counters *ec)
{
	struct qplan *pl = &d->plan;

	memset(pl->sum, 0, pl->nfold * sizeof(*pl->sum));
	for (size_t i = 0; i < d->nhits; i++)
		if (pl->hitfold[i] != QPLAN_NONE)
			pl->sum[pl->hitfold[i]] += ec->values[d->hits[i].counter];
	for (size_t j = 0; j < pl->nfold; j++) {
		struct qfold *f = &pl->fold[j];
		uint64_t v = pl->sum[j];

		if (f->have_put && f->put == v)
			continue;
		if (f->id == SERIES_NONE) {
			put_slot(st, d, f->dir, f->index, f->q, SLOT(f->dir, f->kind), v);
			f->id = f->q->id[SLOT(f->dir, f->kind)];
		} else
			sink_put(st->sink, f->id, v);
		f->put = v;
		f->have_put = true;
	}
}

/* Report d's queues from its ethtool counters. */
static void
sample_ethtool(struct queues_state *st, struct qdev *d)
{
	const struct devlist_entry *e;
	const struct ethtool_counters *ec;

	if (d->ds.nostats)
		return;
	if (st->src->sample_ns < d->next_read) {
		devlist_touch(st->dl, st->src, d->name); /* read again at next_read */
		return;
	}
	if ((e = devlist_read_counters(st->dl, st->src, d->name, &d->ds)) == NULL)
		return;
	ec = &e->ec;
	if (d->hits_names != e->names || d->via != VIA_ETHTOOL) {
		plan_drop(d);
		d->nhits = ec->n == 0 ? 0
		                      : qpattern_map(&st->pats, ec->names[0], sizeof(ec->names[0]),
		                                     ec->n, &d->hits, &d->caphits);
		d->hits_names = e->names;
		if (d->nhits && d->via == VIA_TCCLASS)
			drop_queues(st, d); /* the driver names its queues now: from ethtool */
		if (d->nhits)
			d->via = VIA_ETHTOOL;
		else if (d->via != VIA_TCCLASS)
			d->via = VIA_NONE;
		d->note = ethtool_note(st, d);
		d->next_count = st->src->sample_ns; /* count its queues now */
	}
	d->answered = st->gen;
	if (d->nhits == 0) {
		d->next_read = st->src->sample_ns + QUEUES_RECHECK_NS;
		return;
	}
	/* Channels change without the names changing: count again now and then. */
	if (st->src->sample_ns >= d->next_count) {
		int old[2] = {d->nreal[0], d->nreal[1]};
		count_queues(st, d);
		d->next_count = st->src->sample_ns + QUEUES_RECHECK_NS;
		if (d->nreal[0] != old[0] || d->nreal[1] != old[1])
			plan_drop(d);
	}
	if (d->plan.ok && !source_queues_no_plan) {
		/* No counter moved since the read the last fold took (the same read, or the next
		 * with nothing changed: an idle device): every sum is the one put. */
		if (e->seq != d->seq && (e->seq != d->seq + 1 || ec->nchanged != 0))
			fold_planned(st, d, ec);
		d->seq = e->seq;
		return;
	}
	fold_plain(st, d, ec);
	d->seq = e->seq;
	if (!source_queues_no_plan)
		plan_build(st, d);
}

/* Open the NETLINK_ROUTE socket of the class dumps once; false when it cannot be. */
static bool
rt_ready(struct queues_state *st)
{
	struct nm_error e;

	if (!st->rt_open && !st->rt_off) {
		if (nldump_open(&st->rt, NETLINK_ROUTE, &e) == 0)
			st->rt_open = true;
		else {
			log_warnx("source queues: %s; no mq class counters", e.message);
			st->rt_off = true;
		}
	}
	return st->rt_open;
}

/* Bytes and packets of a class from its TCA_STATS2 (or TCA_STATS); false without them. */
static bool
class_counts(struct nlattr **tb, uint64_t *bytes, uint64_t *packets)
{
	struct nlattr *sb[TCA_STATS_MAX + 1];
	const struct nlattr *basic = NULL, *pkt64 = NULL;
	uint32_t p32;

	if (tb[TCA_STATS2] != NULL &&
	    nla_parse_nested(sb, TCA_STATS_MAX, tb[TCA_STATS2], NULL) == 0 &&
	    sb[TCA_STATS_BASIC] != NULL) {
		basic = sb[TCA_STATS_BASIC];
		pkt64 = sb[TCA_STATS_PKT64];
	} else if (tb[TCA_STATS] != NULL)
		basic = tb[TCA_STATS]; /* struct tc_stats starts as gnet_stats_basic does */
	if (basic == NULL || nla_len(basic) < 12)
		return false;
	memcpy(bytes, nla_data(basic), 8);
	memcpy(&p32, (const char *)nla_data(basic) + 8, 4);
	*packets = p32;
	/* The kernel clamps the 32-bit count and adds the whole one past 2^32. */
	if (pkt64 != NULL && nla_len(pkt64) == 8)
		memcpy(packets, nla_data(pkt64), 8);
	return true;
}

/* One RTM_NEWTCLASS reply: an mq class of the device is one of its tx queues. */
static void
on_tclass(const struct nlmsghdr *h, void *arg)
{
	struct queues_state *st = arg;
	struct qdev *d = st->tc_dev;
	struct nlattr *tb[TCA_MAX + 1];
	const struct tcmsg *tc;
	uint64_t bytes, packets;
	uint32_t minor;
	struct qqueue *q;

	if (h->nlmsg_type != RTM_NEWTCLASS || h->nlmsg_len < NLMSG_LENGTH(sizeof(*tc)))
		return;
	tc = NLMSG_DATA(h);
	minor = TC_H_MIN(tc->tcm_handle);
	/* mq is a root qdisc; its classes' parent is the root. */
	if (tc->tcm_ifindex != d->ifindex || tc->tcm_parent != TC_H_ROOT || minor == 0 ||
	    minor - 1 > QPATTERN_MAX_QUEUE)
		return;
	if (nla_parse(tb, TCA_MAX, nlmsg_attrdata(h, sizeof(*tc)), nlmsg_attrlen(h, sizeof(*tc)),
	              NULL) < 0 ||
	    tb[TCA_KIND] == NULL || nla_strcmp(tb[TCA_KIND], "mq") != 0 ||
	    !class_counts(tb, &bytes, &packets))
		return;
	if (d->via != VIA_TCCLASS) {
		drop_queues(st, d);
		d->via = VIA_TCCLASS;
	}
	if ((q = get_queue(st, d, QUEUE_TX, minor - 1)) == NULL)
		return;
	q->seen = st->gen;
	st->tc_found++;
	put_slot(st, d, QUEUE_TX, minor - 1, q, SLOT(QUEUE_TX, 0), packets);
	put_slot(st, d, QUEUE_TX, minor - 1, q, SLOT(QUEUE_TX, 1), bytes);
}

/* A device without qstats or ethtool queue counters: its tx queues from its mq classes. */
static void
sample_tclass(struct queues_state *st, struct qdev *d)
{
	struct {
		struct nlmsghdr h;
		struct tcmsg t;
	} req;
	struct nm_error e;

	if (d->ifindex <= 0 || d->ds.nostats || st->src->sample_ns < d->next_tc || !rt_ready(st))
		return;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = RTM_GETTCLASS;
	req.t.tcm_family = AF_UNSPEC;
	req.t.tcm_ifindex = d->ifindex;
	st->tc_dev = d;
	st->tc_found = 0;
	if (nldump_run(&st->rt, &req.h, on_tclass, st, &e) < 0)
		log_debug("source queues: %s: classes: %s", d->name, e.message);
	if (st->tc_found > 0) {
		d->answered = st->gen;
		return;
	}
	if (d->via == VIA_TCCLASS) { /* the mq qdisc is gone */
		drop_queues(st, d);
		d->via = VIA_NONE;
	}
	d->next_tc = st->src->sample_ns + QUEUES_RECHECK_NS;
}

/* Drop unlisted devices, and the queues of read devices that this sample did not report. */
static void
sweep(struct queues_state *st)
{
	size_t kept = 0;

	for (size_t i = 0; i < st->ndevs; i++) {
		struct qdev *d = st->devs[i];
		if (d->ds.seen != st->gen) {
			drop_dev(st, d);
			continue;
		}
		st->devs[kept++] = d;
		/* Down, or not read: its queues keep their values. Folded by its plan: every
		 * queue it has was summed (plan_build). */
		if (d->answered != st->gen || (d->plan.ok && d->via == VIA_ETHTOOL))
			continue;
		for (unsigned dir = 0; dir < 2; dir++)
			for (size_t j = 0; j < d->nq[dir]; j++)
				if (d->q[dir][j].present && d->q[dir][j].seen != st->gen) {
					plan_drop(d);
					drop_queue(st, &d->q[dir][j]);
				}
	}
	st->ndevs = kept;
}

/* Rebuild the exported queue list. */
static void
build_info(struct queues_state *st)
{
	st->ninfo = 0;
	for (size_t i = 0; i < st->ndevs; i++) {
		struct qdev *d = st->devs[i];
		for (unsigned dir = 0; dir < 2; dir++)
			for (uint32_t j = 0; j < d->nq[dir]; j++) {
				struct qqueue *q = &d->q[dir][j];
				struct queue_info *qi;
				if (!q->present)
					continue;
				if (st->ninfo == st->capinfo) {
					st->capinfo = st->capinfo ? st->capinfo * 2 : 64;
					st->info =
					    xreallocarray(st->info, st->capinfo, sizeof(*st->info));
				}
				qi = &st->info[st->ninfo++];
				qi->dev = d->name;
				qi->dir = (uint8_t)dir;
				qi->index = j;
				qi->packets = q->id[SLOT(dir, 0)];
				qi->bytes = q->id[SLOT(dir, 1)];
				qi->drops = q->id[DROP_SLOT(dir)];
				qi->counters = via_names[d->via];
			}
	}
	st->layout_changed = false;
}

/* The queue list built at the end of the last sample. */
const struct queue_info *
source_queues_list(struct source *src, size_t *n)
{
	struct queues_state *st = src->priv;

	*n = st != NULL ? st->ninfo : 0;
	return st != NULL ? st->info : NULL;
}

/* Why device d has no per-queue counters of its own (qstats or ethtool), into buf. */
static void
why_none(const struct queues_state *st, const struct qdev *d, char *buf, size_t size)
{
	if (strcmp(d->driver, "veth") == 0)
		snprintf(buf, size,
		         "veth has no qstats, and its ethtool queue counters (rx_queue_N_xdp_*) "
		         "count XDP only");
	else if (d->ds.nostats)
		snprintf(buf, size, "no qstats, and no ethtool statistics");
	else if (!st->src->host)
		snprintf(buf, size,
		         "none of its ethtool counters names a queue (a [source.queues] pattern "
		         "may)");
	else
		snprintf(buf, size,
		         "%s: %s, and none of its ethtool counters names a queue (a "
		         "[source.queues] pattern may)",
		         d->driver[0] ? d->driver : "driver unknown",
		         st->family > 0 ? "no qstats" : "this kernel has no qstats");
}

/* Where each device's queue figures come from, or why it has none. */
const struct queue_dev *
source_queues_devices(struct source *src, size_t *n)
{
	struct queues_state *st = src->priv;
	char base[200];

	*n = 0;
	if (st == NULL)
		return NULL;
	if (st->capnotes < st->ndevs) {
		st->capnotes = st->ndevs;
		st->notes = xreallocarray(st->notes, st->capnotes, sizeof(*st->notes));
	}
	for (size_t i = 0; i < st->ndevs; i++) {
		struct qdev *d = st->devs[i];
		struct queue_dev *nd = &st->notes[(*n)++];
		nd->dev = d->name;
		nd->counters = via_names[d->via];
		nd->note = d->via == VIA_ETHTOOL ? d->note : NULL;
		d->why[0] = '\0';
		if (d->via == VIA_TCCLASS || d->via == VIA_NONE)
			why_none(st, d, base, sizeof(base));
		if (d->via == VIA_TCCLASS)
			snprintf(d->why, sizeof(d->why),
			         "%s: tx queues from its mq qdisc's classes (class :N is tx queue "
			         "N-1, as tc -s class shows them), no rx queues",
			         base);
		else if (d->via == VIA_NONE && src->host)
			snprintf(
			    d->why, sizeof(d->why),
			    "%s; an mq root qdisc would give per-tx-queue counts (tc qdisc add "
			    "dev %s root mq)",
			    base, d->name);
		else if (d->via == VIA_NONE)
			snprintf(d->why, sizeof(d->why), "%s", base);
		nd->why = d->why;
	}
	return st->notes;
}

/* Take one [source.queues] option. */
static int
queues_configure(struct source *src, const char *key, const char *val, struct nm_error *err)
{
	struct queues_opts *o = src->opts;
	bool b;

	if (o == NULL) {
		o = src->opts = xcalloc(1, sizeof(*o));
		qpattern_table_init(&o->patterns);
	}
	if (strcmp(key, "devices") == 0) {
		if (devlist_filter_parse(&o->filter, val, err) < 0)
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "source queues: devices = %s: bad list", val);
		return 0;
	}
	if (strcmp(key, "pattern") == 0) {
		struct nm_error e;
		if (qpattern_table_add(&o->patterns, val, &e) < 0)
			return nm_error_set(err, NM_ERR_BAD_ARGS, "source queues: %s", e.message);
		return 0;
	}
	if (strcmp(key, "builtin-patterns") == 0) {
		if (config_parse_bool(val, &b) < 0)
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "source queues: builtin-patterns = %s: not a boolean",
			                    val);
		o->no_builtin = !b;
		return 0;
	}
	return nm_error_set(err, NM_ERR_BAD_ARGS, "source queues: unknown option %s", key);
}

/* Free the state and the options. */
static void
queues_free(struct source *src)
{
	struct queues_state *st = src->priv;
	struct queues_opts *o = src->opts;

	if (st != NULL) {
		st->sink = NULL;
		for (size_t i = 0; i < st->ndevs; i++)
			drop_dev(st, st->devs[i]);
		free(st->devs);
		devlist_free(st->own);
		if (st->nl.sk != NULL)
			nldump_close(&st->nl);
		if (st->rt_open)
			nldump_close(&st->rt);
		free(st->notes);
		if (st->fd >= 0)
			close(st->fd);
		qpattern_table_free(&st->pats);
		free(st->info);
		free(st->ignored);
		napitable_free(&st->own_napi);
		free(st);
		src->priv = NULL;
	}
	if (o != NULL) {
		devlist_filter_free(&o->filter);
		qpattern_table_free(&o->patterns);
		free(o);
		src->opts = NULL;
	}
}

/* Resolve the netdev family; qstats stay off (family 0) when the kernel lacks it. */
static void
open_qstats(struct queues_state *st)
{
	struct nm_error e;
	int family;

	if (nldump_open(&st->nl, NETLINK_GENERIC, &e) < 0) {
		log_warnx("source queues: %s; using ethtool counters", e.message);
		return;
	}
	family = genl_ctrl_resolve(st->nl.sk, NETDEV_FAMILY_NAME);
	if (family < 0) {
		log_info("source queues: no netdev netlink family (%s), using ethtool counters",
		         nl_geterror(family));
		nldump_close(&st->nl);
		return;
	}
	st->family = family;
}

/* Build the pattern table and open the device list, netlink and the ethtool socket. */
static int
queues_init(struct source *src, struct nm_error *err)
{
	struct queues_state *st = xcalloc(1, sizeof(*st));
	struct queues_opts *o = src->opts;

	st->fd = -1;
	st->src = src;
	qpattern_table_init(&st->pats);
	if (o != NULL)
		qpattern_table_append(&st->pats, &o->patterns);
	if (o == NULL || !o->no_builtin)
		qpattern_table_add_builtin(&st->pats);
	src->priv = st;
	st->napi = src->napitab != NULL ? src->napitab : &st->own_napi;
	st->dl = src->devlist;
	if (st->dl == NULL)
		st->dl = st->own = devlist_new();
	if (devlist_open(st->dl, src, err) < 0)
		goto fail;
	if (src->host) {
		if ((st->fd = ethtool_socket(err)) < 0)
			goto fail;
		open_qstats(st);
	}
	return 0;
fail:
	/* Keep the options for a later init. */
	src->opts = NULL;
	queues_free(src);
	src->opts = o;
	return -1;
}

/* Read every device's queues once. */
static int
queues_sample(struct source *src, struct sink *sink, struct nm_error *err)
{
	struct queues_state *st = src->priv;
	int rc = 0;

	st->src = src;
	st->sink = sink;
	st->gen++;
	st->hint = 0;
	if (devlist_scan(st->dl, src, on_device, st, err) < 0) {
		st->sink = NULL;
		return -1;
	}
	if (st->family > 0)
		rc = sample_qstats(st, err);
	if (st->family > 0 && !st->napi_off &&
	    (st->layout_changed || st->napi_ns == 0 || src->sample_ns < st->napi_ns ||
	     src->sample_ns - st->napi_ns >= NAPI_REFRESH_NS)) {
		sample_napi(st);
		st->napi_ns = src->sample_ns != 0 ? src->sample_ns : 1;
	}
	for (size_t i = 0; i < st->ndevs; i++) {
		struct qdev *d = st->devs[i];
		if (d->ds.seen != st->gen || d->via == VIA_QSTATS)
			continue;
		sample_ethtool(st, d);
		if (src->host && (d->via == VIA_NONE || d->via == VIA_TCCLASS))
			sample_tclass(st, d);
	}
	sweep(st);
	if (st->layout_changed)
		build_info(st); /* here, so the list stays put between samples */
	st->sink = NULL;
	return rc;
}

/* Facts for status: where each device's queues come from. */
static json_object *
queues_describe(struct source *src)
{
	struct queues_state *st = src->priv;
	json_object *o = json_object_new_object(), *devs = json_object_new_object();
	size_t n = 0;

	for (size_t i = 0; st != NULL && i < st->ndevs; i++)
		json_object_object_add(devs, st->devs[i]->name,
		                       json_object_new_string(via_names[st->devs[i]->via]));
	if (st != NULL)
		source_queues_list(src, &n);
	json_object_object_add(o, "qstats", json_object_new_boolean(st != NULL && st->family > 0));
	json_object_object_add(o, "devices", devs);
	json_object_object_add(o, "queues", json_object_new_int64((int64_t)n));
	return o;
}

/* Its Prometheus families (serve/prom.c): packets, bytes and the other counters by field. */
static const struct source_family queues_families[] = {
    {SOURCE_NO_FAMILY, {.kind = SOURCE_GAUGES}, false},
    {"netmetrics_queue_packets", {.field = (const char *const[]){"packets", NULL}}, false},
    {"netmetrics_queue_bytes", {.field = (const char *const[]){"bytes", NULL}}, false},
    {"netmetrics_queue_events", {.kind = SOURCE_ANY_KIND}, false},
    {NULL, {.kind = SOURCE_ANY_KIND}, false},
};

const struct source_ops source_queues_ops = {
    .name = "queues",
    .prom = queues_families,
    .keep = SOURCE_KEPT,
    .description = "per-queue packets and bytes (netdev qstats, ethtool, then mq classes)",
    .configure = queues_configure,
    .init = queues_init,
    .sample = queues_sample,
    .describe = queues_describe,
    .free = queues_free,
};
