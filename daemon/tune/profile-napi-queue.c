/* profile-napi-queue.c: the [napi_queue] section: the settings of the NAPI instance each rx
 * queue is polled by, through netdev netlink (napi-get, napi-set; kernel 6.13+), where
 * [napi] sets the device-wide defaults in sysfs.
 *
 *   defer_hard_irqs = 2              every rx queue's NAPI
 *   gro_flush_timeout = 20000        (ns) every rx queue's NAPI
 *   rx-3.defer_hard_irqs = 0         rx queue 3's NAPI (overrides the above)
 *   rx-3.gro_flush_timeout = 0
 *
 * NAPI ids change when a device is reconfigured: each entry names its rx queue, resolved
 * to its NAPI (queue-get) at every read and write. A device whose rx queues are polled by
 * no NAPI the kernel names (a veth without GRO), a kernel without the netdev family, or a
 * fixture root (there is no netlink form of it) make the section one the device cannot
 * have. Written after [napi] (plan_order 7): writing the device-wide sysfs files sets every
 * NAPI of the device, so the per-NAPI values come after; revert restores them first, and a
 * device-wide value [napi] restores afterwards applies to every NAPI again. Written by the
 * privileged process (PS_NAPI: device, queue, setting and value checked there) and read
 * back. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "knob.h"
#include "napinl.h"
#include "privsep.h"
#include "profile.h"
#include "strbuf.h"
#include "xmalloc.h"

#define NAPIQ_VALUE_MAX 999999999u

static const char *const attr_names[] = {"defer_hard_irqs", "gro_flush_timeout"};
static const enum napinl_attr attr_ids[] = {NAPINL_DEFER_HARD_IRQS, NAPINL_GRO_FLUSH_TIMEOUT};

/* Which setting a name is, -1 when none. */
static int
attr_of(const char *name)
{
	for (int i = 0; i < 2; i++)
		if (strcmp(name, attr_names[i]) == 0)
			return i;
	return -1;
}

/* Take a key of [napi_queue]. */
static int
profile_napiq_key(struct profile *p, const char *key, const char *val, struct nm_error *err)
{
	struct profile_napiq *nq = &p->napiq;
	unsigned queue;
	uint32_t v;
	const char *dot;
	char head[32];
	int a;

	if ((a = attr_of(key)) >= 0) {
		if (profile_parse_u32("napi_queue", key, val, NAPIQ_VALUE_MAX, &v, err) < 0)
			return -1;
		nq->all[a] = v;
		nq->has_all[a] = true;
		return 0;
	}
	if ((dot = strchr(key, '.')) == NULL || (size_t)(dot - key) >= sizeof(head) ||
	    (a = attr_of(dot + 1)) < 0)
		goto bad;
	snprintf(head, sizeof(head), "%.*s", (int)(dot - key), key);
	if (profile_queue_key(head, "rx-", &queue) != 1)
		goto bad;
	if (profile_parse_u32("napi_queue", key, val, NAPIQ_VALUE_MAX, &v, err) < 0)
		return -1;
	for (size_t i = 0; i < nq->n; i++)
		if (nq->q[i].queue == queue && nq->q[i].attr == a) {
			nq->q[i].value = v;
			return 0;
		}
	if (nq->n == PROFILE_MAX_NAPIQ)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "[napi_queue]: more than %d keys",
		                    PROFILE_MAX_NAPIQ);
	nq->q = xreallocarray(nq->q, nq->n + 1, sizeof(*nq->q));
	nq->q[nq->n++] = (struct profile_napiq_one){queue, a, v};
	return 0;
bad:
	return nm_error_set(err, NM_ERR_BAD_ARGS,
	                    "[napi_queue]: unknown key \"%s\" (defer_hard_irqs, gro_flush_timeout, "
	                    "rx-N.defer_hard_irqs, rx-N.gro_flush_timeout)",
	                    key);
}

static int
profile_napiq_check(const struct profile *p, struct nm_error *err)
{
	(void)p;
	(void)err;
	return 0;
}

static bool
napiq_present(const struct profile *p)
{
	return p->napiq.has_all[0] || p->napiq.has_all[1] || p->napiq.n > 0;
}

static void
napiq_release(struct profile *p)
{
	free(p->napiq.q);
}

/* The value p gives rx queue q's setting a; false when none. */
static bool
value_for(const struct profile_napiq *nq, unsigned q, int a, uint32_t *v)
{
	for (size_t i = 0; i < nq->n; i++)
		if (nq->q[i].queue == q && nq->q[i].attr == a) {
			*v = nq->q[i].value;
			return true;
		}
	*v = nq->all[a];
	return nq->has_all[a];
}

/* The NAPI of rx queue q of dev, through n. 0 with *id, -1 with err. */
static int
napi_of(struct napinl *n, const char *dev, unsigned q, uint32_t *id, struct nm_error *err)
{
	unsigned ifindex = if_nametoindex(dev);

	if (ifindex == 0)
		return nm_error_set(err, NM_ERR_NOT_FOUND, "%s: %s", dev, strerror(errno));
	if (napinl_rx_napi(n, (int)ifindex, q, id, err) < 0) {
		if (errno == EINVAL) {
			errno = ENOENT;
			return nm_error_set(err, NM_ERR_NOT_FOUND, "%s has no rx-%u", dev, q);
		}
		return -1;
	}
	return 0;
}

/* Plan every rx queue's settings the profile gives. */
static int
profile_napiq_plan(const struct profile *p, struct profile_host *h, struct plan *pl,
                   struct nm_error *err)
{
	struct napinl n;
	struct nm_error e;
	uint32_t v, id;
	char val[16];

	if (!napiq_present(p))
		return 0;
	if (!h->real)
		return plan_cannot(pl, p, "napi_queue", err,
		                   "per-NAPI settings are netlink's (napi-set) on the host only: a "
		                   "fixture root has none");
	if (napinl_open(&n, &e) < 0)
		return plan_cannot(pl, p, "napi_queue", err, "%s", e.message);
	for (size_t i = 0; i < p->napiq.n; i++)
		if (p->napiq.q[i].queue >= h->nrx) {
			napinl_close(&n);
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "[napi_queue] rx-%u: %s has %u rx queues",
			                    p->napiq.q[i].queue, h->dev, h->nrx);
		}
	for (unsigned q = 0; q < h->nrx; q++) {
		if (!value_for(&p->napiq, q, 0, &v) && !value_for(&p->napiq, q, 1, &v))
			continue;
		if (napi_of(&n, h->dev, q, &id, &e) < 0) {
			napinl_close(&n);
			return plan_cannot(pl, p, "napi_queue", err, "%s", e.message);
		}
	}
	napinl_close(&n);
	for (unsigned q = 0; q < h->nrx; q++)
		for (int a = 0; a < 2; a++) {
			if (!value_for(&p->napiq, q, a, &v))
				continue;
			snprintf(val, sizeof(val), "%u", v);
			if (plan_add(pl, h, PLAN_NAPI_QUEUE, h->dev, (int)q, attr_names[a], val,
			             err) == NULL)
				return -1;
		}
	return 0;
}

/* napi_queue=off | ITEM,ITEM...: defer-N, flush-N (every rx queue's NAPI); an item it does
 * not know becomes a key [napi_queue] refuses, naming it. */
static void
napiq_setting_ini(struct strbuf *sb, const char *v)
{
	char *copy = xstrdup(v), *save = NULL;

	strbuf_addf(sb, "[napi_queue]\n");
	if (strcmp(v, "off") == 0) {
		strbuf_addf(sb, "defer_hard_irqs = 0\ngro_flush_timeout = 0\n");
		free(copy);
		return;
	}
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (strncmp(w, "defer-", 6) == 0)
			strbuf_addf(sb, "defer_hard_irqs = %s\n", w + 6);
		else if (strncmp(w, "flush-", 6) == 0)
			strbuf_addf(sb, "gro_flush_timeout = %s\n", w + 6);
		else
			strbuf_addf(sb, "%s = (napi_queue=%s: not defer-N, flush-N or off)\n", w,
			            w);
	}
	free(copy);
}

/* [napi_queue] as saved (the host only: netlink): every rx queue's NAPI settings, as one
 * pair of keys when all queues with a NAPI agree, else per queue; queues without a NAPI
 * (a veth without GRO) are said in a comment. */
static void
napiq_save(struct profile_host *h, struct strbuf *sb)
{
	struct napinl n;
	uint64_t v[PROFILE_MAX_NAPIQ][2];
	bool has[PROFILE_MAX_NAPIQ], same = true;
	unsigned nq = h->nrx < PROFILE_MAX_NAPIQ ? h->nrx : PROFILE_MAX_NAPIQ, first = nq,
	         without = 0;
	uint32_t id;

	if (!h->real || napinl_open(&n, NULL) < 0)
		return;
	for (unsigned q = 0; q < nq; q++) {
		has[q] = napi_of(&n, h->dev, q, &id, NULL) == 0 &&
		         napinl_get(&n, id, attr_ids[0], &v[q][0], NULL) == 0 &&
		         napinl_get(&n, id, attr_ids[1], &v[q][1], NULL) == 0;
		if (!has[q]) {
			without++;
			continue;
		}
		if (first == nq)
			first = q;
		same = same && v[q][0] == v[first][0] && v[q][1] == v[first][1];
	}
	napinl_close(&n);
	if (first == nq)
		return;
	strbuf_addf(sb, "\n[napi_queue]\n");
	if (without > 0)
		strbuf_addf(sb, "# %u of %u rx queues have no NAPI instance now: left out\n",
		            without, nq);
	if (same) {
		strbuf_addf(sb, "defer_hard_irqs = %llu\ngro_flush_timeout = %llu\n",
		            (unsigned long long)v[first][0], (unsigned long long)v[first][1]);
		return;
	}
	for (unsigned q = 0; q < nq; q++)
		if (has[q])
			strbuf_addf(
			    sb, "rx-%u.defer_hard_irqs = %llu\nrx-%u.gro_flush_timeout = %llu\n", q,
			    (unsigned long long)v[q][0], q, (unsigned long long)v[q][1]);
}

static int
napiq_file(const struct plan_entry *e, enum profile_base *base, char *rel, size_t size)
{
	(void)e;
	(void)base;
	(void)rel;
	(void)size;
	return -1;
}

static void
napiq_path(struct plan_entry *e)
{
	snprintf(e->path, sizeof(e->path), "napi %s rx-%d %s", e->dev, e->index, e->name);
}

/* The setting now, in decimal (napi-get of the queue's NAPI). */
static char *
napiq_read(struct profile_host *h, const struct plan_entry *e, struct nm_error *err)
{
	int a = attr_of(e->name);
	struct napinl n;
	uint64_t v;
	uint32_t id;
	char buf[24];

	if (a < 0 || e->index < 0 || profile_host_check_dev(e->dev, NULL) < 0) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "%s: not a NAPI setting", e->path);
		return NULL;
	}
	if (!h->real) {
		nm_error_set(err, NM_ERR_UNSUPPORTED, "%s: no netlink under a fixture root",
		             e->path);
		return NULL;
	}
	if (napinl_open(&n, err) < 0)
		return NULL;
	if (napi_of(&n, e->dev, (unsigned)e->index, &id, err) < 0 ||
	    napinl_get(&n, id, attr_ids[a], &v, err) < 0) {
		napinl_close(&n);
		return NULL;
	}
	napinl_close(&n);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return xstrdup(buf);
}

/* napi-set of the queue's NAPI (PS_NAPI under privilege separation). */
static int
napiq_write(struct profile_host *h, const struct plan_entry *e, const char *val,
            struct nm_error *err)
{
	int a = attr_of(e->name);
	struct napinl n;
	unsigned long v;
	uint32_t id;
	char *end;
	int r;

	errno = 0;
	v = strtoul(val, &end, 10);
	if (a < 0 || e->index < 0 || *end != '\0' || end == val || v > NAPIQ_VALUE_MAX)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: \"%s\" is not a value", e->path,
		                    val);
	if (!h->real)
		return nm_error_set(err, NM_ERR_UNSUPPORTED, "%s: no netlink under a fixture root",
		                    e->path);
	if (privsep_on()) {
		struct nm_error pe;
		if (privsep_napi(e->dev, (unsigned)e->index, e->name, (uint32_t)v, &pe) == 0)
			return 0;
		return nm_error_set(err, NM_ERR_FAILED, "write %s %s: %s", e->path, val,
		                    pe.message);
	}
	if (napinl_open(&n, err) < 0)
		return -1;
	r = napi_of(&n, e->dev, (unsigned)e->index, &id, err) < 0 ||
	            napinl_set(&n, id, attr_ids[a], v, err) < 0
	        ? -1
	        : 0;
	napinl_close(&n);
	return r;
}

const struct knob_ops knob_napi_queue = {
    .section = "napi_queue",
    .key = profile_napiq_key,
    .check = profile_napiq_check,
    .present = napiq_present,
    .release = napiq_release,
    .setting = "napi_queue",
    .setting_ini = napiq_setting_ini,
    .plan = profile_napiq_plan,
    .plan_order = 7,
    .save = napiq_save,
    .kind = PLAN_NAPI_QUEUE,
    .kind_name = "napi_queue",
    .index = KNOB_INDEX_QUEUE,
    .on_device = true,
    .priv = KNOB_PRIV_NAPI,
    .file = napiq_file,
    .path = napiq_path,
    .read = napiq_read,
    .write = napiq_write,
    .same = knob_same_string,
    .display = knob_display_asis,
    .value_on = knob_always_on,
    .write_hint = knob_hint_default,
    .readback_hint = "",
};
