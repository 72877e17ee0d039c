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
    {"mark-start", cmd_mark_start},
    {"mark-stop", cmd_mark_stop},
    {"windows", cmd_windows},
    {"window-delete", cmd_window_delete},
    {"report", cmd_report},
    {"results", cmd_results},
    {"result-show", cmd_result_show},
    {"result-delete", cmd_result_delete},
    {"result-export", cmd_result_export},
    {"profile-show", cmd_profile_show},
    {"profile-apply", cmd_profile_apply},
    {"profile-set", cmd_profile_apply},
    {"profile-save", cmd_profile_save},
    {"profile-revert", cmd_profile_revert},
    {"profile-status", cmd_profile_status},
    {"profiles", cmd_profiles},
    {"compare", cmd_compare},
    {"test-start", cmd_test_start},
    {"test-status", cmd_test_status},
    {"test-stop", cmd_test_stop},
    {"tests", cmd_tests},
    {"suite-run", cmd_suite_run},
    {"suite-status", cmd_suite_status},
    {"suite-stop", cmd_suite_stop},
    {"trend", cmd_trend},
};

cmd_handler
dispatch_handler_find(const char *name)
{
	for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++)
		if (strcmp(bindings[i].name, name) == 0)
			return bindings[i].handler;
	return NULL;
}
