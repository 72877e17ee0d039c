/* blockload.h: a stored result's series block (NAME.series) read and decoded off the loop,
 * on the store's reader thread (results-load.h), for a reply made a part at a time that
 * answers from it: `series --window` and `trend --window` once the ring no longer holds the
 * window, or for series the ring has not (a test's own figures). A block of a big host's
 * hour is tens of MB: its read and decode on the loop held it for tens of ms. */
#ifndef NM_BLOCKLOAD_H
#define NM_BLOCKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

struct results;
struct seriesblock;
struct blockload;

/* Load name's block from rs (loop); done(arg) runs on the loop once it is decoded or has
 * failed (without a reader thread, before this returns). mono_to_real as the block's
 * decoder takes it. */
struct blockload *blockload_start(struct results *rs, const char *name, int64_t mono_to_real,
                                  void (*done)(void *arg), void *arg);
/* After done: the block (taken over), or NULL with err (no result, no stored series, a
 * damaged one: logged). Frees bl. */
struct seriesblock *blockload_take(struct blockload *bl, struct nm_error *err);
/* The caller has gone before done: bl is freed once the load is over, done not called. */
void blockload_cancel(struct blockload *bl);
/* A reply's step of it: start the load of name's block when *bl is NULL, then 1 while it is
 * read; 0 once it is over, with the block in *blk (NULL: none, or damaged) and *bl NULL
 * again, the thread's CPU ns added to *offloop_ns (when not NULL). */
int blockload_poll(struct blockload **bl, struct results *rs, const char *name,
                   int64_t mono_to_real, void (*done)(void *arg), void *arg, uint64_t *offloop_ns,
                   struct seriesblock **blk);

#endif
