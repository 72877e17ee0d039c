/* profile-rfs.c: the [rfs] section: Receive Flow Steering, the per-rx-queue flow tables
 * (queues/rx-N/rps_flow_cnt) and the global socket flow table
 * (net.core.rps_sock_flow_entries).
 *
 *   flow_cnt = 512             every rx queue's table (turns RFS on)
 *   sock_flow_entries = N      the global table; default: flow_cnt x rx queues, as the kit
 *                              computed it; "keep" leaves it alone
 *   enable = off               RFS off: every rx queue's table 0, and the global table 0
 *                              (unless sock_flow_entries says otherwise)
 *
 * The kernel rounds both sizes up to a power of two; values are compared that way. The
 * global table exists only in the host's network namespace: elsewhere, unless it was asked
 * for by value, it is left alone with a warning. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "knob.h"
#include "profile.h"
#include "strbuf.h"

#define SOCK_SYSCTL "net.core.rps_sock_flow_entries"

/* Take a key of [rfs]. */
static int
profile_rfs_key(struct profile *p, const char *key, const char *val, struct nm_error *err)
{
	enum profile_switch sw;

	if (strcmp(key, "enable") == 0) {
		if (profile_parse_switch("rfs", key, val, &sw, err) < 0)
			return -1;
		p->rfs = sw;
		return 0;
	}
	if (strcmp(key, "flow_cnt") == 0) {
		if (profile_parse_u32("rfs", key, val, PROFILE_FLOW_CNT_MAX, &p->flow_cnt, err) < 0)
			return -1;
		if (p->rfs == PROFILE_SWITCH_UNSET)
			p->rfs = PROFILE_SWITCH_ON;
		return 0;
	}
	if (strcmp(key, "sock_flow_entries") == 0) {
		if (strcmp(val, "keep") == 0) {
			p->sock_mode = PROFILE_SOCK_KEEP;
			return 0;
		}
		if (strcmp(val, "default") == 0) {
			p->sock_mode = PROFILE_SOCK_DEFAULT;
			return 0;
		}
		if (profile_parse_u32("rfs", key, val, PROFILE_SOCK_MAX, &p->sock_flow_entries,
		                      err) < 0)
			return -1;
		p->sock_mode = PROFILE_SOCK_SET;
		if (p->rfs == PROFILE_SWITCH_UNSET)
			p->rfs = PROFILE_SWITCH_ON;
		return 0;
	}
	return nm_error_set(err, NM_ERR_BAD_ARGS,
	                    "[rfs]: unknown key \"%s\" (flow_cnt, sock_flow_entries, enable)", key);
}

/* Check [rfs] once all its keys are read. */
static int
profile_rfs_check(const struct profile *p, struct nm_error *err)
{
	if (p->rfs == PROFILE_SWITCH_ON && p->flow_cnt == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[rfs] needs flow_cnt above 0 (enable = off turns RFS off)");
	if (p->rfs == PROFILE_SWITCH_OFF && p->flow_cnt != 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "[rfs] flow_cnt with enable = off");
	return 0;
}

/* The global table's size this profile asks for. -1 with err when it is too big. */
static int
sock_entries(const struct profile *p, const struct profile_host *h, uint32_t *out,
             struct nm_error *err)
{
	uint64_t v;

	if (p->sock_mode == PROFILE_SOCK_SET) {
		*out = p->sock_flow_entries;
		return 0;
	}
	v = p->rfs == PROFILE_SWITCH_ON ? (uint64_t)p->flow_cnt * h->nrx : 0;
	if (v > PROFILE_SOCK_MAX)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[rfs] flow_cnt %u x %u rx queues = %llu is above the kernel's "
		                    "limit of %u for rps_sock_flow_entries: set sock_flow_entries",
		                    p->flow_cnt, h->nrx, (unsigned long long)v, PROFILE_SOCK_MAX);
	*out = (uint32_t)v;
	return 0;
}

/* Plan the global socket flow table and every rx queue's flow count. */
static int
profile_rfs_plan(const struct profile *p, struct profile_host *h, struct plan *pl,
                 struct nm_error *err)
{
	struct nm_error e;
	uint32_t sock = 0;
	char val[16];

	if (p->rfs == PROFILE_SWITCH_UNSET)
		return 0;
	if (h->nrx == 0)
		return plan_cannot(pl, p, "rfs", err, "%s has no rx queues", h->dev);
	if (profile_host_read(h, PROFILE_BASE_NETDEV, h->dev, "queues/rx-0/rps_flow_cnt", val,
	                      sizeof(val)) < 0 &&
	    errno == ENOENT)
		return plan_cannot(pl, p, "rfs", err,
		                   "%s has no queues/rx-0/rps_flow_cnt (a kernel without "
		                   "CONFIG_RFS_ACCEL or CONFIG_RPS)",
		                   h->dev);
	if (p->sock_mode != PROFILE_SOCK_KEEP) {
		if (sock_entries(p, h, &sock, err) < 0)
			return -1;
		snprintf(val, sizeof(val), "%u", sock);
		if (plan_add(pl, h, PLAN_SYSCTL, NULL, -1, SOCK_SYSCTL, val, &e) == NULL) {
			if (e.code != NM_ERR_NOT_FOUND || p->sock_mode == PROFILE_SOCK_SET) {
				if (err)
					*err = e;
				return -1;
			}
			plan_warn(
			    pl,
			    "rps_sock_flow_entries is not visible here (it is global and lives "
			    "in the host's network namespace): left alone; set it to %u from the "
			    "host",
			    sock);
		}
	}
	snprintf(val, sizeof(val), "%u", p->rfs == PROFILE_SWITCH_ON ? p->flow_cnt : 0);
	for (unsigned q = 0; q < h->nrx; q++)
		if (plan_add(pl, h, PLAN_FLOW_CNT, h->dev, (int)q, NULL, val, err) == NULL)
			return -1;
	return 0;
}

/* rfs=N (flow_cnt) | off | 0. */
static void
rfs_setting_ini(struct strbuf *sb, const char *v)
{
	if (strcmp(v, "off") == 0 || strcmp(v, "0") == 0)
		strbuf_addf(sb, "[rfs]\nenable = off\n");
	else
		strbuf_addf(sb, "[rfs]\nflow_cnt = %s\n", v);
}

static bool
rfs_present(const struct profile *p)
{
	return p->rfs != PROFILE_SWITCH_UNSET;
}

/* The flow counts of the rx queues: how many read, the least and the most. */
void
profile_rfs_counts(struct profile_host *h, unsigned *seen, unsigned long long *min,
                   unsigned long long *max)
{
	char *v;

	*seen = 0;
	*min = ~0ull;
	*max = 0;
	for (unsigned q = 0; q < h->nrx; q++) {
		if ((v = plan_read_live(h, PLAN_FLOW_CNT, (int)q, NULL)) == NULL)
			continue;
		unsigned long long c = strtoull(v, NULL, 10);
		*max = c > *max ? c : *max;
		*min = c < *min ? c : *min;
		(*seen)++;
		free(v);
	}
}

/* [rfs] as saved: the largest flow count, and rps_sock_flow_entries. */
static void
rfs_save(struct profile_host *h, struct strbuf *sb)
{
	unsigned long long max, min;
	unsigned seen;
	char *sock;

	profile_rfs_counts(h, &seen, &min, &max);
	sock = plan_read_live(h, PLAN_SYSCTL, -1, SOCK_SYSCTL);
	if (seen > 0) {
		strbuf_addf(sb, "\n[rfs]\n");
		if (max == 0)
			strbuf_addf(sb, "enable = off\n");
		else {
			if (min != max)
				strbuf_addf(sb, "# the rx queues' flow counts were %llu to %llu\n",
				            min, max);
			strbuf_addf(sb, "flow_cnt = %llu\n", max);
		}
		if (sock != NULL)
			strbuf_addf(sb, "sock_flow_entries = %s\n", sock);
		else
			strbuf_addf(sb, "# rps_sock_flow_entries is not visible here\n"
			                "sock_flow_entries = keep\n");
	}
	free(sock);
}

/* queues/rx-N/rps_flow_cnt. */
static int
rfs_file(const struct plan_entry *e, enum profile_base *base, char *rel, size_t size)
{
	return knob_queue_file(e, "rx", "rps_flow_cnt", base, rel, size);
}

/* A flow count above 0. */
static bool
rfs_value_on(const char *val)
{
	return strtoull(val, NULL, 10) > 0;
}

/* The privileged process writes queues/rx-N/rps_flow_cnt with a decimal. */
static int
rfs_allow(const char *rel, const char *val, char *why, size_t size)
{
	const char *end;

	if (!knob_allow_queue_file(rel, "rx", "rps_flow_cnt"))
		return 0;
	if (!knob_allow_number(val, &end) || *end != '\0')
		return snprintf(why, size, "%s: not a decimal number", rel), -1;
	return 1;
}

const struct knob_ops knob_rfs = {
    .section = "rfs",
    .key = profile_rfs_key,
    .check = profile_rfs_check,
    .present = rfs_present,
    .setting = "rfs",
    .setting_ini = rfs_setting_ini,
    .plan = profile_rfs_plan,
    .plan_order = 20,
    .save = rfs_save,
    .kind = PLAN_FLOW_CNT,
    .kind_name = "flow_cnt",
    .index = KNOB_INDEX_QUEUE,
    .on_device = true,
    .priv = KNOB_PRIV_WRITE,
    .base = PROFILE_BASE_NETDEV,
    .allow = rfs_allow,
    .file = rfs_file,
    .path = knob_file_path,
    .read = knob_file_read,
    .write = knob_file_write,
    .same = knob_same_count,
    .display = knob_display_asis,
    .value_on = rfs_value_on,
    .write_hint = knob_hint_default,
    .readback_hint = "",
};
