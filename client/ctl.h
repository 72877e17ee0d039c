/* ctl.h: netmetricsctl's shared declarations: options, exit codes, the connection and the
 * per-command renderers. */
#ifndef NM_CTL_H
#define NM_CTL_H

#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "proto.h"

#define CTL_DEFAULT_SOCKET "/run/netmetricsd/netmetricsd.sock"

enum ctl_exit {
	CTL_EXIT_OK = 0,
	CTL_EXIT_REFUSED = 1, /* the daemon said no */
	CTL_EXIT_USAGE = 2,
	CTL_EXIT_UNREACHABLE = 3,   /* cannot reach the daemon */
	CTL_EXIT_INTERRUPTED = 130, /* --wait stopped by Ctrl-C (what it followed goes on) */
};

struct ctl_opts {
	const char *socket;
	bool json;
	bool csv;
	int plot; /* series --plot[=MODE]: enum plot_mode (plot.h), 0 none */
};

/* ---- conn.c ---- */
struct conn {
	int fd;
	const char *path;
	char *buf; /* unread bytes of the reply stream */
	size_t len, cap;
	int64_t next_id;
	/* When a signal interrupts a read while *stop is set, conn_read returns -2 (quietly). */
	const volatile sig_atomic_t *stop;
};

/* Connect; on failure print why and what to do, return -1 (exit CTL_EXIT_UNREACHABLE). */
int conn_open(struct conn *c, const char *path);
void conn_close(struct conn *c);
/* Send one request and read its reply (events of other ids are skipped). Returns 0 with
 * *rep filled (caller frees with proto_reply_free), -1 when the connection failed (message
 * printed). */
int conn_call(struct conn *c, const char *cmd, json_object *args, struct proto_reply *rep);
/* Send a request without waiting; returns its id or -1. */
int64_t conn_send(struct conn *c, const char *cmd, json_object *args);
/* Read the next reply or event line. 0 ok, -1 on EOF/error (message printed), -2 when
 * interrupted while *c->stop is set. */
int conn_read(struct conn *c, struct proto_reply *rep);
/* One request on its own connection; *result (new reference) when the daemon said yes, a
 * refusal printed. Returns the exit code (enum ctl_exit). */
int ctl_call(const struct ctl_opts *opts, const char *cmd, json_object *args, json_object **result);
/* The same on an open connection, left open (--wait follows on it). */
int ctl_call_on(const struct ctl_opts *opts, struct conn *c, const char *cmd, json_object *args,
                json_object **result);
/* Print a refusal (!rep->ok) on stderr, its text escaped. */
void conn_print_refusal(const struct proto_reply *rep);
/* Text from the daemon or the command line made safe for a terminal: valid UTF-8 with
 * every control character escaped ("\x1B"), cut to size between characters; returns buf. */
const char *conn_text(const char *s, char *buf, size_t size);
/* The same, newlines and tabs kept, in a new string the caller frees. */
char *conn_text_dup(const char *s);

/* ---- renderers (cmd-<group>.c) ---- */
typedef void (*ctl_render_fn)(json_object *result, const struct ctl_opts *opts, FILE *fp);

void render_hello(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_status(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_metrics(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_now(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_rates(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_series(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_cpu(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_softirqs(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_queues(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_interrupts(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_napi(json_object *result, const struct ctl_opts *opts, FILE *fp);
/* report-bpf.c: a report's sections from its "bpf" figure. */
void ctl_report_bpf(json_object *bpf, FILE *fp);
void render_drops(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_trend(json_object *result, const struct ctl_opts *opts, FILE *fp);
/* cmd-windows.c */
void render_mark_start(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_windows(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_results(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_results_trend(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_deleted(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_result_export(json_object *result, const struct ctl_opts *opts, FILE *fp);
/* cmd-profile.c */
void render_profile_show(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_profile_apply(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_profile_save(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_profile_revert(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_profile_status(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_profiles(json_object *result, const struct ctl_opts *opts, FILE *fp);
/* profile apply FILE: read the file into args as "text" (named after it). 0, or -1 after
 * printing why. */
int ctl_profile_args(json_object *args);

/* cmd-report.c: report, result-show and mark-stop replies; compare. */
void render_report(json_object *result, const struct ctl_opts *opts, FILE *fp);
/* The report's devices that went away inside the window ("vA went away 0.531 s into the
 * window (found gone at 07:40:45.800): its figures stop there; back ..."), and a
 * comparison's results that did not complete ("A: r1 did not complete: REASON"), each line
 * handed to emit (the text prints it, --html escapes it into a paragraph). */
void ctl_gone_notes(json_object *rep, void (*emit)(const char *line, void *arg), void *arg);
void ctl_incomplete_notes(json_object *cmp, void (*emit)(const char *line, void *arg), void *arg);
/* A `watch bursts` view: per queue, device and CPU that moved, the last interval's mean
 * and peak rate (cmd-report.c, beside the report's bursts table). */
void render_watch_bursts(json_object *view, const struct ctl_opts *opts, FILE *fp);
void render_compare(json_object *result, const struct ctl_opts *opts, FILE *fp);

/* cmd-test.c: tests and suites. */
void render_test(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_test_status(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_tests(json_object *result, const struct ctl_opts *opts, FILE *fp);
void render_suite(json_object *result, const struct ctl_opts *opts, FILE *fp);
/* suite run FILE: read the file into args as text. 0, or -1 after printing why. */
int ctl_suite_args(json_object *args);
/* The benchmark block of a test's report: what ran, how it ended, its figures. */
void ctl_print_benchmark(json_object *test, FILE *fp);
/* --wait after test start / suite run (started: its reply): follow it on conn until it
 * ends, print it; 0 when it (every run) passed. */
int ctl_wait_test(const struct ctl_opts *opts, struct conn *conn, json_object *started);
int ctl_wait_suite(const struct ctl_opts *opts, struct conn *conn, json_object *started);

/* ---- follow.c ---- */
/* How --wait shows what it follows: the event's name and the -status command asked to
 * follow it, its progress line, the end (printed; the exit code). */
struct ctl_follow {
	const char *event;  /* "test": the record is data.test */
	const char *status; /* "test-status": asked with {"name":..,"follow":true} */
	void (*progress)(json_object *rec, char *buf, size_t size);
	int (*end)(json_object *rec, const struct ctl_opts *opts, FILE *fp);
};
/* Ask the daemon to stream name's progress on conn and show it until the end event: an
 * updating line when stdout is a terminal, else a line per event (nothing with --json);
 * then the end. Ctrl-C cancels the stream (not the test) and returns CTL_EXIT_INTERRUPTED. */
int ctl_follow_run(const struct ctl_opts *opts, struct conn *conn, const struct ctl_follow *f,
                   const char *name);

/* ---- main.c: the client's side of each command ---- */
enum ctl_command_flag {
	CTL_PLOT = 1u << 0, /* --plot draws the result in the terminal */
};
/* What the client does for one command of the protocol's table (proto/commands.c, which
 * holds its name, arguments, access and help) that the table cannot say: how its result is
 * shown, the options of the client's own, the file it reads into the arguments. */
struct ctl_command {
	const char *name;     /* the proto_commands[] name */
	ctl_render_fn render; /* NULL: the result as JSON */
	unsigned flags;       /* enum ctl_command_flag */
	/* Read the command's FILE argument into args: 0, or -1 after printing why. */
	int (*file_args)(json_object *args);
	/* --wait: follow what the command started (its reply) on the same connection. */
	int (*wait)(const struct ctl_opts *opts, struct conn *conn, json_object *started);
	/* The command's "follow" argument streams: shown by this, given the request's args. */
	int (*follow)(const struct ctl_opts *opts, struct conn *conn, json_object *args);
	/* draw_opt FILE (--html, --svg): the reply drawn into FILE by this (html.h). */
	int (*draw)(const struct ctl_opts *opts, json_object *args, const char *file);
	const char *draw_opt;
	const char *draw_help;
};
/* The client's entry for a command, NULL when it has none (JSON, no options of its own). */
const struct ctl_command *ctl_command_find(const char *name);
/* A command's name as it is typed: "mark-start" -> "mark start" (buf, cut to size). */
void ctl_command_words(const char *name, char *buf, size_t size);

/* Shared by the renderers (cmd-query.c). */
struct table;
void ctl_table_out(struct table *t, const struct ctl_opts *opts, FILE *fp);
json_object *ctl_array(json_object *o, const char *key);
void ctl_span_line(json_object *result, const struct ctl_opts *opts, FILE *fp);
/* The NAPI ids the kernel links a queue row's rx and tx queue to (its "rx_napi", "tx_napi"):
 * "257" (the same NAPI, or none: "-"), "257/-" (rx/tx). */
void ctl_napi_cell(json_object *qo, char *buf, size_t size);

/* ---- watch.c ---- */
/* Run a watch stream until interrupted; the exit code. */
int ctl_watch(const struct ctl_opts *opts, json_object *args);

/* The renderer for a command, NULL for the default (JSON pretty-printed). */
ctl_render_fn ctl_renderer_find(const char *name);

/* ---- cmd-hosts.c ---- */
/* A multi-host result's hosts side by side, its cross-host figures and skew (nothing for
 * a result of one host). */
void ctl_print_hosts(json_object *rep, const struct ctl_opts *opts, FILE *fp);

/* ---- proxy.c ---- */
/* netmetricsctl proxy: stdin and stdout joined to the daemon's socket until either side
 * closes; the exit code. */
int ctl_proxy(const struct ctl_opts *opts);

/* ---- render-json.c ---- */
/* Print the result object as the daemon sent it, one line. */
void render_json(json_object *result, FILE *fp);

#endif
