/* cpuutil.h: CPU time by mode (the columns of /proc/stat) turned into utilisation, the one
 * rule the cpu view and the report share: guest time is already part of user time, busy is
 * everything but idle and iowait. */
#ifndef NM_CPUUTIL_H
#define NM_CPUUTIL_H

#include <json-c/json.h>

#define CPUUTIL_NMODES 10
#define CPUUTIL_IDLE   3 /* index of "idle" in cpuutil_modes */
#define CPUUTIL_IOWAIT 4

/* "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest",
 * "guest_nice": the order of /proc/stat and of the cpu.<C>.<mode> series. */
extern const char *const cpuutil_modes[CPUUTIL_NMODES];

/* The mode's index in cpuutil_modes, or -1. */
int cpuutil_mode_index(const char *mode);

/* Busy seconds of a CPU (or a sum of CPUs) from its seconds per mode. */
double cpuutil_busy(const double secs[CPUUTIL_NMODES]);

/* The share of each mode in %, "busy" in % and "busy_cpus" (busy seconds per second of
 * span) as a new object. */
json_object *cpuutil_json(const double secs[CPUUTIL_NMODES], double span);

#endif
