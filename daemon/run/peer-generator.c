/* peer-generator.c: a test's packet generator run by a peer's daemon, started, followed
 * and stopped over the peer link (peer-generator.h). */
#include <event2/event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "log.h"
#include "peer-generator.h"
#include "peer.h"
#include "runner.h"
#include "timeutil.h"
#include "xmalloc.h"

struct peergen {
	struct daemon *d; /* d->peers each time: it is NULL once the peers are gone */
	struct event *ev; /* the next poll */
	char peer[33];
	char test[256]; /* TEST.generator */
	peergen_end_fn ended;
	void *arg;
	json_object *last; /* the peer's test as last seen; owned */
	bool in_flight;    /* a request awaits its answer */
	bool stop_wanted, stop_sent, done;
	uint64_t stop_mono_ns; /* when the stop went out */
	bool freed; /* peergen_free came while a request was in flight: freed by its answer */
};

void
peergen_name(const char *test, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", test, PEERGEN_SUFFIX);
}

/* ---- the start ---- */

struct start {
	peergen_started_fn done;
	void *arg;
};

static void
started(void *arg, const struct peer_answer *a)
{
	struct start st = *(struct start *)arg;
	json_object *t = NULL;

	free(arg);
	if (a->result != NULL)
		t = json_object_get(a->result);
	st.done(st.arg, t, a->err);
	json_object_put(t);
}

/* The generator's arguments of spec, for the peer's test-start. */
static json_object *
start_args(const struct test_spec *s)
{
	json_object *a = json_object_new_object();
	char name[256];

	peergen_name(s->name, name, sizeof(name));
	json_add_string(a, "driver", s->driver->name);
	json_add_string(a, "name", name);
	json_object_object_add(a, "warmup", json_object_new_double(0));
	json_object_object_add(a, "cooldown", json_object_new_double(0));
	if (s->duration_s > 0)
		json_object_object_add(a, "duration", json_object_new_double(s->duration_s));
	if (s->replace)
		json_add_bool(a, "replace", true);
	if (s->netns[0])
		json_add_string(a, "netns", s->netns);
	json_add_string(a, "dev", s->dev);
	json_add_string(a, "dst_min", s->dst_min);
	json_add_string(a, "dst_max", s->dst_max);
	if (s->dst_mac[0])
		json_add_string(a, "dst_mac", s->dst_mac);
	if (s->src[0])
		json_add_string(a, "src", s->src);
	json_add_uint(a, "size", s->size);
	json_add_uint(a, "flows", s->flows);
	json_add_uint(a, "flowlen", s->flowlen);
	json_add_uint(a, "threads", s->threads);
	if (s->clone_skb)
		json_add_uint(a, "clone_skb", s->clone_skb);
	if (s->delay_ns)
		json_add_uint(a, "delay", s->delay_ns);
	if (s->count)
		json_add_uint(a, "count", s->count);
	if (s->rate_pps > 0)
		json_object_object_add(a, "rate", json_object_new_double(s->rate_pps));
	return a;
}

int
peergen_start(struct daemon *d, const struct test_spec *spec, peergen_started_fn done, void *arg,
              struct nm_error *err)
{
	json_object *args = start_args(spec);
	struct start *st = xcalloc(1, sizeof(*st));
	int rc;

	st->done = done;
	st->arg = arg;
	rc = peer_call(d->peers, spec->generator_on, "test-start", args, PEERGEN_START_MS, started,
	               st, err);
	json_object_put(args);
	if (rc < 0)
		free(st);
	return rc;
}

/* An answer nobody waits for: logged when it failed. */
static void
log_answer(void *arg, const struct peer_answer *a)
{
	(void)arg;
	if (a->err != NULL)
		log_info("%s (stopping the generator)", a->err->message);
}

void
peergen_stop_name(struct daemon *d, const char *peer, const char *test)
{
	json_object *args = json_object_new_object();
	struct nm_error err;
	char name[256];

	peergen_name(test, name, sizeof(name));
	json_add_string(args, "name", name);
	if (peer_call(d->peers, peer, "test-stop", args, PEERGEN_CALL_MS, log_answer, NULL, &err) <
	    0)
		log_info("%s (stopping the generator)", err.message);
	json_object_put(args);
}

/* ---- the follow ---- */

static void poll_cb(evutil_socket_t fd, short what, void *arg);

static void
release(struct peergen *g)
{
	if (g->ev != NULL)
		event_free(g->ev);
	json_object_put(g->last);
	free(g);
}

/* The follow is over: tell (once). */
static void
end(struct peergen *g, json_object *summary, const struct nm_error *err)
{
	if (g->done)
		return;
	g->done = true;
	evtimer_del(g->ev);
	g->ended(g->arg, summary, err);
}

static void
arm(struct peergen *g)
{
	/* A stop wanted goes out at once. */
	struct timeval tv = {0, g->stop_wanted && !g->stop_sent ? 0 : PEERGEN_POLL_MS * 1000};

	evtimer_add(g->ev, &tv);
}

/* The peer's test-status (or test-stop) answered. */
static void
answered(void *arg, const struct peer_answer *a)
{
	struct peergen *g = arg;
	json_object *tests = NULL, *t;
	struct nm_error err;

	g->in_flight = false;
	if (g->freed) {
		release(g);
		return;
	}
	if (g->done)
		return;
	if (a->err != NULL) {
		/* A stop the peer refuses (its test ended meanwhile) is no loss: the status
		 * says. Anything else is the peer's or the transport's failure. */
		if (g->stop_sent && a->err->code == NM_ERR_NOT_FOUND &&
		    json_object_get_type(g->last) == json_type_object) {
			arm(g);
			return;
		}
		end(g, NULL, a->err);
		return;
	}
	if (g->stop_sent && time_mono_ns() - g->stop_mono_ns > PEERGEN_STOP_WAIT_MS * 1000000ull) {
		nm_error_set(&err, NM_ERR_FAILED,
		             "peer %s: its test %s did not end within %u ms of "
		             "its stop",
		             g->peer, g->test, PEERGEN_STOP_WAIT_MS);
		end(g, NULL, &err);
		return;
	}
	if (json_object_object_get_ex(a->result, "tests", &tests) &&
	    (t = json_object_array_get_idx(tests, 0)) != NULL) {
		json_object_put(g->last);
		g->last = json_object_get(t);
		/* Finished and stored there: it has its status. */
		if (json_object_object_get_ex(t, "status", NULL)) {
			end(g, t, NULL);
			return;
		}
	}
	arm(g);
}

/* Send the next request: the stop when one is wanted, else the status. */
static void
poll_cb(evutil_socket_t fd, short what, void *arg)
{
	struct peergen *g = arg;
	json_object *args;
	struct nm_error err;
	bool stop = g->stop_wanted && !g->stop_sent;

	(void)fd;
	(void)what;
	if (g->in_flight || g->done)
		return;
	if (g->d->peers == NULL) {
		nm_error_set(&err, NM_ERR_FAILED, "peer %s: the daemon is stopping", g->peer);
		end(g, NULL, &err);
		return;
	}
	args = json_object_new_object();
	json_add_string(args, "name", g->test);
	if (stop) {
		g->stop_sent = true;
		g->stop_mono_ns = time_mono_ns();
	}
	if (peer_call(g->d->peers, g->peer, stop ? "test-stop" : "test-status", args,
	              PEERGEN_CALL_MS, answered, g, &err) < 0) {
		json_object_put(args);
		end(g, NULL, &err);
		return;
	}
	json_object_put(args);
	g->in_flight = true;
}

struct peergen *
peergen_follow(struct daemon *d, const char *peer, const char *test, peergen_end_fn ended,
               void *arg)
{
	struct peergen *g = xcalloc(1, sizeof(*g));

	g->d = d;
	snprintf(g->peer, sizeof(g->peer), "%s", peer);
	peergen_name(test, g->test, sizeof(g->test));
	g->ended = ended;
	g->arg = arg;
	g->ev = evtimer_new(d->base, poll_cb, g);
	arm(g);
	return g;
}

void
peergen_stop(struct peergen *g)
{
	if (g == NULL || g->done || g->stop_wanted)
		return;
	g->stop_wanted = true;
	/* At once, or right after the answer awaited (answered arms the timer). */
	if (!g->in_flight)
		arm(g);
}

int
peergen_ended(const struct peergen *g)
{
	return g->done;
}

json_object *
peergen_json(const struct peergen *g)
{
	json_object *o = json_object_new_object(), *live = NULL;

	json_add_string(o, "peer", g->peer);
	json_add_string(o, "test", g->test);
	json_add_string(o, "state",
	                g->last != NULL ? json_get_string(g->last, "state", "?") : "starting");
	if (g->last != NULL && json_object_object_get_ex(g->last, "live", &live))
		json_object_object_add(o, "live", json_object_get(live));
	return o;
}

void
peergen_free(struct peergen *g)
{
	if (g == NULL)
		return;
	if (g->in_flight) {
		g->freed = true; /* its answer frees it */
		evtimer_del(g->ev);
		return;
	}
	release(g);
}
