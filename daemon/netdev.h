/* netdev.h: the names an IRQ may use for a network device: its own name, and the bus name
 * of its parent device (a PCI address for mlx5, "virtio2" for virtio_net). */
#ifndef NM_NETDEV_H
#define NM_NETDEV_H

#include <stdbool.h>
#include <stddef.h>

#include "source-interrupts.h"

struct netdev_aliases {
	char name[IRQ_DEVICE_MAX];
	char parent[IRQ_DEVICE_MAX]; /* basename of sys/class/net/DEV/device, "" when none */
};

/* Fill the aliases of dev, reading the device link below rootfd. */
void netdev_aliases(int rootfd, const char *dev, struct netdev_aliases *al);
/* Does the device an IRQ names belong to the device with these aliases? */
bool netdev_owns_irq(const struct netdev_aliases *al, const struct irq_info *irq);

#endif
