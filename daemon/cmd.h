/* cmd.h: the command handlers, one file each (cmd-<name>.c), bound in cmd-table.c. */
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
/* trend of args.metric over [t0_ns, t1_ns] (CLOCK_MONOTONIC; clamped to the ring) with the
 * options of the trend command in args (threshold, sustain, movers...): fills o as the
 * command does. 0, or -1 with err. */
int cmd_build_trend(struct daemon *d, json_object *args, uint64_t t0_ns, uint64_t t1_ns,
                    json_object *o, struct nm_error *err);
/* The trend of window name over its span (window_span): the one function behind both the
 * trend a test's report keeps and `trend --window`, so that they give one verdict. The
 * analysis parameters args leaves out (threshold, recover, sustain, plateau, step) are
 * those of the trend stored with the window's result when it analysed the same series;
 * o.params_from says "result" when any was, else "request". 0, or -1 with err. */
int cmd_trend_window(struct daemon *d, const char *name, json_object *args, json_object *o,
                     struct nm_error *err);
/* A time argument of series and trend (from, to): <= 0 is seconds back from newest, else
 * epoch seconds. CLOCK_MONOTONIC ns. */
uint64_t cmd_series_time(struct daemon *d, double v, uint64_t newest);
/* Narrow [t0, t1] (by less than a sampling interval at each end) so that the edges of steps
 * of whole intervals from t0 fall half an interval from the samples of id's source. */
void cmd_series_align(struct daemon *d, series_id id, uint64_t *t0, uint64_t *t1);

#endif
