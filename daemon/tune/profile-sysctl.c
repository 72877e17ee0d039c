/* profile-sysctl.c: the [sysctl] section: any other net.* sysctl the profile needs, written
 * below proc/sys after checking the name cannot leave it.
 *
 *   net.core.netdev_max_backlog = 5000
 *   net/ipv4/conf/eth0.100/rp_filter = 0    ('/' form: for names holding dots)
 *
 * Values are compared word by word (tcp_rmem reads back with tabs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "knob.h"
#include "profile.h"
#include "strbuf.h"
#include "xmalloc.h"

#define SOCK_SYSCTL "net.core.rps_sock_flow_entries"

/* Take a net.* sysctl of [sysctl]. */
static int
profile_sysctl_key(struct profile *p, const char *key, const char *val, struct nm_error *err)
{
	char rel[PROFILE_SYSCTL_MAX];
	size_t i;

	if (plan_sysctl_rel(key, rel, sizeof(rel)) < 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[sysctl] \"%s\": only net.* sysctls, named like "
		                    "net.core.netdev_max_backlog",
		                    key);
	if (*val == '\0' || strlen(val) >= PROFILE_VALUE_MAX || strpbrk(val, "\r\n") != NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[sysctl] %s: the value must be one line of 1 to %d bytes", key,
		                    PROFILE_VALUE_MAX - 1);
	for (i = 0; i < p->nsysctls; i++)
		if (strcmp(p->sysctls[i].name, key) == 0)
			break;
	if (i == p->nsysctls) {
		if (p->nsysctls == PROFILE_MAX_SYSCTLS)
			return nm_error_set(err, NM_ERR_BAD_ARGS, "[sysctl]: more than %d sysctls",
			                    PROFILE_MAX_SYSCTLS);
		p->sysctls = xreallocarray(p->sysctls, p->nsysctls + 1, sizeof(*p->sysctls));
		p->nsysctls++;
	}
	snprintf(p->sysctls[i].name, sizeof(p->sysctls[i].name), "%s", key);
	snprintf(p->sysctls[i].value, sizeof(p->sysctls[i].value), "%s", val);
	return 0;
}

/* Refuse the socket flow table in [sysctl] when [rfs] sets it. */
static int
profile_sysctl_check(const struct profile *p, struct nm_error *err)
{
	for (size_t i = 0; i < p->nsysctls; i++) {
		if (p->rfs != PROFILE_SWITCH_UNSET && p->sock_mode != PROFILE_SOCK_KEEP &&
		    (strcmp(p->sysctls[i].name, SOCK_SYSCTL) == 0 ||
		     strcmp(p->sysctls[i].name, "net/core/rps_sock_flow_entries") == 0))
			return nm_error_set(
			    err, NM_ERR_BAD_ARGS,
			    "[sysctl] %s: [rfs] sets it (use sock_flow_entries there)",
			    p->sysctls[i].name);
	}
	return 0;
}

/* Plan every sysctl of the profile. */
static int
profile_sysctl_plan(const struct profile *p, struct profile_host *h, struct plan *pl,
                    struct nm_error *err)
{
	for (size_t i = 0; i < p->nsysctls; i++)
		if (plan_add(pl, h, PLAN_SYSCTL, NULL, -1, p->sysctls[i].name, p->sysctls[i].value,
		             err) == NULL)
			return -1;
	return 0;
}

static bool
sysctl_present(const struct profile *p)
{
	return p->nsysctls > 0;
}

/* proc/sys/net/...: the name with its dots as slashes. */
static int
sysctl_file(const struct plan_entry *e, enum profile_base *base, char *rel, size_t size)
{
	*base = PROFILE_BASE_SYSCTL;
	return plan_sysctl_rel(e->name, rel, size);
}

static char *
sysctl_read(struct profile_host *h, const struct plan_entry *e, struct nm_error *err)
{
	return knob_file_read_why(
	    h, e, " (no such sysctl, or not visible in this network namespace)", err);
}

/* The socket flow table is sized like rps_flow_cnt; other sysctls are text. */
static bool
sysctl_same(const char *name, const char *a, const char *b)
{
	if (strcmp(name, SOCK_SYSCTL) == 0)
		return knob_same_count(name, a, b);
	return knob_same_words(name, a, b);
}

/* No KNOB=VALUE word and no saved section: a sysctl is named in a profile. */
/* Free what [sysctl] owns. */
static void
sysctl_release(struct profile *p)
{
	free(p->sysctls);
}

/* The privileged process writes net/... (no BPF switch) with a one-line value. */
static int
sysctl_allow(const char *rel, const char *val, char *why, size_t size)
{
	static const char name_set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                               "0123456789_-./";
	static const char val_set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                              "0123456789 \t_.,:-";

	if (strncmp(rel, "net/", 4) != 0 || !knob_allow_only(rel, name_set, PROFILE_SYSCTL_MAX - 1))
		return 0;
	for (const char *p = rel; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p += n + (p[n] == '/');
	}
	if (rel[strlen(rel) - 1] == '/')
		return 0;
	/* The BPF JIT's hardening and kallsyms switches live under net.core. */
	if (strncmp(rel, "net/core/bpf_", 13) == 0)
		return snprintf(why, size, "%s: BPF sysctls are not tuning", rel), -1;
	if (!knob_allow_only(val, val_set, PROFILE_VALUE_MAX - 1))
		return snprintf(why, size,
		                "%s: the value must be one line of letters, digits and blanks",
		                rel),
		       -1;
	return 1;
}

const struct knob_ops knob_sysctl = {
    .section = "sysctl",
    .key = profile_sysctl_key,
    .check = profile_sysctl_check,
    .present = sysctl_present,
    .release = sysctl_release,
    .setting = NULL,
    .setting_ini = NULL,
    .plan = profile_sysctl_plan,
    .plan_order = 10,
    .save = NULL,
    .kind = PLAN_SYSCTL,
    .kind_name = "sysctl",
    .index = KNOB_INDEX_NONE,
    .on_device = false,
    .priv = KNOB_PRIV_WRITE,
    .base = PROFILE_BASE_SYSCTL,
    .allow = sysctl_allow,
    .file = sysctl_file,
    .path = knob_file_path,
    .read = sysctl_read,
    .write = knob_file_write,
    .same = sysctl_same,
    .display = knob_display_asis,
    .value_on = knob_always_on,
    .write_hint = knob_hint_default,
    .readback_hint = "",
};
