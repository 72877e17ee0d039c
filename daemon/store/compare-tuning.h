/* compare-tuning.h: warnings of a comparison when a tuning one of its sides relied on
 * could not have taken effect, from the tuning each result recorded (tuning.h). */
#ifndef NM_COMPARE_TUNING_H
#define NM_COMPARE_TUNING_H

#include <json-c/json.h>
#include <stddef.h>

/* The warnings of a[0..na) against b[0..nb): a new array of
 *   {"code": "rfs_inactive"|"rps_inactive"|"xps_one_queue", "side": "A"|"B",
 *    "results": K, "of": N, "message": TEXT}
 * one per side and code, K of the side's N results affected; the message is the first
 * affected result's. A result without "tuning" says nothing.
 *   - rfs_inactive: RFS was asked for (a device has rps_flow_cnt, the applied profile
 *     set flow counts, or the test's profile variables name rfs or flow) while
 *     rps_sock_flow_entries is 0: the kernel steers no flow;
 *   - rps_inactive: the applied profile turned RPS masks on, but its device has no
 *     rps_cpus (a kernel without RPS) or every mask is empty;
 *   - xps_one_queue: the applied profile turned XPS masks on for a device with one tx
 *     queue. */
json_object *compare_tuning_warnings(json_object *const *a, size_t na, json_object *const *b,
                                     size_t nb);

#endif
