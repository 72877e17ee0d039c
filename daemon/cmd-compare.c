/* cmd-compare.c: compare stored results A and B, each named by a glob: one result against
 * another, or a set of iterations against another set, figure by figure (compare.c). */
#include <stdlib.h>

#include "cmd.h"
#include "compare.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "results.h"
#include "xmalloc.h"

/* Put n loaded results and free the array. */
static void
put_all(json_object **res, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_object_put(res[i]);
	free(res);
}

/* Load the results named names[0..n) into a new array; NULL with err when one fails. */
static json_object **
load_all(struct results *rs, char *const *names, size_t n, struct nm_error *err)
{
	json_object **res = xcalloc(n, sizeof(*res));

	for (size_t i = 0; i < n; i++)
		if ((res[i] = results_get(rs, names[i], err)) == NULL) {
			put_all(res, i);
			return NULL;
		}
	return res;
}

/* One side: the results matching glob, loaded into *res (see put_all), their names
 * appended to names. Returns the count, or 0 with err. */
static size_t
load_side(struct results *rs, const char *side, const char *glob, json_object ***res,
          json_object *names, struct nm_error *err)
{
	const char *const *matched;
	size_t n = results_match(rs, glob, &matched);
	char **copy;

	*res = NULL;
	if (n == 0) {
		nm_error_set(err, NM_ERR_NOT_FOUND,
		             "compare: side %s: no stored result matches \"%s\"", side, glob);
		return 0;
	}
	if (n > COMPARE_MAX_RESULTS) {
		nm_error_set(err, NM_ERR_BAD_ARGS,
		             "compare: side %s: \"%s\" matches %zu results, at most %d", side, glob,
		             n, COMPARE_MAX_RESULTS);
		return 0;
	}
	/* The names stay valid until a put or delete; loading does neither, but copy them
	 * rather than rely on it. */
	copy = xcalloc(n, sizeof(*copy));
	for (size_t i = 0; i < n; i++)
		copy[i] = xstrdup(matched[i]);
	if ((*res = load_all(rs, copy, n, err)) != NULL)
		for (size_t i = 0; i < n; i++)
			json_object_array_add(names, json_object_new_string(copy[i]));
	for (size_t i = 0; i < n; i++)
		free(copy[i]);
	free(copy);
	return *res != NULL ? n : 0;
}

/* Add what a side was asked as and what it matched to the comparison's "a" or "b". */
static void
describe_side(json_object *out, const char *key, const char *glob, json_object *names)
{
	json_object *side;

	if (!json_object_object_get_ex(out, key, &side)) {
		side = json_object_new_object();
		json_object_object_add(out, key, side);
	}
	json_add_string(side, "glob", glob);
	json_object_object_add(side, "names", names);
}

/* compare: stored results args.a against args.b. */
int
cmd_compare(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct results *rs = ctx->d->results;
	const char *ga = json_get_string(args, "a", ""), *gb = json_get_string(args, "b", "");
	json_object *na = json_object_new_array(), *nb = json_object_new_array();
	json_object **ra = NULL, **rb = NULL;
	size_t ca, cb = 0;

	if ((ca = load_side(rs, "A", ga, &ra, na, err)) == 0 ||
	    (cb = load_side(rs, "B", gb, &rb, nb, err)) == 0) {
		if (ra != NULL)
			put_all(ra, ca);
		json_object_put(na);
		json_object_put(nb);
		return -1;
	}
	*result = compare_results(ra, ca, rb, cb);
	describe_side(*result, "a", ga, na);
	describe_side(*result, "b", gb, nb);
	put_all(ra, ca);
	put_all(rb, cb);
	return 0;
}
