/* peer-window.c: multi-host windows: the edges sent to every host at once, their times and
 * skew, the peers' reports gathered into one result. */
#include <event2/event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crosshost.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "log.h"
#include "peer-window.h"
#include "peer.h"
#include "results.h"
#include "timeutil.h"
#include "window.h"
#include "xmalloc.h"

/* One edge of a multi-host window. */
struct edge {
	bool sent;
	uint64_t local_ns;
	json_object *answers; /* peer -> its result, or {"error": reason} */
	json_object *times;   /* peer -> {sent_ns, recv_ns} */
	json_object *peers;   /* the peers it went to */
};

/* One multi-host window. */
struct mhwin {
	struct peerwins *pw;
	char *name;
	json_object *peers;
	struct edge start, stop;
	size_t pending; /* answers awaited */
	peerwin_fn waiter;
	void *waiter_arg;
	bool forgotten; /* kept only until the answers awaited are in */
	struct mhwin *next;
};

struct peerwins {
	struct daemon *d;
	struct mhwin *list;
	struct peerwin_transport tr; /* call NULL: the daemon's peers */
};

/* A hello round in progress. */
struct hello {
	size_t pending;
	bool failed;
	struct nm_error err;
	peerwin_fn done;
	void *arg;
};

/* An answer for a window: the window and the edge it is for. */
struct ticket {
	struct mhwin *w;
	bool stop;
};

static struct mhwin *
find(const struct peerwins *pw, const char *name)
{
	for (struct mhwin *w = pw->list; w != NULL; w = w->next)
		if (!w->forgotten && strcmp(w->name, name) == 0)
			return w;
	return NULL;
}

struct peerwins *
peerwin_init(struct daemon *d)
{
	struct peerwins *pw = xcalloc(1, sizeof(*pw));

	pw->d = d;
	return pw;
}

static void
edge_init(struct edge *e)
{
	e->answers = json_object_new_object();
	e->times = json_object_new_object();
	e->peers = json_object_new_array();
}

static void
edge_free(struct edge *e)
{
	json_object_put(e->answers);
	json_object_put(e->times);
	json_object_put(e->peers);
}

static void
mhwin_free(struct mhwin *w)
{
	free(w->name);
	json_object_put(w->peers);
	edge_free(&w->start);
	edge_free(&w->stop);
	free(w);
}

static void
unlink_win(struct peerwins *pw, struct mhwin *w)
{
	for (struct mhwin **pp = &pw->list; *pp != NULL; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	mhwin_free(w);
}

/* From now on, reach the peers through t (a unit test's fake peers). */
void
peerwin_set_transport(struct peerwins *pw, const struct peerwin_transport *t)
{
	pw->tr = *t;
}

/* peer_call through the windows' transport. */
static int
pw_call(struct peerwins *pw, const char *peer, const char *cmd, json_object *args, unsigned ms,
        peer_done_fn done, void *arg, struct nm_error *err)
{
	if (pw->tr.call != NULL)
		return pw->tr.call(pw->tr.ctx, peer, cmd, args, ms, done, arg, err);
	return peer_call(pw->d->peers, peer, cmd, args, ms, done, arg, err);
}

/* peer_check_names through the windows' transport. */
static int
pw_check_names(struct peerwins *pw, json_object *names, struct nm_error *err)
{
	if (pw->tr.check_names != NULL)
		return pw->tr.check_names(pw->tr.ctx, names, err);
	return peer_check_names(pw->d->peers, names, err);
}

struct daemon *
peerwin_daemon(const struct peerwins *pw)
{
	return pw->d;
}

void
peerwin_free(struct peerwins *pw)
{
	if (pw == NULL)
		return;
	while (pw->list != NULL)
		unlink_win(pw, pw->list);
	free(pw);
}

bool
peerwin_has(const struct peerwins *pw, const char *name)
{
	return find(pw, name) != NULL;
}

bool
peerwin_stopping(const struct peerwins *pw, const char *name)
{
	const struct mhwin *w = find(pw, name);

	return w != NULL && w->stop.sent;
}

void
peerwin_forget(struct peerwins *pw, const char *name)
{
	struct mhwin *w = find(pw, name);

	if (w != NULL && w->pending == 0)
		unlink_win(pw, w);
	else if (w != NULL)
		w->forgotten = true; /* freed when the last answer comes */
}

/* This host's name, for hosts.<name>. */
static void
local_host(char *buf, size_t size)
{
	if (gethostname(buf, size) < 0 || buf[0] == '\0')
		snprintf(buf, size, "local");
	buf[size - 1] = '\0';
}

/* ---- hello ---- */

static void
hello_answer(void *arg, const struct peer_answer *a)
{
	struct hello *h = arg;

	if (a->err != NULL && !h->failed) {
		h->failed = true;
		h->err = *a->err;
	}
	if (--h->pending == 0) {
		h->done(h->arg, h->failed ? &h->err : NULL);
		free(h);
	}
}

int
peerwin_hello(struct peerwins *pw, json_object *peers, peerwin_fn done, void *arg,
              struct nm_error *err)
{
	struct hello *h;
	size_t n = json_object_array_length(peers);
	struct nm_error e;

	if (pw_check_names(pw, peers, err) < 0)
		return -1;
	h = xcalloc(1, sizeof(*h));
	h->done = done;
	h->arg = arg;
	h->pending = n;
	for (size_t i = 0; i < n; i++) {
		const char *p = json_object_get_string(json_object_array_get_idx(peers, i));
		if (pw_call(pw, p, "hello", NULL, PEERWIN_HELLO_MS, hello_answer, h, &e) < 0) {
			/* Not started: the others' answers still come, then done runs. */
			if (!h->failed) {
				h->failed = true;
				h->err = e;
			}
			h->pending--;
		}
	}
	if (h->pending == 0) {
		/* Every call failed at once: done must not run before this returns. */
		struct nm_error copy = h->err;
		free(h);
		*err = copy;
		return -1;
	}
	return 0;
}

/* ---- edges ---- */

static void
edge_answer(void *arg, const struct peer_answer *a)
{
	struct ticket *tk = arg;
	struct mhwin *w = tk->w;
	struct edge *e = tk->stop ? &w->stop : &w->start;
	json_object *t;

	free(tk);
	t = json_object_new_object();
	json_add_uint(t, "sent_ns", a->sent_ns);
	json_add_uint(t, "recv_ns", a->recv_ns);
	json_object_object_add(e->times, a->peer, t);
	if (a->err != NULL) {
		json_object *o = json_object_new_object();
		json_add_string(o, "error", a->err->message);
		json_object_object_add(e->answers, a->peer, o);
		log_warnx("window %s: %s", w->name, a->err->message);
	} else
		json_object_object_add(e->answers, a->peer, json_object_get(a->result));
	if (--w->pending > 0)
		return;
	if (w->forgotten) {
		unlink_win(w->pw, w);
		return;
	}
	if (w->waiter != NULL) {
		peerwin_fn fn = w->waiter;
		w->waiter = NULL;
		fn(w->waiter_arg, NULL);
	}
}

/* Send cmd name to each of peers for edge e. */
static void
edge_send(struct mhwin *w, struct edge *e, const char *cmd, json_object *peers, bool stop,
          unsigned ms)
{
	json_object *args = json_object_new_object();
	struct nm_error err;

	json_add_string(args, "name", w->name);
	e->sent = true;
	for (size_t i = 0; i < json_object_array_length(peers); i++) {
		const char *p = json_object_get_string(json_object_array_get_idx(peers, i));
		struct ticket *tk = xcalloc(1, sizeof(*tk));
		tk->w = w;
		tk->stop = stop;
		json_object_array_add(e->peers, json_object_new_string(p));
		w->pending++;
		if (pw_call(w->pw, p, cmd, args, ms, edge_answer, tk, &err) < 0) {
			json_object *o = json_object_new_object();
			json_add_string(o, "error", err.message);
			json_object_object_add(e->answers, p, o);
			w->pending--;
			free(tk);
		}
	}
	json_object_put(args);
}

void
peerwin_edge_start(struct peerwins *pw, const char *name, json_object *peers)
{
	struct mhwin *w = xcalloc(1, sizeof(*w));

	w->pw = pw;
	w->name = xstrdup(name);
	w->peers = json_object_get(peers);
	edge_init(&w->start);
	edge_init(&w->stop);
	w->next = pw->list;
	pw->list = w;
	edge_send(w, &w->start, "mark-start", peers, false, PEERWIN_EDGE_MS);
}

/* The reason a peer's part of edge e failed, or NULL when it answered (or is awaited). */
static const char *
edge_error(struct edge *e, const char *peer)
{
	json_object *a = json_object_object_get(e->answers, peer);

	return a != NULL ? json_get_string(a, "error", NULL) : NULL;
}

void
peerwin_edge_stop(struct peerwins *pw, const char *name)
{
	struct mhwin *w = find(pw, name);
	json_object *live;

	if (w == NULL || w->stop.sent)
		return;
	/* Only the peers whose window opened (or may have: still awaited) are asked. */
	live = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(w->peers); i++) {
		json_object *p = json_object_array_get_idx(w->peers, i);
		if (edge_error(&w->start, json_object_get_string(p)) == NULL)
			json_object_array_add(live, json_object_get(p));
	}
	edge_send(w, &w->stop, "mark-stop", live, true, PEERWIN_STOP_MS);
	json_object_put(live);
}

void
peerwin_local_edge(struct peerwins *pw, const char *name, uint64_t real_ns)
{
	struct mhwin *w = find(pw, name);

	if (w != NULL)
		(w->stop.sent ? &w->stop : &w->start)->local_ns = real_ns;
}

void
peerwin_when_answered(struct peerwins *pw, const char *name, peerwin_fn done, void *arg)
{
	struct mhwin *w = find(pw, name);

	if (w == NULL || w->pending == 0) {
		done(arg, NULL);
		return;
	}
	w->waiter = done;
	w->waiter_arg = arg;
}

/* An edge's record: this host's time, each peer's time, round trip and skew (its edge's
 * time less this host's: what the hosts' clocks say, so it holds their offset too; the
 * round trip bounds how much of it is the transport's). field is start_real_ns or
 * end_real_ns, in the peer's answer (or its "window" object). */
static json_object *
edge_json(struct mhwin *w, struct edge *e, const char *field, double *max_skew_ms)
{
	json_object *o = json_object_new_object(), *hosts = json_object_new_object();
	char host[256];

	local_host(host, sizeof(host));
	json_add_uint(o, "local_real_ns", e->local_ns);
	*max_skew_ms = 0;
	for (size_t i = 0; i < json_object_array_length(w->peers); i++) {
		const char *p = json_object_get_string(json_object_array_get_idx(w->peers, i));
		json_object *h = json_object_new_object(),
		            *a = json_object_object_get(e->answers, p),
		            *t = json_object_object_get(e->times, p), *win = NULL;
		const char *why = edge_error(e, p);
		uint64_t sent = (uint64_t)json_get_int(t, "sent_ns", 0),
		         recv = (uint64_t)json_get_int(t, "recv_ns", 0), at;
		double skew;

		if (a == NULL)
			why = e->sent ? "no answer" : "not sent (its start failed)";
		if (t != NULL)
			json_object_object_add(h, "round_trip_ms",
			                       json_double((double)(recv - sent) / 1e6));
		if (why != NULL) {
			json_add_string(h, "error", why);
			json_object_object_add(hosts, p, h);
			continue;
		}
		if (!json_object_object_get_ex(a, "window", &win))
			win = a;
		at = (uint64_t)json_get_int(win, field, 0);
		json_add_uint(h, "real_ns", at);
		skew = ((double)at - (double)e->local_ns) / 1e6;
		json_object_object_add(h, "skew_ms", json_double(skew));
		if (fabs(skew) > *max_skew_ms)
			*max_skew_ms = fabs(skew);
		json_object_object_add(hosts, p, h);
	}
	json_object_object_add(o, "peers", hosts);
	json_add_string(o, "local_host", host);
	json_object_object_add(o, "max_skew_ms", json_double(*max_skew_ms));
	return o;
}

json_object *
peerwin_start_json(struct peerwins *pw, const char *name)
{
	struct mhwin *w = find(pw, name);
	json_object *res = json_object_new_object(), *peers = json_object_new_object();
	double skew = 0;

	if (w == NULL)
		return res;
	for (size_t i = 0; i < json_object_array_length(w->peers); i++) {
		const char *p = json_object_get_string(json_object_array_get_idx(w->peers, i));
		const char *why = edge_error(&w->start, p);
		json_object *po = json_object_new_object();
		if (why == NULL && json_object_object_get(w->start.answers, p) == NULL)
			why = "no answer";
		json_add_string(po, "state", why ? "incomplete" : "open");
		if (why != NULL)
			json_add_string(po, "reason", why);
		json_object_object_add(peers, p, po);
	}
	json_object_object_add(res, "peers", peers);
	json_object_object_add(res, "edge", edge_json(w, &w->start, "start_real_ns", &skew));
	json_object_object_add(res, "skew_ms", json_double(skew));
	return res;
}

void
peerwin_finish(struct peerwins *pw, const char *name, json_object *local, json_object *extra)
{
	struct mhwin *w = find(pw, name);
	json_object *edges, *skew, *parts;
	char host[256];
	double ss, se;

	if (w == NULL)
		return;
	edges = json_object_new_object();
	skew = json_object_new_object();
	parts = json_object_new_object();
	local_host(host, sizeof(host));
	json_object_object_add(edges, "start", edge_json(w, &w->start, "start_real_ns", &ss));
	json_object_object_add(edges, "stop", edge_json(w, &w->stop, "end_real_ns", &se));
	json_object_object_add(skew, "start_ms", json_double(ss));
	json_object_object_add(skew, "stop_ms", json_double(se));
	for (size_t i = 0; i < json_object_array_length(w->peers); i++) {
		const char *p = json_object_get_string(json_object_array_get_idx(w->peers, i));
		const char *why = edge_error(&w->start, p);
		json_object *r = json_object_object_get(w->stop.answers, p);
		if (why == NULL)
			why = edge_error(&w->stop, p);
		if (why == NULL && r == NULL)
			why = w->stop.sent ? "no answer" : "its window was not closed";
		if (why != NULL) {
			json_object *po = json_object_new_object();
			json_add_bool(po, "complete", false);
			json_add_string(po, "reason", why);
			json_object_object_add(parts, p, po);
		} else
			json_object_object_add(parts, p, json_object_get(r));
	}
	/* The peers' reports checked before anything is computed from them, then the hosts,
	 * the cross figures with their loss bounded by the edges' skew (crosshost.c). */
	crosshost_assemble(extra, host, local, parts, edges);
	json_object_object_add(extra, "skew", skew);
	json_object_put(parts);
	json_object_put(edges);
	peerwin_forget(pw, name);
}

/* ---- the benchmark's server on a peer ---- */

struct server {
	struct event_base *base;
	struct event *ev;
	peerwin_fn done;
	void *arg;
};

/* The server had its time to bind. */
static void
server_ready(evutil_socket_t fd, short what, void *arg)
{
	struct server *sv = arg;

	(void)fd;
	(void)what;
	event_free(sv->ev);
	sv->done(sv->arg, NULL);
	free(sv);
}

/* The peer answered its test-start: give the server its time to bind. */
static void
server_answer(void *arg, const struct peer_answer *a)
{
	struct server *sv = arg;
	struct timeval tv = {0, PEERWIN_SERVER_MS * 1000};

	if (a->err != NULL)
		log_warnx("%s (the benchmark's server)", a->err->message);
	sv->ev = evtimer_new(sv->base, server_ready, sv);
	evtimer_add(sv->ev, &tv);
}

int
peerwin_server_start(struct peerwins *pw, const char *peer, const char *test,
                     const char *const *server_argv, peerwin_fn done, void *arg,
                     struct nm_error *err)
{
	json_object *args, *argv;
	struct server *sv;
	char name[256];
	int rc;

	if (server_argv == NULL || server_argv[0] == NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "test %s: no server to start", test);
	args = json_object_new_object();
	argv = json_object_new_array();
	for (const char *const *w = server_argv; *w != NULL; w++)
		json_object_array_add(argv, json_object_new_string(*w));
	snprintf(name, sizeof(name), "%s.server", test);
	json_add_string(args, "driver", "exec");
	json_add_string(args, "name", name);
	json_object_object_add(args, "warmup", json_object_new_double(0));
	json_object_object_add(args, "cooldown", json_object_new_double(0));
	json_object_object_add(args, "argv", argv);
	sv = xcalloc(1, sizeof(*sv));
	sv->base = pw->d->base;
	sv->done = done;
	sv->arg = arg;
	rc = pw_call(pw, peer, "test-start", args, PEERWIN_EDGE_MS, server_answer, sv, err);
	json_object_put(args);
	if (rc < 0)
		free(sv);
	return rc;
}

/* An answer nobody waits for: logged when it failed. */
static void
log_answer(void *arg, const struct peer_answer *a)
{
	(void)arg;
	if (a->err != NULL)
		log_info("%s (stopping the benchmark's server)", a->err->message);
}

void
peerwin_server_stop(struct peerwins *pw, const char *peer, const char *test)
{
	json_object *args = json_object_new_object();
	struct nm_error err;
	char name[256];

	snprintf(name, sizeof(name), "%s.server", test);
	json_add_string(args, "name", name);
	if (pw_call(pw, peer, "test-stop", args, PEERWIN_EDGE_MS, log_answer, NULL, &err) < 0)
		log_info("%s (stopping the benchmark's server)", err.message);
	json_object_put(args);
}
