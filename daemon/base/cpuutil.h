/* cpuutil.h: CPU time by mode (the columns of /proc/stat) turned into utilisation, the rules
 * the cpu source, the cpu view and the report share. They follow sysstat's mpstat
 * (rd_stats.c get_per_cpu_interval, mpstat.c get_global_cpu_mpstats and
 * write_plain_cpu_stats), written anew here:
 *
 *  - the kernel counts guest time in user and guest_nice in nice: the increments the cpu
 *    source records for "user" exclude "guest" and those for "nice" exclude "guest_nice", so
 *    that the ten modes are disjoint and their sum is the CPU's time: the kernel's total
 *    (user + nice + system + idle + iowait + irq + softirq + steal), nothing counted twice
 *    and nothing lost. Where guest grew more than user (the kernel reads the two at
 *    different moments, so a tick may show in guest before user) user's increment is 0
 *    and guest counts only what user grew; the rest of guest counts once user has caught
 *    up. mpstat keeps guest's whole increment there ("ishift") and counts it again in user
 *    later: its sum then passes the kernel's total. This is the one place the figures
 *    differ from mpstat's, for one interval, by the ticks of the lead.
 *  - no field that goes down resets the CPU: iowait that falls while idle rises is iowait
 *    tracking moving time to idle (iowait's increment is 0); idle that falls, or iowait that
 *    falls while idle does not rise, is a CPU back online: that field restarts from 0 (its
 *    increment is its new value) while user, nice, system... carry on. Any other field that
 *    falls adds 0.
 *  - an offline CPU stands in with its last reading: while offline it adds nothing, back
 *    online it adds what it did since (cpuutil_step against the stand-in).
 *  - "all" is the sum of the CPUs' increments, never the kernel's aggregate "cpu" line (which
 *    leaves offline CPUs out, so it goes backwards when one goes offline). Where one CPU's
 *    guest outgrew its user, mpstat's "all" row subtracts the summed guest from the summed
 *    user and no longer adds up to 100 %; the sum of the corrected increments here does.
 *  - a CPU online in a span with no ticks in it was 100 % idle (NO_HZ); every percentage is
 *    within 0-100 and the ten add up to 100. */
#ifndef NM_CPUUTIL_H
#define NM_CPUUTIL_H

#include <json-c/json.h>
#include <stdint.h>

#define CPUUTIL_NMODES     10
#define CPUUTIL_USER       0 /* indexes in cpuutil_modes */
#define CPUUTIL_NICE       1
#define CPUUTIL_SYSTEM     2
#define CPUUTIL_IDLE       3
#define CPUUTIL_IOWAIT     4
#define CPUUTIL_GUEST      8
#define CPUUTIL_GUEST_NICE 9

/* "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest",
 * "guest_nice": the order of /proc/stat and of the cpu.<C>.<mode> series. */
extern const char *const cpuutil_modes[CPUUTIL_NMODES];

/* The mode's index in cpuutil_modes, or -1. */
int cpuutil_mode_index(const char *mode);

/* The increments of one CPU from reading prev to reading cur (ticks, /proc/stat order; the
 * modes a line lacks are 0 in both), by the rules above: d[CPUUTIL_USER] excludes guest,
 * d[CPUUTIL_NICE] guest_nice; the sum of d is the CPU's time over the interval. prev becomes
 * the reading to step from next time: cur, with guest (guest_nice) less what was not
 * counted yet. */
void cpuutil_step(uint64_t prev[CPUUTIL_NMODES], const uint64_t cur[CPUUTIL_NMODES],
                  uint64_t d[CPUUTIL_NMODES]);
/* The values a CPU first seen at cur is counted from: cur with guest taken out of user and
 * guest_nice out of nice (guest counted at most up to user, guest_nice up to nice), and in
 * kept the reading to step from next (cur, guest less what was not counted). */
void cpuutil_base(const uint64_t cur[CPUUTIL_NMODES], uint64_t base[CPUUTIL_NMODES],
                  uint64_t kept[CPUUTIL_NMODES]);

/* The time the modes cover: their sum (they are disjoint). */
double cpuutil_total(const double secs[CPUUTIL_NMODES]);
/* Busy seconds of a CPU (or a sum of CPUs) from its seconds per mode: all but idle and
 * iowait. */
double cpuutil_busy(const double secs[CPUUTIL_NMODES]);

/* The share of each mode in %, "busy" in % and "busy_cpus" (busy seconds per second of
 * span, at most the busy share of the ncpus CPUs whose seconds secs sums; 0: not known) as
 * a new object. No time at all is 100 % idle. */
json_object *cpuutil_json(const double secs[CPUUTIL_NMODES], double span, unsigned ncpus);

#endif
