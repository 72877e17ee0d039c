/* cmd-drops.c: one view of where packets were lost over a span: the drop reasons the bpf
 * source counts (skb:kfree_skb), beside the counters that count drops where they happen:
 * the NIC's (link, queues, ethtool: unit "drops"), softnet's backlog drops, and the
 * sockets' (SNMP: listen and backlog drops, UDP receive buffer and no-port drops), and the
 * qdiscs' (the qdisc source: each qdisc's drops). Each counter that moved, grouped by where,
 * largest first; a qdisc's row carries the drop reasons the bpf source counted on its device
 * over the same span ("device_reasons"), where the same packets show as QDISC_DROP or the
 * like. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-util.h"
#include "cmd.h"
#include "daemon.h"
#include "jsonutil.h"
#include "query.h"
#include "sampler.h"
#include "xmalloc.h"

/* The groups, in the order a packet meets them (roughly): NIC, softnet backlog, qdisc
 * (transmit), socket; the reasons the kernel gave for every drop first. */
enum drop_where { DW_REASON, DW_NIC, DW_SOFTNET, DW_QDISC, DW_SOCKET, DW_OTHER, DW_N };
static const char *const where_names[DW_N] = {"reason", "nic",    "softnet",
                                              "qdisc",  "socket", "other"};

/* SNMP fields that count socket drops but are not named so (their unit is errors or
 * packets): UDP's receive buffer and memory drops, and datagrams to no socket. */
static const char *const socket_fields[] = {
    "RcvbufErrors",  "MemErrors",   "NoPorts", "Udp6RcvbufErrors",
    "Udp6MemErrors", "Udp6NoPorts", NULL};

/* Where series id counts drops, or -1 when it does not. */
static int
where_of(const struct series_registry *reg, series_id id)
{
	const struct series_info *si = series_get(reg, id);
	const struct series_labels l = series_labels_of(reg, id);
	const char *src = series_source_name(reg, id);
	const char *table = series_atom_str(reg, l.table), *field = series_atom_str(reg, l.field);

	if (strcmp(src, "bpf") == 0)
		return strcmp(table, "drop") == 0 ? DW_REASON : -1;
	if (strcmp(src, "snmp") == 0) {
		for (size_t i = 0; socket_fields[i] != NULL; i++)
			if (strcmp(field, socket_fields[i]) == 0)
				return DW_SOCKET;
		return strcmp(si->unit, "drops") == 0 ? DW_SOCKET : -1;
	}
	if (strcmp(si->unit, "drops") != 0 || si->kind == SERIES_GAUGE)
		return -1;
	if (strcmp(src, "qdisc") == 0)
		return DW_QDISC;
	if (strcmp(src, "link") == 0 || strcmp(src, "queues") == 0 || strcmp(src, "ethtool") == 0)
		return DW_NIC;
	if (strcmp(src, "softnet") == 0)
		return DW_SOFTNET;
	if (strstr(table, "qdisc") != NULL || strstr(field, "qdisc") != NULL)
		return DW_QDISC;
	return DW_OTHER;
}

struct drop_row {
	series_id id;
	uint64_t delta;
};

static int
row_cmp(const void *a, const void *b)
{
	const struct drop_row *x = a, *y = b;

	if (x->delta != y->delta)
		return x->delta < y->delta ? 1 : -1;
	return (x->id > y->id) - (x->id < y->id);
}

/* The drop reasons among reasons[0..n) on the device of series id (their device label), as
 * {reason: delta}. */
static json_object *
device_reasons(const struct series_registry *reg, series_id id, const struct drop_row *reasons,
               size_t n)
{
	series_atom dev = series_labels_of(reg, id).device;
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < n && dev != SERIES_ATOM_NONE; i++) {
		const struct series_labels l = series_labels_of(reg, reasons[i].id);

		if (l.device == dev)
			json_add_uint(o, series_atom_str(reg, l.field), reasons[i].delta);
	}
	return o;
}

/* One counter as {"name", "source", "delta", "rate", "labels"}. */
static json_object *
row_json(struct daemon *d, const struct series_registry *reg, const struct drop_row *r)
{
	json_object *o = json_object_new_object();

	json_add_string(o, "name", series_get(reg, r->id)->name);
	json_add_string(o, "source", series_source_name(reg, r->id));
	json_add_uint(o, "delta", r->delta);
	json_add_double(o, "rate", query_rate(d->query, r->id));
	cmd_labels_json(reg, r->id, o);
	return o;
}

int
cmd_build_drops(struct daemon *d, json_object *args, json_object *o, struct nm_error *err)
{
	const struct series_registry *reg = sampler_registry(d->sampler);
	bool all = json_get_bool(args, "all", false), any_reason = false;
	struct drop_row *rows[DW_N];
	size_t nrows[DW_N] = {0}, n = reg->n;
	json_object *groups = json_object_new_array();

	(void)err;
	for (int w = 0; w < DW_N; w++)
		rows[w] = xcalloc(n ? n : 1, sizeof(*rows[w]));
	for (series_id id = 0; id < n; id++) {
		const struct series_info *si = series_get(reg, id);
		int w;
		uint64_t delta;

		if (si == NULL || si->name == NULL || (w = where_of(reg, id)) < 0)
			continue;
		any_reason |= w == DW_REASON;
		delta = query_delta(d->query, id);
		if (delta == 0 && (!all || !si->live))
			continue;
		rows[w][nrows[w]++] = (struct drop_row){id, delta};
	}
	for (int w = 0; w < DW_N; w++) {
		json_object *g = json_object_new_object(), *arr = json_object_new_array();
		uint64_t total = 0;

		qsort(rows[w], nrows[w], sizeof(*rows[w]), row_cmp);
		for (size_t i = 0; i < nrows[w]; i++) {
			json_object *r = row_json(d, reg, &rows[w][i]);

			if (w == DW_QDISC)
				json_object_object_add(r, "device_reasons",
				                       device_reasons(reg, rows[w][i].id,
				                                      rows[DW_REASON],
				                                      nrows[DW_REASON]));
			json_object_array_add(arr, r);
			total += rows[w][i].delta;
		}
		json_add_string(g, "where", where_names[w]);
		json_add_uint(g, "total", total);
		json_object_object_add(g, "counters", arr);
		json_object_array_add(groups, g);
	}
	for (int w = 0; w < DW_N; w++)
		free(rows[w]);
	json_add_string(o, "reasons",
	                any_reason ? "bpf"
	                           : "none: the bpf source has no drop reasons here (see status: "
	                             "not built, no BTF, not attached, or no drop yet)");
	json_object_object_add(o, "groups", groups);
	return 0;
}

static int
cmd_drops(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	json_object *o = json_object_new_object();

	if (cmd_span(ctx->d, args, CMD_DEFAULT_LAST_S, SAMPLER_NONE, o, err) < 0 ||
	    cmd_build_drops(ctx->d, args, o, err) < 0) {
		json_object_put(o);
		return -1;
	}
	*result = o;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_drops_entry = {.proto = "drops", .exec = cmd_drops};
