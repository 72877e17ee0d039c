/* results-load.c: stored results read and checked on the results store's reader thread, and
 * replies made from them there, so that no read of a large result (or of many, for compare)
 * holds up the event loop. What is loop state is resolved before (results_where) and after
 * (the done function); the thread touches only the load it was given. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "control.h"
#include "dispatch.h"
#include "log.h"
#include "proto.h"
#include "results-load.h"
#include "writer.h"
#include "xmalloc.h"

/* CPU time of the calling thread (ns). */
static uint64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct results_load *
results_load_new(struct results *rs)
{
	struct results_load *ld = xcalloc(1, sizeof(*ld));

	ld->rs = rs;
	return ld;
}

size_t
results_load_add(struct results_load *ld, const char *name, bool series)
{
	struct results_load_item *it;

	if (ld->n == ld->cap) {
		ld->cap = ld->cap ? ld->cap * 2 : 8;
		ld->items = xreallocarray(ld->items, ld->cap, sizeof(*ld->items));
	}
	it = &ld->items[ld->n];
	memset(it, 0, sizeof(*it));
	it->want_series = series;
	nm_error_clear(&it->err);
	if (results_where(ld->rs, name, &it->where, &it->err) == 0) {
		it->found = true;
		it->name = it->where.name;
	} else
		it->name = xstrdup(name);
	return ld->n++;
}

/* Read every item (reader thread): only what results_where found, nothing of the store. */
static void
read_items(struct results_load *ld)
{
	for (size_t i = 0; i < ld->n; i++) {
		struct results_load_item *it = &ld->items[i];
		struct nm_error e;

		if (!it->found)
			continue;
		if ((it->result = results_where_read(&it->where, &it->err)) != NULL &&
		    it->want_series &&
		    results_where_series(&it->where, &it->series, &it->series_len, &e) < 0)
			it->series = NULL; /* none, or unreadable: the result goes without */
	}
}

static unsigned test_read_delay_ms; /* set once at start-up, before the thread runs */

void
results_load_test_read_delay(unsigned ms)
{
	test_read_delay_ms = ms;
}

/* The reader thread's half: the files, then the caller's work. */
static void
load_job(void *arg)
{
	struct results_load *ld = arg;
	uint64_t t0 = thread_cpu_ns();

	if (test_read_delay_ms > 0) {
		struct timespec ts = {test_read_delay_ms / 1000,
		                      (long)(test_read_delay_ms % 1000) * 1000000};
		nanosleep(&ts, NULL);
	}
	read_items(ld);
	if (ld->thread_fn != NULL)
		ld->thread_fn(ld, ld->run_arg);
	ld->thread_ns = thread_cpu_ns() - t0;
}

/* The loop's half. */
static void
load_done(void *arg)
{
	struct results_load *ld = arg;

	ld->loop_fn(ld, ld->run_arg);
}

void
results_load_run(struct results_load *ld, results_load_fn thread_fn, results_load_fn loop_fn,
                 void *arg)
{
	ld->thread_fn = thread_fn;
	ld->loop_fn = loop_fn;
	ld->run_arg = arg;
	writer_submit(results_reader(ld->rs), load_job, load_done, ld);
}

json_object *
results_load_take(struct results_load *ld, size_t i, struct nm_error *err)
{
	json_object *r = ld->items[i].result;

	ld->items[i].result = NULL;
	if (r == NULL && err != NULL)
		*err = ld->items[i].err;
	return r;
}

/* Free the items' results and series (on the thread when the reply is made there: a
 * large result's free is not loop time either). */
static void
items_release(struct results_load *ld)
{
	for (size_t i = 0; i < ld->n; i++) {
		json_object_put(ld->items[i].result);
		ld->items[i].result = NULL;
		free(ld->items[i].series);
		ld->items[i].series = NULL;
	}
}

void
results_load_free(struct results_load *ld)
{
	if (ld == NULL)
		return;
	items_release(ld);
	for (size_t i = 0; i < ld->n; i++) {
		if (ld->items[i].found)
			results_where_free(&ld->items[i].where);
		else
			free((char *)ld->items[i].name);
	}
	free(ld->items);
	json_object_put(ld->result);
	free(ld->line);
	if (ld->free_fn != NULL)
		ld->free_fn(ld->arg);
	free(ld);
}

/* The reply's thread half: the command's work, and the reply's line when it is made. */
static void
reply_thread(struct results_load *ld, void *arg)
{
	(void)arg;
	nm_error_clear(&ld->err);
	ld->rc =
	    ld->work != NULL ? ld->work(ld, ld->arg, &ld->result, &ld->err) : RESULTS_LOAD_ON_LOOP;
	if (ld->rc == RESULTS_LOAD_ON_LOOP)
		return;
	if (ld->rc == 0 && ld->later != NULL) {
		ld->line = proto_reply_ok(ld->id, ld->has_id, ld->result, &ld->len);
		json_object_put(ld->result);
		ld->result = NULL;
	}
	items_release(ld);
}

/* The reply's loop half: what needs the loop, then the answer. */
static void
reply_loop(struct results_load *ld, void *arg)
{
	(void)arg;
	if (ld->rc == RESULTS_LOAD_ON_LOOP)
		ld->rc = ld->done(ld, ld->arg, &ld->result, &ld->err) < 0 ? -1 : 0;
	if (ld->later == NULL)
		return;
	/* As dispatch logs a refusal made at once. */
	if (ld->rc < 0)
		log_debug("request refused: %s: %s", nm_error_name(ld->err.code), ld->err.message);
	if (ld->line != NULL)
		control_later_send(ld->later, ld->line, ld->len);
	else
		control_later_reply(ld->later, ld->rc == 0 ? ld->result : NULL,
		                    ld->rc < 0 ? &ld->err : NULL);
	ld->later = NULL;
	ld->result = NULL;
	results_load_free(ld);
}

int
results_load_reply(struct cmd_ctx *ctx, struct results_load *ld, results_load_work_fn work,
                   results_load_done_fn done, void *arg, void (*free_fn)(void *),
                   json_object **result, struct nm_error *err)
{
	uint64_t t0;
	int rc;

	ld->work = work;
	ld->done = done;
	ld->arg = arg;
	ld->free_fn = free_fn;
	if (ctx->client != NULL) {
		ld->later = control_later_new(ctx->client, ctx->id, ctx->has_id);
		ld->id = ctx->id;
		ld->has_id = ctx->has_id;
		ctx->deferred = true;
		*result = NULL;
		results_load_run(ld, reply_thread, reply_loop, NULL);
		return 0;
	}
	/* No client: both halves now, here (not on a thread that is not waited for). */
	ld->thread_fn = reply_thread;
	load_job(ld);
	ctx->offloop_ns = ld->thread_ns;
	ctx->offloop_line = ld->rc != RESULTS_LOAD_ON_LOOP;
	t0 = thread_cpu_ns();
	reply_loop(ld, NULL);
	ctx->after_ns = thread_cpu_ns() - t0;
	ctx->loaded = true;
	if ((rc = ld->rc) == 0) {
		*result = ld->result;
		ld->result = NULL;
	} else
		*err = ld->err;
	results_load_free(ld);
	return rc < 0 ? -1 : 0;
}
