/* cmd-result-export.c: a stored result as JSON (unchanged) or as CSV, one row per figure;
 * or the results a glob matches, as a list of them or as one CSV table, a row per result. */
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "cmd.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "report-csv.h"
#include "results-reply.h"
#include "results.h"
#include "xmalloc.h"

#define EXPORT_MAX_RESULTS 256 /* results one glob may export: the reply holds them all */

/* A result as exported in JSON: the stored one, with its series block (NAME.series, as
 * stored: compressed) as base64 in "series_block" when it has one. Takes r over (the load's
 * own object: read from the file or a copy, so it may be changed). */
static json_object *
with_series(const struct results_load_item *it, json_object *r)
{
	char *text;

	if (it->series == NULL)
		return r;
	text = base64_encode(it->series, it->series_len);
	json_add_string(r, "series_block", text);
	free(text);
	return r;
}

/* What an export was asked. */
struct export_args {
	const char *format; /* a literal: "json", "jsonl" or "csv" */
	bool series, glob;
};

/* The results a glob matched (reader thread): {"format", "count", "names", "results"
 * (json, jsonl) or "csv", "skipped"}. A result that cannot be read is skipped, with its
 * name and why. */
static int
export_glob(struct results_load *ld, const struct export_args *ea, json_object **result)
{
	json_object **res = xcalloc(ld->n, sizeof(*res)), *names, *skipped, *out;
	const struct results_load_item **its = xcalloc(ld->n, sizeof(*its));
	size_t k = 0;

	names = json_object_new_array();
	skipped = json_object_new_array();
	for (size_t i = 0; i < ld->n; i++) {
		struct nm_error e;
		if ((res[k] = results_load_take(ld, i, &e)) == NULL) {
			json_object *s = json_object_new_object();
			json_add_string(s, "name", ld->items[i].name);
			json_add_string(s, "error", e.message);
			json_object_array_add(skipped, s);
			continue;
		}
		json_object_array_add(names, json_object_new_string(ld->items[i].name));
		its[k++] = &ld->items[i];
	}
	out = json_object_new_object();
	json_add_string(out, "format", ea->format);
	json_add_uint(out, "count", k);
	json_object_object_add(out, "names", names);
	if (strcmp(ea->format, "csv") == 0) {
		char *text = report_csv_table(res, k);
		json_add_string(out, "csv", text);
		free(text);
		for (size_t i = 0; i < k; i++)
			json_object_put(res[i]);
	} else {
		json_object *arr = json_object_new_array_ext((int)k);
		for (size_t i = 0; i < k; i++)
			json_object_array_add(arr,
			                      ea->series ? with_series(its[i], res[i]) : res[i]);
		json_object_object_add(out, "results", arr);
	}
	json_object_object_add(out, "skipped", skipped);
	free(res);
	free(its);
	*result = out;
	return 0;
}

/* The reader thread: the export of what was loaded. */
static int
export_work(struct results_load *ld, void *arg, json_object **result, struct nm_error *err)
{
	const struct export_args *ea = arg;
	json_object *r;
	char *csv;

	if (ea->glob)
		return export_glob(ld, ea, result);
	if ((r = results_load_take(ld, 0, err)) == NULL)
		return -1;
	if (strcmp(ea->format, "csv") != 0) {
		*result = ea->series ? with_series(&ld->items[0], r) : r;
		return 0;
	}
	csv = report_to_csv(r);
	json_object_put(r);
	*result = json_add_string(json_object_new_object(), "csv", csv);
	free(csv);
	return 0;
}

/* result-export: the result args.name in args.format ("json", "jsonl" or "csv"); a name
 * with glob characters exports every result it matches. The names are matched and the
 * results found on the loop; they are read and the reply made on the results' reader
 * thread (results-load.c). */
int
cmd_result_export(struct cmd_ctx *ctx, json_object *args, json_object **result,
                  struct nm_error *err)
{
	struct results *rs = ctx->d->results;
	const char *format = json_get_string(args, "format", "json");
	const char *name = json_get_string(args, "name", "");
	struct export_args *ea;
	struct results_load *ld;

	if (strcmp(format, "json") != 0 && strcmp(format, "jsonl") != 0 &&
	    strcmp(format, "csv") != 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "argument \"format\": \"%s\" is not json, jsonl or csv",
		                    format);
	ea = xcalloc(1, sizeof(*ea));
	ea->format = strcmp(format, "csv") == 0     ? "csv"
	             : strcmp(format, "jsonl") == 0 ? "jsonl"
	                                            : "json";
	ea->series = json_get_bool(args, "series", false) && strcmp(format, "csv") != 0;
	ea->glob = strpbrk(name, "*?[") != NULL;
	ld = results_load_new(rs);
	if (ea->glob) {
		const char *const *matched;
		size_t n = results_match(rs, name, &matched);

		if (n == 0 || n > EXPORT_MAX_RESULTS) {
			results_load_free(ld);
			free(ea);
			if (n == 0)
				return nm_error_set(
				    err, NM_ERR_NOT_FOUND,
				    "result export: no stored result matches \"%s\"", name);
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "result export: \"%s\" matches %zu results, at most %d",
			                    name, n, EXPORT_MAX_RESULTS);
		}
		/* Each added now, while matched (the store's, until its next change) is valid. */
		for (size_t i = 0; i < n; i++)
			results_load_add(ld, matched[i], ea->series);
	} else
		results_load_add(ld, name, ea->series);
	return results_load_reply(ctx, ld, export_work, NULL, ea, free, result, err);
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_result_export_entry = {.proto = "result-export",
                                                  .exec = cmd_result_export};
