/* netdev.c: joining IRQ names to network devices through their aliases. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "netdev.h"

void
netdev_aliases(int rootfd, const char *dev, struct netdev_aliases *al)
{
	char path[128], target[256];
	ssize_t n;
	const char *base;

	memset(al, 0, sizeof(*al));
	snprintf(al->name, sizeof(al->name), "%.63s", dev);
	snprintf(path, sizeof(path), "sys/class/net/%s/device", dev);
	if (strchr(dev, '/') != NULL ||
	    (n = readlinkat(rootfd, path, target, sizeof(target) - 1)) <= 0)
		return;
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(al->parent, sizeof(al->parent), "%.63s", base ? base + 1 : target);
}

bool
netdev_owns_irq(const struct netdev_aliases *al, const struct irq_info *irq)
{
	const char *d = irq->queue.device;

	if (*d == '\0')
		return false;
	return strcmp(d, al->name) == 0 || (al->parent[0] && strcmp(d, al->parent) == 0);
}

/* One pass over the IRQ table: each queue IRQ of the device goes to its index. */
void
netdev_map_queue_irqs(const struct irq_table *t, const struct netdev_aliases *al,
                      struct netdev_queue_irqs *map, uint32_t nq)
{
	memset(map, 0, nq * sizeof(*map));
	for (size_t i = 0; t != NULL && i < t->n; i++) {
		const struct irq_info *irq = &t->v[i];
		struct netdev_queue_irqs *m;
		if (irq->queue.index < 0 || (uint32_t)irq->queue.index >= nq ||
		    !netdev_owns_irq(al, irq))
			continue;
		m = &map[irq->queue.index];
		if (m->n < NETDEV_QUEUE_MAX_IRQS)
			m->irq[m->n++] = irq;
	}
}

/* netlink when any IRQ of the queue is the kernel's, else irq-name when there is one. */
const char *
netdev_queue_irqs_origin(const struct netdev_queue_irqs *m)
{
	enum irq_origin o = IRQ_ORIGIN_NONE;

	for (unsigned i = 0; i < m->n; i++)
		if (m->irq[i]->queue.origin > o)
			o = m->irq[i]->queue.origin;
	return irqtable_origin_name(o);
}

/* All drops on queue 0, and packets on another queue. */
bool
netdev_drops_per_port(const uint64_t *drops, const uint64_t *packets, size_t n)
{
	bool others_busy = false;

	if (n < 2 || drops[0] == 0)
		return false;
	for (size_t i = 1; i < n; i++) {
		if (drops[i] > 0)
			return false;
		others_busy |= packets[i] > 0;
	}
	return others_busy;
}
