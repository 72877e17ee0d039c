/* dispatch.c: check a request in a fixed order (envelope, command, arguments, permission)
 * and run its handler. Framing, length and UTF-8 were checked by the caller. */
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "dispatch.h"
#include "error.h"
#include "log.h"
#include "xmalloc.h"

struct dispatch_later {
	struct control_hold *hold;
	int64_t id;
	bool has_id;
};

/* Defer a request's reply. */
struct dispatch_later *
dispatch_defer(struct cmd_ctx *ctx)
{
	struct dispatch_later *dl;

	if (ctx->client == NULL)
		return NULL;
	dl = xcalloc(1, sizeof(*dl));
	dl->hold = control_client_hold(ctx->client);
	dl->id = ctx->id;
	dl->has_id = ctx->has_id;
	ctx->deferred = true;
	return dl;
}

/* Send a deferred reply. */
void
dispatch_later_reply(struct dispatch_later *dl, json_object *result, const struct nm_error *err)
{
	size_t len;
	char *reply = err != NULL
	                  ? proto_reply_error(dl->id, dl->has_id, err->code, err->message, &len)
	                  : proto_reply_ok(dl->id, dl->has_id, result, &len);

	control_hold_send(dl->hold, reply, len);
	free(reply);
	free(dl);
}

int
dispatch_permitted(const struct proto_command *cmd, bool admin, struct nm_error *err)
{
	if ((cmd->flags & PROTO_MUTATING) && !admin)
		return nm_error_set(err, NM_ERR_DENIED,
		                    "command \"%s\" changes the host: it needs root or the "
		                    "daemon's admin group (admin_group in netmetricsd.conf)",
		                    cmd->name);
	return 0;
}

/* Build the error reply for err. */
static char *
error_reply(const struct proto_request *req, const struct nm_error *err, size_t *outlen)
{
	return proto_reply_error(req->id, req->has_id, err->code, err->message, outlen);
}

char *
dispatch_line(struct daemon *d, struct client *client, const char *line, size_t len, size_t *outlen)
{
	struct proto_request req;
	struct nm_error err;
	const struct proto_command *cmd;
	cmd_handler handler;
	struct cmd_ctx ctx;
	json_object *result = NULL;
	char *reply;

	nm_error_clear(&err);
	memset(&req, 0, sizeof(req));
	if (proto_request_parse(line, len, &req, &err) < 0)
		goto fail;
	if ((cmd = proto_command_find(req.cmd)) == NULL ||
	    (handler = dispatch_handler_find(req.cmd)) == NULL) {
		nm_error_set(&err, NM_ERR_UNKNOWN_CMD,
		             "unknown command \"%.64s\" (\"hello\" lists the commands)", req.cmd);
		goto fail;
	}
	if (proto_args_check(cmd, req.args, &err) < 0)
		goto fail;
	/* Permission now, not as it was at connect: only mutating commands pay the lookup. */
	if ((cmd->flags & PROTO_MUTATING) &&
	    dispatch_permitted(cmd, client != NULL && control_client_is_admin(client), &err) < 0)
		goto fail;

	ctx = (struct cmd_ctx){d, client, req.id, req.has_id, cmd, false};
	if (handler(&ctx, req.args, &result, &err) < 0)
		goto fail;
	if (ctx.deferred) {
		json_object_put(result);
		proto_request_free(&req);
		return NULL;
	}
	if (result == NULL && (cmd->flags & PROTO_STREAM)) {
		proto_request_free(&req);
		return NULL;
	}
	reply = proto_reply_ok(req.id, req.has_id, result, outlen);
	json_object_put(result);
	proto_request_free(&req);
	return reply;
fail:
	log_debug("request refused: %s: %s", nm_error_name(err.code), err.message);
	reply = error_reply(&req, &err, outlen);
	proto_request_free(&req);
	return reply;
}
