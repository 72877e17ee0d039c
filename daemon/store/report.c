/* report.c: the figures of a measurement window from its two edge snapshots.
 *
 * One pass over the registry sorts out the series a report adds up (CPU time, NET_RX and
 * NET_TX softirqs, softnet, link stats, the driver's drop counters, lnstat sums, sysctls);
 * the IRQ table of the interrupts source and the queue list of the queues source give the
 * joins: the IRQs of each queue, and the CPUs they fired on. Every increment is taken
 * from the snapshots (snapshot_delta), every per-second figure divides it by the time
 * between its own source's samples at the two edges. The layout is in proto/PROTOCOL.md
 * (report, Figures). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuutil.h"
#include "error.h"
#include "jsonutil.h"
#include "netdev.h"
#include "report-napi.h"
#include "report-bpf.h"
#include "report.h"
#include "sampler.h"
#include "timeutil.h"
#include "irqtable.h"
#include "source-queues.h"
#include "xmalloc.h"

/* The link stats a device figure shows, in output order. */
static const char *const link_stats[] = {"rx_packets", "tx_packets", "rx_bytes",
                                         "tx_bytes",   "rx_dropped", "tx_dropped"};
#define NLINK    (sizeof(link_stats) / sizeof(link_stats[0]))
#define LINK_RXP 0
#define LINK_TXP 1

/* The softnet columns summed over CPUs (backlog is a level, not summed). */
static const char *const softnet_cols[] = {"processed", "dropped", "time_squeeze", "received_rps",
                                           "flow_limit_count"};
#define NSOFTNET (sizeof(softnet_cols) / sizeof(softnet_cols[0]))

/* Words that make an ethtool counter a drop counter of the driver: mlx5 rx_out_of_buffer,
 * ixgbe rx_missed_errors and rx_no_dma_resources, igb rx_no_buffer_count, *_dropped,
 * *_discards, virtio rx0_drops, xdp_drop. */
static const char *const drop_words[] = {"drop",          "discard", "missed",
                                         "out_of_buffer", "no_buf",  "no_dma"};

/* A growable list of series ids. */
struct idlist {
	series_id *v;
	size_t n, cap;
};

/* What one CPU did over the window: raw deltas. */
struct rcpu {
	uint64_t mode[CPUUTIL_NMODES];
	uint64_t net_rx, net_tx;
	bool seen; /* online at an edge, or it moved */
};

/* A network device: its link stats and driver drop counters. */
struct rdev {
	char name[IRQ_DEVICE_MAX];
	series_id link[NLINK];
	struct idlist drops; /* ethtool.<dev>.<drop counter> */
	uint64_t d[NLINK];   /* deltas */
	bool shown;          /* in the devices figure */
	struct netdev_aliases al;
};

/* Packets attributed to a CPU set. */
struct setsum {
	double rx_pps, tx_pps, rx_packets, tx_packets;
};

/* The state of one report_build. */
struct report {
	struct sampler *s;
	const struct series_registry *reg;
	const struct snapshot *a, *b;
	const struct report_opts *opts;
	double secs[RING_MAX_SOURCES]; /* per source, from the snapshots */
	struct rcpu *cpu;              /* by CPU number */
	size_t ncpu;
	uint64_t cpu_all[CPUUTIL_NMODES];
	bool cpu_all_seen;
	double cpu_scale;                   /* seconds per tick */
	int cpu_src, sirq_src, softnet_src; /* source indexes; -1: no series */
	uint64_t softnet[NSOFTNET];
	struct rdev *devs;
	size_t ndevs, capdevs;
	struct idlist ethtool, lnstat, sysctl;
	struct setsum by_irq[REPORT_MAX_CPUSETS], by_index[REPORT_MAX_CPUSETS];
	uint64_t dev_rx, dev_tx;      /* link packets over the devices shown */
	json_object *gone;            /* the devices that went inside the window (device_json) */
	const struct irq_table *irqs; /* the table in force during the window (report_irqs) */
	int rootfd;                   /* the sampler's root */
};

/* Append an id. */
static void
idlist_add(struct idlist *l, series_id id)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 32;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->n++] = id;
}

/* Increment of a series over the window, raw units; 0 for SERIES_NONE. */
static uint64_t
delta(const struct report *r, series_id id)
{
	return id == SERIES_NONE ? 0 : snapshot_delta(r->a, r->b, id);
}

/* Increment in the series' unit (signed for a gauge). */
static double
delta_unit(const struct report *r, series_id id)
{
	const struct series_info *si;
	uint64_t d = delta(r, id);

	if (id == SERIES_NONE)
		return 0;
	si = series_get(r->reg, id);
	if (si->kind == SERIES_GAUGE)
		return (double)(int64_t)d * si->scale;
	return (double)d * si->scale;
}

/* Seconds of the window as seen by the source of a series. */
static double
secs_of(const struct report *r, series_id id)
{
	if (id == SERIES_NONE)
		return 0;
	return r->secs[series_get(r->reg, id)->source % RING_MAX_SOURCES];
}

/* v per second over secs; 0 when the source has no span. */
static double
per_s(double v, double secs)
{
	return secs > 0 ? v / secs : 0;
}

/* a / b, NaN (null in JSON) when b is 0. */
static double
ratio(double a, double b)
{
	return b != 0 ? a / b : NAN;
}

/* Add a number: a whole one as an integer (counts stay counts), else a double. */
static void
add_number(json_object *o, const char *key, double v)
{
	if (v == trunc(v) && fabs(v) < 9e15)
		json_add_int(o, key, (int64_t)v);
	else
		json_add_double(o, key, v);
}

/* Add "key" and "key_per_s". */
static void
add_twin(json_object *o, const char *key, double v, double secs)
{
	char name[96];

	add_number(o, key, v);
	snprintf(name, sizeof(name), "%s_per_s", key);
	json_add_double(o, name, per_s(v, secs));
}

/* The per-CPU record of CPU c, grown as needed. */
static struct rcpu *
cpu_at(struct report *r, long c)
{
	if ((size_t)c >= r->ncpu) {
		size_t n = (size_t)c + 1;
		r->cpu = xreallocarray(r->cpu, n, sizeof(*r->cpu));
		memset(r->cpu + r->ncpu, 0, (n - r->ncpu) * sizeof(*r->cpu));
		r->ncpu = n;
	}
	return &r->cpu[c];
}

/* The atoms a scan compares labels with, looked up once (SERIES_ATOM_NONE: no series has
 * it). */
struct scan_atoms {
	series_atom cpu, softirqs, softnet, link, ethtool, lnstat, sysctl; /* sources */
	series_atom net_rx, net_tx, online;
	series_atom modes[CPUUTIL_NMODES];
	series_atom softnet_cols[NSOFTNET];
	series_atom link_stats[NLINK];
};

/* Look up the atoms of a scan. */
static void
scan_atoms_init(const struct series_registry *reg, struct scan_atoms *a)
{
	a->cpu = series_atom_find(reg, "cpu");
	a->softirqs = series_atom_find(reg, "softirqs");
	a->softnet = series_atom_find(reg, "softnet");
	a->link = series_atom_find(reg, "link");
	a->ethtool = series_atom_find(reg, "ethtool");
	a->lnstat = series_atom_find(reg, "lnstat");
	a->sysctl = series_atom_find(reg, "sysctl");
	a->net_rx = series_atom_find(reg, "NET_RX");
	a->net_tx = series_atom_find(reg, "NET_TX");
	a->online = series_atom_find(reg, "online");
	for (size_t m = 0; m < CPUUTIL_NMODES; m++)
		a->modes[m] = series_atom_find(reg, cpuutil_modes[m]);
	for (size_t i = 0; i < NSOFTNET; i++)
		a->softnet_cols[i] = series_atom_find(reg, softnet_cols[i]);
	for (size_t i = 0; i < NLINK; i++)
		a->link_stats[i] = series_atom_find(reg, link_stats[i]);
}

/* A series of the cpu source: cpu=C mode=M, cpu none mode=M (all CPUs), cpu=C field=online. */
static void
scan_cpu(struct report *r, const struct scan_atoms *a, series_id id, const struct series_labels *l)
{
	const struct series_info *si = series_get(r->reg, id);
	int m = -1;

	if (l->cpu >= 0 && l->field == a->online && a->online != SERIES_ATOM_NONE) {
		/* A CPU online at the end counts (with no tick: 100 % idle). */
		cpu_at(r, l->cpu)->seen |= snapshot_acc(r->b, id) != 0;
		return;
	}
	for (int k = 0; k < CPUUTIL_NMODES && l->mode != SERIES_ATOM_NONE; k++)
		if (l->mode == a->modes[k])
			m = k;
	if (m < 0)
		return;
	r->cpu_scale = si->scale;
	r->cpu_src = si->source;
	if (l->cpu < 0) {
		r->cpu_all[m] = delta(r, id);
		r->cpu_all_seen = true;
	} else {
		struct rcpu *rc = cpu_at(r, l->cpu);
		rc->mode[m] = delta(r, id);
		rc->seen |= rc->mode[m] != 0;
	}
}

/* A series of the softirqs source of type NET_RX or NET_TX on a CPU. */
static void
scan_softirq(struct report *r, const struct scan_atoms *a, series_id id,
             const struct series_labels *l)
{
	bool rx = l->type == a->net_rx;

	if (l->cpu < 0 || l->type == SERIES_ATOM_NONE || (!rx && l->type != a->net_tx))
		return;
	r->sirq_src = series_get(r->reg, id)->source;
	if (rx)
		cpu_at(r, l->cpu)->net_rx = delta(r, id);
	else
		cpu_at(r, l->cpu)->net_tx = delta(r, id);
}

/* A series of the softnet source: one column of one CPU. */
static void
scan_softnet(struct report *r, const struct scan_atoms *a, series_id id,
             const struct series_labels *l)
{
	if (l->cpu < 0 || l->field == SERIES_ATOM_NONE)
		return;
	for (size_t i = 0; i < NSOFTNET; i++)
		if (l->field == a->softnet_cols[i]) {
			r->softnet[i] += delta(r, id);
			r->softnet_src = series_get(r->reg, id)->source;
		}
}

/* The device record named name[0..len), created when missing. Series of one device are
 * adjacent in id order: the last one is tried first. */
static struct rdev *
dev_get(struct report *r, const char *name, size_t len)
{
	struct rdev *d;

	if (len >= IRQ_DEVICE_MAX)
		return NULL;
	for (size_t i = r->ndevs; i > 0; i--) {
		d = &r->devs[i - 1];
		if (strncmp(d->name, name, len) == 0 && d->name[len] == '\0')
			return d;
	}
	if (r->ndevs == r->capdevs) {
		r->capdevs = r->capdevs ? r->capdevs * 2 : 16;
		r->devs = xreallocarray(r->devs, r->capdevs, sizeof(*r->devs));
	}
	d = &r->devs[r->ndevs++];
	memset(d, 0, sizeof(*d));
	memcpy(d->name, name, len);
	for (size_t i = 0; i < NLINK; i++)
		d->link[i] = SERIES_NONE;
	return d;
}

/* A series of the link source: device=D field=<stat>. */
static void
scan_link(struct report *r, const struct scan_atoms *a, series_id id, const struct series_labels *l)
{
	const char *dev = series_atom_str(r->reg, l->device);
	struct rdev *d;

	if (l->device == SERIES_ATOM_NONE || l->field == SERIES_ATOM_NONE)
		return;
	for (size_t i = 0; i < NLINK; i++)
		if (l->field == a->link_stats[i]) {
			if ((d = dev_get(r, dev, strlen(dev))) != NULL)
				d->link[i] = id;
			return;
		}
}

/* Does an ethtool counter's name make it a drop counter? */
static bool
is_drop_counter(const char *name)
{
	for (size_t i = 0; i < sizeof(drop_words) / sizeof(drop_words[0]); i++)
		if (strstr(name, drop_words[i]) != NULL)
			return true;
	return false;
}

/* Sort one series into the report's lists by its source and labels. */
static void
scan_one(struct report *r, const struct scan_atoms *a, series_id id)
{
	const struct series_labels lv = series_labels_of(r->reg, id), *l = &lv;
	series_atom src = r->reg->source_atom[series_get(r->reg, id)->source];

	if (src == SERIES_ATOM_NONE)
		return;
	if (src == a->cpu)
		scan_cpu(r, a, id, l);
	else if (src == a->softirqs)
		scan_softirq(r, a, id, l);
	else if (src == a->softnet)
		scan_softnet(r, a, id, l);
	else if (src == a->sysctl)
		idlist_add(&r->sysctl, id);
	else if (src == a->link)
		scan_link(r, a, id, l);
	else if (src == a->lnstat && l->table != SERIES_ATOM_NONE && l->cpu < 0)
		idlist_add(&r->lnstat, id); /* the sums and entries of a table, not per CPU */
	else if (src == a->ethtool && l->device != SERIES_ATOM_NONE &&
	         is_drop_counter(series_atom_str(r->reg, l->field)) && delta(r, id) != 0)
		idlist_add(&r->ethtool, id);
}

/* Give each drop counter to its device (one with ethtool stats but no link stats gets a
 * record now). */
static void
assign_drops(struct report *r)
{
	for (size_t i = 0; i < r->ethtool.n; i++) {
		const struct series_labels lv = series_labels_of(r->reg, r->ethtool.v[i]), *l = &lv;
		const char *dev = series_atom_str(r->reg, l->device);
		struct rdev *d = dev_get(r, dev, strlen(dev));

		if (d != NULL)
			idlist_add(&d->drops, r->ethtool.v[i]);
	}
}

/* One pass over every series the window's end knows. */
static void
scan(struct report *r)
{
	size_t n = r->b->n < r->reg->n ? r->b->n : r->reg->n;
	struct scan_atoms a;

	scan_atoms_init(r->reg, &a);
	for (size_t id = 0; id < n; id++)
		scan_one(r, &a, (series_id)id);
	assign_drops(r);
}

/* ---- queues ---- */

/* The traffic of one queue index. */
struct qtraffic {
	uint64_t rx, tx;
	double rx_pps, tx_pps;
};

/* Credit a queue's traffic to the CPU sets: in proportion to the interrupts its IRQs
 * fired on each set's CPUs; when they fired none (busy polling), to the CPUs their
 * effective affinity (else affinity) names, evenly. fired gets the CPUs that fired. */
static void
credit_by_irq(struct report *r, const struct netdev_queue_irqs *m, const struct qtraffic *t,
              struct cpuset *fired)
{
	const struct report_opts *o = r->opts;
	double w[REPORT_MAX_CPUSETS] = {0}, total = 0;

	cpuset_zero(fired);
	for (unsigned i = 0; i < m->n; i++) {
		const struct irq_info *irq = m->irq[i];
		for (unsigned c = 0; c < irq->ncpus; c++) {
			uint64_t d = delta(r, irq->cpu_series[c]);
			if (d == 0)
				continue;
			cpuset_add(fired, c);
			total += (double)d;
			for (size_t s = 0; s < o->ncpusets; s++)
				if (cpuset_has(&o->cpusets[s].set, c))
					w[s] += (double)d;
		}
	}
	if (total == 0) {
		struct cpuset steer, both;
		cpuset_zero(&steer);
		for (unsigned i = 0; i < m->n; i++) {
			if (m->irq[i]->has_effective)
				cpuset_or(&steer, &m->irq[i]->effective);
			else if (m->irq[i]->has_affinity)
				cpuset_or(&steer, &m->irq[i]->affinity);
		}
		total = cpuset_count(&steer);
		for (size_t s = 0; s < o->ncpusets; s++) {
			both = steer;
			cpuset_and(&both, &o->cpusets[s].set);
			w[s] = cpuset_count(&both);
		}
	}
	for (size_t s = 0; total > 0 && s < o->ncpusets; s++) {
		double f = w[s] / total;
		r->by_irq[s].rx_pps += t->rx_pps * f;
		r->by_irq[s].tx_pps += t->tx_pps * f;
		r->by_irq[s].rx_packets += (double)t->rx * f;
		r->by_irq[s].tx_packets += (double)t->tx * f;
	}
}

/* Credit a queue's traffic to the sets holding its index (the old convention: queue N is
 * served by CPU N). */
static void
credit_by_index(struct report *r, uint32_t idx, const struct qtraffic *t)
{
	for (size_t s = 0; s < r->opts->ncpusets; s++) {
		if (!cpuset_has(&r->opts->cpusets[s].set, idx))
			continue;
		r->by_index[s].rx_pps += t->rx_pps;
		r->by_index[s].tx_pps += t->tx_pps;
		r->by_index[s].rx_packets += (double)t->rx;
		r->by_index[s].tx_packets += (double)t->tx;
	}
}

/* Packets and rates of a queue row or a total. */
static void
traffic_json(json_object *o, const struct qtraffic *t)
{
	json_add_double(o, "rx_pps", t->rx_pps);
	json_add_double(o, "tx_pps", t->tx_pps);
	json_add_uint(o, "rx_packets", t->rx);
	json_add_uint(o, "tx_packets", t->tx);
}

/* The traffic of queue index idx of the device's entries [first, last) of the list. */
static bool
queue_traffic(const struct report *r, const struct queue_info *q, size_t first, size_t last,
              uint32_t idx, struct qtraffic *t)
{
	bool seen = false;

	memset(t, 0, sizeof(*t));
	for (size_t i = first; i < last; i++) {
		if (q[i].index != idx)
			continue;
		seen = true;
		if (q[i].dir == QUEUE_RX) {
			t->rx += delta(r, q[i].packets);
			t->rx_pps += per_s(delta_unit(r, q[i].packets), secs_of(r, q[i].packets));
		} else {
			t->tx += delta(r, q[i].packets);
			t->tx_pps += per_s(delta_unit(r, q[i].packets), secs_of(r, q[i].packets));
		}
	}
	return seen;
}

/* One device of the queues figure: entries [first, last) of the queue list, merged by
 * index. NULL when none of its queues moved. */
static json_object *
queue_device_json(struct report *r, const struct queue_info *q, size_t first, size_t last,
                  int rootfd)
{
	json_object *o, *arr = json_object_new_array();
	struct netdev_aliases al;
	struct netdev_queue_irqs *map;
	struct qtraffic tot = {0}, t;
	uint32_t maxq = 0;
	size_t hidden = 0;
	char list[1024];

	for (size_t i = first; i < last; i++)
		if (q[i].index + 1 > maxq)
			maxq = q[i].index + 1;
	netdev_aliases(rootfd, q[first].dev, &al);
	map = xcalloc(maxq ? maxq : 1, sizeof(*map));
	netdev_map_queue_irqs(r->irqs, &al, map, maxq);
	for (uint32_t idx = 0; idx < maxq; idx++) {
		struct cpuset fired;
		json_object *qo;
		if (!queue_traffic(r, q, first, last, idx, &t) || t.rx + t.tx == 0)
			continue;
		tot.rx += t.rx;
		tot.tx += t.tx;
		tot.rx_pps += t.rx_pps;
		tot.tx_pps += t.tx_pps;
		credit_by_irq(r, &map[idx], &t, &fired);
		credit_by_index(r, idx, &t);
		if (t.rx_pps + t.tx_pps < r->opts->min_queue_rate) {
			hidden++;
			continue;
		}
		qo = json_object_new_object();
		json_add_int(qo, "queue", idx);
		traffic_json(qo, &t);
		cpuset_format_list(&fired, list, sizeof(list));
		json_add_string(qo, "irq_cpus", list);
		json_add_string(qo, "irq_origin", netdev_queue_irqs_origin(&map[idx]));
		json_object_array_add(arr, qo);
	}
	free(map);
	if (tot.rx + tot.tx == 0) {
		json_object_put(arr);
		return NULL;
	}
	o = json_object_new_object();
	json_add_string(o, "name", q[first].dev);
	json_add_string(o, "counters", q[first].counters);
	json_object_object_add(o, "queues", arr);
	json_add_uint(o, "hidden", hidden);
	json_object_object_add(o, "total", json_object_new_object());
	traffic_json(json_object_object_get(o, "total"), &tot);
	return o;
}

/* A set's packets as an object. */
static json_object *
setsum_json(const struct setsum *s)
{
	json_object *o = json_object_new_object();

	json_add_double(o, "rx_pps", s->rx_pps);
	json_add_double(o, "tx_pps", s->tx_pps);
	add_number(o, "rx_packets", s->rx_packets);
	add_number(o, "tx_packets", s->tx_packets);
	return o;
}

/* The queues figure: devices, the CPU sets' sums and the ratio of the first two sets. */
static json_object *
queues_json(struct report *r)
{
	struct source *qsrc = sampler_source_of(r->s, SAMPLER_QUEUES);
	const struct report_opts *o = r->opts;
	json_object *fig = json_object_new_object(), *devs = json_object_new_array();
	json_object *sets = json_object_new_array();
	const struct queue_info *q = NULL;
	size_t n = 0, i = 0;

	if (qsrc != NULL)
		q = source_queues_list(qsrc, &n);
	while (i < n) {
		size_t j = i;
		json_object *d;
		while (j < n && strcmp(q[j].dev, q[i].dev) == 0)
			j++;
		if ((o->device == NULL || strcmp(o->device, q[i].dev) == 0) &&
		    (d = queue_device_json(r, q, i, j, r->rootfd)) != NULL)
			json_object_array_add(devs, d);
		i = j;
	}
	json_add_double(fig, "min_rate", o->min_queue_rate);
	json_object_object_add(fig, "devices", devs);
	for (size_t s = 0; s < o->ncpusets; s++) {
		json_object *so = json_object_new_object();
		json_add_string(so, "name", o->cpusets[s].name);
		json_add_string(so, "cpus", o->cpusets[s].list);
		json_object_object_add(so, "by_irq_cpu", setsum_json(&r->by_irq[s]));
		json_object_object_add(so, "by_queue_index", setsum_json(&r->by_index[s]));
		json_object_array_add(sets, so);
	}
	json_object_object_add(fig, "cpusets", sets);
	if (o->ncpusets >= 2) {
		json_object *ro = json_object_new_object(), *names = json_object_new_array();
		const struct setsum *x = r->by_irq, *y = r->by_index;
		json_object_array_add(names, json_object_new_string(o->cpusets[0].name));
		json_object_array_add(names, json_object_new_string(o->cpusets[1].name));
		json_object_object_add(ro, "sets", names);
		json_add_double(ro, "by_irq_cpu",
		                ratio(x[0].rx_pps + x[0].tx_pps, x[1].rx_pps + x[1].tx_pps));
		json_add_double(ro, "by_queue_index",
		                ratio(y[0].rx_pps + y[0].tx_pps, y[1].rx_pps + y[1].tx_pps));
		json_object_object_add(fig, "ratio", ro);
	}
	return fig;
}

/* ---- devices ---- */

/* One device's link stats, driver drops and their rates; counts what it shows into the
 * report's totals. NULL when it is not shown. */
static json_object *
device_json(struct report *r, struct rdev *d)
{
	json_object *o, *drops, *drops_s;
	bool moved = d->drops.n > 0;
	double secs = 0;
	uint64_t gone = 0, back = 0;
	const uint64_t *base, *epoch_ns;
	size_t nepoch;
	char key[128];

	sampler_totals(r->s, &base, &epoch_ns, &nepoch);
	for (size_t i = 0; i < NLINK; i++) {
		d->d[i] = delta(r, d->link[i]);
		moved |= d->d[i] != 0;
		if (d->link[i] != SERIES_NONE) {
			secs = secs_of(r, d->link[i]);
			gone = sampler_gone_ns(r->s, d->link[i]);
			back = d->link[i] < nepoch ? epoch_ns[d->link[i]] : 0;
		}
	}
	/* Went away inside the window (its figures stop there), and came back if it did. */
	if (gone <= r->a->mono_ns || gone > r->b->mono_ns)
		gone = 0;
	if (gone == 0 || back <= gone || back > r->b->mono_ns)
		back = 0;
	if (r->opts->device != NULL ? strcmp(r->opts->device, d->name) != 0 : !moved && !gone)
		return NULL;
	d->shown = true;
	r->dev_rx += d->d[LINK_RXP];
	r->dev_tx += d->d[LINK_TXP];
	o = json_object_new_object();
	json_add_string(o, "name", d->name);
	for (size_t i = 0; i < NLINK; i++)
		json_add_uint(o, link_stats[i], d->d[i]);
	for (size_t i = 0; i < NLINK; i++) {
		snprintf(key, sizeof(key), "%s_per_s", link_stats[i]);
		json_add_double(o, key, per_s((double)d->d[i], secs));
	}
	drops = json_object_new_object();
	drops_s = json_object_new_object();
	for (size_t i = 0; i < d->drops.n; i++) {
		series_id id = d->drops.v[i];
		const char *name = series_get(r->reg, id)->name + 8 + strlen(d->name) + 1;
		json_add_uint(drops, name, delta(r, id));
		json_add_double(drops_s, name, per_s((double)delta(r, id), secs_of(r, id)));
	}
	json_object_object_add(o, "driver_drops", drops);
	json_object_object_add(o, "driver_drops_per_s", drops_s);
	if (gone) {
		json_object *g = json_object_new_object();
		char at[40];
		json_add_string(g, "device", d->name);
		json_add_double(g, "after_s", round((double)(gone - r->a->mono_ns) / 1e6) / 1e3);
		time_format_rfc3339(r->a->real_ns + (gone - r->a->mono_ns), at, sizeof(at));
		json_add_string(g, "at", at);
		if (back)
			json_add_double(g, "back_after_s",
			                round((double)(back - r->a->mono_ns) / 1e6) / 1e3);
		json_object_array_add(r->gone, g);
	}
	return o;
}

/* The devices figure: every device that moved (or the one asked for). */
static json_object *
devices_json(struct report *r)
{
	json_object *arr = json_object_new_array(), *o;

	for (size_t i = 0; i < r->ndevs; i++)
		if ((o = device_json(r, &r->devs[i])) != NULL)
			json_object_array_add(arr, o);
	return arr;
}

/* ---- CPU ---- */

/* Seconds per mode of the CPUs of set (all recorded CPUs when set is NULL); the number of
 * CPUs counted goes to *count. */
static void
cpu_seconds(const struct report *r, const struct cpuset *set, double secs[CPUUTIL_NMODES],
            unsigned *count)
{
	uint64_t sum[CPUUTIL_NMODES] = {0};

	*count = 0;
	for (size_t c = 0; c < r->ncpu; c++) {
		if (!r->cpu[c].seen || (set != NULL && !cpuset_has(set, (unsigned)c)))
			continue;
		for (int m = 0; m < CPUUTIL_NMODES; m++)
			sum[m] += r->cpu[c].mode[m];
		(*count)++;
	}
	for (int m = 0; m < CPUUTIL_NMODES; m++)
		secs[m] = (double)sum[m] * r->cpu_scale;
}

/* The cpu figure: utilisation of all CPUs and of each set, and CPU time per packet. */
static json_object *
cpu_json(struct report *r)
{
	json_object *fig = json_object_new_object(), *sets = json_object_new_array();
	double span = r->cpu_src >= 0 ? r->secs[r->cpu_src] : 0, secs[CPUUTIL_NMODES];
	unsigned count;

	cpu_seconds(r, NULL, secs, &count); /* only the count: the CPUs the sums cover */
	for (int m = 0; m < CPUUTIL_NMODES; m++)
		secs[m] = (double)r->cpu_all[m] * r->cpu_scale;
	json_object_object_add(fig, "all", cpuutil_json(secs, span, count));
	json_add_double(fig, "busy_us_per_packet",
	                ratio(cpuutil_busy(secs) * 1e6, (double)(r->dev_rx + r->dev_tx)));
	for (size_t s = 0; s < r->opts->ncpusets; s++) {
		json_object *so = json_object_new_object(), *util;
		cpu_seconds(r, &r->opts->cpusets[s].set, secs, &count);
		json_add_string(so, "name", r->opts->cpusets[s].name);
		json_add_string(so, "cpus", r->opts->cpusets[s].list);
		json_add_uint(so, "count", count);
		util = cpuutil_json(secs, span, count);
		json_object_object_foreach(util, k, v)
		    json_object_object_add(so, k, json_object_get(v));
		json_object_put(util);
		json_object_array_add(sets, so);
	}
	json_object_object_add(fig, "sets", sets);
	return fig;
}

/* ---- interrupts ---- */

/* Is an arch line the function-call IPI: x86 CAL, arm64's "Function call interrupts"? */
static bool
is_cal(const struct irq_info *irq)
{
	return strcmp(irq->label, "CAL") == 0 ||
	       (irqtable_is_ipi(irq->label) && strcmp(irq->name, "Function call interrupts") == 0);
}

/* Is an arch line x86's TLB shootdown line? A shootdown is sent as a function-call IPI,
 * so the CAL line counts it already: TLB is a part of CAL, never added to it. */
static bool
is_tlb(const struct irq_info *irq)
{
	return strcmp(irq->label, "TLB") == 0;
}

/* Interrupts of one line over the window, every CPU. */
static uint64_t
irq_delta(const struct report *r, const struct irq_info *irq)
{
	uint64_t sum = delta(r, irq->total);

	for (unsigned c = 0; c < irq->ncpus; c++)
		sum += delta(r, irq->cpu_series[c]);
	return sum;
}

/* Interrupts per device: a device (by the name its IRQs give) and its count. */
struct irqdev {
	const char *device;
	uint64_t total;
};

/* Larger counts first, then by name. */
static int
irqdev_cmp(const void *x, const void *y)
{
	const struct irqdev *a = x, *b = y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(a->device, b->device);
}

/* The network device whose name or parent an IRQ device name is, or NULL. */
static const char *
netdev_of(struct report *r, const char *device, int rootfd)
{
	for (size_t i = 0; i < r->ndevs; i++) {
		struct rdev *d = &r->devs[i];
		if (d->al.name[0] == '\0')
			netdev_aliases(rootfd, d->name, &d->al);
		if (strcmp(d->al.name, device) == 0 ||
		    (d->al.parent[0] && strcmp(d->al.parent, device) == 0))
			return d->name;
	}
	return NULL;
}

/* Seconds of the window as seen by the source of the IRQ table's series (0 without any). */
static double
irq_seconds(const struct report *r)
{
	for (size_t i = 0; r->irqs != NULL && i < r->irqs->n; i++) {
		const struct irq_info *irq = &r->irqs->v[i];
		if (irq->total != SERIES_NONE)
			return secs_of(r, irq->total);
		for (unsigned c = 0; c < irq->ncpus; c++)
			if (irq->cpu_series[c] != SERIES_NONE)
				return secs_of(r, irq->cpu_series[c]);
	}
	return 0;
}

/* The interrupts figure: function-call IPIs (TLB shootdowns among them), all IPIs (each
 * IPI line once: TLB left out, as CAL holds it), each IPI line, and interrupts per device
 * (IRQs grouped by the device their name gives, else by their action names). */
static json_object *
interrupts_json(struct report *r)
{
	json_object *fig = json_object_new_object(), *ipis = json_object_new_array();
	json_object *devs = json_object_new_array();
	const struct irq_info *irqs = NULL;
	struct irqdev *dv = NULL;
	size_t n = 0, ndv = 0;
	uint64_t cal = 0, tlb = 0, all = 0;
	double secs;

	if (r->irqs != NULL) {
		irqs = r->irqs->v;
		n = r->irqs->n;
	}
	secs = irq_seconds(r);
	dv = xcalloc(n ? n : 1, sizeof(*dv));
	for (size_t i = 0; i < n; i++) {
		const struct irq_info *irq = &irqs[i];
		const char *dev = irq->queue.device[0] ? irq->queue.device : irq->name;
		uint64_t d = irq_delta(r, irq);
		size_t k;
		json_object *lo;
		if (irq->irq < 0) {
			if (!irqtable_is_ipi(irq->label))
				continue;
			lo = json_object_new_object();
			json_add_string(lo, "line", irq->label);
			json_add_uint(lo, "total", d);
			json_add_double(lo, "per_s", per_s((double)d, secs));
			json_add_bool(lo, "in_ipi_all", !is_tlb(irq));
			json_object_array_add(ipis, lo);
			all += is_tlb(irq) ? 0 : d;
			tlb += is_tlb(irq) ? d : 0;
			cal += is_cal(irq) ? d : 0;
			continue;
		}
		if (d == 0)
			continue;
		for (k = 0; k < ndv && strcmp(dv[k].device, dev) != 0; k++)
			;
		if (k == ndv)
			dv[ndv++].device = dev;
		dv[k].total += d;
	}
	qsort(dv, ndv, sizeof(*dv), irqdev_cmp);
	for (size_t k = 0; k < ndv; k++) {
		json_object *o = json_object_new_object();
		const char *nd = netdev_of(r, dv[k].device, r->rootfd);
		json_add_string(o, "device", dv[k].device);
		if (nd != NULL)
			json_add_string(o, "netdev", nd);
		json_add_uint(o, "total", dv[k].total);
		json_add_double(o, "per_s", per_s((double)dv[k].total, secs));
		json_object_array_add(devs, o);
	}
	free(dv);
	add_twin(fig, "ipi_cal", (double)cal, secs);
	add_twin(fig, "ipi_tlb", (double)tlb, secs);
	add_twin(fig, "ipi_all", (double)all, secs);
	json_object_object_add(fig, "ipis", ipis);
	json_object_object_add(fig, "devices", devs);
	return fig;
}

/* ---- softirqs ---- */

/* The softirqs figure: NET_RX and NET_TX in all, per CPU (those that had any) and per CPU
 * set, and received packets per NET_RX softirq. */
static json_object *
softirqs_json(struct report *r)
{
	json_object *fig = json_object_new_object(), *per = json_object_new_array();
	json_object *sets = json_object_new_array();
	double secs = r->sirq_src >= 0 ? r->secs[r->sirq_src] : 0;
	uint64_t rx = 0, tx = 0;

	for (size_t c = 0; c < r->ncpu; c++) {
		const struct rcpu *rc = &r->cpu[c];
		json_object *o;
		rx += rc->net_rx;
		tx += rc->net_tx;
		if (rc->net_rx + rc->net_tx == 0)
			continue;
		o = json_object_new_object();
		json_add_int(o, "cpu", (int64_t)c);
		add_twin(o, "net_rx", (double)rc->net_rx, secs);
		add_twin(o, "net_tx", (double)rc->net_tx, secs);
		json_object_array_add(per, o);
	}
	add_twin(fig, "net_rx", (double)rx, secs);
	add_twin(fig, "net_tx", (double)tx, secs);
	json_add_uint(fig, "rx_packets", r->dev_rx);
	json_add_double(fig, "packets_per_net_rx", ratio((double)r->dev_rx, (double)rx));
	json_object_object_add(fig, "per_cpu", per);
	for (size_t s = 0; s < r->opts->ncpusets; s++) {
		const struct cpuset *set = &r->opts->cpusets[s].set;
		json_object *so = json_object_new_object();
		uint64_t srx = 0, stx = 0;
		for (size_t c = 0; c < r->ncpu; c++)
			if (cpuset_has(set, (unsigned)c)) {
				srx += r->cpu[c].net_rx;
				stx += r->cpu[c].net_tx;
			}
		json_add_string(so, "name", r->opts->cpusets[s].name);
		json_add_string(so, "cpus", r->opts->cpusets[s].list);
		add_twin(so, "net_rx", (double)srx, secs);
		add_twin(so, "net_tx", (double)stx, secs);
		add_number(so, "rx_packets", r->by_irq[s].rx_packets);
		json_add_double(so, "packets_per_net_rx",
		                ratio(r->by_irq[s].rx_packets, (double)srx));
		json_object_array_add(sets, so);
	}
	json_object_object_add(fig, "sets", sets);
	return fig;
}

/* ---- softnet, TCP, sysctl, lnstat ---- */

/* The softnet figure: drops, squeezes and the rest summed over CPUs. */
static json_object *
softnet_json(const struct report *r)
{
	json_object *fig = json_object_new_object();
	double secs = r->softnet_src >= 0 ? r->secs[r->softnet_src] : 0;

	for (size_t i = 0; i < NSOFTNET; i++)
		add_twin(fig, softnet_cols[i], (double)r->softnet[i], secs);
	return fig;
}

/* Add a counter's increment and rate under key (0 when the series does not exist). */
static void
add_series(const struct report *r, json_object *o, const char *key, const char *series)
{
	series_id id = series_find(r->reg, series);

	add_twin(o, key, delta_unit(r, id), secs_of(r, id));
}

/* The tcp figure: segments in, out, retransmitted, the retransmit ratio, and the TcpExt
 * fields asked for. NULL when there are no TCP counters. */
static json_object *
tcp_json(const struct report *r)
{
	json_object *fig, *ext;
	series_id out = series_find(r->reg, "snmp.Tcp.OutSegs");
	series_id re = series_find(r->reg, "snmp.Tcp.RetransSegs");
	char name[128];

	if (out == SERIES_NONE)
		return NULL;
	fig = json_object_new_object();
	add_series(r, fig, "in_segs", "snmp.Tcp.InSegs");
	add_series(r, fig, "out_segs", "snmp.Tcp.OutSegs");
	add_series(r, fig, "retrans_segs", "snmp.Tcp.RetransSegs");
	json_add_double(fig, "retrans_ratio", ratio(delta_unit(r, re), delta_unit(r, out)));
	ext = json_object_new_object();
	for (const char *const *f = r->opts->tcpext; f != NULL && *f != NULL; f++) {
		snprintf(name, sizeof(name), "snmp.TcpExt.%s", *f);
		if (series_find(r->reg, name) != SERIES_NONE)
			add_series(r, ext, *f, name);
	}
	json_object_object_add(fig, "tcpext", ext);
	return fig;
}

/* The UDP fields of the udp figure: its key, the /proc/net/snmp Udp field and the
 * /proc/net/snmp6 name of the same counter for IPv6. */
static const struct {
	const char *key, *v4, *v6;
} udp_fields[] = {
    {"in_datagrams", "snmp.Udp.InDatagrams", "snmp6.Udp6InDatagrams"},
    {"out_datagrams", "snmp.Udp.OutDatagrams", "snmp6.Udp6OutDatagrams"},
    {"in_errors", "snmp.Udp.InErrors", "snmp6.Udp6InErrors"},
    {"rcvbuf_errors", "snmp.Udp.RcvbufErrors", "snmp6.Udp6RcvbufErrors"},
    {"sndbuf_errors", "snmp.Udp.SndbufErrors", "snmp6.Udp6SndbufErrors"},
    {"no_ports", "snmp.Udp.NoPorts", "snmp6.Udp6NoPorts"},
};
#define UDP_IN     0
#define UDP_ERRORS 2

/* The udp figure: datagrams in and out and the receive and send errors, IPv4 and IPv6
 * together, each with its rate; in_loss_pct, the datagrams UDP dropped on receipt (InErrors,
 * which holds RcvbufErrors) in % of those that reached it. NULL when there are no UDP
 * counters. */
static json_object *
udp_json(const struct report *r)
{
	double v[sizeof(udp_fields) / sizeof(udp_fields[0])];
	json_object *fig;

	if (series_find(r->reg, udp_fields[0].v4) == SERIES_NONE &&
	    series_find(r->reg, udp_fields[0].v6) == SERIES_NONE)
		return NULL;
	fig = json_object_new_object();
	for (size_t i = 0; i < sizeof(udp_fields) / sizeof(udp_fields[0]); i++) {
		series_id a = series_find(r->reg, udp_fields[i].v4);
		series_id b = series_find(r->reg, udp_fields[i].v6);
		double secs = a != SERIES_NONE ? secs_of(r, a) : secs_of(r, b);
		v[i] = delta_unit(r, a) + delta_unit(r, b);
		add_twin(fig, udp_fields[i].key, v[i], secs);
	}
	json_add_double(fig, "in_loss_pct", 100 * ratio(v[UDP_ERRORS], v[UDP_IN] + v[UDP_ERRORS]));
	return fig;
}

/* The sysctl figure: every configured sysctl's increment (signed for a level). */
static json_object *
sysctl_json(const struct report *r)
{
	json_object *fig = json_object_new_object();

	for (size_t i = 0; i < r->sysctl.n; i++)
		add_number(fig,
		           series_atom_str(r->reg, series_labels_of(r->reg, r->sysctl.v[i]).field),
		           delta_unit(r, r->sysctl.v[i]));
	return fig;
}

/* The lnstat figure: {table: {field: increment}} of the sums that moved. */
static json_object *
lnstat_json(const struct report *r)
{
	json_object *fig = json_object_new_object(), *t = NULL;
	series_atom table = SERIES_ATOM_NONE;

	for (size_t i = 0; i < r->lnstat.n; i++) {
		const struct series_labels lv = series_labels_of(r->reg, r->lnstat.v[i]), *l = &lv;
		double d = delta_unit(r, r->lnstat.v[i]);
		const char *tn = series_atom_str(r->reg, l->table);
		if (d == 0)
			continue;
		if (l->table != table) {
			table = l->table;
			if (!json_object_object_get_ex(fig, tn, &t)) {
				t = json_object_new_object();
				json_object_object_add(fig, tn, t);
			}
		}
		add_number(t, series_atom_str(r->reg, l->field), d);
	}
	return fig;
}

/* ---- the report ---- */

/* Free what the scan allocated. */
static void
report_free(struct report *r)
{
	for (size_t i = 0; i < r->ndevs; i++)
		free(r->devs[i].drops.v);
	free(r->devs);
	free(r->cpu);
	free(r->ethtool.v);
	free(r->lnstat.v);
	free(r->sysctl.v);
}

/* The IRQ table a window's report joins with: the one its end edge kept (in force during
 * the window, whatever changed since), else the start's, else today's. */
static const struct irq_table *
report_irqs(struct sampler *s, const struct snapshot *a, const struct snapshot *b)
{
	if (b->irqs.kind != IRQ_TABLE_EMPTY)
		return &b->irqs;
	if (a->irqs.kind != IRQ_TABLE_EMPTY)
		return &a->irqs;
	return sampler_irq_table(s, NULL);
}

/* Scan the registry, then build each group from the snapshots' increments. */
json_object *
report_build(struct sampler *s, const struct snapshot *a, const struct snapshot *b,
             const struct report_opts *opts, struct nm_error *err)
{
	struct report r = {.s = s, .reg = sampler_registry(s), .a = a, .b = b, .opts = opts};
	json_object *o, *fig, *queues, *devices, *tcp, *udp, *napi, *bpf;

	if (b->mono_ns < a->mono_ns) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "report: the window ends before it starts");
		return NULL;
	}
	r.cpu_src = r.sirq_src = r.softnet_src = -1;
	r.rootfd = sampler_rootfd(s);
	r.irqs = report_irqs(s, a, b);
	for (unsigned i = 0; i < RING_MAX_SOURCES; i++)
		r.secs[i] = snapshot_seconds(a, b, i);
	scan(&r);
	/* Queues first (they fill the sets' sums), devices next (the packet totals). */
	queues = queues_json(&r);
	r.gone = json_object_new_array();
	devices = devices_json(&r);
	o = json_object_new_object();
	json_object_object_add(o, "window", json_object_new_object());
	json_add_double(o, "span_s", (double)(b->mono_ns - a->mono_ns) / 1e9);
	fig = json_object_new_object();
	json_object_object_add(fig, "queues", queues);
	if (r.cpu_all_seen || r.ncpu > 0)
		json_object_object_add(fig, "cpu", cpu_json(&r));
	json_object_object_add(fig, "interrupts", interrupts_json(&r));
	if (r.sirq_src >= 0)
		json_object_object_add(fig, "softirqs", softirqs_json(&r));
	json_object_object_add(fig, "devices", devices);
	if (r.softnet_src >= 0)
		json_object_object_add(fig, "softnet", softnet_json(&r));
	if ((tcp = tcp_json(&r)) != NULL)
		json_object_object_add(fig, "tcp", tcp);
	if ((udp = udp_json(&r)) != NULL)
		json_object_object_add(fig, "udp", udp);
	json_object_object_add(fig, "sysctl", sysctl_json(&r));
	json_object_object_add(fig, "lnstat", lnstat_json(&r));
	if ((bpf = report_bpf_json(r.reg, a, b)) != NULL)
		json_object_object_add(fig, "bpf", bpf); /* report-bpf.c */
	json_object_object_add(o, "figures", fig);
	/* Beside the figures, not among them: ids, IRQs and settings are labels that compare
	 * must not diff as figures. */
	if ((napi = report_napi_json(a, b, opts->device)) != NULL)
		json_object_object_add(o, "napi", napi);
	if (json_object_array_length(r.gone) > 0)
		json_object_object_add(o, "devices_gone", json_object_get(r.gone));
	json_object_put(r.gone);
	report_free(&r);
	return o;
}

/* A set's name: 1-31 of [A-Za-z0-9_.-]. */
static bool
cpuset_name_ok(const char *s, size_t len)
{
	if (len == 0 || len >= sizeof(((struct report_cpuset *)0)->name))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
			return false;
	return true;
}

/* Check NAME and LIST, then append the set. */
int
report_parse_cpuset(struct report_opts *opts, const char *arg, struct nm_error *err)
{
	const char *eq = strchr(arg, '=');
	struct report_cpuset *rc;
	size_t len;

	if (eq == NULL || !cpuset_name_ok(arg, (size_t)(eq - arg)))
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "cpus \"%.64s\": want NAME=LIST, NAME of 1-31 letters, digits, "
		                    "'_', '-' or '.'",
		                    arg);
	len = (size_t)(eq - arg);
	for (size_t i = 0; i < opts->ncpusets; i++)
		if (strncmp(opts->cpusets[i].name, arg, len) == 0 &&
		    opts->cpusets[i].name[len] == '\0')
			return nm_error_set(err, NM_ERR_BAD_ARGS, "cpus: set \"%.*s\" given twice",
			                    (int)len, arg);
	if (opts->ncpusets == REPORT_MAX_CPUSETS)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "cpus: at most %d sets",
		                    REPORT_MAX_CPUSETS);
	if (strlen(eq + 1) >= sizeof(rc->list))
		return nm_error_set(err, NM_ERR_BAD_ARGS, "cpus: set \"%.*s\": list too long",
		                    (int)len, arg);
	rc = &opts->cpusets[opts->ncpusets];
	if (cpuset_parse_any(&rc->set, eq + 1, err) < 0)
		return -1;
	if (cpuset_empty(&rc->set))
		return nm_error_set(err, NM_ERR_BAD_ARGS, "cpus: set \"%.*s\" is empty", (int)len,
		                    arg);
	memcpy(rc->name, arg, len);
	rc->name[len] = '\0';
	snprintf(rc->list, sizeof(rc->list), "%s", eq + 1);
	opts->ncpusets++;
	return 0;
}
