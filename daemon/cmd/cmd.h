/* cmd.h: what the command handlers share. Each handler is static in its own cmd-<name>.c,
 * reached only through the cmd_entry beside it (dispatch.h): no list of them here. */
#ifndef NM_CMD_H
#define NM_CMD_H

#include "dispatch.h"
#include "series.h"

struct daemon;

/* Views shared by a command and by watch: fill o for the span already set on d->query. */
int cmd_build_queues(struct daemon *d, json_object *args, json_object *o, struct nm_error *err);
int cmd_build_cpu(struct daemon *d, json_object *args, json_object *o, struct nm_error *err);
int cmd_build_softirqs(struct daemon *d, json_object *args, json_object *o, struct nm_error *err);
int cmd_build_interrupts(struct daemon *d, json_object *args, json_object *o, struct nm_error *err);
int cmd_build_napi(struct daemon *d, json_object *args, json_object *o, struct nm_error *err);
int cmd_build_drops(struct daemon *d, json_object *args, json_object *o, struct nm_error *err);
/* A time argument of series and trend (from, to): <= 0 is seconds back from newest, else
 * epoch seconds. CLOCK_MONOTONIC ns. */
uint64_t cmd_series_time(struct daemon *d, double v, uint64_t newest);

#endif
