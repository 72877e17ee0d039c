/* results-load.h: stored results read off the loop, then the caller called back on the loop
 * with them. The caller names the results on the loop (results_load_add: each name checked
 * against the store, a result being stored deep-copied, the files found: results_where);
 * the store's reader thread (results_reader) reads and checks the files and runs the
 * caller's pure work on them; what needs loop state runs on the loop after. For a command,
 * results_load_reply (results-reply.h) makes the reply that way. */
#ifndef NM_RESULTS_LOAD_H
#define NM_RESULTS_LOAD_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "results.h"

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
struct results_load {
	struct results *rs; /* loop only */
	struct results_load_item *items;
	size_t n, cap;
	uint64_t thread_ns; /* CPU time the thread's half took */
	/* private: results_load_run */
	results_load_fn thread_fn, loop_fn;
	void *run_arg;
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
/* Read the items and run thread_fn (may be NULL) now, on the calling thread (ld->thread_ns
 * says what it took): what a request without a client does instead of results_load_run. */
void results_load_run_here(struct results_load *ld, results_load_fn thread_fn, void *arg);
/* Free the items' results and series now (on the thread when the reply is made there: a
 * large result's free is not loop time either). */
void results_load_release(struct results_load *ld);
/* Take item i's result over (NULL with *err when it failed; err may be NULL). */
json_object *results_load_take(struct results_load *ld, size_t i, struct nm_error *err);
/* Free ld: the items' results not taken, their series. */
void results_load_free(struct results_load *ld);

/* TEST ONLY: every load sleeps ms on the reader thread first (a slow disk). */
void results_load_test_read_delay(unsigned ms);

#endif
