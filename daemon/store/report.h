/* report.h: every figure the shell kit produced for a measurement window, computed from the
 * window's two edge snapshots: per-queue rates and CPU-set sums, CPU utilisation, IPIs and
 * interrupts, NET_RX/NET_TX softirqs and packets per NET_RX, device packets and drops,
 * softnet drops and squeezes, TCP segments and retransmits, configured sysctl counters and
 * lnstat deltas. The result is a JSON object that is stored as the window's result. */
#ifndef NM_REPORT_H
#define NM_REPORT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "cpulist.h"
#include "snapshot.h"

struct sampler;
struct nm_error;

#define REPORT_MAX_CPUSETS 16
#define REPORT_MAX_TCPEXT  32

struct report_cpuset {
	char name[32]; /* "expected" */
	struct cpuset set;
	char list[256]; /* as given, for the output */
};

struct report_opts {
	struct report_cpuset cpusets[REPORT_MAX_CPUSETS]; /* --cpus NAME=LIST, in order */
	size_t ncpusets;
	double min_queue_rate; /* queues below this many packets/s are left out (still summed) */
	const char *const *tcpext; /* extra TcpExt fields to report (NULL-terminated or NULL) */
	const char *device; /* limit device figures to this device (NULL: all with traffic) */
	/* storage for tcpext when the caller has no array of its own */
	const char *tcpext_buf[REPORT_MAX_TCPEXT + 1];
};

/* Build the report of the window [a, b] (b taken after a) with the sampler's registry and
 * its interrupts and queues sources for the IRQ/queue joins. Returns a new object:
 *   {"window": {...filled by the caller...}, "span_s": S, "figures": {GROUP: {...}}}
 * or NULL with err. The layout of "figures" is documented in proto/PROTOCOL.md (report). */
json_object *report_build(struct sampler *s, const struct snapshot *a, const struct snapshot *b,
                          const struct report_opts *opts, struct nm_error *err);

/* Parse "NAME=LIST" into opts->cpusets (LIST a CPU list or hex mask). 0 ok, -1 with err. */
int report_parse_cpuset(struct report_opts *opts, const char *arg, struct nm_error *err);

#endif
