/* peer-test.h: what a test with peers needs before it starts, for test-start and for a
 * suite's runs alike: a hello round trip to each peer (an unreachable one refuses the
 * test, naming it), then for netperf and iperf3 the benchmark's server on the first peer
 * (peerwin_server_start: its exec test NAME.server, stopped by the runner at the test's
 * end), and for a packet generator on a peer (spec->generator_on) its test NAME.generator
 * there (peer-generator.h: a refusal there refuses the test; once it runs,
 * spec->generator_started, and the runner follows it). */
#ifndef NM_PEER_TEST_H
#define NM_PEER_TEST_H

#include "peer-window.h"
#include "runner.h"

/* Told once the peers are ready (err NULL), or not (err says which peer and why; a
 * server already started is named in spec->server_peer: the caller stops it; so is a
 * generator, spec->generator_started). */
typedef void (*peertest_fn)(void *arg, const struct nm_error *err);

/* Prepare spec's peers (spec->peers not NULL; spec stays valid until done runs). done runs
 * later, on the loop, never before this returns. -1 with err (an unknown peer, every
 * transport failing at once): done never runs. */
int peertest_prepare(struct peerwins *pw, struct test_spec *spec, peertest_fn done, void *arg,
                     struct nm_error *err);

#endif
