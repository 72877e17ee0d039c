/* cmd-mark-peers.c: mark-start and mark-stop of a window on several hosts (cmd-mark-peers.h):
 * the client's reply waits for the peers' answers (peer-window.c keeps the windows and
 * talks to the peers). */
#include <stdio.h>
#include <stdlib.h>

#include "cmd-mark-peers.h"
#include "cmd.h"
#include "control.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "peer-window.h"
#include "results.h"
#include "window.h"
#include "xmalloc.h"

/* A mark-start or mark-stop waiting for its peers. */
struct mark {
	struct peerwins *pw;
	struct control_later *later;
	char *name;
	char start[40]; /* the local edge, RFC 3339 */
	json_object *peers, *args;
};

static void
mark_free(struct mark *m)
{
	free(m->name);
	json_object_put(m->peers);
	json_object_put(m->args);
	free(m);
}

/* The start edge's answers are in: reply. */
static void
mark_started(void *arg, const struct nm_error *err)
{
	struct mark *m = arg;
	json_object *res = peerwin_start_json(m->pw, m->name);

	(void)err;
	json_add_string(res, "name", m->name);
	json_add_string(res, "start", m->start);
	json_add_string(res, "origin", "hand");
	json_add_string(res, "state", "open");
	control_later_reply(m->later, res, NULL);
	mark_free(m);
}

/* Every peer answered hello: the start edge, sent to them and taken here at once. */
static void
mark_hello_done(void *arg, const struct nm_error *err)
{
	struct mark *m = arg;
	struct daemon *d = peerwin_daemon(m->pw);
	json_object *desc;
	struct nm_error e;

	if (err != NULL) {
		control_later_reply(m->later, NULL, err);
		mark_free(m);
		return;
	}
	peerwin_edge_start(m->pw, m->name, m->peers);
	if ((desc = window_start(d->windows, m->name, "hand", &e)) == NULL) {
		/* Not opened here (the name was taken meanwhile): the peers' windows stay until
		 * deleted there; this one is forgotten. */
		peerwin_forget(m->pw, m->name);
		control_later_reply(m->later, NULL, &e);
		mark_free(m);
		return;
	}
	peerwin_local_edge(m->pw, m->name, (uint64_t)json_get_int(desc, "start_real_ns", 0));
	snprintf(m->start, sizeof(m->start), "%s", json_get_string(desc, "start", ""));
	json_object_put(desc);
	peerwin_when_answered(m->pw, m->name, mark_started, m);
}

int
mark_peers_start(struct peerwins *pw, struct cmd_ctx *ctx, const char *name, json_object *peers,
                 struct nm_error *err)
{
	struct daemon *d = peerwin_daemon(pw);
	struct mark *m;

	if (results_name_check(name, err) < 0)
		return -1;
	if (window_exists(d->windows, name) || results_exists(d->results, name) ||
	    peerwin_has(pw, name))
		return nm_error_set(err, NM_ERR_EXISTS, "a window or result named %s exists", name);
	if (ctx->client == NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "a window with peers needs a client");
	m = xcalloc(1, sizeof(*m));
	m->pw = pw;
	m->name = xstrdup(name);
	m->peers = json_object_get(peers);
	/* First a round trip to each: a peer that cannot be reached refuses the start before
	 * any window opens, and the edge then goes over transports already up. */
	if (peerwin_hello(pw, peers, mark_hello_done, m, err) < 0) {
		mark_free(m);
		return -1;
	}
	m->later = control_later_new(ctx->client, ctx->id, ctx->has_id);
	ctx->deferred = true;
	return 0;
}

/* Where the stored result goes: the client's deferred reply. */
static void
mark_stored(void *arg, json_object *report, const struct nm_error *err)
{
	struct control_later *later = arg;

	control_later_reply(later, err == NULL ? json_object_get(report) : NULL, err);
}

/* The stop edge's answers are in: store the one result. */
static void
mark_stopped(void *arg, const struct nm_error *unused)
{
	struct mark *m = arg;
	struct daemon *d = peerwin_daemon(m->pw);
	json_object *extra = json_object_new_object(), *live;
	struct nm_error err;

	(void)unused;
	live = window_report(d->windows, m->name, m->args, &err);
	peerwin_finish(m->pw, m->name, live, extra);
	json_object_put(live);
	if (window_stop(d->windows, m->name, m->args, "hand", extra, mark_stored, m->later, &err) <
	    0)
		control_later_reply(m->later, NULL, &err);
	json_object_put(extra);
	mark_free(m);
}

int
mark_peers_stop(struct peerwins *pw, struct cmd_ctx *ctx, const char *name, json_object *args,
                struct nm_error *err)
{
	struct daemon *d = peerwin_daemon(pw);
	struct mark *m;

	if (!peerwin_has(pw, name))
		return nm_error_set(err, NM_ERR_NOT_FOUND, "no multi-host window named %s", name);
	if (peerwin_stopping(pw, name))
		return nm_error_set(err, NM_ERR_BUSY, "window %s is being stopped", name);
	if (ctx->client == NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "a window with peers needs a client");
	if (!window_exists(d->windows, name)) {
		/* Deleted here meanwhile (window-delete): forget it; the peers keep theirs. */
		peerwin_forget(pw, name);
		return nm_error_set(err, NM_ERR_NOT_FOUND, "no open window named %s", name);
	}
	peerwin_edge_stop(pw, name);
	if (window_freeze(d->windows, name, err) < 0) {
		peerwin_forget(pw, name);
		return -1;
	}
	peerwin_local_edge(pw, name, window_edge_real_ns(d->windows, name));
	m = xcalloc(1, sizeof(*m));
	m->pw = pw;
	m->name = xstrdup(name);
	m->args = json_object_get(args);
	m->later = control_later_new(ctx->client, ctx->id, ctx->has_id);
	ctx->deferred = true;
	peerwin_when_answered(pw, name, mark_stopped, m);
	return 0;
}
