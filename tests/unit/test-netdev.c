/* test-netdev.c: the queue joins of netdev.c: which IRQs are a device's queue's (the
 * kernel's NAPI links first, the name otherwise), where that mapping came from, and when a
 * device's per-queue drops are really its port's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "irqtable.h"
#include "netdev.h"

/* Drops all on queue 0 while other queues carry packets: the port's; any other spread,
 * or queue 0 alone busy, is not flagged. */
static void
test_drops_per_port(void **state)
{
	static const uint64_t pkts[4] = {1000, 900, 800, 0};
	static const uint64_t q0_only[4] = {50, 0, 0, 0};
	static const uint64_t spread[4] = {50, 3, 0, 0};
	static const uint64_t none[4] = {0, 0, 0, 0};
	static const uint64_t on_q1[4] = {0, 9, 0, 0};
	static const uint64_t idle_others[4] = {1000, 0, 0, 0};

	(void)state;
	assert_true(netdev_drops_per_port(q0_only, pkts, 4));
	assert_false(netdev_drops_per_port(spread, pkts, 4));
	assert_false(netdev_drops_per_port(none, pkts, 4));
	assert_false(netdev_drops_per_port(on_q1, pkts, 4));
	assert_false(netdev_drops_per_port(q0_only, idle_others, 4)); /* queue 0 alone busy */
	assert_false(netdev_drops_per_port(q0_only, pkts, 1));        /* one queue */
}

/* A device's queue IRQs: by name through the device or its parent, the kernel's mapping
 * kept as it was set (origin netlink); the origin of a queue's IRQs is netlink when any is. */
static void
test_map_and_origin(void **state)
{
	struct irq_info v[4];
	struct netdev_aliases al;
	struct netdev_queue_irqs map[2];

	(void)state;
	memset(v, 0, sizeof(v));
	memset(&al, 0, sizeof(al));
	strcpy(al.name, "ens5");
	strcpy(al.parent, "0000:08:00.0");
	for (int i = 0; i < 4; i++) {
		v[i].irq = 40 + i;
		v[i].label = v[i].chip = v[i].hwirq = v[i].trigger = v[i].name = "";
	}
	irqtable_parse_name("mlx5_comp0@pci:0000:08:00.0", 27, &v[0].queue);
	irqtable_parse_name("ens5-TxRx-1", 11, &v[1].queue);
	strcpy(v[2].queue.device, "ens5"); /* as napitable_apply sets it */
	v[2].queue.dev_kind = IRQ_DEV_NETDEV;
	v[2].queue.kind = IRQ_QUEUE_RX;
	v[2].queue.index = 1;
	v[2].queue.origin = IRQ_ORIGIN_NETLINK;
	irqtable_parse_name("eth9-TxRx-0", 11, &v[3].queue); /* another device */
	netdev_map_queue_irqs(&(struct irq_table){IRQ_TABLE_BORROWED, v, 4}, &al, map, 2);
	assert_int_equal(map[0].n, 1);
	assert_ptr_equal(map[0].irq[0], &v[0]);
	assert_string_equal(netdev_queue_irqs_origin(&map[0]), "irq-name");
	assert_int_equal(map[1].n, 2);
	assert_string_equal(netdev_queue_irqs_origin(&map[1]), "netlink");
	map[0].n = 0;
	assert_null(netdev_queue_irqs_origin(&map[0]));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_drops_per_port),
	    cmocka_unit_test(test_map_and_origin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
