/* cmd-results.c: the stored results whose names match a glob, with what their windows say:
 * origin, start, end, duration, complete. */
#include "cmd.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "results.h"

/* Window members a listing shows, copied when present. */
static const char *const listed[] = {"origin",   "start",     "end",    "duration_s",
                                     "complete", "closed_by", "reason", NULL};

/* One result for the list, from its stored "window" object. */
static json_object *
entry(struct results *rs, const char *name)
{
	json_object *o = json_object_new_object(), *r, *win, *v;
	struct nm_error err;

	json_add_string(o, "name", name);
	if ((r = results_get(rs, name, &err)) == NULL) {
		json_add_string(o, "error", err.message);
		return o;
	}
	if (json_object_object_get_ex(r, "window", &win))
		for (size_t i = 0; listed[i] != NULL; i++)
			if (json_object_object_get_ex(win, listed[i], &v))
				json_object_object_add(o, listed[i], json_object_get(v));
	/* A test's result: its driver and how it ended. */
	if (json_object_object_get_ex(r, "test", &v)) {
		json_add_string(o, "driver", json_get_string(v, "driver", ""));
		json_add_string(o, "test_status", json_get_string(v, "status", ""));
	}
	json_object_put(r);
	return o;
}

/* results: list the stored results matching args.glob. */
int
cmd_results(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct results *rs = ctx->d->results;
	const char *const *names;
	size_t n = results_match(rs, json_get_string(args, "glob", NULL), &names);
	json_object *o = json_object_new_object(), *arr = json_object_new_array();

	(void)err;
	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, entry(rs, names[i]));
	json_add_uint(o, "count", n);
	json_object_object_add(o, "results", arr);
	*result = o;
	return 0;
}
