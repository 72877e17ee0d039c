/* profile-sysctl.c: the [sysctl] section: any other net.* sysctl the profile needs, written
 * below proc/sys after checking the name cannot leave it.
 *
 *   net.core.netdev_max_backlog = 5000
 *   net/ipv4/conf/eth0.100/rp_filter = 0    ('/' form: for names holding dots)
 *
 * Values are compared word by word (tcp_rmem reads back with tabs). */
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "profile.h"
#include "xmalloc.h"

#define SOCK_SYSCTL "net.core.rps_sock_flow_entries"

/* Take a net.* sysctl of [sysctl]. */
int
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
int
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
int
profile_sysctl_plan(const struct profile *p, struct profile_host *h, struct plan *pl,
                    struct nm_error *err)
{
	for (size_t i = 0; i < p->nsysctls; i++)
		if (plan_add(pl, h, PLAN_SYSCTL, NULL, -1, p->sysctls[i].name, p->sysctls[i].value,
		             err) == NULL)
			return -1;
	return 0;
}
