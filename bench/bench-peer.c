/* bench-peer.c: what reading a peer's reply costs the daemon (issue 29): peer.c's transport
 * as netmetricsd runs it (child_start_duplex, a bufferevent on the loop, the reply parsed and
 * matched by id), against a fake transport, this program again (--serve), which answers each
 * request with a valid reply line of the size it asks for. For each size (default 1, 4 and
 * 16 MiB), the median over the rounds of the process's CPU time from peer_call to the
 * answer: reading is linear when the 16 MiB reply costs about 4x the 4 MiB one (target
 * <= 6x; evbuffer_readln's rescans of the partial line made it 16x and more). Then a reply of
 * 70 MB: refused at the limit, 64 MiB, with the error that names it, in little CPU.
 *
 *   bench-peer [-k ROUNDS] [-s MIB ...]
 *
 * Exit status 1 when the ratio misses its target or an answer is wrong. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <event2/event.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"
#include "child.h"
#include "config.h"
#include "error.h"
#include "jsonutil.h"
#include "log.h"
#include "peer.h"
#include "xmalloc.h"

#define MIB        (1u << 20)
#define MAX_SIZES  8
#define OVER_LIMIT 70000000u /* bytes of the reply past the limit */

/* The fake transport: each request line on stdin ({"id":N,"args":{"bytes":B}}) gets a reply
 * line of B bytes, {"id":N,"ok":true,"result":{"pad":"aaa..."}}, on stdout. */
static int
serve(void)
{
	char req[4096];
	char *pad = NULL;
	size_t padcap = 0;

	while (fgets(req, sizeof(req), stdin) != NULL) {
		json_object *o = json_tokener_parse(req), *args = NULL;
		int64_t id = json_get_int(o, "id", 0);
		size_t bytes = 0, len;
		char head[64];
		const char *tail = "\"}}\n";

		if (json_object_object_get_ex(o, "args", &args))
			bytes = (size_t)json_get_int(args, "bytes", 0);
		json_object_put(o);
		len = (size_t)snprintf(head, sizeof(head),
		                       "{\"id\":%lld,\"ok\":true,\"result\":{\"pad\":\"",
		                       (long long)id);
		if (bytes < len + strlen(tail))
			bytes = len + strlen(tail);
		if (padcap < bytes) {
			pad = xreallocarray(pad, bytes, 1);
			memset(pad, 'a', bytes);
			padcap = bytes;
		}
		memcpy(pad, head, len);
		memcpy(pad + bytes - strlen(tail), tail, strlen(tail));
		for (size_t off = 0; off < bytes;) {
			ssize_t n = write(1, pad + off, bytes - off);
			if (n <= 0) {
				free(pad);
				return 0; /* the daemon hung up */
			}
			off += (size_t)n;
		}
		memset(pad, 'a', len);
		memset(pad + bytes - strlen(tail), 'a', strlen(tail));
	}
	free(pad);
	return 0;
}

struct wait {
	bool done;
	size_t pad_len;  /* of the answer's result, 0: none */
	char error[512]; /* the failure's message, "" when none */
	uint64_t cpu_ns; /* at the answer */
};

static void
answered(void *arg, const struct peer_answer *a)
{
	struct wait *w = arg;
	json_object *pad;

	w->cpu_ns = bench_cpu_ns();
	w->done = true;
	if (a->err != NULL)
		snprintf(w->error, sizeof(w->error), "%s", a->err->message);
	else if (json_object_object_get_ex(a->result, "pad", &pad))
		w->pad_len = (size_t)json_object_get_string_len(pad);
}

/* One request for a reply of bytes: its CPU ns, the answer in *w. */
static uint64_t
one(struct event_base *base, struct peers *ps, size_t bytes, struct wait *w)
{
	json_object *args = json_object_new_object();
	struct nm_error err;
	uint64_t cpu0;

	memset(w, 0, sizeof(*w));
	json_add_uint(args, "bytes", bytes);
	cpu0 = bench_cpu_ns();
	if (peer_call(ps, "fake", "hello", args, 60000, answered, w, &err) < 0) {
		fprintf(stderr, "bench-peer: %s\n", err.message);
		exit(1);
	}
	json_object_put(args);
	while (!w->done)
		event_base_loop(base, EVLOOP_ONCE);
	return w->cpu_ns - cpu0;
}

int
main(int argc, char **argv)
{
	unsigned rounds = 7, nsizes = 0, mib[MAX_SIZES];
	uint64_t med[MAX_SIZES], *v;
	char self[4096];
	ssize_t n;
	struct config cfg;
	struct event_base *base;
	struct children *cs;
	struct peers *ps;
	struct nm_error err;
	struct wait w;
	int c, rc = 0;

	if (argc == 2 && strcmp(argv[1], "--serve") == 0)
		return serve();
	while ((c = getopt(argc, argv, "k:s:")) != -1) {
		if (c == 'k')
			rounds = (unsigned)atoi(optarg);
		else if (c == 's' && nsizes < MAX_SIZES)
			mib[nsizes++] = (unsigned)atoi(optarg);
		else {
			fprintf(stderr, "usage: bench-peer [-k ROUNDS] [-s MIB ...]\n");
			return 2;
		}
	}
	if (nsizes == 0) {
		mib[0] = 1;
		mib[1] = 4;
		mib[2] = 16;
		nsizes = 3;
	}
	if (rounds == 0)
		rounds = 1;
	log_init("bench-peer", LOG_TARGET_STDERR, LOG_LEVEL_WARN);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		perror("bench-peer: /proc/self/exe");
		return 1;
	}
	self[n] = '\0';
	config_defaults(&cfg);
	cfg.npeers = 1;
	cfg.peers = xcalloc(1, sizeof(*cfg.peers));
	cfg.peers[0].name = xstrdup("fake");
	cfg.peers[0].command = xcalloc(3, sizeof(char *));
	cfg.peers[0].command[0] = xstrdup(self);
	cfg.peers[0].command[1] = xstrdup("--serve");
	base = event_base_new();
	if ((cs = child_init(base, &err)) == NULL) {
		fprintf(stderr, "bench-peer: %s\n", err.message);
		return 1;
	}
	ps = peer_init(base, cs, &cfg);
	one(base, ps, 100, &w); /* the transport starts */
	v = xcalloc(rounds, sizeof(*v));
	printf("peer reply read (peer.c), CPU time of the process from the request to the answer,\n"
	       "median of %u rounds:\n",
	       rounds);
	for (unsigned s = 0; s < nsizes; s++) {
		size_t bytes = (size_t)mib[s] * MIB;
		size_t head = strlen("{\"id\":NN,\"ok\":true,\"result\":{\"pad\":\"\"}}\n");
		for (unsigned r = 0; r < rounds; r++) {
			v[r] = one(base, ps, bytes, &w);
			/* The id's digits vary: the pad is the reply less its frame. */
			if (w.error[0] || w.pad_len + head < bytes - 8 ||
			    w.pad_len + head > bytes + 8) {
				fprintf(stderr,
				        "bench-peer: %u MiB: wrong answer (%zu bytes of pad%s%s)\n",
				        mib[s], w.pad_len, w.error[0] ? ", " : "", w.error);
				rc = 1;
			}
		}
		med[s] = bench_median(v, rounds);
		printf("  %4u MiB  %9.2f ms CPU  %6.2f ns/byte", mib[s], med[s] / 1e6,
		       (double)med[s] / (double)bytes);
		if (s > 0)
			printf("  %5.2fx the %u MiB one (size %ux)",
			       (double)med[s] / (double)med[s - 1], mib[s - 1],
			       mib[s] / (mib[s - 1] ? mib[s - 1] : 1));
		printf("\n");
	}
	for (unsigned s = 1; s < nsizes; s++) {
		double size_x = (double)mib[s] / (double)mib[s - 1];
		double cost_x = (double)med[s] / (double)med[s - 1];
		if (mib[s - 1] >= 4 && cost_x > 1.5 * size_x) {
			printf("  MISSED: %u MiB costs %.2fx the %u MiB one, target <= %.1fx\n",
			       mib[s], cost_x, mib[s - 1], 1.5 * size_x);
			rc = 1;
		}
	}
	printf("  target: cost in proportion to the size (<= 1.5x the size ratio from 4 MiB)\n");
	{
		uint64_t ns = one(base, ps, OVER_LIMIT, &w);
		bool named = strstr(w.error, "64 MiB (67108864 bytes)") != NULL;
		printf("  %u bytes: %s after %.2f ms CPU%s%s\n", OVER_LIMIT,
		       named ? "refused at the limit" : "NOT refused at the limit", ns / 1e6,
		       w.error[0] ? ": " : "", w.error);
		if (!named)
			rc = 1;
	}
	free(v);
	peer_free(ps);
	child_fini(cs);
	event_base_free(base);
	config_free(&cfg);
	return rc;
}
