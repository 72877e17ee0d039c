/* writer.h: a thread for the slow half of storing (write, fsync, rename, fsync of the
 * directory, the index insert), so that a slow disk never holds up the event loop. A job
 * runs on the thread; its done function runs back on the loop, from an eventfd event, once
 * the job has returned. Jobs run one at a time in the order they were submitted. */
#ifndef NM_WRITER_H
#define NM_WRITER_H

#include <stdbool.h>

struct event_base;
struct writer;

/* Runs on the writer thread: must touch only what arg owns (no loop state). */
typedef void (*writer_job_fn)(void *arg);
/* Runs on the loop thread once the job has returned. */
typedef void (*writer_done_fn)(void *arg);

/* Start the thread, its completions handled on base. With base NULL no thread starts: each
 * job and its done run inline in writer_submit (unit tests, start-up before the loop).
 * NULL with err. */
struct nm_error;
struct writer *writer_new(struct event_base *base, struct nm_error *err);
/* Run what is queued, stop the thread, free. */
void writer_free(struct writer *w);
/* Queue job(arg), then done(arg) on the loop (done may be NULL). */
void writer_submit(struct writer *w, writer_job_fn job, writer_done_fn done, void *arg);
/* Wait until every job submitted so far has run, and run their done functions now, on the
 * calling (loop) thread. */
void writer_drain(struct writer *w);
/* From now on run jobs inline, as with base NULL (shutdown: the loop no longer runs).
 * Drains first. */
void writer_inline(struct writer *w);
/* Jobs submitted and not yet done (their done function has not run). */
unsigned writer_pending(const struct writer *w);

#endif
