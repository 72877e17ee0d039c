/* peer-window.h: windows on several hosts at once. mark-start NAME --peer P... samples here
 * and sends P's daemon its mark-start at the same moment (after a round trip to each peer
 * that checks it can be reached: an unreachable peer refuses the whole start); mark-stop
 * NAME does the same at the end edge, waits for the peers' reports (or their deadline) and
 * stores one result: each host's report under hosts.<name> (this host under its hostname),
 * the edges with every host's clock time and round trip, the skew, and cross-host figures.
 * A peer lost on the way leaves its part marked incomplete with the reason. The list of
 * multi-host windows lives in memory: after a restart their stop is a local one. */
#ifndef NM_PEER_WINDOW_H
#define NM_PEER_WINDOW_H

#include <json-c/json.h>
#include <stdbool.h>

struct cmd_ctx;
struct daemon;
struct nm_error;
struct peerwins;

#define PEERWIN_HELLO_MS 10000 /* a peer's first answer (its transport starts) */
#define PEERWIN_EDGE_MS  10000 /* a peer's mark-start */
#define PEERWIN_STOP_MS  30000 /* a peer's mark-stop: its result is made durable first */

struct peerwins *peerwin_init(struct daemon *d);
void peerwin_free(struct peerwins *pw);
/* Is name a multi-host window (open here, its peers' windows open)? */
bool peerwin_has(const struct peerwins *pw, const char *name);
/* mark-start name on this host and on peers (a JSON array of configured peer names): the
 * reply is deferred (ctx->deferred) when ctx has a client. 0, or -1 with err. */
int peerwin_start(struct peerwins *pw, struct cmd_ctx *ctx, const char *name, json_object *peers,
                  json_object **result, struct nm_error *err);
/* mark-stop name (a multi-host window) with the report options in args; deferred. */
int peerwin_stop(struct peerwins *pw, struct cmd_ctx *ctx, const char *name, json_object *args,
                 json_object **result, struct nm_error *err);
/* Cross-host figures of hosts (name -> report): for each host's busiest sending device,
 * the busiest receiving device of every other host, packets and bytes on both ends, loss
 * and throughput at both ends (new reference; exported for its unit test). */
json_object *peerwin_cross(json_object *hosts);

#endif
