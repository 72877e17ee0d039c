/* privsep-check.c: the privileged process's allow-list, on the request's text alone. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "privsep-check.h"
#include "profile.h"

/* s is a decimal number without sign or leading zeros (but "0"), of at most 9 digits;
 * *end gets where it stops. */
static bool
number(const char *s, const char **end)
{
	size_t n = strspn(s, "0123456789");

	if (n == 0 || n > 9 || (n > 1 && s[0] == '0'))
		return false;
	*end = s + n;
	return true;
}

/* Every byte of s is in set, and s is 1..max bytes. */
static bool
only(const char *s, const char *set, size_t max)
{
	size_t n = strlen(s);

	return n > 0 && n <= max && strspn(s, set) == n;
}

int
privsep_check_dev(const char *dev, char *why, size_t size)
{
	size_t n = strlen(dev);

	if (n == 0 || n >= PROFILE_DEV_MAX || strcmp(dev, ".") == 0 || strcmp(dev, "..") == 0)
		goto bad;
	for (const char *s = dev; *s; s++)
		if (*s == '/' || *s == ':' || isspace((unsigned char)*s) ||
		    (unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			goto bad;
	return 0;
bad:
	snprintf(why, size, "not a network device name");
	return -1;
}

/* queues/tx-N/xps_cpus, queues/rx-N/rps_cpus, queues/rx-N/rps_flow_cnt with its value. */
static int
check_queue(const char *rel, const char *val, char *why, size_t size)
{
	const char *p, *end;
	bool tx;

	if (strncmp(rel, "queues/tx-", 10) == 0)
		tx = true;
	else if (strncmp(rel, "queues/rx-", 10) == 0)
		tx = false;
	else
		goto bad;
	p = rel + 10;
	if (!number(p, &end) || *end != '/')
		goto bad;
	p = end + 1;
	if (tx ? strcmp(p, "xps_cpus") == 0 : strcmp(p, "rps_cpus") == 0) {
		if (!only(val, "0123456789abcdefABCDEF,", PRIVSEP_VALUE_MAX) || val[0] == ',')
			return snprintf(why, size, "%s: not a hex CPU mask", rel), -1;
		return 0;
	}
	if (!tx && strcmp(p, "rps_flow_cnt") == 0) {
		if (!number(val, &end) || *end != '\0')
			return snprintf(why, size, "%s: not a decimal number", rel), -1;
		return 0;
	}
bad:
	snprintf(why, size, "%s: not an allowed queue file", rel);
	return -1;
}

/* N/smp_affinity_list with a CPU list. */
static int
check_irq(const char *rel, const char *val, char *why, size_t size)
{
	const char *end;

	if (!number(rel, &end) || strcmp(end, "/smp_affinity_list") != 0) {
		snprintf(why, size, "%s: not an allowed IRQ file", rel);
		return -1;
	}
	if (!only(val, "0123456789,-", PRIVSEP_VALUE_MAX) || !isdigit((unsigned char)val[0])) {
		snprintf(why, size, "%s: not a CPU list", rel);
		return -1;
	}
	return 0;
}

/* net/... with a one-line value. */
static int
check_sysctl(const char *rel, const char *val, char *why, size_t size)
{
	static const char name_set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                               "0123456789_-./";
	static const char val_set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                              "0123456789 \t_.,:-";

	if (strncmp(rel, "net/", 4) != 0 || !only(rel, name_set, PROFILE_SYSCTL_MAX - 1))
		goto bad;
	for (const char *p = rel; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			goto bad;
		p += n + (p[n] == '/');
	}
	if (rel[strlen(rel) - 1] == '/')
		goto bad;
	/* The BPF JIT's hardening and kallsyms switches live under net.core. */
	if (strncmp(rel, "net/core/bpf_", 13) == 0) {
		snprintf(why, size, "%s: BPF sysctls are not tuning", rel);
		return -1;
	}
	if (!only(val, val_set, PROFILE_VALUE_MAX - 1)) {
		snprintf(why, size, "%s: the value must be one line of letters, digits and blanks",
		         rel);
		return -1;
	}
	return 0;
bad:
	snprintf(why, size, "sysctl %.128s: not a net.* sysctl name", rel);
	return -1;
}

int
privsep_check_write(int base, const char *dev, const char *rel, const char *val, char *why,
                    size_t size)
{
	switch (base) {
	case PROFILE_BASE_NETDEV:
		if (dev == NULL || privsep_check_dev(dev, why, size) < 0)
			return -1;
		return check_queue(rel, val, why, size);
	case PROFILE_BASE_IRQ:
		return check_irq(rel, val, why, size);
	case PROFILE_BASE_SYSCTL:
		return check_sysctl(rel, val, why, size);
	default:
		snprintf(why, size, "not a tuning file");
		return -1;
	}
}

int
privsep_check_exec(const char *path, const struct stat *st, uid_t uid, char *why, size_t size)
{
	if (path[0] != '/') {
		snprintf(why, size, "%s: not an absolute path", path);
		return -1;
	}
	if (!S_ISREG(st->st_mode) || (st->st_mode & 0111) == 0) {
		snprintf(why, size, "%s: not an executable file", path);
		return -1;
	}
	if (st->st_uid != 0 && (uid == 0 || st->st_uid != uid)) {
		snprintf(why, size, "%s: owned by uid %u, not by root%s", path,
		         (unsigned)st->st_uid, uid == 0 ? "" : " or the user it runs as");
		return -1;
	}
	if (st->st_mode & 022) {
		snprintf(why, size, "%s: writable by its group or others", path);
		return -1;
	}
	return 0;
}

int
privsep_check_dir(const char *path, const struct stat *st, uid_t uid, char *why, size_t size)
{
	if (!S_ISDIR(st->st_mode) || (st->st_uid != 0 && (uid == 0 || st->st_uid != uid)) ||
	    ((st->st_mode & 022) && !(st->st_mode & S_ISVTX))) {
		snprintf(why, size,
		         "%s: a directory others than root%s may change (owner %u, mode %04o)",
		         path, uid == 0 ? "" : " or the user", (unsigned)st->st_uid,
		         (unsigned)(st->st_mode & 07777));
		return -1;
	}
	return 0;
}

/* Is g one of allowed? */
static bool
has_group(gid_t g, const gid_t *allowed, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (allowed[i] == g)
			return true;
	return false;
}

int
privsep_check_groups(uid_t uid, gid_t gid, const gid_t *groups, size_t n, const gid_t *allowed,
                     size_t nallowed, char *why, size_t size)
{
	if (uid == 0)
		return 0;
	if (n > PRIVSEP_GROUPS) {
		snprintf(why, size, "more than %d groups", PRIVSEP_GROUPS);
		return -1;
	}
	if (!has_group(gid, allowed, nallowed)) {
		snprintf(why, size, "gid %u is not a group of uid %u", (unsigned)gid,
		         (unsigned)uid);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!has_group(groups[i], allowed, nallowed)) {
			snprintf(why, size, "group %u is not a group of uid %u",
			         (unsigned)groups[i], (unsigned)uid);
			return -1;
		}
	return 0;
}

/* The programs a privileged driver runs as root for an admin, by file name. */
static bool
root_tool(char *const *argv)
{
	static const char *const tools[] = {"ip", "tc", "netmetrics-pktgen", "trafgen"};
	const char *base = strrchr(argv[0], '/');
	bool found = false;

	base = base != NULL ? base + 1 : argv[0];
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (strcmp(base, tools[i]) == 0)
			found = true;
	if (!found)
		return false;
	/* ip netns exec, ip -batch / tc -batch FILE, ip -force: another program, or commands
	 * from a file. */
	for (size_t i = 1; argv[i] != NULL; i++)
		if (strcmp(argv[i], "exec") == 0 || strcmp(argv[i], "-b") == 0 ||
		    strcmp(argv[i], "-batch") == 0 || strcmp(argv[i], "--batch") == 0 ||
		    strcmp(argv[i], "-force") == 0)
			return false;
	return true;
}

int
privsep_check_peer(uid_t puid, gid_t pgid, bool admin, bool as_user, uid_t uid, gid_t gid,
                   char *const *argv, char *why, size_t size)
{
	if (puid == 0)
		return 0;
	if (as_user && uid != 0) {
		if (uid == puid && gid == pgid)
			return 0;
		snprintf(why, size,
		         "privsep: a spawn as uid %u gid %u for a client of uid %u gid %u",
		         (unsigned)uid, (unsigned)gid, (unsigned)puid, (unsigned)pgid);
		return -1;
	}
	if (admin && argv != NULL && argv[0] != NULL && root_tool(argv))
		return 0;
	snprintf(why, size, "privsep: a spawn of %.200s as root for a client of uid %u%s",
	         argv != NULL && argv[0] != NULL ? argv[0] : "(nothing)", (unsigned)puid,
	         admin ? " (an admin: only a privileged driver's tools)" : " (not an admin)");
	return -1;
}

int
privsep_check_strv(char *const *v, size_t max, bool env, char *why, size_t size)
{
	size_t i;

	if (v == NULL || (!env && v[0] == NULL)) {
		snprintf(why, size, "empty %s", env ? "environment" : "argument vector");
		return -1;
	}
	for (i = 0; v[i] != NULL; i++) {
		if (i >= max) {
			snprintf(why, size, "more than %zu %s", max,
			         env ? "variables" : "arguments");
			return -1;
		}
		if (env && (v[i][0] == '=' || strchr(v[i], '=') == NULL)) {
			snprintf(why, size, "environment entry %zu is not NAME=VALUE", i);
			return -1;
		}
		/* The dynamic loader's (LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT...) and glibc's
		 * module path: code of the main process's choosing in a process of another. */
		if (env &&
		    (strncmp(v[i], "LD_", 3) == 0 || strncmp(v[i], "GCONV_PATH=", 11) == 0)) {
			snprintf(why, size, "environment entry %.*s is not passed to a benchmark",
			         (int)strcspn(v[i], "="), v[i]);
			return -1;
		}
	}
	return 0;
}
