/* usergroups.h: a user's groups from the group database (getpwuid, getgrouplist, getgrnam),
 * kept per uid for a short time. A lookup may block in a slow NSS backend (LDAP, sssd), and
 * the event loop asks for each mutating request (is the client an admin?) and each test
 * start (the groups its processes get): within USERGROUPS_TTL_MS of a lookup, and while
 * /etc/passwd and /etc/group are unchanged (their mtime, size and inode), the kept answer is
 * given. A change to the local files (gpasswd, usermod) therefore counts at once; one in a
 * remote database after at most the TTL. At most USERGROUPS_SLOTS users are kept (the
 * oldest replaced). */
#ifndef NM_USERGROUPS_H
#define NM_USERGROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define USERGROUPS_TTL_MS 5000
#define USERGROUPS_SLOTS  64
#define USERGROUPS_MAX    256 /* groups kept per user */

/* The groups of uid: its passwd entry's primary group first, then every group listing it
 * (getgrouplist), at most max into groups. 0 with *n, or -1 (no passwd entry). */
int usergroups_get(uid_t uid, gid_t *groups, size_t max, size_t *n);
/* Is a peer with these credentials root, or in the group named admin_group (its gid, or one
 * of uid's groups)? admin_group NULL: no group. */
bool usergroups_is_admin(uid_t uid, gid_t gid, const char *admin_group);
/* Forget what is kept (tests). */
void usergroups_flush(void);
/* Lookups made in the databases so far (tests: what the cache saved). */
unsigned long usergroups_lookups(void);

#endif
