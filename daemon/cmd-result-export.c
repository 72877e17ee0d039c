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
#include "results.h"
#include "xmalloc.h"

#define EXPORT_MAX_RESULTS 256 /* results one glob may export: the reply holds them all */

/* A result as exported in JSON: the stored one, with its series block (NAME.series, as
 * stored: compressed) as base64 in "series_block" when it has one. Takes r over. */
static json_object *
with_series(struct results *rs, const char *name, json_object *r)
{
	json_object *out;
	struct nm_error e;
	uint8_t *buf;
	size_t len;
	char *text;

	if (results_series_bytes(rs, name, &buf, &len, &e) < 0)
		return r;
	/* r may be the store's own object (a result being written): a copy gets the member. */
	out = NULL;
	if (json_object_deep_copy(r, &out, NULL) < 0 || out == NULL) {
		free(buf);
		return r;
	}
	json_object_put(r);
	text = base64_encode(buf, len);
	json_add_string(out, "series_block", text);
	free(text);
	free(buf);
	return out;
}

/* The results glob matches: {"format", "count", "names", "results" (json, jsonl) or
 * "csv", "skipped"}. A
 * result that cannot be read is skipped, with its name and why. */
static int
export_glob(struct results *rs, const char *glob, const char *format, bool series,
            json_object **result, struct nm_error *err)
{
	const char *const *matched;
	size_t n = results_match(rs, glob, &matched), k = 0;
	json_object **res, *names, *skipped, *out;
	char **copy;

	if (n == 0)
		return nm_error_set(err, NM_ERR_NOT_FOUND,
		                    "result export: no stored result matches \"%s\"", glob);
	if (n > EXPORT_MAX_RESULTS)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "result export: \"%s\" matches %zu results, at most %d", glob,
		                    n, EXPORT_MAX_RESULTS);
	/* The names belong to the store until its next change; keep copies while loading. */
	copy = xcalloc(n, sizeof(*copy));
	for (size_t i = 0; i < n; i++)
		copy[i] = xstrdup(matched[i]);
	res = xcalloc(n, sizeof(*res));
	names = json_object_new_array();
	skipped = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		struct nm_error e;
		if ((res[k] = results_get(rs, copy[i], &e)) == NULL) {
			json_object *s = json_object_new_object();
			json_add_string(s, "name", copy[i]);
			json_add_string(s, "error", e.message);
			json_object_array_add(skipped, s);
			continue;
		}
		json_object_array_add(names, json_object_new_string(copy[i]));
		k++;
	}
	out = json_object_new_object();
	json_add_string(out, "format", format);
	json_add_uint(out, "count", k);
	json_object_object_add(out, "names", names);
	if (strcmp(format, "csv") == 0) {
		char *text = report_csv_table(res, k);
		json_add_string(out, "csv", text);
		free(text);
	} else {
		json_object *arr = json_object_new_array_ext((int)k);
		for (size_t i = 0; i < k; i++) {
			json_object *r = json_object_get(res[i]);
			const char *nm =
			    json_object_get_string(json_object_array_get_idx(names, (int)i));
			json_object_array_add(arr, series ? with_series(rs, nm, r) : r);
		}
		json_object_object_add(out, "results", arr);
	}
	json_object_object_add(out, "skipped", skipped);
	for (size_t i = 0; i < k; i++)
		json_object_put(res[i]);
	for (size_t i = 0; i < n; i++)
		free(copy[i]);
	free(res);
	free(copy);
	*result = out;
	return 0;
}

/* result-export: the result args.name in args.format ("json", "jsonl" or "csv"); a name
 * with glob characters exports every result it matches. */
int
cmd_result_export(struct cmd_ctx *ctx, json_object *args, json_object **result,
                  struct nm_error *err)
{
	const char *format = json_get_string(args, "format", "json");
	const char *name = json_get_string(args, "name", "");
	bool series = json_get_bool(args, "series", false);
	json_object *r;
	char *csv;

	if (strcmp(format, "json") != 0 && strcmp(format, "jsonl") != 0 &&
	    strcmp(format, "csv") != 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "argument \"format\": \"%s\" is not json, jsonl or csv",
		                    format);
	if (strpbrk(name, "*?[") != NULL)
		return export_glob(ctx->d->results, name, format, series, result, err);
	if ((r = results_get(ctx->d->results, name, err)) == NULL)
		return -1;
	if (strcmp(format, "csv") != 0) {
		*result = series ? with_series(ctx->d->results, name, r) : r;
		return 0;
	}
	csv = report_to_csv(r);
	json_object_put(r);
	*result = json_add_string(json_object_new_object(), "csv", csv);
	free(csv);
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_result_export_entry = {.proto = "result-export",
                                                  .exec = cmd_result_export};
