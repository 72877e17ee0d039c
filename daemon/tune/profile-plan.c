/* profile-plan.c: a profile on a host becomes a plan: a list of (path, old, new) writes in a
 * fixed order (sysctls, RFS, RPS, XPS, IRQ affinity, ntuple). Building it reads every old
 * value, so a missing file, queue or IRQ is found before anything is written. Executing it
 * writes what changes, reads each value back, and on any failure writes the old values back
 * in reverse order. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "jsonutil.h"
#include "profile.h"
#include "xmalloc.h"

#define PLAN_READ_MAX 8192 /* bytes of one value file */
#define SOCK_SYSCTL   "net.core.rps_sock_flow_entries"

static const char *const kind_names[PLAN_KIND__COUNT] = {"sysctl", "rps", "flow_cnt",
                                                         "xps",    "irq", "ntuple"};

/* The kind as a word. */
const char *
plan_kind_name(enum plan_kind kind)
{
	return (unsigned)kind < PLAN_KIND__COUNT ? kind_names[kind] : "unknown";
}

/* A kind from its word, -1 when unknown. */
int
plan_kind_parse(const char *s)
{
	for (int i = 0; i < PLAN_KIND__COUNT; i++)
		if (strcmp(s, kind_names[i]) == 0)
			return i;
	return -1;
}

/* Start an empty plan. */
void
plan_init(struct plan *pl)
{
	memset(pl, 0, sizeof(*pl));
	pl->warnings = json_object_new_array();
	pl->skipped = json_object_new_array();
}

/* Free the entries and warnings. */
void
plan_free(struct plan *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		free(pl->e[i].old);
		free(pl->e[i].new);
	}
	free(pl->e);
	json_object_put(pl->warnings);
	json_object_put(pl->skipped);
	memset(pl, 0, sizeof(*pl));
}

/* Add a warning to the plan. */
void
plan_warn(struct plan *pl, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object_array_add(pl->warnings, json_object_new_string(buf));
}

/* A section the device cannot have: skipped, or refused under strict = yes. */
int
plan_cannot(struct plan *pl, const struct profile *p, const char *section, struct nm_error *err,
            const char *fmt, ...)
{
	char why[400], line[440];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (p->strict)
		return nm_error_set(
		    err, NM_ERR_UNSUPPORTED,
		    "[%s]: %s (strict = yes: the profile is refused; without it the "
		    "section would be skipped)",
		    section, why);
	snprintf(line, sizeof(line), "[%s] skipped: %s", section, why);
	json_object_array_add(pl->skipped, json_object_new_string(line));
	return 0;
}

/* A sysctl name holding '/' ("net/ipv4/conf/eth0.100/rp_filter") is a path already: device
 * names may hold dots. */
int
plan_sysctl_rel(const char *name, char *buf, size_t size)
{
	bool slash = strchr(name, '/') != NULL;

	if (strncmp(name, slash ? "net/" : "net.", 4) != 0 || strlen(name) >= size)
		return -1;
	for (size_t i = 0; name[i]; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.' || c == '/'))
			return -1;
		buf[i] = (!slash && c == '.') ? '/' : c;
		buf[i + 1] = '\0';
	}
	/* No empty, "." or ".." component. */
	for (const char *p = buf; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return -1;
		p += n + (p[n] == '/');
	}
	return 0;
}

/* Where e's file lives: base, and the path below it. -1 when e has no file (ntuple) or its
 * fields are not valid. */
static int
entry_file(const struct plan_entry *e, enum profile_base *base, char *rel, size_t size)
{
	switch (e->kind) {
	case PLAN_SYSCTL:
		*base = PROFILE_BASE_SYSCTL;
		return plan_sysctl_rel(e->name, rel, size);
	case PLAN_RPS:
	case PLAN_FLOW_CNT:
	case PLAN_XPS:
		if (e->index < 0 || profile_host_check_dev(e->dev, NULL) < 0)
			return -1;
		*base = PROFILE_BASE_NETDEV;
		snprintf(rel, size, "queues/%s-%d/%s", e->kind == PLAN_XPS ? "tx" : "rx", e->index,
		         e->kind == PLAN_XPS ? "xps_cpus"
		                             : (e->kind == PLAN_RPS ? "rps_cpus" : "rps_flow_cnt"));
		return 0;
	case PLAN_IRQ:
		if (e->index < 0)
			return -1;
		*base = PROFILE_BASE_IRQ;
		snprintf(rel, size, "%d/smp_affinity_list", e->index);
		return 0;
	case PLAN_NTUPLE:
	case PLAN_KIND__COUNT:
		break;
	}
	return -1;
}

/* The path people see for an entry, below the root. */
void
plan_entry_path(const struct profile_host *h, struct plan_entry *e)
{
	enum profile_base base;
	char rel[256];

	(void)h;
	if (e->kind == PLAN_NTUPLE) {
		snprintf(e->path, sizeof(e->path), "ethtool %s ntuple", e->dev);
		return;
	}
	if (entry_file(e, &base, rel, sizeof(rel)) < 0) {
		snprintf(e->path, sizeof(e->path), "(invalid %s entry)", plan_kind_name(e->kind));
		return;
	}
	switch (base) {
	case PROFILE_BASE_NETDEV:
		snprintf(e->path, sizeof(e->path), "/sys/class/net/%s/%s", e->dev, rel);
		break;
	case PROFILE_BASE_IRQ:
		snprintf(e->path, sizeof(e->path), "/proc/irq/%s", rel);
		break;
	case PROFILE_BASE_SYSCTL:
		snprintf(e->path, sizeof(e->path), "/proc/sys/%s", rel);
		break;
	case PROFILE_BASE_ROOT:
		snprintf(e->path, sizeof(e->path), "/%s", rel);
		break;
	}
}

/* The smallest power of two >= v (0 stays 0), as the kernel sizes RFS tables. */
static uint64_t
pow2_up(uint64_t v)
{
	uint64_t p = 1;

	if (v == 0)
		return 0;
	while (p < v && p < (1ull << 62))
		p <<= 1;
	return p;
}

/* Parse a whole unsigned number; false when s is not one. */
static bool
parse_u64(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && *s != '-';
}

/* Compare two texts word by word (sysctls print tcp_rmem with tabs, take spaces). */
static bool
same_words(const char *a, const char *b)
{
	for (;;) {
		size_t na, nb;
		a += strspn(a, " \t\n");
		b += strspn(b, " \t\n");
		na = strcspn(a, " \t\n");
		nb = strcspn(b, " \t\n");
		if (na != nb || memcmp(a, b, na) != 0)
			return false;
		if (na == 0)
			return true;
		a += na;
		b += nb;
	}
}

/* Compare two values of a kind as values, not strings. */
bool
plan_same(enum plan_kind kind, const char *name, const char *a, const char *b)
{
	struct cpuset sa, sb;
	uint64_t ua, ub;

	switch (kind) {
	case PLAN_IRQ:
		if (cpuset_parse_list(&sa, a, NULL) == 0 && cpuset_parse_list(&sb, b, NULL) == 0)
			return cpuset_equal(&sa, &sb);
		break;
	case PLAN_RPS:
	case PLAN_XPS:
		if (cpuset_parse_mask(&sa, a, NULL) == 0 && cpuset_parse_mask(&sb, b, NULL) == 0)
			return cpuset_equal(&sa, &sb);
		break;
	case PLAN_SYSCTL:
	case PLAN_FLOW_CNT:
		/* The socket flow table is sized like rps_flow_cnt; other sysctls are text. */
		if (kind == PLAN_SYSCTL && strcmp(name, SOCK_SYSCTL) != 0)
			return same_words(a, b);
		if (parse_u64(a, &ua) && parse_u64(b, &ub))
			return pow2_up(ua) == pow2_up(ub);
		break;
	case PLAN_NTUPLE:
	case PLAN_KIND__COUNT:
		break;
	}
	return strcmp(a, b) == 0;
}

/* Read the live value of an entry. */
char *
plan_read(struct profile_host *h, const struct plan_entry *e, struct nm_error *err)
{
	enum profile_base base;
	char rel[256], *buf, *back;

	if (e->kind == PLAN_NTUPLE) {
		char v[8];
		if (profile_arfs_get(h, e->dev, v, sizeof(v), err) < 0)
			return NULL;
		return xstrdup(v);
	}
	if (entry_file(e, &base, rel, sizeof(rel)) < 0) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "%s: not a file a profile may touch", e->path);
		return NULL;
	}
	buf = xmalloc(PLAN_READ_MAX);
	if (profile_host_read(h, base, e->dev, rel, buf, PLAN_READ_MAX) < 0) {
		int en = errno;
		nm_error_set(err, en == ENOENT ? NM_ERR_NOT_FOUND : NM_ERR_FAILED,
		             "cannot read %s: %s%s", e->path, strerror(en),
		             en == ENOENT && e->kind == PLAN_SYSCTL
		                 ? " (no such sysctl, or not visible in this network namespace)"
		                 : "");
		free(buf);
		return NULL;
	}
	back = xstrdup(buf);
	free(buf);
	return back;
}

/* The live value of h's device's file of kind (queue or IRQ index, sysctl name). */
char *
plan_read_live(struct profile_host *h, enum plan_kind kind, int index, const char *name)
{
	struct plan_entry e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.index = index;
	snprintf(e.dev, sizeof(e.dev), "%s", h->dev);
	snprintf(e.name, sizeof(e.name), "%s", name ? name : "");
	plan_entry_path(h, &e);
	return plan_read(h, &e, NULL);
}

/* Why a write with this errno failed, in words that say what to do. */
static const char *
write_hint(enum plan_kind kind, int en)
{
	switch (en) {
	case EIO:
		return kind == PLAN_IRQ ? " (a kernel-managed IRQ: its affinity cannot be changed)"
		                        : "";
	case EINVAL:
		if (kind == PLAN_IRQ)
			return " (no online CPU in the list, or this IRQ cannot be moved)";
		return kind == PLAN_RPS || kind == PLAN_XPS ? " (a CPU is offline or out of range)"
		                                            : " (the kernel refused the value)";
	case ENOSPC:
		return " (no free interrupt vector left on those CPUs)";
	case EACCES:
	case EPERM:
	case EROFS:
		return " (needs root, and /proc and /sys writable: no ProtectKernelTunables)";
	default:
		return "";
	}
}

/* Write a value and read it back. */
int
plan_write_checked(struct profile_host *h, const struct plan_entry *e, const char *val,
                   struct nm_error *err)
{
	enum profile_base base;
	char rel[256], got[128], want[128], *back;

	if (e->kind == PLAN_NTUPLE) {
		if (profile_arfs_set(h, e->dev, strcmp(val, "on") == 0, err) < 0)
			return -1;
	} else {
		if (entry_file(e, &base, rel, sizeof(rel)) < 0)
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "%s: not a file a profile may touch", e->path);
		if (profile_host_write(h, base, e->dev, rel, val) < 0)
			return nm_error_set(err, NM_ERR_FAILED, "write %s: %s%s", e->path,
			                    strerror(errno), write_hint(e->kind, errno));
	}
	if ((back = plan_read(h, e, err)) == NULL)
		return -1;
	if (!plan_same(e->kind, e->name, val, back)) {
		plan_display(e->kind, val, want, sizeof(want));
		plan_display(e->kind, back, got, sizeof(got));
		nm_error_set(
		    err, NM_ERR_FAILED, "write %s: wrote \"%s\" but it reads back \"%s\"%s",
		    e->path, want, got,
		    e->kind == PLAN_RPS ? " (the kernel drops isolated CPUs from rps_cpus)" : "");
		free(back);
		return -1;
	}
	free(back);
	return 0;
}

/* Append an entry with its old value read now. */
struct plan_entry *
plan_add(struct plan *pl, struct profile_host *h, enum plan_kind kind, const char *dev, int index,
         const char *name, const char *new, struct nm_error *err)
{
	struct plan_entry *e;

	if (pl->n == pl->cap) {
		pl->cap = pl->cap ? pl->cap * 2 : 64;
		pl->e = xreallocarray(pl->e, pl->cap, sizeof(*pl->e));
	}
	e = &pl->e[pl->n];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->index = index;
	snprintf(e->dev, sizeof(e->dev), "%s", dev ? dev : "");
	snprintf(e->name, sizeof(e->name), "%s", name ? name : "");
	plan_entry_path(h, e);
	if ((e->old = plan_read(h, e, err)) == NULL)
		return NULL;
	e->new = xstrdup(new);
	e->change = !plan_same(kind, e->name, e->old, e->new);
	pl->n++;
	return e;
}

/* Plan every knob of the profile, in write order. */
int
plan_build(struct plan *pl, const struct profile *p, struct profile_host *h, struct nm_error *err)
{
	if (profile_sysctl_plan(p, h, pl, err) < 0 || profile_rfs_plan(p, h, pl, err) < 0 ||
	    profile_rps_plan(p, h, pl, err) < 0 || profile_xps_plan(p, h, pl, err) < 0 ||
	    profile_irq_plan(p, h, pl, err) < 0 || profile_arfs_plan(p, h, pl, err) < 0)
		return -1;
	return 0;
}

/* Plan the per-queue masks of [xps] or [rps]. */
int
plan_queue_masks(struct plan *pl, struct profile_host *h, const struct profile *p,
                 const struct profile_knob *k, enum plan_kind kind, unsigned nq,
                 const char *section, const char *qprefix, struct nm_error *err)
{
	bool for_rps = kind == PLAN_RPS;
	struct cpuset list, set;
	char what[48], mask[2400], rel[64];

	if (!k->present)
		return 0;
	if (nq == 0)
		return plan_cannot(pl, p, section, err, "%s has no %s queues", h->dev, qprefix);
	/* XPS chooses among tx queues: with one there is nothing to choose (and the kernel
	 * has no xps_cpus to read). RPS is for single-queue devices above all: kept. */
	if (kind == PLAN_XPS && nq == 1)
		return plan_cannot(pl, p, section, err,
		                   "%s has one tx queue: XPS has no queue to choose", h->dev);
	snprintf(rel, sizeof(rel), "queues/%s0/%s", qprefix, for_rps ? "rps_cpus" : "xps_cpus");
	if (profile_host_read(h, PROFILE_BASE_NETDEV, h->dev, rel, mask, sizeof(mask)) < 0 &&
	    errno == ENOENT)
		return plan_cannot(pl, p, section, err,
		                   "%s has no %s (a kernel without CONFIG_%s, or a device "
		                   "without it)",
		                   h->dev, rel, for_rps ? "RPS" : "XPS");
	for (size_t i = 0; i < k->nqueues; i++)
		if (k->queues[i].queue >= nq)
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "[%s] %s%u: %s has %u such queues (%s0 to %s%u)",
			                    section, qprefix, k->queues[i].queue, h->dev, nq,
			                    qprefix, qprefix, nq - 1);
	cpuset_zero(&list);
	if (k->policy == PROFILE_POLICY_ONE_TO_ONE || k->policy == PROFILE_POLICY_CPUS) {
		snprintf(what, sizeof(what), "[%s] cpus", section);
		if (profile_host_cpus(h, &k->cpus, for_rps, what, &list, err) < 0)
			return -1;
		if (k->policy == PROFILE_POLICY_ONE_TO_ONE && cpuset_empty(&list))
			return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: one-to-one needs a CPU",
			                    what);
	}
	for (unsigned q = 0; q < nq; q++) {
		const struct profile_cpus *c = profile_knob_queue(k, q);
		cpuset_zero(&set);
		if (c != NULL) {
			snprintf(what, sizeof(what), "[%s] %s%u", section, qprefix, q);
			if (profile_host_cpus(h, c, for_rps, what, &set, err) < 0)
				return -1;
		} else if (k->policy == PROFILE_POLICY_ONE_TO_ONE)
			cpuset_add(&set, (unsigned)cpuset_nth(&list, q % cpuset_count(&list)));
		else if (k->policy == PROFILE_POLICY_CPUS)
			set = list;
		else if (k->policy != PROFILE_POLICY_NONE)
			continue; /* explicit: the queues not named stay as they are */
		cpuset_format_mask(&set, h->nr_cpus, mask, sizeof(mask));
		if (plan_add(pl, h, kind, h->dev, (int)q, NULL, mask, err) == NULL)
			return -1;
	}
	return 0;
}

/* Put back the old values of entries [0, upto] that were written (or tried), last first.
 * Returns how many failed; the first failure goes to err. */
static size_t
rollback(struct plan *pl, struct profile_host *h, size_t upto, size_t *restored,
         struct nm_error *err)
{
	size_t failed = 0;

	*restored = 0;
	for (size_t i = upto + 1; i-- > 0;) {
		struct plan_entry *e = &pl->e[i];
		struct nm_error e2;
		char *cur;
		if (!e->written)
			continue;
		/* A write the kernel refused left the old value: nothing to put back. */
		cur = plan_read(h, e, NULL);
		if (cur != NULL && plan_same(e->kind, e->name, cur, e->old)) {
			free(cur);
			e->written = false;
			continue;
		}
		free(cur);
		if (plan_write_checked(h, e, e->old, &e2) < 0) {
			if (failed++ == 0 && err)
				*err = e2;
			continue;
		}
		e->written = false;
		(*restored)++;
	}
	return failed;
}

/* Write what changes in order; on failure roll back and say what happened. */
int
plan_execute(struct plan *pl, struct profile_host *h, struct nm_error *err)
{
	for (size_t i = 0; i < pl->n; i++) {
		struct plan_entry *e = &pl->e[i];
		struct nm_error werr, rerr;
		size_t restored, failed;

		if (!e->change)
			continue;
		/* Marked before the write: a value that reads back wrong was still written. */
		e->written = true;
		if (e->kind == PLAN_IRQ)
			pl->irq_written = true;
		if (plan_write_checked(h, e, e->new, &werr) == 0)
			continue;
		failed = rollback(pl, h, i, &restored, &rerr);
		if (failed == 0)
			return nm_error_set(err, NM_ERR_FAILED,
			                    "%s; rolled back: %zu value%s restored, the host is as "
			                    "before",
			                    werr.message, restored, restored == 1 ? "" : "s");
		return nm_error_set(err, NM_ERR_FAILED,
		                    "%s; rollback FAILED for %zu value%s (first: %s); saved state "
		                    "kept: try \"profile revert\"",
		                    werr.message, failed, failed == 1 ? "" : "s", rerr.message);
	}
	return 0;
}

/* Roll back every entry written. */
int
plan_undo(struct plan *pl, struct profile_host *h, struct nm_error *err)
{
	size_t restored;

	if (pl->n == 0 || rollback(pl, h, pl->n - 1, &restored, err) == 0)
		return 0;
	return -1;
}

/* Does a value turn its knob on: a mask with a CPU, a flow count above 0? Sysctls, IRQ
 * affinities and ntuple always count as set. */
bool
plan_value_on(enum plan_kind kind, const char *val)
{
	struct cpuset set;

	switch (kind) {
	case PLAN_RPS:
	case PLAN_XPS:
		return cpuset_parse_mask(&set, val, NULL) == 0 && !cpuset_empty(&set);
	case PLAN_FLOW_CNT:
		return strtoull(val, NULL, 10) > 0;
	default:
		return true;
	}
}

/* A value as people read it: masks as lists. */
void
plan_display(enum plan_kind kind, const char *val, char *buf, size_t size)
{
	struct cpuset set;

	if ((kind == PLAN_RPS || kind == PLAN_XPS) && cpuset_parse_mask(&set, val, NULL) == 0) {
		cpuset_format_list(&set, buf, size);
		return;
	}
	snprintf(buf, size, "%s", val);
}

/* How many entries change. */
size_t
plan_nchanges(const struct plan *pl)
{
	size_t n = 0;

	for (size_t i = 0; i < pl->n; i++)
		n += pl->e[i].change;
	return n;
}

/* The entries that change, as JSON. */
json_object *
plan_changes_json(const struct plan *pl)
{
	json_object *arr = json_object_new_array();
	char buf[PLAN_READ_MAX];

	for (size_t i = 0; i < pl->n; i++) {
		const struct plan_entry *e = &pl->e[i];
		json_object *o;
		if (!e->change)
			continue;
		o = json_object_new_object();
		json_add_string(o, "kind", plan_kind_name(e->kind));
		json_add_string(o, "path", e->path);
		plan_display(e->kind, e->old, buf, sizeof(buf));
		json_add_string(o, "old", buf);
		plan_display(e->kind, e->new, buf, sizeof(buf));
		json_add_string(o, "new", buf);
		if (e->kind == PLAN_IRQ) {
			json_add_int(o, "irq", e->index);
			json_add_string(o, "name", e->name);
		} else if (e->kind != PLAN_SYSCTL && e->kind != PLAN_NTUPLE)
			json_add_int(o, "queue", e->index);
		json_object_array_add(arr, o);
	}
	return arr;
}
