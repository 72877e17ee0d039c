/* dispatch.h: from one request line to one reply: validation in a fixed order, the
 * permission check, the handler. */
#ifndef NM_DISPATCH_H
#define NM_DISPATCH_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct daemon;
struct client;
struct nm_error;
struct evbuffer;

/* What a handler sees: the daemon, the client, the request id and the checked args. */
struct cmd_ctx {
	struct daemon *d;
	struct client *client;
	int64_t id;
	bool has_id;
	const struct proto_command *cmd;
	bool deferred; /* no reply now: it is made a part at a time (dispatch_defer) or
	                * later (control_later_new) */
	/* Without a client, dispatch_defer runs the parts at once and counts them here, in CPU
	 * ns (for bench/: each part is one callback of the loop when a client reads). */
	size_t parts;
	uint64_t parts_ns, longest_part_ns;
	uint64_t defer_ns; /* all of that run, parsing the line back included */
	size_t reply_bytes;
	/* Without a client, a reply made from stored results (results_load_reply) runs its
	 * halves at once too: the CPU ns of the half a reader thread runs when a client waits
	 * (no loop time), of the half on the loop after it, and whether the reply's line is
	 * made off the loop as well. */
	bool loaded;
	uint64_t offloop_ns, after_ns;
	bool offloop_line;
};

/* A handler fills *result (a new object; NULL means {}) and returns 0, or returns -1 with
 * err. A STREAM handler that returns 0 with *result NULL sends no reply now: it has
 * registered a stream on the client and answers through events. A handler that sets
 * ctx->deferred and returns 0 sends no reply now either: it answers through a
 * control_later once its work (a child process, a result made durable) is done. */
typedef int (*cmd_handler)(struct cmd_ctx *ctx, json_object *args, json_object **result,
                           struct nm_error *err);

/* One command of the daemon, defined beside its handler in its cmd-<name>.c, like tmux's
 * cmd_entry: const struct cmd_entry cmd_X_entry = {.proto = "X", .exec = cmd_X}. What the
 * command is on the wire (arguments, access, help) is its proto_command in proto/commands.c,
 * found by the name proto, because the client shares that table and cannot link handlers. */
struct cmd_entry {
	const char *proto; /* the proto_commands[] name */
	cmd_handler exec;
};
/* Every entry, NULL-terminated: generated at build time from the daemon's cmd-*.c files
 * (tools/gen-cmd-table), so a command is listed nowhere else. Defined in the command layer,
 * above this one: main hands it to dispatch_init. */
extern const struct cmd_entry *const cmd_table[];
/* The table of commands requests are answered from (cmd_table), before the first. */
void dispatch_init(const struct cmd_entry *const *table);

/* Answer a request with a reply made a part at a time by fn (see control_client_produce;
 * fn writes the whole line, dispatch no reply). Without a client (a unit test, a bench),
 * fn runs to the end at once and its line is parsed back into *result or err. 0, or -1 with
 * err; arg is freed with free_fn either way. */
typedef int (*dispatch_produce_fn)(struct evbuffer *out, void *arg);
int dispatch_defer(struct cmd_ctx *ctx, dispatch_produce_fn fn, void *arg, void (*free_fn)(void *),
                   json_object **result, struct nm_error *err);

/* The handler of the dispatch_init table's entry for a command name, NULL when none. */
cmd_handler dispatch_handler_find(const char *name);

/* May a peer with this admin status run cmd? 0 yes; -1 with err (NM_ERR_DENIED). */
int dispatch_permitted(const struct proto_command *cmd, bool admin, struct nm_error *err);

/* Handle one request line from client; returns the reply line (with '\n', caller frees)
 * or NULL when the handler streams its answer. Whether the client may run a mutating
 * command is asked for each such request (control_client_is_admin); a NULL client may
 * not. */
char *dispatch_line(struct daemon *d, struct client *client, const char *line, size_t len,
                    size_t *outlen);

#endif
