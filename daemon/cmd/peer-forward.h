/* peer-forward.h: a read-only request answered by a peer's daemon (series --host PEER,
 * trend --host PEER): the request goes to that configured peer without "host", and its
 * reply, or its refusal naming the peer, is this request's reply. */
#ifndef NM_PEER_FORWARD_H
#define NM_PEER_FORWARD_H

#include <json-c/json.h>
#include <stdbool.h>

struct cmd_ctx;
struct nm_error;

#define PEER_FORWARD_MS 30000 /* the peer's answer */

/* Does args.host name another host? Then forward the request (ctx->cmd's name) and set
 * ctx->deferred; returns 1. 0: answer here (no host, or this host's name). -1 with err
 * (an unknown peer, no client, the transport cannot start). */
int peer_forward(struct cmd_ctx *ctx, json_object *args, struct nm_error *err);

#endif
