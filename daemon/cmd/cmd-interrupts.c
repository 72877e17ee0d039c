/* cmd-interrupts.c: interrupts per IRQ per CPU per second, with device, queue, affinity. */
#include <stdio.h>
#include <string.h>

#include "cmd-util.h"
#include "cmd.h"
#include "cpulist.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "netdev.h"
#include "query.h"
#include "sampler.h"
#include "irqtable.h"

/* One IRQ as an object, or NULL when it did not fire and all is false. */
static json_object *
irq_json(struct daemon *d, const struct irq_info *irq, bool all)
{
	json_object *o, *cpus = json_object_new_object();
	uint64_t total = 0;
	double rate = 0;
	char list[1024], cpu[16];

	for (unsigned c = 0; c < irq->ncpus; c++) {
		series_id id = irq->cpu_series[c];
		uint64_t delta;
		if (id == SERIES_NONE || (delta = query_delta(d->query, id)) == 0)
			continue;
		total += delta;
		rate += query_rate(d->query, id);
		snprintf(cpu, sizeof(cpu), "%u", c);
		json_add_double(cpus, cpu, query_rate(d->query, id));
	}
	if (irq->total != SERIES_NONE) {
		total += query_delta(d->query, irq->total);
		rate += query_rate(d->query, irq->total);
	}
	if (total == 0 && !all) {
		json_object_put(cpus);
		return NULL;
	}
	o = json_object_new_object();
	json_add_string(o, "irq", irq->label);
	json_add_string(o, "name", irq->name);
	json_add_string(o, "chip", irq->chip);
	json_add_string(o, "device", irq->queue.device);
	json_add_int(o, "queue", irq->queue.index);
	json_add_string(o, "queue_kind", irqtable_queue_kind_name(irq->queue.kind));
	json_add_string(o, "origin", irqtable_origin_name(irq->queue.origin));
	if (irq->has_affinity) {
		cpuset_format_list(&irq->affinity, list, sizeof(list));
		json_add_string(o, "affinity", list);
	}
	if (irq->has_effective) {
		cpuset_format_list(&irq->effective, list, sizeof(list));
		json_add_string(o, "effective", list);
	}
	json_add_uint(o, "total", total);
	json_add_double(o, "rate", rate);
	json_object_object_add(o, "cpus", cpus);
	return o;
}

int
cmd_build_interrupts(struct daemon *d, json_object *args, json_object *o, struct nm_error *err)
{
	const struct irq_table *t;
	const char *dev = json_get_string(args, "dev", NULL);
	bool all = json_get_bool(args, "all", false);
	struct netdev_aliases al;
	const struct irq_info *irqs;
	json_object *arr;
	size_t n;

	if ((t = sampler_irq_table(d->sampler, err)) == NULL)
		return -1;
	if (!irqtable_has_series(t))
		return nm_error_set(err, NM_ERR_UNSUPPORTED,
		                    "no interrupt counts: the interrupts source is disabled or has "
		                    "not sampled yet");
	irqs = t->v;
	n = t->n;
	if (dev != NULL)
		netdev_aliases(sampler_rootfd(d->sampler), dev, &al);
	arr = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		json_object *io;
		if (dev != NULL && !netdev_owns_irq(&al, &irqs[i]))
			continue;
		if ((io = irq_json(d, &irqs[i], all)) != NULL)
			json_object_array_add(arr, io);
	}
	if (dev != NULL && json_object_array_length(arr) == 0 && !all) {
		bool any = false;
		for (size_t i = 0; i < n && !any; i++)
			any = netdev_owns_irq(&al, &irqs[i]);
		if (!any) {
			json_object_put(arr);
			return nm_error_set(err, NM_ERR_NOT_FOUND,
			                    "no IRQ in /proc/interrupts names device %s%s%s", dev,
			                    al.parent[0] ? " or " : "", al.parent);
		}
	}
	json_object_object_add(o, "irqs", arr);
	return 0;
}

static int
cmd_interrupts(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	json_object *o = json_object_new_object();

	if (cmd_span(ctx->d, args, CMD_DEFAULT_LAST_S, SAMPLER_INTERRUPTS, o, err) < 0 ||
	    cmd_build_interrupts(ctx->d, args, o, err) < 0) {
		json_object_put(o);
		return -1;
	}
	*result = o;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_interrupts_entry = {.proto = "interrupts", .exec = cmd_interrupts};
