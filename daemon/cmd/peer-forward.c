/* peer-forward.c: read-only requests answered by a peer's daemon. */
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "control.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "peer-forward.h"
#include "peer.h"
#include "proto.h"

/* The peer answered: its result (or refusal) is the reply. */
static void
forwarded(void *arg, const struct peer_answer *a)
{
	struct control_later *later = arg;

	control_later_reply(later, a->result != NULL ? json_object_get(a->result) : NULL, a->err);
}

int
peer_forward(struct cmd_ctx *ctx, json_object *args, struct nm_error *err)
{
	const char *host = json_get_string(args, "host", NULL);
	char me[256];
	json_object *fw;
	struct control_later *later;
	int rc;

	if (host == NULL ||
	    (gethostname(me, sizeof(me)) == 0 && strncmp(host, me, sizeof(me)) == 0))
		return 0;
	if (!(ctx->cmd->flags & PROTO_READONLY))
		return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: --host is for read-only commands",
		                    ctx->cmd->name);
	if (!peer_known(ctx->d->peers, host))
		return nm_error_set(err, NM_ERR_NOT_FOUND,
		                    "no peer named %s in the configuration (nor is it this host)",
		                    host);
	if (ctx->client == NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "--host needs a client");
	/* Copy the arguments but host: the peer answers for itself. */
	fw = json_object_new_object();
	json_object_object_foreach(args, k, v)
	{
		if (strcmp(k, "host") != 0)
			json_object_object_add(fw, k, json_object_get(v));
	}
	later = control_later_new(ctx->client, ctx->id, ctx->has_id);
	rc = peer_call(ctx->d->peers, host, ctx->cmd->name, fw, PEER_FORWARD_MS, forwarded, later,
	               err);
	json_object_put(fw);
	if (rc < 0) {
		/* Nothing was sent: the owed reply is the error, through the usual path. */
		control_later_reply(later, NULL, err);
		ctx->deferred = true;
		return 1;
	}
	ctx->deferred = true;
	return 1;
}
