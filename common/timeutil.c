/* timeutil.c: clocks and time formatting. */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "timeutil.h"

#define NS_PER_US  UINT64_C(1000)
#define NS_PER_MS  UINT64_C(1000000)
#define NS_PER_SEC UINT64_C(1000000000)

/* Read a clock in nanoseconds; the clocks used here can't fail on Linux. */
static uint64_t
time_read(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t
time_mono_ns(void)
{
	return time_read(CLOCK_MONOTONIC);
}

/* CLOCK_REALTIME in nanoseconds since the epoch. */
uint64_t
time_real_ns(void)
{
	return time_read(CLOCK_REALTIME);
}

/* Format a realtime value as RFC 3339 UTC with milliseconds, "2026-11-29T23:52:40.123Z". */
void
time_format_rfc3339(uint64_t real_ns, char *buf, size_t size)
{
	time_t secs = (time_t)(real_ns / NS_PER_SEC);
	unsigned ms = (unsigned)(real_ns % NS_PER_SEC / NS_PER_MS);
	struct tm tm;

	if (gmtime_r(&secs, &tm) == NULL) {
		snprintf(buf, size, "invalid");
		return;
	}
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900, tm.tm_mon + 1,
	         tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

/* Format a duration for people: "1h02m03s", "2m05s", "4.25s", "12ms", "7us", "5ns".
 * Smaller units are truncated, not rounded, so a value never shows as the next unit up. */
void
time_format_duration(uint64_t ns, char *buf, size_t size)
{
	uint64_t secs = ns / NS_PER_SEC;
	unsigned centis = (unsigned)(ns % NS_PER_SEC / (10 * NS_PER_MS));

	if (secs >= 3600)
		snprintf(buf, size, "%" PRIu64 "h%02um%02us", secs / 3600,
		         (unsigned)(secs % 3600 / 60), (unsigned)(secs % 60));
	else if (secs >= 60)
		snprintf(buf, size, "%" PRIu64 "m%02us", secs / 60, (unsigned)(secs % 60));
	else if (secs >= 1 && centis == 0)
		snprintf(buf, size, "%" PRIu64 "s", secs);
	else if (secs >= 1 && centis % 10 == 0)
		snprintf(buf, size, "%" PRIu64 ".%us", secs, centis / 10);
	else if (secs >= 1)
		snprintf(buf, size, "%" PRIu64 ".%02us", secs, centis);
	else if (ns >= NS_PER_MS)
		snprintf(buf, size, "%" PRIu64 "ms", ns / NS_PER_MS);
	else if (ns >= NS_PER_US)
		snprintf(buf, size, "%" PRIu64 "us", ns / NS_PER_US);
	else
		snprintf(buf, size, "%" PRIu64 "ns", ns);
}
