/* test-results-load.c: stored results read off the loop (results-load.c): a result found on
 * the loop and deleted or replaced before the read gives a clean not_found or the content
 * the file has then; a result being stored is served from a deep copy that outlives its
 * pending entry; broken files ([1,2], 5, bytes that are not UTF-8) are errors, not
 * aborts; the read and the work run on the reader thread, the done half on the loop; reads
 * do not wait behind the writer's fsyncs; and result show, result export, compare and
 * results trend answer through it without a client. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <event2/event.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "dispatch.h"
#include "error.h"
#include "jsonutil.h"
#include "results-reply.h"
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

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct nm_error err;

	snprintf(f->dir, sizeof(f->dir), "/tmp/nm-test-rload-XXXXXX");
	if (mkdtemp(f->dir) == NULL || (f->rs = results_open(f->dir, &err)) == NULL)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	results_close(f->rs);
	nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

/* A result with one figure x = v (new reference). */
static json_object *
make_result(const char *name, int v)
{
	char text[256];

	snprintf(text, sizeof(text),
	         "{\"window\": {\"name\": \"%s\"}, \"figures\": {\"x\": %d, "
	         "\"tcp\": {\"retrans_segs\": %d}}}",
	         name, v, v * 2);
	return json_tokener_parse(text);
}

/* Store result name with figure x = v, now. */
static void
put(struct fixture *f, const char *name, int v)
{
	json_object *r = make_result(name, v);
	struct nm_error err;

	assert_int_equal(results_put(f->rs, name, r, &err), 0);
	json_object_put(r);
}

/* Write text as result name's file (the store finds it at the next open). */
static void
write_file(struct fixture *f, const char *name, const char *text, size_t len)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/results/%s.json", f->dir, name);
	assert_non_null(fp = fopen(path, "w"));
	assert_int_equal(fwrite(text, 1, len, fp), len);
	fclose(fp);
}

/* What the halves of a load saw. */
struct seen {
	pthread_t thread_of_work, thread_of_done;
	bool worked, done;
	int x[4];
	enum nm_errcode code[4];
	char msg[4][NM_ERROR_MSG_MAX];
};

/* Thread half: note the thread and what each item holds. */
static void
seen_work(struct results_load *ld, void *arg)
{
	struct seen *s = arg;

	s->thread_of_work = pthread_self();
	s->worked = true;
	for (size_t i = 0; i < ld->n && i < 4; i++) {
		if (ld->items[i].result != NULL)
			s->x[i] = (int)json_get_int(
			    json_object_object_get(ld->items[i].result, "figures"), "x", -1);
		else {
			s->code[i] = ld->items[i].err.code;
			snprintf(s->msg[i], sizeof(s->msg[i]), "%s", ld->items[i].err.message);
		}
	}
}

/* Loop half: note the thread, free the load. */
static void
seen_done(struct results_load *ld, void *arg)
{
	struct seen *s = arg;

	s->thread_of_done = pthread_self();
	s->done = true;
	results_load_free(ld);
}

/* Found, then deleted or replaced before the read (inline halves: in order, as a thread
 * would run them after the loop's changes): a clean not_found, or the content now. */
static void
test_deleted_and_replaced_between(void **state)
{
	struct fixture *f = *state;
	struct results_load *ld = results_load_new(f->rs);
	struct seen s = {0};
	struct nm_error err;

	put(f, "gone", 1);
	put(f, "repl", 2);
	put(f, "kept", 3);
	results_load_add(ld, "gone", false);
	results_load_add(ld, "repl", false);
	results_load_add(ld, "kept", false);
	results_load_add(ld, "never", false);
	assert_int_equal(results_delete(f->rs, "gone", &err), 0);
	assert_int_equal(results_delete(f->rs, "repl", &err), 0);
	put(f, "repl", 20);
	results_load_run(ld, seen_work, seen_done, &s);
	assert_true(s.worked && s.done);
	assert_int_equal(s.code[0], NM_ERR_NOT_FOUND);
	assert_non_null(strstr(s.msg[0], "result gone"));
	assert_int_equal(s.x[1], 20);
	assert_int_equal(s.x[2], 3);
	assert_int_equal(s.code[3], NM_ERR_NOT_FOUND);
	assert_string_equal(s.msg[3], "no result named never");
}

/* A result being stored is copied when added: the copy outlives the pending entry, and
 * changes to the store's object after the add do not reach it. */
static void
test_pending_copied(void **state)
{
	struct fixture *f = *state;
	struct results_load *ld = results_load_new(f->rs);
	json_object *r = make_result("pend", 7);
	struct seen s = {0};
	struct nm_error err;

	assert_int_equal(results_reserve(f->rs, "pend", r, &err), 0);
	results_load_add(ld, "pend", false);
	assert_non_null(ld->items[0].where.copy);
	assert_ptr_not_equal(ld->items[0].where.copy, r);
	json_object_object_add(json_object_object_get(r, "figures"), "x", json_object_new_int(8));
	/* Stored (inline: no thread) and its pending entry freed before the read. */
	assert_int_equal(results_put_async(f->rs, "pend", r, NULL, NULL, &err), 0);
	json_object_put(r);
	results_load_run(ld, seen_work, seen_done, &s);
	assert_int_equal(s.x[0], 7);
}

/* Files that are JSON but no result, or not UTF-8: errors naming the result. */
static void
test_broken_files(void **state)
{
	struct fixture *f = *state;
	static const char bad_utf8[] = "{\"figures\": {\"x\": 1}, \"y\": \"\xff\xfe\"}\n";
	struct results_load *ld;
	struct seen s = {0};
	struct nm_error err;

	put(f, "good", 5); /* the results directory exists */
	write_file(f, "arr", "[1,2]\n", 6);
	write_file(f, "five", "5\n", 2);
	write_file(f, "utf", bad_utf8, sizeof(bad_utf8) - 1);
	results_close(f->rs);
	assert_non_null(f->rs = results_open(f->dir, &err));
	ld = results_load_new(f->rs);
	results_load_add(ld, "arr", false);
	results_load_add(ld, "five", false);
	results_load_add(ld, "utf", false);
	results_load_add(ld, "good", false);
	results_load_run(ld, seen_work, seen_done, &s);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(s.code[i], NM_ERR_FAILED);
		assert_non_null(strstr(s.msg[i], "result "));
	}
	assert_non_null(strstr(s.msg[0], "not an object"));
	assert_int_equal(s.x[3], 5);
}

/* With an event base: the files are read and the work done on the reader thread, the done
 * half on the loop; a result deleted after the add is not found there either. */
static void
test_on_reader_thread(void **state)
{
	struct fixture *f = *state;
	struct event_base *base = event_base_new();
	struct results_load *ld;
	struct seen s = {0};
	struct nm_error err;

	put(f, "a", 11);
	put(f, "b", 12);
	assert_int_equal(results_start(f->rs, base, &err), 0);
	ld = results_load_new(f->rs);
	results_load_add(ld, "a", false);
	results_load_add(ld, "b", false);
	assert_int_equal(results_delete(f->rs, "b", &err), 0);
	results_load_run(ld, seen_work, seen_done, &s);
	while (!s.done)
		event_base_loop(base, EVLOOP_ONCE);
	assert_true(s.worked);
	assert_false(pthread_equal(s.thread_of_work, pthread_self()));
	assert_true(pthread_equal(s.thread_of_done, pthread_self()));
	assert_int_equal(s.x[0], 11);
	assert_int_equal(s.code[1], NM_ERR_NOT_FOUND);
	results_close(f->rs);
	f->rs = NULL;
	event_base_free(base);
}

/* A put's done: count it. */
static void
put_done(void *arg, const struct nm_error *err)
{
	(void)err;
	(*(int *)arg)++;
}

/* Reads do not queue behind the writer: with each fsync held 2 s, a load submitted after a
 * put is answered while the put is still on the writer thread (why the reader is a second
 * struct writer, not the writer's queue). */
static void
test_reads_not_behind_writes(void **state)
{
	struct fixture *f = *state;
	struct event_base *base = event_base_new();
	json_object *r = make_result("slow", 1);
	struct results_load *ld;
	struct seen s = {0};
	struct nm_error err;
	int puts = 0;

	put(f, "kept", 3);
	assert_int_equal(results_start(f->rs, base, &err), 0);
	while (!results_index_ready(f->rs))
		event_base_loop(base, EVLOOP_ONCE);
	statefile_test_fsync_delay(2000);
	assert_int_equal(results_put_async(f->rs, "slow", r, put_done, &puts, &err), 0);
	json_object_put(r);
	ld = results_load_new(f->rs);
	results_load_add(ld, "kept", false);
	results_load_run(ld, seen_work, seen_done, &s);
	while (!s.done)
		event_base_loop(base, EVLOOP_ONCE);
	assert_int_equal(s.x[0], 3);
	assert_int_equal(puts, 0);
	while (puts == 0)
		event_base_loop(base, EVLOOP_ONCE);
	statefile_test_fsync_delay(0);
	results_close(f->rs);
	f->rs = NULL;
	event_base_free(base);
}

/* Run command name with args_json against the store, without a client. */
static int
run(struct fixture *f, const char *name, const char *args_json, struct cmd_ctx *ctx,
    json_object **res, struct nm_error *err)
{
	static struct daemon d;
	json_object *args = json_tokener_parse(args_json);
	int rc;

	d.results = f->rs;
	/* The reply budget a listing is cut to (the configuration's defaults' order). */
	d.config.reply_max_points = 1000000;
	d.config.reply_max_bytes = 32u << 20;
	*ctx = (struct cmd_ctx){.d = &d};
	*res = NULL;
	rc = dispatch_handler_find(name)(ctx, args, res, err);
	json_object_put(args);
	return rc;
}

/* The commands through results_load_reply, without a client: the reply at once, the
 * thread's half counted apart (ctx->loaded, offloop_line). */
static void
test_commands(void **state)
{
	struct fixture *f = *state;
	json_object *res, *figs;
	struct cmd_ctx ctx;
	struct nm_error err;

	put(f, "it/a_iter_1", 10);
	put(f, "it/a_iter_2", 20);
	put(f, "it/b_iter_1", 40);
	write_file(f, "arr", "[1,2]\n", 6);
	results_close(f->rs);
	assert_non_null(f->rs = results_open(f->dir, &err));

	assert_int_equal(run(f, "result-show", "{\"name\":\"it/a_iter_2\"}", &ctx, &res, &err), 0);
	assert_true(ctx.loaded && ctx.offloop_line);
	assert_int_equal(json_get_int(json_object_object_get(res, "figures"), "x", 0), 20);
	json_object_put(res);
	assert_int_equal(run(f, "result-show", "{\"name\":\"arr\"}", &ctx, &res, &err), -1);
	assert_int_equal(err.code, NM_ERR_FAILED);
	assert_non_null(strstr(err.message, "result arr"));
	assert_int_equal(run(f, "result-show", "{\"name\":\"nope\"}", &ctx, &res, &err), -1);
	assert_int_equal(err.code, NM_ERR_NOT_FOUND);

	assert_int_equal(
	    run(f, "compare", "{\"a\":\"it/a_iter_*\",\"b\":\"it/b_iter_1\"}", &ctx, &res, &err),
	    0);
	assert_true(ctx.loaded);
	figs = json_object_object_get(res, "figures");
	assert_non_null(figs);
	for (size_t i = 0; i < json_object_array_length(figs); i++) {
		json_object *fg = json_object_array_get_idx(figs, i);
		if (strcmp(json_get_string(fg, "figure", ""), "x") != 0)
			continue;
		assert_true(json_get_double(json_object_object_get(fg, "a"), "mean", 0) == 15);
		assert_true(json_get_double(json_object_object_get(fg, "b"), "mean", 0) == 40);
	}
	assert_int_equal(json_object_array_length(
	                     json_object_object_get(json_object_object_get(res, "a"), "names")),
	                 2);
	json_object_put(res);
	assert_int_equal(
	    run(f, "compare", "{\"a\":\"it/a_iter_1\",\"b\":\"arr\"}", &ctx, &res, &err), -1);
	assert_non_null(strstr(err.message, "result arr"));

	assert_int_equal(
	    run(f, "result-export", "{\"name\":\"*\",\"format\":\"json\"}", &ctx, &res, &err), 0);
	assert_int_equal(json_get_int(res, "count", 0), 3);
	assert_int_equal(json_object_array_length(json_object_object_get(res, "skipped")), 1);
	json_object_put(res);
	assert_int_equal(run(f, "result-export", "{\"name\":\"it/b_iter_1\",\"format\":\"csv\"}",
	                     &ctx, &res, &err),
	                 0);
	assert_non_null(strstr(json_get_string(res, "csv", ""), "40"));
	json_object_put(res);

	/* The index built (inline, no event base): results trend reads its figures. */
	assert_int_equal(results_start(f->rs, NULL, &err), 0);
	/* results trend: x against the band of it/a_iter_* (10, 20: mean 15, sd 7.07, k 3);
	 * it/b_iter_1's 40 is above it, and the two results have no manifest to compare. */
	if (run(f, "results-trend", "{\"figure\":\"x\",\"baseline\":\"it/a_iter_*\"}", &ctx, &res,
	        &err) != 0)
		fail_msg("results-trend: %s", err.message);
	assert_true(ctx.loaded);
	figs = json_object_object_get(res, "step");
	assert_non_null(figs);
	assert_string_equal(json_get_string(figs, "result", ""), "it/b_iter_1");
	assert_string_equal(json_get_string(figs, "direction", ""), "above");
	assert_string_equal(json_get_string(figs, "previous", ""), "it/a_iter_2");
	assert_non_null(strstr(json_get_string(figs, "settings_note", ""), "without a manifest"));
	assert_int_equal(json_get_int(res, "count", 0), 3);
	json_object_put(res);
	/* Nothing outside (every result the baseline): step null, nothing loaded. */
	assert_int_equal(
	    run(f, "results-trend", "{\"figure\":\"x\",\"baseline\":\"it/*\"}", &ctx, &res, &err),
	    0);
	assert_true(json_object_object_get_ex(res, "step", &figs) && figs == NULL);
	json_object_put(res);
	assert_int_equal(run(f, "results-trend", "{\"figure\":\"nope\"}", &ctx, &res, &err), -1);
	assert_int_equal(err.code, NM_ERR_NOT_FOUND);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_deleted_and_replaced_between, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pending_copied, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_broken_files, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_on_reader_thread, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reads_not_behind_writes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_commands, setup, teardown),
	};

	dispatch_init(cmd_table);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
