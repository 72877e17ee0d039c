/* peer-window.c: multi-host windows: the edges sent to every host at once, their times and
 * skew, the peers' reports gathered into one result. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "control.h"
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

/* One multi-host window. */
struct mhwin {
	char *name;
	json_object *peers; /* the names asked for */
	json_object *edges; /* {"start": {...}} then "stop" */
	json_object *lost;  /* peer -> reason its part is incomplete */
	bool stopping;
	struct mhwin *next;
};

struct peerwins {
	struct daemon *d;
	struct mhwin *list;
};

/* A start or stop in progress. */
struct mhop {
	struct peerwins *pw;
	struct control_later *later;
	char *name;
	json_object *peers;
	json_object *args;    /* stop: the report options */
	json_object *answers; /* peer -> its result, or {"error": reason} */
	json_object *times;   /* peer -> {sent_ns, recv_ns} */
	uint64_t local_ns;    /* this host's edge */
	size_t pending;
	int phase; /* 0 hello, 1 start edge, 2 stop edge */
	struct nm_error err;
	bool failed;
};

static void start_edge(struct mhop *op);

static struct mhwin *
find(const struct peerwins *pw, const char *name)
{
	for (struct mhwin *w = pw->list; w != NULL; w = w->next)
		if (strcmp(w->name, name) == 0)
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
mhwin_free(struct mhwin *w)
{
	free(w->name);
	json_object_put(w->peers);
	json_object_put(w->edges);
	json_object_put(w->lost);
	free(w);
}

void
peerwin_free(struct peerwins *pw)
{
	if (pw == NULL)
		return;
	while (pw->list != NULL) {
		struct mhwin *w = pw->list;
		pw->list = w->next;
		mhwin_free(w);
	}
	free(pw);
}

bool
peerwin_has(const struct peerwins *pw, const char *name)
{
	return find(pw, name) != NULL;
}

static void
op_free(struct mhop *op)
{
	free(op->name);
	json_object_put(op->peers);
	json_object_put(op->args);
	json_object_put(op->answers);
	json_object_put(op->times);
	free(op);
}

/* Answer the client (result taken over, or err) and free op. */
static void
op_reply(struct mhop *op, json_object *result, const struct nm_error *err)
{
	if (op->later != NULL)
		control_later_reply(op->later, result, err);
	else
		json_object_put(result);
	op_free(op);
}

/* This host's name, for hosts.<name>. */
static void
local_host(char *buf, size_t size)
{
	if (gethostname(buf, size) < 0 || buf[0] == '\0')
		snprintf(buf, size, "local");
	buf[size - 1] = '\0';
}

static void op_next(struct mhop *op);

/* A peer answered (or failed): keep it, go on when all have. */
static void
on_answer(void *arg, const struct peer_answer *a)
{
	struct mhop *op = arg;
	json_object *t = json_object_new_object();

	json_add_uint(t, "sent_ns", a->sent_ns);
	json_add_uint(t, "recv_ns", a->recv_ns);
	json_object_object_add(op->times, a->peer, t);
	if (a->err != NULL) {
		json_object *e = json_object_new_object();
		json_add_string(e, "error", a->err->message);
		json_object_object_add(op->answers, a->peer, e);
		if (!op->failed) {
			op->failed = true;
			op->err = *a->err;
		}
	} else
		json_object_object_add(op->answers, a->peer, json_object_get(a->result));
	if (--op->pending == 0)
		op_next(op);
}

/* Send cmd to every peer of op, then release the hold (which may finish op at once when
 * every call failed). A peer that cannot be sent to answers with its error now. */
static void
send_all(struct mhop *op, const char *cmd, json_object *args, unsigned ms)
{
	size_t n = json_object_array_length(op->peers);
	struct nm_error err;

	op->pending = n + 1; /* held until every call is out */
	for (size_t i = 0; i < n; i++) {
		const char *p = json_object_get_string(json_object_array_get_idx(op->peers, i));
		if (peer_call(op->pw->d->peers, p, cmd, args, ms, on_answer, op, &err) < 0) {
			struct peer_answer fail = {.peer = p, .err = &err};
			fail.sent_ns = fail.recv_ns = time_real_ns();
			on_answer(op, &fail);
		}
	}
}

static void
send_release(struct mhop *op)
{
	if (--op->pending == 0)
		op_next(op);
}

/* The reason a peer's part failed, or NULL when it answered. */
static const char *
answer_error(struct mhop *op, const char *peer)
{
	json_object *a = json_object_object_get(op->answers, peer);

	if (a == NULL)
		return "no answer";
	return json_get_string(a, "error", NULL);
}

/* An edge's record: this host's time, each peer's time, round trip and skew (its edge's
 * time less this host's: what the hosts' clocks say, so it holds their offset too; the
 * round trip bounds how much of it is the transport's). field is start_real_ns or
 * end_real_ns, in the peer's answer (or its "window" object). */
static json_object *
edge_json(struct mhop *op, const char *field, double *max_skew_ms)
{
	json_object *e = json_object_new_object(), *hosts = json_object_new_object();
	char host[256];

	local_host(host, sizeof(host));
	json_add_uint(e, "local_real_ns", op->local_ns);
	*max_skew_ms = 0;
	for (size_t i = 0; i < json_object_array_length(op->peers); i++) {
		const char *p = json_object_get_string(json_object_array_get_idx(op->peers, i));
		json_object *h = json_object_new_object(),
		            *a = json_object_object_get(op->answers, p),
		            *t = json_object_object_get(op->times, p), *win = NULL;
		const char *why = answer_error(op, p);
		uint64_t sent = (uint64_t)json_get_int(t, "sent_ns", 0),
		         recv = (uint64_t)json_get_int(t, "recv_ns", 0), at;

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
		double skew = ((double)at - (double)op->local_ns) / 1e6;
		json_object_object_add(h, "skew_ms", json_double(skew));
		if (fabs(skew) > *max_skew_ms)
			*max_skew_ms = fabs(skew);
		json_object_object_add(hosts, p, h);
	}
	json_object_object_add(e, "peers", hosts);
	json_add_string(e, "local_host", host);
	json_object_object_add(e, "max_skew_ms", json_double(*max_skew_ms));
	return e;
}

/* The start edge's answers are in: remember the window, answer. */
static void
start_done(struct mhop *op)
{
	struct mhwin *w = xcalloc(1, sizeof(*w));
	json_object *res = json_object_new_object(), *peers = json_object_new_object();
	double skew;

	w->name = xstrdup(op->name);
	w->peers = json_object_get(op->peers);
	w->edges = json_object_new_object();
	w->lost = json_object_new_object();
	json_object_object_add(w->edges, "start", edge_json(op, "start_real_ns", &skew));
	for (size_t i = 0; i < json_object_array_length(op->peers); i++) {
		const char *p = json_object_get_string(json_object_array_get_idx(op->peers, i));
		const char *why = answer_error(op, p);
		json_object *po = json_object_new_object();
		json_add_string(po, "state", why ? "incomplete" : "open");
		if (why != NULL) {
			json_add_string(po, "reason", why);
			json_add_string(w->lost, p, why);
		}
		json_object_object_add(peers, p, po);
	}
	w->next = op->pw->list;
	op->pw->list = w;
	json_add_string(res, "name", op->name);
	json_add_string(res, "origin", "hand");
	json_add_string(res, "state", "open");
	json_object_object_add(res, "peers", peers);
	json_object_object_add(res, "edge",
	                       json_object_get(json_object_object_get(w->edges, "start")));
	json_object_object_add(res, "skew_ms", json_double(skew));
	op_reply(op, res, NULL);
}

/* An answer nobody waits for (a clean-up). */
static void
ignore_answer(void *arg, const struct peer_answer *a)
{
	(void)arg;
	if (a->err != NULL)
		log_warnx("%s", a->err->message);
}

/* Every peer answered hello: the start edge, sent to them and taken here at once. */
static void
start_edge(struct mhop *op)
{
	json_object *args = json_object_new_object(), *desc;
	struct nm_error err;

	json_add_string(args, "name", op->name);
	json_object_put(op->answers);
	json_object_put(op->times);
	op->answers = json_object_new_object();
	op->times = json_object_new_object();
	op->failed = false;
	op->phase = 1;
	send_all(op, "mark-start", args, PEERWIN_EDGE_MS);
	json_object_put(args);
	desc = window_start(op->pw->d->windows, op->name, "hand", &err);
	if (desc == NULL) {
		/* Not opened here: the peers' windows are forgotten again. */
		json_object *del = json_object_new_object();
		json_add_string(del, "name", op->name);
		log_warnx("window %s: not opened here (%s); deleting it on the peers", op->name,
		          err.message);
		for (size_t i = 0; i < json_object_array_length(op->peers); i++) {
			const char *p =
			    json_object_get_string(json_object_array_get_idx(op->peers, i));
			struct nm_error e2;
			if (peer_call(op->pw->d->peers, p, "window-delete", del, PEERWIN_EDGE_MS,
			              ignore_answer, NULL, &e2) < 0)
				log_warnx("%s", e2.message);
		}
		op->failed = true;
		op->err = err;
		json_object_put(del);
		op->local_ns = 0;
	} else {
		op->local_ns = (uint64_t)json_get_int(desc, "start_real_ns", 0);
		json_object_put(desc);
	}
	send_release(op);
}

/* The stop edge's answers are in: the result, with every host's part, is stored. */
static void stop_store(struct mhop *op);

static void
op_next(struct mhop *op)
{
	if (op->phase == 0) {
		if (op->failed)
			op_reply(op, NULL, &op->err);
		else
			start_edge(op);
	} else if (op->phase == 1) {
		if (op->local_ns == 0)
			op_reply(op, NULL, &op->err);
		else
			start_done(op);
	} else
		stop_store(op);
}

static struct mhop *
op_new(struct peerwins *pw, struct cmd_ctx *ctx, const char *name, json_object *peers)
{
	struct mhop *op = xcalloc(1, sizeof(*op));

	op->pw = pw;
	op->name = xstrdup(name);
	op->peers = json_object_get(peers);
	op->answers = json_object_new_object();
	op->times = json_object_new_object();
	if (ctx->client != NULL) {
		op->later = control_later_new(ctx->client, ctx->id, ctx->has_id);
		ctx->deferred = true;
	}
	return op;
}

int
peerwin_start(struct peerwins *pw, struct cmd_ctx *ctx, const char *name, json_object *peers,
              json_object **result, struct nm_error *err)
{
	struct daemon *d = pw->d;
	struct mhop *op;

	(void)result;
	if (peer_check_names(d->peers, peers, err) < 0)
		return -1;
	if (results_name_check(name, err) < 0)
		return -1;
	if (window_exists(d->windows, name) || results_exists(d->results, name) ||
	    find(pw, name) != NULL)
		return nm_error_set(err, NM_ERR_EXISTS, "a window or result named %s exists", name);
	if (ctx->client == NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "a window with peers needs a client");
	op = op_new(pw, ctx, name, peers);
	op->phase = 0;
	/* First a round trip to each: a peer that cannot be reached refuses the start, before
	 * any window opens, and the edge then goes over transports already up. */
	send_all(op, "hello", NULL, PEERWIN_HELLO_MS);
	send_release(op);
	return 0;
}

/* The device of a report's figures.devices with the most of field, or NULL. */
static json_object *
busiest(json_object *report, const char *field)
{
	json_object *fig = NULL, *devs = NULL, *best = NULL;
	int64_t most = 0;

	if (!json_object_object_get_ex(report, "figures", &fig) ||
	    !json_object_object_get_ex(fig, "devices", &devs) ||
	    !json_object_is_type(devs, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		json_object *dv = json_object_array_get_idx(devs, i);
		int64_t v = json_get_int(dv, field, 0);
		if (strcmp(json_get_string(dv, "name", ""), "lo") != 0 && v > most) {
			most = v;
			best = dv;
		}
	}
	return best;
}

/* A report's span in seconds. */
static double
span_of(json_object *report)
{
	json_object *win = NULL;

	if (json_object_object_get_ex(report, "window", &win))
		return json_get_double(win, "duration_s", 0);
	return json_get_double(report, "span_s", 0);
}

json_object *
peerwin_cross(json_object *hosts)
{
	json_object *arr = json_object_new_array();

	json_object_object_foreach(hosts, a, ra)
	{
		json_object *tx = busiest(ra, "tx_bytes");
		if (tx == NULL)
			continue;
		json_object_object_foreach(hosts, b, rb)
		{
			json_object *rx, *o;
			int64_t txp, txb, rxp, rxb;
			double sa = span_of(ra), sb = span_of(rb);

			if (strcmp(a, b) == 0 || (rx = busiest(rb, "rx_bytes")) == NULL)
				continue;
			txp = json_get_int(tx, "tx_packets", 0);
			txb = json_get_int(tx, "tx_bytes", 0);
			rxp = json_get_int(rx, "rx_packets", 0);
			rxb = json_get_int(rx, "rx_bytes", 0);
			o = json_object_new_object();
			json_add_string(o, "sender", a);
			json_add_string(o, "sender_device", json_get_string(tx, "name", ""));
			json_add_string(o, "receiver", b);
			json_add_string(o, "receiver_device", json_get_string(rx, "name", ""));
			json_add_int(o, "tx_packets", txp);
			json_add_int(o, "tx_bytes", txb);
			json_add_int(o, "rx_packets", rxp);
			json_add_int(o, "rx_bytes", rxb);
			json_add_int(o, "lost_packets", txp - rxp);
			json_object_object_add(
			    o, "loss_ratio",
			    json_double(txp > 0 ? (double)(txp - rxp) / (double)txp : 0));
			json_object_object_add(
			    o, "bytes_ratio", json_double(txb > 0 ? (double)rxb / (double)txb : 0));
			json_object_object_add(o, "tx_bits_per_s",
			                       json_double(sa > 0 ? (double)txb * 8 / sa : 0));
			json_object_object_add(o, "rx_bits_per_s",
			                       json_double(sb > 0 ? (double)rxb * 8 / sb : 0));
			json_object_array_add(arr, o);
		}
	}
	return arr;
}

/* Where the stored result goes: the client's deferred reply. */
static void
stored(void *arg, json_object *report, const struct nm_error *err)
{
	struct control_later *later = arg;

	if (later != NULL)
		control_later_reply(later, err == NULL ? json_object_get(report) : NULL, err);
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

static void
stop_store(struct mhop *op)
{
	struct mhwin *w = find(op->pw, op->name);
	json_object *extra = json_object_new_object(), *hosts = json_object_new_object(), *edges,
	            *skew = json_object_new_object(), *incomplete = json_object_new_object(),
	            *local_only = json_object_new_object();
	char host[256];
	double ss = 0, se;
	struct nm_error err;
	struct control_later *later = op->later;

	local_host(host, sizeof(host));
	edges = json_object_get(w->edges);
	json_object_object_add(edges, "stop", edge_json(op, "end_real_ns", &se));
	ss = json_get_double(json_object_object_get(w->edges, "start"), "max_skew_ms", 0);
	json_object_object_add(skew, "start_ms", json_double(ss));
	json_object_object_add(skew, "stop_ms", json_double(se));
	json_object_object_add(hosts, host, NULL); /* this host: its report (window.c) */
	for (size_t i = 0; i < json_object_array_length(op->peers); i++) {
		const char *p = json_object_get_string(json_object_array_get_idx(op->peers, i));
		const char *lost = json_get_string(w->lost, p, NULL);
		const char *why = lost ? lost : answer_error(op, p);
		if (why != NULL) {
			json_object *po = json_object_new_object();
			json_add_bool(po, "complete", false);
			json_add_string(po, "reason", why);
			json_object_object_add(hosts, p, po);
			json_add_string(incomplete, p, why);
		} else {
			json_object *r = json_object_object_get(op->answers, p);
			json_object_object_add(hosts, p, json_object_get(r));
			json_object_object_add(local_only, p, json_object_get(r));
		}
	}
	json_object_object_add(extra, "hosts", hosts);
	json_add_string(extra, "local_host", host);
	json_object_object_add(extra, "edges", edges);
	json_object_object_add(extra, "skew", skew);
	json_object_object_add(extra, "peers_incomplete", incomplete);
	/* The cross figures: the peers' reports here, this host's added by its name (the local
	 * report is made by window_stop: its devices come from a live report now). */
	{
		json_object *live = window_report(op->pw->d->windows, op->name, op->args, &err);
		if (live != NULL)
			json_object_object_add(local_only, host, live);
		json_object_object_add(extra, "cross", peerwin_cross(local_only));
	}
	json_object_put(local_only);
	unlink_win(op->pw, w);
	op->later = NULL;
	if (window_stop(op->pw->d->windows, op->name, op->args, "hand", extra, stored, later,
	                &err) < 0) {
		if (later != NULL)
			control_later_reply(later, NULL, &err);
	}
	json_object_put(extra);
	op_free(op);
}

int
peerwin_stop(struct peerwins *pw, struct cmd_ctx *ctx, const char *name, json_object *args,
             json_object **result, struct nm_error *err)
{
	struct mhwin *w = find(pw, name);
	json_object *pargs, *live = json_object_new_array();
	struct mhop *op;

	(void)result;
	if (w == NULL)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "no multi-host window named %s", name);
	if (w->stopping)
		return nm_error_set(err, NM_ERR_BUSY, "window %s is being stopped", name);
	if (ctx->client == NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "a window with peers needs a client");
	/* Only the peers whose window opened are asked to close it. */
	for (size_t i = 0; i < json_object_array_length(w->peers); i++) {
		json_object *p = json_object_array_get_idx(w->peers, i);
		if (json_get_string(w->lost, json_object_get_string(p), NULL) == NULL)
			json_object_array_add(live, json_object_get(p));
	}
	op = op_new(pw, ctx, name, live);
	json_object_put(live);
	op->args = json_object_get(args);
	op->phase = 2;
	w->stopping = true;
	pargs = json_object_new_object();
	json_add_string(pargs, "name", name);
	send_all(op, "mark-stop", pargs, PEERWIN_STOP_MS);
	json_object_put(pargs);
	if (window_freeze(pw->d->windows, name, err) < 0)
		op->local_ns = 0;
	else {
		json_object *rep = window_report(pw->d->windows, name, NULL, err);
		op->local_ns = rep ? (uint64_t)json_get_int(json_object_object_get(rep, "window"),
		                                            "end_real_ns", 0)
		                   : 0;
		json_object_put(rep);
	}
	send_release(op);
	return 0;
}
