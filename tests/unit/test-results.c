/* test-results.c: the results store: name checks, put/get/delete/match with names that are
 * paths, atomic writes (no temp file left), refusal of an existing name, a reopen that
 * lists everything stored before; the index (listings newest first, filters, pages,
 * figures, skipped files, rebuilt when damaged or stale) and puts on the writer thread
 * (the name taken at once, the file there only when done runs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>
#include <math.h>

#include "error.h"
#include "results.h"
#include "statefile.h"

struct fixture {
	char dir[64];
	struct results *rs;
};

/* Remove one entry of a tree (nftw callback). */
static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* A fresh state directory and a store opened on it. */
static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct nm_error err;

	snprintf(f->dir, sizeof(f->dir), "/tmp/nm-test-results-XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	if ((f->rs = results_open(f->dir, &err)) == NULL)
		return -1;
	*state = f;
	return 0;
}

/* Close the store and remove the state directory. */
static int
teardown(void **state)
{
	struct fixture *f = *state;

	results_close(f->rs);
	nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

/* A small result object (new reference). */
static json_object *
make_result(const char *name, int value)
{
	json_object *r = json_object_new_object(), *w = json_object_new_object();

	json_object_object_add(w, "name", json_object_new_string(name));
	json_object_object_add(r, "window", w);
	json_object_object_add(r, "value", json_object_new_int(value));
	json_object_object_add(r, "path", json_object_new_string("/a/b"));
	return r;
}

/* Store a result, asserting it worked. */
static void
put_ok(struct results *rs, const char *name, int value)
{
	json_object *r = make_result(name, value);
	struct nm_error err;

	if (results_put(rs, name, r, &err) < 0)
		fail_msg("put %s: %s", name, err.message);
	json_object_put(r);
}

/* Count files below dir whose names end with suffix. */
static size_t
count_files(const char *dir, const char *suffix)
{
	char path[512];
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir(dir);

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		size_t l = strlen(de->d_name), m = strlen(suffix);
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			n += count_files(path, suffix);
		else if (l >= m && strcmp(de->d_name + l - m, suffix) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* Names: what passes, what is refused, and that the refusal says bad_args. */
static void
test_name_check(void **state)
{
	static const char *const good[] = {
	    "run1", "suite/conns_64_iter_1", "a.b-c_D9", "a/b/c", ".hidden", "x..y", NULL};
	static const char *const bad[] = {"",  "../x", "a//b", "/a",   "a/",  "/", "a/./b", "..",
	                                  ".", "a/..", "a b",  "a\\b", "a:b", "é", "a\nb",  NULL};
	struct nm_error err;
	char name[256];

	(void)state;
	for (size_t i = 0; good[i] != NULL; i++)
		if (results_name_check(good[i], &err) < 0)
			fail_msg("\"%s\" refused: %s", good[i], err.message);
	for (size_t i = 0; bad[i] != NULL; i++) {
		nm_error_clear(&err);
		if (results_name_check(bad[i], &err) == 0)
			fail_msg("\"%s\" accepted", bad[i]);
		assert_int_equal(err.code, NM_ERR_BAD_ARGS);
		assert_true(err.message[0] != '\0');
	}
	memset(name, 'a', 200);
	name[200] = '\0';
	assert_int_equal(results_name_check(name, &err), 0);
	name[200] = 'a';
	name[201] = '\0';
	assert_int_equal(results_name_check(name, &err), -1);
	assert_int_equal(err.code, NM_ERR_BAD_ARGS);
	assert_non_null(strstr(err.message, "200"));
}

/* put, get, exists, match and delete, with names that are paths. */
static void
test_put_get_delete(void **state)
{
	struct fixture *f = *state;
	const char *const *names;
	struct nm_error err;
	json_object *r;
	char path[256];
	struct stat st;
	size_t n;

	put_ok(f->rs, "suite/conns_64_iter_1", 1);
	put_ok(f->rs, "suite/conns_64_iter_2", 2);
	put_ok(f->rs, "run1", 3);
	assert_true(results_exists(f->rs, "run1"));
	assert_true(results_exists(f->rs, "suite/conns_64_iter_2"));
	assert_false(results_exists(f->rs, "suite"));

	r = results_get(f->rs, "suite/conns_64_iter_2", &err);
	assert_non_null(r);
	assert_int_equal(json_object_get_int(json_object_object_get(r, "value")), 2);
	json_object_put(r);
	snprintf(path, sizeof(path), "%s/results/suite/conns_64_iter_1.json", f->dir);
	assert_int_equal(stat(path, &st), 0);

	n = results_match(f->rs, NULL, &names);
	assert_int_equal(n, 3);
	assert_string_equal(names[0], "run1");
	assert_string_equal(names[1], "suite/conns_64_iter_1");
	assert_string_equal(names[2], "suite/conns_64_iter_2");
	n = results_match(f->rs, "suite*", &names); /* '*' matches '/' too */
	assert_int_equal(n, 2);
	n = results_match(f->rs, "*iter_2", &names);
	assert_int_equal(n, 1);
	assert_string_equal(names[0], "suite/conns_64_iter_2");
	assert_int_equal(results_match(f->rs, "nothing*", &names), 0);

	assert_null(results_get(f->rs, "nope", &err));
	assert_int_equal(err.code, NM_ERR_NOT_FOUND);
	assert_null(results_get(f->rs, "../etc/passwd", &err));
	assert_int_equal(err.code, NM_ERR_BAD_ARGS);

	assert_int_equal(results_delete(f->rs, "suite/conns_64_iter_1", &err), 0);
	assert_false(results_exists(f->rs, "suite/conns_64_iter_1"));
	assert_int_equal(results_delete(f->rs, "suite/conns_64_iter_1", &err), -1);
	assert_int_equal(err.code, NM_ERR_NOT_FOUND);
	assert_int_equal(stat(path, &st), -1);
	/* The directory goes with its last result. */
	assert_int_equal(results_delete(f->rs, "suite/conns_64_iter_2", &err), 0);
	snprintf(path, sizeof(path), "%s/results/suite", f->dir);
	assert_int_equal(stat(path, &st), -1);
	snprintf(path, sizeof(path), "%s/results", f->dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(results_match(f->rs, NULL, &names), 1);
}

/* The file is the JSON on one line (no escaped '/') and a newline; no temp file stays. */
static void
test_atomic_file(void **state)
{
	struct fixture *f = *state;
	char path[256], buf[512];
	size_t len;
	FILE *fp;

	put_ok(f->rs, "a/b/c", 7);
	put_ok(f->rs, "d", 8);
	snprintf(path, sizeof(path), "%s/results/a/b/c.json", f->dir);
	fp = fopen(path, "r");
	assert_non_null(fp);
	len = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[len] = '\0';
	assert_string_equal(buf,
	                    "{\"window\":{\"name\":\"a/b/c\"},\"value\":7,\"path\":\"/a/b\"}\n");
	snprintf(path, sizeof(path), "%s/results", f->dir);
	assert_int_equal(count_files(path, ".tmp"), 0);
	assert_int_equal(count_files(path, ".json"), 2);
}

/* A name in use is refused, in memory and on disk; the first result stays. */
static void
test_refuses_existing(void **state)
{
	struct fixture *f = *state;
	json_object *r = make_result("x", 2), *got;
	struct nm_error err;
	struct results *other;

	put_ok(f->rs, "x", 1);
	assert_int_equal(results_put(f->rs, "x", r, &err), -1);
	assert_int_equal(err.code, NM_ERR_EXISTS);
	/* A second store over the same directory (opened before x existed) refuses too. */
	other = results_open(f->dir, &err);
	assert_non_null(other);
	put_ok(f->rs, "y", 1);
	assert_int_equal(results_put(other, "y", r, &err), -1);
	assert_int_equal(err.code, NM_ERR_EXISTS);
	results_close(other);
	got = results_get(f->rs, "x", &err);
	assert_int_equal(json_object_get_int(json_object_object_get(got, "value")), 1);
	json_object_put(got);
	assert_int_equal(results_put(f->rs, "../y", r, &err), -1);
	assert_int_equal(err.code, NM_ERR_BAD_ARGS);
	json_object_put(r);
}

/* Reopening lists everything stored, sorted; a leftover temp file is removed, not listed;
 * files that are not results are ignored. */
static void
test_reopen(void **state)
{
	struct fixture *f = *state;
	const char *const *names;
	struct nm_error err;
	char path[256];
	json_object *r;
	FILE *fp;

	put_ok(f->rs, "zeta", 1);
	put_ok(f->rs, "suite/b/iter_2", 2);
	put_ok(f->rs, "suite/a", 3);
	put_ok(f->rs, "alpha", 4);
	results_close(f->rs);
	snprintf(path, sizeof(path), "%s/results/suite/half.json.tmp", f->dir);
	fp = fopen(path, "w");
	fputs("{\"trunc", fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/results/notes.txt", f->dir);
	fp = fopen(path, "w");
	fputs("hello\n", fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/results/bad name.json", f->dir);
	fp = fopen(path, "w");
	fputs("{}\n", fp);
	fclose(fp);

	f->rs = results_open(f->dir, &err);
	assert_non_null(f->rs);
	assert_int_equal(results_match(f->rs, NULL, &names), 4);
	assert_string_equal(names[0], "alpha");
	assert_string_equal(names[1], "suite/a");
	assert_string_equal(names[2], "suite/b/iter_2");
	assert_string_equal(names[3], "zeta");
	r = results_get(f->rs, "suite/b/iter_2", &err);
	assert_non_null(r);
	assert_int_equal(json_object_get_int(json_object_object_get(r, "value")), 2);
	json_object_put(r);
	snprintf(path, sizeof(path), "%s/results", f->dir);
	assert_int_equal(count_files(path, ".tmp"), 0);
}

/* A result whose file was removed by hand: get says so, delete forgets it. */
static void
test_file_removed(void **state)
{
	struct fixture *f = *state;
	struct nm_error err;
	char path[256];

	put_ok(f->rs, "gone", 1);
	snprintf(path, sizeof(path), "%s/results/gone.json", f->dir);
	assert_int_equal(unlink(path), 0);
	assert_null(results_get(f->rs, "gone", &err));
	assert_int_equal(err.code, NM_ERR_NOT_FOUND);
	assert_int_equal(results_delete(f->rs, "gone", &err), 0);
	assert_false(results_exists(f->rs, "gone"));
}

/* Write text as the file of result name (its directory exists). */
static void
write_result_file(const struct fixture *f, const char *name, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/results/%s.json", f->dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

struct bad_file {
	const char *text;
	const char *why; /* in the message */
};

/* A file that is JSON but not a result (not an object, or a member the daemon reads with
 * the wrong type) is an error with the reason, never handed out. */
static void
test_bad_shapes(void **state)
{
	static const struct bad_file cases[] = {
	    {"[1,2]\n", "not an object"},
	    {"5\n", "not an object"},
	    {"\"x\"\n", "not an object"},
	    {"null\n", "not a JSON object"},
	    {"true\n", "not an object"},
	    {"{\"window\":[1]}\n", "window is not an object"},
	    {"{\"window\":5}\n", "window is not an object"},
	    {"{\"test\":\"x\"}\n", "test is not an object"},
	    {"{\"figures\":[]}\n", "figures is not an object"},
	    {"{\"span_s\":\"long\"}\n", "span_s is not a number"},
	    {"{\"window\":{\"start\":5}}\n", "window.start is not a string"},
	    {"{\"window\":{\"complete\":\"yes\"}}\n", "window.complete is not a boolean"},
	    {"{\"window\":{\"cpus\":\"0-3\"}}\n", "window.cpus is not an array of strings"},
	    {"{\"window\":{\"cpus\":[\"a=0\",7]}}\n", "window.cpus is not an array of strings"},
	    {"{\"window\":{\"tcpext\":[null]}}\n", "window.tcpext is not an array of strings"},
	    {"{\"window\":{\"min_rate\":{}}}\n", "window.min_rate is not a number"},
	    {"{\"test\":{\"status\":1}}\n", "test.status is not a string"},
	    {"{\"test\":{\"figures\":[1]}}\n", "test.figures is not an object"},
	    {"{\"test\":{\"argv\":[1]}}\n", "test.argv is not an array of strings"},
	    {"{\"trunc", "bad JSON"},
	    {"", "bad JSON"},
	};
	struct fixture *f = *state;
	struct nm_error err;
	json_object *r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_result_file(f, "bad", cases[i].text);
		results_close(f->rs);
		f->rs = results_open(f->dir, &err);
		assert_non_null(f->rs);
		assert_true(results_exists(f->rs, "bad"));
		r = results_get(f->rs, "bad", &err);
		if (r != NULL)
			fail_msg("%s: accepted", cases[i].text);
		assert_int_equal(err.code, NM_ERR_FAILED);
		if (strstr(err.message, cases[i].why) == NULL)
			fail_msg("%s: \"%s\" does not say \"%s\"", cases[i].text, err.message,
			         cases[i].why);
		assert_non_null(strstr(err.message, "result bad"));
	}
	/* What the daemon writes, and null members (absent), pass. */
	write_result_file(f, "bad",
	                  "{\"window\":{\"name\":\"bad\",\"start\":null,\"cpus\":[\"a=0-3\"],"
	                  "\"complete\":false,\"duration_s\":1.5},\"test\":null,"
	                  "\"figures\":{\"x\":[1]},\"span_s\":2,\"extra\":[1]}\n");
	r = results_get(f->rs, "bad", &err);
	assert_non_null(r);
	json_object_put(r);
	assert_int_equal(results_check(r = json_object_new_object(), &err), 0);
	json_object_put(r);
}

/* A symbolic link or a FIFO in the results directory is not read (a FIFO would block the
 * daemon in open): the scan leaves them out, and a get by name is refused. */
static void
test_links_and_fifos(void **state)
{
	struct fixture *f = *state;
	const char *const *names;
	struct nm_error err;
	char path[256], target[256];

	put_ok(f->rs, "real", 1);
	snprintf(target, sizeof(target), "%s/results/real.json", f->dir);
	snprintf(path, sizeof(path), "%s/results/link.json", f->dir);
	assert_int_equal(symlink(target, path), 0);
	snprintf(path, sizeof(path), "%s/results/fifo.json", f->dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	results_close(f->rs);
	f->rs = results_open(f->dir, &err);
	assert_non_null(f->rs);
	assert_int_equal(results_match(f->rs, NULL, &names), 1);
	assert_string_equal(names[0], "real");
	/* A FIFO or a link where a write puts its temporary file is replaced, not opened. */
	snprintf(path, sizeof(path), "%s/results/new.json.tmp", f->dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	put_ok(f->rs, "new", 2);
	snprintf(path, sizeof(path), "%s/results/new2.json.tmp", f->dir);
	assert_int_equal(symlink(target, path), 0);
	put_ok(f->rs, "new2", 3);
	snprintf(path, sizeof(path), "%s/results/fifo.json", f->dir);
	/* Had they been listed (or replaced after the scan): refused, not followed. */
	assert_int_equal(rename(target, path), 0);
	assert_int_equal(mkfifo(target, 0600), 0);
	assert_null(results_get(f->rs, "real", &err));
	assert_int_equal(err.code, NM_ERR_FAILED);
	assert_non_null(strstr(err.message, "not a regular file"));
}

/* Run every test in this file. */

/* A result that started at epoch second start, of a test of suite when suite is given. */
static json_object *
timed_result(const char *name, long start, const char *suite, double tput)
{
	json_object *r = json_object_new_object(), *w = json_object_new_object();
	json_object *figs = json_object_new_object(), *cpu = json_object_new_object();
	json_object *all = json_object_new_object();
	char t[40];
	time_t secs = start;
	struct tm tm;

	gmtime_r(&secs, &tm);
	strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%S.000Z", &tm);
	json_object_object_add(w, "name", json_object_new_string(name));
	json_object_object_add(w, "origin", json_object_new_string(suite ? "test" : "hand"));
	json_object_object_add(w, "start", json_object_new_string(t));
	json_object_object_add(w, "duration_s", json_object_new_double(10));
	json_object_object_add(w, "complete", json_object_new_boolean(1));
	json_object_object_add(r, "window", w);
	json_object_object_add(all, "busy", json_object_new_double(tput / 100));
	json_object_object_add(cpu, "all", all);
	json_object_object_add(figs, "cpu", cpu);
	json_object_object_add(r, "figures", figs);
	if (suite != NULL) {
		json_object *test = json_object_new_object(), *tf = json_object_new_object();
		json_object_object_add(test, "driver", json_object_new_string("exec"));
		json_object_object_add(test, "status", json_object_new_string("passed"));
		json_object_object_add(test, "suite", json_object_new_string(suite));
		json_object_object_add(tf, "throughput_mbps", json_object_new_double(tput));
		json_object_object_add(test, "figures", tf);
		json_object_object_add(r, "test", test);
	}
	return r;
}

/* Names of the rows a listing gives, comma-joined (and figures of the first). */
struct collected {
	char names[512];
	char first_figures[256];
	size_t n;
};

/* Collect one listed row. */
static void
collect_row(const struct resultindex_row *row, void *arg)
{
	struct collected *c = arg;
	size_t len = strlen(c->names);

	snprintf(c->names + len, sizeof(c->names) - len, "%s%s", len ? "," : "", row->name);
	if (c->n++ == 0 && row->figures != NULL)
		snprintf(c->first_figures, sizeof(c->first_figures), "%s", row->figures);
}

/* Collect one skipped file's name. */
static void
collect_skip(const char *name, const char *why, void *arg)
{
	struct collected *c = arg;
	size_t len = strlen(c->names);

	assert_non_null(why);
	snprintf(c->names + len, sizeof(c->names) - len, "%s%s", len ? "," : "", name);
	c->n++;
}

/* List with f into a fresh collection. */
static struct collected
list(struct results *rs, const struct resultindex_filter *f)
{
	struct collected c = {{0}, {0}, 0};
	struct nm_error err;

	if (results_list(rs, f, collect_row, &c, &err) < 0)
		fail_msg("list: %s", err.message);
	return c;
}

/* Write text as the file of name below the results directory, behind the store. */
static void
write_raw(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/results/%s.json", dir, name);
	assert_non_null(fp = fopen(path, "w"));
	fputs(text, fp);
	fclose(fp);
}

/* Done of a put in a test: count, keep the error. */
struct put_done {
	int calls;
	bool failed;
};

static void
put_done_cb(void *arg, const struct nm_error *err)
{
	struct put_done *pd = arg;

	pd->calls++;
	pd->failed = err != NULL;
}

/* The index lists newest first, filters, pages, gives figures, names skipped files. */
static void
test_index_listing(void **state)
{
	struct fixture *f = *state;
	struct resultindex_filter all = {.since = NAN, .until = NAN};
	struct resultindex_filter flt = all;
	const char *const *names;
	struct put_done pd = {0, false};
	struct collected c;
	struct nm_error err;
	json_object *r;

	write_raw(f->dir, "broken", "{not json");
	write_raw(f->dir, "array", "[1]");
	assert_false(results_index_ready(f->rs));
	/* No loop: jobs run inline, the index is built before this returns. */
	assert_int_equal(results_start(f->rs, NULL, &err), 0);
	assert_true(results_index_ready(f->rs));
	for (int i = 0; i < 4; i++) {
		char name[32];
		snprintf(name, sizeof(name), "s/run_%d", i);
		r = timed_result(name, 1700000000L + i * 100, "s", 900 + i);
		assert_int_equal(results_put_async(f->rs, name, r, put_done_cb, &pd, &err), 0);
		json_object_put(r);
	}
	assert_int_equal(pd.calls, 4);
	assert_false(pd.failed);
	r = timed_result("hand1", 1700000050L, NULL, 500);
	assert_int_equal(results_put(f->rs, "hand1", r, &err), 0);
	json_object_put(r);

	c = list(f->rs, &all);
	assert_string_equal(c.names, "s/run_3,s/run_2,s/run_1,hand1,s/run_0");
	flt.limit = 2;
	assert_string_equal(list(f->rs, &flt).names, "s/run_3,s/run_2");
	flt = all;
	flt.glob = "s/run_[!3]";
	assert_string_equal(list(f->rs, &flt).names, "s/run_2,s/run_1,s/run_0");
	flt = all;
	flt.origin = "hand";
	assert_string_equal(list(f->rs, &flt).names, "hand1");
	flt = all;
	flt.suite = "s";
	flt.since = 1700000100;
	flt.until = 1700000300;
	assert_string_equal(list(f->rs, &flt).names, "s/run_2,s/run_1");
	flt = all;
	flt.tests_only = true;
	flt.glob = "*_3";
	c = list(f->rs, &flt);
	assert_string_equal(c.names, "s/run_3");
	assert_non_null(strstr(c.first_figures, "\"test.throughput_mbps\":903"));
	assert_non_null(strstr(c.first_figures, "\"cpu.all.busy\":9.0"));

	/* The glob resolution compare uses: from the index, a result deleted is gone. */
	assert_int_equal(results_match(f->rs, "s/*", &names), 4);
	assert_string_equal(names[0], "s/run_0");
	assert_int_equal(results_delete(f->rs, "s/run_0", &err), 0);
	assert_int_equal(results_match(f->rs, "s/*", &names), 3);
	assert_string_equal(names[0], "s/run_1");
	assert_string_equal(list(f->rs, &all).names, "s/run_3,s/run_2,s/run_1,hand1");

	c = (struct collected){{0}, {0}, 0};
	assert_int_equal(results_list_skipped(f->rs, NULL, collect_skip, &c, &err), 0);
	assert_string_equal(c.names, "array,broken");
}

/* A damaged index is rebuilt from the files; files added or removed behind the daemon are
 * picked up at the next start. */
static void
test_index_rebuild(void **state)
{
	struct fixture *f = *state;
	struct resultindex_filter all = {.since = NAN, .until = NAN};
	char path[512];
	struct nm_error err;
	json_object *r;
	FILE *fp;

	assert_int_equal(results_start(f->rs, NULL, &err), 0);
	for (int i = 0; i < 3; i++) {
		char name[32];
		snprintf(name, sizeof(name), "r%d", i);
		r = timed_result(name, 1700000000L + i, NULL, 1);
		assert_int_equal(results_put(f->rs, name, r, &err), 0);
		json_object_put(r);
	}
	assert_string_equal(list(f->rs, &all).names, "r2,r1,r0");
	results_close(f->rs);

	snprintf(path, sizeof(path), "%s/results-index.sqlite", f->dir);
	assert_non_null(fp = fopen(path, "r+"));
	fputs("this is no longer an SQLite database file, just bytes", fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/results/r1.json", f->dir);
	assert_int_equal(unlink(path), 0);
	r = timed_result("r9", 1700000009L, NULL, 1);
	write_raw(f->dir, "r9", json_object_to_json_string(r));
	json_object_put(r);

	assert_non_null(f->rs = results_open(f->dir, &err));
	assert_int_equal(results_start(f->rs, NULL, &err), 0);
	assert_string_equal(list(f->rs, &all).names, "r9,r2,r0");
}

/* On the writer thread: the name is taken and the result served at once; the file is on
 * disk when done runs on the loop, not before. */
static void
test_put_on_writer_thread(void **state)
{
	struct fixture *f = *state;
	struct event_base *base = event_base_new();
	struct put_done pd = {0, false};
	const char *const *names;
	char path[512];
	struct nm_error err;
	json_object *r, *got;

	assert_int_equal(results_start(f->rs, base, &err), 0);
	while (!results_index_ready(f->rs))
		event_base_loop(base, EVLOOP_ONCE);
	statefile_test_fsync_delay(300);
	r = timed_result("slow", 1700000000L, "s", 5);
	assert_int_equal(results_put_async(f->rs, "slow", r, put_done_cb, &pd, &err), 0);
	json_object_put(r);
	assert_true(results_exists(f->rs, "slow"));
	assert_int_equal(results_put_async(f->rs, "slow", r, put_done_cb, &pd, &err), -1);
	assert_int_equal(err.code, NM_ERR_EXISTS);
	assert_non_null(got = results_get(f->rs, "slow", &err));
	json_object_put(got);
	snprintf(path, sizeof(path), "%s/results/slow.json", f->dir);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(results_match(f->rs, NULL, &names), 0);
	assert_int_equal(pd.calls, 0);
	while (pd.calls == 0)
		event_base_loop(base, EVLOOP_ONCE);
	statefile_test_fsync_delay(0);
	assert_false(pd.failed);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(results_match(f->rs, NULL, &names), 1);
	results_close(f->rs);
	f->rs = NULL;
	event_base_free(base);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_name_check),
	    cmocka_unit_test_setup_teardown(test_put_get_delete, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_atomic_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refuses_existing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reopen, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_file_removed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_shapes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_links_and_fifos, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_index_listing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_index_rebuild, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_put_on_writer_thread, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
