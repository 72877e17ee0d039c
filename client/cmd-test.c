/* cmd-test.c: the benchmark commands: test start/status/stop, tests, suite run/status/stop;
 * reading a suite file; what --wait shows of a test or a suite it follows (follow.c). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "jsonutil.h"
#include "render-table.h"
#include "xmalloc.h"

#define SUITE_FILE_MAX 60000

/* The headline figures of a test, in this order: key, label, unit, decimals. */
static const struct {
	const char *key, *label, *unit;
	int decimals;
} headline[] = {
    {"throughput_mbps", "throughput", "Mbit/s", 1},
    {"transactions_per_s", "transactions", "/s", 1},
    {"transactions_per_s_per_proc", "per process", "trans/s", 1},
    {"latency_us", "latency", "us (1e6 / per-process trans/s)", 2},
    {"mean_latency_us", "mean latency", "us (netperf)", 2},
    {"p99_latency_us_max", "p99 latency", "us (worst process)", 0},
    {"retransmits", "retransmits", "", 0},
    {"local_cpu_pct", "CPU here", "% (netperf -c)", 1},
    {"remote_cpu_pct", "CPU far end", "% (netperf -C)", 1},
};

/* One figure for a table cell: "9,384.1", or "-" when absent. */
static void
figure_cell(json_object *figs, const char *key, int decimals, char *buf, size_t size)
{
	json_object *v;

	if (!json_object_object_get_ex(figs, key, &v) || v == NULL) {
		snprintf(buf, size, "-");
		return;
	}
	fmt_decimal(json_object_get_double(v), decimals, buf, size);
}

/* "netperf TCP_STREAM x4 -> 10.0.0.2, 10 s (warm-up 2 s, cool-down 2 s)". */
static void
print_spec(json_object *t, FILE *fp)
{
	json_object *argv;

	fprintf(fp, "%s", json_get_string(t, "driver", "?"));
	if (json_object_object_get_ex(t, "type", NULL))
		fprintf(fp, " %s", json_get_string(t, "type", ""));
	fprintf(fp, " x%lld", (long long)json_get_int(t, "procs", 1));
	if (json_object_object_get_ex(t, "host", NULL))
		fprintf(fp, " -> %s", json_get_string(t, "host", ""));
	if (json_object_object_get_ex(t, "argv", &argv)) {
		fprintf(fp, ":");
		for (size_t i = 0; i < json_object_array_length(argv); i++)
			fprintf(fp, " %s",
			        json_object_get_string(json_object_array_get_idx(argv, i)));
	}
	if (json_get_double(t, "duration_s", 0) > 0)
		fprintf(fp, ", %g s", json_get_double(t, "duration_s", 0));
	fprintf(fp, " (warm-up %g s, cool-down %g s)", json_get_double(t, "warmup_s", 0),
	        json_get_double(t, "cooldown_s", 0));
	if (json_object_object_get_ex(t, "profile", NULL))
		fprintf(fp, ", profile %s", json_get_string(t, "profile", ""));
	if (json_object_object_get_ex(t, "netns", NULL))
		fprintf(fp, ", netns %s", json_get_string(t, "netns", ""));
	fprintf(fp, "\n");
}

/* The figures of a finished test, one per line; other figures after the headline ones. */
static void
print_figures(json_object *figs, FILE *fp)
{
	char buf[64];

	for (size_t i = 0; i < sizeof(headline) / sizeof(headline[0]); i++) {
		json_object *v;
		if (!json_object_object_get_ex(figs, headline[i].key, &v) || v == NULL)
			continue;
		fmt_decimal(json_object_get_double(v), headline[i].decimals, buf, sizeof(buf));
		fprintf(fp, "  %-14s %s %s\n", headline[i].label, buf, headline[i].unit);
	}
	json_object_object_foreach(figs, k, v)
	{
		bool known = false;
		for (size_t i = 0; i < sizeof(headline) / sizeof(headline[0]); i++)
			known |= strcmp(headline[i].key, k) == 0;
		if (known || v == NULL)
			continue;
		fmt_decimal(json_object_get_double(v),
		            json_object_is_type(v, json_type_int) ? 0 : 2, buf, sizeof(buf));
		fprintf(fp, "  %-14s %s\n", k, buf);
	}
}

/* The processes that did not end well. */
static void
print_failed_procs(json_object *t, FILE *fp)
{
	json_object *procs;

	if (!json_object_object_get_ex(t, "processes", &procs))
		return;
	for (size_t i = 0; i < json_object_array_length(procs); i++) {
		json_object *p = json_object_array_get_idx(procs, i);
		const char *st = json_get_string(p, "state", "");
		if (strcmp(st, "exited with status 0") == 0 || strcmp(st, "running") == 0)
			continue;
		fprintf(fp, "  process %lld (pid %lld): %s%s%s\n",
		        (long long)json_get_int(p, "index", 0),
		        (long long)json_get_int(p, "pid", -1), st,
		        json_object_object_get_ex(p, "stderr", NULL) ? ": " : "",
		        json_get_string(p, "stderr", ""));
	}
}

/* One test, running or finished. */
static void
print_test(json_object *t, FILE *fp)
{
	const char *state = json_get_string(t, "state", "?");
	json_object *figs, *live;
	char el[32];

	fmt_seconds(json_get_double(t, "elapsed_s", 0), el, sizeof(el));
	fprintf(fp, "test %s: %s after %s\n  ", json_get_string(t, "name", "?"), state, el);
	print_spec(t, fp);
	if (json_object_object_get_ex(t, "reason", NULL))
		fprintf(fp, "  reason: %s\n", json_get_string(t, "reason", ""));
	if (json_object_object_get_ex(t, "live", &live) && json_object_object_length(live) > 0) {
		fprintf(fp, "  live:\n");
		print_figures(live, fp);
	}
	if (json_object_object_get_ex(t, "figures", &figs))
		print_figures(figs, fp);
	print_failed_procs(t, fp);
}

/* The benchmark block of a test's report. */
void
ctl_print_benchmark(json_object *test, FILE *fp)
{
	json_object *figs;

	fprintf(fp, "\nBenchmark (its own figures, over its whole run)\n  ");
	print_spec(test, fp);
	fprintf(fp, "  status: %s%s%s\n", json_get_string(test, "status", "?"),
	        json_object_object_get_ex(test, "reason", NULL) ? ": " : "",
	        json_get_string(test, "reason", ""));
	if (json_object_object_get_ex(test, "figures", &figs))
		print_figures(figs, fp);
	print_failed_procs(test, fp);
}

/* test start, test stop: the test described. */
void
render_test(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	(void)opts;
	print_test(result, fp);
}

/* test status: every test listed. */
void
render_test_status(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	json_object *arr = ctl_array(result, "tests");

	(void)opts;
	if (arr == NULL || json_object_array_length(arr) == 0) {
		fprintf(fp, "no test is running (tests lists the finished ones)\n");
		return;
	}
	for (size_t i = 0; i < json_object_array_length(arr); i++)
		print_test(json_object_array_get_idx(arr, i), fp);
}

/* tests: one row each. */
void
render_tests(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {"TEST",    "STATE",    "DRIVER",      "TYPE", ">PROCS",
	                                  ">MBIT/S", ">TRANS/S", ">LATENCY_US", NULL};
	json_object *arr = ctl_array(result, "tests");
	struct table t;

	table_init(&t, hdr);
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i), *figs = NULL;
		char procs[16], mb[32], tr[32], lat[32];

		json_object_object_get_ex(e, "figures", &figs);
		if (figs == NULL)
			json_object_object_get_ex(e, "live", &figs);
		snprintf(procs, sizeof(procs), "%lld", (long long)json_get_int(e, "procs", 1));
		figure_cell(figs, "throughput_mbps", 1, mb, sizeof(mb));
		figure_cell(figs, "transactions_per_s", 1, tr, sizeof(tr));
		figure_cell(figs, "latency_us", 2, lat, sizeof(lat));
		const char *row[] = {json_get_string(e, "name", ""),
		                     json_get_string(e, "state", ""),
		                     json_get_string(e, "driver", ""),
		                     json_get_string(e, "type", "-"),
		                     procs,
		                     mb,
		                     tr,
		                     lat};
		table_row(&t, row);
	}
	if (!opts->csv && t.nrows == 0) {
		table_free(&t);
		fprintf(fp, "no tests in this daemon run (tests --all adds stored ones)\n");
		return;
	}
	ctl_table_out(&t, opts, fp);
	for (size_t i = 0; !opts->csv && arr && i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		if (json_object_object_get_ex(e, "reason", NULL))
			fprintf(fp, "%s: %s\n", json_get_string(e, "name", "?"),
			        json_get_string(e, "reason", ""));
	}
}

/* The runs of a suite as a table. */
static void
suite_runs(json_object *runs, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {"RUN",      "STATUS",      ">MBIT/S",
	                                  ">TRANS/S", ">LATENCY_US", NULL};
	struct table t;

	table_init(&t, hdr);
	for (size_t i = 0; i < json_object_array_length(runs); i++) {
		json_object *r = json_object_array_get_idx(runs, i), *figs = NULL;
		char mb[32], tr[32], lat[32];

		json_object_object_get_ex(r, "figures", &figs);
		figure_cell(figs, "throughput_mbps", 1, mb, sizeof(mb));
		figure_cell(figs, "transactions_per_s", 1, tr, sizeof(tr));
		figure_cell(figs, "latency_us", 2, lat, sizeof(lat));
		const char *row[] = {json_get_string(r, "name", ""),
		                     json_get_string(r, "status", ""), mb, tr, lat};
		table_row(&t, row);
	}
	ctl_table_out(&t, opts, fp);
}

/* The summary: the mean per point over its passed iterations. */
static void
suite_summary(json_object *sum, const struct ctl_opts *opts, FILE *fp)
{
	static const char *const hdr[] = {"POINT",    ">PASSED",     ">MBIT/S",
	                                  ">TRANS/S", ">LATENCY_US", NULL};
	struct table t;

	table_init(&t, hdr);
	for (size_t i = 0; i < json_object_array_length(sum); i++) {
		json_object *p = json_object_array_get_idx(sum, i), *mean = NULL;
		char passed[32], mb[32], tr[32], lat[32];

		json_object_object_get_ex(p, "mean", &mean);
		snprintf(passed, sizeof(passed), "%lld/%lld",
		         (long long)json_get_int(p, "passed", 0),
		         (long long)json_get_int(p, "runs", 0));
		figure_cell(mean, "throughput_mbps", 1, mb, sizeof(mb));
		figure_cell(mean, "transactions_per_s", 1, tr, sizeof(tr));
		figure_cell(mean, "latency_us", 2, lat, sizeof(lat));
		const char *row[] = {json_get_string(p, "point", ""), passed, mb, tr, lat};
		table_row(&t, row);
	}
	ctl_table_out(&t, opts, fp);
}

/* --until-ci: what it asked, where it stopped and why, and each interval. */
static void
suite_until(json_object *result, FILE *fp)
{
	json_object *u, *iv;

	if (!json_object_object_get_ex(result, "until_ci", &u) || u == NULL)
		return;
	fprintf(fp, "until the 95%% CI of %s is within %g%% (at most %lld iterations",
	        json_get_string(u, "figure_judged", json_get_string(u, "figure", "the figure")),
	        json_get_double(u, "pct", 0), (long long)json_get_int(u, "max_iterations", 0));
	if (json_get_int(u, "looks", 0) > 1) /* a record from before the looks has none */
		fprintf(fp, "; %lld looks, each at %.4g%%", (long long)json_get_int(u, "looks", 0),
		        100 * (1 - json_get_double(u, "alpha_per_look", 0.05)));
	fprintf(fp, "): ");
	fprintf(
	    fp, "%s\n",
	    json_get_string(u, "message", json_get_bool(u, "sure", false) ? "sure" : "not yet"));
	iv = json_object_object_get(u, "intervals");
	for (size_t i = 0; iv != NULL && i < json_object_array_length(iv); i++) {
		json_object *o = json_object_array_get_idx(iv, i);
		json_object *hp = json_object_object_get(o, "ci95_half_pct");
		if (json_object_object_get_ex(o, "a", NULL))
			fprintf(fp, "  %s - %s: %+.4g [%.4g, %.4g], +-%.2f%% of %s's mean\n",
			        json_get_string(o, "b", "?"), json_get_string(o, "a", "?"),
			        json_get_double(o, "difference", 0),
			        json_get_double(o, "ci95_low", 0),
			        json_get_double(o, "ci95_high", 0),
			        hp ? json_object_get_double(hp) : -1, json_get_string(o, "a", "?"));
		else
			fprintf(fp, "  %s: %.4g [%.4g, %.4g], +-%.2f%%\n",
			        json_get_string(o, "b", "?"), json_get_double(o, "mean", 0),
			        json_get_double(o, "ci95_low", 0),
			        json_get_double(o, "ci95_high", 0),
			        hp ? json_object_get_double(hp) : -1);
		/* A latency or percentile: the rank test that a "beyond" needs too. */
		json_object *rt = json_object_object_get(o, "rank_test");
		if (rt != NULL)
			fprintf(fp, "    rank test (Mann-Whitney, %s): p %.4g%s\n",
			        json_get_string(rt, "method", "?"), json_get_double(rt, "p", 1),
			        json_get_double(rt, "p", 1) < 0.05 ? ", a difference"
			                                           : ", not sure");
		if (json_get_string(o, "sure_by", NULL) != NULL)
			fprintf(fp, "    sure: %s\n",
			        strcmp(json_get_string(o, "sure_by", ""), "within") == 0
			            ? "the interval is within the bound"
			            : "all of the interval lies beyond the bound");
	}
}

/* suite run, suite status, suite stop: the record and its tables; or the list. */
void
render_suite(json_object *result, const struct ctl_opts *opts, FILE *fp)
{
	json_object *runs, *sum, *list;

	if (json_object_object_get_ex(result, "suites", &list)) {
		static const char *const hdr[] = {"SUITE", "STATE", ">RUNS", "STARTED", NULL};
		struct table t;
		table_init(&t, hdr);
		for (size_t i = 0; i < json_object_array_length(list); i++) {
			json_object *s = json_object_array_get_idx(list, i);
			char runs_s[32];
			snprintf(runs_s, sizeof(runs_s), "%lld/%lld",
			         (long long)json_get_int(s, "runs_done", 0),
			         (long long)json_get_int(s, "runs_total", 0));
			const char *row[] = {json_get_string(s, "name", ""),
			                     json_get_string(s, "state", "?"), runs_s,
			                     json_get_string(s, "started", "")};
			table_row(&t, row);
		}
		if (t.nrows == 0 && !opts->csv)
			fprintf(fp, "no suites have run\n");
		else
			ctl_table_out(&t, opts, fp);
		table_free(&t);
		return;
	}
	if (!opts->csv) {
		fprintf(fp, "suite %s: %s, %lld of %lld runs done",
		        json_get_string(result, "name", "?"), json_get_string(result, "state", "?"),
		        (long long)json_get_int(result, "runs_done", 0),
		        (long long)json_get_int(result, "runs_total", 0));
		if (json_object_object_get_ex(result, "current", NULL))
			fprintf(fp, ", running %s", json_get_string(result, "current", ""));
		fprintf(fp, "\n");
		if (json_object_object_get_ex(result, "reason", NULL))
			fprintf(fp, "reason: %s\n", json_get_string(result, "reason", ""));
		suite_until(result, fp);
	}
	if (json_object_object_get_ex(result, "runs", &runs)) {
		if (!opts->csv)
			fprintf(fp, "\n");
		suite_runs(runs, opts, fp);
	}
	if (!opts->csv && json_object_object_get_ex(result, "summary", &sum)) {
		fprintf(fp, "\nsummary (mean of the passed iterations):\n");
		suite_summary(sum, opts, fp);
	}
}

/* suite run FILE: read the file into args as text (named after the file). 0, or -1 after
 * printing why. */
int
ctl_suite_args(json_object *args)
{
	const char *file = json_get_string(args, "file", NULL);
	char path[PATH_MAX], *text, shown[256];
	size_t n;
	FILE *fp;

	if (file == NULL) {
		fprintf(stderr,
		        "netmetricsctl suite run: give the suite FILE (conf/suites/*.conf)\n");
		return -1;
	}
	/* A bare name that is no file here: the daemon's suite directory has it (suite_dir). */
	if (strchr(file, '/') == NULL &&
	    (strlen(file) <= 5 || strcmp(file + strlen(file) - 5, ".conf") != 0) &&
	    access(file, F_OK) != 0)
		return 0;
	if ((fp = fopen(file, "r")) == NULL) {
		fprintf(stderr, "netmetricsctl: %s: %s\n", conn_text(file, shown, sizeof(shown)),
		        strerror(errno));
		return -1;
	}
	text = xmalloc(SUITE_FILE_MAX + 2);
	n = fread(text, 1, SUITE_FILE_MAX + 1, fp);
	fclose(fp);
	if (n > SUITE_FILE_MAX) {
		fprintf(stderr, "netmetricsctl: %s: longer than %d bytes\n", file, SUITE_FILE_MAX);
		free(text);
		return -1;
	}
	json_object_object_add(args, "text", json_object_new_string_len(text, (int)n));
	json_object_object_add(args, "file",
	                       json_object_new_string(realpath(file, path) ? path : file));
	free(text);
	return 0;
}

/* A test's progress line: "test NAME: measuring, 4 s, 9384.1 Mbit/s". */
static void
test_progress(json_object *t, char *buf, size_t size)
{
	json_object *live = NULL, *v;
	size_t n;

	n = (size_t)snprintf(buf, size, "test %s: %s, %.0f s", json_get_string(t, "name", "?"),
	                     json_get_string(t, "state", "?"), json_get_double(t, "elapsed_s", 0));
	json_object_object_get_ex(t, "live", &live);
	if (n < size && json_object_object_get_ex(live, "throughput_mbps", &v))
		n +=
		    (size_t)snprintf(buf + n, size - n, ", %.1f Mbit/s", json_object_get_double(v));
	if (n < size && json_object_object_get_ex(live, "transactions_per_s", &v))
		snprintf(buf + n, size - n, ", %.1f trans/s", json_object_get_double(v));
}

/* A test's end: printed (unless fp is NULL); 0 when it passed. */
static int
test_end(json_object *t, const struct ctl_opts *opts, FILE *fp)
{
	(void)opts;
	if (fp != NULL)
		print_test(t, fp);
	return strcmp(json_get_string(t, "state", ""), "passed") == 0 ? CTL_EXIT_OK
	                                                              : CTL_EXIT_REFUSED;
}

static const struct ctl_follow follow_test = {"test", "test-status", test_progress, test_end};

int
ctl_wait_test(const struct ctl_opts *opts, struct conn *conn, json_object *started)
{
	return ctl_follow_run(opts, conn, &follow_test, json_get_string(started, "name", ""));
}

/* A suite's progress line: "suite NAME: 2 of 4 runs done, running conns_2". */
static void
suite_progress(json_object *s, char *buf, size_t size)
{
	snprintf(buf, size, "suite %s: %lld of %lld runs done, running %s",
	         json_get_string(s, "name", "?"), (long long)json_get_int(s, "runs_done", 0),
	         (long long)json_get_int(s, "runs_total", 0), json_get_string(s, "current", "-"));
}

/* A suite's end: its record printed (unless fp is NULL); 0 when it finished and every run
 * passed. */
static int
suite_end(json_object *s, const struct ctl_opts *opts, FILE *fp)
{
	json_object *runs;
	int rc = strcmp(json_get_string(s, "state", ""), "finished") == 0 ? CTL_EXIT_OK
	                                                                  : CTL_EXIT_REFUSED;

	if (fp != NULL)
		render_suite(s, opts, fp);
	if (json_object_object_get_ex(s, "runs", &runs))
		for (size_t i = 0; i < json_object_array_length(runs); i++)
			if (strcmp(
			        json_get_string(json_object_array_get_idx(runs, i), "status", ""),
			        "passed") != 0)
				rc = CTL_EXIT_REFUSED;
	return rc;
}

static const struct ctl_follow follow_suite = {"suite", "suite-status", suite_progress, suite_end};

int
ctl_wait_suite(const struct ctl_opts *opts, struct conn *conn, json_object *started)
{
	return ctl_follow_run(opts, conn, &follow_suite, json_get_string(started, "name", ""));
}
