/* window.h: named measurement windows. A window's edges are snapshots taken right after a
 * synchronous sample of every source, so they are exact and do not depend on the ring still
 * holding that time. An open window is also a file in STATE_DIR/windows, so one left open
 * across a crash is found at the next start and stored as an incomplete result. Closing a
 * window stores its report in the results store before anyone is told it closed, with the
 * per-sample history of its span (seriesblock.h), copied out of the ring at the close. */
#ifndef NM_WINDOW_H
#define NM_WINDOW_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct irq_table;
struct sampler;
struct results;
struct nm_error;
struct windows;
struct testseries;

/* Closed windows whose snapshots stay in memory (for reports with other CPU sets); beyond
 * either bound the window closed first is forgotten (its result stays on disk). */
#define WINDOW_KEEP_MAX   64
#define WINDOW_KEEP_BYTES (256u << 20)
/* A close's copy of the series out of the ring (seriesblock_collect_step) is made in slices
 * of at most DAEMON_SLICE_NS of loop time or this many records, one per turn of the loop. */
#define WINDOW_SLICE_RECORDS 4096
/* Windows open at once. */
#define WINDOW_OPEN_MAX 64

/* The registry, over s and rs (both must outlive it). Windows left open by a daemon that
 * did not stop cleanly are stored as incomplete results. NULL with err. */
struct windows *window_init(struct sampler *s, struct results *rs, const char *state_dir,
                            struct nm_error *err);
/* From now on, a closing window's result records the host's tuning below root and the
 * profile applied in state_dir (tuning.h), as "tuning". */
void window_record_tuning(struct windows *ws, const char *root, const char *state_dir);
/* From now on, a result's burst figures keep at most max_series of the queues' and CPUs'
 * series ([bursts] max_series; bursts_json_blocks; 0: no cap). BURSTS_MAX_SERIES_DEFAULT
 * until called. */
void window_bursts_max(struct windows *ws, size_t max_series);
/* With base set, a close copies its series out of the ring (seriesblock.h) a slice per turn
 * of the loop on base (at most DAEMON_SLICE_NS each), the store going on once the copy is over; the
 * window is "storing" meanwhile. With NULL (the default, and at shutdown once the loop has
 * stopped: before results_stop_thread) copies in progress are finished at once, and from
 * then on a close copies at once. */
struct event_base;
void window_set_loop(struct windows *ws, struct event_base *base);
/* The slices of those copies: at most slice_ns of loop time or records records each (0:
 * the defaults, DAEMON_SLICE_NS and WINDOW_SLICE_RECORDS), pause_ms between them (0: the next
 * turn). Tests. */
void window_set_pace(struct windows *ws, uint64_t slice_ns, size_t records, unsigned pause_ms);
/* Close every open window (closed_by "shutdown", stored) and free the registry. */
void window_free(struct windows *ws);

/* Open a window: origin is "hand" or "test". Refuses a name that an open window, a kept
 * window or a stored result uses (NM_ERR_EXISTS). Returns a description (new reference)
 * or NULL with err. */
json_object *window_start(struct windows *ws, const char *name, const char *origin,
                          struct nm_error *err);
/* window_start; with replace, a closed window or a stored result of the name is deleted
 * once the new window has opened (an open window, or one being stored, is still refused);
 * the reply's "replaced" lists what went ("result", "window"). */
json_object *window_start_replace(struct windows *ws, const char *name, const char *origin,
                                  bool replace, struct nm_error *err);
/* Called on the loop when a window_stop is over: report (borrowed) once the result is
 * durable, or NULL with err when it could not be stored (the window then stays open, its
 * end edge kept, so that a retry closes at the same instant). */
typedef void (*window_stored_fn)(void *arg, json_object *report, const struct nm_error *err);
/* Close an open window: its report with the options in args ("cpus": ["NAME=LIST", ...],
 * "min_rate": N; args may be NULL) is built now and stored on the results writer thread
 * (fsync and all), then done(arg, report, NULL) runs on the loop. closed_by is "hand"
 * (mark-stop) or "test" (the test runner). extra (may be NULL) adds members to the report
 * before it is stored: those of extra.window go into its "window" object, the rest at the
 * top ("test": the benchmark's figures). The end edge is now, or the instant of
 * window_freeze. While it is stored the window is listed as "storing" and cannot be stopped
 * or deleted. 0 when storing began (done runs later, or before this returns when the
 * writer runs inline); -1 with err when refused at once (done does not run; the window
 * stays open). */
int window_stop(struct windows *ws, const char *name, json_object *args, const char *closed_by,
                json_object *extra, window_stored_fn done, void *arg, struct nm_error *err);
/* window_stop where the results store writes inline (no writer thread: start-up, tests,
 * benches): the stored report (new reference), or NULL with err. */
json_object *window_stop_inline(struct windows *ws, const char *name, json_object *args,
                                const char *closed_by, json_object *extra, struct nm_error *err);
/* Take the end edge of an open window now, while it stays open (a test's measured span
 * ends at cool-down, its result is stored when the benchmark has exited). Its live report
 * ends there too. 0, or -1 with err. */
int window_freeze(struct windows *ws, const char *name, struct nm_error *err);
/* A test's live figures (testseries.h; heap, taken over, also on error) for the open window
 * name: when it closes, its records in the window's span are added to the stored series
 * block as the source "test" (seriesblock_test_add); once stored, they are freed. A later
 * call replaces them. 0, or -1 when there is no such open window (ts freed). */
int window_test_series(struct windows *ws, const char *name, struct testseries *ts);
/* Give the open window name its benchmark for the manifest (manifest_build's bench:
 * {"program", "version", "argv", "procs"}; the reference is taken). 0, or -1 when there is
 * no such open window (bench put). */
int window_set_benchmark(struct windows *ws, const char *name, json_object *bench);
/* The CLOCK_REALTIME ns of an open window's end edge once frozen (window_freeze), else of
 * its start edge; 0 when there is no such open window (the edges of multi-host windows). */
uint64_t window_edge_real_ns(const struct windows *ws, const char *name);
/* Is there a window named name in memory (open, or closed and kept)? Stored results are
 * the results module's to answer (results_exists). Nothing is read or sampled. */
bool window_exists(const struct windows *ws, const char *name);
/* How many windows are open (fine sampling runs while one is: sampler.h). */
size_t window_open_count(const struct windows *ws);
/* Is there an open window named name? */
bool window_is_open(const struct windows *ws, const char *name);
/* The report of a window: live (start to now) for an open one; the stored result when args
 * asks nothing else (marked "stored": true); recomputed from the snapshots when args asks
 * for other CPU sets and they are still in memory. New reference, or NULL with err. */
json_object *window_report(struct windows *ws, const char *name, json_object *args,
                           struct nm_error *err);
/* window_report with the stored result already loaded (taken over; NULL: none stored), for
 * a load off the loop (cmd-report.c). */
json_object *window_report_loaded(struct windows *ws, const char *name, json_object *args,
                                  json_object *stored, struct nm_error *err);
/* The live report of an open window in parts, for a reply made over turns of the loop
 * (cmd-report.c): window_live_sample samples every source now, window_live_edge (in the
 * next turn) copies the live state into *now as its end edge and returns true, or false when
 * there is none to take (no such open window, or its end edge is taken already: it is being
 * stored); then, in a later turn, window_live_report builds the report to that edge (now
 * NULL: none was taken). When the window changed in between, it is window_report at once.
 * New reference, or NULL with err; the caller frees *now (snapshot_free). */
struct snapshot;
void window_live_sample(struct windows *ws, const char *name);
bool window_live_edge(struct windows *ws, const char *name, struct snapshot *now);
json_object *window_live_report(struct windows *ws, const char *name, json_object *args,
                                const struct snapshot *now, struct nm_error *err);
/* Does the stored result answer a report asking args as it is? Pure: any thread. */
bool window_report_as_stored(json_object *args, json_object *stored);
/* Forget a window, open or closed; its stored result stays. Returns a description (new
 * reference) or NULL with err. */
json_object *window_delete(struct windows *ws, const char *name, struct nm_error *err);
/* Open and kept windows, in the order they were opened (new reference). */
json_object *window_list_json(struct windows *ws);
/* The span of a window in CLOCK_MONOTONIC ns, for queries over the ring: an open window's
 * start to the newest sample, a kept window's edges, else a stored result's window.start
 * and window.end (a result of an earlier run maps to before this run's ring: clamp and
 * check). 0, or -1 with err (not_found). */
int window_span(struct windows *ws, const char *name, uint64_t *t0_ns, uint64_t *t1_ns,
                struct nm_error *err);

/* The IRQ table in force during a window, for views of its span: a kept window's end edge
 * (an open window's start edge); else a stored result's "irq_table", its shape checked
 * (irqtable_from_json). A result without one (stored by an older version) or with a
 * malformed one gives today's table (sampler_irq_table) and a note saying so in note (""
 * otherwise). out is the caller's (irqtable_free). 0, or -1 with err (not_found, or
 * today's table cannot be read). */
int window_irq_table(struct windows *ws, const char *name, struct irq_table *out, char *note,
                     size_t size, struct nm_error *err);

#endif
