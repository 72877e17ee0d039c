/* cmd-trend.c: trend: the rate of one series step by step over a window or a time range,
 * analysed by trend.c (plateau, onset of decay, decayed level, recovery), and the counters
 * that moved most at the onset. */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-util.h"
#include "cmd.h"
#include "daemon.h"
#include "peer-forward.h"
#include "error.h"
#include "jsonutil.h"
#include "query.h"
#include "results.h"
#include "ring.h"
#include "sampler.h"
#include "trend.h"
#include "window.h"
#include "xmalloc.h"

/* trend: over args.window's span, else over from/to as series takes them. */
int
cmd_trend(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct daemon *d = ctx->d;
	const char *win = json_get_string(args, "window", NULL);
	struct ring_stats st;
	uint64_t t0, t1;
	json_object *o;
	int rc;

	/* --host PEER: that host's daemon answers. */
	if ((rc = peer_forward(ctx, args, err)) != 0)
		return rc < 0 ? -1 : 0;
	if (win != NULL && (json_object_object_get_ex(args, "from", NULL) ||
	                    json_object_object_get_ex(args, "to", NULL)))
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "argument \"window\": give a window or from/to, not both");
	o = json_object_new_object();
	json_object_object_add(o, "window", win != NULL ? json_object_new_string(win) : NULL);
	if (win != NULL)
		rc = trend_window(d, d->query, win, args, o, err);
	else {
		ring_get_stats(sampler_ring(d->sampler), &st);
		t0 = cmd_series_time(d, json_get_double(args, "from", -300), st.newest_ns);
		t1 = cmd_series_time(d, json_get_double(args, "to", 0), st.newest_ns);
		rc = trend_build(d, d->query, args, t0, t1, o, err);
	}
	if (rc < 0) {
		json_object_put(o);
		return -1;
	}
	*result = o;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_trend_entry = {.proto = "trend", .exec = cmd_trend};
