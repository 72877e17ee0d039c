/* results-load.c: stored results read and checked on the results store's reader thread, and
 * the caller's work on them done there, so that no read of a large result (or of many, for
 * compare) holds up the event loop. What is loop state is resolved before (results_where)
 * and after (the loop function); the thread touches only the load it was given. Replies to
 * commands made this way: results-reply.c, in the command layer. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
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

void
results_load_run_here(struct results_load *ld, results_load_fn thread_fn, void *arg)
{
	ld->thread_fn = thread_fn;
	ld->loop_fn = NULL;
	ld->run_arg = arg;
	load_job(ld);
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

void
results_load_release(struct results_load *ld)
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
	results_load_release(ld);
	for (size_t i = 0; i < ld->n; i++) {
		if (ld->items[i].found)
			results_where_free(&ld->items[i].where);
		else
			free((char *)ld->items[i].name);
	}
	free(ld->items);
	free(ld);
}
