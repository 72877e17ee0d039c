/* fuzz-peer.c: the peers' replies and the multi-host result built from them, on arbitrary
 * reply bytes of at most 1 MiB. A peer is another host's daemon: what it answers is input.
 *
 * The input is split on '\n' into up to four reply lines, each parsed with
 * proto_reply_parse as peer.c parses a transport's line: peer "p1"'s mark-start and
 * mark-stop replies, then peer "p2"'s. As peer-window.c does, a peer whose start or stop
 * reply is missing, unparsable or a refusal is an incomplete part with the reason; the
 * edges are recorded from the start and stop answers' window.start_real_ns and
 * end_real_ns (else the answer's own) against fixed local times, each peer's skew and a
 * fixed round trip, the way edge_json does; the stop answer is the peer's report. Then
 * crosshost_assemble puts the result together with a fixed local report (this host's:
 * trusted), and the result is compared with itself (compare_results, compare_hosts_add),
 * as compare does with stored results.
 *
 * Nothing may crash, overflow (UBSan) or abort; and: every host is this one (null), an
 * incomplete part with a reason (also in peers_incomplete), or a report that passes
 * crosshost_check_report; every cross entry has a loss that is never negative and at most
 * its tx packets, a bound not negative, a loss_state of the three, and a loss_ratio in
 * [0, 1]. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-hosts.h"
#include "compare.h"
#include "crosshost.h"
#include "error.h"
#include "fuzz.h"
#include "jsonutil.h"
#include "proto.h"

#define FUZZ_MAX_INPUT (1u << 20)
#define LOCAL_START_NS UINT64_C(1796163255788542081)
#define LOCAL_STOP_NS  UINT64_C(1796163283796046117)

/* This host's report: a device sending and receiving over 28 s. */
static const char local_text[] =
    "{\"window\":{\"duration_s\":28.0075,\"start_real_ns\":1796163255788542081,"
    "\"end_real_ns\":1796163283796046117,\"complete\":true},\"span_s\":28.0075,"
    "\"figures\":{\"devices\":[{\"name\":\"r0\",\"rx_packets\":558156,\"rx_bytes\":33489390,"
    "\"tx_packets\":2,\"tx_bytes\":120},{\"name\":\"r1\",\"tx_packets\":454758,"
    "\"tx_bytes\":27285510,\"rx_packets\":2,\"rx_bytes\":120},{\"name\":\"lo\","
    "\"tx_packets\":99999999,\"tx_bytes\":999999999}]}}";

/* An incomplete part: {"complete": false, "reason": why}. */
static json_object *
incomplete(const char *why)
{
	json_object *o = json_object_new_object();

	json_add_bool(o, "complete", false);
	json_add_string(o, "reason", why);
	return o;
}

/* One edge's record of peer from its answer (NULL: it failed), as edge_json makes it. */
static void
edge_peer(json_object *edge, const char *peer, json_object *answer, const char *field,
          uint64_t local_ns)
{
	json_object *peers = json_object_object_get(edge, "peers"), *h = json_object_new_object();
	json_object *win = NULL;
	uint64_t at;

	json_object_object_add(h, "round_trip_ms", json_double(1.25));
	if (answer == NULL) {
		json_add_string(h, "error", "no answer");
		json_object_object_add(peers, peer, h);
		return;
	}
	if (!json_object_object_get_ex(answer, "window", &win))
		win = answer;
	at = (uint64_t)json_get_int(win, field, 0);
	json_add_uint(h, "real_ns", at);
	json_object_object_add(h, "skew_ms", json_double(((double)at - (double)local_ns) / 1e6));
	json_object_object_add(peers, peer, h);
}

/* A new edge object: this host's time, no peers yet. */
static json_object *
edge_new(uint64_t local_ns)
{
	json_object *e = json_object_new_object();

	json_add_uint(e, "local_real_ns", local_ns);
	json_object_object_add(e, "peers", json_object_new_object());
	json_add_string(e, "local_host", "local");
	return e;
}

/* Line i of the input (NULL when there are fewer), its length in *len. */
static const char *
line_of(const char *data, size_t size, int i, size_t *len)
{
	const char *p = data, *end = data + size, *nl;

	for (int k = 0; k < i; k++) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			return NULL;
		p = nl + 1;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	*len = (size_t)((nl != NULL ? nl : end) - p);
	return p;
}

/* Parse reply line i: its result when the peer said yes (a new reference), else NULL with
 * the reason. The line is copied into a buffer of exactly its length. */
static json_object *
reply(const char *data, size_t size, int i, char *why, size_t wsize)
{
	struct proto_reply rep;
	struct nm_error err;
	json_object *res = NULL;
	const char *l;
	char *copy;
	size_t len;

	if ((l = line_of(data, size, i, &len)) == NULL) {
		snprintf(why, wsize, "no answer");
		return NULL;
	}
	copy = malloc(len ? len : 1);
	fuzz_check(copy != NULL);
	memcpy(copy, l, len);
	if (proto_reply_parse(copy, len, &rep, &err) < 0)
		snprintf(why, wsize, "bad reply: %.200s", err.message);
	else if (rep.is_event || !rep.ok)
		snprintf(why, wsize, "refused: %.200s", rep.message ? rep.message : "?");
	else
		res = json_object_get(rep.result);
	if (res == NULL)
		fuzz_check(why[0] != '\0');
	proto_reply_free(&rep); /* res keeps its own reference */
	free(copy);
	return res;
}

/* The invariants of the assembled result. */
static void
check_result(json_object *extra)
{
	json_object *hosts = json_object_object_get(extra, "hosts"),
	            *inc = json_object_object_get(extra, "peers_incomplete"),
	            *cross = json_object_object_get(extra, "cross");
	char why[400];

	fuzz_check(hosts != NULL && inc != NULL && cross != NULL);
	json_object_object_foreach(hosts, name, h)
	{
		if (strcmp(name, "local") == 0) {
			fuzz_check(h == NULL);
			continue;
		}
		if (json_object_object_get_ex(inc, name, NULL)) {
			fuzz_check(!json_get_bool(h, "complete", true));
			fuzz_check(json_get_string(h, "reason", NULL) != NULL);
		} else
			fuzz_check(crosshost_check_report(h, why, sizeof(why)) == 0);
	}
	for (size_t i = 0; i < json_object_array_length(cross); i++) {
		json_object *x = json_object_array_get_idx(cross, i);
		int64_t lost = json_get_int(x, "lost_packets", -1),
		        tx = json_get_int(x, "tx_packets", -1),
		        bound = json_get_int(x, "loss_bound_packets", -1);
		double ratio = json_get_double(x, "loss_ratio", -1);
		const char *st = json_get_string(x, "loss_state", "");
		fuzz_check(lost >= 0 && tx >= 0 && lost <= tx && bound >= 0);
		fuzz_check(ratio >= 0 && ratio <= 1);
		fuzz_check(strcmp(st, "lost") == 0 || strcmp(st, "within_skew") == 0 ||
		           strcmp(st, "more_received") == 0);
		fuzz_check((strcmp(st, "lost") == 0) == (lost > 0) || lost == 0);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const peers[] = {"p1", "p2"};
	json_object *parts, *edges, *local, *extra, *cmp, *res;
	json_object *start = edge_new(LOCAL_START_NS), *stop = edge_new(LOCAL_STOP_NS);

	if (size > FUZZ_MAX_INPUT) {
		json_object_put(start);
		json_object_put(stop);
		return 0;
	}
	parts = json_object_new_object();
	edges = json_object_new_object();
	json_object_object_add(edges, "start", start);
	json_object_object_add(edges, "stop", stop);
	for (int p = 0; p < 2; p++) {
		char why[300] = "";
		json_object *a = reply((const char *)data, size, 2 * p, why, sizeof(why)),
		            *b = NULL;
		edge_peer(start, peers[p], a, "start_real_ns", LOCAL_START_NS);
		if (a != NULL)
			b = reply((const char *)data, size, 2 * p + 1, why, sizeof(why));
		edge_peer(stop, peers[p], b, "end_real_ns", LOCAL_STOP_NS);
		json_object_object_add(parts, peers[p],
		                       b != NULL ? json_object_get(b) : incomplete(why));
		json_object_put(a);
		json_object_put(b);
	}
	local = json_tokener_parse(local_text);
	fuzz_check(local != NULL);
	extra = json_object_new_object();
	crosshost_assemble(extra, "local", local, parts, edges);
	check_result(extra);
	/* Stored, then compared with itself as compare does (the local host's report as
	 * window.c puts it in). */
	json_object_object_add(json_object_object_get(extra, "hosts"), "local",
	                       json_object_get(local));
	json_add_double(extra, "span_s", 28.0075);
	json_object_object_add(extra, "figures", json_object_new_object());
	res = extra;
	cmp = compare_results(&res, 1, &res, 1);
	compare_hosts_add(cmp, &res, 1, &res, 1, compare_results);
	fuzz_check(json_object_to_json_string(cmp) != NULL);
	json_object_put(cmp);
	json_object_put(extra);
	json_object_put(local);
	json_object_put(parts);
	json_object_put(edges);
	return 0;
}
