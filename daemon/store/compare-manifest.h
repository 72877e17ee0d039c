/* compare-manifest.h: the settings that differ between the two sides of a comparison, from
 * the manifests their results keep (manifest.h), and what that does to the figures: a
 * change put down to them ("cause"), and packet counts that are not comparable when an
 * offload that changes the size of packets differs. */
#ifndef NM_COMPARE_MANIFEST_H
#define NM_COMPARE_MANIFEST_H

#include <json-c/json.h>
#include <stddef.h>

#define COMPARE_CAUSE_NAMED 3 /* settings a cause of several names */

/* The settings of a[0..na) against b[0..nb). A side's value of a setting is its results'
 * (manifest_value) when they agree; when they do not, the setting is "varying" on that side
 * (the runs were not alike) and not a difference. Returns a new object:
 *   {"differences": [{"setting", "group", "a": V|null, "b": V|null}, ...] grouped
 *        (device, cpu, kernel, sysctl, host, benchmark, then any other), by name within,
 *    "varying": [{"side": "A"|"B", "setting", "values": [V, ...]}, ...],
 *    "size_offloads": short names of the differing offloads that change packet sizes
 *        (manifest_is_size_offload), sorted, once each,
 *    "cause": "after SETTING changed from X to Y" (exactly one difference),
 *             "after N settings changed: S1 (X -> Y), ..." (several), or null (none),
 *    "without_manifest": results of either side that have none}
 * Results without a manifest say nothing; with no manifest on a side there are no
 * differences. */
json_object *compare_manifest(json_object *const *a, size_t na, json_object *const *b, size_t nb);

/* Is the figure path (of unit and better direction as compare_figure_kind gives them) a
 * packet count or a figure per packet, whose value depends on the size of packets: a
 * count of packets or segments, or a "per packet" figure, without a direction of its own
 * (drops and retransmits keep theirs)? */
int compare_manifest_packet_figure(const char *path, const char *unit, const char *better);

/* Apply settings (compare_manifest's object) to a comparison's figures: each figure that
 * changed for the better or the worse gets "cause"; with size offloads differing, each
 * packet figure gets "not_comparable": "not comparable: tso, gso differ" and no verdict. */
void compare_manifest_apply(json_object *settings, json_object *figures);

#endif
