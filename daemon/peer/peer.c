/* peer.c: the transports to the peers' daemons: start, requests and their deadlines,
 * replies matched by id, end. */
#include <errno.h>
#include <pwd.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "child.h"
#include "config.h"
#include "error.h"
#include "jsonutil.h"
#include "log.h"
#include "peer.h"
#include "privsep.h"
#include "proto.h"
#include "timeutil.h"
#include "xmalloc.h"

#define PEER_KILL_MS 2000 /* a transport told to go is killed after this */

struct peer_req {
	struct peer *p;
	int64_t id;
	peer_done_fn done;
	void *arg;
	struct event *deadline;
	unsigned deadline_ms;
	uint64_t sent_ns;
	struct peer_req *next;
};

struct peer {
	struct peers *ps;
	char *name;
	char **argv; /* the transport as configured, argv[0] not resolved yet */
	struct child *proc;
	struct bufferevent *bev;
	int64_t next_id;
	struct peer_req *reqs;
	char why[512]; /* how the last transport ended */
	/* The reply being read: rbuf[0..rlen) is the start of a line, scanned already (no
	 * newline in it), so each byte is looked at once however the line arrives. stray_bytes
	 * and stray_lines: what came since the last answer and answered no request. */
	char *rbuf;
	size_t rlen, rcap, stray_bytes;
	unsigned stray_lines;
	unsigned starts;
	/* ssh needs no root: under privilege separation it runs as the daemon's user. */
	bool user_ok;
	uid_t uid;
	gid_t gid;
};

struct peers {
	struct event_base *base;
	struct children *cs;
	struct peer *v;
	size_t n;
	bool stopping; /* peer_free runs: no request starts a transport again */
};

static const struct child_ops peer_child_ops;

/* The peer of that name; a peer whose name is NULL (kept by peer_configure, which moved it
 * to the new table during a reload) is no longer in this table. */
static struct peer *
find(const struct peers *ps, const char *name)
{
	for (size_t i = 0; ps != NULL && i < ps->n; i++) /* NULL: freed, at shutdown */
		if (ps->v[i].name != NULL && strcmp(ps->v[i].name, name) == 0)
			return &ps->v[i];
	return NULL;
}

/* Forget what was read of the transport's output (it ended, or a new one starts). */
static void
reading_reset(struct peer *p)
{
	free(p->rbuf);
	p->rbuf = NULL;
	p->rlen = p->rcap = p->stray_bytes = 0;
	p->stray_lines = 0;
}

/* End one request: unlink, answer, free. */
static void
req_finish(struct peer_req *rq, json_object *result, const struct nm_error *err)
{
	struct peer_req **pp;
	struct peer_answer a = {.peer = rq->p->name,
	                        .result = result,
	                        .err = err,
	                        .sent_ns = rq->sent_ns,
	                        .recv_ns = time_real_ns()};

	for (pp = &rq->p->reqs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == rq) {
			*pp = rq->next;
			break;
		}
	event_free(rq->deadline);
	rq->done(rq->arg, &a);
	free(rq);
}

/* Fail every request in flight with err. */
static void
fail_all(struct peer *p, const struct nm_error *err)
{
	while (p->reqs != NULL)
		req_finish(p->reqs, NULL, err);
}

/* Stop talking to the transport and make it go (its end arrives through on_done). */
static void
hang_up(struct peer *p)
{
	if (p->bev != NULL)
		bufferevent_free(p->bev); /* closes our end: the proxy sees end of file */
	p->bev = NULL;
	reading_reset(p);
	if (p->proc != NULL && child_running(p->proc)) {
		child_kill(p->proc, SIGTERM);
		child_set_timeout(p->proc, PEER_KILL_MS);
	}
}

/* The transport process ended: what was in flight fails with its last words. */
static void
on_done(struct child *sp, void *arg)
{
	struct peer *p = arg;
	char how[64], words[PEER_STDERR_WHY + 1];
	struct nm_error err;

	child_describe(sp, how, sizeof(how));
	child_last_words(sp, words, sizeof(words));
	snprintf(p->why, sizeof(p->why), "transport %s%s%s", how, words[0] ? ": " : "", words);
	nm_error_set(&err, NM_ERR_FAILED, "peer %s: %s", p->name, p->why);
	log_info("peer %s: %s", p->name, p->why);
	if (p->bev != NULL)
		bufferevent_free(p->bev);
	p->bev = NULL;
	reading_reset(p);
	p->proc = NULL;
	child_free(sp);
	fail_all(p, &err);
}

static const struct child_ops peer_child_ops = {.on_done = on_done};

/* One reply line from the peer: true when it answered a request. */
static bool
on_reply(struct peer *p, const char *line, size_t len)
{
	struct proto_reply rep;
	struct nm_error err;
	bool answered = false;

	if (proto_reply_parse(line, len, &rep, &err) < 0) {
		log_debug("peer %s: bad reply: %s", p->name, err.message);
		return false;
	}
	for (struct peer_req *rq = p->reqs; rq != NULL && !rep.is_event; rq = rq->next) {
		if (rq->id != rep.id)
			continue;
		answered = true;
		if (rep.ok)
			req_finish(rq, rep.result, NULL);
		else {
			nm_error_set(&err, rep.code, "peer %s: %s", p->name,
			             rep.message ? rep.message : "refused");
			req_finish(rq, NULL, &err);
		}
		break;
	}
	proto_reply_free(&rep);
	return answered;
}

/* The transport sent more than a reply may be: what is in flight fails with why (code), the
 * transport goes (what else it would send is unknown). */
static void
over_limit(struct peer *p, enum nm_errcode code, const char *why)
{
	struct nm_error err;

	nm_error_set(&err, code, "peer %s: %s", p->name, why);
	log_warnx("peer %s: %s; stopping its transport", p->name, why);
	snprintf(p->why, sizeof(p->why), "%s", why);
	hang_up(p);
	fail_all(p, &err);
}

/* Is what the transport sent since the last answer within a reply's limits? Else fails
 * what is in flight (over_limit) and returns false. */
static bool
within_limits(struct peer *p)
{
	char why[200];

	if (p->stray_lines > PEER_STRAY_MAX) {
		snprintf(
		    why, sizeof(why),
		    "more than %u lines that answer no request (the limit between two answers)",
		    PEER_STRAY_MAX);
		over_limit(p, NM_ERR_FAILED, why);
		return false;
	}
	if (p->stray_bytes + p->rlen > PEER_REPLY_MAX) {
		snprintf(why, sizeof(why), "%s passed the limit of a reply, %u MiB (%u bytes)",
		         p->stray_bytes ? "what it sent without an answer" : "a reply line",
		         PEER_REPLY_MAX >> 20, PEER_REPLY_MAX);
		over_limit(p, NM_ERR_TOO_LONG, why);
		return false;
	}
	return true;
}

/* rbuf[rlen..rlen+n) came: look for newlines in those bytes only, hand each whole line on,
 * keep the start of the next. false when the transport went meanwhile (a callback hung up,
 * or a limit was passed). */
static bool
take(struct peer *p, struct bufferevent *bev, size_t n)
{
	size_t start = 0, at = p->rlen, end = p->rlen + n;
	char *nl;

	while ((nl = memchr(p->rbuf + at, '\n', end - at)) != NULL) {
		size_t len = (size_t)(nl - p->rbuf) - start;
		if (on_reply(p, p->rbuf + start, len)) {
			p->stray_bytes = 0;
			p->stray_lines = 0;
		} else {
			p->stray_bytes += len + 1;
			p->stray_lines++;
		}
		if (p->bev != bev)
			return false; /* a callback hung up */
		p->rlen = 0;
		if (!within_limits(p))
			return false;
		start = at = (size_t)(nl - p->rbuf) + 1;
	}
	/* The start of the next line to the front: at most the n bytes that just came move. */
	if (start > 0)
		memmove(p->rbuf, p->rbuf + start, end - start);
	p->rlen = end - start;
	if (p->rlen == 0 && p->rcap > PEER_READ_MAX) {
		free(p->rbuf); /* a large reply was read: give its room back */
		p->rbuf = NULL;
		p->rcap = 0;
	}
	return within_limits(p);
}

/* The transport's stdout has data: whole lines are replies. At most PEER_READ_MAX bytes come
 * a callback (bufferevent_set_max_single_read), each looked at once, and what comes between
 * two answers is bounded (within_limits): the loop is never held for long. */
static void
read_cb(struct bufferevent *bev, void *arg)
{
	struct peer *p = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t n;

	while ((n = evbuffer_get_length(in)) > 0) {
		if (n > PEER_READ_MAX)
			n = PEER_READ_MAX;
		if (p->rlen + n > p->rcap) {
			/* rlen is within PEER_REPLY_MAX here: the room stays bounded. */
			p->rcap = p->rcap ? p->rcap : 4096;
			while (p->rcap < p->rlen + n)
				p->rcap *= 2;
			if (p->rcap > PEER_REPLY_MAX + PEER_READ_MAX)
				p->rcap = PEER_REPLY_MAX + PEER_READ_MAX;
			p->rbuf = xreallocarray(p->rbuf, p->rcap, 1);
		}
		if (evbuffer_remove(in, p->rbuf + p->rlen, n) != (int)n)
			break; /* cannot happen: n bytes are there */
		if (!take(p, bev, n))
			return;
	}
}

/* End of file or an error on the transport's pipe: it is going. */
static void
event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct peer *p = arg;

	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		hang_up(p); /* the requests fail in on_done, with the process's last words */
}

/* Start the transport. 0, or -1 with err. */
static int
connect_peer(struct peer *p, struct nm_error *err)
{
	/* No client's socket: the privileged process checks the argv against the file. */
	struct child_spawn how = {.cgroup_fd = -1, .peer_fd = -1};
	char path[4096], **argv;
	size_t n = 0;
	int fd;

	if (child_resolve(p->argv[0], path, sizeof(path), err) < 0) {
		snprintf(p->why, sizeof(p->why), "%s", err->message);
		return nm_error_set(err, NM_ERR_FAILED, "peer %s: %s", p->name, p->why);
	}
	while (p->argv[n] != NULL)
		n++;
	argv = xcalloc(n + 1, sizeof(*argv));
	argv[0] = path;
	for (size_t i = 1; i < n; i++)
		argv[i] = p->argv[i];
	how.argv = argv;
	if (p->user_ok && privsep_on()) {
		how.as_user = true;
		how.uid = p->uid;
		how.gid = p->gid;
	}
	p->proc = child_start_duplex(p->ps->cs, &how, &peer_child_ops, p, &fd, err);
	free(argv);
	if (p->proc == NULL) {
		snprintf(p->why, sizeof(p->why), "%s", err->message);
		return nm_error_set(err, NM_ERR_FAILED, "peer %s: %s", p->name, p->why);
	}
	p->bev = bufferevent_socket_new(p->ps->base, fd, BEV_OPT_CLOSE_ON_FREE);
	reading_reset(p);
	bufferevent_set_max_single_read(p->bev, PEER_READ_MAX);
	bufferevent_setcb(p->bev, read_cb, NULL, event_cb, p);
	bufferevent_enable(p->bev, EV_READ | EV_WRITE);
	p->starts++;
	log_info("peer %s: transport started (pid %d)", p->name, (int)child_pid(p->proc));
	return 0;
}

/* A request's deadline passed: it fails, and the transport, in an unknown state, goes. */
static void
deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct peer_req *rq = arg;
	struct peer *p = rq->p;
	struct nm_error err;

	(void)fd;
	(void)what;
	nm_error_set(&err, NM_ERR_FAILED, "peer %s: no answer within %u ms", p->name,
	             rq->deadline_ms);
	log_warnx("peer %s: no answer within %u ms; stopping its transport", p->name,
	          rq->deadline_ms);
	hang_up(p);
	req_finish(rq, NULL, &err);
}

/* Send a line now when nothing waits before it (the edges of a window are sent at once),
 * the rest through the bufferevent. */
static void
send_line(struct peer *p, const char *line, size_t len)
{
	struct evbuffer *out = bufferevent_get_output(p->bev);
	ssize_t n = 0;

	if (evbuffer_get_length(out) == 0) {
		n = send(bufferevent_getfd(p->bev), line, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0)
			n = 0;
	}
	if ((size_t)n < len)
		bufferevent_write(p->bev, line + n, len - (size_t)n);
}

int
peer_call(struct peers *ps, const char *name, const char *cmd, json_object *args,
          unsigned deadline_ms, peer_done_fn done, void *arg, struct nm_error *err)
{
	struct peer *p = find(ps, name);
	struct peer_req *rq;
	struct timeval tv = {(time_t)(deadline_ms / 1000),
	                     (suseconds_t)(deadline_ms % 1000) * 1000};
	char *line;
	size_t len;

	if (ps == NULL || ps->stopping) /* NULL: freed, at shutdown */
		return nm_error_set(err, NM_ERR_FAILED, "peer %s: the daemon is stopping", name);
	if (p == NULL)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "no peer named %s in the configuration",
		                    name);
	if (p->bev == NULL && p->proc != NULL)
		return nm_error_set(err, NM_ERR_BUSY, "peer %s: its transport is ending (%s)", name,
		                    p->why[0] ? p->why : "hung up");
	if (p->bev == NULL && connect_peer(p, err) < 0)
		return -1;
	rq = xcalloc(1, sizeof(*rq));
	rq->p = p;
	rq->id = ++p->next_id;
	rq->done = done;
	rq->arg = arg;
	rq->deadline_ms = deadline_ms;
	rq->deadline = evtimer_new(ps->base, deadline_cb, rq);
	evtimer_add(rq->deadline, &tv);
	rq->next = p->reqs;
	p->reqs = rq;
	line = proto_request_format(rq->id, cmd, args, &len);
	rq->sent_ns = time_real_ns();
	send_line(p, line, len);
	free(line);
	return 0;
}

/* Forget a peer: its transport killed (and reaped by the child set), requests failed. */
static void
peer_drop(struct peer *p, const char *why)
{
	struct nm_error err;

	nm_error_set(&err, NM_ERR_FAILED, "peer %s: %s", p->name, why);
	if (p->bev != NULL)
		bufferevent_free(p->bev);
	p->bev = NULL;
	if (p->proc != NULL)
		child_free(p->proc); /* SIGKILL to its group, reaped */
	p->proc = NULL;
	reading_reset(p);
	fail_all(p, &err);
	/* Gone from the table: a callback of a later drop must not find it (find skips NULL). */
	free(p->name);
	p->name = NULL;
	config_strv_free(p->argv);
	p->argv = NULL;
}

struct peers *
peer_init(struct event_base *base, struct children *cs, const struct config *cfg)
{
	struct peers *ps = xcalloc(1, sizeof(*ps));

	ps->base = base;
	ps->cs = cs;
	peer_configure(ps, cfg);
	return ps;
}

void
peer_configure(struct peers *ps, const struct config *cfg)
{
	struct peer *v = cfg->npeers ? xcalloc(cfg->npeers, sizeof(*v)) : NULL;

	for (size_t i = 0; i < cfg->npeers; i++) {
		char **argv = config_peer_argv(&cfg->peers[i]);
		struct peer *old = find(ps, cfg->peers[i].name);

		if (old != NULL && config_strv_equal(old->argv, argv)) {
			/* Unchanged: keep its transport and requests (re-pointed below). */
			v[i] = *old;
			old->name = NULL;
			config_strv_free(argv);
		} else {
			v[i].name = xstrdup(cfg->peers[i].name);
			v[i].argv = argv;
		}
		v[i].ps = ps;
		v[i].user_ok = false;
		if (cfg->peers[i].ssh != NULL && cfg->user != NULL) {
			/* Looked up here, at start or reload, not on each connect. */
			struct passwd *pw = getpwnam(cfg->user);
			if (pw != NULL && pw->pw_uid != 0) {
				v[i].user_ok = true;
				v[i].uid = pw->pw_uid;
				v[i].gid = pw->pw_gid;
			}
		}
	}
	for (size_t i = 0; i < ps->n; i++)
		if (ps->v[i].name != NULL)
			peer_drop(&ps->v[i], "removed from the configuration");
	free(ps->v);
	ps->v = v;
	ps->n = cfg->npeers;
	/* The kept peers moved: their callbacks' arguments follow. */
	for (size_t i = 0; i < ps->n; i++) {
		struct peer *p = &ps->v[i];
		if (p->bev != NULL)
			bufferevent_setcb(p->bev, read_cb, NULL, event_cb, p);
		if (p->proc != NULL)
			child_set_arg(p->proc, p);
		for (struct peer_req *rq = p->reqs; rq != NULL; rq = rq->next)
			rq->p = p;
	}
}

void
peer_free(struct peers *ps)
{
	if (ps == NULL)
		return;
	/* A failed request's callback may ask a peer again (a generator's stop, say): it is
	 * refused, rather than starting a transport in a table being freed. */
	ps->stopping = true;
	for (size_t i = 0; i < ps->n; i++)
		if (ps->v[i].name != NULL)
			peer_drop(&ps->v[i], "the daemon is stopping");
	free(ps->v);
	free(ps);
}

bool
peer_known(const struct peers *ps, const char *name)
{
	return find(ps, name) != NULL;
}

int
peer_check_names(const struct peers *ps, json_object *names, struct nm_error *err)
{
	size_t n =
	    json_object_is_type(names, json_type_array) ? json_object_array_length(names) : 0;

	for (size_t i = 0; i < n; i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(names, i));
		if (!peer_known(ps, name))
			return nm_error_set(err, NM_ERR_NOT_FOUND,
			                    "no peer named %s in the configuration ([peer NAME] in "
			                    "netmetricsd.conf)",
			                    name);
		for (size_t j = 0; j < i; j++)
			if (strcmp(name, json_object_get_string(
			                     json_object_array_get_idx(names, j))) == 0)
				return nm_error_set(err, NM_ERR_BAD_ARGS, "peer %s named twice",
				                    name);
	}
	return 0;
}

json_object *
peer_list_json(const struct peers *ps)
{
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < ps->n; i++) {
		const struct peer *p = &ps->v[i];
		json_object *po = json_object_new_object();
		json_add_string(po, "state", p->bev != NULL ? "connected" : "idle");
		json_add_uint(po, "starts", p->starts);
		if (p->why[0])
			json_add_string(po, "last_end", p->why);
		json_object_object_add(o, p->name, po);
	}
	return o;
}
