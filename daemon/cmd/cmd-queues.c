/* cmd-queues.c: per-queue rx/tx packet and byte rates of each device, the IRQs of each
 * queue and the CPUs where they fired: the old pkts.sh table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-util.h"
#include "cmd.h"
#include "cpulist.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "napitable.h"
#include "netdev.h"
#include "query.h"
#include "sampler.h"
#include "irqtable.h"
#include "source-queues.h"
#include "xmalloc.h"

/* Rates of one queue index of a device, rx and tx together. */
struct qrow {
	int index;
	double rx_pps, tx_pps, rx_bps, tx_bps;
	uint64_t rx_pkts, tx_pkts;
	uint64_t rx_drops, tx_drops; /* hardware drops in the span (qstats) */
	bool has_drops;
};

/* Rate and delta of a series, or zeros for SERIES_NONE. */
static void
rate_of(struct daemon *d, series_id id, double *rate, uint64_t *delta)
{
	if (id == SERIES_NONE)
		return;
	*rate += query_rate(d->query, id);
	if (delta)
		*delta += query_delta(d->query, id);
}

/* Add the IRQs of one queue to qo: their numbers, affinity and the CPUs that fired. */
static void
queue_irqs(struct daemon *d, const struct netdev_queue_irqs *m, json_object *qo)
{
	struct cpuset fired, aff;
	char list[1024], names[256] = "";
	size_t off = 0;

	cpuset_zero(&fired);
	cpuset_zero(&aff);
	for (unsigned i = 0; i < m->n; i++) {
		const struct irq_info *irq = m->irq[i];
		off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s", i ? "," : "",
		                        irq->label);
		if (off >= sizeof(names))
			off = sizeof(names) - 1;
		if (irq->has_affinity)
			cpuset_or(&aff, &irq->affinity);
		for (unsigned c = 0; c < irq->ncpus; c++)
			if (irq->cpu_series[c] != SERIES_NONE &&
			    query_delta(d->query, irq->cpu_series[c]) > 0)
				cpuset_add(&fired, c);
	}
	json_add_string(qo, "irqs", names);
	json_add_string(qo, "irq_origin", netdev_queue_irqs_origin(m));
	cpuset_format_list(&fired, list, sizeof(list));
	json_add_string(qo, "cpus", list);
	cpuset_format_list(&aff, list, sizeof(list));
	json_add_string(qo, "affinity", list);
}

/* The NAPIs the kernel links the rx and tx queue of index idx to (queue-get, napi-get):
 * "rx_napi", "tx_napi", null when it links none. */
static void
queue_napis(const struct napi_table *nt, const char *dev, uint32_t idx, json_object *qo)
{
	const struct napi_entry *rx = napitable_find_queue(nt, dev, QUEUE_RX, idx);
	const struct napi_entry *tx = napitable_find_queue(nt, dev, QUEUE_TX, idx);

	json_object_object_add(qo, "rx_napi", rx != NULL ? napitable_entry_json(rx) : NULL);
	json_object_object_add(qo, "tx_napi", tx != NULL ? napitable_entry_json(tx) : NULL);
}

/* The rates of a queue row as an object. */
static json_object *
row_json(const struct qrow *r)
{
	json_object *o = json_object_new_object();

	if (r->index >= 0)
		json_add_int(o, "queue", r->index);
	json_add_double(o, "rx_pps", r->rx_pps);
	json_add_double(o, "tx_pps", r->tx_pps);
	json_add_double(o, "rx_bytes_ps", r->rx_bps);
	json_add_double(o, "tx_bytes_ps", r->tx_bps);
	json_add_uint(o, "rx_packets", r->rx_pkts);
	json_add_uint(o, "tx_packets", r->tx_pkts);
	if (r->has_drops) {
		json_add_uint(o, "rx_drops", r->rx_drops);
		json_add_uint(o, "tx_drops", r->tx_drops);
	}
	return o;
}

/* What the device's queue counters lack (its driver's note), or NULL. */
static const char *
device_note(struct source *qsrc, const char *dev)
{
	size_t n;
	const struct queue_dev *qd = source_queues_devices(qsrc, &n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(qd[i].dev, dev) == 0)
			return qd[i].note;
	return NULL;
}

/* One device: its queues [first, last) of the list, merged by index. */
static json_object *
device_json(struct daemon *d, const struct queue_info *q, size_t first, size_t last,
            double min_rate, struct source *qsrc)
{
	const struct irq_table *irqs = sampler_irq_table(d->sampler, NULL);
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	struct netdev_aliases al;
	struct qrow tot = {.index = -1};
	struct netdev_queue_irqs *map;
	uint64_t *drops, *pkts;
	uint32_t maxq = 0;
	size_t hidden = 0;

	netdev_aliases(qsrc->rootfd, q[first].dev, &al);
	for (size_t i = first; i < last; i++)
		if (q[i].index + 1 > maxq)
			maxq = q[i].index + 1;
	map = xcalloc(maxq ? maxq : 1, sizeof(*map));
	drops = xcalloc(maxq ? maxq : 1, sizeof(*drops));
	pkts = xcalloc(maxq ? maxq : 1, sizeof(*pkts));
	netdev_map_queue_irqs(irqs, &al, map, maxq);
	for (uint32_t idx = 0; idx < maxq; idx++) {
		struct qrow r = {.index = (int)idx};
		bool seen = false;
		json_object *qo;
		for (size_t i = first; i < last; i++) {
			if (q[i].index != idx)
				continue;
			seen = true;
			if (q[i].drops != SERIES_NONE) {
				r.has_drops = true;
				*(q[i].dir == QUEUE_RX ? &r.rx_drops : &r.tx_drops) +=
				    query_delta(d->query, q[i].drops);
			}
			if (q[i].dir == QUEUE_RX) {
				rate_of(d, q[i].packets, &r.rx_pps, &r.rx_pkts);
				rate_of(d, q[i].bytes, &r.rx_bps, NULL);
			} else {
				rate_of(d, q[i].packets, &r.tx_pps, &r.tx_pkts);
				rate_of(d, q[i].bytes, &r.tx_bps, NULL);
			}
		}
		if (!seen)
			continue;
		drops[idx] = r.rx_drops + r.tx_drops;
		pkts[idx] = r.rx_pkts + r.tx_pkts;
		tot.has_drops |= r.has_drops;
		tot.rx_drops += r.rx_drops;
		tot.tx_drops += r.tx_drops;
		tot.rx_pps += r.rx_pps;
		tot.tx_pps += r.tx_pps;
		tot.rx_bps += r.rx_bps;
		tot.tx_bps += r.tx_bps;
		tot.rx_pkts += r.rx_pkts;
		tot.tx_pkts += r.tx_pkts;
		if (r.rx_pps + r.tx_pps < min_rate) {
			hidden++;
			continue;
		}
		qo = row_json(&r);
		queue_napis(sampler_napi_table(d->sampler), q[first].dev, idx, qo);
		queue_irqs(d, &map[idx], qo);
		json_object_array_add(arr, qo);
	}
	free(map);
	/* A driver that books its port's drops on queue 0 does not make queue 0 a hot one. */
	json_add_bool(o, "drops_per_port", netdev_drops_per_port(drops, pkts, maxq));
	free(drops);
	free(pkts);
	json_add_string(o, "name", q[first].dev);
	json_add_string(o, "parent", al.parent[0] ? al.parent : NULL);
	json_add_string(o, "counters", q[first].counters);
	json_add_string(o, "note", device_note(qsrc, q[first].dev));
	json_object_object_add(o, "queues", arr);
	json_object_object_add(o, "total", row_json(&tot));
	json_add_uint(o, "hidden", hidden);
	return o;
}

/* The devices (all, or dev) whose queue figures are not their own qstats or ethtool
 * counters: [{"name", "counters": "mq-class" or "none", "why"}]. */
static json_object *
queue_counters(struct source *qsrc, const char *dev)
{
	json_object *arr = json_object_new_array();
	const struct queue_dev *qd;
	size_t n;

	qd = source_queues_devices(qsrc, &n);
	for (size_t i = 0; i < n; i++) {
		json_object *e;
		if (qd[i].why[0] == '\0' || (dev != NULL && strcmp(dev, qd[i].dev) != 0))
			continue;
		e = json_object_new_object();
		json_add_string(e, "name", qd[i].dev);
		json_add_string(e, "counters", qd[i].counters);
		json_add_string(e, "why", qd[i].why);
		json_object_array_add(arr, e);
	}
	return arr;
}

int
cmd_build_queues(struct daemon *d, json_object *args, json_object *o, struct nm_error *err)
{
	struct source *qsrc = sampler_source_of(d->sampler, SAMPLER_QUEUES);
	const char *dev = json_get_string(args, "dev", NULL);
	double min_rate = json_get_double(args, "min_rate", 0);
	const struct queue_info *q;
	json_object *arr = json_object_new_array();
	size_t n, i = 0;

	q = source_queues_list(qsrc, &n);
	while (i < n) {
		size_t j = i;
		while (j < n && strcmp(q[j].dev, q[i].dev) == 0)
			j++;
		if (dev == NULL || strcmp(dev, q[i].dev) == 0)
			json_object_array_add(arr, device_json(d, q, i, j, min_rate, qsrc));
		i = j;
	}
	if (dev != NULL && json_object_array_length(arr) == 0) {
		const char *why = qsrc->reason;
		const struct queue_dev *qd = source_queues_devices(qsrc, &n);
		for (size_t k = 0; k < n; k++)
			if (strcmp(qd[k].dev, dev) == 0)
				why = qd[k].why;
		json_object_put(arr);
		return nm_error_set(err, NM_ERR_NOT_FOUND,
		                    "no per-queue counters for device \"%s\"%s%s", dev,
		                    why[0] ? ": " : "", why);
	}
	json_add_double(o, "min_rate", min_rate);
	json_object_object_add(o, "devices", arr);
	json_object_object_add(o, "queue_counters", queue_counters(qsrc, dev));
	return 0;
}

static int
cmd_queues(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	json_object *o = json_object_new_object();

	if (cmd_span(ctx->d, args, CMD_DEFAULT_LAST_S, SAMPLER_QUEUES, o, err) < 0 ||
	    cmd_build_queues(ctx->d, args, o, err) < 0) {
		json_object_put(o);
		return -1;
	}
	*result = o;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_queues_entry = {.proto = "queues", .exec = cmd_queues};
