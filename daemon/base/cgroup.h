/* cgroup.h: a cgroup v2 group per test, so that everything a test started (also what it
 * double-forked or setsid'd away) is killed as a whole (cgroup.kill). The groups live under
 * the daemon's own group: with a systemd unit (Delegate=yes, the group named *.service) the
 * daemon moves itself into a "daemon" leaf and the tests are its siblings "test-N";
 * elsewhere they go in "netmetricsd-HASH/test-N" below the daemon's group, HASH naming
 * the state directory, so that daemons of other state directories are left alone. At start
 * the groups a crashed daemon left are killed and removed. Without a cgroup v2 mount the
 * tree is NULL and the runner kills process groups instead. */
#ifndef NM_CGROUP_H
#define NM_CGROUP_H

#include <stdbool.h>
#include <stddef.h>

struct event_base;
struct cgroup_tree;

/* Find the cgroup v2 mount (/proc/self/mountinfo) and the daemon's group
 * (/proc/self/cgroup), make the test groups' parent, and kill and remove what a crashed
 * daemon of the same state directory left there (logged). NULL with why (the runner falls
 * back to process groups). */
struct cgroup_tree *cgroup_open(struct event_base *base, const char *state_dir, char *why,
                                size_t size);
/* Kill every test group still there, wait briefly for them to empty, remove them, free. */
void cgroup_close(struct cgroup_tree *ct);
/* Kill and remove every test group below path (the privileged process of privsep.h,
 * after the main process has gone), and path itself when the daemon made it. */
void cgroup_sweep_path(const char *path);
/* The directory the test groups live in. */
const char *cgroup_path(const struct cgroup_tree *ct);

/* Make a new test group, with pids.max pids_max when the tree has the pids controller and
 * pids_max is not 0; its number into *id and its cgroup.procs opened for writing
 * (close-on-exec) as the return value, for child_spawn.cgroup_fd. -1 with why. */
int cgroup_create(struct cgroup_tree *ct, unsigned *id, unsigned pids_max, char *why, size_t size);
/* Do the test groups have the pids controller (a pids.max each)? When not, *why (unless
 * why is NULL) says why not. */
bool cgroup_has_pids(const struct cgroup_tree *ct, const char **why);
/* Give the test groups under dir the pids controller: "+pids" in dir's
 * cgroup.subtree_control, once dir's cgroup.controllers lists it (parent, when not NULL,
 * is dir's parent, where it is enabled first). Exported for its test. 0, or -1 with why. */
int cgroup_enable_pids(const char *parent, const char *dir, char *why, size_t size);
/* Kill everything in test group id (cgroup.kill) and remove the group once it is empty
 * (retried on the loop while the killed processes exit). */
void cgroup_release(struct cgroup_tree *ct, unsigned id);

/* The parsers (exported for their tests): the cgroup v2 group in /proc/self/cgroup text
 * (the path after "0::") into buf; 0, or -1 when there is no v2 line. */
int cgroup_parse_self(const char *text, char *buf, size_t size);
/* The mount point of the cgroup2 file system in mountinfo text into buf. 0 or -1. */
int cgroup_parse_mountinfo(const char *text, char *buf, size_t size);

#endif
