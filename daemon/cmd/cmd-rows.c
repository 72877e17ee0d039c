/* cmd-rows.c: replies that end in an array of rows, written a part at a time: at most
 * PART_BYTES or DAEMON_SLICE_NS of rows per turn of the loop. */
#include <event2/buffer.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-rows.h"
#include "daemon.h"
#include "dispatch.h"
#include "error.h"
#include "jsonutil.h"
#include "proto.h"
#include "sampler.h"
#include "series.h"
#include "strbuf.h"
#include "timeutil.h"
#include "xmalloc.h"

#define PART_BYTES 65536 /* bytes of the reply written at a time */

struct rows_job {
	struct daemon *d;
	int64_t id;
	bool has_id;
	json_object *head;
	char *key;
	const char *what; /* static */
	size_t n, next, written;
	bool prepared, estimated, started;
	cmd_rows_prep_fn prep;
	uint64_t bytes; /* the bound of the reply's size, summed before any row is written */
	cmd_row_bytes_fn bytes_fn;
	cmd_row_fn fn;
	cmd_rows_tail_fn tail;
	void *arg;
	void (*free_arg)(void *);
	struct strbuf sb;
};

size_t
cmd_json_text_bound(const char *s)
{
	size_t n = 2;

	for (; *s; s++)
		n += (unsigned char)*s < 0x20 ? 6 : (*s == '"' || *s == '\\') ? 2 : 1;
	return n;
}

uint64_t
cmd_rows_series_bytes(struct daemon *d, series_id id)
{
	const struct series_info *si = series_get(sampler_registry(d->sampler), id);

	return cmd_json_text_bound(si->name) + cmd_json_text_bound(si->unit);
}

int
cmd_rows_budget(struct daemon *d, size_t n, uint64_t bytes, const char *what, struct nm_error *err)
{
	uint64_t maxp = d->config.reply_max_points, maxb = d->config.reply_max_bytes, fit;

	if (n <= maxp && bytes <= maxb)
		return 0;
	fit = n <= maxp ? (uint64_t)((double)n * (double)maxb / (double)bytes) : maxp;
	return nm_error_set(
	    err, NM_ERR_TOO_LARGE,
	    "%zu %s (about %llu bytes) pass the reply budget (%s: %llu, "
	    "%llu bytes): narrow the glob to at most %llu %s",
	    n, what, (unsigned long long)bytes, n > maxp ? "reply_max_points" : "reply_max_bytes",
	    (unsigned long long)maxp, (unsigned long long)maxb, (unsigned long long)fit, what);
}

size_t
cmd_rows_cap(const struct daemon *d, uint64_t row_bytes)
{
	uint64_t by_bytes = d->config.reply_max_bytes / (row_bytes ? row_bytes : 1);
	uint64_t cap =
	    d->config.reply_max_points < by_bytes ? d->config.reply_max_points : by_bytes;

	return cap > SIZE_MAX - 1 ? SIZE_MAX - 1 : (size_t)cap;
}

/* Free a job (control's free_fn). */
static void
rows_free(void *arg)
{
	struct rows_job *j = arg;

	if (j->free_arg != NULL)
		j->free_arg(j->arg);
	json_object_put(j->head);
	free(j->key);
	strbuf_free(&j->sb);
	free(j);
}

/* The start of the line: the envelope, head's members, the array's key. */
static void
rows_start(struct rows_job *j)
{
	char head[PROTO_REPLY_HEAD_MAX];
	size_t len;
	const char *text = json_to_line(j->head, &len);
	json_object *k = json_object_new_string(j->key);

	strbuf_add(&j->sb, head, proto_reply_ok_head(j->id, j->has_id, head, sizeof(head)));
	strbuf_add(&j->sb, text, len - 1); /* without its closing brace */
	if (json_object_object_length(j->head) > 0)
		strbuf_addch(&j->sb, ',');
	strbuf_addstr(&j->sb, json_to_line(k, NULL));
	strbuf_addstr(&j->sb, ":[");
	json_object_put(k);
	j->started = true;
}

/* Sum the rows' size bounds from j->next on for a slice; at the end, check the budget.
 * 0 while summing or within the budget; -1 with err when over it. */
static int
rows_estimate(struct rows_job *j, struct nm_error *err)
{
	uint64_t start = time_mono_ns();

	while (j->bytes_fn != NULL && j->next < j->n) {
		j->bytes += j->bytes_fn(j->d, j->next++, j->arg);
		if ((j->next & 255) == 0 && time_mono_ns() - start >= DAEMON_SLICE_NS)
			return 0;
	}
	j->estimated = true;
	j->next = 0;
	return cmd_rows_budget(j->d, j->n, j->bytes, j->what, err);
}

/* The tail's members after the rows' array (its text without the braces), if any. */
static void
rows_tail(struct rows_job *j)
{
	json_object *t = j->tail != NULL ? j->tail(j->arg) : NULL;
	const char *text;
	size_t len;

	if (t != NULL && json_object_object_length(t) > 0) {
		text = json_to_line(t, &len);
		strbuf_addch(&j->sb, ',');
		strbuf_add(&j->sb, text + 1, len - 2); /* without "{" and "}" */
	}
	json_object_put(t);
}

/* The producer: the size check a slice at a time, then the next rows, up to a part's
 * bytes or time. 1 once the line is out. */
static int
rows_produce(struct evbuffer *out, void *arg)
{
	struct rows_job *j = arg;
	uint64_t start = time_mono_ns();
	struct nm_error err;

	if (!j->prepared || !j->estimated) {
		size_t len;
		char *line;
		int rc;
		if (!j->prepared) {
			if ((rc = j->prep(j->d, j->arg, j->head, &j->n, &err)) == 0)
				return 0;
			j->prepared = rc > 0;
			if (rc > 0)
				return 0; /* the estimate on the next turn */
		} else if (rows_estimate(j, &err) == 0)
			return 0;
		line = proto_reply_error(j->id, j->has_id, err.code, err.message, &len);
		evbuffer_add(out, line, len);
		free(line);
		return 1;
	}
	strbuf_reset(&j->sb);
	if (!j->started)
		rows_start(j);
	while (j->next < j->n && j->sb.len < PART_BYTES) {
		json_object *row = j->fn(j->d, j->next, j->arg);
		j->next++;
		if (row != NULL) {
			size_t len;
			const char *text = json_to_line(row, &len);
			if (j->written++ > 0)
				strbuf_addch(&j->sb, ',');
			strbuf_add(&j->sb, text, len);
			json_object_put(row);
		}
		if (time_mono_ns() - start >= DAEMON_SLICE_NS)
			break;
	}
	if (j->next == j->n) {
		strbuf_addch(&j->sb, ']');
		rows_tail(j);
		strbuf_addstr(&j->sb, "}" PROTO_REPLY_TAIL);
		evbuffer_add(out, j->sb.buf, j->sb.len);
		return 1;
	}
	evbuffer_add(out, j->sb.buf, j->sb.len);
	return 0;
}

int
cmd_rows_reply(struct cmd_ctx *ctx, json_object *head, const char *key, const struct cmd_rows *rows,
               void *arg, void (*free_arg)(void *), json_object **result, struct nm_error *err)
{
	struct rows_job *j;

	/* Too many rows is known at once; too many bytes after the rows' bounds are summed. */
	if (rows->n > ctx->d->config.reply_max_points &&
	    cmd_rows_budget(ctx->d, rows->n, 0, rows->what, err) < 0) {
		json_object_put(head);
		if (free_arg != NULL)
			free_arg(arg);
		return -1;
	}
	j = xcalloc(1, sizeof(*j));

	j->d = ctx->d;
	j->id = ctx->id;
	j->has_id = ctx->has_id;
	j->head = head;
	j->key = xstrdup(key);
	j->n = rows->n;
	j->what = rows->what;
	j->bytes = rows->fixed_bytes;
	j->bytes_fn = rows->bytes_fn;
	j->fn = rows->fn;
	j->tail = rows->tail;
	j->prep = rows->prep;
	j->prepared = rows->prep == NULL;
	j->arg = arg;
	j->free_arg = free_arg;
	strbuf_init(&j->sb);
	return dispatch_defer(ctx, rows_produce, j, rows_free, result, err);
}
