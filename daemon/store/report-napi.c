/* report-napi.c: a window's NAPI view (report-napi.h). Each edge's NAPI table (queue-get,
 * napi-get, copied into the snapshot when it was taken) gives a device's queues and their
 * NAPIs; each edge's IRQ table the CPUs of a NAPI's IRQ. The end edge is shown; the start
 * edge too when it shows something else (a device reconfigured during the window renumbers
 * its NAPIs, a setting or an affinity written). */
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "jsonutil.h"
#include "report-napi.h"
#include "xmalloc.h"

/* The name of the device of ifindex in either table (NAPI entries carry it), or NULL. */
static const char *
dev_name(const struct napi_table *a, const struct napi_table *b, int ifindex)
{
	const struct napi_table *t[2] = {b, a};

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < t[k]->n; i++)
			if (t[k]->v[i].ifindex == ifindex)
				return t[k]->v[i].dev;
	return NULL;
}

/* Queues by direction then index. */
static int
cmp_queue(const void *x, const void *y)
{
	const struct napi_queue *a = x, *b = y;

	if (a->dir != b->dir)
		return a->dir < b->dir ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* One NAPI with its IRQ's CPUs as the edge's IRQ table has them. */
static json_object *
napi_json(const struct napi_entry *e, const struct irq_table *irqs)
{
	json_object *o = napitable_entry_json(e);
	const struct irq_info *irq = e->irq >= 0 ? irqtable_find_irq(irqs, e->irq) : NULL;
	char list[1024];

	if (irq != NULL && irq->has_affinity) {
		cpuset_format_list(&irq->affinity, list, sizeof(list));
		json_add_string(o, "affinity", list);
	} else
		json_object_object_add(o, "affinity", NULL);
	if (irq != NULL && irq->has_effective) {
		cpuset_format_list(&irq->effective, list, sizeof(list));
		json_add_string(o, "effective", list);
	} else
		json_object_object_add(o, "effective", NULL);
	return o;
}

/* Device ifindex's queues in the edge snap, sorted: [{"dir", "queue", "napi"}] with "napi"
 * null for a queue the driver links to none. */
static json_object *
edge_queues(const struct snapshot *snap, int ifindex)
{
	const struct napi_table *t = &snap->napis;
	json_object *arr = json_object_new_array();
	struct napi_queue *q;
	size_t n = 0;

	q = xreallocarray(NULL, t->nq ? t->nq : 1, sizeof(*q));
	for (size_t i = 0; i < t->nq; i++)
		if (t->q[i].ifindex == ifindex)
			q[n++] = t->q[i];
	qsort(q, n, sizeof(*q), cmp_queue);
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_new_object();
		const struct napi_entry *e = NULL;
		for (size_t k = 0; q[i].napi_id != 0 && k < t->n && e == NULL; k++)
			if (t->v[k].id == q[i].napi_id && t->v[k].ifindex == ifindex)
				e = &t->v[k];
		json_add_string(o, "dir", q[i].dir == 0 ? "rx" : "tx");
		json_add_uint(o, "queue", q[i].index);
		json_object_object_add(o, "napi", e != NULL ? napi_json(e, &snap->irqs) : NULL);
		json_object_array_add(arr, o);
	}
	free(q);
	return arr;
}

/* Whether ifindex is among the first n queues' devices of both tables. */
static bool
seen_before(const struct napi_table *a, const struct napi_table *b, size_t ia, size_t ib,
            int ifindex)
{
	for (size_t i = 0; i < ia; i++)
		if (a->q[i].ifindex == ifindex)
			return true;
	for (size_t i = 0; i < ib; i++)
		if (b->q[i].ifindex == ifindex)
			return true;
	return false;
}

/* One device: its queues at the end edge, and at the start edge when they differ. */
static json_object *
device_json(const struct snapshot *a, const struct snapshot *b, int ifindex)
{
	json_object *o = json_object_new_object(), *end = edge_queues(b, ifindex);
	json_object *start = edge_queues(a, ifindex);
	bool same = strcmp(json_object_to_json_string(start), json_object_to_json_string(end)) == 0;

	json_add_int(o, "ifindex", ifindex);
	json_object_object_add(o, "queues", end);
	json_object_object_add(o, "same_at_start", json_object_new_boolean(same));
	if (same)
		json_object_put(start);
	else
		json_object_object_add(o, "start_queues", start);
	return o;
}

json_object *
report_napi_json(const struct snapshot *a, const struct snapshot *b, const char *device)
{
	const struct napi_table *ta = &a->napis, *tb = &b->napis;
	json_object *o = NULL;

	/* Every device with a queue in either edge, once, in the order the tables list them. */
	for (size_t k = 0; k < ta->nq + tb->nq; k++) {
		size_t ia = k < ta->nq ? k : ta->nq, ib = k < ta->nq ? 0 : k - ta->nq;
		int ifindex = k < ta->nq ? ta->q[k].ifindex : tb->q[k - ta->nq].ifindex;
		const char *name = dev_name(ta, tb, ifindex);
		if (name == NULL || seen_before(ta, tb, ia, ib, ifindex) ||
		    (device != NULL && strcmp(device, name) != 0))
			continue;
		if (o == NULL)
			o = json_object_new_object();
		json_object_object_add(o, name, device_json(a, b, ifindex));
	}
	return o;
}
