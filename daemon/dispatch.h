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

/* What a handler sees: the daemon, the client, the request id and the checked args. */
struct cmd_ctx {
	struct daemon *d;
	struct client *client;
	int64_t id;
	bool has_id;
	const struct proto_command *cmd;
	bool deferred; /* the handler answers later (control_later_new) */
};

/* A handler fills *result (a new object; NULL means {}) and returns 0, or returns -1 with
 * err. A STREAM handler that returns 0 with *result NULL sends no reply now: it has
 * registered a stream on the client and answers through events. A handler that sets
 * ctx->deferred and returns 0 sends no reply now either: it answers through a
 * control_later once its work (a child process) is done. */
typedef int (*cmd_handler)(struct cmd_ctx *ctx, json_object *args, json_object **result,
                           struct nm_error *err);

struct cmd_binding {
	const char *name;
	cmd_handler handler;
};

/* The handler bound to a command name, NULL when none (cmd-table.c). */
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
