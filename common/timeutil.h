/* timeutil.h: clocks and time formatting. */
#ifndef NM_TIMEUTIL_H
#define NM_TIMEUTIL_H

#include <stddef.h>
#include <stdint.h>

/* CLOCK_MONOTONIC and CLOCK_REALTIME in nanoseconds. */
uint64_t time_mono_ns(void);
uint64_t time_real_ns(void);
/* Format a realtime ns value as RFC 3339 UTC with milliseconds: "2026-11-29T23:52:40.123Z". */
void time_format_rfc3339(uint64_t real_ns, char *buf, size_t size);
/* Format a duration as "1h02m03s", "4.25s", "12ms". */
void time_format_duration(uint64_t ns, char *buf, size_t size);

#endif
