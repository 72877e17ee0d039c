/* results.h: finished windows' reports kept in the state directory as JSON files, written
 * atomically (temp file, fsync, rename, fsync of the directory), listed again after a
 * restart. A result's name may contain '/' (SUITE/conns_64_iter_1): it maps to
 * subdirectories of STATE_DIR/results/. */
#ifndef NM_RESULTS_H
#define NM_RESULTS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "resultindex.h"

struct event_base;
struct nm_error;
struct results;
struct writer;

/* Open (creating) STATE_DIR/results and index what is there. NULL with err. */
struct results *results_open(const char *state_dir, struct nm_error *err);
/* Write what is queued, stop the writer thread, free the store (the files stay). */
void results_close(struct results *rs);
/* Start the writer thread, its completions on base (NULL: jobs run inline, as before this
 * is called), and check the index against the files on it: rebuilt when missing, damaged or
 * of another schema, brought up to date when files came, went or changed. Until that is
 * done results_index_ready is false. 0, or -1 with err. */
int results_start(struct results *rs, struct event_base *base, struct nm_error *err);
/* The loop has stopped: run what the writer has queued and write inline from now on. */
void results_stop_thread(struct results *rs);

/* Is name usable: 1-200 bytes of [A-Za-z0-9._-] and '/', no empty or dot-dot component, not
 * starting or ending with '/'. 0 yes; -1 with err (NM_ERR_BAD_ARGS) saying why. */
int results_name_check(const char *name, struct nm_error *err);

/* Store result under name, atomically, on the calling thread (start-up, shutdown); replaces
 * nothing: NM_ERR_EXISTS if name is taken. Its index row follows on the writer thread. */
int results_put(struct results *rs, const char *name, json_object *result, struct nm_error *err);
/* Called on the loop when a put is over: err NULL once the result is durable (written,
 * fsync'ed, renamed, its directory fsync'ed) and indexed; else why it was not stored. */
typedef void (*results_done_fn)(void *arg, const struct nm_error *err);
/* Store result under name on the writer thread, so that a slow disk does not hold up the
 * loop; done(arg, ...) runs on the loop when it is over (inline, before this returns, when
 * the writer has no thread). The name is taken at once (results_exists) and results_get
 * serves result from memory until it is on disk; results_match and listings show it once it
 * is. 0 when queued (done will run); -1 with err when refused at once (bad name, name taken;
 * done will not run). result is not changed; a reference is kept. */
int results_put_async(struct results *rs, const char *name, json_object *result,
                      results_done_fn done, void *arg, struct nm_error *err);
/* Take name for result now, as results_put_async does, without storing it yet: results_get
 * serves result from memory (as it is: the caller only reads it until then, and another
 * thread may read it too), results_delete says it is being stored; results_put_async with
 * the same name and result then stores it (refused at once only for a bad or taken name,
 * before). 0, or -1 with err (bad name, name taken). */
int results_reserve(struct results *rs, const char *name, json_object *result,
                    struct nm_error *err);
/* The store's writer (writer.h), for work that must come before a put in the same order
 * (a closing window's tuning read). */
struct writer *results_writer(struct results *rs);
/* results_put_async, with blk (seriesblock.h; may be NULL; taken over, freed in any case)
 * encoded and written beside the result (NAME.series) on the writer thread before it. */
struct seriesblock;
int results_put_async_series(struct results *rs, const char *name, json_object *result,
                             struct seriesblock *blk, results_done_fn done, void *arg,
                             struct nm_error *err);
/* The series block stored with result name, its times made CLOCK_MONOTONIC with
 * mono_to_real (seriesblock_decode). NULL with err: NM_ERR_NOT_FOUND (no result, or one
 * stored without series), NM_ERR_FAILED when the file cannot be read or is damaged (logged
 * as a warning: the series are skipped, the result stays). */
struct seriesblock *results_series_get(struct results *rs, const char *name, int64_t mono_to_real,
                                       struct nm_error *err);
/* The stored bytes of result name's series block (new, *len), for export. NULL cases as
 * results_series_get; nothing is decoded. */
int results_series_bytes(struct results *rs, const char *name, uint8_t **buf, size_t *len,
                         struct nm_error *err);
/* Load a result (new reference) or NULL with err: NM_ERR_NOT_FOUND, or NM_ERR_FAILED when
 * the file cannot be read or fails results_check. results_where then results_where_read. */
json_object *results_get(struct results *rs, const char *name, struct nm_error *err);
/* Where a stored result is, found on the loop so that another thread can read it without
 * touching the store (results-load.c): a result being stored is deep-copied now; else the
 * paths of its file and of its series block (which may not exist). */
struct results_where {
	char *name;
	const char *dir;   /* the store's directory (lives as long as the store) */
	char *rel;         /* the result's file below dir; NULL when copy is set */
	json_object *copy; /* a result being stored, deep-copied */
	char *series_path; /* its series block's file */
};
/* Find name (loop): 0, or -1 with err (bad name, NM_ERR_NOT_FOUND); *w is zeroed on -1 and
 * freed with results_where_free on 0. */
int results_where(struct results *rs, const char *name, struct results_where *w,
                  struct nm_error *err);
/* Read and check the result (any thread; the copy is handed over, once): new reference, or
 * NULL with err as results_get says (a file deleted since results_where: NM_ERR_NOT_FOUND). */
json_object *results_where_read(struct results_where *w, struct nm_error *err);
/* The stored bytes of its series block (any thread), as results_series_bytes. */
int results_where_series(const struct results_where *w, uint8_t **buf, size_t *len,
                         struct nm_error *err);
void results_where_free(struct results_where *w);
/* The store's reader (writer.h: a second instance, started with the writer): the thread that
 * reads stored results for requests, so that neither the loop nor the writer's fsyncs and
 * index rebuilds hold a read up. Its jobs touch no state of the store. */
struct writer *results_reader(struct results *rs);
/* Check what is read back from a result file as network input is checked: r is an object,
 * and each member the daemon reads (window, test, figures, span_s, and the members of window
 * and test that are read) has its kind when present and not null. 0 ok; -1 with err. */
int results_check(json_object *r, struct nm_error *err);
int results_delete(struct results *rs, const char *name, struct nm_error *err);
bool results_exists(struct results *rs, const char *name);
/* Names matching glob (fnmatch, '/' matched by '*' too; NULL: all), sorted; *names is an
 * array of strings owned by rs, valid until the next put/delete/match. Returns the count.
 * Answered by the index (a range of its B-tree when the glob starts with literal text) once
 * it is ready, else from the names in memory; a result being stored is left out, a file the
 * index skipped is in (results_get says what is wrong with it). */
size_t results_match(struct results *rs, const char *glob, const char *const **names);

/* Is the index built and open for listings? */
bool results_index_ready(const struct results *rs);
/* The index rows matching f, newest first (resultindex_query), of results still stored.
 * -1 with err: NM_ERR_BUSY "index rebuilding" while it is built, NM_ERR_FAILED when a query
 * failed (a damaged index is then rebuilt). */
int results_list(struct results *rs, const struct resultindex_filter *f, resultindex_row_fn fn,
                 void *arg, struct nm_error *err);
/* The files the index could not read (not JSON, not a result), matching glob, with why. */
int results_list_skipped(struct results *rs, const char *glob, resultindex_skip_fn fn, void *arg,
                         struct nm_error *err);

#endif
