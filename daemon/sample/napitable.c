/* napitable.c: the NAPI table (napitable.h): queue -> NAPI -> IRQ as the kernel says it. */
#include <stdlib.h>
#include <string.h>

#include "jsonutil.h"
#include "napitable.h"
#include "xmalloc.h"

void
napitable_begin(struct napi_table *t)
{
	t->n = t->nq = t->nirq = 0;
	t->answered = false;
}

void
napitable_add_queue(struct napi_table *t, const struct napi_queue *q)
{
	if (t->nq == t->capq) {
		t->capq = t->capq ? t->capq * 2 : 16;
		t->q = xreallocarray(t->q, t->capq, sizeof(*t->q));
	}
	t->q[t->nq++] = *q;
}

struct napi_entry *
napitable_add_napi(struct napi_table *t)
{
	struct napi_entry *e;

	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->v = xreallocarray(t->v, t->cap, sizeof(*t->v));
	}
	e = &t->v[t->n++];
	memset(e, 0, sizeof(*e));
	e->irq = e->pid = e->threaded = e->rxq = e->txq = -1;
	e->defer_hard_irqs = e->gro_flush_timeout = e->irq_suspend_timeout = -1;
	return e;
}

/* Entries with an IRQ first, by IRQ; then the others by id. */
static int
cmp_entry(const void *a, const void *b)
{
	const struct napi_entry *x = a, *y = b;

	if ((x->irq < 0) != (y->irq < 0))
		return x->irq < 0 ? 1 : -1;
	if (x->irq != y->irq)
		return x->irq < y->irq ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* FNV-1a over bytes, continuing from h. */
static uint64_t
fnv(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

void
napitable_end(struct napi_table *t)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < t->nq; i++) {
		const struct napi_queue *q = &t->q[i];
		for (size_t k = 0; q->napi_id != 0 && k < t->n; k++) {
			struct napi_entry *e = &t->v[k];
			int *slot = q->dir == 0 ? &e->rxq : &e->txq;
			if (e->id != q->napi_id || e->ifindex != q->ifindex)
				continue;
			if (*slot < 0 || (uint32_t)*slot > q->index)
				*slot = (int)q->index;
		}
	}
	if (t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), cmp_entry);
	while (t->nirq < t->n && t->v[t->nirq].irq >= 0)
		t->nirq++;
	/* The entries are memset before they are filled: their padding hashes the same. */
	h = fnv(h, t->v, t->n * sizeof(*t->v));
	h = fnv(h, t->q, t->nq * sizeof(*t->q));
	if (h != t->hash) {
		t->hash = h;
		t->gen++;
	}
}

void
napitable_free(struct napi_table *t)
{
	free(t->v);
	free(t->q);
	memset(t, 0, sizeof(*t));
}

void
napitable_copy(struct napi_table *dst, const struct napi_table *src)
{
	memset(dst, 0, sizeof(*dst));
	if (src == NULL)
		return;
	*dst = *src;
	dst->v = NULL;
	dst->q = NULL;
	dst->cap = src->n;
	dst->capq = src->nq;
	if (src->n > 0) {
		dst->v = xreallocarray(NULL, src->n, sizeof(*dst->v));
		memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	}
	if (src->nq > 0) {
		dst->q = xreallocarray(NULL, src->nq, sizeof(*dst->q));
		memcpy(dst->q, src->q, src->nq * sizeof(*dst->q));
	}
}

const struct napi_entry *
napitable_find_irq(const struct napi_table *t, int irq)
{
	size_t lo = 0, hi;

	if (t == NULL || irq < 0)
		return NULL;
	hi = t->nirq;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].irq < irq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nirq && t->v[lo].irq == irq ? &t->v[lo] : NULL;
}

const struct napi_entry *
napitable_find_id(const struct napi_table *t, uint32_t id)
{
	for (size_t i = 0; t != NULL && id != 0 && i < t->n; i++)
		if (t->v[i].id == id)
			return &t->v[i];
	return NULL;
}

const struct napi_entry *
napitable_find_queue(const struct napi_table *t, const char *dev, unsigned dir, uint32_t index)
{
	int ifindex = 0;

	if (t == NULL)
		return NULL;
	for (size_t i = 0; i < t->n && ifindex == 0; i++)
		if (strcmp(t->v[i].dev, dev) == 0)
			ifindex = t->v[i].ifindex;
	for (size_t i = 0; ifindex != 0 && i < t->nq; i++) {
		const struct napi_queue *q = &t->q[i];
		if (q->ifindex == ifindex && q->dir == dir && q->index == index)
			return napitable_find_id(t, q->napi_id);
	}
	return NULL;
}

size_t
napitable_apply(const struct napi_table *t, struct irq_info *v, size_t n)
{
	size_t set = 0;

	for (size_t i = 0; i < n; i++) {
		struct irq_info *info = &v[i];
		const struct napi_entry *e = napitable_find_irq(t, info->irq);
		struct irq_queue *q = &info->queue;

		if (e == NULL || (e->rxq < 0 && e->txq < 0)) {
			*q = info->named;
			continue;
		}
		memset(q, 0, sizeof(*q));
		memcpy(q->device, e->dev, sizeof(q->device));
		q->dev_kind = IRQ_DEV_NETDEV;
		q->kind = e->rxq >= 0 && e->txq >= 0 ? IRQ_QUEUE_TXRX
		          : e->rxq >= 0              ? IRQ_QUEUE_RX
		                                     : IRQ_QUEUE_TX;
		q->index = e->rxq < 0 ? e->txq : e->txq < 0 || e->rxq < e->txq ? e->rxq : e->txq;
		q->origin = IRQ_ORIGIN_NETLINK;
		set++;
	}
	return set;
}

/* A number the kernel gave, or null. */
static void
add_num(json_object *o, const char *key, int64_t v)
{
	if (v < 0)
		json_object_object_add(o, key, NULL);
	else
		json_object_object_add(o, key, json_object_new_int64(v));
}

json_object *
napitable_entry_json(const struct napi_entry *e)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_int64(e->id));
	add_num(o, "irq", e->irq);
	add_num(o, "pid", e->pid);
	add_num(o, "defer_hard_irqs", e->defer_hard_irqs);
	add_num(o, "gro_flush_timeout_ns", e->gro_flush_timeout);
	add_num(o, "irq_suspend_timeout_ns", e->irq_suspend_timeout);
	add_num(o, "threaded", e->threaded);
	json_add_string(o, "origin", "netlink");
	return o;
}
