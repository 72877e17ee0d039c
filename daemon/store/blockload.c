/* blockload.c: a stored series block read and decoded on the store's reader thread
 * (blockload.h). */
#include <stdint.h>
#include <stdlib.h>

#include "blockload.h"
#include "log.h"
#include "results-load.h"
#include "seriesblock.h"
#include "xmalloc.h"

struct blockload {
	int64_t mono_to_real;
	void (*done)(void *arg);
	void *arg;
	bool finished;  /* done has run (or would have) */
	bool cancelled; /* free at the end; done not called */
	struct seriesblock *blk;
	struct nm_error err;
	uint64_t thread_ns;
};

/* Reader thread: the block's bytes decoded (nothing but ld's item and bl). */
static void
decode_thread(struct results_load *ld, void *arg)
{
	struct blockload *bl = arg;
	struct results_load_item *it = &ld->items[0];
	struct nm_error e;

	if (it->result == NULL) {
		bl->err = it->err;
		return;
	}
	if (it->series == NULL) {
		nm_error_set(&bl->err, NM_ERR_NOT_FOUND, "result %s has no stored series",
		             it->name);
		return;
	}
	if ((bl->blk = seriesblock_decode(it->series, it->series_len, bl->mono_to_real, &e)) ==
	    NULL)
		nm_error_set(&bl->err, NM_ERR_FAILED, "result %s: stored series skipped: %s",
		             it->name, e.message);
}

/* Loop: the load is over. */
static void
decode_done(struct results_load *ld, void *arg)
{
	struct blockload *bl = arg;

	if (bl->blk == NULL && bl->err.code == NM_ERR_FAILED)
		log_warnx("results: %s", bl->err.message);
	bl->thread_ns = ld->thread_ns;
	results_load_free(ld);
	bl->finished = true;
	if (bl->cancelled) {
		seriesblock_free(bl->blk);
		free(bl);
		return;
	}
	bl->done(bl->arg);
}

struct blockload *
blockload_start(struct results *rs, const char *name, int64_t mono_to_real, void (*done)(void *arg),
                void *arg)
{
	struct blockload *bl = xcalloc(1, sizeof(*bl));
	struct results_load *ld = results_load_new(rs);

	bl->mono_to_real = mono_to_real;
	bl->done = done;
	bl->arg = arg;
	nm_error_clear(&bl->err);
	results_load_add(ld, name, true);
	results_load_run(ld, decode_thread, decode_done, bl);
	return bl;
}

struct seriesblock *
blockload_take(struct blockload *bl, struct nm_error *err)
{
	struct seriesblock *b = bl->blk;

	if (b == NULL && err != NULL)
		*err = bl->err;
	free(bl);
	return b;
}

void
blockload_cancel(struct blockload *bl)
{
	if (bl == NULL)
		return;
	if (bl->finished) {
		seriesblock_free(bl->blk);
		free(bl);
		return;
	}
	bl->cancelled = true;
}

int
blockload_poll(struct blockload **bl, struct results *rs, const char *name, int64_t mono_to_real,
               void (*done)(void *arg), void *arg, uint64_t *offloop_ns, struct seriesblock **blk)
{
	if (*bl == NULL)
		*bl = blockload_start(rs, name, mono_to_real, done, arg);
	if (!(*bl)->finished)
		return 1;
	if (offloop_ns != NULL)
		*offloop_ns += (*bl)->thread_ns;
	*blk = blockload_take(*bl, NULL);
	*bl = NULL;
	return 0;
}
