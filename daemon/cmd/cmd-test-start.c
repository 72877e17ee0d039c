/* cmd-test-start.c: start a benchmark test (runner.c): its arguments are checked, its
 * profile applied and its processes started before the reply; the window and the result
 * follow on the loop. A driver that asks tools about the host first (pktgen: ip, tc) is
 * answered once they have: the reply waits, the loop does not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clientfd.h"
#include "cmd.h"
#include "control.h"
#include "daemon.h"
#include "peer-generator.h"
#include "peer-test.h"
#include "peer-window.h"
#include "runner.h"
#include "xmalloc.h"

/* A start waiting for the driver's resolve. */
struct start_later {
	struct daemon *d;
	struct control_later *later;
	struct test_spec spec;
};

/* The test has started its processes, or failed before: answer. */
static void
started(struct test *t, void *arg)
{
	struct start_later *sl = arg;
	struct nm_error e;

	if (t->never_started) {
		nm_error_set(&e, NM_ERR_FAILED,
		             "test %s failed: %s; its result is stored with the reason",
		             t->spec.name, t->reason);
		control_later_reply(sl->later, NULL, &e);
	} else
		control_later_reply(sl->later, runner_test_json(t), NULL);
	free(sl);
}

/* The spec is resolved (or not): start it; answer once its processes run. */
static void
resolved(void *arg, int rc, const struct nm_error *err)
{
	struct start_later *sl = arg;
	char name[sizeof(sl->spec.name)];
	char server_peer[sizeof(sl->spec.server_peer)];
	char gen_peer[sizeof(sl->spec.generator_on)];
	struct nm_error e;
	struct test *t;
	json_object *res;

	snprintf(server_peer, sizeof(server_peer), "%s", sl->spec.server_peer);
	snprintf(name, sizeof(name), "%s", sl->spec.name);
	snprintf(gen_peer, sizeof(gen_peer), "%s",
	         sl->spec.generator_started ? sl->spec.generator_on : "");
	if (rc < 0) {
		/* Not started: a server or generator started on a peer for it goes too. */
		if (server_peer[0])
			peerwin_server_stop(sl->d->peerwins, server_peer, name);
		if (gen_peer[0])
			peergen_stop_name(sl->d, gen_peer, name);
		runner_spec_free(&sl->spec);
		control_later_reply(sl->later, NULL, err);
		free(sl);
		return;
	}
	res = runner_start(sl->d->runner, &sl->spec, NULL, NULL, &e);
	if (res != NULL && (t = runner_find(sl->d->runner, name)) != NULL &&
	    t->state == TEST_STARTING && !runner_finished(t)) {
		json_object_put(res);
		runner_on_started(t, started, sl); /* the driver's setup runs */
		return;
	}
	if (res == NULL && server_peer[0])
		peerwin_server_stop(sl->d->peerwins, server_peer, name);
	/* Refused (once registered, start_failed has asked already: a second stop is only
	 * refused there). */
	if (res == NULL && gen_peer[0])
		peergen_stop_name(sl->d, gen_peer, name);
	control_later_reply(sl->later, res, res != NULL ? NULL : &e);
	free(sl);
}

/* The test's peers are ready (peer-test.c), or one is not: the test is refused, naming
 * it. */
static void
peers_reached(void *arg, const struct nm_error *err)
{
	struct start_later *sl = arg;
	struct nm_error e;

	if (err != NULL) {
		nm_error_set(&e, err->code, "test %s refused: %s", sl->spec.name, err->message);
		resolved(sl, -1, &e);
		return;
	}
	runner_resolve(sl->d->runner, &sl->spec, resolved, sl);
}

/* test-start: check the arguments, start the test (its processes run as the client, see
 * struct test_cred), describe it. */
static int
cmd_test_start(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct test_spec spec;
	struct start_later *sl;

	if (runner_spec_parse(ctx->d->runner, args, &spec, err) < 0)
		return -1;
	spec.cred = (struct test_cred){true, control_client_uid(ctx->client),
	                               control_client_gid(ctx->client),
	                               clientfd_new(control_client_fd(ctx->client))};
	if (spec.peers != NULL && ctx->client == NULL) {
		runner_spec_free(&spec);
		return nm_error_set(err, NM_ERR_BAD_ARGS, "a test with peers needs a client");
	}
	if (spec.peers != NULL || runner_needs_resolve(&spec) || spec.driver->setup != NULL) {
		sl = xcalloc(1, sizeof(*sl));
		sl->d = ctx->d;
		sl->spec = spec;
		*result = NULL;
		/* With peers, first a round trip to each: an unreachable one refuses the test
		 * before anything starts. */
		if (spec.peers != NULL &&
		    peertest_prepare(ctx->d->peerwins, &sl->spec, peers_reached, sl, err) < 0) {
			runner_spec_free(&sl->spec);
			free(sl);
			return -1;
		}
		sl->later = control_later_new(ctx->client, ctx->id, ctx->has_id);
		ctx->deferred = true;
		if (spec.peers == NULL)
			runner_resolve(ctx->d->runner, &sl->spec, resolved, sl);
		return 0;
	}
	*result = runner_start(ctx->d->runner, &spec, NULL, NULL, err);
	return *result != NULL ? 0 : -1;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_test_start_entry = {.proto = "test-start", .exec = cmd_test_start};
