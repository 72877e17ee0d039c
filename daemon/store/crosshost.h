/* crosshost.h: the hosts of a multi-host result put together (peer-window.c gathers them):
 * each peer's report checked before any arithmetic on it (a peer is another machine's
 * daemon: its numbers are input, not ours), and the cross-host figures: each host's busiest
 * sending device against every other host's busiest receiving device, with the loss
 * between them bounded by what the link moved while the two hosts' edges were apart. Pure
 * functions of JSON: the fuzz harness (tests/fuzz/fuzz-peer.c) and compare-hosts.c use
 * them as the daemon does. */
#ifndef NM_CROSSHOST_H
#define NM_CROSSHOST_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

/* The largest count a peer's report may hold (and the largest magnitude of any of its
 * numbers): a 64-bit counter that moved more in one window is nonsense, and counts below
 * it can be added and subtracted without overflow. */
#define CROSSHOST_COUNT_MAX (INT64_C(1) << 62)

/* Check a peer's report before anything is computed from it: every number finite and at
 * most CROSSHOST_COUNT_MAX in magnitude; the devices' figures (counts and rates), the
 * window's span and edge times not negative. 0, or -1 with why (the first number that
 * is not, by its path) filled. */
int crosshost_check_report(json_object *report, char *why, size_t size);

/* Check peer's edge times in edges (a multi-host result's "edges": start and stop, each
 * with peers.NAME.real_ns and skew_ms): real_ns in [1, CROSSHOST_COUNT_MAX], skew_ms
 * finite. An edge without that peer (its answer failed) is not checked. 0, or -1 with
 * why. */
int crosshost_check_edges(json_object *edges, const char *peer, char *why, size_t size);

/* The multi-host members of a result, into extra: "hosts" (parts' entries, the local host
 * as null for window.c to fill in), "local_host", "edges" (a new reference taken),
 * "peers_incomplete" (peer -> reason) and "cross". parts maps each peer to its report, or
 * to {"complete": false, "reason": R} when its part failed on the way; a report that does
 * not pass crosshost_check_report or crosshost_check_edges is replaced by such an entry
 * with the reason. local is this host's report (may be NULL: no cross figures of it). */
void crosshost_assemble(json_object *extra, const char *local_host, json_object *local,
                        json_object *parts, json_object *edges);

/* The cross-host figures of reports (host name -> checked report), with edges and
 * local_host for the time between each pair's edges (new reference): an array of
 *   {"sender", "sender_device", "receiver", "receiver_device", "tx_packets", "tx_bytes",
 *    "rx_packets", "rx_bytes", "tx_minus_rx_packets" (what the counters say, may be
 *    negative), "edge_gap_ms": {"start", "stop"}, "loss_bound_packets", "loss_state",
 *    "lost_packets", "loss_ratio", "bytes_ratio", "tx_bits_per_s", "rx_bits_per_s"}
 * (see crosshost_bound_loss). */
json_object *crosshost_cross(json_object *reports, json_object *edges, const char *local_host);

/* The loss members of a cross entry from its tx_packets and rx_packets, pps (the link's
 * packets per second) and the time between the two hosts' reads at each edge (ms; < 0:
 * unknown, taken as 0). The counters were read that far apart, so tx - rx is only known
 * to within the packets the link moved meanwhile: loss_bound_packets = ceil(pps x (start
 * + stop gap)). loss_state: "lost" when tx - rx is above the bound (lost_packets = tx -
 * rx), "within_skew" when it is within +-bound (lost_packets 0), "more_received" when rx
 * passes tx by more (other traffic reaches the receiver; lost_packets 0). lost_packets is
 * never negative; loss_ratio = lost_packets / tx_packets. */
void crosshost_bound_loss(json_object *entry, double pps, double gap_start_ms, double gap_stop_ms);

/* The time between hosts a's and b's reads at edge (an edge object of "edges"), in ms:
 * the smaller of the difference of their skews (what their clocks say) and the sum of
 * their round trips (a peer took its edge while its request was out, whatever its clock
 * says); local_host has skew and round trip 0. -1 when a host has no time there. */
double crosshost_edge_gap_ms(json_object *edge, const char *local_host, const char *a,
                             const char *b);

#endif
