/* cmd-mark-peers.h: mark-start NAME --peer ... and mark-stop of a multi-host window, for
 * cmd-mark-start.c and cmd-mark-stop.c: deferred replies, made once the peers answered. */
#ifndef NM_CMD_MARK_PEERS_H
#define NM_CMD_MARK_PEERS_H

#include <json-c/json.h>

struct cmd_ctx;
struct nm_error;
struct peerwins;

int mark_peers_start(struct peerwins *pw, struct cmd_ctx *ctx, const char *name, json_object *peers,
                     struct nm_error *err);
int mark_peers_stop(struct peerwins *pw, struct cmd_ctx *ctx, const char *name, json_object *args,
                    struct nm_error *err);

#endif
