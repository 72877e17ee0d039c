/* peer.h: the other hosts' daemons, as the administrator configured them ([peer NAME] in
 * netmetricsd.conf): a transport process each (an argv run without a shell, or ssh to the
 * host running netmetricsctl proxy there), started through the child mechanism (child.h;
 * with privilege separation, by the privileged process), spoken to over its stdin and
 * stdout as JSON lines with request ids, on non-blocking bufferevents. The transport
 * starts at first use and again at the next use after it ended; every request has a
 * deadline, after which it fails and the transport is killed (its state is unknown); the
 * transports are killed and reaped at the end. A client names peers, never commands or
 * hosts: only configured peers can be reached. */
#ifndef NM_PEER_H
#define NM_PEER_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct children;
struct config;
struct event_base;
struct nm_error;
struct peers;

/* A reply is read in linear time and bounded: at most PEER_REPLY_MAX bytes from a transport
 * between two answers (the reply line and any lines before it that answer no request), at
 * most PEER_STRAY_MAX such lines, PEER_READ_MAX bytes taken a turn of the loop. Past a limit
 * the requests in flight fail naming it and the transport is stopped. */
#define PEER_REPLY_MAX  (64u << 20)  /* bytes of one reply line from a peer */
#define PEER_STRAY_MAX  1000u        /* lines that answer no request, between two answers */
#define PEER_READ_MAX   (256u << 10) /* bytes read from a transport a callback */
#define PEER_STDERR_WHY 200          /* bytes of a transport's last words in a reason */

/* The outcome of one request: result (borrowed, valid during the call) when the peer said
 * yes, else err (a refusal by the peer's daemon, or the transport's failure, naming the
 * peer). sent_ns and recv_ns are this host's CLOCK_REALTIME at the send and the answer. */
struct peer_answer {
	const char *peer;
	json_object *result;
	const struct nm_error *err;
	uint64_t sent_ns, recv_ns;
};
typedef void (*peer_done_fn)(void *arg, const struct peer_answer *a);

/* The peers of cfg, their transports started through cs on base. Never NULL. */
struct peers *peer_init(struct event_base *base, struct children *cs, const struct config *cfg);
/* A new configuration (reload): peers gone or changed lose their transport (requests in
 * flight fail), new ones are added. */
void peer_configure(struct peers *ps, const struct config *cfg);
/* Fail every request in flight (done runs with err), kill the transports, free. */
void peer_free(struct peers *ps);

/* Is name a configured peer? */
bool peer_known(const struct peers *ps, const char *name);
/* Check a list of peer names (a JSON array of strings, may be NULL): every one configured,
 * none twice. 0, or -1 with err (not_found naming it). */
int peer_check_names(const struct peers *ps, json_object *names, struct nm_error *err);
/* Send cmd with args (may be NULL) to the peer name, starting its transport when needed;
 * done(arg, answer) runs once, on the loop, when it answered, failed, or deadline_ms
 * passed (never before this returns). 0, or -1 with err (unknown peer, the transport
 * cannot start) and done does not run. */
int peer_call(struct peers *ps, const char *name, const char *cmd, json_object *args,
              unsigned deadline_ms, peer_done_fn done, void *arg, struct nm_error *err);
/* Peers and their transports' state, for status (new reference). */
json_object *peer_list_json(const struct peers *ps);

#endif
