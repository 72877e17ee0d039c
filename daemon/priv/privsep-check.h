/* privsep-check.h: what the privileged process (privsep.h) agrees to do, checked on the
 * text of each request alone, whatever the main process already checked: the allow-list
 * of tuning files and the syntax of their values, device names, and what a spawn may run
 * and as whom. Pure functions (no file system), so that a unit test links this file only;
 * privsep-parent.c adds the checks that need the system (the file opened without
 * following symlinks and found to be regular, the executable's owner and mode, the user's
 * groups). */
#ifndef NM_PRIVSEP_CHECK_H
#define NM_PRIVSEP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "privsep.h" /* PRIVSEP_GROUPS */

#define PRIVSEP_ARGV_MAX 256 /* arguments of a spawn */
#define PRIVSEP_ENV_MAX  256 /* environment entries of a spawn */

/* May value be written to rel below base (enum profile_base: NETDEV with dev, IRQ,
 * SYSCTL)? Each knob allows its own files (knob_ops.allow in profile-<knob>.c); today:
 *   NETDEV  queues/tx-N/xps_cpus, queues/rx-N/rps_cpus (hex masks in comma groups),
 *           queues/rx-N/rps_flow_cnt (a decimal), gro_flush_timeout and
 *           napi_defer_hard_irqs (decimals), threaded (0 or 1)
 *   IRQ     N/smp_affinity_list (a CPU list)
 *   SYSCTL  net/... (names of letters, digits, '_', '-', '.'; no net/core/bpf_*), one line
 *           of letters, digits, blanks and "_.,:-" (tcp_rmem's three numbers, "bbr")
 * 0, or -1 with why. */
int privsep_check_write(int base, const char *dev, const char *rel, const char *val, char *why,
                        size_t size);
/* A network device name as the kernel's dev_valid_name() takes it. 0 or -1 with why. */
int privsep_check_dev(const char *dev, char *why, size_t size);
/* An RSS request (privsep_rss; part: enum ethtool_rss_part, len: its data's bytes) against
 * the device's table entries nindir, rx rings nrings and key bytes nkey: a table of nindir
 * queues below nrings, a key of nkey bytes, one hash function (1, 2, 4), a known flow type
 * with RXH_* fields. 0 or -1 with why. */
int privsep_check_rss(int part, int32_t b, const void *data, size_t len, uint32_t nindir,
                      uint32_t nrings, uint32_t nkey, char *why, size_t size);
/* An ethtool feature name as the kernel spells them ("rx-gro-hw"): 1 to 31 bytes of
 * lowercase letters, digits and '-'. 0 or -1 with why. */
int privsep_check_feature(const char *name, char *why, size_t size);
/* May the file st (of path, lstat'ed) be executed by a spawn: an absolute path of a
 * regular executable file owned by root (or by uid, when it runs as uid != 0), writable by
 * no group or other, so that the main process cannot plant what the privileged process
 * runs (privsep-parent.c checks the file a path resolves to, and the directories of
 * both)? 0 or -1 with why. */
int privsep_check_exec(const char *path, const struct stat *st, uid_t uid, char *why, size_t size);
/* May the directory st (path) hold what a spawn as uid runs: owned by root (or uid), not
 * writable by its group or others unless sticky? 0 or -1 with why. */
int privsep_check_dir(const char *path, const struct stat *st, uid_t uid, char *why, size_t size);
/* May a spawn as uid take gid and groups[0..n): each one of allowed[0..nallowed) (the
 * user's groups from the group database, primary first)? uid 0 takes any. 0 or -1. */
int privsep_check_groups(uid_t uid, gid_t gid, const gid_t *groups, size_t n, const gid_t *allowed,
                         size_t nallowed, char *why, size_t size);
/* May a client with SO_PEERCRED puid/pgid (admin: root or in the admin group now) have argv
 * spawned as asked (as_user: as uid/gid; else as root) in netns ("" or NULL: none)? A root
 * client: anything. Another: as itself only (uid and gid its own), or, an admin, as root
 * for a privileged driver (pktgen) only the command lines it builds
 * (privsep_check_root_argv). 0 or -1 with why. */
int privsep_check_peer(uid_t puid, gid_t pgid, bool admin, bool as_user, uid_t uid, gid_t gid,
                       char *const *argv, const char *netns, char *why, size_t size);
/* The allow-list of what runs as root for an admin who is not root: argv must be, word by
 * word, one of the command lines the pktgen driver builds (driver-pktgen.h): ip and tc
 * with their subcommand, options and slots (a device, a namespace, an IPv4 address, a
 * number, trafgen's configuration file), trafgen's options, netmetrics-pktgen's script of
 * writes to pktgen's thread and device files. Nothing is taken by prefix, so iproute2's
 * abbreviations ("ip netns e", "ip -ba FILE", "ip vrf e") are refused like the words they
 * abbreviate; a device slot takes no leading '-' and nothing trafgen's -o would write as a
 * file (".pcap", ".cfg"). netns (the namespace the privileged process runs argv in, ""
 * or NULL for none) must be a namespace name. argv[0]'s file name chooses the shapes;
 * the file itself is checked by privsep-parent.c. 0, or -1 with why naming the first word
 * no shape takes. */
int privsep_check_root_argv(char *const *argv, const char *netns, char *why, size_t size);
/* Is every entry of a NULL-terminated vector NAME=VALUE (env; none of the loader's LD_*
 * or GCONV_PATH) or non-empty (argv), the count at most max? 0 or -1. */
int privsep_check_strv(char *const *v, size_t max, bool env, char *why, size_t size);

#endif
