/* compare.h: one result (or a set of results: iterations) against another, figure by
 * figure: each side's mean (with min, max and sample standard deviation when a side has
 * several results), the absolute and % change, and whether higher or lower is better. */
#ifndef NM_COMPARE_H
#define NM_COMPARE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#define COMPARE_MAX_RESULTS  256  /* results on one side */
#define COMPARE_ALPHA        0.05 /* Welch's p below this: "significant" */
#define COMPARE_SUMMARY_ARFS 4    /* aRFS counters in a summary */
/* Windows whose lengths (the sides' mean span_s) differ by more than this % of the longer
 * get no verdict on their totals: a count over 28 s against one over 15 s says nothing
 * about better or worse; their per-second figures are judged instead. */
#define COMPARE_SPAN_TOLERANCE_PCT 5.0

/* What kind of figure a path names: its unit ("packets/s", "%", "" when none) and which
 * way is better ("higher", "lower", or NULL when it depends on the load). Never NULL
 * unit. */
void compare_figure_kind(const char *path, const char **unit, const char **better);

/* Is the figure at path one whose distribution over runs is skewed, a latency or a
 * percentile ("latency" or "percentile" in its name, or a word pNN: p50, p99, p999 between
 * '.' or '_'), so that a rank test judges it (stats_mann_whitney) rather than Welch's t? */
bool compare_skewed_figure(const char *path);

/* Flatten a result's "figures" (and its "span_s") to paths: "tcp.retrans_segs",
 * "queues.ratio.by_irq_cpu", "queues.devices.eth0.queues.7.rx_pps" (array elements are
 * named by their name/device/line/queue/cpu member). fn gets each numeric leaf; v is NAN
 * for a null (a ratio with nothing to divide by). */
void compare_flatten(json_object *result, void (*fn)(const char *path, double v, void *arg),
                     void *arg);

/* Compare a[0..na) with b[0..nb) (results as the results store keeps them; na, nb >= 1).
 * Returns a new object:
 *   {"a": {"n": na}, "b": {"n": nb},
 *    "figures": [{"figure": PATH, "unit": U, "better": "higher"|"lower"|null,
 *                 "a": {"mean": M[, "min", "max", "stddev", "n"]}, "b": {...},
 *                 "change": B-A, "change_pct": %}, ...]}
 * in the order the figures first appear (a's results first). A figure that a result
 * leaves out counts as 0 there (reports leave out what did not move), except shares and
 * ratios (%, ratio, per packet), which count as missing; null values count as missing.
 * "change_pct" is null when A's mean is 0 and B's is not. "verdict" says the change in
 * words: "better", "worse", "same", or null when the figure has no better direction. With
 * several results a side, each side has "ci95_low"/"ci95_high" (the 95 % confidence
 * interval of its mean, Student's t; null with fewer than 2 values) and, when both sides
 * have 2 values or more, the figure has Welch's "t", "df", "p" and "significance":
 * "significant" (p < COMPARE_ALPHA) or "within noise" (stats.h).
 * When every result has a span (span_s, else window.duration_s), the object has
 *   "windows": {"a_span_s", "b_span_s" (each side's mean), "difference_pct" (of the longer),
 *               "tolerance_pct": COMPARE_SPAN_TOLERANCE_PCT, "totals_judged": bool,
 *               "reason" (when not)}
 * and when the totals are not judged, each total with a better direction (a count over the
 * window: not a level, share, ratio or rate) has "verdict": null, "unjudged": the reason,
 * and "per_s": {"a": {"mean"}, "b": {"mean"}, "change", "change_pct", "verdict"}: each
 * result's value over its own span, compared as above. */
json_object *compare_results(json_object *const *a, size_t na, json_object *const *b, size_t nb);

/* The kit's rows of a result, as compare_flatten gives figures: summary.queue_packets.SET
 * (rx + tx packets by IRQ CPU of the first two CPU sets), cpu.all.busy,
 * interrupts.ipi_all_per_s, summary.packets_sent, summary.packets_received,
 * summary.packets_dropped (the devices' rx and tx drops and softnet's), tcp.retrans_segs,
 * summary.softirqs (NET_RX + NET_TX) and up to COMPARE_SUMMARY_ARFS sysctl counters with
 * "arfs" in their name. A row whose figures the result lacks is left out. */
void compare_summary_flatten(json_object *result, void (*fn)(const char *path, double v, void *arg),
                             void *arg);

/* compare_results over the summary's rows only; the object has "summary": true. */
json_object *compare_summary(json_object *const *a, size_t na, json_object *const *b, size_t nb);

#endif
