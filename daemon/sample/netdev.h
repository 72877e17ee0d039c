/* netdev.h: the names an IRQ may use for a network device: its own name, and the bus name
 * of its parent device (a PCI address for mlx5, "virtio2" for virtio_net). */
#ifndef NM_NETDEV_H
#define NM_NETDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "irqtable.h"

struct netdev_aliases {
	char name[IRQ_DEVICE_MAX];
	char parent[IRQ_DEVICE_MAX]; /* basename of sys/class/net/DEV/device, "" when none */
};

/* Fill the aliases of dev, reading the device link below rootfd. */
void netdev_aliases(int rootfd, const char *dev, struct netdev_aliases *al);
/* Does the device an IRQ names belong to the device with these aliases? */
bool netdev_owns_irq(const struct netdev_aliases *al, const struct irq_info *irq);

#define NETDEV_QUEUE_MAX_IRQS 8

/* The IRQs of one queue index of a device (a queue may have several: virtio input.0 and
 * output.0, eth0-rx-3 and eth0-tx-3). Pointers into an IRQ table. */
struct netdev_queue_irqs {
	const struct irq_info *irq[NETDEV_QUEUE_MAX_IRQS];
	unsigned n;
};

/* Where the mapping of a queue's IRQs came from: "netlink" when one of them is a NAPI's IRQ
 * the kernel linked to the queue, "irq-name" when they were found by their names, NULL when
 * the queue has none. */
const char *netdev_queue_irqs_origin(const struct netdev_queue_irqs *m);

/* Fill map[0..nq) with the IRQs whose queue (the kernel's, else the name's: irq_info.queue)
 * is on the device (or its parent) and a queue index,
 * in one pass over the IRQ table t (NULL leaves map empty). */
void netdev_map_queue_irqs(const struct irq_table *t, const struct netdev_aliases *al,
                           struct netdev_queue_irqs *map, uint32_t nq);

/* Whether a device's per-queue drops are really its port's: over a span, drops[i] and
 * packets[i] of queue i (rx and tx together), n queues. True when the drops were all counted
 * on queue 0 while at least one other queue carried packets: a driver that books the
 * port's drops on queue 0 would otherwise show queue 0 as the one dropping. */
bool netdev_drops_per_port(const uint64_t *drops, const uint64_t *packets, size_t n);

#endif
