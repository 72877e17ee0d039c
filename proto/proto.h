/* proto.h: the netmetrics wire protocol: version, limits, the command table, framing and
 * the request/response envelope. One JSON object per line, both ways. */
#ifndef NM_PROTO_H
#define NM_PROTO_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/*
 * Protocol version history. Adding a command or an optional argument needs no bump;
 * changing or removing one does. Never reuse a command name.
 *   1  hello, status, cancel (first version); metrics, now, rates, series, queues, cpu,
 *      softirqs, interrupts, watch added (no bump: additions)
 *      mark-start, mark-stop, windows, window-delete, report, results, result-show,
 *      result-delete, result-export, compare added (no bump: additions)
 *      profile-show, profile-apply, profile-revert, profile-status, profiles added (no
 *      bump: additions)
 *      test-start, test-status, test-stop, tests, suite-run, suite-status, suite-stop added
 *      (no bump: additions)
 *      trend added (no bump: addition)
 *      profile-set, profile-save added (no bump: additions)
 *      results-trend added (no bump: addition)
 *      napi, drops added; softirqs' time (no bump: additions)
 */
#define PROTO_VERSION 1

#define PROTO_MAX_REQUEST 65536 /* bytes in one request line, newline excluded */
#define PROTO_MAX_DEPTH   16    /* JSON nesting depth of a request */
#define PROTO_MAX_NAME    64    /* bytes in a command name */

/* ---- command table (commands.c) ---- */

enum proto_cmd_flags {
	PROTO_READONLY = 1 << 0, /* anyone who can open the socket */
	PROTO_MUTATING = 1 << 1, /* root or the admin group only */
	PROTO_STREAM = 1 << 2,   /* sends events with the request's id until cancelled */
};

enum proto_arg_type {
	PROTO_ARG_STRING,
	PROTO_ARG_INT,    /* JSON integer within [min, max] */
	PROTO_ARG_NUMBER, /* JSON number (int or double) within [min, max] */
	PROTO_ARG_BOOL,
	PROTO_ARG_STRINGS, /* array of strings */
	PROTO_ARG_CPULIST, /* string parsed as a CPU list or hex mask */
	PROTO_ARG_OBJECT,  /* JSON object, checked by the handler */
};

/* The unit a duration argument is sent in (PROTO_DUR_NONE: not a duration). */
enum proto_duration {
	PROTO_DUR_NONE = 0,
	PROTO_DUR_S,  /* seconds, a JSON number (fractions allowed) */
	PROTO_DUR_MS, /* milliseconds, an integer */
	PROTO_DUR_NS, /* nanoseconds, an integer */
};

/* The number of nanoseconds in a duration unit; 0 for PROTO_DUR_NONE. */
uint64_t proto_duration_ns(enum proto_duration d);

struct proto_arg {
	const char *name;
	enum proto_arg_type type;
	bool required;
	double min, max;  /* for INT and NUMBER; both 0 means unbounded */
	size_t max_len;   /* for STRING/STRINGS items; 0 means PROTO_MAX_STRING */
	const char *help; /* one line */
	bool positional;  /* the client also takes it as the next bare word */
	/* A time: the client takes a duration with units (5m, -10s, 1m30s, 500ms) and sends
	 * the number in this unit; a bare number is in this unit too. The wire stays a number. */
	enum proto_duration duration;
};

#define PROTO_MAX_STRING 4096
#define PROTO_MAX_ARGS   48

struct proto_command {
	const char *name;
	unsigned flags;
	const char *summary; /* one line, for help */
	const char *usage;   /* client usage after the command name, e.g. "[GLOB] [--last SEC]" */
	struct proto_arg args[PROTO_MAX_ARGS]; /* terminated by name == NULL */
};

/* The table: every command, in help order. proto_commands[proto_ncommands]. */
extern const struct proto_command proto_commands[];
extern const size_t proto_ncommands;

/* Look a command up by name; NULL when unknown. */
const struct proto_command *proto_command_find(const char *name);
/* The name of a flag set for the wire: "readonly", "mutating", "stream" (mutating wins). */
const char *proto_command_access(const struct proto_command *cmd);
/* The table as JSON for hello: [{"name":..,"access":..,"summary":..,"args":[..]}].
 * Returns a new reference. */
json_object *proto_commands_json(void);

/* ---- argument validation (args.c) ---- */

/* Check args (a JSON object or NULL, meaning {}) against cmd's schema: unknown members,
 * missing required ones, wrong types, out-of-range numbers, over-long strings, bad CPU
 * lists. 0 when valid; -1 with err (code NM_ERR_BAD_ARGS) naming the argument. */
int proto_args_check(const struct proto_command *cmd, json_object *args, struct nm_error *err);

/* ---- framing (frame.c) ---- */

/* Splits a byte stream into lines of at most `limit` bytes. Bytes are fed as they arrive;
 * lines are popped one at a time. An over-long line is reported once (FRAME_TOO_LONG) and
 * its bytes are discarded up to and including its newline; framing resumes after it. */
struct frame_reader {
	char *buf; /* owned */
	size_t len, cap, scan;
	size_t limit;
	bool discarding; /* inside an over-long line, dropping bytes until '\n' */
	bool too_long_pending;
};

enum frame_status {
	FRAME_NONE = 0, /* no complete line yet */
	FRAME_LINE,     /* *line, *len set (no newline, NUL-terminated); valid until next call */
	FRAME_TOO_LONG, /* a line passed the limit; its bytes are being dropped */
	FRAME_BAD_UTF8, /* a complete line that is not valid UTF-8 (dropped) */
};

void frame_init(struct frame_reader *fr, size_t limit);
void frame_free(struct frame_reader *fr);
/* Append bytes; never buffers more than limit + 1 bytes of an unfinished line. */
void frame_feed(struct frame_reader *fr, const void *data, size_t len);
enum frame_status frame_pop(struct frame_reader *fr, const char **line, size_t *len);
/* Bytes of an unfinished line buffered now (for the idle deadline). */
size_t frame_pending(const struct frame_reader *fr);
/* True when buf[0..len) is valid UTF-8 (no overlongs, no surrogates, <= U+10FFFF). */
bool frame_utf8_valid(const char *buf, size_t len);

/* ---- envelope (envelope.c) ---- */

struct proto_request {
	json_object *root; /* owned: json_object_put() via proto_request_free */
	int64_t id;        /* 0 when the request carried none */
	bool has_id;
	const char *cmd;   /* points into root */
	json_object *args; /* borrowed from root, NULL when absent */
};

/* Parse one request line: JSON (depth-limited), an object, "cmd" a string, "id" an integer
 * when present, "args" an object when present, no other members. 0 ok; -1 with err
 * (NM_ERR_BAD_REQUEST). req->id is filled whenever the line had a usable id, even on error,
 * so the error reply can carry it. */
int proto_request_parse(const char *line, size_t len, struct proto_request *req,
                        struct nm_error *err);
void proto_request_free(struct proto_request *req);

/* Build a request line (with trailing '\n'); caller frees. args may be NULL. */
char *proto_request_format(int64_t id, const char *cmd, json_object *args, size_t *len);
/* Build replies (with trailing '\n'); caller frees. result may be NULL (means {}). */
char *proto_reply_ok(int64_t id, bool has_id, json_object *result, size_t *len);
char *proto_reply_error(int64_t id, bool has_id, enum nm_errcode code, const char *message,
                        size_t *len);
/* A reply written a part at a time: the head {"id":N,"ok":true,"result": into buf (at least
 * PROTO_REPLY_HEAD_MAX bytes; returns its length), then the result object's text, then
 * PROTO_REPLY_TAIL. The same bytes as proto_reply_ok. */
#define PROTO_REPLY_HEAD_MAX 64
#define PROTO_REPLY_TAIL     "}\n"
size_t proto_reply_ok_head(int64_t id, bool has_id, char *buf, size_t size);
/* A streamed event: {"id":N,"event":TYPE,"data":{...}}\n; caller frees. */
char *proto_event(int64_t id, const char *type, json_object *data, size_t *len);

/* Parsed reply, for the client. */
struct proto_reply {
	json_object *root; /* owned */
	int64_t id;
	bool ok;
	bool is_event;
	const char *event;     /* when is_event */
	json_object *result;   /* ok: result; event: data (borrowed) */
	enum nm_errcode code;  /* !ok */
	const char *code_name; /* !ok, as sent */
	const char *message;   /* !ok */
};

int proto_reply_parse(const char *line, size_t len, struct proto_reply *rep, struct nm_error *err);
void proto_reply_free(struct proto_reply *rep);

#endif
