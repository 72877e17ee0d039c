/* cmd-table.c: binds each command of proto/commands.c to its handler. A unit test checks
 * that every command in the protocol table has one. */
#include <string.h>

#include "cmd.h"

static const struct cmd_binding bindings[] = {
    {"hello", cmd_hello},
    {"status", cmd_status},
    {"cancel", cmd_cancel},
    {"metrics", cmd_metrics},
    {"now", cmd_now},
    {"rates", cmd_rates},
    {"series", cmd_series},
    {"queues", cmd_queues},
    {"cpu", cmd_cpu},
    {"softirqs", cmd_softirqs},
    {"interrupts", cmd_interrupts},
    {"watch", cmd_watch},
};

cmd_handler
dispatch_handler_find(const char *name)
{
	for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++)
		if (strcmp(bindings[i].name, name) == 0)
			return bindings[i].handler;
	return NULL;
}
