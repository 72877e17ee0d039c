/* suite.c: a suite file becomes a list of runs (the matrix, iterations outermost so that
 * the runs of one point are interleaved with the others, as noisy hosts need, and each
 * round's order rotated by one so that no point always runs first); the runs go
 * one after another through the runner, with a pause between them; the record on disk
 * follows every step. */
#include <ctype.h>
#include <fnmatch.h>
#include <event2/event.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "clientfd.h"
#include "compare.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "log.h"
#include "peer-test.h"
#include "peer.h"
#include "profile.h"
#include "results.h"
#include "runner.h"
#include "statefile.h"
#include "stats.h"
#include "suite.h"
#include "timeutil.h"
#include "xmalloc.h"

#define SUITE_SUFFIX ".json"

struct suite {
	char name[101];
	json_object *rec;  /* the record: also what is stored */
	json_object *runs; /* borrowed from rec: [{name, point, iter, args, status, ...}] */
	size_t next;       /* the run to start next */
	bool stopping;
	bool starting;          /* inside runner_start: a failure there is recorded by start_next */
	struct test_spec *prep; /* the run whose peers are being prepared (peer-test.h) */
	char current[201];      /* the running test, "" between runs */
	struct event *ev_pause;
	double pause_s;
	struct test_cred cred;    /* who started it: its runs run as them */
	struct suite_until until; /* pct 0: the file's iterations */
	size_t npoints;           /* of the matrix: a round is this many runs */
	size_t rounds_max;        /* the iterations (with --until-ci, the cap) */
};

struct suites {
	struct daemon *d;
	char *dir; /* STATE_DIR/suites */
	struct suite *running;
};

/* ---- the record on disk ---- */

/* Write the record of s. */
static void
save(struct suites *ss, struct suite *s)
{
	struct nm_error err;
	char rel[160];

	snprintf(rel, sizeof(rel), "%s%s", s->name, SUITE_SUFFIX);
	/* Progress only (each run's result is stored and synced by itself): no fsync. */
	if (statefile_write_json_flags(ss->dir, rel, s->rec, STATEFILE_NOSYNC, &err) < 0)
		log_warnx("suite %s: record not saved: %s", s->name, err.message);
}

/* Is a record read back shaped as save() writes it: runs, when there, an array of objects
 * whose figures, when there, are an object? */
static bool
record_ok(json_object *rec)
{
	json_object *runs, *figs;

	if (!json_object_object_get_ex(rec, "runs", &runs) || runs == NULL)
		return true;
	if (!json_object_is_type(runs, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(runs); i++) {
		json_object *run = json_object_array_get_idx(runs, i);
		if (!json_object_is_type(run, json_type_object) ||
		    (json_object_object_get_ex(run, "figures", &figs) && figs != NULL &&
		     !json_object_is_type(figs, json_type_object)))
			return false;
	}
	return true;
}

/* Load the record of a suite named name; NULL with err. */
static json_object *
load(struct suites *ss, const char *name, struct nm_error *err)
{
	char rel[160];
	json_object *rec;

	snprintf(rel, sizeof(rel), "%s%s", name, SUITE_SUFFIX);
	if ((rec = statefile_read_json(ss->dir, rel, err)) != NULL && !record_ok(rec)) {
		nm_error_set(err, NM_ERR_FAILED,
		             "%s/%s: runs is not an array of objects with object figures", ss->dir,
		             rel);
		json_object_put(rec);
		return NULL;
	}
	return rec;
}

/* Mark a record left running by a crash as incomplete. */
static void
recover(const char *rel, void *arg)
{
	struct suites *ss = arg;
	struct nm_error err;
	json_object *rec = statefile_read_json(ss->dir, rel, &err);

	if (rec == NULL) {
		log_warnx("suite: %s/%s: %s", ss->dir, rel, err.message);
		return;
	}
	if (strcmp(json_get_string(rec, "state", ""), "running") == 0) {
		json_add_string(rec, "state", "incomplete");
		json_add_string(rec, "reason",
		                "the daemon stopped without finishing it (crash or kill)");
		if (statefile_write_json(ss->dir, rel, rec, false, &err) < 0)
			log_warnx("suite: %s: %s", rel, err.message);
		else
			log_warnx("suite %s: left running by the last run; marked incomplete",
			          json_get_string(rec, "name", rel));
	}
	json_object_put(rec);
}

struct suites *
suite_init(struct daemon *d, struct nm_error *err)
{
	struct suites *ss = xcalloc(1, sizeof(*ss));

	ss->d = d;
	ss->dir = xasprintf("%s/suites", d->config.state_dir);
	if (statefile_mkdir(ss->dir, err) < 0) {
		free(ss->dir);
		free(ss);
		return NULL;
	}
	statefile_scan(ss->dir, SUITE_SUFFIX, recover, ss);
	return ss;
}

/* ---- parsing a suite file ---- */

struct parse {
	json_object *suite;  /* [suite] keys as strings */
	json_object *test;   /* [test] keys, typed as test start takes them */
	json_object *matrix; /* [{"name": D, "values": [..]}] in file order */
	json_object *peers;  /* [suite] peer = NAME, repeatable, then suite run --peer */
	struct nm_error *err;
	bool failed;
};

/* The [test] keys and their types. */
static const struct {
	const char *key;
	char type; /* 's' string, 'i' integer, 'n' number, 't' a time (30s, 1m30s; bare: s) */
} test_keys[] = {
    {"driver", 's'},   {"host", 's'}, {"type", 's'},       {"procs", 'i'},
    {"duration", 't'}, {"size", 'i'}, {"warmup", 't'},     {"cooldown", 't'},
    {"netns", 's'},    {"port", 's'}, {"local_cpus", 's'}, {"remote_cpus", 's'},
};

/* Is a matrix value usable in a result name? */
static bool
value_ok(const char *v)
{
	if (*v == '\0' || strlen(v) > 32)
		return false;
	for (; *v; v++)
		if (!isalnum((unsigned char)*v) && *v != '.' && *v != '-')
			return false;
	return true;
}

/* One key of a [test] section. */
static int
test_key(struct parse *p, const char *key, const char *val)
{
	for (size_t i = 0; i < sizeof(test_keys) / sizeof(test_keys[0]); i++) {
		char *end;
		if (strcmp(test_keys[i].key, key) != 0)
			continue;
		if (test_keys[i].type == 's') {
			json_add_string(p->test, key, val);
			return 1;
		}
		if (test_keys[i].type == 't') {
			int64_t ns;
			if (time_parse_duration(val, 1000000000, 0, &ns) < 0) {
				nm_error_set(p->err, NM_ERR_BAD_ARGS,
				             "[test] %s = %s: not a duration (30s, 1m30s, 500ms; "
				             "bare: seconds)",
				             key, val);
				return 0;
			}
			json_object_object_add(p->test, key, json_double((double)ns / 1e9));
			return 1;
		}
		double v = strtod(val, &end);
		if (end == val || *end != '\0' || !isfinite(v) ||
		    (test_keys[i].type == 'i' && v != floor(v))) {
			nm_error_set(p->err, NM_ERR_BAD_ARGS, "[test] %s = %s: not a%s number", key,
			             val, test_keys[i].type == 'i' ? " whole" : "");
			return 0;
		}
		if (test_keys[i].type == 'i')
			json_add_int(p->test, key, (int64_t)v);
		else
			json_object_object_add(p->test, key, json_double(v));
		return 1;
	}
	nm_error_set(p->err, NM_ERR_BAD_ARGS,
	             "[test] has no key \"%s\" (driver, host, type, procs, duration, size, "
	             "warmup, cooldown, netns, port, local_cpus, remote_cpus)",
	             key);
	return 0;
}

/* One matrix dimension: "rfs = 512 1024". */
static int
matrix_key(struct parse *p, const char *key, const char *val)
{
	json_object *dim, *values = json_object_new_array();
	char *copy = xstrdup(val), *save = NULL;

	for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		if (!value_ok(w)) {
			nm_error_set(
			    p->err, NM_ERR_BAD_ARGS,
			    "[matrix] %s: value \"%s\" (letters, digits, '.', '-'; up to 32)", key,
			    w);
			free(copy);
			json_object_put(values);
			return 0;
		}
		json_object_array_add(values, json_object_new_string(w));
	}
	free(copy);
	if (json_object_array_length(values) == 0 || !value_ok(key) || strchr(key, '.') ||
	    json_object_array_length(p->matrix) >= SUITE_DIMS_MAX) {
		nm_error_set(p->err, NM_ERR_BAD_ARGS,
		             "[matrix] %s: a name (letters, digits, '-') and at least one value; "
		             "at most %d dimensions",
		             key, SUITE_DIMS_MAX);
		json_object_put(values);
		return 0;
	}
	dim = json_object_new_object();
	json_add_string(dim, "name", key);
	json_object_object_add(dim, "values", values);
	json_object_array_add(p->matrix, dim);
	return 1;
}

/* Add a peer's name to peers unless it is there (a suite names each peer once). */
static void
add_peer(json_object *peers, const char *name)
{
	for (size_t i = 0; i < json_object_array_length(peers); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(peers, i)), name) == 0)
			return;
	json_object_array_add(peers, json_object_new_string(name));
}

/* inih's callback: one key. */
static int
ini_cb(void *user, const char *section, const char *key, const char *val)
{
	struct parse *p = user;
	static const char *const suite_keys[] = {"name",  "description", "iterations",
	                                         "pause", "profile",     NULL};

	if (p->failed)
		return 0;
	if (strcmp(section, "suite") == 0) {
		if (strcmp(key, "peer") == 0) {
			add_peer(p->peers, val);
			return 1;
		}
		for (size_t i = 0; suite_keys[i] != NULL; i++)
			if (strcmp(suite_keys[i], key) == 0) {
				json_add_string(p->suite, key, val);
				return 1;
			}
		nm_error_set(p->err, NM_ERR_BAD_ARGS,
		             "[suite] has no key \"%s\" (name, description, iterations, pause, "
		             "profile, peer)",
		             key);
	} else if (strcmp(section, "test") == 0) {
		if (test_key(p, key, val))
			return 1;
	} else if (strcmp(section, "matrix") == 0) {
		if (matrix_key(p, key, val))
			return 1;
	} else
		nm_error_set(p->err, NM_ERR_BAD_ARGS, "unknown section [%s] (suite, test, matrix)",
		             section);
	p->failed = true;
	return 0;
}

/* A point's name and the profile values: "conns_64_rfs_512" for index idx of the matrix. */
static void
point_of(json_object *matrix, size_t idx, char *buf, size_t size, json_object *vars)
{
	size_t len = 0, n = json_object_array_length(matrix);

	buf[0] = '\0';
	/* The last dimension varies fastest. */
	size_t stride[SUITE_DIMS_MAX], total = 1;
	for (size_t d = n; d-- > 0;) {
		stride[d] = total;
		total *= json_object_array_length(
		    json_object_object_get(json_object_array_get_idx(matrix, d), "values"));
	}
	for (size_t d = 0; d < n; d++) {
		json_object *dim = json_object_array_get_idx(matrix, d);
		json_object *values = json_object_object_get(dim, "values");
		size_t k = (idx / stride[d]) % json_object_array_length(values);
		const char *v = json_object_get_string(json_object_array_get_idx(values, k));
		const char *dn = json_get_string(dim, "name", "");

		len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s_%s",
		                        d ? "_" : "", dn, v);
		json_add_string(vars, dn, v);
	}
	if (n == 0)
		snprintf(buf, size, "run");
}

/* The number of points of the matrix. */
static size_t
npoints(json_object *matrix)
{
	size_t total = 1;

	for (size_t d = 0; d < json_object_array_length(matrix); d++)
		total *= json_object_array_length(
		    json_object_object_get(json_object_array_get_idx(matrix, d), "values"));
	return total;
}

/* Round k (from 0) runs the points rotated by k: place j holds point (j + k) % np, so that
 * over np rounds every point runs once in every place. A point that always ran first (right
 * after the pause, or after the same other point) would carry that place's effect as a
 * difference: two identical points ran in a fixed order differed by 3.7 %, "sure", on a CI
 * host. The point (in matrix order) at place j of round k: */
static size_t
point_at(size_t np, size_t k, size_t j)
{
	return (j + k) % np;
}

/* ...and the run of point p in round k, its inverse (build_runs lays the runs out so). */
static size_t
run_index(size_t np, size_t k, size_t p)
{
	return k * np + (p + np - k % np) % np;
}

/* Build the runs of the suite and check each (as test start would). */
static json_object *
build_runs(struct suites *ss, const char *sname, struct parse *p, unsigned iters,
           const char *profile, struct nm_error *err)
{
	json_object *runs = json_object_new_array();
	size_t np = npoints(p->matrix);

	if (np * iters > SUITE_RUNS_MAX) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "%zu runs: at most %d", np * iters,
		             SUITE_RUNS_MAX);
		json_object_put(runs);
		return NULL;
	}
	for (unsigned it = 1; it <= iters; it++)
		for (size_t j = 0; j < np; j++) {
			json_object *vars = json_object_new_object(), *args, *run, *conns;
			struct test_spec spec;
			char point[400], name[201];

			point_of(p->matrix, point_at(np, it - 1, j), point, sizeof(point), vars);
			snprintf(name, sizeof(name), "%s/%s_iter_%u", sname, point, it);
			args = json_object_new_object();
			json_object_object_foreach(p->test, k, v)
			{
				json_object_object_add(args, k, json_object_get(v));
			}
			json_add_string(args, "name", name);
			json_add_string(args, "suite", sname);
			if (json_object_array_length(p->peers) > 0)
				json_object_object_add(args, "peer", json_object_get(p->peers));
			if (json_object_object_get_ex(vars, "conns", &conns))
				json_add_int(args, "procs", atoll(json_object_get_string(conns)));
			if (profile != NULL) {
				json_add_string(args, "profile", profile);
				json_object_object_add(args, "profile_vars", json_object_get(vars));
			}
			if (runner_spec_parse(ss->d->runner, args, &spec, err) < 0) {
				nm_error_prefix(err, NM_ERR_BAD_ARGS, "run %s", name);
				json_object_put(vars);
				json_object_put(args);
				json_object_put(runs);
				return NULL;
			}
			runner_spec_free(&spec);
			run = json_object_new_object();
			json_add_string(run, "name", name);
			json_add_string(run, "point", point);
			json_add_uint(run, "iter", it);
			json_object_object_add(run, "values", vars);
			json_object_object_add(run, "args", args);
			json_add_string(run, "status", "pending");
			json_object_array_add(runs, run);
		}
	return runs;
}

/* Check the profile loads with the values of every point. */
static int
check_profile(struct suites *ss, const char *profile, json_object *runs, struct nm_error *err)
{
	for (size_t i = 0; i < json_object_array_length(runs); i++) {
		json_object *run = json_object_array_get_idx(runs, i), *vars = NULL;
		struct profile pr;
		char path[4096];
		int r;

		json_object_object_get_ex(run, "values", &vars);
		r = profile_load_vars(&pr, ss->d->config.profile_dir, profile, vars, path,
		                      sizeof(path), err);
		profile_free(&pr);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* ---- running ---- */

static void start_next(struct suites *ss, struct suite *s);

/* The pause between runs is over. */
static void
pause_cb(evutil_socket_t fd, short what, void *arg)
{
	struct suites *ss = arg;

	(void)fd;
	(void)what;
	if (ss->running != NULL)
		start_next(ss, ss->running);
}

/* Finish the suite: final state, summary, record; it stops being the running one. */
static void
suite_end(struct suites *ss, struct suite *s, const char *state, const char *reason)
{
	char ts[40];

	json_add_string(s->rec, "state", state);
	if (reason != NULL)
		json_add_string(s->rec, "reason", reason);
	time_format_rfc3339(time_real_ns(), ts, sizeof(ts));
	json_add_string(s->rec, "ended", ts);
	json_object_object_del(s->rec, "current");
	save(ss, s);
	log_info("suite %s: %s%s%s", s->name, state, reason ? ": " : "", reason ? reason : "");
	if (s->ev_pause != NULL)
		event_free(s->ev_pause);
	json_object_put(s->rec);
	if (ss->running == s)
		ss->running = NULL;
	clientfd_unref(s->cred.peer);
	free(s);
}

/* Record a run's outcome in the record. */
static void
run_record(struct suite *s, size_t i, const char *status, const char *reason, json_object *figs)
{
	json_object *run = json_object_array_get_idx(s->runs, i);

	json_add_string(run, "status", status);
	if (reason != NULL && *reason)
		json_add_string(run, "reason", reason);
	if (figs != NULL)
		json_object_object_add(run, "figures", json_object_get(figs));
	json_add_uint(s->rec, "runs_done", i + 1);
}

/* ---- until the answer is sure (--until-ci) ---- */

/* The figure --until-ci judges in a run's figures: the first name matching the glob, else
 * throughput_mbps, transactions_per_s, else the first number. NULL when none. */
static const char *
until_figure(const struct suite *s, json_object *figs)
{
	const char *first = NULL;

	if (!json_object_is_type(figs, json_type_object))
		return NULL;
	json_object_object_foreach(figs, k, v)
	{
		if (!json_object_is_type(v, json_type_int) &&
		    !json_object_is_type(v, json_type_double))
			continue;
		if (s->until.figure[0] && fnmatch(s->until.figure, k, 0) == 0)
			return k;
		if (first == NULL)
			first = k;
	}
	if (s->until.figure[0])
		return NULL;
	if (json_object_object_get_ex(figs, "throughput_mbps", NULL))
		return "throughput_mbps";
	if (json_object_object_get_ex(figs, "transactions_per_s", NULL))
		return "transactions_per_s";
	return first;
}

/* The values of figure of point p over the first rounds (runs that passed). */
static void
point_values(const struct suite *s, size_t p, size_t rounds, const char *figure, double *v,
             struct stats_desc *d)
{
	size_t n = 0;

	for (size_t k = 0; k < rounds; k++) {
		json_object *run = json_object_array_get_idx(s->runs, run_index(s->npoints, k, p)),
		            *figs, *x;
		if (strcmp(json_get_string(run, "status", ""), "passed") != 0 ||
		    !json_object_object_get_ex(run, "figures", &figs) ||
		    !json_object_object_get_ex(figs, figure, &x) ||
		    (!json_object_is_type(x, json_type_int) &&
		     !json_object_is_type(x, json_type_double)))
			continue;
		v[n++] = json_object_get_double(x);
	}
	stats_describe(v, n, d);
}

/* One interval of the record: point b against point a (a NULL: b's own mean). */
static json_object *
interval_json(const char *a, const char *b, const struct stats_desc *da,
              const struct stats_desc *db, double diff, double half, bool have, double ref)
{
	json_object *o = json_object_new_object();

	if (a != NULL)
		json_add_string(o, "a", a);
	json_add_string(o, "b", b);
	if (a != NULL) {
		json_add_uint(o, "n_a", da->n);
		json_object_object_add(o, "mean_a", da->n ? json_double(da->mean) : NULL);
	}
	json_add_uint(o, "n_b", db->n);
	json_object_object_add(o, "mean_b", db->n ? json_double(db->mean) : NULL);
	if (!have) {
		json_object_object_add(o, "ci95_half_pct", NULL);
		return o;
	}
	json_object_object_add(o, a ? "difference" : "mean", json_double(diff));
	json_object_object_add(o, "ci95_low", json_double(diff - half));
	json_object_object_add(o, "ci95_high", json_double(diff + half));
	json_object_object_add(o, "ci95_half_pct",
	                       ref != 0 ? json_double(100.0 * half / fabs(ref)) : NULL);
	if (a != NULL)
		json_object_object_add(o, "difference_pct",
		                       ref != 0 ? json_double(100.0 * diff / fabs(ref)) : NULL);
	return o;
}

/* The rounds after which --until-ci looks: whole rotations (every np rounds, when every
 * point has run as often in each place) for up to SUITE_UNTIL_ROTATION_MAX points, after
 * every round for more; never before SUITE_UNTIL_MIN_ROUNDS; always at the cap. */
static bool
until_looks_at(size_t np, size_t rounds, size_t cap)
{
	size_t step = np <= SUITE_UNTIL_ROTATION_MAX ? np : 1;

	return rounds >= SUITE_UNTIL_MIN_ROUNDS && (rounds % step == 0 || rounds == cap);
}

/* How many looks a suite of np points capped at cap rounds can take. */
static size_t
until_looks(size_t np, size_t cap)
{
	size_t n = 0;

	for (size_t r = 1; r <= cap; r++)
		n += until_looks_at(np, r, cap);
	return n;
}

/* The error rate of each look: COMPARE_ALPHA shared out over the looks (Bonferroni), so
 * that the chance of a suite calling a difference between points that do not differ, at
 * any look, stays within COMPARE_ALPHA. Looking after every round at 5 % each would call
 * it about three times as often over 10 looks (optional stopping). */
static double
until_alpha(size_t np, size_t cap)
{
	size_t looks = until_looks(np, cap);

	return COMPARE_ALPHA / (double)(looks ? looks : 1);
}

/* The rank test of a skewed figure's two points into the interval ("rank_test": {"w", "p",
 * "method"}); true when it finds a difference (p < alpha). */
static bool
until_rank(json_object *iv, const double *va, size_t na, const double *vb, size_t nb, double alpha)
{
	struct stats_rank r;
	json_object *o;

	if (stats_mann_whitney(va, na, vb, nb, &r) < 0)
		return false;
	o = json_object_new_object();
	json_object_object_add(o, "w", json_double(r.w));
	json_object_object_add(o, "p", json_double(r.p));
	json_add_string(o, "method", r.exact ? "exact" : "normal");
	json_object_object_add(iv, "rank_test", o);
	return r.p < alpha;
}

/* After a round: each point's interval against the first (one point: its mean's) into the
 * record's until_ci. True when every interval is sure: its half-width within pct % of the
 * first point's mean ("within"), or the whole interval beyond +-pct % ("beyond"). */
static bool
until_check(struct suite *s, size_t rounds)
{
	json_object *u = json_object_object_get(s->rec, "until_ci"), *arr = json_object_new_array();
	const char *figure = NULL;
	struct stats_desc d0, dp;
	double *v0 = xcalloc(rounds + 1, sizeof(double)), *vp = xcalloc(rounds + 1, sizeof(double));
	bool sure = true;
	double alpha = until_alpha(s->npoints, s->rounds_max);

	for (size_t i = 0; figure == NULL && i < rounds * s->npoints; i++) {
		json_object *figs = NULL;
		json_object_object_get_ex(json_object_array_get_idx(s->runs, i), "figures", &figs);
		figure = until_figure(s, figs);
	}
	json_add_uint(u, "iterations", rounds);
	json_add_string(u, "figure_judged", figure);
	if (figure == NULL)
		sure = false;
	else {
		const char *p0 =
		    json_get_string(json_object_array_get_idx(s->runs, 0), "point", "");
		point_values(s, 0, rounds, figure, v0, &d0);
		for (size_t p = s->npoints == 1 ? 0 : 1; p < s->npoints; p++) {
			const char *pn =
			    json_get_string(json_object_array_get_idx(s->runs, p), "point", "");
			double diff = 0, half = 0, lo, hi;
			bool have;
			json_object *iv;
			if (s->npoints == 1) {
				have =
				    stats_ci(&d0, stats_t_quantile(1 - alpha / 2, (double)d0.n - 1),
				             &lo, &hi) == 0;
				diff = d0.mean;
				half = have ? (hi - lo) / 2 : 0;
				iv = interval_json(NULL, pn, &d0, &d0, diff, half, have, d0.mean);
			} else {
				point_values(s, p, rounds, figure, vp, &dp);
				have = stats_diff_ci(&d0, &dp, 1 - alpha, &diff, &half) == 0;
				iv = interval_json(p0, pn, &d0, &dp, diff, half, have, d0.mean);
			}
			/* Sure: the interval is within pct % (the difference is known that
			 * closely), or all of it lies more than pct % away from no difference
			 * (a large change needs fewer runs to be sure of). For a skewed figure
			 * (a latency or percentile) "beyond" needs the rank test to agree too: a
			 * mean moved by one outlying run is not a change. */
			const char *by = NULL;
			bool ranks_agree = true;
			if (s->npoints > 1 && compare_skewed_figure(figure))
				ranks_agree = until_rank(iv, v0, d0.n, vp, dp.n, alpha);
			if (have && d0.mean != 0) {
				double lo_pct = 100.0 * (diff - half) / fabs(d0.mean);
				double hi_pct = 100.0 * (diff + half) / fabs(d0.mean);
				if (100.0 * half / fabs(d0.mean) <= s->until.pct)
					by = "within";
				else if (s->npoints > 1 && ranks_agree &&
				         (lo_pct > s->until.pct || hi_pct < -s->until.pct))
					by = "beyond";
			}
			json_add_string(iv, "sure_by", by);
			json_object_array_add(arr, iv);
			if (by == NULL)
				sure = false;
		}
	}
	free(v0);
	free(vp);
	json_object_object_add(u, "intervals", arr);
	json_add_bool(u, "sure", sure);
	return sure;
}

/* The runs not needed once the answer is sure: taken out of the record. */
static void
until_drop_rest(struct suite *s)
{
	size_t total = json_object_array_length(s->runs);

	if (total > s->next)
		json_object_array_del_idx(s->runs, s->next, total - s->next);
	json_add_uint(s->rec, "runs_total", s->next);
}

/* After a round of --until-ci: end the suite when the answer is sure (true), or say it is
 * not at the cap. */
static bool
until_round(struct suites *ss, struct suite *s)
{
	json_object *u = json_object_object_get(s->rec, "until_ci");
	size_t rounds = s->next / s->npoints;
	char why[200];

	if (s->until.pct <= 0 || s->next % s->npoints != 0 ||
	    !until_looks_at(s->npoints, rounds, s->rounds_max))
		return false;
	if (until_check(s, rounds)) {
		json_add_string(u, "stopped_by", "ci");
		until_drop_rest(s);
		snprintf(why, sizeof(why),
		         "sure after %zu iterations: each interval is within %g %% or lies beyond "
		         "it",
		         rounds, s->until.pct);
		json_add_string(u, "message", why);
		suite_end(ss, s, "finished", NULL);
		return true;
	}
	if (s->next >= json_object_array_length(s->runs)) {
		json_add_string(u, "stopped_by", "max_iterations");
		snprintf(why, sizeof(why),
		         "not sure: %zu iterations (the cap) and the interval is still wider than "
		         "%g %%",
		         rounds, s->until.pct);
		json_add_string(u, "message", why);
	}
	return false;
}

/* After a run: the suite ends (stopped, or its last run), or the next run starts after the
 * pause (never at once: the loop may be ending, a peer's transport failing at shutdown). */
static void
after_run(struct suites *ss, struct suite *s)
{
	struct timeval tv;

	if (s->stopping) {
		suite_end(ss, s, "stopped", "stopped by hand");
		return;
	}
	if (until_round(ss, s))
		return;
	if (s->next >= json_object_array_length(s->runs)) {
		suite_end(ss, s, "finished", NULL);
		return;
	}
	tv.tv_sec = (time_t)s->pause_s;
	tv.tv_usec = (suseconds_t)((s->pause_s - (double)tv.tv_sec) * 1e6);
	evtimer_add(s->ev_pause, &tv);
}

/* A test of the suite has finished (called by the runner). */
static void
test_done(struct test *t, void *arg)
{
	struct suites *ss = arg;
	struct suite *s = ss->running;
	json_object *figs = NULL;

	if (s == NULL || s->starting || strcmp(s->current, t->spec.name) != 0)
		return;
	if (t->summary != NULL)
		json_object_object_get_ex(t->summary, "figures", &figs);
	run_record(s, s->next - 1, runner_state_name(t->state), t->reason, figs);
	s->current[0] = '\0';
	json_object_object_del(s->rec, "current");
	save(ss, s);
	after_run(ss, s);
}

/* Start the run s->next - 1 with spec (taken over): true when it runs; a server started
 * for it on a peer is stopped when it does not. */
static bool
launch(struct suites *ss, struct suite *s, struct test_spec *spec, struct nm_error *err)
{
	json_object *run = json_object_array_get_idx(s->runs, s->next - 1), *desc;
	char server_peer[sizeof(spec->server_peer)], name[sizeof(spec->name)];

	snprintf(server_peer, sizeof(server_peer), "%s", spec->server_peer);
	snprintf(name, sizeof(name), "%s", spec->name);
	s->starting = true;
	desc = runner_start(ss->d->runner, spec, test_done, ss, err);
	s->starting = false;
	if (desc == NULL) {
		if (server_peer[0])
			peerwin_server_stop(ss->d->peerwins, server_peer, name);
		return false;
	}
	json_object_put(desc);
	json_add_string(run, "status", "running");
	save(ss, s);
	return true;
}

/* A run that did not start: recorded (status failed, or stopped); the suite goes on. */
static void
run_not_started(struct suite *s, const char *status, const char *why)
{
	log_warnx("suite %s: run %s: %s", s->name, s->current, why);
	run_record(s, s->next - 1, status, why, NULL);
	s->current[0] = '\0';
}

/* The peers of the run being prepared are ready (or one is not: the run is refused,
 * naming it, and the suite goes on): start it. */
static void
run_prepared(void *arg, const struct nm_error *perr)
{
	struct suites *ss = arg;
	struct suite *s = ss->running;
	struct test_spec *spec = s->prep;
	struct nm_error err;

	s->prep = NULL;
	if (perr == NULL && !s->stopping) {
		bool ok = launch(ss, s, spec, &err);
		free(spec);
		if (ok)
			return;
	} else {
		if (spec->server_peer[0])
			peerwin_server_stop(ss->d->peerwins, spec->server_peer, spec->name);
		if (perr != NULL)
			nm_error_set(&err, perr->code, "test %s refused: %s", spec->name,
			             perr->message);
		else
			nm_error_set(&err, NM_ERR_FAILED, "stopped by hand before it started");
		runner_spec_free(spec);
		free(spec);
	}
	run_not_started(s, s->stopping ? "stopped" : "failed", err.message);
	json_object_object_del(s->rec, "current");
	save(ss, s);
	after_run(ss, s);
}

/* Start the next run; a run that cannot start is recorded and the suite goes on. A run
 * with peers starts once they are ready (run_prepared). */
static void
start_next(struct suites *ss, struct suite *s)
{
	while (s->next < json_object_array_length(s->runs)) {
		json_object *run = json_object_array_get_idx(s->runs, s->next++), *args;
		struct test_spec spec;
		struct nm_error err;

		json_object_object_get_ex(run, "args", &args);
		snprintf(s->current, sizeof(s->current), "%s", json_get_string(run, "name", ""));
		json_add_string(s->rec, "current", s->current);
		if (runner_spec_parse(ss->d->runner, args, &spec, &err) == 0) {
			spec.cred = s->cred;
			spec.cred.peer = clientfd_ref(s->cred.peer);
			if (spec.peers == NULL) {
				if (launch(ss, s, &spec, &err))
					return;
			} else {
				s->prep = xmalloc(sizeof(*s->prep));
				*s->prep = spec;
				if (peertest_prepare(ss->d->peerwins, s->prep, run_prepared, ss,
				                     &err) == 0) {
					json_add_string(run, "status", "starting");
					save(ss, s);
					return;
				}
				runner_spec_free(s->prep);
				free(s->prep);
				s->prep = NULL;
			}
		}
		/* Failed at once (a result may be stored by the runner already). */
		run_not_started(s, "failed", err.message);
	}
	suite_end(ss, s, "finished", NULL);
}

/* Start a suite from its text. */
json_object *
suite_run(struct suites *ss, const char *text, const char *file, const char *name, bool dry,
          json_object *peers, const struct test_cred *cred, const struct suite_until *until,
          struct nm_error *err)
{
	struct parse p = {json_object_new_object(),
	                  json_object_new_object(),
	                  json_object_new_array(),
	                  json_object_new_array(),
	                  err,
	                  false};
	const char *sname, *profile;
	char profile_path[RUNNER_PROFILE_MAX + 256];
	json_object *runs = NULL, *rec = NULL, *dims;
	const char *const *matched;
	struct suite *s;
	char ts[40], glob[120];
	unsigned long iters;
	uint64_t pause_ms = 5000;
	int r;

	if (ss->running != NULL) {
		nm_error_set(err, NM_ERR_BUSY, "suite %s is running (suite stop ends it)",
		             ss->running->name);
		goto out;
	}
	if ((r = ini_parse_string(text, ini_cb, &p)) != 0) {
		if (!p.failed)
			nm_error_set(err, NM_ERR_BAD_ARGS, "%s: line %d: not INI", file, r);
		else
			nm_error_prefix(err, NM_ERR_BAD_ARGS, "%s: line %d", file, r);
		goto out;
	}
	for (size_t i = 0;
	     json_object_is_type(peers, json_type_array) && i < json_object_array_length(peers);
	     i++)
		add_peer(p.peers, json_object_get_string(json_object_array_get_idx(peers, i)));
	/* Only configured peers: checked once here rather than by every run's start. */
	if (peer_check_names(ss->d->peers, p.peers, err) < 0) {
		nm_error_prefix(err, NM_ERR_BAD_ARGS, "%s: peer", file);
		goto out;
	}
	sname = name ? name : json_get_string(p.suite, "name", NULL);
	if (sname == NULL || results_name_check(sname, err) < 0 || strchr(sname, '/') ||
	    strlen(sname) > 100) {
		if (sname == NULL || strchr(sname, '/') || strlen(sname) > 100)
			nm_error_set(err, NM_ERR_BAD_ARGS,
			             "%s: give the suite a name ([suite] name or --name; letters, "
			             "digits, '.', '_', '-', up to 100)",
			             file);
		goto out;
	}
	iters = strtoul(json_get_string(p.suite, "iterations", "1"), NULL, 10);
	if (iters < 1 || iters > 1000) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "%s: [suite] iterations: 1 to 1000", file);
		goto out;
	}
	if (until != NULL)
		iters = until->max_iterations ? until->max_iterations : SUITE_UNTIL_MAX_DEFAULT;
	if (config_parse_duration_ms(json_get_string(p.suite, "pause", "5s"), &pause_ms) < 0 ||
	    pause_ms > 3600000) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "%s: [suite] pause: a duration up to 1h", file);
		goto out;
	}
	profile = json_get_string(p.suite, "profile", NULL);
	/* A profile file by path: a relative one is beside the suite file. */
	if (profile != NULL && profile_is_path(profile) && profile[0] != '/') {
		const char *slash = strrchr(file, '/');
		if (file[0] != '/' || slash == NULL) {
			nm_error_set(err, NM_ERR_BAD_ARGS,
			             "%s: [suite] profile = %s: a relative path needs the suite's "
			             "file; give an absolute path",
			             file, profile);
			goto out;
		}
		snprintf(profile_path, sizeof(profile_path), "%.*s/%s", (int)(slash - file), file,
		         profile);
		profile = profile_path;
	}
	if (profile != NULL && strlen(profile) >= RUNNER_PROFILE_MAX) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "%s: [suite] profile: longer than %d bytes",
		             file, RUNNER_PROFILE_MAX - 1);
		goto out;
	}
	for (size_t d = 0; profile == NULL && d < json_object_array_length(p.matrix); d++) {
		const char *dn =
		    json_get_string(json_object_array_get_idx(p.matrix, d), "name", "");
		if (strcmp(dn, "conns") != 0) {
			nm_error_set(
			    err, NM_ERR_BAD_ARGS,
			    "%s: [matrix] %s is a profile value, but [suite] names no profile "
			    "to put it in (profile = NAME, with ${%s} in it)",
			    file, dn, dn);
			goto out;
		}
	}
	snprintf(glob, sizeof(glob), "%s/*", sname);
	if (suite_exists(ss, sname) || results_match(ss->d->results, glob, &matched) > 0) {
		nm_error_set(
		    err, NM_ERR_EXISTS,
		    "suite %s has run before (its results are %s); choose another --name or "
		    "delete them",
		    sname, glob);
		goto out;
	}
	if ((runs = build_runs(ss, sname, &p, (unsigned)iters, profile, err)) == NULL ||
	    (profile != NULL && check_profile(ss, profile, runs, err) < 0))
		goto out;
	if (dry) {
		rec = json_object_new_object();
		json_add_string(rec, "name", sname);
		json_add_string(rec, "file", file);
		json_add_string(rec, "state", "dry-run");
		json_add_uint(rec, "runs_total", json_object_array_length(runs));
		json_object_object_add(rec, "runs", runs);
		runs = NULL;
		goto out;
	}
	s = xcalloc(1, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", sname);
	s->pause_s = (double)pause_ms / 1000;
	s->cred = *cred;
	s->cred.peer = clientfd_ref(cred->peer);
	s->ev_pause = evtimer_new(ss->d->base, pause_cb, ss);
	s->npoints = npoints(p.matrix);
	s->rounds_max = iters;
	if (until != NULL)
		s->until = *until;
	rec = json_object_new_object();
	json_add_string(rec, "name", sname);
	json_add_string(rec, "file", file);
	json_add_string(rec, "description", json_get_string(p.suite, "description", ""));
	json_add_string(rec, "state", "running");
	time_format_rfc3339(time_real_ns(), ts, sizeof(ts));
	json_add_string(rec, "started", ts);
	json_add_uint(rec, "iterations", iters);
	json_object_object_add(rec, "pause_s", json_double(s->pause_s));
	if (until != NULL) {
		json_object *u = json_object_new_object();
		json_object_object_add(u, "pct", json_double(until->pct));
		json_add_uint(u, "max_iterations", iters);
		json_add_string(u, "figure", until->figure[0] ? until->figure : NULL);
		json_add_uint(u, "looks", until_looks(s->npoints, iters));
		json_object_object_add(u, "alpha_per_look",
		                       json_double(until_alpha(s->npoints, iters)));
		json_add_string(u, "stopped_by", NULL);
		json_object_object_add(rec, "until_ci", u);
	}
	if (profile != NULL)
		json_add_string(rec, "profile", profile);
	if (json_object_array_length(p.peers) > 0)
		json_object_object_add(rec, "peers", json_object_get(p.peers));
	json_object_object_add(rec, "test", json_object_get(p.test));
	dims = json_object_get(p.matrix);
	json_object_object_add(rec, "matrix", dims);
	json_add_uint(rec, "runs_total", json_object_array_length(runs));
	json_add_uint(rec, "runs_done", 0);
	json_object_object_add(rec, "runs", runs);
	s->rec = rec;
	s->runs = runs;
	runs = NULL;
	ss->running = s;
	log_info("suite %s: %zu runs from %s", sname, json_object_array_length(s->runs), file);
	save(ss, s);
	rec = json_object_get(s->rec);
	start_next(ss, s);
out:
	json_object_put(runs);
	json_object_put(p.suite);
	json_object_put(p.test);
	json_object_put(p.matrix);
	json_object_put(p.peers);
	return rec;
}

/* Stop the running suite. */
json_object *
suite_stop(struct suites *ss, const char *name, struct nm_error *err)
{
	struct suite *s = ss->running;
	json_object *rec;
	struct nm_error e;

	if (s == NULL || (name != NULL && strcmp(name, s->name) != 0)) {
		nm_error_set(err, NM_ERR_NOT_FOUND, "no running suite%s%s", name ? " named " : "",
		             name ? name : "");
		return NULL;
	}
	rec = json_object_get(s->rec);
	s->stopping = true;
	if (s->prep != NULL)
		return rec; /* its peers' answers end the suite (run_prepared) */
	if (s->current[0]) {
		json_object *r = runner_stop(ss->d->runner, s->current, &e);
		json_object_put(r);
		if (r == NULL)
			log_warnx("suite %s: %s", s->name, e.message);
		return rec; /* test_done ends the suite */
	}
	suite_end(ss, s, "stopped", "stopped by hand");
	return rec;
}

/* The mean of every numeric figure of the passed runs of each point. */
static json_object *
summary_of(json_object *runs)
{
	json_object *points = json_object_new_object(), *out = json_object_new_array();

	for (size_t i = 0; i < json_object_array_length(runs); i++) {
		json_object *run = json_object_array_get_idx(runs, i), *pt, *figs, *sums;
		const char *point = json_get_string(run, "point", "");

		if (!json_object_object_get_ex(points, point, &pt)) {
			pt = json_object_new_object();
			json_add_string(pt, "point", point);
			json_add_uint(pt, "runs", 0);
			json_add_uint(pt, "passed", 0);
			json_object_object_add(pt, "sums", json_object_new_object());
			json_object_object_add(points, point, pt);
			json_object_array_add(out, json_object_get(pt));
		}
		json_add_uint(pt, "runs", (uint64_t)json_get_int(pt, "runs", 0) + 1);
		if (strcmp(json_get_string(run, "status", ""), "passed") != 0 ||
		    !json_object_object_get_ex(run, "figures", &figs))
			continue;
		json_add_uint(pt, "passed", (uint64_t)json_get_int(pt, "passed", 0) + 1);
		json_object_object_get_ex(pt, "sums", &sums);
		json_object_object_foreach(figs, k, v)
		{
			if (json_object_is_type(v, json_type_double) ||
			    json_object_is_type(v, json_type_int))
				json_object_object_add(sums, k,
				                       json_double(json_get_double(sums, k, 0) +
				                                   json_object_get_double(v)));
		}
	}
	for (size_t i = 0; i < json_object_array_length(out); i++) {
		json_object *pt = json_object_array_get_idx(out, i), *sums, *means;
		double n = (double)json_get_int(pt, "passed", 0);

		json_object_object_get_ex(pt, "sums", &sums);
		means = json_object_new_object();
		json_object_object_foreach(sums, k, v)
		{
			json_object_object_add(means, k,
			                       json_double(json_object_get_double(v) / n));
		}
		json_object_object_del(pt, "sums");
		json_object_object_add(pt, "mean", means);
	}
	json_object_put(points);
	return out;
}

/* A suite's record with its summary; the runs without their arguments. */
json_object *
suite_status(struct suites *ss, const char *name, struct nm_error *err)
{
	json_object *rec, *out, *runs, *copy;

	if (ss->running != NULL && (name == NULL || strcmp(name, ss->running->name) == 0))
		rec = json_object_get(ss->running->rec);
	else if (name == NULL) {
		nm_error_set(err, NM_ERR_NOT_FOUND, "no suite is running (suite status NAME)");
		return NULL;
	} else if ((rec = load(ss, name, err)) == NULL) {
		if (err->code == NM_ERR_NOT_FOUND)
			nm_error_set(err, NM_ERR_NOT_FOUND, "no suite named %s", name);
		return NULL;
	}
	out = json_object_new_object();
	json_object_object_foreach(rec, k, v)
	{
		if (strcmp(k, "runs") != 0)
			json_object_object_add(out, k, json_object_get(v));
	}
	copy = json_object_new_array();
	if (json_object_object_get_ex(rec, "runs", &runs))
		for (size_t i = 0; i < json_object_array_length(runs); i++) {
			json_object *run = json_object_array_get_idx(runs, i), *e;
			e = json_object_new_object();
			json_object_object_foreach(run, k, v)
			{
				if (strcmp(k, "args") != 0)
					json_object_object_add(e, k, json_object_get(v));
			}
			json_object_array_add(copy, e);
		}
	json_object_object_add(out, "summary", summary_of(copy));
	json_object_object_add(out, "runs", copy);
	json_object_put(rec);
	return out;
}

/* Collect the names of stored records. */
static void
list_one(const char *rel, void *arg)
{
	json_object *names = arg;
	size_t n = strlen(rel);

	if (n > strlen(SUITE_SUFFIX) && strchr(rel, '/') == NULL)
		json_object_array_add(
		    names, json_object_new_string_len(rel, (int)(n - strlen(SUITE_SUFFIX))));
}

/* Every suite on disk, by name. */
json_object *
suite_list(struct suites *ss)
{
	json_object *names = json_object_new_array(), *out = json_object_new_array();

	statefile_scan(ss->dir, SUITE_SUFFIX, list_one, names);
	for (size_t i = 0; i < json_object_array_length(names); i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(names, i));
		struct nm_error err;
		json_object *rec = load(ss, name, &err), *e = json_object_new_object();

		json_add_string(e, "name", name);
		if (rec == NULL)
			json_add_string(e, "error", err.message);
		else {
			static const char *const keep[] = {"state",     "started",    "ended",
			                                   "runs_done", "runs_total", "reason",
			                                   "file",      NULL};
			json_object *v;
			for (size_t k = 0; keep[k] != NULL; k++)
				if (json_object_object_get_ex(rec, keep[k], &v))
					json_object_object_add(e, keep[k], json_object_get(v));
		}
		json_object_put(rec);
		json_object_array_add(out, e);
	}
	json_object_put(names);
	return out;
}

int
suite_exists(struct suites *ss, const char *name)
{
	struct nm_error err;
	json_object *rec;

	if (ss->running != NULL && strcmp(ss->running->name, name) == 0)
		return 1;
	/* A record that cannot be read is there all the same: never overwrite it. */
	if ((rec = load(ss, name, &err)) == NULL)
		return err.code != NM_ERR_NOT_FOUND;
	json_object_put(rec);
	return 1;
}

/* Shutdown: a running suite is incomplete; its test is ended by runner_free. */
void
suite_free(struct suites *ss)
{
	struct suite *s;

	if (ss == NULL)
		return;
	if ((s = ss->running) != NULL) {
		if (s->current[0]) {
			struct test *t = runner_find(ss->d->runner, s->current);
			if (t != NULL)
				t->on_finish = NULL;
			run_record(s, s->next - 1, "incomplete",
			           "the daemon stopped during the test", NULL);
		}
		suite_end(ss, s, "incomplete", "the daemon stopped during the suite");
	}
	free(ss->dir);
	free(ss);
}
