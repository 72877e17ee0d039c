/* cmd-compare.c: compare stored results A and B, each named by a glob: one result against
 * another, or a set of iterations against another set, figure by figure (compare.c), and
 * multi-host results host by host (compare-hosts.c). */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "compare-hosts.h"
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

/* compare_results or compare_summary. */
typedef json_object *(*compare_fn)(json_object *const *, size_t, json_object *const *, size_t);

static int compare_two(struct results *rs, const char *ga, const char *gb, compare_fn cmpf,
                       json_object **result, struct nm_error *err);

/* Keep only the figures whose path matches one of globs (an array; NULL keeps all). */
static void
filter_figures(json_object *cmp, json_object *globs)
{
	json_object *figs, *kept;

	if (globs == NULL || !json_object_object_get_ex(cmp, "figures", &figs))
		return;
	kept = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(figs); i++) {
		json_object *f = json_object_array_get_idx(figs, i);
		const char *path = json_get_string(f, "figure", "");
		for (size_t g = 0; g < json_object_array_length(globs); g++)
			if (fnmatch(json_object_get_string(json_object_array_get_idx(globs, g)),
			            path, 0) == 0) {
				json_object_array_add(kept, json_object_get(f));
				break;
			}
	}
	json_object_object_add(cmp, "figures", kept);
}

/* Is s a suite's name: no glob characters, no result of its own, results below it? */
static bool
is_suite(struct results *rs, const char *s)
{
	const char *const *names;
	char glob[300];

	if (strpbrk(s, "*?[") != NULL || results_exists(rs, s))
		return false;
	snprintf(glob, sizeof(glob), "%s/*", s);
	return results_match(rs, glob, &names) > 0;
}

/* The point of a suite's result name: "S/conns_64_rfs_512_iter_2" -> "conns_64_rfs_512". */
static bool
point_of(const char *suite, const char *name, char *buf, size_t size)
{
	size_t sl = strlen(suite);
	const char *p = name + sl + 1, *it;

	if (strncmp(name, suite, sl) != 0 || name[sl] != '/' || (it = strstr(p, "_iter_")) == NULL)
		return false;
	snprintf(buf, size, "%.*s", (int)(it - p), p);
	return true;
}

/* Two suites point by point: each point's iterations in A against those in B. */
static int
compare_suites(struct results *rs, const char *sa, const char *sb, json_object *globs,
               compare_fn cmpf, json_object **result, struct nm_error *err)
{
	json_object *out = json_object_new_object(), *points = json_object_new_array();
	json_object *only_a = json_object_new_array(), *seen = json_object_new_object();
	const char *const *names;
	char glob[300], point[256], ga[600], gb[600];
	size_t n;

	snprintf(glob, sizeof(glob), "%s/*", sa);
	n = results_match(rs, glob, &names);
	for (size_t i = 0; i < n; i++) {
		json_object *na, *nb, *cmp, **ra = NULL, **rb = NULL;
		size_t ca, cb = 0;
		struct nm_error e;

		if (!point_of(sa, names[i], point, sizeof(point)) ||
		    json_object_object_get_ex(seen, point, NULL))
			continue;
		json_object_object_add(seen, point, NULL);
		snprintf(ga, sizeof(ga), "%s/%s_iter_*", sa, point);
		snprintf(gb, sizeof(gb), "%s/%s_iter_*", sb, point);
		na = json_object_new_array();
		nb = json_object_new_array();
		if ((ca = load_side(rs, "A", ga, &ra, na, &e)) == 0 ||
		    (cb = load_side(rs, "B", gb, &rb, nb, &e)) == 0) {
			if (ra != NULL)
				put_all(ra, ca);
			json_object_array_add(only_a, json_object_new_string(point));
			json_object_put(na);
			json_object_put(nb);
			/* load_side may have reused names' storage: match again. */
			n = results_match(rs, glob, &names);
			continue;
		}
		cmp = cmpf(ra, ca, rb, cb);
		describe_side(cmp, "a", ga, na);
		describe_side(cmp, "b", gb, nb);
		filter_figures(cmp, globs);
		json_add_string(cmp, "point", point);
		json_object_array_add(points, cmp);
		put_all(ra, ca);
		put_all(rb, cb);
		n = results_match(rs, glob, &names);
	}
	json_object_put(seen);
	if (json_object_array_length(points) == 0) {
		json_object_put(out);
		json_object_put(points);
		json_object_put(only_a);
		return nm_error_set(err, NM_ERR_NOT_FOUND,
		                    "compare: suites %s and %s share no point (conns_64_...)", sa,
		                    sb);
	}
	json_add_string(out, "suite_a", sa);
	json_add_string(out, "suite_b", sb);
	json_object_object_add(out, "points", points);
	json_object_object_add(out, "only_in_a", only_a);
	*result = out;
	return 0;
}

/* compare: stored results args.a against args.b; two suites point by point. */
int
cmd_compare(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct results *rs = ctx->d->results;
	const char *ga = json_get_string(args, "a", ""), *gb = json_get_string(args, "b", "");
	bool summary = json_get_bool(args, "summary", false);
	compare_fn cmpf = summary ? compare_summary : compare_results;
	json_object *globs = NULL;
	int r;

	json_object_object_get_ex(args, "figures", &globs);
	if (is_suite(rs, ga) && is_suite(rs, gb)) {
		json_object *dflt = NULL;
		if (globs == NULL && !summary) {
			/* A suite's headline: the benchmark, the CPU, retransmits, device rates. */
			dflt = json_tokener_parse("[\"test.*\", \"cpu.all.busy*\", "
			                          "\"tcp.retrans*\", \"devices.*_per_s\"]");
			globs = dflt;
		}
		r = compare_suites(rs, ga, gb, globs, cmpf, result, err);
		json_object_put(dflt);
		return r;
	}
	r = compare_two(rs, ga, gb, cmpf, result, err);
	if (r == 0) {
		json_object *hosts;
		filter_figures(*result, globs);
		if (json_object_object_get_ex(*result, "hosts", &hosts)) {
			json_object_object_foreach(hosts, name, cmp)
			{
				(void)name;
				filter_figures(cmp, globs);
			}
		}
	}
	return r;
}

/* Two results, or two globs of iterations. */
static int
compare_two(struct results *rs, const char *ga, const char *gb, compare_fn cmpf,
            json_object **result, struct nm_error *err)
{
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
	*result = cmpf(ra, ca, rb, cb);
	/* Multi-host results: host by host too, and the cross-host figures. */
	compare_hosts_add(*result, ra, ca, rb, cb, cmpf);
	describe_side(*result, "a", ga, na);
	describe_side(*result, "b", gb, nb);
	put_all(ra, ca);
	put_all(rb, cb);
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_compare_entry = {.proto = "compare", .exec = cmd_compare};
