/* follow.h: a test's or a suite's progress as a stream of events on the connection that
 * asked (test-status --follow, suite-status --follow; netmetricsctl --wait). */
#ifndef NM_FOLLOW_H
#define NM_FOLLOW_H

#include <json-c/json.h>
#include <stdbool.h>

struct cmd_ctx;
struct daemon;
struct nm_error;

/* The record followed, now: a new object, *ended set once it is final; NULL with err when
 * there is no such record (any more). */
typedef json_object *(*follow_fn)(struct daemon *d, const char *name, bool *ended,
                                  struct nm_error *err);

/* Follow name: events {"<event>": record, "end": false} at once, on each change of its
 * state (or runs done, or current run) and at least every second with its live figures;
 * then one with "end": true carrying the final record, and the stream is over. No reply:
 * ctx->deferred is set. Cancel stops it (the test or suite runs on). 0, or -1 with err
 * (no such record, too many streams). */
int follow_start(struct cmd_ctx *ctx, const char *event, const char *name, follow_fn fn,
                 struct nm_error *err);

#endif
