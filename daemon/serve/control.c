/* control.c: the control socket and its clients. Each client is a bufferevent with its
 * peer credentials, a line framer, a deadline for a half-sent request and a high/low
 * water mark on its output, so a slow or silent client never delays another. A large reply
 * is made a part at a time by a producer, as the client reads it. */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <grp.h>
#include <pwd.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "control.h"
#include "daemon.h"
#include "dispatch.h"
#include "error.h"
#include "log.h"
#include "privsep.h"
#include "proto.h"
#include "timeutil.h"
#include "usergroups.h"
#include "xmalloc.h"

#define ACCEPT_RETRY_MS 1000
#define ACCEPT_BURST    64
#define READ_CHUNK      16384
#define MAX_STREAMS     16       /* per client */
#define PRODUCE_SLOW_NS 20000000 /* a part of a reply this slow is logged (debug) */

struct stream {
	TAILQ_ENTRY(stream) entry;
	struct client *client;
	int64_t id;
	struct event *timer;
	control_stream_fn fn;
	void *arg;
	void (*free_fn)(void *);
};

/* A reply owed to a client: the request's handler answers once its work is done. */
struct control_later {
	TAILQ_ENTRY(control_later) entry;
	struct client *client; /* NULL once the client has gone */
	int64_t id;
	bool has_id;
};

/* A reply being made a part at a time (control_client_produce). */
struct producer {
	control_produce_fn fn; /* NULL: none */
	void *arg;
	void (*free_fn)(void *);
	struct event *ev;      /* runs fn again when it wrote nothing (it was computing) */
	struct evbuffer *held; /* other lines sent meanwhile, queued after the reply */
};

struct client {
	TAILQ_ENTRY(client) entry;
	struct control *ctl;
	struct bufferevent *bev;
	uid_t uid;
	gid_t gid;
	pid_t pid;
	bool closing;     /* flush what is queued, then close */
	bool read_paused; /* output passed the high-water mark */
	bool peer_eof;    /* the client shut down its side */
	bool deadline_set;
	struct producer prod;
	struct frame_reader fr;
	struct event *deadline;
	TAILQ_HEAD(, stream) streams;
	TAILQ_HEAD(, control_later) laters; /* replies owed: no close on EOF before them */
	unsigned nlaters;
	unsigned nstreams;
};

struct uid_count {
	uid_t uid;
	unsigned n;
};

struct control {
	struct daemon *d;
	int fd;
	bool activated;
	char *path;           /* the socket file we created, unlinked at exit */
	char *activated_path; /* the address of a socket systemd passed (never unlinked) */
	struct event *ev_accept;
	struct event *ev_resume;
	bool accept_paused;
	TAILQ_HEAD(, client) clients;
	unsigned nclients;
	struct uid_count *uids;
	size_t nuids;
	size_t high, low;
	uint64_t request_timeout_ms;
};

static void client_free(struct client *c);
static void client_process(struct client *c);
static void client_update_deadline(struct client *c, bool progressed);
static void client_read_cb(struct bufferevent *bev, void *arg);

/* The per-uid connection count slot for uid, created when asked. */
static struct uid_count *
uid_slot(struct control *ctl, uid_t uid, bool create)
{
	for (size_t i = 0; i < ctl->nuids; i++)
		if (ctl->uids[i].uid == uid)
			return &ctl->uids[i];
	if (!create)
		return NULL;
	ctl->uids = xreallocarray(ctl->uids, ctl->nuids + 1, sizeof(*ctl->uids));
	ctl->uids[ctl->nuids] = (struct uid_count){uid, 0};
	return &ctl->uids[ctl->nuids++];
}

struct control *
control_init(struct daemon *d)
{
	struct control *ctl = xcalloc(1, sizeof(*ctl));

	ctl->d = d;
	ctl->fd = -1;
	TAILQ_INIT(&ctl->clients);
	control_reconfigure(ctl);
	return ctl;
}

void
control_reconfigure(struct control *ctl)
{
	ctl->high = ctl->d->config.client_output_high;
	ctl->low = ctl->d->config.client_output_low;
	ctl->request_timeout_ms = ctl->d->config.request_timeout_ms;
}

unsigned
control_nclients(const struct control *ctl)
{
	return ctl->nclients;
}

const char *
control_socket_path(const struct control *ctl)
{
	if (ctl->path != NULL)
		return ctl->path;
	if (ctl->activated_path != NULL)
		return ctl->activated_path;
	return ctl->d->config.socket_path;
}

bool
control_activated(const struct control *ctl)
{
	return ctl->activated;
}

uid_t
control_client_uid(const struct client *c)
{
	return c->uid;
}

int
control_client_fd(const struct client *c)
{
	return bufferevent_getfd(c->bev);
}

/* Asked for each mutating request, not once at accept: a group revoked (or granted) since
 * the client connected counts at once. Costs a group lookup, so read-only requests never
 * ask. */
bool
control_client_is_admin(const struct client *c)
{
	return usergroups_is_admin(c->uid, c->gid, c->ctl->d->config.admin_group);
}

static bool client_producing(const struct client *c);
static void client_close_after_flush(struct client *c);

struct control_later *
control_later_new(struct client *c, int64_t id, bool has_id)
{
	struct control_later *l = xcalloc(1, sizeof(*l));

	l->client = c;
	l->id = id;
	l->has_id = has_id;
	if (c != NULL) {
		TAILQ_INSERT_TAIL(&c->laters, l, entry);
		c->nlaters++;
	}
	return l;
}

/* Send the reply line of l (when its client is still there: NULL reply, none) and free l. */
static void
later_send(struct control_later *l, const char *reply, size_t len)
{
	struct client *c = l->client;

	if (c != NULL) {
		TAILQ_REMOVE(&c->laters, l, entry);
		c->nlaters--;
	}
	if (c != NULL && !c->closing && reply != NULL) {
		control_client_send(c, reply, len);
		/* A client that half-closed waited for this last reply. */
		if (c->peer_eof && !c->read_paused && !client_producing(c) && c->nlaters == 0)
			client_close_after_flush(c);
	}
	free(l);
}

void
control_later_reply(struct control_later *l, json_object *result, const struct nm_error *err)
{
	size_t len = 0;
	char *reply = NULL;

	if (l->client != NULL && !l->client->closing) {
		if (result != NULL || err == NULL)
			reply = proto_reply_ok(l->id, l->has_id, result, &len);
		else
			reply = proto_reply_error(l->id, l->has_id, err->code, err->message, &len);
	}
	later_send(l, reply, len);
	free(reply);
	json_object_put(result);
}

void
control_later_send(struct control_later *l, const char *line, size_t len)
{
	later_send(l, line, len);
}

gid_t
control_client_gid(const struct client *c)
{
	return c->gid;
}

pid_t
control_client_pid(const struct client *c)
{
	return c->pid;
}

size_t
control_client_queued(const struct client *c)
{
	return evbuffer_get_length(bufferevent_get_output(c->bev));
}

/* Is a reply being made a part at a time? Then no other request is read or answered. */
static bool
client_producing(const struct client *c)
{
	return c->prod.fn != NULL;
}

/* Stop reading a client that does not read its replies; its unread requests wait, and so
 * does the deadline of a half-sent one: the daemon, not the client, holds it up. */
static void
client_check_output(struct client *c)
{
	if (!c->read_paused && control_client_queued(c) >= c->ctl->high) {
		c->read_paused = true;
		bufferevent_disable(c->bev, EV_READ);
		log_debug("client pid %ld: output past %zu bytes, reading paused", (long)c->pid,
		          c->ctl->high);
		if (!c->closing)
			client_update_deadline(c, false);
	}
}

void
control_client_send(struct client *c, const char *buf, size_t len)
{
	if (c->closing && c->bev == NULL)
		return;
	if (client_producing(c)) {
		/* Never inside the line being made: after it. */
		if (c->prod.held == NULL)
			c->prod.held = evbuffer_new();
		evbuffer_add(c->prod.held, buf, len);
		return;
	}
	bufferevent_write(c->bev, buf, len);
	client_check_output(c);
}

/* Send one error reply without an id. */
static void
client_send_error(struct client *c, enum nm_errcode code, const char *msg)
{
	size_t len;
	char *line = proto_reply_error(0, false, code, msg, &len);

	control_client_send(c, line, len);
	free(line);
}

/* Flush what is queued, then close. */
static void
client_close_after_flush(struct client *c)
{
	static const struct timeval now = {0, 0};

	c->closing = true;
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_setwatermark(c->bev, EV_WRITE, 0, 0);
	if (control_client_queued(c) == 0) {
		/* Never free inside a caller's loop: the deadline event frees it next turn. */
		evtimer_add(c->deadline, &now);
		c->deadline_set = true;
	}
}

/* The half-sent request deadline passed: tell the client and drop it. Also the deferred
 * free of a closing client. */
static void
client_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct client *c = arg;
	char msg[128];

	(void)fd;
	(void)what;
	c->deadline_set = false;
	if (c->closing) {
		client_free(c);
		return;
	}
	snprintf(msg, sizeof(msg), "request incomplete after %llu ms; closing",
	         (unsigned long long)c->ctl->request_timeout_ms);
	log_debug("client pid %ld: %s", (long)c->pid, msg);
	client_send_error(c, NM_ERR_BAD_REQUEST, msg);
	client_close_after_flush(c);
}

/* Arm the deadline while a request is half-sent and the daemon reads; disarm once none is,
 * or while the daemon itself holds reading (output past the high-water mark, a reply being
 * made). progressed: complete requests were just taken, so what is half-sent now started
 * in the bytes just read: its deadline starts again. */
static void
client_update_deadline(struct client *c, bool progressed)
{
	bool partial = frame_pending(&c->fr) > 0 || c->fr.discarding;
	bool held = c->read_paused || client_producing(c);

	if (c->deadline_set && (!partial || held || progressed)) {
		evtimer_del(c->deadline);
		c->deadline_set = false;
	}
	if (partial && !held && !c->deadline_set) {
		struct timeval tv = {(time_t)(c->ctl->request_timeout_ms / 1000),
		                     (suseconds_t)(c->ctl->request_timeout_ms % 1000) * 1000};
		evtimer_add(c->deadline, &tv);
		c->deadline_set = true;
	}
}

/* Answer every complete line buffered, until the output passes the high-water mark. */
static void
client_process(struct client *c)
{
	const char *line;
	size_t len, outlen;
	enum frame_status st;
	char *reply;
	bool progressed = false;

	while (!c->closing && !c->read_paused && !client_producing(c)) {
		st = frame_pop(&c->fr, &line, &len);
		if (st == FRAME_NONE)
			break;
		progressed = true;
		if (st == FRAME_TOO_LONG) {
			char msg[96];
			snprintf(msg, sizeof(msg), "request longer than %d bytes; dropped",
			         PROTO_MAX_REQUEST);
			client_send_error(c, NM_ERR_TOO_LONG, msg);
			continue;
		}
		if (st == FRAME_BAD_UTF8) {
			client_send_error(c, NM_ERR_BAD_REQUEST, "request is not valid UTF-8");
			continue;
		}
		reply = dispatch_line(c->ctl->d, c, line, len, &outlen);
		if (reply != NULL) {
			control_client_send(c, reply, outlen);
			free(reply);
		}
	}
	if (c->closing)
		return;
	client_update_deadline(c, progressed);
	if (c->peer_eof && !c->read_paused && !client_producing(c) && c->nlaters == 0)
		client_close_after_flush(c);
}

/* Move what arrived into the framer and answer it. */
static void
client_read_cb(struct bufferevent *bev, void *arg)
{
	struct client *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	char buf[READ_CHUNK];
	int n;

	while (!c->closing && !c->read_paused && !client_producing(c) &&
	       evbuffer_get_length(in) > 0) {
		n = evbuffer_remove(in, buf, sizeof(buf));
		if (n <= 0)
			break;
		frame_feed(&c->fr, buf, (size_t)n);
		client_process(c);
	}
}

/* Read and answer again once no reply is being made and, when reading was paused, the
 * output is below the low-water mark. */
static void
client_resume(struct client *c)
{
	if (c->closing || client_producing(c))
		return;
	if (c->read_paused) {
		if (control_client_queued(c) > c->ctl->low)
			return;
		c->read_paused = false;
		if (!c->peer_eof)
			bufferevent_enable(c->bev, EV_READ);
	}
	client_process(c);
	if (!c->closing)
		client_read_cb(c->bev, c);
}

/* End the reply being made: free its producer, queue what was held meanwhile. */
static void
producer_end(struct client *c)
{
	struct producer *p = &c->prod;

	if (p->free_fn != NULL)
		p->free_fn(p->arg);
	p->fn = NULL;
	p->arg = NULL;
	p->free_fn = NULL;
	event_del(p->ev);
	if (p->held != NULL) {
		bufferevent_write_buffer(c->bev, p->held);
		evbuffer_free(p->held);
		p->held = NULL;
	}
}

/* Make the next part of the reply. When it wrote bytes, the next part waits for the output
 * to drain below the low-water mark (client_write_cb); when it wrote none (it computed), it
 * runs again on the next turn of the loop, after the other clients' events. */
static void
producer_run(struct client *c)
{
	static const struct timeval now = {0, 0};
	struct evbuffer *out = bufferevent_get_output(c->bev);
	size_t before = evbuffer_get_length(out);
	uint64_t t0 = time_mono_ns(), dt;
	int done = c->prod.fn(out, c->prod.arg);

	if ((dt = time_mono_ns() - t0) >= PRODUCE_SLOW_NS)
		log_debug("client pid %ld: a part of a reply held the loop %.1f ms", (long)c->pid,
		          (double)dt / 1e6);
	if (done == CONTROL_PRODUCE_WAIT) {
		client_check_output(c);
		return; /* until control_client_produce_wake */
	}
	if (done != 0) {
		producer_end(c);
		client_check_output(c);
		client_resume(c);
		return;
	}
	client_check_output(c);
	if (evbuffer_get_length(out) == before || evbuffer_get_length(out) <= c->ctl->low)
		evtimer_add(c->prod.ev, &now);
}

/* The producer's turn after a part that wrote nothing. */
static void
producer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct client *c = arg;

	(void)fd;
	(void)what;
	if (!c->closing && client_producing(c))
		producer_run(c);
}

int
control_client_produce(struct client *c, control_produce_fn fn, void *arg, void (*free_fn)(void *))
{
	static const struct timeval now = {0, 0};

	if (client_producing(c) || c->closing) {
		/* Never: a client answers one request at a time. */
		if (free_fn != NULL)
			free_fn(arg);
		return -1;
	}
	c->prod.fn = fn;
	c->prod.arg = arg;
	c->prod.free_fn = free_fn;
	if (c->prod.ev == NULL)
		c->prod.ev = evtimer_new(c->ctl->d->base, producer_cb, c);
	evtimer_add(c->prod.ev, &now);
	client_update_deadline(c, false);
	return 0;
}

void
control_client_produce_wake(struct client *c)
{
	static const struct timeval now = {0, 0};

	if (!c->closing && client_producing(c))
		evtimer_add(c->prod.ev, &now);
}

/* Output drained below the low-water mark (or empty, when closing). */
static void
client_write_cb(struct bufferevent *bev, void *arg)
{
	struct client *c = arg;

	(void)bev;
	if (c->closing) {
		if (control_client_queued(c) == 0)
			client_free(c);
		return;
	}
	if (client_producing(c)) {
		if (control_client_queued(c) <= c->ctl->low && !evtimer_pending(c->prod.ev, NULL))
			producer_run(c);
		return;
	}
	if (c->read_paused)
		client_resume(c);
}

/* EOF or error from the client. */
static void
client_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct client *c = arg;

	(void)bev;
	if (what & BEV_EVENT_ERROR) {
		client_free(c);
		return;
	}
	if (what & BEV_EVENT_EOF) {
		/* Requests sent before a half-close are still answered. */
		c->peer_eof = true;
		if (c->closing)
			return;
		client_read_cb(c->bev, c);
		if (!c->closing && !c->read_paused && !client_producing(c) && c->nlaters == 0)
			client_close_after_flush(c);
	}
}

/* Stop one stream and free it. */
static void
stream_free(struct stream *st)
{
	struct client *c = st->client;

	TAILQ_REMOVE(&c->streams, st, entry);
	c->nstreams--;
	event_free(st->timer);
	if (st->free_fn != NULL)
		st->free_fn(st->arg);
	free(st);
}

/* A stream's tick: run it unless the client is behind on reading. */
static void
stream_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct stream *st = arg;
	struct client *c = st->client;

	(void)fd;
	(void)what;
	if (c->closing || c->read_paused || client_producing(c) ||
	    control_client_queued(c) >= c->ctl->low)
		return;
	st->fn(c, st->id, st->arg);
}

int
control_stream_add(struct client *c, int64_t id, uint64_t interval_ms, control_stream_fn fn,
                   void *arg, void (*free_fn)(void *), struct nm_error *err)
{
	struct stream *st;
	struct timeval tv = {(time_t)(interval_ms / 1000),
	                     (suseconds_t)(interval_ms % 1000) * 1000};

	TAILQ_FOREACH(st, &c->streams, entry)
	if (st->id == id)
		return nm_error_set(err, NM_ERR_EXISTS,
		                    "a stream with id %lld is already running on this connection",
		                    (long long)id);
	if (c->nstreams >= MAX_STREAMS)
		return nm_error_set(err, NM_ERR_BUSY, "at most %d streams per connection",
		                    MAX_STREAMS);
	st = xcalloc(1, sizeof(*st));
	st->client = c;
	st->id = id;
	st->fn = fn;
	st->arg = arg;
	st->free_fn = free_fn;
	st->timer = event_new(c->ctl->d->base, -1, EV_PERSIST, stream_tick_cb, st);
	event_add(st->timer, &tv);
	TAILQ_INSERT_TAIL(&c->streams, st, entry);
	c->nstreams++;
	return 0;
}

int
control_stream_cancel(struct client *c, int64_t id)
{
	struct stream *st;

	TAILQ_FOREACH(st, &c->streams, entry)
	if (st->id == id) {
		stream_free(st);
		return 0;
	}
	return -1;
}

/* Drop a client and free what it holds. */
static void
client_free(struct client *c)
{
	struct control *ctl = c->ctl;
	struct uid_count *u = uid_slot(ctl, c->uid, false);
	struct stream *st;

	struct control_later *l;

	while ((st = TAILQ_FIRST(&c->streams)) != NULL)
		stream_free(st);
	while ((l = TAILQ_FIRST(&c->laters)) != NULL) {
		TAILQ_REMOVE(&c->laters, l, entry);
		l->client = NULL; /* its owner still answers it: into nothing */
	}
	if (c->prod.free_fn != NULL)
		c->prod.free_fn(c->prod.arg);
	if (c->prod.ev != NULL)
		event_free(c->prod.ev);
	if (c->prod.held != NULL)
		evbuffer_free(c->prod.held);

	if (u != NULL && u->n > 0)
		u->n--;
	TAILQ_REMOVE(&ctl->clients, c, entry);
	ctl->nclients--;
	event_free(c->deadline);
	/* A test the client started keeps a copy of its socket (its credentials, for the
	 * privileged process): the client must see the end all the same. */
	shutdown(bufferevent_getfd(c->bev), SHUT_RDWR);
	bufferevent_free(c->bev);
	frame_free(&c->fr);
	free(c);
	if (ctl->accept_paused) {
		ctl->accept_paused = false;
		evtimer_del(ctl->ev_resume);
		event_add(ctl->ev_accept, NULL);
	}
}

/* Refuse a connection with one error line, written without waiting. */
static void
refuse(int fd, enum nm_errcode code, const char *msg)
{
	size_t len;
	char *line = proto_reply_error(0, false, code, msg, &len);

	if (send(fd, line, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		log_debug("refusing a client: %s", strerror(errno));
	free(line);
	close(fd);
}

/* Take a new connection: credentials, limits, then a client. */
static void
client_new(struct control *ctl, int fd)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	struct uid_count *u;
	struct client *c;
	char msg[160];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0) {
		log_warn("control: SO_PEERCRED");
		close(fd);
		return;
	}
	if (ctl->nclients >= ctl->d->config.max_clients) {
		snprintf(msg, sizeof(msg), "too many connections (limit %u); try again later",
		         ctl->d->config.max_clients);
		refuse(fd, NM_ERR_BUSY, msg);
		return;
	}
	u = uid_slot(ctl, cred.uid, true);
	if (u->n >= ctl->d->config.max_clients_per_uid) {
		snprintf(msg, sizeof(msg), "too many connections for uid %u (limit %u)",
		         (unsigned)cred.uid, ctl->d->config.max_clients_per_uid);
		refuse(fd, NM_ERR_BUSY, msg);
		return;
	}

	c = xcalloc(1, sizeof(*c));
	c->ctl = ctl;
	c->uid = cred.uid;
	c->gid = cred.gid;
	c->pid = cred.pid;
	TAILQ_INIT(&c->streams);
	TAILQ_INIT(&c->laters);
	frame_init(&c->fr, PROTO_MAX_REQUEST);
	c->bev = bufferevent_socket_new(ctl->d->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (c->bev == NULL)
		fatalx("control: bufferevent_socket_new failed");
	c->deadline = evtimer_new(ctl->d->base, client_deadline_cb, c);
	bufferevent_setcb(c->bev, client_read_cb, client_write_cb, client_event_cb, c);
	bufferevent_setwatermark(c->bev, EV_WRITE, ctl->low, 0);
	bufferevent_setwatermark(c->bev, EV_READ, 0, 4 * READ_CHUNK);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	u->n++;
	TAILQ_INSERT_TAIL(&ctl->clients, c, entry);
	ctl->nclients++;
	/* Whether it is an admin now; each mutating request asks again. */
	log_debug("client pid %ld uid %u connected%s", (long)c->pid, (unsigned)c->uid,
	          control_client_is_admin(c) ? " (admin)" : "");
}

/* Out of descriptors: stop accepting until a client leaves or a second passes. */
static void
accept_pause(struct control *ctl)
{
	struct timeval tv = {ACCEPT_RETRY_MS / 1000, (ACCEPT_RETRY_MS % 1000) * 1000};

	if (ctl->accept_paused)
		return;
	ctl->accept_paused = true;
	event_del(ctl->ev_accept);
	evtimer_add(ctl->ev_resume, &tv);
}

/* Accept again after a pause. */
static void
accept_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct control *ctl = arg;

	(void)fd;
	(void)what;
	ctl->accept_paused = false;
	event_add(ctl->ev_accept, NULL);
}

/* Accept a burst of pending connections. */
static void
accept_cb(evutil_socket_t fd, short what, void *arg)
{
	struct control *ctl = arg;
	int cfd;

	(void)what;
	for (int i = 0; i < ACCEPT_BURST; i++) {
		cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd >= 0) {
			client_new(ctl, cfd);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
			log_warn("control: accept (pausing)");
			accept_pause(ctl);
		} else if (errno != EAGAIN && errno != EWOULDBLOCK)
			log_warn("control: accept");
		return;
	}
}

/* Find a stream socket systemd passed us; -1 when none. */
static int
activated_socket(void)
{
	int n = sd_listen_fds(1);

	for (int i = 0; i < n; i++)
		if (sd_is_socket_unix(SD_LISTEN_FDS_START + i, SOCK_STREAM, 1, NULL, 0) > 0)
			return SD_LISTEN_FDS_START + i;
	return -1;
}

/* Create the parent directory of the socket when missing (one level, 0755). */
static int
make_parent_dir(const char *path, struct nm_error *err)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	int r = 0;

	if (slash != NULL && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			r = nm_error_set(err, NM_ERR_FAILED, "cannot create %s: %s", dir,
			                 strerror(errno));
	}
	free(dir);
	return r;
}

/* Refuse when a daemon answers on path; unlink the file when it is a stale socket. */
static int
check_stale(const char *path, const struct sockaddr_un *sun, struct nm_error *err)
{
	struct stat st;
	int fd, r;

	if (lstat(path, &st) < 0)
		return errno == ENOENT
		           ? 0
		           : nm_error_set(err, NM_ERR_FAILED, "%s: %s", path, strerror(errno));
	if (!S_ISSOCK(st.st_mode))
		return nm_error_set(err, NM_ERR_FAILED, "%s exists and is not a socket", path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return nm_error_set(err, NM_ERR_FAILED, "socket: %s", strerror(errno));
	r = connect(fd, (const struct sockaddr *)sun, sizeof(*sun));
	close(fd);
	if (r == 0)
		return nm_error_set(err, NM_ERR_EXISTS,
		                    "another netmetricsd answers on %s; stop it first", path);
	if (errno != ECONNREFUSED)
		return nm_error_set(err, NM_ERR_FAILED, "%s: %s", path, strerror(errno));
	log_info("removing stale socket %s", path);
	if (unlink(path) < 0 && errno != ENOENT)
		return nm_error_set(err, NM_ERR_FAILED, "unlink %s: %s", path, strerror(errno));
	return 0;
}

/* Create, bind and listen on the configured socket path. */
static int
listen_path(struct control *ctl, struct nm_error *err)
{
	const struct config *cfg = &ctl->d->config;
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	struct group *gr = NULL;
	mode_t old;
	int fd;

	if (strlen(cfg->socket_path) >= sizeof(sun.sun_path))
		return nm_error_set(err, NM_ERR_BAD_ARGS, "socket path too long: %s",
		                    cfg->socket_path);
	strcpy(sun.sun_path, cfg->socket_path);
	if (cfg->socket_group != NULL && (gr = getgrnam(cfg->socket_group)) == NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "socket_group \"%s\": no such group",
		                    cfg->socket_group);
	if (make_parent_dir(cfg->socket_path, err) < 0 || check_stale(sun.sun_path, &sun, err) < 0)
		return -1;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
		return nm_error_set(err, NM_ERR_FAILED, "socket: %s", strerror(errno));
	old = umask(0177);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		umask(old);
		nm_error_set(err, NM_ERR_FAILED, "bind %s: %s", sun.sun_path, strerror(errno));
		close(fd);
		return -1;
	}
	umask(old);
	if (chmod(sun.sun_path, cfg->socket_mode) < 0 ||
	    (gr != NULL && chown(sun.sun_path, (uid_t)-1, gr->gr_gid) < 0) || listen(fd, 128) < 0) {
		nm_error_set(err, NM_ERR_FAILED, "%s: %s", sun.sun_path, strerror(errno));
		unlink(sun.sun_path);
		close(fd);
		return -1;
	}
	ctl->path = xstrdup(sun.sun_path);
	return fd;
}

/* socket_group, when set, on the socket systemd passed (its path, which the daemon reads
 * from the socket): that group and socket_mode, as root before the drop, where systemd's
 * SocketGroup=/SocketMode= would otherwise stay. Without socket_group the unit's settings
 * are left alone. An abstract or unnamed socket has no file: said, not an error. */
static int
apply_socket_group(struct control *ctl, struct nm_error *err)
{
	const struct config *cfg = &ctl->d->config;
	const char *path = ctl->activated_path;
	struct group *gr;

	if (cfg->socket_group == NULL || cfg->socket_group[0] == '\0')
		return 0;
	if ((gr = getgrnam(cfg->socket_group)) == NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "socket_group \"%s\": no such group",
		                    cfg->socket_group);
	if (path == NULL || path[0] != '/') {
		log_warnx("control: socket_group %s not applied: the passed socket has no path",
		          cfg->socket_group);
		return 0;
	}
	if (chown(path, (uid_t)-1, gr->gr_gid) < 0 || chmod(path, cfg->socket_mode) < 0)
		return nm_error_set(err, NM_ERR_FAILED,
		                    "socket_group %s on the socket passed by systemd %s: %s "
		                    "(or set SocketGroup= in netmetricsd.socket and leave "
		                    "socket_group empty)",
		                    cfg->socket_group, path, strerror(errno));
	log_info("control: socket_group %s applied to %s (mode %04o)", cfg->socket_group, path,
	         cfg->socket_mode);
	return 0;
}

int
control_listen(struct control *ctl, struct nm_error *err)
{
	int fd = activated_socket();

	if (fd >= 0) {
		struct sockaddr_un sun;
		socklen_t len = sizeof(sun);
		ctl->activated = true;
		evutil_make_socket_nonblocking(fd);
		/* Show the address systemd bound, not the configured one. */
		if (getsockname(fd, (struct sockaddr *)&sun, &len) == 0 &&
		    sun.sun_family == AF_UNIX && len > offsetof(struct sockaddr_un, sun_path) &&
		    sun.sun_path[0] != '\0')
			ctl->activated_path =
			    xstrndup(sun.sun_path, len - offsetof(struct sockaddr_un, sun_path));
		log_info("control: using the socket passed by systemd");
		if (apply_socket_group(ctl, err) < 0) {
			close(fd);
			return -1;
		}
	} else if ((fd = listen_path(ctl, err)) < 0)
		return -1;
	ctl->fd = fd;
	ctl->ev_accept = event_new(ctl->d->base, fd, EV_READ | EV_PERSIST, accept_cb, ctl);
	ctl->ev_resume = evtimer_new(ctl->d->base, accept_resume_cb, ctl);
	event_add(ctl->ev_accept, NULL);
	return 0;
}

void
control_free(struct control *ctl, const char *reason)
{
	struct client *c;
	json_object *data;
	size_t len;
	char *line;

	if (ctl == NULL)
		return;
	data = json_object_new_object();
	json_object_object_add(data, "reason", json_object_new_string(reason));
	line = proto_event(0, "shutdown", data, &len);
	json_object_put(data);
	while ((c = TAILQ_FIRST(&ctl->clients)) != NULL) {
		struct evbuffer *out = bufferevent_get_output(c->bev);
		evbuffer_add(out, line, len);
		/* One non-blocking attempt: a client that does not read loses the notice. A
		 * bufferevent freezes the start of its output buffer, so thaw it first. */
		evbuffer_unfreeze(out, 1);
		evbuffer_write(out, bufferevent_getfd(c->bev));
		client_free(c);
	}
	free(line);
	if (ctl->ev_accept)
		event_free(ctl->ev_accept);
	if (ctl->ev_resume)
		event_free(ctl->ev_resume);
	if (ctl->fd >= 0)
		close(ctl->fd);
	/* Under privilege separation the socket's directory may be root's (started as root
	 * from such a directory, or in /run): the privileged process removes it then. */
	if (ctl->path != NULL && unlink(ctl->path) < 0 && errno != ENOENT) {
		struct nm_error err;
		if ((errno != EACCES && errno != EPERM) || !privsep_on())
			log_warn("unlink %s", ctl->path);
		else if (privsep_unlink_socket(&err) < 0 && errno != ENOENT)
			log_warnx("unlink %s (privileged process): %s", ctl->path, err.message);
	}
	free(ctl->path);
	free(ctl->activated_path);
	free(ctl->uids);
	free(ctl);
}
