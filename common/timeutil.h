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

/* Parse a duration: one or more NUMBER UNIT parts ("5m", "1m30s", "1.5h", "500ms"), units
 * ns, us, ms, s, m or min, h, d; a bare number (the whole text, no unit) counts in bare_ns
 * nanoseconds. A leading '-' negates when negative_ok. No spaces, exponents, inf or hex;
 * at most 4e18 ns (126 years: an epoch time in seconds fits) either way. 0, or -1 when s is not
 * such a duration. */
int time_parse_duration(const char *s, uint64_t bare_ns, int negative_ok, int64_t *out_ns);

#endif
