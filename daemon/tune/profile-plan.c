/* profile-plan.c: a profile on a host becomes a plan: a list of (path, old, new) writes in a
 * fixed order (sysctls, RFS, RPS, XPS, IRQ affinity, ntuple). Building it reads every old
 * value, so a missing file, queue or IRQ is found before anything is written. Executing it
 * writes what changes, reads each value back, and on any failure writes the old values back
 * in reverse order. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "jsonutil.h"
#include "knob.h"
#include "profile.h"
#include "xmalloc.h"

#define PLAN_READ_MAX 8192 /* bytes of one value file */

/* The kind as a word. */
const char *
plan_kind_name(enum plan_kind kind)
{
	const struct knob_ops *k = knob_of_kind(kind);

	return k != NULL ? k->kind_name : "unknown";
}

/* A kind from its word, -1 when unknown. */
int
plan_kind_parse(const char *s)
{
	for (size_t i = 0; i < knobs_n; i++)
		if (strcmp(s, knobs[i]->kind_name) == 0)
			return (int)knobs[i]->kind;
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
	const struct knob_ops *k = knob_of_kind(e->kind);

	return k != NULL ? k->file(e, base, rel, size) : -1;
}

/* queues/{tx,rx}-N/FILE of the entry's device. */
int
knob_queue_file(const struct plan_entry *e, const char *dir, const char *file,
                enum profile_base *base, char *rel, size_t size)
{
	if (e->index < 0 || profile_host_check_dev(e->dev, NULL) < 0)
		return -1;
	*base = PROFILE_BASE_NETDEV;
	snprintf(rel, size, "queues/%s-%d/%s", dir, e->index, file);
	return 0;
}

/* The path of a file entry, below the root. */
void
knob_file_path(struct plan_entry *e)
{
	enum profile_base base;
	char rel[256];

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

/* The path people see for an entry, below the root. */
void
plan_entry_path(const struct profile_host *h, struct plan_entry *e)
{
	const struct knob_ops *k = knob_of_kind(e->kind);

	(void)h;
	if (k == NULL)
		snprintf(e->path, sizeof(e->path), "(invalid %s entry)", plan_kind_name(e->kind));
	else
		k->path(e);
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

/* Values as strings. */
bool
knob_same_string(const char *name, const char *a, const char *b)
{
	(void)name;
	return strcmp(a, b) == 0;
}

/* CPU masks by content. */
bool
knob_same_mask(const char *name, const char *a, const char *b)
{
	struct cpuset sa, sb;

	if (cpuset_parse_mask(&sa, a, NULL) == 0 && cpuset_parse_mask(&sb, b, NULL) == 0)
		return cpuset_equal(&sa, &sb);
	return knob_same_string(name, a, b);
}

/* Counts as the kernel sizes RFS tables: rounded up to a power of two. */
bool
knob_same_count(const char *name, const char *a, const char *b)
{
	uint64_t ua, ub;

	if (parse_u64(a, &ua) && parse_u64(b, &ub))
		return pow2_up(ua) == pow2_up(ub);
	return knob_same_string(name, a, b);
}

/* Text word by word (sysctls print tcp_rmem with tabs, take spaces). */
bool
knob_same_words(const char *name, const char *a, const char *b)
{
	(void)name;
	return same_words(a, b);
}

/* Compare two values of a kind as values, not strings. */
bool
plan_same(enum plan_kind kind, const char *name, const char *a, const char *b)
{
	const struct knob_ops *k = knob_of_kind(kind);

	return k != NULL ? k->same(name, a, b) : strcmp(a, b) == 0;
}

/* Read a file entry; enoent is said after a missing file's error. */
char *
knob_file_read_why(struct profile_host *h, const struct plan_entry *e, const char *enoent,
                   struct nm_error *err)
{
	enum profile_base base;
	char rel[256], *buf, *back;

	if (entry_file(e, &base, rel, sizeof(rel)) < 0) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "%s: not a file a profile may touch", e->path);
		return NULL;
	}
	buf = xmalloc(PLAN_READ_MAX);
	if (profile_host_read(h, base, e->dev, rel, buf, PLAN_READ_MAX) < 0) {
		int en = errno;
		nm_error_set(err, en == ENOENT ? NM_ERR_NOT_FOUND : NM_ERR_FAILED,
		             "cannot read %s: %s%s", e->path, strerror(en),
		             en == ENOENT ? enoent : "");
		free(buf);
		return NULL;
	}
	back = xstrdup(buf);
	free(buf);
	return back;
}

/* Read a file entry. */
char *
knob_file_read(struct profile_host *h, const struct plan_entry *e, struct nm_error *err)
{
	return knob_file_read_why(h, e, "", err);
}

/* Read the live value of an entry. */
char *
plan_read(struct profile_host *h, const struct plan_entry *e, struct nm_error *err)
{
	const struct knob_ops *k = knob_of_kind(e->kind);

	if (k == NULL) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "%s: not a file a profile may touch", e->path);
		return NULL;
	}
	return k->read(h, e, err);
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

/* Why a write with this errno failed, in words that say what to do (any kind). */
const char *
knob_hint_default(int en)
{
	switch (en) {
	case EINVAL:
		return " (the kernel refused the value)";
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

/* Write a file entry (through the privileged process when there is one). */
int
knob_file_write(struct profile_host *h, const struct plan_entry *e, const char *val,
                struct nm_error *err)
{
	const struct knob_ops *k = knob_of_kind(e->kind);
	enum profile_base base;
	char rel[256];

	if (entry_file(e, &base, rel, sizeof(rel)) < 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: not a file a profile may touch",
		                    e->path);
	if (profile_host_write(h, base, e->dev, rel, val) < 0) {
		int en = errno;
		return nm_error_set(err, NM_ERR_FAILED, "write %s: %s%s", e->path, strerror(en),
		                    k->write_hint(en));
	}
	return 0;
}

/* Write a value and read it back. */
int
plan_write_checked(struct profile_host *h, const struct plan_entry *e, const char *val,
                   struct nm_error *err)
{
	const struct knob_ops *k = knob_of_kind(e->kind);
	char got[128], want[128], *back;

	if (k == NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: not a file a profile may touch",
		                    e->path);
	if (k->write(h, e, val, err) < 0)
		return -1;
	if ((back = plan_read(h, e, err)) == NULL)
		return -1;
	if (!k->same(e->name, val, back)) {
		k->display(val, want, sizeof(want));
		k->display(back, got, sizeof(got));
		nm_error_set(err, NM_ERR_FAILED,
		             "write %s: wrote \"%s\" but it reads back \"%s\"%s", e->path, want,
		             got, k->readback_hint);
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

/* The next knob in plan order after order last (-1: the first), or NULL. */
static const struct knob_ops *
next_knob(long last)
{
	const struct knob_ops *next = NULL;

	/* By plan_order, smallest first (orders are unique: test-knob). */
	for (size_t i = 0; i < knobs_n; i++)
		if ((long)knobs[i]->plan_order > last &&
		    (next == NULL || knobs[i]->plan_order < next->plan_order))
			next = knobs[i];
	return next;
}

/* Plan the knobs after plan order last. */
static int
plan_knobs_after(struct plan *pl, const struct profile *p, struct profile_host *h, long last,
                 struct nm_error *err)
{
	for (const struct knob_ops *k = next_knob(last); k != NULL;
	     k = next_knob((long)k->plan_order))
		if (k->plan(p, h, pl, err) < 0)
			return -1;
	return 0;
}

/* Keep entries: the old value of every queue file of kind on nq queues (index 0..nq-1). */
static int
plan_keep(struct plan *pl, struct profile_host *h, enum plan_kind kind, unsigned nq,
          struct nm_error *err)
{
	for (unsigned q = 0; q < nq; q++) {
		struct plan_entry *e = plan_add(pl, h, kind, h->dev, (int)q, NULL, "", err);
		if (e == NULL)
			return -1;
		free(e->new);
		e->new = xstrdup(e->old);
		e->change = false;
		e->keep = true;
	}
	return 0;
}

/* Plan every knob of the profile, in write order (each knob's plan_order). When [channels]
 * changes the counts and later sections hang on the queues, the queue values the change
 * resets are kept, and the later sections are planned on the layout the counts will give
 * (plan_replan plans them again once the counts are written). */
int
plan_build(struct plan *pl, const struct profile *p, struct profile_host *h, struct nm_error *err)
{
	const struct knob_ops *ch = knob_of_kind(PLAN_CHANNELS);
	unsigned nrx, ntx, was_rx = h->nrx, was_tx = h->ntx;
	int r;

	if (!profile_channels_change(p, h, &nrx, &ntx) || !profile_channels_dependents(p))
		return plan_knobs_after(pl, p, h, -1, err);
	for (const struct knob_ops *k = next_knob(-1); k != NULL && k->plan_order <= ch->plan_order;
	     k = next_knob((long)k->plan_order))
		if (k->plan(p, h, pl, err) < 0)
			return -1;
	if ((p->xps.present && plan_keep(pl, h, PLAN_XPS, h->ntx, err) < 0) ||
	    (p->rps.present && plan_keep(pl, h, PLAN_RPS, h->nrx, err) < 0) ||
	    (p->rfs != PROFILE_SWITCH_UNSET && plan_keep(pl, h, PLAN_FLOW_CNT, h->nrx, err) < 0))
		return -1;
	pl->replan = p;
	pl->stage2 = pl->n;
	pl->layout_nrx = nrx;
	pl->layout_ntx = ntx;
	plan_warn(pl,
	          "[channels] changes %s's queues (rx %u -> %u, tx %u -> %u): the sections that "
	          "hang on them are planned here on the new counts, and planned again after the "
	          "channel writes on the device as it is then (queues, IRQs, NAPI); revert "
	          "restores the counts first, then the queue values",
	          h->dev, h->nrx, nrx, h->ntx, ntx);
	/* The dry run's picture: queues above the new counts are gone. */
	h->nrx = nrx < h->nrx ? nrx : h->nrx;
	h->ntx = ntx < h->ntx ? ntx : h->ntx;
	r = plan_knobs_after(pl, p, h, (long)ch->plan_order, err);
	h->nrx = was_rx;
	h->ntx = was_tx;
	return r;
}

/* Plan the sections after [channels] again, on the device as it is now. */
int
plan_replan(struct plan *pl, struct profile_host *h, struct nm_error *err)
{
	const struct knob_ops *ch = knob_of_kind(PLAN_CHANNELS);
	char dev[PROFILE_DEV_MAX];

	for (size_t i = pl->stage2; i < pl->n; i++) {
		free(pl->e[i].old);
		free(pl->e[i].new);
	}
	pl->n = pl->stage2;
	snprintf(dev, sizeof(dev), "%s", h->dev);
	if (profile_host_set_device(h, dev, err) < 0)
		return -1;
	profile_host_refresh_irqs(h);
	return plan_knobs_after(pl, pl->replan, h, (long)ch->plan_order, err);
}

/* Plan the per-queue masks of [xps] or [rps]. */
int
knob_plan_masks(struct plan *pl, struct profile_host *h, const struct profile *p,
                const struct profile_knob *k, const struct knob_ops *ko, unsigned nq,
                const char *qprefix, bool housekeeping, struct nm_error *err)
{
	const char *section = ko->section;
	struct cpuset list, set;
	struct plan_entry e0;
	enum profile_base base;
	char what[48], mask[2400], rel[64], config[16];

	if (!k->present)
		return 0;
	if (nq == 0)
		return plan_cannot(pl, p, section, err, "%s has no %s queues", h->dev, qprefix);
	/* Queue 0's file tells whether the kernel has the knob at all. */
	memset(&e0, 0, sizeof(e0));
	e0.kind = ko->kind;
	e0.index = 0;
	snprintf(e0.dev, sizeof(e0.dev), "%s", h->dev);
	if (ko->file(&e0, &base, rel, sizeof(rel)) < 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "[%s]: %s is not a device name", section,
		                    h->dev);
	/* CONFIG_RPS, CONFIG_XPS */
	snprintf(config, sizeof(config), "%s", section);
	for (char *c = config; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	if (profile_host_read(h, base, h->dev, rel, mask, sizeof(mask)) < 0 && errno == ENOENT)
		return plan_cannot(pl, p, section, err,
		                   "%s has no %s (a kernel without CONFIG_%s, or a device "
		                   "without it)",
		                   h->dev, rel, config);
	for (size_t i = 0; i < k->nqueues; i++)
		if (k->queues[i].queue >= nq)
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "[%s] %s%u: %s has %u such queues (%s0 to %s%u)",
			                    section, qprefix, k->queues[i].queue, h->dev, nq,
			                    qprefix, qprefix, nq - 1);
	cpuset_zero(&list);
	if (k->policy == PROFILE_POLICY_ONE_TO_ONE || k->policy == PROFILE_POLICY_CPUS) {
		snprintf(what, sizeof(what), "[%s] cpus", section);
		if (profile_host_cpus(h, &k->cpus, housekeeping, what, &list, err) < 0)
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
			if (profile_host_cpus(h, c, housekeeping, what, &set, err) < 0)
				return -1;
		} else if (k->policy == PROFILE_POLICY_ONE_TO_ONE)
			cpuset_add(&set, (unsigned)cpuset_nth(&list, q % cpuset_count(&list)));
		else if (k->policy == PROFILE_POLICY_CPUS)
			set = list;
		else if (k->policy != PROFILE_POLICY_NONE)
			continue; /* explicit: the queues not named stay as they are */
		cpuset_format_mask(&set, h->nr_cpus, mask, sizeof(mask));
		if (plan_add(pl, h, ko->kind, h->dev, (int)q, NULL, mask, err) == NULL)
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
	/* With the counts back, the queue values the count change reset. */
	for (size_t i = 0; i <= upto && i < pl->n; i++) {
		struct plan_entry *e = &pl->e[i];
		struct nm_error e2;
		char *cur;
		if (!e->keep)
			continue;
		cur = plan_read(h, e, NULL);
		if (cur != NULL && plan_same(e->kind, e->name, cur, e->old)) {
			free(cur);
			continue;
		}
		free(cur);
		if (plan_write_checked(h, e, e->old, &e2) < 0) {
			if (failed++ == 0 && err)
				*err = e2;
			continue;
		}
		(*restored)++;
	}
	return failed;
}

/* Tests only: NETMETRICS_TEST_FAIL_LAST_WRITE=1 in the daemon's environment makes the last
 * write of every plan fail after it was done (read back and all), so that the rollback of
 * everything, that last write included, is tested on a real device. */
#define TEST_FAIL_LAST_ENV "NETMETRICS_TEST_FAIL_LAST_WRITE"

/* Write what changes in order; on failure roll back and say what happened. */
int
plan_execute(struct plan *pl, struct profile_host *h, struct nm_error *err)
{
	return plan_execute_range(pl, h, 0, pl->n, err);
}

/* Entries [from, to); the rollback of a failure covers every entry written before. */
int
plan_execute_range(struct plan *pl, struct profile_host *h, size_t from, size_t to,
                   struct nm_error *err)
{
	const char *inject = getenv(TEST_FAIL_LAST_ENV);
	size_t last = pl->n;

	for (size_t i = 0; i < pl->n; i++)
		if (pl->e[i].change)
			last = i;
	for (size_t i = from; i < to && i < pl->n; i++) {
		struct plan_entry *e = &pl->e[i];
		struct nm_error werr, rerr;
		size_t restored, failed;

		if (!e->change)
			continue;
		/* Marked before the write: a value that reads back wrong was still written. */
		e->written = true;
		if (knob_of_kind(e->kind) != NULL && knob_of_kind(e->kind)->index == KNOB_INDEX_IRQ)
			pl->irq_written = true;
		if (plan_write_checked(h, e, e->new, &werr) == 0) {
			if (i != last || inject == NULL || strcmp(inject, "1") != 0)
				continue;
			nm_error_set(&werr, NM_ERR_FAILED,
			             "write %s: failure injected after the write (%s)", e->path,
			             TEST_FAIL_LAST_ENV);
		}
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

/* Always on: sysctls, IRQ affinities, ntuple. */
bool
knob_always_on(const char *val)
{
	(void)val;
	return true;
}

/* A mask with a CPU. */
bool
knob_mask_on(const char *val)
{
	struct cpuset set;

	return cpuset_parse_mask(&set, val, NULL) == 0 && !cpuset_empty(&set);
}

/* Does a value turn its knob on: a mask with a CPU, a flow count above 0? Sysctls, IRQ
 * affinities and ntuple always count as set. */
bool
plan_value_on(enum plan_kind kind, const char *val)
{
	const struct knob_ops *k = knob_of_kind(kind);

	return k != NULL ? k->value_on(val) : true;
}

/* A value as it is. */
void
knob_display_asis(const char *val, char *buf, size_t size)
{
	snprintf(buf, size, "%s", val);
}

/* A CPU mask as a list ("0-3,72"); not a mask: as it is. */
void
knob_display_mask(const char *val, char *buf, size_t size)
{
	struct cpuset set;

	if (cpuset_parse_mask(&set, val, NULL) == 0)
		cpuset_format_list(&set, buf, size);
	else
		knob_display_asis(val, buf, size);
}

/* A value as people read it: masks as lists. */
void
plan_display(enum plan_kind kind, const char *val, char *buf, size_t size)
{
	const struct knob_ops *k = knob_of_kind(kind);

	if (k != NULL)
		k->display(val, buf, size);
	else
		knob_display_asis(val, buf, size);
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
		switch (knob_of_kind(e->kind) ? knob_of_kind(e->kind)->index : KNOB_INDEX_NONE) {
		case KNOB_INDEX_IRQ:
			json_add_int(o, "irq", e->index);
			json_add_string(o, "name", e->name);
			break;
		case KNOB_INDEX_QUEUE:
			json_add_int(o, "queue", e->index);
			break;
		case KNOB_INDEX_NONE:
			break;
		}
		json_object_array_add(arr, o);
	}
	return arr;
}
