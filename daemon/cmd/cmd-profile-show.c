/* cmd-profile-show.c: the tuning state of a device as the kernel has it now: per queue its
 * IRQs with their affinity and effective affinity, XPS CPUs (tx-N), RPS CPUs and flow count
 * (rx-N); the global rps_sock_flow_entries, the ntuple feature, the channel counts, the
 * offloads ([offloads]: the features a tuning guide changes) and the device-wide NAPI
 * settings ([napi]). CPU masks are shown as lists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cpulist.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "napitable.h"
#include "profile.h"
#include "sampler.h"
#include "source-queues.h"
#include "irqtable.h"

/* The live value of one queue file as people read it, added to o under key (null when it
 * cannot be read). */
static void
add_value(struct profile_host *h, enum plan_kind kind, int index, json_object *o, const char *key)
{
	char buf[4096], *v;

	if ((v = plan_read_live(h, kind, index,
	                        kind == PLAN_SYSCTL ? "net.core.rps_sock_flow_entries" : NULL)) ==
	    NULL) {
		json_object_object_add(o, key, NULL);
		return;
	}
	if (kind == PLAN_FLOW_CNT || kind == PLAN_SYSCTL) {
		json_add_uint(o, key, strtoull(v, NULL, 10));
	} else {
		plan_display(kind, v, buf, sizeof(buf));
		json_add_string(o, key, buf);
	}
	free(v);
}

/* The device-wide NAPI files ([napi]) as numbers, null where one cannot be read. */
static json_object *
napi_json(struct profile_host *h)
{
	static const char *const files[] = {"gro_flush_timeout", "napi_defer_hard_irqs",
	                                    "threaded"};
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *v = plan_read_live(h, PLAN_NAPI, -1, files[i]);
		if (v != NULL)
			json_add_uint(o, files[i], strtoull(v, NULL, 10));
		else
			json_object_object_add(o, files[i], NULL);
		free(v);
	}
	return o;
}

/* The NAPI of queue dir/q of dev as the kernel links it, under key: null when it links none
 * or the queue does not exist (has: it does). */
static void
add_napi(const struct napi_table *nt, const char *dev, unsigned dir, unsigned q, bool has,
         json_object *o, const char *key)
{
	const struct napi_entry *e = has ? napitable_find_queue(nt, dev, dir, q) : NULL;

	json_object_object_add(o, key, e != NULL ? napitable_entry_json(e) : NULL);
}

/* One IRQ: number, name, affinity and effective affinity, read now. */
static json_object *
irq_json(struct profile_host *h, const struct irq_info *irq)
{
	json_object *o = json_object_new_object();
	char rel[64], buf[4096];

	json_add_int(o, "irq", irq->irq);
	json_add_string(o, "name", irq->name);
	json_add_string(o, "origin", irqtable_origin_name(irq->queue.origin));
	snprintf(rel, sizeof(rel), "%d/smp_affinity_list", irq->irq);
	json_add_string(
	    o, "affinity",
	    profile_host_read(h, PROFILE_BASE_IRQ, NULL, rel, buf, sizeof(buf)) == 0 ? buf : NULL);
	snprintf(rel, sizeof(rel), "%d/effective_affinity_list", irq->irq);
	json_add_string(
	    o, "effective",
	    profile_host_read(h, PROFILE_BASE_IRQ, NULL, rel, buf, sizeof(buf)) == 0 ? buf : NULL);
	return o;
}

/* The rows, one per queue index that has a tx queue, an rx queue or an IRQ; with the NAPIs
 * the kernel links the queues to (nt: the sampler's NAPI table). */
static json_object *
queues_json(struct profile_host *h, const struct napi_table *nt)
{
	json_object *arr = json_object_new_array();
	size_t nirq, k = 0;
	struct profile_irq *irqs = profile_irq_list(h, &nirq);
	unsigned nq = h->nrx > h->ntx ? h->nrx : h->ntx;

	if (nirq > 0 && irqs[nirq - 1].queue + 1 > nq)
		nq = irqs[nirq - 1].queue + 1;
	for (unsigned q = 0; q < nq; q++) {
		json_object *o = json_object_new_object(), *ia = json_object_new_array();
		json_add_uint(o, "queue", q);
		for (; k < nirq && irqs[k].queue == q; k++)
			json_object_array_add(ia, irq_json(h, irqs[k].irq));
		json_object_object_add(o, "irqs", ia);
		add_napi(nt, h->dev, QUEUE_RX, q, q < h->nrx, o, "rx_napi");
		add_napi(nt, h->dev, QUEUE_TX, q, q < h->ntx, o, "tx_napi");
		if (q < h->ntx)
			add_value(h, PLAN_XPS, (int)q, o, "xps");
		if (q < h->nrx) {
			add_value(h, PLAN_RPS, (int)q, o, "rps");
			add_value(h, PLAN_FLOW_CNT, (int)q, o, "rps_flow_cnt");
		}
		json_object_array_add(arr, o);
	}
	free(irqs);
	return arr;
}

/* profile-show: the device's tuning as the kernel has it now. */
static int
cmd_profile_show(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct profile_host h;
	struct nm_error e2;
	json_object *o;
	char buf[4096], v[8];

	if (profile_host_open_sampled(&h, ctx->d->config.root, ctx->d->sampler, err) < 0)
		return -1;
	if (profile_host_set_device(&h, json_get_string(args, "dev", NULL), err) < 0) {
		profile_host_close(&h);
		return -1;
	}
	o = json_object_new_object();
	json_add_string(o, "device", h.dev);
	json_add_bool(o, "default_route", h.dev_from_route);
	json_add_string(o, "root", h.root);
	cpuset_format_list(&h.online, buf, sizeof(buf));
	json_add_string(o, "cpus_online", buf);
	json_add_uint(o, "nr_cpus", h.nr_cpus);
	json_add_uint(o, "rx_queues", h.nrx);
	json_add_uint(o, "tx_queues", h.ntx);
	add_value(&h, PLAN_SYSCTL, -1, o, "rps_sock_flow_entries");
	if (profile_arfs_get(&h, h.dev, v, sizeof(v), &e2) == 0)
		json_add_string(o, "ntuple", v);
	else {
		json_add_string(o, "ntuple", NULL);
		json_add_string(o, "ntuple_error", e2.message);
	}
	json_object_object_add(o, "channels", profile_arfs_channels(&h, h.dev));
	json_object_object_add(o, "rings", profile_rings_json(&h));
	json_object_object_add(o, "coalesce", profile_coalesce_json(&h));
	json_object_object_add(o, "rss", profile_rss_json(&h));
	json_object_object_add(o, "offloads", profile_offloads_json(&h));
	json_object_object_add(o, "napi", napi_json(&h));
	json_add_bool(o, "irqbalance", profile_host_irqbalance(&h));
	{
		char tp[PROFILE_NAME_MAX];
		json_object *t = json_object_new_object();
		json_add_bool(t, "running", profile_host_tuned(&h, tp, sizeof(tp)));
		json_add_string(t, "profile", tp[0] ? tp : NULL);
		json_object_object_add(o, "tuned", t);
	}
	if (h.irqs == NULL)
		json_add_string(o, "irq_note", h.irq_reason);
	json_object_object_add(o, "queues", queues_json(&h, sampler_napi_table(ctx->d->sampler)));
	profile_host_close(&h);
	*result = o;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_profile_show_entry = {.proto = "profile-show", .exec = cmd_profile_show};
