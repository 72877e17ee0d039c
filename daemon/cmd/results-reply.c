/* results-reply.c: replies made from stored results on the store's reader thread
 * (results-reply.h). */
#include <stdlib.h>
#include <time.h>

#include "control.h"
#include "dispatch.h"
#include "log.h"
#include "proto.h"
#include "results-reply.h"
#include "xmalloc.h"

/* A reply on its way: the load, the command's halves and what they made. */
struct reply {
	struct results_load *ld;
	results_load_work_fn work;
	results_load_done_fn done;
	void *arg;
	void (*free_fn)(void *);
	struct control_later *later; /* NULL: no client, the handler returns the reply */
	int64_t id;
	bool has_id;
	int rc;
	json_object *result;
	struct nm_error err;
	char *line; /* the reply line made on the thread */
	size_t len;
};

/* CPU time of the calling thread (ns). */
static uint64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
reply_free(struct reply *r)
{
	results_load_free(r->ld);
	json_object_put(r->result);
	free(r->line);
	if (r->free_fn != NULL)
		r->free_fn(r->arg);
	free(r);
}

/* The reply's thread half: the command's work, and the reply's line when it is made. */
static void
reply_thread(struct results_load *ld, void *arg)
{
	struct reply *r = arg;

	nm_error_clear(&r->err);
	r->rc = r->work != NULL ? r->work(ld, r->arg, &r->result, &r->err) : RESULTS_LOAD_ON_LOOP;
	if (r->rc == RESULTS_LOAD_ON_LOOP)
		return;
	if (r->rc == 0 && r->later != NULL) {
		r->line = proto_reply_ok(r->id, r->has_id, r->result, &r->len);
		json_object_put(r->result);
		r->result = NULL;
	}
	results_load_release(ld);
}

/* The reply's loop half: what needs the loop, then the answer (with a client). */
static void
reply_loop(struct results_load *ld, void *arg)
{
	struct reply *r = arg;

	if (r->rc == RESULTS_LOAD_ON_LOOP)
		r->rc = r->done(ld, r->arg, &r->result, &r->err) < 0 ? -1 : 0;
	if (r->later == NULL)
		return;
	/* As dispatch logs a refusal made at once. */
	if (r->rc < 0)
		log_debug("request refused: %s: %s", nm_error_name(r->err.code), r->err.message);
	if (r->line != NULL)
		control_later_send(r->later, r->line, r->len);
	else
		control_later_reply(r->later, r->rc == 0 ? r->result : NULL,
		                    r->rc < 0 ? &r->err : NULL);
	r->later = NULL;
	r->result = NULL;
	reply_free(r);
}

int
results_load_reply(struct cmd_ctx *ctx, struct results_load *ld, results_load_work_fn work,
                   results_load_done_fn done, void *arg, void (*free_fn)(void *),
                   json_object **result, struct nm_error *err)
{
	struct reply *r = xcalloc(1, sizeof(*r));
	uint64_t t0;
	int rc;

	r->ld = ld;
	r->work = work;
	r->done = done;
	r->arg = arg;
	r->free_fn = free_fn;
	if (ctx->client != NULL) {
		r->later = control_later_new(ctx->client, ctx->id, ctx->has_id);
		r->id = ctx->id;
		r->has_id = ctx->has_id;
		ctx->deferred = true;
		*result = NULL;
		results_load_run(ld, reply_thread, reply_loop, r);
		return 0;
	}
	/* No client: both halves now, here (not on a thread that is not waited for). */
	results_load_run_here(ld, reply_thread, r);
	ctx->offloop_ns = ld->thread_ns;
	ctx->offloop_line = r->rc != RESULTS_LOAD_ON_LOOP;
	t0 = thread_cpu_ns();
	reply_loop(ld, r);
	ctx->after_ns = thread_cpu_ns() - t0;
	ctx->loaded = true;
	if ((rc = r->rc) == 0) {
		*result = r->result;
		r->result = NULL;
	} else
		*err = r->err;
	reply_free(r);
	return rc < 0 ? -1 : 0;
}
