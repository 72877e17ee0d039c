/* peer-generator.h: a packet generator put on a peer (test start --driver pktgen
 * --generator-on PEER): the pktgen test itself runs on that peer's daemon, as its own test
 * TEST.generator (the peer's daemon drives its own kernel's pktgen, or trafgen, through
 * its own privileged process, under its own rules for the transport's credentials), while
 * this daemon's test keeps the multi-host window and follows the peer's test over the peer
 * link (test-status every PEERGEN_POLL_MS, each answer with its deadline) until it ends;
 * the peer's test object (its figures: packets and bytes sent, pps, errors) becomes this
 * test's figures. Stopping this test stops the peer's (test-stop TEST.generator); a peer
 * lost on the way ends the follow with the transport's error, naming the peer. */
#ifndef NM_PEER_GENERATOR_H
#define NM_PEER_GENERATOR_H

#include <json-c/json.h>
#include <stddef.h>

struct daemon;
struct nm_error;
struct peergen;
struct test_spec;

#define PEERGEN_POLL_MS      500   /* the peer's test-status, asked this often */
#define PEERGEN_CALL_MS      10000 /* a peer's answer to one of the generator's requests */
#define PEERGEN_START_MS     30000 /* the peer's test-start: its ip/tc lookups and setup first */
#define PEERGEN_STOP_WAIT_MS 60000 /* its end there after the stop, at most */
#define PEERGEN_SUFFIX       ".generator"

/* The name of the generator's test on the peer: TEST.generator. */
void peergen_name(const char *test, char *buf, size_t size);

/* The peer's test-start answered: test is its reply (borrowed; the test runs there), or
 * err says why not (the peer's refusal, or the transport's failure, naming the peer). */
typedef void (*peergen_started_fn)(void *arg, json_object *test, const struct nm_error *err);
/* Start spec's generator (spec->generator_on) on its peer: test-start TEST.generator with
 * the generator's arguments, no warm-up, no cool-down, spec's duration. done runs later,
 * on the loop. 0, or -1 with err (the call could not be sent) and done does not run. */
int peergen_start(struct daemon *d, const struct test_spec *spec, peergen_started_fn done,
                  void *arg, struct nm_error *err);
/* test-stop TEST.generator on peer, nobody waiting for the answer (a start that failed
 * here after the generator started there). */
void peergen_stop_name(struct daemon *d, const char *peer, const char *test);

/* The peer's test has ended: summary is its test object (borrowed: state, status, reason,
 * figures), or err says the peer was lost (summary NULL). */
typedef void (*peergen_end_fn)(void *arg, json_object *summary, const struct nm_error *err);
/* Follow TEST.generator on peer until it ends; ended runs once, on the loop, unless
 * peergen_free comes first. Never NULL. */
struct peergen *peergen_follow(struct daemon *d, const char *peer, const char *test,
                               peergen_end_fn ended, void *arg);
/* Stop the peer's test (once; no-op once it ended); the follow goes on until it has, or
 * until PEERGEN_STOP_WAIT_MS have passed (then it ends as lost). */
void peergen_stop(struct peergen *g);
/* Has it ended (ended has run)? */
int peergen_ended(const struct peergen *g);
/* The peer's test as last seen, for test status: {peer, test, state, live} (new
 * reference). */
json_object *peergen_json(const struct peergen *g);
/* Stop following (ended does not run); an answer in flight is dropped. g may be NULL. */
void peergen_free(struct peergen *g);

#endif
