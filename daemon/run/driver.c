/* driver.c: the table of benchmark drivers the runner knows. */
#include <stdio.h>
#include <string.h>

#include "runner.h"

extern const struct driver driver_netperf, driver_iperf3, driver_exec, driver_pktgen;

/* The drivers, in the order driver_names gives them. */
static const struct driver *const drivers[] = {&driver_netperf, &driver_iperf3, &driver_exec,
                                               &driver_pktgen};
#define NDRIVERS (sizeof(drivers) / sizeof(drivers[0]))

/* The driver named name, or NULL. */
const struct driver *
driver_find(const char *name)
{
	for (size_t i = 0; i < NDRIVERS; i++)
		if (strcmp(drivers[i]->name, name) == 0)
			return drivers[i];
	return NULL;
}

const struct driver *
driver_at(size_t i)
{
	return i < NDRIVERS ? drivers[i] : NULL;
}

/* Their names, for messages: made from the table once. */
const char *
driver_names(void)
{
	static char names[256];

	if (names[0] == '\0')
		for (size_t i = 0; i < NDRIVERS; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			         i ? ", " : "", drivers[i]->name);
	return names;
}

bool
driver_takes(const struct driver *d, const char *key)
{
	for (const char *const *a = d->args; a != NULL && *a != NULL; a++)
		if (strcmp(*a, key) == 0)
			return true;
	return false;
}

const char *
driver_takers(const char *key, const char *sep, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NDRIVERS; i++)
		if (driver_takes(drivers[i], key))
			snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", n++ ? sep : "",
			         drivers[i]->name);
	return buf;
}
