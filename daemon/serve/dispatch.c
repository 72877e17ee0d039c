/* dispatch.c: check a request in a fixed order (envelope, command, arguments, permission)
 * and run its handler. Framing, length and UTF-8 were checked by the caller. */
#include <event2/buffer.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "control.h"
#include "dispatch.h"
#include "error.h"
#include "log.h"
#include "timeutil.h"

#define DISPATCH_SLOW_NS 20000000 /* a handler this slow is logged (debug) */

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

/* CPU time of the process (ns): what a part costs, not what the scheduler added. */
static uint64_t
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Run fn to the end and parse its line: for callers without a client. */
static int
defer_run_whole(struct cmd_ctx *ctx, dispatch_produce_fn fn, void *arg, json_object **result,
                struct nm_error *err)
{
	struct evbuffer *out = evbuffer_new();
	struct proto_reply rep;
	size_t len;
	int r = -1, done;
	uint64_t start = cpu_ns(), off_start = ctx->offloop_ns;

	/* A part waiting for work off the loop (CONTROL_PRODUCE_WAIT) has it done already here
	 * (no reader thread: it ran in the part, and the part says so in ctx->offloop_ns, which
	 * is no loop time). */
	do {
		uint64_t t0 = cpu_ns(), off0 = ctx->offloop_ns, dt;
		done = fn(out, arg);
		dt = cpu_ns() - t0 - (ctx->offloop_ns - off0);
		ctx->parts++;
		ctx->parts_ns += dt;
		if (dt > ctx->longest_part_ns)
			ctx->longest_part_ns = dt;
	} while (done == 0 || done == CONTROL_PRODUCE_WAIT);
	len = evbuffer_get_length(out);
	ctx->reply_bytes = len;
	if (len > 0 &&
	    proto_reply_parse((const char *)evbuffer_pullup(out, -1), len - 1, &rep, err) == 0) {
		if (rep.ok) {
			*result = json_object_get(rep.result);
			r = 0;
		} else
			nm_error_set(err, rep.code, "%s", rep.message);
		proto_reply_free(&rep);
	} else if (len == 0)
		nm_error_set(err, NM_ERR_INTERNAL, "a reply made in parts wrote nothing");
	evbuffer_free(out);
	ctx->defer_ns = cpu_ns() - start - (ctx->offloop_ns - off_start);
	return r;
}

int
dispatch_defer(struct cmd_ctx *ctx, dispatch_produce_fn fn, void *arg, void (*free_fn)(void *),
               json_object **result, struct nm_error *err)
{
	int r;

	if (ctx->client != NULL) {
		if (control_client_produce(ctx->client, fn, arg, free_fn) < 0)
			return nm_error_set(err, NM_ERR_INTERNAL, "a reply is already being made");
		ctx->deferred = true;
		*result = NULL;
		return 0;
	}
	r = defer_run_whole(ctx, fn, arg, result, err);
	if (free_fn != NULL)
		free_fn(arg);
	return r;
}

/* The commands, from dispatch_init. */
static const struct cmd_entry *const *commands;

void
dispatch_init(const struct cmd_entry *const *table)
{
	commands = table;
}

cmd_handler
dispatch_handler_find(const char *name)
{
	for (const struct cmd_entry *const *e = commands; e != NULL && *e != NULL; e++)
		if (strcmp((*e)->proto, name) == 0)
			return (*e)->exec;
	return NULL;
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
	uint64_t t0, dt;
	int rc;

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

	t0 = time_mono_ns();
	ctx = (struct cmd_ctx){
	    .d = d, .client = client, .id = req.id, .has_id = req.has_id, .cmd = cmd};
	rc = handler(&ctx, req.args, &result, &err);
	if ((dt = time_mono_ns() - t0) >= DISPATCH_SLOW_NS)
		log_debug("%s: the handler held the loop %.1f ms", cmd->name, (double)dt / 1e6);
	if (rc < 0)
		goto fail;
	if (ctx.deferred || (result == NULL && (cmd->flags & PROTO_STREAM))) {
		json_object_put(result);
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
