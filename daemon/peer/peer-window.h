/* peer-window.h: windows on several hosts at once. The edges of a window are sent to its
 * peers (mark-start, mark-stop to their daemons) at the moment this host takes its own,
 * after a round trip to each peer (hello) that checks it can be reached: an unreachable
 * peer refuses the start. Each edge records every host's clock time and the round trip,
 * so the skew is known. At the end the peers' reports are gathered into the local result:
 * each host's report under hosts.<name> (this host under its hostname), the edges, the
 * skew, and cross-host figures; a peer lost on the way leaves its part marked incomplete
 * with the reason. mark-start/mark-stop --peer (cmd-mark-*.c) and test-start --peer (the
 * runner, at warm-up and cool-down) use it. The multi-host windows live in memory: after a
 * restart their stop is a local one. */
#ifndef NM_PEER_WINDOW_H
#define NM_PEER_WINDOW_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "peer.h"

struct daemon;
struct nm_error;
struct peerwins;

#define PEERWIN_HELLO_MS 10000 /* a peer's first answer (its transport starts) */
#define PEERWIN_EDGE_MS  10000 /* a peer's mark-start */
#define PEERWIN_STOP_MS  30000 /* a peer's mark-stop: its result is made durable first */

struct peerwins *peerwin_init(struct daemon *d);
/* The daemon pw belongs to. */
struct daemon *peerwin_daemon(const struct peerwins *pw);
void peerwin_free(struct peerwins *pw);
/* Is name a multi-host window? Is its stop edge sent (it is being stopped)? */
bool peerwin_has(const struct peerwins *pw, const char *name);
bool peerwin_stopping(const struct peerwins *pw, const char *name);

/* How the windows reach their peers: by default peer_call and peer_check_names on the
 * daemon's configured peers (peer.h, same contracts); a unit test gives fake peers here. */
struct peerwin_transport {
	int (*call)(void *ctx, const char *peer, const char *cmd, json_object *args,
	            unsigned deadline_ms, peer_done_fn done, void *arg, struct nm_error *err);
	int (*check_names)(void *ctx, json_object *names, struct nm_error *err);
	void *ctx;
};
/* Reach the peers through t (copied) instead of the daemon's transports. */
void peerwin_set_transport(struct peerwins *pw, const struct peerwin_transport *t);

/* A round trip to each of peers (a JSON array of names, checked: configured, none twice):
 * done(arg, NULL) when every one answered, done(arg, err) naming the first that did not.
 * 0, or -1 with err at once (done does not run). */
typedef void (*peerwin_fn)(void *arg, const struct nm_error *err);
int peerwin_hello(struct peerwins *pw, json_object *peers, peerwin_fn done, void *arg,
                  struct nm_error *err);
/* The start edge: mark-start name goes to every peer now; the caller opens its own window
 * right after and gives its start time (CLOCK_REALTIME ns) with peerwin_local_edge. */
void peerwin_edge_start(struct peerwins *pw, const char *name, json_object *peers);
/* The stop edge: mark-stop name goes to the window's peers whose start answered; the
 * caller freezes its end edge right after (peerwin_local_edge). A second call is a no-op. */
void peerwin_edge_stop(struct peerwins *pw, const char *name);
void peerwin_local_edge(struct peerwins *pw, const char *name, uint64_t real_ns);
/* done(arg, NULL) once no peer answer is awaited (at once when none is). */
void peerwin_when_answered(struct peerwins *pw, const char *name, peerwin_fn done, void *arg);
/* The start edge's outcome for a reply: per peer open or incomplete, the edge, the skew
 * (new reference). */
json_object *peerwin_start_json(struct peerwins *pw, const char *name);
/* Add the multi-host members to the extra of window_stop (hosts, edges, skew, cross,
 * peers_incomplete; crosshost.h: a peer's report out of range is refused there, its host
 * incomplete with the reason) and forget the window. local is this host's live report
 * (for the cross figures; may be NULL). */
void peerwin_finish(struct peerwins *pw, const char *name, json_object *local, json_object *extra);
/* Forget a window (its local start failed). */
void peerwin_forget(struct peerwins *pw, const char *name);

/* The benchmark's server on a peer, server_argv (NULL-terminated: the driver's, as the run
 * layer knows it: netserver -D for netperf, iperf3 -s for iperf3), started through the
 * peer's daemon as an exec test named TEST.server; when one listens already, the new one
 * cannot bind and ends, and the one there serves. done(arg, NULL) runs once the peer
 * answered (or failed: the benchmark then says it cannot connect) and the server had
 * PEERWIN_SERVER_MS to bind. 0, or -1 with err (no server_argv, unknown peer) and done does
 * not run. */
#define PEERWIN_SERVER_MS 300
int peerwin_server_start(struct peerwins *pw, const char *peer, const char *test,
                         const char *const *server_argv, peerwin_fn done, void *arg,
                         struct nm_error *err);
/* Stop the server peerwin_server_start started (test-stop TEST.server on the peer). */
void peerwin_server_stop(struct peerwins *pw, const char *peer, const char *test);

#endif
