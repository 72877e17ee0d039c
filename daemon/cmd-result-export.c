/* cmd-result-export.c: a stored result as JSON (unchanged) or as CSV, one row per figure. */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "report-csv.h"
#include "results.h"

/* result-export: the result args.name in args.format ("json" or "csv"). */
int
cmd_result_export(struct cmd_ctx *ctx, json_object *args, json_object **result,
                  struct nm_error *err)
{
	const char *format = json_get_string(args, "format", "json");
	json_object *r;
	char *csv;

	if (strcmp(format, "json") != 0 && strcmp(format, "csv") != 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "argument \"format\": \"%s\" is not json or csv", format);
	if ((r = results_get(ctx->d->results, json_get_string(args, "name", ""), err)) == NULL)
		return -1;
	if (strcmp(format, "json") == 0) {
		*result = r;
		return 0;
	}
	csv = report_to_csv(r);
	json_object_put(r);
	*result = json_add_string(json_object_new_object(), "csv", csv);
	free(csv);
	return 0;
}
