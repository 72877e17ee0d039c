/* cmd-util.h: what the query commands share: the span from "last" or a window, times, kinds,
 * the labels of a series in a reply. */
#ifndef NM_CMD_UTIL_H
#define NM_CMD_UTIL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sampler.h"
#include "series.h"

struct daemon;
struct nm_error;

#define CMD_DEFAULT_LAST_S 10.0

/* Set d->query to the last args.last seconds (default def_s); adds "span_s", "from" and
 * "to" (RFC 3339) to result. 0 ok, -1 with err. */
int cmd_span_last(struct daemon *d, json_object *args, double def_s, json_object *result,
                  struct nm_error *err);
/* The span of a query command: args.window (a window or test, open, kept or stored: its
 * edges) or else the last args.last seconds (default def_s) as the source named src samples
 * them (query_span_last_src: the delta of its series is between exactly the two samples
 * stated; SAMPLER_NONE: every source's samples). Sets d->query and adds "span_s", "from", "to" and
 * "window" or "source" to result. 0 ok, -1 with err. */
int cmd_span(struct daemon *d, json_object *args, double def_s, enum sampler_kind src,
             json_object *result, struct nm_error *err);
/* cmd_span on a query of the request's own (query_new; d->query is shared by the requests
 * of the loop: a reply made over turns keeps its span in its own). */
struct query;
int cmd_span_query(struct daemon *d, struct query *q, json_object *args, double def_s,
                   enum sampler_kind src, json_object *result, struct nm_error *err);
/* cmd_span in two steps, for a request that places its cursors a part at a time
 * (query_span_part): the edges (no cursor moved), then, once placed on them, the members.
 * window_span's edges, or query_edges_last_src's, or query_edges_last's. */
struct cmd_span_edges {
	uint64_t t0, t1;
	const char *key, *value; /* "window" or "source" and its value (args', static), or NULL */
};
int cmd_span_edges(struct daemon *d, const struct query *q, json_object *args, double def_s,
                   enum sampler_kind src, struct cmd_span_edges *e, struct nm_error *err);
void cmd_span_add(struct daemon *d, const struct query *q, const struct cmd_span_edges *e,
                  json_object *result);
/* Add the span of d->query to result ("span_s", "from", "to"). */
void cmd_span_json(struct daemon *d, json_object *result);
/* Wall-clock RFC 3339 of a CLOCK_MONOTONIC time. */
void cmd_format_mono(struct daemon *d, uint64_t mono_ns, char *buf, size_t size);
/* Wall-clock seconds since the epoch of a CLOCK_MONOTONIC time. */
double cmd_epoch_s(struct daemon *d, uint64_t mono_ns);

/* Add the labels of a series to o as "labels": {"source", "unit", then each label the series
 * has: "device", "type", "mode", "table", "field" (strings), "direction" ("rx"/"tx"),
 * "queue", "cpu", "irq" (numbers)}. proto/PROTOCOL.md, Labels. */
void cmd_labels_json(const struct series_registry *reg, series_id id, json_object *o);

#endif
