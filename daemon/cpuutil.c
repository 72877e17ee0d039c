/* cpuutil.c: seconds per CPU mode into utilisation. */
#include <string.h>

#include "cpuutil.h"
#include "jsonutil.h"

const char *const cpuutil_modes[CPUUTIL_NMODES] = {
    "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice"};

/* Linear search: ten names. */
int
cpuutil_mode_index(const char *mode)
{
	for (int m = 0; m < CPUUTIL_NMODES; m++)
		if (strcmp(cpuutil_modes[m], mode) == 0)
			return m;
	return -1;
}

/* The time the modes cover: guest and guest_nice are already counted in user and nice. */
static double
total_of(const double secs[CPUUTIL_NMODES])
{
	double total = 0;

	for (int m = 0; m < CPUUTIL_NMODES; m++)
		if (strncmp(cpuutil_modes[m], "guest", 5) != 0)
			total += secs[m];
	return total;
}

/* Everything but idle and iowait. */
double
cpuutil_busy(const double secs[CPUUTIL_NMODES])
{
	return total_of(secs) - secs[CPUUTIL_IDLE] - secs[CPUUTIL_IOWAIT];
}

/* Percentages of the covered time, and busy CPUs over the span. */
json_object *
cpuutil_json(const double secs[CPUUTIL_NMODES], double span)
{
	json_object *o = json_object_new_object();
	double total = total_of(secs), busy = cpuutil_busy(secs);

	for (int m = 0; m < CPUUTIL_NMODES; m++)
		json_add_double(o, cpuutil_modes[m], total > 0 ? 100.0 * secs[m] / total : 0);
	json_add_double(o, "busy", total > 0 ? 100.0 * busy / total : 0);
	json_add_double(o, "busy_cpus", span > 0 ? busy / span : 0);
	return o;
}
