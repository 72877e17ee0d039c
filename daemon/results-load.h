/* results-load.h: stored results read off the loop, then the caller called back on the loop
 * with them. The caller names the results on the loop (results_load_add: each name checked
 * against the store, a result being stored deep-copied, the files found: results_where);
 * the store's reader thread (results_reader) reads and checks the files and runs the
 * caller's pure work on them; what needs loop state runs on the loop after. For a command,
 * results_load_reply makes the reply that way: on the thread, its line too (a large result
 * is not serialised on the loop), sent through a control_later. */
#ifndef NM_RESULTS_LOAD_H
#define NM_RESULTS_LOAD_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "results.h"

struct cmd_ctx;
struct control_later;

/* One result to load. */
struct results_load_item {
	const char *name;    /* as added */
	json_object *result; /* loaded (the load's; take it with results_load_take), or NULL
	                      * with err */
	struct nm_error err;
	bool want_series;
	uint8_t *series; /* with want_series: the stored block's bytes (owned), NULL if none */
	size_t series_len;
	struct results_where where; /* private */
	bool found;                 /* private */
};

struct results_load;
/* A half of a load: on the reader thread (it may touch only ld's items and arg: no loop
 * state) or on the loop. */
typedef void (*results_load_fn)(struct results_load *ld, void *arg);
/* A command's work on the loaded results, on the reader thread (only ld's items and arg):
 * 0 with *result (the reply: NULL is {}), -1 with err, or RESULTS_LOAD_ON_LOOP: the done
 * function makes the reply on the loop (it needs loop state). */
#define RESULTS_LOAD_ON_LOOP 1
typedef int (*results_load_work_fn)(struct results_load *ld, void *arg, json_object **result,
                                    struct nm_error *err);
/* The loop's part of a reply: 0 with *result or -1 with err. */
typedef int (*results_load_done_fn)(struct results_load *ld, void *arg, json_object **result,
                                    struct nm_error *err);

struct results_load {
	struct results *rs; /* loop only */
	struct results_load_item *items;
	size_t n, cap;
	uint64_t thread_ns; /* CPU time the thread's half took */
	/* private: results_load_run */
	results_load_fn thread_fn, loop_fn;
	void *run_arg;
	/* private: results_load_reply */
	results_load_work_fn work;
	results_load_done_fn done;
	void *arg;
	void (*free_fn)(void *);
	struct control_later *later; /* NULL: no client, the handler returns the reply */
	int64_t id;
	bool has_id;
	int rc;
	json_object *result;
	struct nm_error err;
	char *line; /* the reply line made on the thread */
	size_t len;
};

/* A new load from rs (loop). Freed by results_load_free, or by results_load_reply. */
struct results_load *results_load_new(struct results *rs);
/* Add the result name (loop): found now, read later; with series its series block's bytes
 * are read too. A name not found (or bad) is an item with its error already. Returns the
 * item's index. */
size_t results_load_add(struct results_load *ld, const char *name, bool series);
/* Read the items on the store's reader thread, then thread_fn (may be NULL) there, then
 * loop_fn on the loop (it owns ld then: results_load_free). Without a reader thread (no
 * event base) all of it runs before this returns. */
void results_load_run(struct results_load *ld, results_load_fn thread_fn, results_load_fn loop_fn,
                      void *arg);
/* Take item i's result over (NULL with *err when it failed; err may be NULL). */
json_object *results_load_take(struct results_load *ld, size_t i, struct nm_error *err);
/* Free ld: the items' results not taken, their series. */
void results_load_free(struct results_load *ld);

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

/* TEST ONLY: every load sleeps ms on the reader thread first (a slow disk). */
void results_load_test_read_delay(unsigned ms);

#endif
