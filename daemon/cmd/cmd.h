/* cmd.h: the command handlers, one file each (cmd-<name>.c), each with its cmd_entry. */
#ifndef NM_CMD_H
#define NM_CMD_H

#include "dispatch.h"
#include "series.h"

struct daemon;

#define CMD_HANDLER(name)                                                                          \
	int cmd_##name(struct cmd_ctx *ctx, json_object *args, json_object **result,               \
	               struct nm_error *err)

CMD_HANDLER(hello);
CMD_HANDLER(status);
CMD_HANDLER(cancel);
CMD_HANDLER(metrics);
CMD_HANDLER(now);
CMD_HANDLER(rates);
CMD_HANDLER(series);
CMD_HANDLER(queues);
CMD_HANDLER(cpu);
CMD_HANDLER(softirqs);
CMD_HANDLER(interrupts);
CMD_HANDLER(watch);
CMD_HANDLER(mark_start);
CMD_HANDLER(mark_stop);
CMD_HANDLER(windows);
CMD_HANDLER(window_delete);
CMD_HANDLER(report);
CMD_HANDLER(results);
CMD_HANDLER(result_show);
CMD_HANDLER(result_delete);
CMD_HANDLER(result_export);
CMD_HANDLER(profile_show);
CMD_HANDLER(profile_apply);
CMD_HANDLER(profile_save);
CMD_HANDLER(profile_revert);
CMD_HANDLER(profile_status);
CMD_HANDLER(profiles);
CMD_HANDLER(compare);
CMD_HANDLER(test_start);
CMD_HANDLER(test_status);
CMD_HANDLER(test_stop);
CMD_HANDLER(tests);
CMD_HANDLER(suite_run);
CMD_HANDLER(suite_status);
CMD_HANDLER(suite_stop);
CMD_HANDLER(trend);

/* Views shared by a command and by watch: fill o for the span already set on d->query. */
int cmd_build_queues(struct daemon *d, json_object *args, json_object *o, struct nm_error *err);
int cmd_build_cpu(struct daemon *d, json_object *args, json_object *o, struct nm_error *err);
int cmd_build_softirqs(struct daemon *d, json_object *args, json_object *o, struct nm_error *err);
int cmd_build_interrupts(struct daemon *d, json_object *args, json_object *o, struct nm_error *err);
/* A time argument of series and trend (from, to): <= 0 is seconds back from newest, else
 * epoch seconds. CLOCK_MONOTONIC ns. */
uint64_t cmd_series_time(struct daemon *d, double v, uint64_t newest);

#endif
