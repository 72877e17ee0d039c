/* peer-test.c: a test's peers before it starts: hello to each, then the benchmark's
 * server on the first, or the packet generator on its peer (peer-test.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "jsonutil.h"
#include "peer-generator.h"
#include "peer-test.h"
#include "xmalloc.h"

struct prep {
	struct peerwins *pw;
	struct test_spec *spec;
	peertest_fn done;
	void *arg;
};

/* Tell the caller, once. */
static void
prep_done(struct prep *p, const struct nm_error *err)
{
	peertest_fn done = p->done;
	void *done_arg = p->arg;

	free(p);
	done(done_arg, err);
}

/* What the peer's daemon resolved for its generator (it runs there) goes into the spec:
 * the test's description and result show it. */
static void
copy_field(json_object *test, const char *key, char *dst, size_t size)
{
	const char *v = json_get_string(test, key, NULL);

	if (v != NULL && strlen(v) < size)
		snprintf(dst, size, "%s", v);
}

/* The peer's test-start of the generator answered: it runs there, or the test is refused. */
static void
generator_started(void *arg, json_object *test, const struct nm_error *err)
{
	struct prep *p = arg;
	struct test_spec *spec = p->spec;

	if (err == NULL) {
		spec->generator_started = true;
		copy_field(test, "generator", spec->generator, sizeof(spec->generator));
		copy_field(test, "src", spec->src, sizeof(spec->src));
		copy_field(test, "src_mac", spec->src_mac, sizeof(spec->src_mac));
		copy_field(test, "dst_mac", spec->dst_mac, sizeof(spec->dst_mac));
	}
	prep_done(p, err);
}

/* Every peer answered its hello (or one did not), or the server had its time. */
static void
reached(void *arg, const struct nm_error *err)
{
	struct prep *p = arg;
	struct test_spec *spec = p->spec;
	struct nm_error e2;

	/* A driver with a server (netperf, iperf3: struct driver.server_argv) needs it on the
	 * other end: the first peer's. */
	if (err == NULL && spec->server_peer[0] == '\0' && spec->driver->server_argv != NULL) {
		snprintf(spec->server_peer, sizeof(spec->server_peer), "%s",
		         json_object_get_string(json_object_array_get_idx(spec->peers, 0)));
		if (peerwin_server_start(p->pw, spec->server_peer, spec->name,
		                         spec->driver->server_argv, reached, p, &e2) == 0)
			return; /* back here once the server had its time */
		spec->server_peer[0] = '\0';
	}
	/* The packet generator on its peer (--generator-on): its test there first. */
	if (err == NULL && spec->generator_on[0] && !spec->generator_started) {
		if (peergen_start(peerwin_daemon(p->pw), spec, generator_started, p, &e2) == 0)
			return; /* generator_started follows */
		err = &e2;
	}
	prep_done(p, err);
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
