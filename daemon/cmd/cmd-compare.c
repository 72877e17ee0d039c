/* cmd-compare.c: compare stored results A and B, each named by a glob: one result against
 * another, or a set of iterations against another set, figure by figure (compare.c), and
 * multi-host results host by host (compare-hosts.c). The globs are matched on the loop; the
 * results are read, compared and the reply serialised on the results' reader thread
 * (results-load.c): compare.c and compare-hosts.c are pure functions of the results. */
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
#include "results-reply.h"
#include "results.h"
#include "xmalloc.h"

/* One side of a comparison: the glob asked and the items (of the load) it matched. */
struct cmp_side {
	char *glob;
	size_t first, n;
};

/* One comparison: two results or globs, or a point of two suites. */
struct cmp_point {
	char *point; /* suites: the point's name; NULL for two results */
	struct cmp_side a, b;
	bool only_a; /* suites: B has nothing for it (or a side is too large) */
};

/* What the thread compares, planned on the loop. */
struct cmp_plan {
	bool summary, suites;
	json_object *globs; /* figures kept (a copy; NULL: all) */
	char *sa, *sb;      /* suites */
	struct cmp_point *points;
	size_t n, cap;
};

/* Free a plan. */
static void
plan_free(void *arg)
{
	struct cmp_plan *pl = arg;

	for (size_t i = 0; i < pl->n; i++) {
		free(pl->points[i].point);
		free(pl->points[i].a.glob);
		free(pl->points[i].b.glob);
	}
	free(pl->points);
	free(pl->sa);
	free(pl->sb);
	json_object_put(pl->globs);
	free(pl);
}

/* A new point of the plan. */
static struct cmp_point *
plan_point(struct cmp_plan *pl)
{
	if (pl->n == pl->cap) {
		pl->cap = pl->cap ? pl->cap * 2 : 8;
		pl->points = xreallocarray(pl->points, pl->cap, sizeof(*pl->points));
	}
	memset(&pl->points[pl->n], 0, sizeof(pl->points[0]));
	return &pl->points[pl->n++];
}

/* One side (loop): the results matching glob, added to ld. 0, or -1 with err when none or
 * too many match. */
static int
match_side(struct results_load *ld, const char *side, const char *glob, struct cmp_side *cs,
           struct nm_error *err)
{
	const char *const *matched;
	size_t n = results_match(ld->rs, glob, &matched);

	cs->glob = xstrdup(glob);
	if (n == 0)
		return nm_error_set(err, NM_ERR_NOT_FOUND,
		                    "compare: side %s: no stored result matches \"%s\"", side,
		                    glob);
	if (n > COMPARE_MAX_RESULTS)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "compare: side %s: \"%s\" matches %zu results, at most %d",
		                    side, glob, n, COMPARE_MAX_RESULTS);
	/* Added now, while matched (the store's until its next match) is valid. */
	cs->first = ld->n;
	cs->n = n;
	for (size_t i = 0; i < n; i++)
		results_load_add(ld, matched[i], false);
	return 0;
}

/* Put n loaded results and free the array. */
static void
put_all(json_object **res, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_object_put(res[i]);
	free(res);
}

/* A side's loaded results (thread) in a new array, their names in *names (new); NULL with
 * err (the first that failed) when one could not be read. */
static json_object **
side_results(struct results_load *ld, const struct cmp_side *cs, json_object **names,
             struct nm_error *err)
{
	json_object **res = xcalloc(cs->n, sizeof(*res));

	for (size_t i = 0; i < cs->n; i++)
		if ((res[i] = results_load_take(ld, cs->first + i, err)) == NULL) {
			put_all(res, i);
			*names = NULL;
			return NULL;
		}
	*names = json_object_new_array_ext((int)cs->n);
	for (size_t i = 0; i < cs->n; i++)
		json_object_array_add(*names,
		                      json_object_new_string(ld->items[cs->first + i].name));
	return res;
}

/* The n results of a side (named by names) whose window did not complete (a test that
 * failed or was stopped, a window cut short): [{"name", "reason"}]. Their figures are
 * compared all the same; the reader is told. */
static json_object *
incomplete_of(json_object *const *res, size_t n, json_object *names)
{
	json_object *arr = json_object_new_array(), *w, *c, *o;

	for (size_t i = 0; i < n; i++) {
		if (!json_object_object_get_ex(res[i], "window", &w) ||
		    !json_object_object_get_ex(w, "complete", &c) || json_object_get_boolean(c))
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "name",
		                       json_object_get(json_object_array_get_idx(names, i)));
		json_add_string(o, "reason",
		                json_get_string(w, "reason", "the window did not complete"));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* Add what a side was asked as, what it matched and which of it did not complete to the
 * comparison's "a" or "b". */
static void
describe_side(json_object *out, const char *key, const char *glob, json_object *names,
              json_object *incomplete)
{
	json_object *side;

	if (!json_object_object_get_ex(out, key, &side)) {
		side = json_object_new_object();
		json_object_object_add(out, key, side);
	}
	json_add_string(side, "glob", glob);
	json_object_object_add(side, "names", names);
	json_object_object_add(side, "incomplete", incomplete);
}

/* compare_results or compare_summary. */
typedef json_object *(*compare_fn)(json_object *const *, size_t, json_object *const *, size_t);

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

/* Plan two suites point by point (loop): each point's iterations in A against those in B. */
static void
plan_suites(struct results_load *ld, struct cmp_plan *pl)
{
	json_object *seen = json_object_new_object();
	const char *const *matched;
	char glob[300], point[256], ga[600], gb[600];
	size_t n;
	char **names;

	snprintf(glob, sizeof(glob), "%s/*", pl->sa);
	n = results_match(ld->rs, glob, &matched);
	/* Each side's match below reuses the store's answer: keep these. */
	names = xcalloc(n + 1, sizeof(*names));
	for (size_t i = 0; i < n; i++)
		names[i] = xstrdup(matched[i]);
	for (size_t i = 0; i < n; i++) {
		struct cmp_point *cp;
		struct nm_error e;

		if (!point_of(pl->sa, names[i], point, sizeof(point)) ||
		    json_object_object_get_ex(seen, point, NULL))
			continue;
		json_object_object_add(seen, point, NULL);
		snprintf(ga, sizeof(ga), "%s/%s_iter_*", pl->sa, point);
		snprintf(gb, sizeof(gb), "%s/%s_iter_*", pl->sb, point);
		cp = plan_point(pl);
		cp->point = xstrdup(point);
		if (match_side(ld, "A", ga, &cp->a, &e) < 0 ||
		    match_side(ld, "B", gb, &cp->b, &e) < 0)
			cp->only_a = true;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	json_object_put(seen);
}

/* One point's comparison (thread): NULL with err when a side's result cannot be read. */
static json_object *
compare_point(struct results_load *ld, const struct cmp_point *cp, compare_fn cmpf,
              struct nm_error *err)
{
	json_object **ra, **rb, *na, *nb, *cmp;

	if ((ra = side_results(ld, &cp->a, &na, err)) == NULL)
		return NULL;
	if ((rb = side_results(ld, &cp->b, &nb, err)) == NULL) {
		put_all(ra, cp->a.n);
		json_object_put(na);
		return NULL;
	}
	cmp = cmpf(ra, cp->a.n, rb, cp->b.n);
	/* Multi-host results: host by host too, and the cross-host figures. */
	if (cp->point == NULL)
		compare_hosts_add(cmp, ra, cp->a.n, rb, cp->b.n, cmpf);
	describe_side(cmp, "a", cp->a.glob, na, incomplete_of(ra, cp->a.n, na));
	describe_side(cmp, "b", cp->b.glob, nb, incomplete_of(rb, cp->b.n, nb));
	put_all(ra, cp->a.n);
	put_all(rb, cp->b.n);
	return cmp;
}

/* Two suites (thread): the points both have; a point whose results cannot be read is
 * counted as A's only. */
static int
compare_suites(struct results_load *ld, struct cmp_plan *pl, compare_fn cmpf, json_object **result,
               struct nm_error *err)
{
	json_object *out, *points = json_object_new_array(), *only_a = json_object_new_array();

	for (size_t i = 0; i < pl->n; i++) {
		struct cmp_point *cp = &pl->points[i];
		json_object *cmp = NULL;
		struct nm_error e;

		if (!cp->only_a && (cmp = compare_point(ld, cp, cmpf, &e)) != NULL) {
			filter_figures(cmp, pl->globs);
			json_add_string(cmp, "point", cp->point);
			json_object_array_add(points, cmp);
		} else
			json_object_array_add(only_a, json_object_new_string(cp->point));
	}
	if (json_object_array_length(points) == 0) {
		json_object_put(points);
		json_object_put(only_a);
		return nm_error_set(err, NM_ERR_NOT_FOUND,
		                    "compare: suites %s and %s share no point (conns_64_...)",
		                    pl->sa, pl->sb);
	}
	out = json_object_new_object();
	json_add_string(out, "suite_a", pl->sa);
	json_add_string(out, "suite_b", pl->sb);
	json_object_object_add(out, "points", points);
	json_object_object_add(out, "only_in_a", only_a);
	*result = out;
	return 0;
}

/* The reader thread: the comparison of what was loaded. */
static int
compare_work(struct results_load *ld, void *arg, json_object **result, struct nm_error *err)
{
	struct cmp_plan *pl = arg;
	compare_fn cmpf = pl->summary ? compare_summary : compare_results;
	json_object *hosts;

	if (pl->suites)
		return compare_suites(ld, pl, cmpf, result, err);
	if ((*result = compare_point(ld, &pl->points[0], cmpf, err)) == NULL)
		return -1;
	filter_figures(*result, pl->globs);
	if (json_object_object_get_ex(*result, "hosts", &hosts)) {
		json_object_object_foreach(hosts, name, cmp)
		{
			(void)name;
			filter_figures(cmp, pl->globs);
		}
	}
	return 0;
}

/* compare: stored results args.a against args.b; two suites point by point. */
static int
cmd_compare(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct results *rs = ctx->d->results;
	const char *ga = json_get_string(args, "a", ""), *gb = json_get_string(args, "b", "");
	struct cmp_plan *pl = xcalloc(1, sizeof(*pl));
	struct results_load *ld = results_load_new(rs);
	json_object *globs = NULL;

	pl->summary = json_get_bool(args, "summary", false);
	if (json_object_object_get_ex(args, "figures", &globs) && globs != NULL &&
	    json_object_deep_copy(globs, &pl->globs, NULL) < 0)
		pl->globs = NULL;
	if (is_suite(rs, ga) && is_suite(rs, gb)) {
		pl->suites = true;
		pl->sa = xstrdup(ga);
		pl->sb = xstrdup(gb);
		/* A suite's headline: the benchmark, the CPU, retransmits, device rates. */
		if (pl->globs == NULL && !pl->summary)
			pl->globs = json_tokener_parse("[\"test.*\", \"cpu.all.busy*\", "
			                               "\"tcp.retrans*\", \"devices.*_per_s\"]");
		plan_suites(ld, pl);
	} else {
		struct cmp_point *cp = plan_point(pl);
		if (match_side(ld, "A", ga, &cp->a, err) < 0 ||
		    match_side(ld, "B", gb, &cp->b, err) < 0) {
			results_load_free(ld);
			plan_free(pl);
			return -1;
		}
	}
	return results_load_reply(ctx, ld, compare_work, NULL, pl, plan_free, result, err);
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_compare_entry = {.proto = "compare", .exec = cmd_compare};
