/* tuning.h: the host's tuning a result keeps beside its figures, read when its window
 * closes, so that compare can say when a tuning could not have taken effect (RFS flow
 * counts with rps_sock_flow_entries 0, RPS masks on a device without RPS, XPS on one tx
 * queue). */
#ifndef NM_TUNING_H
#define NM_TUNING_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#define TUNING_MAX_DEVICES    4  /* devices of one result whose queues are read */
#define TUNING_MAX_CANDIDATES 64 /* devices of a report ranked for that */

/* The tuning on the host below root of the applied profile's device and of the devices
 * that moved most in report's figures (its "devices" and "queues.devices", by rx + tx
 * packets, loopback left out; at most TUNING_MAX_DEVICES in all), and the profile
 * state_dir records as applied:
 *   {"rps_sock_flow_entries": N|null,
 *    "profile": {"name", "device", "kinds": what it turned on: ["sysctl", "flow_cnt",
 *                "rps", "xps", ...]} | null (profile_state_applied_brief),
 *    "devices": [{"name", "rx_queues", "tx_queues",
 *                 "rps_queues": rx queues with a non-empty rps_cpus (null: no rps_cpus),
 *                 "flow_cnt": the sum of rps_flow_cnt (null: none),
 *                 "xps_queues": tx queues with a non-empty xps_cpus (null: no xps_cpus)}]}
 * Never NULL (a new object); what cannot be read is null or left out. */
json_object *tuning_read(const char *root, const char *state_dir, json_object *report);

/* The devices' entries of tuning_read's "devices" for each of devs[0..n) that exists below
 * root (an array, in that order; never NULL), and in *irqbalance whether a process named
 * irqbalance runs (profile_host_irqbalance). */
json_object *tuning_devices_read(const char *root, const char *const *devs, size_t n,
                                 bool *irqbalance);

/* The values the applied profile wrote, read now below root ({"profile", "device",
 * "time", "values": {PATH: value|null}}: profile_state_values), or NULL when none is
 * applied. A window reads it at its open and at its close. */
json_object *tuning_knobs_read(const char *root, const char *state_dir);
/* Add to tuning "knobs": {"open": the record at the window's open or null, "close": at its
 * close or null, "profile_changed": BOOL (applied, reverted or another applied between the
 * edges; null when the open edge was not read: have_open false, a window recovered after a
 * restart), "changed": [{"path", "open", "close"}: a value the profile set that differs
 * between the edges (someone changed it during the window)]}. open and close are
 * borrowed (references taken). */
void tuning_knobs_edges(json_object *tuning, bool have_open, json_object *open, json_object *close);

#endif
