/* report-bpf.h: a window's "bpf" figure (report.c adds it): what the bpf source's programs
 * saw between the window's edges, and what they cost meanwhile. */
#ifndef NM_REPORT_BPF_H
#define NM_REPORT_BPF_H

#include <json-c/json.h>

#include "snapshot.h"
#include "series.h"

/* The figure of the window [a, b] from the bpf source's series of reg, or NULL when there are
 * none (the source off, or not built). Its members, each left out when it has nothing:
 *   "softirq_time": {"cpus": [{"cpu": C, "pct": {TYPE: % of the CPU's time}}],
 *                    "total_s": {TYPE: seconds, over every CPU}}
 *   "drops": {"reasons": {REASON: packets}, "devices": {DEV: {REASON: packets}}}
 *   "napi": [{"id", "device", "polls", "packets", "exhausted", "packets_per_poll"}]
 *   "programs": {PROG: {"runs", "run_time_ns", "ns_per_run", "cpu_pct"}}: the programs' own
 *                cost in the window (cpu_pct: their run time against one CPU's span)
 * New reference. */
json_object *report_bpf_json(const struct series_registry *reg, const struct snapshot *a,
                             const struct snapshot *b);

#endif
