/* source-qdisc.c: every qdisc's queue statistics, from one RTM_GETQDISC dump a sample (what
 * `tc -s qdisc show` prints): drops, overlimits, requeues and the backlog, per device and
 * qdisc.
 *
 * Series (labels device, field, type = the qdisc's kind: "netem", "fq_codel"...):
 *   qdisc.<DEV>.<ID>.drops       drops      COUNTER32  packets the qdisc dropped
 *   qdisc.<DEV>.<ID>.overlimits  events     COUNTER32  times it held a packet back (shaping)
 *   qdisc.<DEV>.<ID>.requeues    packets    COUNTER32  packets the driver handed back
 *   qdisc.<DEV>.<ID>.backlog     bytes      GAUGE      bytes queued at the sample
 *   qdisc.<DEV>.<ID>.qlen        packets    GAUGE      packets queued at the sample
 * <ID> is the qdisc's handle as tc prints it ("8001:", "1:2"); a qdisc without one (handle
 * 0:, the per-queue children of mq) is "0@" and its parent (tc's ":1", "root", "ingress").
 * The kernel's counters are 32-bit (struct gnet_stats_queue): they wrap, as the sampler knows.
 * A qdisc deleted goes away with its series; a new one counts from zero, and one added in
 * a deleted one's place (same device, handle and parent, another kind) takes over its series
 * (the same names), a fall of its counters a reset. Tested against `tc -s qdisc` on veth in
 * tests/netns/test_queues.py.
 *
 * Read like the link source's dump (nldump.c: a kept buffer, replies parsed in place with
 * libnl's attribute helpers) rather than through libnl-route's rtnl_qdisc cache: a cache
 * refill allocates objects for every qdisc every sample, against the rule that sampling
 * allocates nothing (source-link.c measured it for links). Only on the host: under a fixture
 * root the source is off and says why. */
#include <errno.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "nldump.h"
#include "source.h"
#include "xmalloc.h"

enum { Q_DROPS, Q_OVERLIMITS, Q_REQUEUES, Q_BACKLOG, Q_QLEN, Q_NSTATS };

static const struct qdisc_stat {
	const char *name, *unit;
	enum series_kind kind;
} qdisc_stats[Q_NSTATS] = {
    [Q_DROPS] = {"drops", "drops", SERIES_COUNTER32},
    [Q_OVERLIMITS] = {"overlimits", "events", SERIES_COUNTER32},
    [Q_REQUEUES] = {"requeues", "packets", SERIES_COUNTER32},
    [Q_BACKLOG] = {"backlog", "bytes", SERIES_GAUGE},
    [Q_QLEN] = {"qlen", "packets", SERIES_GAUGE},
};

#define QDISC_KIND_MAX 32

/* One qdisc: (ifindex, handle, parent) and its series. */
struct qdisc {
	int ifindex;
	uint32_t handle, parent;
	char kind[QDISC_KIND_MAX];
	unsigned seen; /* sample generation that last reported it */
	series_id id[Q_NSTATS];
};

struct qdisc_state {
	struct nldump nl;
	struct qdisc *v; /* in the order of the dump */
	size_t n, cap;
	size_t hint; /* where the next qdisc of a sample is expected */
	unsigned gen;
	bool complete; /* the last dump was read whole */
	/* during a sample */
	struct source *src;
	struct sink *sink;
};

/* A handle as tc prints it: "8001:" (minor 0), "1:2"; "ingress"/"root" for those parents. */
static void
handle_str(uint32_t h, char *buf, size_t size)
{
	if (h == TC_H_ROOT)
		snprintf(buf, size, "root");
	else if (h == TC_H_INGRESS)
		snprintf(buf, size, "ingress");
	else if (TC_H_MIN(h) == 0)
		snprintf(buf, size, "%x:", TC_H_MAJ(h) >> 16);
	else if (TC_H_MAJ(h) == 0)
		snprintf(buf, size, ":%x", TC_H_MIN(h));
	else
		snprintf(buf, size, "%x:%x", TC_H_MAJ(h) >> 16, TC_H_MIN(h));
}

/* The series of q (its device's name now: "if<N>" for one gone meanwhile). */
static void
intern_qdisc(struct qdisc_state *qs, struct qdisc *q)
{
	struct source *src = qs->src;
	struct series_labels l = source_labels(src);
	char dev[IF_NAMESIZE + 8], id[40], ph[20];

	if (if_indextoname((unsigned)q->ifindex, dev) == NULL)
		snprintf(dev, sizeof(dev), "if%d", q->ifindex);
	if (q->handle != 0)
		handle_str(q->handle, id, sizeof(id));
	else {
		handle_str(q->parent, ph, sizeof(ph));
		snprintf(id, sizeof(id), "0@%s", ph);
	}
	l.device = source_atom(src, dev, strlen(dev));
	if (q->kind[0] != '\0')
		l.type = source_atom(src, q->kind, strlen(q->kind));
	for (int i = 0; i < Q_NSTATS; i++) {
		l.field = source_atom(src, qdisc_stats[i].name, strlen(qdisc_stats[i].name));
		q->id[i] =
		    series_internf(src->reg, qdisc_stats[i].kind, src->index, qdisc_stats[i].unit,
		                   1.0, &l, "qdisc.%s.%s.%s", dev, id, qdisc_stats[i].name);
	}
}

/* The qdisc (ifindex, handle, parent) of kind, made when new; one whose kind changed (a
 * replace under the same handle) is new. */
static struct qdisc *
find_qdisc(struct qdisc_state *qs, int ifindex, uint32_t handle, uint32_t parent, const char *kind)
{
	struct qdisc *q;

	/* The kernel lists them in the same order every time: try where the last one left off
	 * before searching. */
	for (size_t k = 0; k < qs->n; k++) {
		q = &qs->v[(qs->hint + k) % qs->n];
		if (q->ifindex == ifindex && q->handle == handle && q->parent == parent &&
		    strcmp(q->kind, kind) == 0) {
			qs->hint = (qs->hint + k) % qs->n + 1;
			return q;
		}
	}
	if (qs->n == qs->cap) {
		qs->cap = qs->cap ? qs->cap * 2 : 16;
		qs->v = xreallocarray(qs->v, qs->cap, sizeof(*qs->v));
	}
	q = &qs->v[qs->n++];
	memset(q, 0, sizeof(*q));
	q->ifindex = ifindex;
	q->handle = handle;
	q->parent = parent;
	snprintf(q->kind, sizeof(q->kind), "%s", kind);
	intern_qdisc(qs, q);
	qs->hint = qs->n;
	return q;
}

/* The queue statistics of a reply: TCA_STATS2's TCA_STATS_QUEUE, else the old TCA_STATS.
 * false without either. */
static bool
queue_stats(struct nlattr **tb, uint64_t *v)
{
	struct nlattr *sb[TCA_STATS_MAX + 1];

	if (tb[TCA_STATS2] != NULL &&
	    nla_parse_nested(sb, TCA_STATS_MAX, tb[TCA_STATS2], NULL) == 0 &&
	    sb[TCA_STATS_QUEUE] != NULL &&
	    (size_t)nla_len(sb[TCA_STATS_QUEUE]) >= sizeof(struct gnet_stats_queue)) {
		struct gnet_stats_queue q;

		memcpy(&q, nla_data(sb[TCA_STATS_QUEUE]), sizeof(q));
		v[Q_DROPS] = q.drops;
		v[Q_OVERLIMITS] = q.overlimits;
		v[Q_REQUEUES] = q.requeues;
		v[Q_BACKLOG] = q.backlog;
		v[Q_QLEN] = q.qlen;
		return true;
	}
	if (tb[TCA_STATS] != NULL && (size_t)nla_len(tb[TCA_STATS]) >= sizeof(struct tc_stats)) {
		struct tc_stats s;

		memcpy(&s, nla_data(tb[TCA_STATS]), sizeof(s));
		v[Q_DROPS] = s.drops;
		v[Q_OVERLIMITS] = s.overlimits;
		v[Q_REQUEUES] = 0;
		v[Q_BACKLOG] = s.backlog;
		v[Q_QLEN] = s.qlen;
		return true;
	}
	return false;
}

/* One RTM_NEWQDISC reply of the dump. */
static void
on_qdisc(const struct nlmsghdr *h, void *arg)
{
	struct qdisc_state *qs = arg;
	const struct tcmsg *tcm;
	struct nlattr *tb[TCA_MAX + 1];
	char kind[QDISC_KIND_MAX] = "";
	uint64_t v[Q_NSTATS];
	struct qdisc *q;

	if (h->nlmsg_type != RTM_NEWQDISC || h->nlmsg_len < NLMSG_LENGTH(sizeof(*tcm)))
		return;
	tcm = nlmsg_data(h);
	if (nla_parse(tb, TCA_MAX, nlmsg_attrdata(h, sizeof(*tcm)), nlmsg_attrlen(h, sizeof(*tcm)),
	              NULL) < 0 ||
	    !queue_stats(tb, v))
		return;
	if (tb[TCA_KIND] != NULL)
		snprintf(kind, sizeof(kind), "%.*s", nla_len(tb[TCA_KIND]),
		         (const char *)nla_data(tb[TCA_KIND]));
	q = find_qdisc(qs, tcm->tcm_ifindex, tcm->tcm_handle, tcm->tcm_parent, kind);
	q->seen = qs->gen;
	for (int i = 0; i < Q_NSTATS; i++)
		sink_put(qs->sink, q->id[i], v[i]);
}

/* Is id a series of a qdisc this sample reported? */
static bool
id_in_use(const struct qdisc_state *qs, series_id id)
{
	for (size_t i = 0; i < qs->n; i++)
		if (qs->v[i].seen == qs->gen && qs->v[i].id[0] == id)
			return true;
	return false;
}

/* Drop the qdiscs this sample did not report, with their series; not the series of one
 * replaced under the same handle by another kind, which the new one has (the same names:
 * it counts from zero, a reset). */
static void
sweep(struct qdisc_state *qs)
{
	size_t kept = 0;

	for (size_t i = 0; i < qs->n; i++) {
		if (qs->v[i].seen != qs->gen) {
			if (!id_in_use(qs, qs->v[i].id[0]))
				for (int k = 0; k < Q_NSTATS; k++)
					sink_gone(qs->sink, qs->v[i].id[k]);
			continue;
		}
		qs->v[kept++] = qs->v[i];
	}
	qs->n = kept;
}

static void
qdisc_free(struct source *src)
{
	struct qdisc_state *qs = src->priv;

	if (qs == NULL)
		return;
	if (qs->nl.sk != NULL)
		nldump_close(&qs->nl);
	free(qs->v);
	free(qs);
	src->priv = NULL;
}

/* Open the netlink socket; off (unsupported) under a fixture root. */
static int
qdisc_init(struct source *src, struct nm_error *err)
{
	struct qdisc_state *qs;

	if (!src->host)
		return nm_error_set(
		    err, NM_ERR_UNSUPPORTED,
		    "source qdisc: reads the running kernel only (root is %s, not /)", src->root);
	qs = xcalloc(1, sizeof(*qs));
	src->priv = qs;
	if (nldump_open(&qs->nl, NETLINK_ROUTE, err) < 0) {
		qdisc_free(src);
		return -1;
	}
	return 0;
}

/* One dump of every qdisc. */
static int
qdisc_sample(struct source *src, struct sink *sink, struct nm_error *err)
{
	struct qdisc_state *qs = src->priv;
	struct {
		struct nlmsghdr h;
		struct tcmsg tcm;
	} req;
	struct nm_error e;

	qs->src = src;
	qs->sink = sink;
	qs->gen++;
	qs->hint = 0;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.tcm));
	req.h.nlmsg_type = RTM_GETQDISC;
	req.tcm.tcm_family = AF_UNSPEC;
	qs->complete = nldump_run(&qs->nl, &req.h, on_qdisc, qs, &e) == 0;
	if (qs->complete)
		sweep(qs); /* only a complete listing tells which qdiscs went away */
	qs->sink = NULL;
	if (!qs->complete)
		return nm_error_set(err, e.code, "source qdisc: %s", e.message);
	return 0;
}

/* Facts for status. */
static json_object *
qdisc_describe(struct source *src)
{
	struct qdisc_state *qs = src->priv;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "method", json_object_new_string("rtnetlink RTM_GETQDISC"));
	json_object_object_add(o, "qdiscs", json_object_new_int64(qs ? (int64_t)qs->n : 0));
	return o;
}

const struct source_ops source_qdisc_ops = {
    .name = "qdisc",
    /* Not exported: two qdiscs of one device differ only by their handle, which no label
     * holds. */
    .prom = source_not_exported,
    .keep = SOURCE_KEPT,
    .optional = true,
    .description = "qdisc drops, overlimits, requeues and backlog per device and qdisc "
                   "(rtnetlink RTM_GETQDISC)",
    .configure = NULL,
    .init = qdisc_init,
    .sample = qdisc_sample,
    .describe = qdisc_describe,
    .free = qdisc_free,
};
