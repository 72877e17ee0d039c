/* compare-hosts.h: two multi-host results (or sets of them) host by host: each host's
 * report (hosts.NAME) against the other side's report of the host of that name, the
 * cross-host figures pair by pair, and what one side has and the other lacks (a host, a
 * device, a sender/receiver pair) listed as missing rather than compared with 0. */
#ifndef NM_COMPARE_HOSTS_H
#define NM_COMPARE_HOSTS_H

#include <json-c/json.h>
#include <stddef.h>

/* A comparison of reports (compare_results or compare_summary). */
typedef json_object *(*compare_hosts_fn)(json_object *const *, size_t, json_object *const *,
                                         size_t);

/* When a result of a[0..na) or b[0..nb) has "hosts", add to out:
 *   "hosts": {NAME: comparison, ...}   (cmpf of the reports of NAME, each side's results
 *                                       that have it; a device of figures.devices on one
 *                                       side only has no figures there, it is in the
 *                                       comparison's "missing": [{"device": D, "in": S}],
 *                                       S the side that has it)
 *   "hosts_missing": [{"host": NAME, "in": S}, ...]  (a host on one side only)
 *   "cross": {"figures": [...], "missing": [{"pair": "SND>RCV", "in": S}]}
 *                                      (compare_results of the "cross" entries, each
 *                                       figure "SND>RCV.FIELD")
 * in the order the hosts first appear (a's results first). Nothing when no result has
 * hosts. */
void compare_hosts_add(json_object *out, json_object *const *a, size_t na, json_object *const *b,
                       size_t nb, compare_hosts_fn cmpf);

#endif
