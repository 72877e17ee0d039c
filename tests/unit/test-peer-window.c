/* test-peer-window.c: multi-host window edges over a fake transport whose peers' clocks are
 * offset from this host's by known amounts, each a known one-way delay away: every host's
 * edge time, each peer's round trip and skew, at the start and the stop; the peers' reports
 * in the result; a peer that cannot be reached (hello and edges). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "peer-window.h"

#define MS  1000000ull
#define SEC 1000000000ull

/* A fake peer: its clock reads this host's plus offset_ns; a request reaches it one_way_ns
 * after it was sent and its answer comes back as long after that. */
struct fake_peer {
	const char *name;
	int64_t offset_ns;
	uint64_t one_way_ns;
	bool down; /* its transport cannot start: calls fail at once */
};

/* A request sent, not answered yet. */
struct fake_call {
	const struct fake_peer *peer;
	char cmd[32];
	char name[64]; /* args.name */
	uint64_t sent_ns;
	peer_done_fn done;
	void *arg;
};

/* The fake transport: this host's clock (the test sets it) and the requests in flight. */
struct fake {
	const struct fake_peer *peers;
	size_t npeers;
	uint64_t now_ns;
	struct fake_call calls[16];
	size_t ncalls;
	char log[512]; /* "peer:cmd " for every request, in order */
};

static const struct fake_peer *
fake_find(struct fake *f, const char *name)
{
	for (size_t i = 0; i < f->npeers; i++)
		if (strcmp(f->peers[i].name, name) == 0)
			return &f->peers[i];
	return NULL;
}

/* peer_check_names: every name a fake peer, none twice. */
static int
fake_check_names(void *ctx, json_object *names, struct nm_error *err)
{
	struct fake *f = ctx;

	for (size_t i = 0; i < json_object_array_length(names); i++) {
		const char *n = json_object_get_string(json_object_array_get_idx(names, i));
		if (fake_find(f, n) == NULL)
			return nm_error_set(err, NM_ERR_NOT_FOUND, "no peer named %s", n);
		for (size_t k = 0; k < i; k++)
			if (strcmp(n, json_object_get_string(
			                  json_object_array_get_idx(names, k))) == 0)
				return nm_error_set(err, NM_ERR_BAD_ARGS, "peer %s named twice", n);
	}
	return 0;
}

/* peer_call: queued until fake_deliver (never answered before it returns). */
static int
fake_call(void *ctx, const char *peer, const char *cmd, json_object *args, unsigned deadline_ms,
          peer_done_fn done, void *arg, struct nm_error *err)
{
	struct fake *f = ctx;
	const struct fake_peer *p = fake_find(f, peer);
	struct fake_call *c;

	(void)deadline_ms;
	assert_non_null(p);
	snprintf(f->log + strlen(f->log), sizeof(f->log) - strlen(f->log), "%s:%s ", peer, cmd);
	if (p->down)
		return nm_error_set(err, NM_ERR_FAILED, "peer %s: its transport did not start",
		                    peer);
	assert_true(f->ncalls < sizeof(f->calls) / sizeof(f->calls[0]));
	c = &f->calls[f->ncalls++];
	*c = (struct fake_call){.peer = p, .sent_ns = f->now_ns, .done = done, .arg = arg};
	snprintf(c->cmd, sizeof(c->cmd), "%s", cmd);
	snprintf(c->name, sizeof(c->name), "%s", json_get_string(args, "name", ""));
	return 0;
}

/* The peer's own time of the edge: its clock when the request reached it. */
static uint64_t
peer_edge_ns(const struct fake_call *c)
{
	return c->sent_ns + c->peer->one_way_ns + (uint64_t)c->peer->offset_ns;
}

/* What the peer's daemon answers to c: hello, mark-start (the window opened at its edge),
 * mark-stop (its stored report, the window closed at its edge, opened at start_ns). */
static json_object *
fake_result(const struct fake_call *c, uint64_t start_ns)
{
	json_object *o = json_object_new_object(), *win, *fig, *devs, *dev;

	if (strcmp(c->cmd, "hello") == 0) {
		json_add_uint(o, "protocol", 1);
		return o;
	}
	if (strcmp(c->cmd, "mark-start") == 0) {
		json_add_string(o, "name", c->name);
		json_add_uint(o, "start_real_ns", peer_edge_ns(c));
		json_add_string(o, "state", "open");
		return o;
	}
	assert_string_equal(c->cmd, "mark-stop");
	win = json_object_new_object();
	json_add_string(win, "name", c->name);
	json_add_uint(win, "start_real_ns", start_ns);
	json_add_uint(win, "end_real_ns", peer_edge_ns(c));
	json_add_double(win, "duration_s", (double)(peer_edge_ns(c) - start_ns) / 1e9);
	json_add_bool(win, "complete", true);
	json_object_object_add(o, "window", win);
	fig = json_object_new_object();
	devs = json_object_new_array();
	dev = json_object_new_object();
	json_add_string(dev, "name", c->peer->name);
	json_add_uint(dev, "rx_packets", 1000);
	json_add_uint(dev, "rx_bytes", 1500000);
	json_object_array_add(devs, dev);
	json_object_object_add(fig, "devices", devs);
	json_object_object_add(o, "figures", fig);
	return o;
}

/* Answer every request in flight, in order; a mark-stop's window opened at start_ns[i] for
 * the i-th fake peer. */
static void
fake_deliver(struct fake *f, const uint64_t *start_ns)
{
	size_t n = f->ncalls;
	struct fake_call calls[16];

	memcpy(calls, f->calls, n * sizeof(calls[0]));
	f->ncalls = 0;
	for (size_t i = 0; i < n; i++) {
		const struct fake_call *c = &calls[i];
		json_object *res = fake_result(c, start_ns ? start_ns[c->peer - f->peers] : 0);
		struct peer_answer a = {.peer = c->peer->name,
		                        .result = res,
		                        .sent_ns = c->sent_ns,
		                        .recv_ns = c->sent_ns + 2 * c->peer->one_way_ns};
		c->done(c->arg, &a);
		json_object_put(res);
	}
}

/* A done callback that counts its calls and keeps the error's message. */
struct seen {
	int calls;
	char why[1024];
};

static void
seen_fn(void *arg, const struct nm_error *err)
{
	struct seen *s = arg;

	s->calls++;
	snprintf(s->why, sizeof(s->why), "%s", err ? err->message : "");
}

static json_object *
names(const char *a, const char *b, const char *c)
{
	json_object *arr = json_object_new_array();
	const char *v[3] = {a, b, c};

	for (int i = 0; i < 3; i++)
		if (v[i] != NULL)
			json_object_array_add(arr, json_object_new_string(v[i]));
	return arr;
}

/* o's member at a dotted path (peer names have no dots); fails when missing. */
static json_object *
at(json_object *o, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k != NULL; k = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(o, k, &o) || o == NULL)
			fail_msg("no %s (at %s)", path, k);
	return o;
}

/* got within 1 us of want ms: the skew is a difference of two times of 1.8e18 ns as
 * doubles, each to 256 ns. */
static void
assert_near(double got, double want, const char *what)
{
	if (got < want - 1e-3 || got > want + 1e-3)
		fail_msg("%s: %.9f, want %.9f", what, got, want);
}

/* One peer's part of an edge record: its own clock's time of the edge, the round trip and
 * the skew (its edge less this host's) in ms. */
static void
check_peer_edge(json_object *edge, const char *peer, uint64_t real_ns, double rtt_ms,
                uint64_t local_ns)
{
	char path[128];
	json_object *h;

	snprintf(path, sizeof(path), "peers.%s", peer);
	h = at(edge, path);
	assert_int_equal((uint64_t)json_object_get_int64(at(h, "real_ns")), real_ns);
	assert_near(json_object_get_double(at(h, "round_trip_ms")), rtt_ms, "round_trip_ms");
	assert_near(json_object_get_double(at(h, "skew_ms")),
	            (double)(int64_t)(real_ns - local_ns) / 1e6, "skew_ms");
	assert_false(json_object_object_get_ex(h, "error", NULL));
}

static const struct fake_peer peers3[] = {
    {"rcv", 2500 * (int64_t)MS, 1 * MS, false},  /* 2.5 s ahead, 1 ms away */
    {"sink", -750 * (int64_t)MS, 3 * MS, false}, /* 750 ms behind, 3 ms away */
    {"gone", 0, 0, true},                        /* cannot be reached */
};

/* hello: done once every peer answered, with the first that did not; a name not
 * configured refuses at once. */
static void
test_hello(void **state)
{
	struct daemon d;
	struct fake f = {.peers = peers3, .npeers = 3, .now_ns = 1800000000 * SEC};
	struct peerwin_transport tr = {fake_call, fake_check_names, &f};
	struct peerwins *pw;
	struct seen s = {0};
	struct nm_error err;
	json_object *p;

	(void)state;
	memset(&d, 0, sizeof(d));
	pw = peerwin_init(&d);
	peerwin_set_transport(pw, &tr);
	p = names("rcv", "sink", NULL);
	assert_int_equal(peerwin_hello(pw, p, seen_fn, &s, &err), 0);
	assert_int_equal(s.calls, 0);
	fake_deliver(&f, NULL);
	assert_int_equal(s.calls, 1);
	assert_string_equal(s.why, "");
	json_object_put(p);
	p = names("rcv", "gone", NULL);
	assert_int_equal(peerwin_hello(pw, p, seen_fn, &s, &err), 0);
	fake_deliver(&f, NULL);
	assert_int_equal(s.calls, 2);
	assert_non_null(strstr(s.why, "gone"));
	json_object_put(p);
	p = names("rcv", "nowhere", NULL);
	assert_int_equal(peerwin_hello(pw, p, seen_fn, &s, &err), -1);
	assert_non_null(strstr(err.message, "nowhere"));
	assert_int_equal(f.ncalls, 0);
	json_object_put(p);
	p = names("gone", NULL, NULL);
	assert_int_equal(peerwin_hello(pw, p, seen_fn, &s, &err), -1);
	assert_non_null(strstr(err.message, "gone"));
	assert_int_equal(s.calls, 2);
	json_object_put(p);
	peerwin_free(pw);
}

/* A window on this host and three peers: rcv's clock 2.5 s ahead and 1 ms away, sink's
 * 750 ms behind and 3 ms away, gone unreachable. At each edge every peer's time is its own
 * clock's when the request reached it, the round trip twice its one-way delay and the skew
 * that time less this host's edge (taken 40 us after the requests went); the window's skew
 * is the largest. The stored members: both edges, each peer's report, gone incomplete. */
static void
test_edges_with_offset_clocks(void **state)
{
	struct daemon d;
	const uint64_t t0 = 1800000000 * SEC, t1 = t0 + 10 * SEC;
	const uint64_t local0 = t0 + 40000, local1 = t1 + 40000;
	struct fake f = {.peers = peers3, .npeers = 3, .now_ns = t0};
	struct peerwin_transport tr = {fake_call, fake_check_names, &f};
	uint64_t start_of[3];
	struct peerwins *pw;
	struct seen s = {0};
	json_object *p = names("rcv", "sink", "gone"), *st, *edge, *extra, *local, *h;
	char host[256];

	(void)state;
	memset(&d, 0, sizeof(d));
	pw = peerwin_init(&d);
	peerwin_set_transport(pw, &tr);
	peerwin_edge_start(pw, "run1", p);
	assert_true(peerwin_has(pw, "run1"));
	assert_string_equal(f.log, "rcv:mark-start sink:mark-start gone:mark-start ");
	assert_int_equal(f.ncalls, 2);
	assert_string_equal(f.calls[0].name, "run1");
	for (size_t i = 0; i < 2; i++)
		start_of[i] = peer_edge_ns(&f.calls[i]);
	peerwin_local_edge(pw, "run1", local0);
	peerwin_when_answered(pw, "run1", seen_fn, &s);
	assert_int_equal(s.calls, 0);
	fake_deliver(&f, NULL);
	assert_int_equal(s.calls, 1);

	/* The start edge, as mark start replies it. */
	st = peerwin_start_json(pw, "run1");
	edge = at(st, "edge");
	assert_int_equal((uint64_t)json_object_get_int64(at(edge, "local_real_ns")), local0);
	check_peer_edge(edge, "rcv", t0 + 1 * MS + 2500 * MS, 2, local0);
	check_peer_edge(edge, "sink", t0 + 3 * MS - 750 * MS, 6, local0);
	assert_near(json_object_get_double(at(edge, "peers.rcv.skew_ms")), 2500.96, "rcv skew");
	assert_near(json_object_get_double(at(edge, "peers.sink.skew_ms")), -747.04, "sink skew");
	assert_non_null(json_get_string(at(edge, "peers.gone"), "error", NULL));
	assert_false(json_object_object_get_ex(at(edge, "peers.gone"), "real_ns", NULL));
	assert_near(json_object_get_double(at(edge, "max_skew_ms")), 2500.96, "max skew");
	assert_near(json_object_get_double(at(st, "skew_ms")), 2500.96, "skew");
	assert_string_equal(json_get_string(at(st, "peers.rcv"), "state", ""), "open");
	assert_string_equal(json_get_string(at(st, "peers.sink"), "state", ""), "open");
	assert_string_equal(json_get_string(at(st, "peers.gone"), "state", ""), "incomplete");
	json_object_put(st);

	/* The stop edge 10 s later: only the peers whose window opened are asked. */
	f.now_ns = t1;
	f.log[0] = '\0';
	peerwin_edge_stop(pw, "run1");
	assert_string_equal(f.log, "rcv:mark-stop sink:mark-stop ");
	peerwin_local_edge(pw, "run1", local1);
	peerwin_edge_stop(pw, "run1"); /* a second call is a no-op */
	assert_int_equal(f.ncalls, 2);
	peerwin_when_answered(pw, "run1", seen_fn, &s);
	fake_deliver(&f, start_of);
	assert_int_equal(s.calls, 2);

	extra = json_object_new_object();
	local = json_object_new_object();
	peerwin_finish(pw, "run1", local, extra);
	assert_false(peerwin_has(pw, "run1"));
	gethostname(host, sizeof(host));
	host[sizeof(host) - 1] = '\0';
	assert_string_equal(json_get_string(extra, "local_host", ""), host);
	edge = at(extra, "edges.start");
	assert_int_equal((uint64_t)json_object_get_int64(at(edge, "local_real_ns")), local0);
	check_peer_edge(edge, "rcv", start_of[0], 2, local0);
	check_peer_edge(edge, "sink", start_of[1], 6, local0);
	edge = at(extra, "edges.stop");
	assert_int_equal((uint64_t)json_object_get_int64(at(edge, "local_real_ns")), local1);
	check_peer_edge(edge, "rcv", t1 + 1 * MS + 2500 * MS, 2, local1);
	check_peer_edge(edge, "sink", t1 + 3 * MS - 750 * MS, 6, local1);
	assert_near(json_object_get_double(at(extra, "skew.start_ms")), 2500.96, "start skew");
	assert_near(json_object_get_double(at(extra, "skew.stop_ms")), 2500.96, "stop skew");
	/* Each peer's report as it answered: its window from its own start to its own stop. */
	h = at(extra, "hosts.rcv.window");
	assert_int_equal((uint64_t)json_object_get_int64(at(h, "start_real_ns")), start_of[0]);
	assert_int_equal((uint64_t)json_object_get_int64(at(h, "end_real_ns")),
	                 t1 + 1 * MS + 2500 * MS);
	h = at(extra, "hosts.sink.window");
	assert_int_equal((uint64_t)json_object_get_int64(at(h, "end_real_ns")),
	                 t1 + 3 * MS - 750 * MS);
	assert_false(json_get_bool(at(extra, "hosts.gone"), "complete", true));
	assert_non_null(
	    strstr(json_get_string(at(extra, "peers_incomplete"), "gone", ""), "did not start"));
	assert_int_equal(json_object_object_length(at(extra, "peers_incomplete")), 1);
	assert_true(json_object_object_get_ex(at(extra, "hosts"), host, NULL));
	json_object_put(local);
	json_object_put(extra);
	json_object_put(p);
	peerwin_free(pw);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hello),
	    cmocka_unit_test(test_edges_with_offset_clocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
