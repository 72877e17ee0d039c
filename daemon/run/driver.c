/* driver.c: the table of benchmark drivers the runner knows. */
#include <string.h>

#include "runner.h"

extern const struct driver driver_netperf, driver_iperf3, driver_exec, driver_pktgen;

static const struct driver *const drivers[] = {&driver_netperf, &driver_iperf3, &driver_exec,
                                               &driver_pktgen};

/* The driver named name, or NULL. */
const struct driver *
driver_find(const char *name)
{
	for (size_t i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
		if (strcmp(drivers[i]->name, name) == 0)
			return drivers[i];
	return NULL;
}

/* Their names, for messages. */
const char *
driver_names(void)
{
	return "netperf, iperf3, exec, pktgen";
}
