/* peer-test.c: a test's peers before it starts: hello to each, then the benchmark's
 * server on the first (peer-test.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "peer-test.h"
#include "xmalloc.h"

struct prep {
	struct peerwins *pw;
	struct test_spec *spec;
	peertest_fn done;
	void *arg;
};

/* Every peer answered its hello (or one did not), or the server had its time. */
static void
reached(void *arg, const struct nm_error *err)
{
	struct prep *p = arg;
	struct test_spec *spec = p->spec;
	peertest_fn done = p->done;
	void *done_arg = p->arg;

	/* netperf and iperf3 need their server on the other end: the first peer's. */
	if (err == NULL && spec->server_peer[0] == '\0' &&
	    (strcmp(spec->driver->name, "netperf") == 0 ||
	     strcmp(spec->driver->name, "iperf3") == 0)) {
		struct nm_error e2;
		snprintf(spec->server_peer, sizeof(spec->server_peer), "%s",
		         json_object_get_string(json_object_array_get_idx(spec->peers, 0)));
		if (peerwin_server_start(p->pw, spec->server_peer, spec->name, spec->driver->name,
		                         reached, p, &e2) == 0)
			return; /* back here once the server had its time */
		spec->server_peer[0] = '\0';
	}
	free(p);
	done(done_arg, err);
}

int
peertest_prepare(struct peerwins *pw, struct test_spec *spec, peertest_fn done, void *arg,
                 struct nm_error *err)
{
	struct prep *p = xcalloc(1, sizeof(*p));

	p->pw = pw;
	p->spec = spec;
	p->done = done;
	p->arg = arg;
	if (peerwin_hello(pw, spec->peers, reached, p, err) < 0) {
		free(p);
		return -1;
	}
	return 0;
}
