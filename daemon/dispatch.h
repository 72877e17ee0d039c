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
	bool deferred; /* set by dispatch_defer: the reply comes later */
};

/* A reply a handler sends later, from an event (a result durable on the writer thread). */
struct dispatch_later;
/* Defer the reply of this request: the handler returns 0 with *result NULL, and answers
 * with dispatch_later_reply, once. NULL when there is no client to answer later (the
 * handler then answers now). */
struct dispatch_later *dispatch_defer(struct cmd_ctx *ctx);
/* Send the deferred reply: result (borrowed; NULL means {}) when err is NULL, else the
 * error. Frees dl; nothing is sent when the client has gone. */
void dispatch_later_reply(struct dispatch_later *dl, json_object *result,
                          const struct nm_error *err);

/* A handler fills *result (a new object; NULL means {}) and returns 0, or returns -1 with
 * err. A STREAM handler that returns 0 with *result NULL sends no reply now: it has
 * registered a stream on the client and answers through events. */
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
