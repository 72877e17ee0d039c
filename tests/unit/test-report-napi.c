/* test-report-napi.c: a window's NAPI view (report-napi.c) from two edge snapshots made by
 * hand: each queue's NAPI, its IRQ and that IRQ's CPUs as the edge's tables have them; the
 * start edge shown beside the end's when the device was renumbered during the window; one
 * device when asked; nothing without a NAPI table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "report-napi.h"

/* Edge snap: device ifindex 2 "eth0" with rx-0 and rx-1 linked to NAPIs id0 and id0 + 1
 * (IRQs irq0, irq0 + 1; the first threaded, pid 812), tx-0 linked to none; IRQ irq0's
 * affinity "0-1", effective cpu. */
static void
edge(struct snapshot *snap, uint32_t id0, int irq0, const char *cpu)
{
	char json[512];
	json_object *arr;
	struct napi_queue q = {.ifindex = 2};

	memset(snap, 0, sizeof(*snap));
	napitable_begin(&snap->napis);
	for (int i = 0; i < 2; i++) {
		struct napi_entry *e = napitable_add_napi(&snap->napis);
		snprintf(e->dev, sizeof(e->dev), "eth0");
		e->ifindex = 2;
		e->id = id0 + (uint32_t)i;
		e->irq = irq0 + i;
		e->defer_hard_irqs = 0;
		e->gro_flush_timeout = 20000;
		e->irq_suspend_timeout = 0;
		e->threaded = i == 0;
		e->pid = i == 0 ? 812 : -1;
		q.dir = 0;
		q.index = (uint32_t)i;
		q.napi_id = id0 + (uint32_t)i;
		napitable_add_queue(&snap->napis, &q);
	}
	q.dir = 1;
	q.index = 0;
	q.napi_id = 0;
	napitable_add_queue(&snap->napis, &q);
	napitable_end(&snap->napis);
	snprintf(json, sizeof(json),
	         "[{\"irq\":%d,\"name\":\"virtio0-input.0\",\"device\":\"eth0\",\"dev_kind\":"
	         "\"netdev\",\"queue\":0,\"queue_kind\":\"rx\",\"origin\":\"netlink\","
	         "\"affinity\":\"0-1\",\"effective\":\"%s\"}]",
	         irq0, cpu);
	arr = json_tokener_parse(json);
	assert_int_equal(irqtable_from_json(&snap->irqs, arr, NULL), 0);
	json_object_put(arr);
}

/* member key of o, which must be there. */
static json_object *
get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no %s in %s", key, json_object_to_json_string(o));
	return v;
}

/* The same NAPIs at both edges: the end's, once, with the IRQ's CPUs and the thread. */
static void
test_same(void **state)
{
	struct snapshot a, b;
	json_object *o, *dev, *qs, *q, *napi;

	(void)state;
	edge(&a, 257, 45, "1");
	edge(&b, 257, 45, "1");
	o = report_napi_json(&a, &b, NULL);
	assert_non_null(o);
	assert_int_equal(json_object_object_length(o), 1);
	dev = get(o, "eth0");
	assert_int_equal(json_object_get_int(get(dev, "ifindex")), 2);
	assert_true(json_object_get_boolean(get(dev, "same_at_start")));
	assert_false(json_object_object_get_ex(dev, "start_queues", NULL));
	qs = get(dev, "queues");
	assert_int_equal(json_object_array_length(qs), 3);
	/* rx-0, rx-1, then tx-0 */
	q = json_object_array_get_idx(qs, 0);
	assert_string_equal(json_object_get_string(get(q, "dir")), "rx");
	assert_int_equal(json_object_get_int(get(q, "queue")), 0);
	napi = get(q, "napi");
	assert_int_equal(json_object_get_int(get(napi, "id")), 257);
	assert_int_equal(json_object_get_int(get(napi, "irq")), 45);
	assert_int_equal(json_object_get_int(get(napi, "pid")), 812);
	assert_int_equal(json_object_get_int(get(napi, "threaded")), 1);
	assert_int_equal(json_object_get_int(get(napi, "gro_flush_timeout_ns")), 20000);
	assert_string_equal(json_object_get_string(get(napi, "affinity")), "0-1");
	assert_string_equal(json_object_get_string(get(napi, "effective")), "1");
	assert_string_equal(json_object_get_string(get(napi, "origin")), "netlink");
	q = json_object_array_get_idx(qs, 1);
	napi = get(q, "napi");
	assert_int_equal(json_object_get_int(get(napi, "id")), 258);
	assert_int_equal(json_object_get_int(get(napi, "irq")), 46);
	assert_null(get(napi, "pid"));
	assert_null(get(napi, "affinity")); /* IRQ 46 is not in the IRQ table */
	q = json_object_array_get_idx(qs, 2);
	assert_string_equal(json_object_get_string(get(q, "dir")), "tx");
	assert_int_equal(json_object_get_int(get(q, "queue")), 0);
	assert_null(get(q, "napi"));
	json_object_put(o);
	snapshot_free(&a);
	snapshot_free(&b);
}

/* Renumbered during the window (channels set): the end's NAPIs, and the start's beside. */
static void
test_renumbered(void **state)
{
	struct snapshot a, b;
	json_object *o, *dev, *napi;

	(void)state;
	edge(&a, 257, 45, "1");
	edge(&b, 513, 47, "0");
	o = report_napi_json(&a, &b, NULL);
	dev = get(o, "eth0");
	assert_false(json_object_get_boolean(get(dev, "same_at_start")));
	napi = get(json_object_array_get_idx(get(dev, "queues"), 0), "napi");
	assert_int_equal(json_object_get_int(get(napi, "id")), 513);
	assert_int_equal(json_object_get_int(get(napi, "irq")), 47);
	assert_string_equal(json_object_get_string(get(napi, "effective")), "0");
	napi = get(json_object_array_get_idx(get(dev, "start_queues"), 0), "napi");
	assert_int_equal(json_object_get_int(get(napi, "id")), 257);
	assert_string_equal(json_object_get_string(get(napi, "effective")), "1");
	json_object_put(o);
	snapshot_free(&a);
	snapshot_free(&b);
}

/* An affinity written during the window is a difference too. */
static void
test_affinity_moved(void **state)
{
	struct snapshot a, b;
	json_object *o;

	(void)state;
	edge(&a, 257, 45, "1");
	edge(&b, 257, 45, "0");
	o = report_napi_json(&a, &b, NULL);
	assert_false(json_object_get_boolean(get(get(o, "eth0"), "same_at_start")));
	json_object_put(o);
	snapshot_free(&a);
	snapshot_free(&b);
}

/* One device asked for: others and an unknown one give nothing; no table, no figure. */
static void
test_device_and_none(void **state)
{
	struct snapshot a, b, e1, e2;
	json_object *o;

	(void)state;
	edge(&a, 257, 45, "1");
	edge(&b, 257, 45, "1");
	o = report_napi_json(&a, &b, "eth0");
	assert_non_null(o);
	json_object_put(o);
	assert_null(report_napi_json(&a, &b, "eth1"));
	memset(&e1, 0, sizeof(e1));
	memset(&e2, 0, sizeof(e2));
	assert_null(report_napi_json(&e1, &e2, NULL));
	/* A device only at the start edge (gone since) is still shown. */
	o = report_napi_json(&a, &e2, NULL);
	assert_non_null(o);
	assert_int_equal(json_object_array_length(get(get(o, "eth0"), "queues")), 0);
	assert_int_equal(json_object_array_length(get(get(o, "eth0"), "start_queues")), 3);
	json_object_put(o);
	snapshot_free(&a);
	snapshot_free(&b);
}

/* A copy of the NAPI table is its own. */
static void
test_copy(void **state)
{
	struct snapshot a;
	struct napi_table c;

	(void)state;
	edge(&a, 257, 45, "1");
	napitable_copy(&c, &a.napis);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.nq, 3);
	assert_ptr_not_equal(c.v, a.napis.v);
	assert_non_null(napitable_find_id(&c, 258));
	snapshot_free(&a);
	assert_int_equal(napitable_find_irq(&c, 45)->id, 257);
	napitable_free(&c);
	napitable_copy(&c, NULL);
	assert_int_equal(c.n, 0);
	assert_null(c.v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same),           cmocka_unit_test(test_renumbered),
	    cmocka_unit_test(test_affinity_moved), cmocka_unit_test(test_device_and_none),
	    cmocka_unit_test(test_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
