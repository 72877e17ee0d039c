/* suite.h: suites of tests run by the daemon: a matrix over connection counts and profile
 * values (conf/suites/NAME.conf: "conns = 64 128 1024", "rfs = 512 1024") times iterations,
 * a pause between runs, each run's profile applied with its values (${rfs}) and taken
 * back after it; results named SUITE/conns_64_rfs_512_iter_1 as the shell kit named them.
 * A suite's record (runs, statuses, the summary table) is kept in STATE_DIR/suites/NAME.json
 * and rewritten after every run, so it survives the client and a restart; a daemon stopping
 * marks a running suite incomplete. */
#ifndef NM_SUITE_H
#define NM_SUITE_H

#include <json-c/json.h>

#include "runner.h"
#include <stdbool.h>

struct daemon;
struct nm_error;
struct suites;

#define SUITE_RUNS_MAX 4096
#define SUITE_DIMS_MAX 8

/* The registry over d (its runner, results, state directory). Suites a crash left running
 * are marked incomplete. NULL with err. */
struct suites *suite_init(struct daemon *d, struct nm_error *err);
/* Mark a running suite incomplete (the daemon is stopping) and free. Call before
 * runner_free, which then ends the suite's test. */
void suite_free(struct suites *ss);

/* Run until the answer is sure (suite run --until-ci): the points run in rounds (every
 * point once, each round's order rotated by one); after each whole rotation (every round
 * past SUITE_UNTIL_ROTATION_MAX points) and at the cap, a look: the confidence interval of
 * the difference of the means of figure between each point and the first (a single point:
 * of its mean), at 1 - 0.05 / looks each so that over all the looks the suite's chance of
 * an error stays within 5 %, and the suite stops once every interval is sure (its half-width
 * within pct % of the first point's mean, or all of it more than pct % away from no
 * difference), or after max_iterations rounds (then the answer is not sure). */
struct suite_until {
	double pct;              /* 0: run the file's iterations */
	unsigned max_iterations; /* the cap (SUITE_UNTIL_MAX_DEFAULT when 0) */
	char figure[128];        /* fnmatch(3) glob over the test's figures ("" : the default) */
};
#define SUITE_UNTIL_MAX_DEFAULT  20
#define SUITE_UNTIL_MIN_ROUNDS   2 /* rounds before the first check */
#define SUITE_UNTIL_ROTATION_MAX 4 /* up to this many points, checks at whole rotations */

/* Parse suite text (file names the source in messages), check every run's arguments, and
 * start the first run (with dry, only list the runs). name (may be NULL) overrides [suite]
 * name. peers (an array of names, may be NULL) are added to the file's [suite] peer = NAME
 * ones: every run is a multi-host test with them (test start --peer), each a configured
 * peer. Every run's processes run as cred (who started the suite). With until (may be
 * NULL; pct > 0) the iterations are until's max_iterations and the suite may stop sooner.
 * Returns the suite's
 * record (new reference) or NULL with err; nothing is started on error. */
json_object *suite_run(struct suites *ss, const char *text, const char *file, const char *name,
                       bool dry, json_object *peers, const struct test_cred *cred,
                       const struct suite_until *until, struct nm_error *err);
/* Stop the running suite (name NULL: whichever runs). Returns its record, or NULL with
 * err. */
json_object *suite_stop(struct suites *ss, const char *name, struct nm_error *err);
/* The record of a suite (running or stored), with its summary table. NULL with err. */
json_object *suite_status(struct suites *ss, const char *name, struct nm_error *err);
/* Every suite known (stored records), newest first: name, state, runs done of total. */
json_object *suite_list(struct suites *ss);
/* Is there a suite of that name (running or stored)? */
int suite_exists(struct suites *ss, const char *name);

#endif
