/* results-reply.h: a command's reply made from stored results off the loop
 * (results-load.h): the command's work on the reader thread, its line serialised there too
 * (a large result is not serialised on the loop), sent through a control_later. */
#ifndef NM_RESULTS_REPLY_H
#define NM_RESULTS_REPLY_H

#include <json-c/json.h>

#include "error.h"
#include "results-load.h"

struct cmd_ctx;

/* A command's work on the loaded results, on the reader thread (only ld's items and arg):
 * 0 with *result (the reply: NULL is {}), -1 with err, or RESULTS_LOAD_ON_LOOP: the done
 * function makes the reply on the loop (it needs loop state). */
#define RESULTS_LOAD_ON_LOOP 1
typedef int (*results_load_work_fn)(struct results_load *ld, void *arg, json_object **result,
                                    struct nm_error *err);
/* The loop's part of a reply: 0 with *result or -1 with err. */
typedef int (*results_load_done_fn)(struct results_load *ld, void *arg, json_object **result,
                                    struct nm_error *err);

/* Answer ctx's request from ld's results, as a handler returns: work on the reader thread
 * (NULL: RESULTS_LOAD_ON_LOOP), done (may be NULL when work never says RESULTS_LOAD_ON_LOOP)
 * on the loop; a reply made by work is serialised on the thread. With a client the reply is
 * deferred (ctx->deferred, a control_later: a client gone by then is sent nothing) and 0 is
 * returned; without one (tests, bench) everything runs now, on the calling thread, and the
 * reply is *result or err (ctx->offloop_ns, after_ns say what a client's request would have
 * cost off and on the loop). ld and arg are taken over (arg freed by free_fn). */
int results_load_reply(struct cmd_ctx *ctx, struct results_load *ld, results_load_work_fn work,
                       results_load_done_fn done, void *arg, void (*free_fn)(void *),
                       json_object **result, struct nm_error *err);

#endif
