/* follow.c: a test's or a suite's progress as events on one connection: its state changes,
 * its live figures, its end. The record is looked at each tick on the loop (a test's is in
 * memory) and an event made when something a reader waits for has moved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "dispatch.h"
#include "error.h"
#include "follow.h"
#include "jsonutil.h"
#include "xmalloc.h"

#define FOLLOW_TICK_MS  250  /* a state change is seen within this */
#define FOLLOW_EVERY_MS 1000 /* live figures at least this often */
#define FOLLOW_KEY_MAX  320

struct follow {
	struct daemon *d;
	const char *event; /* static */
	char name[256];
	follow_fn fn;
	char key[FOLLOW_KEY_MAX]; /* what the last event showed: state, runs done, current */
	unsigned ticks;           /* since the last event */
};

/* What a reader waits for in a record: its state, the runs done, the run in progress. */
static void
record_key(json_object *rec, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%lld/%s", json_get_string(rec, "state", ""),
	         (long long)json_get_int(rec, "runs_done", 0), json_get_string(rec, "current", ""));
}

/* Send one event: the record (taken over), or the error when it is NULL. */
static void
send_event(struct client *c, int64_t id, const char *event, json_object *rec, bool end,
           const struct nm_error *err)
{
	json_object *data = json_object_new_object();
	size_t len;
	char *line;

	if (rec != NULL)
		json_object_object_add(data, event, rec);
	else
		json_add_string(data, "error", err->message);
	json_object_object_add(data, "end", json_object_new_boolean(end));
	line = proto_event(id, event, data, &len);
	control_client_send(c, line, len);
	free(line);
	json_object_put(data);
}

/* One tick: an event when the record moved, or a second has passed; the last one at its end
 * (the stream is then cancelled, which frees f). */
static void
follow_tick(struct client *c, int64_t id, void *arg)
{
	struct follow *f = arg;
	char key[FOLLOW_KEY_MAX];
	struct nm_error err;
	bool ended = false;
	json_object *rec;

	nm_error_clear(&err);
	if ((rec = f->fn(f->d, f->name, &ended, &err)) == NULL) {
		send_event(c, id, f->event, NULL, true, &err);
		control_stream_cancel(c, id);
		return;
	}
	record_key(rec, key, sizeof(key));
	if (!ended && strcmp(key, f->key) == 0 && ++f->ticks * FOLLOW_TICK_MS < FOLLOW_EVERY_MS) {
		json_object_put(rec);
		return;
	}
	snprintf(f->key, sizeof(f->key), "%s", key);
	f->ticks = 0;
	send_event(c, id, f->event, rec, ended, NULL);
	if (ended)
		control_stream_cancel(c, id);
}

int
follow_start(struct cmd_ctx *ctx, const char *event, const char *name, follow_fn fn,
             struct nm_error *err)
{
	struct follow *f;
	bool ended = false;
	json_object *rec;

	if (ctx->client == NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "follow needs a connection");
	/* Refused at once when there is nothing to follow; else the first event now. */
	if ((rec = fn(ctx->d, name, &ended, err)) == NULL)
		return -1;
	f = xcalloc(1, sizeof(*f));
	f->d = ctx->d;
	f->event = event;
	f->fn = fn;
	snprintf(f->name, sizeof(f->name), "%s", name);
	record_key(rec, f->key, sizeof(f->key));
	if (!ended && control_stream_add(ctx->client, ctx->id, FOLLOW_TICK_MS, follow_tick, f, free,
	                                 err) < 0) {
		json_object_put(rec);
		free(f);
		return -1;
	}
	if (ended)
		free(f);
	send_event(ctx->client, ctx->id, event, rec, ended, NULL);
	ctx->deferred = true;
	return 0;
}
