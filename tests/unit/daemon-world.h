/* daemon-world.h: what the unit tests of commands over the daemon's parts share: a fixture
 * root in a temporary directory with a state directory, a configuration over it, and the
 * sampler (on a clock the test sets), its query, the reply budget, the results store and the
 * windows, made and freed as the daemon does. Failures fail the running cmocka test.
 * Include after <cmocka.h>. */
#ifndef NM_DAEMON_WORLD_H
#define NM_DAEMON_WORLD_H

#include <stdint.h>

#include "config.h"
#include "daemon.h"

struct daemon_world {
	char root[64], state[96];
	struct config cfg;
	struct daemon d;
	uint64_t now; /* the sampler's clock: CLOCK_MONOTONIC ns as the test sets it */
};

/* A root /tmp/nm-test-NAME-XXXXXX with the directory dir below it (e.g. "proc/net/stat")
 * and state/; cfg defaulted on that root with the sources off (NULL-terminated) disabled.
 * The test writes its fixture files and changes cfg, then daemon_world_start. */
void daemon_world_init(struct daemon_world *w, const char *name, const char *dir,
                       const char *const *off);
/* The daemon's parts over w's root and configuration, the sampler on w->now. */
void daemon_world_start(struct daemon_world *w);
/* Free what daemon_world_start made and remove the root (not w itself). */
void daemon_world_end(struct daemon_world *w);

#endif
