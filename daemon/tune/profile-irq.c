/* profile-irq.c: the [irq] section: where the IRQs of a device's queues may run
 * (/proc/irq/N/smp_affinity_list).
 *
 *   policy = spread    the IRQs of queue i -> the i-th CPU of cpus, wrapping
 *   policy = all       every queue IRQ -> all of cpus
 *   policy = default   every queue IRQ -> /proc/irq/default_smp_affinity
 *   policy = explicit  only the queues named below
 *   cpus = 0-143 | all | local
 *   queue.N = LIST     queue N's IRQs -> LIST (with any policy: overrides it for N)
 *
 * A queue's IRQs are found by name in /proc/interrupts (mlx5_comp7@pci:..., eth0-TxRx-7,
 * virtio2-input.0 ...) through the device's name or its parent's, as the queues view does. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "netdev.h"
#include "knob.h"
#include "profile.h"
#include "strbuf.h"
#include "xmalloc.h"

/* Take a key of [irq]. */
static int
profile_irq_key(struct profile *p, const char *key, const char *val, struct nm_error *err)
{
	static const char *const names[] = {"spread", "all", "default", "explicit", NULL};
	static const enum profile_policy values[] = {PROFILE_POLICY_SPREAD, PROFILE_POLICY_ALL,
	                                             PROFILE_POLICY_DEFAULT,
	                                             PROFILE_POLICY_EXPLICIT};

	return profile_knob_key(&p->irq, "irq", "queue.", names, values, key, val, err);
}

/* Check [irq] once all its keys are read. */
static int
profile_irq_check(const struct profile *p, struct nm_error *err)
{
	const struct profile_knob *k = &p->irq;

	if (!k->present)
		return 0;
	if (k->policy == PROFILE_POLICY_UNSET && k->nqueues == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[irq] needs policy = spread, all, default or explicit");
	if ((k->policy == PROFILE_POLICY_SPREAD || k->policy == PROFILE_POLICY_ALL) &&
	    k->cpus.kind == PROFILE_CPUS_UNSET)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "[irq] policy = %s needs cpus",
		                    k->policy == PROFILE_POLICY_SPREAD ? "spread" : "all");
	if (k->policy == PROFILE_POLICY_EXPLICIT && k->nqueues == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[irq] policy = explicit needs queue.N = CPUS keys");
	return 0;
}

/* qsort comparator: by queue, then by position in the table. */
static int
cmp_irq(const void *a, const void *b)
{
	const struct profile_irq *x = a, *y = b;

	if (x->queue != y->queue)
		return x->queue < y->queue ? -1 : 1;
	return x->irq < y->irq ? -1 : (x->irq > y->irq);
}

/* The queue IRQs of the host's device, by queue. */
struct profile_irq *
profile_irq_list(struct profile_host *h, size_t *n)
{
	struct netdev_aliases al;
	struct profile_irq *out = xcalloc(h->nirqs ? h->nirqs : 1, sizeof(*out));

	*n = 0;
	netdev_aliases(h->rootfd, h->dev, &al);
	for (size_t i = 0; h->irqs != NULL && i < h->nirqs; i++) {
		const struct irq_info *irq = &h->irqs[i];
		if (irq->irq < 0 || irq->queue.index < 0 || !netdev_owns_irq(&al, irq))
			continue;
		out[*n].queue = (unsigned)irq->queue.index;
		out[(*n)++].irq = irq;
	}
	qsort(out, *n, sizeof(*out), cmp_irq);
	return out;
}

/* The CPUs of default_smp_affinity as a list, or -1 with err. */
static int
default_affinity(struct profile_host *h, char *buf, size_t size, struct nm_error *err)
{
	struct cpuset set;
	char mask[1024];

	if (profile_host_read(h, PROFILE_BASE_IRQ, NULL, "default_smp_affinity", mask,
	                      sizeof(mask)) < 0 ||
	    cpuset_parse_mask(&set, mask, NULL) < 0 || cpuset_empty(&set))
		return nm_error_set(err, NM_ERR_FAILED,
		                    "[irq] policy = default: cannot read /proc/irq/"
		                    "default_smp_affinity");
	cpuset_format_list(&set, buf, size);
	return 0;
}

/* The list queue's IRQs get under k, into buf; 0 with buf "" when the profile leaves the
 * queue alone; -1 with err. */
static int
queue_cpus(const struct profile_knob *k, struct profile_host *h, unsigned queue,
           const struct cpuset *list, const char *deflt, char *buf, size_t size,
           struct nm_error *err)
{
	const struct profile_cpus *c = profile_knob_queue(k, queue);
	struct cpuset set;
	char what[32];

	buf[0] = '\0';
	if (c != NULL) {
		snprintf(what, sizeof(what), "[irq] queue.%u", queue);
		if (profile_host_cpus(h, c, false, what, &set, err) < 0)
			return -1;
		if (cpuset_empty(&set))
			return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: an IRQ needs a CPU", what);
		cpuset_format_list(&set, buf, size);
		return 0;
	}
	switch (k->policy) {
	case PROFILE_POLICY_SPREAD:
		snprintf(buf, size, "%d", cpuset_nth(list, queue % cpuset_count(list)));
		break;
	case PROFILE_POLICY_ALL:
		cpuset_format_list(list, buf, size);
		break;
	case PROFILE_POLICY_DEFAULT:
		snprintf(buf, size, "%s", deflt);
		break;
	default:
		break;
	}
	return 0;
}

/* Is there an IRQ of queue q in the list? */
static bool
has_queue(const struct profile_irq *irqs, size_t n, unsigned q)
{
	for (size_t i = 0; i < n; i++)
		if (irqs[i].queue == q)
			return true;
	return false;
}

/* Plan the affinity of every queue IRQ the profile names. */
static int
profile_irq_plan(const struct profile *p, struct profile_host *h, struct plan *pl,
                 struct nm_error *err)
{
	const struct profile_knob *k = &p->irq;
	struct profile_irq *irqs;
	struct cpuset list;
	char deflt[4096] = "", cpus[4096];
	size_t n;
	int r = -1;

	if (!k->present)
		return 0;
	if (h->irqs == NULL)
		return nm_error_set(err, NM_ERR_FAILED, "[irq]: %s", h->irq_reason);
	cpuset_zero(&list);
	if ((k->policy == PROFILE_POLICY_SPREAD || k->policy == PROFILE_POLICY_ALL) &&
	    profile_host_cpus(h, &k->cpus, false, "[irq] cpus", &list, err) < 0)
		return -1;
	if ((k->policy == PROFILE_POLICY_SPREAD || k->policy == PROFILE_POLICY_ALL) &&
	    cpuset_empty(&list))
		return nm_error_set(err, NM_ERR_BAD_ARGS, "[irq] cpus: an IRQ needs a CPU");
	if (k->policy == PROFILE_POLICY_DEFAULT &&
	    default_affinity(h, deflt, sizeof(deflt), err) < 0)
		return -1;
	irqs = profile_irq_list(h, &n);
	if (n == 0) {
		r = plan_cannot(pl, p, "irq", err,
		                "%s has no queue IRQs in /proc/interrupts (a virtual device, or "
		                "IRQ names this daemon does not know)",
		                h->dev);
		goto out;
	}
	for (size_t i = 0; i < k->nqueues; i++)
		if (!has_queue(irqs, n, k->queues[i].queue)) {
			nm_error_set(err, NM_ERR_BAD_ARGS,
			             "[irq] queue.%u: %s has no IRQ for queue %u",
			             k->queues[i].queue, h->dev, k->queues[i].queue);
			goto out;
		}
	for (size_t i = 0; i < n; i++) {
		if (queue_cpus(k, h, irqs[i].queue, &list, deflt, cpus, sizeof(cpus), err) < 0)
			goto out;
		if (cpus[0] == '\0')
			continue;
		if (plan_add(pl, h, PLAN_IRQ, h->dev, irqs[i].irq->irq, irqs[i].irq->name, cpus,
		             err) == NULL)
			goto out;
	}
	r = 0;
out:
	free(irqs);
	return r;
}

/* irq=CPUS | spread | all | default. */
static void
irq_setting_ini(struct strbuf *sb, const char *v)
{
	if (strcmp(v, "spread") == 0 || strcmp(v, "all") == 0)
		strbuf_addf(sb, "[irq]\npolicy = %s\ncpus = all\n", v);
	else if (strcmp(v, "default") == 0)
		strbuf_addf(sb, "[irq]\npolicy = default\n");
	else
		strbuf_addf(sb, "[irq]\npolicy = spread\ncpus = %s\n", v);
}

static bool
irq_present(const struct profile *p)
{
	return p->irq.present;
}

/* [irq] as saved: the affinity of each queue's first IRQ. */
static void
irq_save(struct profile_host *h, struct strbuf *sb)
{
	size_t n;
	struct profile_irq *irqs = profile_irq_list(h, &n);
	bool header = false;
	int last = -1;

	for (size_t i = 0; i < n; i++) {
		char *v;
		if ((int)irqs[i].queue == last)
			continue;
		if ((v = plan_read_live(h, PLAN_IRQ, irqs[i].irq->irq, NULL)) == NULL)
			continue;
		if (!header) {
			strbuf_addf(sb, "\n[irq]\npolicy = explicit\n");
			header = true;
		}
		strbuf_addf(sb, "queue.%u = %s\n", irqs[i].queue, v);
		last = (int)irqs[i].queue;
		free(v);
	}
	free(irqs);
}

/* proc/irq/N/smp_affinity_list. */
static int
irq_file(const struct plan_entry *e, enum profile_base *base, char *rel, size_t size)
{
	if (e->index < 0)
		return -1;
	*base = PROFILE_BASE_IRQ;
	snprintf(rel, size, "%d/smp_affinity_list", e->index);
	return 0;
}

/* CPU lists by content. */
static bool
irq_same(const char *name, const char *a, const char *b)
{
	struct cpuset sa, sb;

	if (cpuset_parse_list(&sa, a, NULL) == 0 && cpuset_parse_list(&sb, b, NULL) == 0)
		return cpuset_equal(&sa, &sb);
	return knob_same_string(name, a, b);
}

static const char *
irq_write_hint(int en)
{
	if (en == EIO)
		return " (a kernel-managed IRQ: its affinity cannot be changed)";
	if (en == EINVAL)
		return " (no online CPU in the list, or this IRQ cannot be moved)";
	return knob_hint_default(en);
}

/* Free what [irq] owns. */
static void
irq_release(struct profile *p)
{
	free(p->irq.queues);
}

/* The privileged process writes N/smp_affinity_list with a CPU list. */
static int
irq_allow(const char *rel, const char *val, char *why, size_t size)
{
	const char *end;

	if (!knob_allow_number(rel, &end) || strcmp(end, "/smp_affinity_list") != 0)
		return 0;
	if (!knob_allow_only(val, "0123456789,-", KNOB_VALUE_MAX) ||
	    !isdigit((unsigned char)val[0]))
		return snprintf(why, size, "%s: not a CPU list", rel), -1;
	return 1;
}

const struct knob_ops knob_irq = {
    .section = "irq",
    .key = profile_irq_key,
    .check = profile_irq_check,
    .present = irq_present,
    .release = irq_release,
    .setting = "irq",
    .setting_ini = irq_setting_ini,
    .plan = profile_irq_plan,
    .plan_order = 50,
    .save = irq_save,
    .kind = PLAN_IRQ,
    .kind_name = "irq",
    .index = KNOB_INDEX_IRQ,
    .on_device = false,
    .priv = KNOB_PRIV_WRITE,
    .base = PROFILE_BASE_IRQ,
    .allow = irq_allow,
    .file = irq_file,
    .path = knob_file_path,
    .read = knob_file_read,
    .write = knob_file_write,
    .same = irq_same,
    .display = knob_display_asis,
    .value_on = knob_always_on,
    .write_hint = irq_write_hint,
    .readback_hint = "",
};
