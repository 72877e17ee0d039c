/* test-irqtable.c: the IRQ table on its own: action-name patterns; the on-demand reader of
 * /proc/interrupts and /proc/irq gives the table the interrupts source fills, field for
 * field but the series; a copy owns everything it points to; the form stored with results
 * reads back and its shape is checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "error.h"
#include "irqtable.h"
#include "napitable.h"
#include "source-harness.h"
#include "source-interrupts.h"
#include "source.h"

/* Every action-name pattern, and names that must not match. */
static void
test_parse_name(void **state)
{
	static const struct {
		const char *name;
		bool match;
		const char *device;
		enum irq_dev_kind dev_kind;
		enum irq_queue_kind kind;
		int index;
	} cases[] = {
	    {"mlx5_comp7@pci:0000:08:00.0", true, "0000:08:00.0", IRQ_DEV_PCI, IRQ_QUEUE_TXRX, 7},
	    {"mlx5_comp143@pci:0000:af:00.1", true, "0000:af:00.1", IRQ_DEV_PCI, IRQ_QUEUE_TXRX,
	     143},
	    {"mlx5_async0@pci:0000:08:00.0", true, "0000:08:00.0", IRQ_DEV_PCI, IRQ_QUEUE_NONE, -1},
	    {"ena-mgmnt@pci:0000:00:05.0", true, "0000:00:05.0", IRQ_DEV_PCI, IRQ_QUEUE_NONE, -1},
	    {"eth0-TxRx-7", true, "eth0", IRQ_DEV_NETDEV, IRQ_QUEUE_TXRX, 7},
	    {"i40e-eth0-TxRx-7", true, "eth0", IRQ_DEV_NETDEV, IRQ_QUEUE_TXRX, 7},
	    {"ice-eth0-TxRx-7", true, "eth0", IRQ_DEV_NETDEV, IRQ_QUEUE_TXRX, 7},
	    {"iavf-eth0-TxRx-0", true, "eth0", IRQ_DEV_NETDEV, IRQ_QUEUE_TXRX, 0},
	    {"i40evf-ens1f0v1-TxRx-2", true, "ens1f0v1", IRQ_DEV_NETDEV, IRQ_QUEUE_TXRX, 2},
	    {"ens5-Tx-Rx-7", true, "ens5", IRQ_DEV_NETDEV, IRQ_QUEUE_TXRX, 7},
	    {"eth0-rx-3", true, "eth0", IRQ_DEV_NETDEV, IRQ_QUEUE_RX, 3},
	    {"eth0-tx-3", true, "eth0", IRQ_DEV_NETDEV, IRQ_QUEUE_TX, 3},
	    {"eth0-fp-5", true, "eth0", IRQ_DEV_NETDEV, IRQ_QUEUE_TXRX, 5},
	    {"br-lan-rx-1", true, "br-lan", IRQ_DEV_NETDEV, IRQ_QUEUE_RX, 1},
	    {"virtio2-input.0", true, "virtio2", IRQ_DEV_VIRTIO, IRQ_QUEUE_RX, 0},
	    {"virtio2-output.0", true, "virtio2", IRQ_DEV_VIRTIO, IRQ_QUEUE_TX, 0},
	    {"virtio12-input.15", true, "virtio12", IRQ_DEV_VIRTIO, IRQ_QUEUE_RX, 15},
	    {"virtio1-config", true, "virtio1", IRQ_DEV_VIRTIO, IRQ_QUEUE_NONE, -1},
	    {"virtio1-req.0", true, "virtio1", IRQ_DEV_VIRTIO, IRQ_QUEUE_NONE, -1},
	    {"nvme0q3", true, "nvme0", IRQ_DEV_BLOCK, IRQ_QUEUE_IO, 3},
	    /* mana (microsoft/mana/gdma_main.c): mana_q<N>, mana_hwc */
	    {"mana_q3@pci:7870:00:00.0", true, "7870:00:00.0", IRQ_DEV_PCI, IRQ_QUEUE_TXRX, 3},
	    {"mana_hwc@pci:7870:00:00.0", true, "7870:00:00.0", IRQ_DEV_PCI, IRQ_QUEUE_NONE, -1},
	    /* mlx4 (mlx4/main.c), and mlx4_en's ring vectors of 3.x kernels */
	    {"mlx4-comp-5@pci:0000:04:00.0", true, "0000:04:00.0", IRQ_DEV_PCI, IRQ_QUEUE_TXRX, 5},
	    {"mlx4-async@pci:0000:04:00.0", true, "0000:04:00.0", IRQ_DEV_PCI, IRQ_QUEUE_NONE, -1},
	    {"eth2-5", true, "eth2", IRQ_DEV_NETDEV, IRQ_QUEUE_TXRX, 5},
	    {"ens1f0-11", true, "ens1f0", IRQ_DEV_NETDEV, IRQ_QUEUE_TXRX, 11},
	    {"hpet-5", false, "", IRQ_DEV_NONE, IRQ_QUEUE_NONE, -1},
	    /* idpf (intel/idpf/idpf_txrx.c): the driver's name before the device's; the number
	     * was the vector's before upstream 1500a8662d2d ("idpf: change IRQ naming to match
	     * netdev and ethtool queue numbering": idpf-eth1-Tx-5 was tx queue 3, as its
	     * commit message shows): the device, no queue */
	    {"idpf-eth0-TxRx-3", true, "eth0", IRQ_DEV_NETDEV, IRQ_QUEUE_NONE, -1},
	    {"idpf-ens801f0-Tx-4", true, "ens801f0", IRQ_DEV_NETDEV, IRQ_QUEUE_NONE, -1},
	    {"idpf-eth0-Rx-1", true, "eth0", IRQ_DEV_NETDEV, IRQ_QUEUE_NONE, -1},
	    {"idpf-eth1-Tx-5", true, "eth1", IRQ_DEV_NETDEV, IRQ_QUEUE_NONE, -1},
	    {"iavf-eth0-Tx-4", true, "eth0", IRQ_DEV_NETDEV, IRQ_QUEUE_TX, 4},
	    {"idpf-Mailbox-0", false, "", IRQ_DEV_NONE, IRQ_QUEUE_NONE, -1},
	    {"nvme12q0", true, "nvme12", IRQ_DEV_BLOCK, IRQ_QUEUE_IO, 0},
	    /* Shared IRQ: the first name that matches wins. */
	    {"ehci_hcd:usb1, eth1-TxRx-0", true, "eth1", IRQ_DEV_NETDEV, IRQ_QUEUE_TXRX, 0},
	    {"PCIe PME, pciehp", false, "", IRQ_DEV_NONE, IRQ_QUEUE_NONE, -1},
	    /* The PCI function's own vectors (real captures: tests/golden/irq-names/real-*) */
	    {"i40e-0000:3b:00.0:misc", true, "0000:3b:00.0", IRQ_DEV_PCI, IRQ_QUEUE_NONE, -1},
	    {"ice-0000:65:00.0:ctrl-TxRx-0", true, "0000:65:00.0", IRQ_DEV_PCI, IRQ_QUEUE_NONE, -1},
	    {"ice-0000:65:00.1:misc", true, "0000:65:00.1", IRQ_DEV_PCI, IRQ_QUEUE_NONE, -1},
	    {"ice-0000:65:00.1", false, "", IRQ_DEV_NONE, IRQ_QUEUE_NONE, -1},
	    /* vmxnet3 (drivers/net/vmxnet3/vmxnet3_drv.c): queue and event vectors */
	    {"ens160-rxtx-3", true, "ens160", IRQ_DEV_NETDEV, IRQ_QUEUE_TXRX, 3},
	    {"eth0-event-8", true, "eth0", IRQ_DEV_NETDEV, IRQ_QUEUE_NONE, -1},
	    {"eth3", false, "", IRQ_DEV_NONE, IRQ_QUEUE_NONE, -1},
	    {"eth0-TxRx-", false, "", IRQ_DEV_NONE, IRQ_QUEUE_NONE, -1},
	    {"eth0-TxRx-7x", false, "", IRQ_DEV_NONE, IRQ_QUEUE_NONE, -1},
	    {"-TxRx-7", false, "", IRQ_DEV_NONE, IRQ_QUEUE_NONE, -1},
	    {"nvme0", false, "", IRQ_DEV_NONE, IRQ_QUEUE_NONE, -1},
	    {"virtio", false, "", IRQ_DEV_NONE, IRQ_QUEUE_NONE, -1},
	    {"hv_netvsc", false, "", IRQ_DEV_NONE, IRQ_QUEUE_NONE, -1},
	    {"Local timer interrupts", false, "", IRQ_DEV_NONE, IRQ_QUEUE_NONE, -1},
	    {"", false, "", IRQ_DEV_NONE, IRQ_QUEUE_NONE, -1},
	    {"x@pci:", false, "", IRQ_DEV_NONE, IRQ_QUEUE_NONE, -1},
	};
	struct irq_queue q;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool m = irqtable_parse_name(cases[i].name, strlen(cases[i].name), &q);

		if (m != cases[i].match || strcmp(q.device, cases[i].device) != 0 ||
		    q.dev_kind != cases[i].dev_kind || q.kind != cases[i].kind ||
		    q.index != cases[i].index)
			fail_msg("%s: got %d %s %d %d %d", cases[i].name, m, q.device, q.dev_kind,
			         q.kind, q.index);
	}
	/* Only len bytes are read. */
	assert_true(irqtable_parse_name("eth0-rx-12", 9, &q));
	assert_int_equal(q.index, 1);
}

/* The text after the counts: chip, hwirq, trigger and name, whatever the chip column looks
 * like (Hyper-V's chip is three words; older kernels put the trigger in the chip). */
static void
test_split_fields(void **state)
{
	static const struct {
		const char *text, *chip, *hwirq, *trigger, *name;
	} cases[] = {
	    {"IR-PCI-MSIX-0000:08:00.0   3-edge      mlx5_comp2@pci:0000:08:00.0",
	     "IR-PCI-MSIX-0000:08:00.0", "3", "edge", "mlx5_comp2@pci:0000:08:00.0"},
	    {"Hyper-V PCIe MSI 1075838976-edge      mana_q0@pci:7870:00:00.0", "Hyper-V PCIe MSI",
	     "1075838976", "edge", "mana_q0@pci:7870:00:00.0"},
	    {"Hyper-V PCIe MSI 134742016-edge      mlx5_comp7@pci:3a9b:00:02.0", "Hyper-V PCIe MSI",
	     "134742016", "edge", "mlx5_comp7@pci:3a9b:00:02.0"},
	    {"GICv3  27 Level     arch_timer", "GICv3", "27", "Level", "arch_timer"},
	    {"IO-APIC-edge      timer", "IO-APIC", "", "edge", "timer"},
	    {"PCI-MSI-edge      eth0-TxRx-0", "PCI-MSI", "", "edge", "eth0-TxRx-0"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct irq_info info = {.irq = 24};
		size_t len = strlen(cases[i].text);
		char *buf = malloc(len + 4), *w = buf;

		irqtable_split_fields(&info, &w, cases[i].text, cases[i].text + len);
		assert_string_equal(info.chip, cases[i].chip);
		assert_string_equal(info.hwirq, cases[i].hwirq);
		assert_string_equal(info.trigger, cases[i].trigger);
		assert_string_equal(info.name, cases[i].name);
		assert_true(w <= buf + len + 4);
		free(buf);
	}
}

/* One file of the IRQ-name corpus (tests/golden/irq-names): NAME.in, a /proc/interrupts (its
 * '#' lines, a real capture's source, dropped), read by irqtable_read, each line's device and
 * queue as NAME.expect says; the number of lines checked. */
static size_t
check_irq_corpus(const char *name)
{
	char path[512], *text, *line, *save = NULL, dev[80], dk[16], qk[16], *r, *wp;
	struct irq_table t = {0}; /* irqtable_read frees it first */
	struct nm_error err;
	struct world w;
	size_t checked = 0;
	int irq, qi;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s.in", IRQ_CORPUS_DIR, name);
	f = fopen(path, "r");
	assert_non_null(f);
	text = malloc(1 << 16);
	n = (long)fread(text, 1, (1 << 16) - 1, f);
	text[n] = '\0';
	fclose(f);
	for (r = wp = text; *r != '\0';) {
		char *nl = strchr(r, '\n');
		size_t len = nl ? (size_t)(nl - r) + 1 : strlen(r);
		if (*r != '#') {
			memmove(wp, r, len);
			wp += len;
		}
		r += len;
	}
	*wp = '\0';
	harness_init(&w, &source_interrupts_ops, NULL);
	harness_mkdir(&w, "proc");
	harness_write(&w, "proc/interrupts", text);
	assert_int_equal(irqtable_read(&t, w.src.rootfd, &err), 0);
	snprintf(path, sizeof(path), "%s/%s.expect", IRQ_CORPUS_DIR, name);
	f = fopen(path, "r");
	assert_non_null(f);
	n = (long)fread(text, 1, (1 << 16) - 1, f);
	text[n] = '\0';
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const struct irq_info *e;
		if (line[0] == '#' ||
		    sscanf(line, "%d %79s %15s %15s %d", &irq, dev, dk, qk, &qi) != 5)
			continue;
		e = irqtable_find_irq(&t, irq);
		if (e == NULL)
			fail_msg("%s: IRQ %d not read", name, irq);
		if (strcmp(e->queue.device, strcmp(dev, "-") ? dev : "") != 0 ||
		    strcmp(irqtable_dev_kind_name(e->queue.dev_kind), strcmp(dk, "-") ? dk : "") !=
		        0 ||
		    strcmp(irqtable_queue_kind_name(e->queue.kind), strcmp(qk, "-") ? qk : "") !=
		        0 ||
		    e->queue.index != qi)
			fail_msg("%s: IRQ %d (%s): got %s %s %s %d, want %s %s %s %d", name, irq,
			         e->name, e->queue.device,
			         irqtable_dev_kind_name(e->queue.dev_kind),
			         irqtable_queue_kind_name(e->queue.kind), e->queue.index, dev, dk,
			         qk, qi);
		checked++;
	}
	irqtable_free(&t);
	free(text);
	harness_free(&w);
	return checked;
}

/* The constructed IRQ-name corpus: every driver's naming (drivers.in). */
static void
test_irq_name_corpus(void **state)
{
	(void)state;
	assert_int_equal(check_irq_corpus("drivers"), 25);
}

/* The real /proc/interrupts excerpts (real-*.in, each with its source): i40e and virtio in
 * a guest, ice with its control and misc vectors, a 4-queue virtio_net, mana on Hyper-V,
 * vmxnet3's rxtx and event vectors, two mlx5 VFs on a 3.10 kernel. */
static void
test_irq_name_real(void **state)
{
	(void)state;
	assert_int_equal(check_irq_corpus("real-nemu82"), 12);
	assert_int_equal(check_irq_corpus("real-metal136"), 5);
	assert_int_equal(check_irq_corpus("real-kata1195"), 5);
	assert_int_equal(check_irq_corpus("real-mana0314"), 4);
	assert_int_equal(check_irq_corpus("real-vmxnet3"), 9);
	assert_int_equal(check_irq_corpus("real-mlx5el7"), 31);
}

/* Field for field, but the series. */
static void
check_same(const struct irq_info *a, const struct irq_info *b)
{
	assert_int_equal(a->irq, b->irq);
	assert_string_equal(a->label, b->label);
	assert_string_equal(a->chip, b->chip);
	assert_string_equal(a->hwirq, b->hwirq);
	assert_string_equal(a->trigger, b->trigger);
	assert_string_equal(a->name, b->name);
	assert_memory_equal(&a->queue, &b->queue, sizeof(a->queue));
	assert_int_equal(a->has_affinity, b->has_affinity);
	assert_int_equal(a->has_effective, b->has_effective);
	assert_true(cpuset_equal(&a->affinity, &b->affinity));
	assert_true(cpuset_equal(&a->effective, &b->effective));
}

/* The reader and the source on one fixture (an offline CPU, odd lines); a copy of the
 * source's table outlives the source and keeps its series. */
static void
test_read_copy(void **state)
{
	const struct irq_table *src;
	struct irq_table rd = {0}, cp;
	const struct irq_info *q[4];
	struct nm_error err;
	struct world w;
	size_t nq = 0;

	(void)state;
	harness_init(&w, &source_interrupts_ops, NULL);
	harness_gen(&w, "--only interrupts,irq --cpus 32 --offline 5 --odd");
	harness_start(&w);
	harness_sample(&w);
	src = source_interrupts_table(&w.src);
	assert_int_equal(src->kind, IRQ_TABLE_BORROWED);
	assert_true(src->n > 100);
	assert_int_equal(irqtable_read(&rd, w.src.rootfd, &err), 0);
	assert_int_equal(rd.kind, IRQ_TABLE_OWNED);
	assert_int_equal(rd.n, src->n);
	for (size_t i = 0; i < rd.n; i++) {
		check_same(&rd.v[i], &src->v[i]);
		assert_int_equal(rd.v[i].ncpus, 0);
		assert_int_equal(rd.v[i].total, SERIES_NONE);
		if (rd.v[i].queue.index >= 0)
			nq++;
	}
	assert_true(nq > 0);
	irqtable_copy(&cp, src);
	assert_int_equal(cp.n, src->n);
	for (size_t i = 0; i < cp.n; i++) {
		check_same(&cp.v[i], &src->v[i]);
		assert_int_equal(cp.v[i].ncpus, src->v[i].ncpus);
		assert_int_equal(cp.v[i].total, src->v[i].total);
		assert_ptr_not_equal(cp.v[i].name, src->v[i].name);
		if (src->v[i].ncpus > 0)
			assert_memory_equal(cp.v[i].cpu_series, src->v[i].cpu_series,
			                    src->v[i].ncpus * sizeof(series_id));
	}
	assert_int_equal(irqtable_find_queue(&cp, rd.v[0].queue.device, -2, q, 4), 0);
	harness_free(&w);
	/* The copy stands on its own. */
	assert_non_null(irqtable_find_label(&cp, "LOC"));
	irqtable_free(&cp);
	irqtable_free(&rd);
	assert_int_equal(rd.n, 0);
	/* No /proc/interrupts. */
	harness_init(&w, &source_interrupts_ops, NULL);
	assert_int_equal(irqtable_read(&rd, w.src.rootfd, &err), -1);
	assert_int_equal(err.code, NM_ERR_UNSUPPORTED);
	assert_int_equal(rd.n, 0);
	harness_free(&w);
}

/* A table by hand: queue IRQs with and without affinities, and one naming no device. */
static void
hand_table(struct irq_table *t)
{
	static const char *const lines[] = {"eth0-TxRx-0", "eth0-TxRx-1",
	                                    "mlx5_comp3@pci:0000:08:00.0", "PCIe PME"};
	static struct irq_info v[4];

	memset(v, 0, sizeof(v));
	for (int i = 0; i < 4; i++) {
		v[i].irq = 40 + i;
		v[i].label = v[i].chip = v[i].hwirq = v[i].trigger = "";
		v[i].name = lines[i];
		irqtable_parse_name(lines[i], strlen(lines[i]), &v[i].named);
		v[i].queue = v[i].named;
		v[i].total = SERIES_NONE;
	}
	v[0].has_affinity = v[0].has_effective = true;
	cpuset_add(&v[0].affinity, 0);
	cpuset_add(&v[0].affinity, 1);
	cpuset_add(&v[0].effective, 1);
	v[2].has_effective = true;
	cpuset_add(&v[2].effective, 143);
	*t = (struct irq_table){IRQ_TABLE_BORROWED, v, 4};
}

/* The stored form: queue IRQs only, read back as written; bad shapes are refused. */
static void
test_json(void **state)
{
	static const char *const bad[] = {
	    "{}",
	    "[1]",
	    "[{\"irq\": -1, \"name\": \"x\", \"device\": \"eth0\", \"dev_kind\": \"netdev\", "
	    "\"queue\": 0, \"queue_kind\": \"txrx\"}]",
	    "[{\"irq\": 4, \"name\": \"x\", \"device\": \"eth0\", \"dev_kind\": \"netdev\", "
	    "\"queue\": -2, \"queue_kind\": \"txrx\"}]",
	    "[{\"irq\": 4, \"name\": \"x\", \"device\": \"eth0\", \"dev_kind\": \"nic\", "
	    "\"queue\": 0, \"queue_kind\": \"txrx\"}]",
	    "[{\"irq\": 4, \"name\": \"x\", \"device\": \"eth0\", \"dev_kind\": \"netdev\", "
	    "\"queue\": 0, \"queue_kind\": \"both\"}]",
	    "[{\"irq\": 4, \"name\": 7, \"device\": \"eth0\", \"dev_kind\": \"netdev\", "
	    "\"queue\": 0, \"queue_kind\": \"txrx\"}]",
	    "[{\"irq\": 4, \"name\": \"x\", \"dev_kind\": \"netdev\", \"queue\": 0, "
	    "\"queue_kind\": \"txrx\"}]",
	    "[{\"irq\": \"4\", \"name\": \"x\", \"device\": \"eth0\", \"dev_kind\": \"netdev\", "
	    "\"queue\": 0, \"queue_kind\": \"txrx\"}]",
	    "[{\"irq\": 4, \"name\": \"x\", \"device\": \"eth0\", \"dev_kind\": \"netdev\", "
	    "\"queue\": 0, \"queue_kind\": \"txrx\", \"affinity\": \"0-x\"}]",
	    "[{\"irq\": 4, \"name\": \"x\", \"device\": \"eth0\", \"dev_kind\": \"netdev\", "
	    "\"queue\": 0, \"queue_kind\": \"txrx\", \"effective\": 3}]",
	};
	/* A device longer than the field is cut to fit (escaped stray bytes lengthen names). */
	static const char long_dev[] =
	    "[{\"irq\": 4, \"name\": \"x\", \"device\": "
	    "\"a123456789012345678901234567890123456789012345678901234567890123\", "
	    "\"dev_kind\": \"netdev\", \"queue\": 0, \"queue_kind\": \"txrx\"}]";
	struct irq_table t, back;
	const struct irq_info *e;
	struct nm_error err;
	json_object *js, *o;

	(void)state;
	hand_table(&t);
	js = irqtable_json(&t);
	assert_int_equal(json_object_array_length(js), 3); /* PCIe PME names no device */
	o = json_object_array_get_idx(js, 0);
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
	                    "{\"irq\":40,\"name\":\"eth0-TxRx-0\",\"device\":\"eth0\","
	                    "\"dev_kind\":\"netdev\",\"queue\":0,\"queue_kind\":\"txrx\","
	                    "\"origin\":\"irq-name\",\"affinity\":\"0-1\",\"effective\":\"1\"}");
	assert_int_equal(irqtable_from_json(&back, js, &err), 0);
	assert_int_equal(back.n, 3);
	e = irqtable_find_irq(&back, 42);
	assert_non_null(e);
	assert_string_equal(e->label, "42");
	assert_string_equal(e->name, "mlx5_comp3@pci:0000:08:00.0");
	assert_memory_equal(&e->queue, &t.v[2].queue, sizeof(e->queue));
	assert_false(e->has_affinity);
	assert_true(e->has_effective && cpuset_has(&e->effective, 143) &&
	            cpuset_count(&e->effective) == 1);
	e = irqtable_find_irq(&back, 40);
	assert_true(cpuset_equal(&e->affinity, &t.v[0].affinity));
	assert_true(cpuset_equal(&e->effective, &t.v[0].effective));
	assert_int_equal(e->ncpus, 0);
	assert_null(irqtable_find_irq(&back, 43));
	irqtable_free(&back);
	json_object_put(js);

	js = json_tokener_parse(long_dev);
	assert_int_equal(irqtable_from_json(&back, js, &err), 0);
	assert_int_equal(back.n, 1);
	assert_int_equal(strlen(back.v[0].queue.device), IRQ_DEVICE_MAX - 1);
	assert_memory_equal(back.v[0].queue.device, "a12345678901", 12);
	irqtable_free(&back);
	json_object_put(js);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		js = json_tokener_parse(bad[i]);
		assert_non_null(js);
		if (irqtable_from_json(&back, js, &err) == 0)
			fail_msg("accepted: %s", bad[i]);
		assert_int_equal(back.n, 0);
		assert_int_equal(err.code, NM_ERR_BAD_ARGS);
		json_object_put(js);
	}
}

/* A NAPI of a device ens5 (ifindex 3) into t. */
static struct napi_entry *
add_napi(struct napi_table *t, uint32_t id, int irq)
{
	struct napi_entry *e = napitable_add_napi(t);

	snprintf(e->dev, sizeof(e->dev), "ens5");
	e->ifindex = 3;
	e->id = id;
	e->irq = irq;
	e->defer_hard_irqs = 0;
	e->gro_flush_timeout = 20000;
	e->threaded = 0;
	return e;
}

/* The kernel's word first: an IRQ a NAPI names is that NAPI's queue (origin netlink), even
 * when its name says otherwise; the others keep their names' queue (irq-name); without the
 * NAPIs every entry is its name's again. gen moves only when the contents do. */
static void
test_napi_apply(void **state)
{
	static const struct napi_queue links[] = {
	    {3, 0, 0, 9000}, {3, 1, 0, 9000}, {3, 0, 1, 9001}, {3, 1, 1, 9002}, {3, 0, 2, 0}};
	struct napi_table nt = {0};
	struct irq_table t, back;
	const struct napi_entry *e;
	struct nm_error err;
	json_object *js, *o;
	unsigned gen;

	(void)state;
	hand_table(&t);
	napitable_begin(&nt);
	add_napi(&nt, 9002, -1);
	add_napi(&nt, 9001, 43)->pid = 812;
	add_napi(&nt, 9000, 41);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		napitable_add_queue(&nt, &links[i]);
	napitable_end(&nt);
	gen = nt.gen;
	assert_int_equal(nt.nirq, 2);
	assert_int_equal(napitable_find_irq(&nt, 41)->id, 9000);
	assert_int_equal(napitable_find_irq(&nt, 41)->rxq, 0);
	assert_int_equal(napitable_find_irq(&nt, 41)->txq, 0);
	assert_null(napitable_find_irq(&nt, 42));
	e = napitable_find_queue(&nt, "ens5", 1, 1);
	assert_non_null(e);
	assert_int_equal(e->id, 9002);
	assert_int_equal(e->irq, -1);
	assert_null(napitable_find_queue(&nt, "ens5", 0, 2)); /* linked to none */
	assert_null(napitable_find_queue(&nt, "eth0", 0, 0));

	assert_int_equal(napitable_apply(&nt, t.v, t.n), 2);
	assert_string_equal(t.v[0].queue.device, "eth0"); /* no NAPI: its name's */
	assert_int_equal(t.v[0].queue.origin, IRQ_ORIGIN_NAME);
	assert_string_equal(t.v[1].queue.device, "ens5"); /* named eth0-TxRx-1 */
	assert_int_equal(t.v[1].queue.dev_kind, IRQ_DEV_NETDEV);
	assert_int_equal(t.v[1].queue.kind, IRQ_QUEUE_TXRX);
	assert_int_equal(t.v[1].queue.index, 0);
	assert_int_equal(t.v[1].queue.origin, IRQ_ORIGIN_NETLINK);
	assert_string_equal(t.v[3].queue.device, "ens5"); /* "PCIe PME": rx 1 only */
	assert_int_equal(t.v[3].queue.kind, IRQ_QUEUE_RX);
	assert_int_equal(t.v[3].queue.index, 1);
	assert_string_equal(t.v[1].named.device, "eth0");

	/* Stored with a result and read back, the origin stays. */
	js = irqtable_json(&t);
	assert_int_equal(json_object_array_length(js), 4);
	o = json_object_array_get_idx(js, 3);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "origin")), "netlink");
	assert_int_equal(irqtable_from_json(&back, js, &err), 0);
	assert_int_equal(irqtable_find_irq(&back, 43)->queue.origin, IRQ_ORIGIN_NETLINK);
	assert_int_equal(irqtable_find_irq(&back, 40)->queue.origin, IRQ_ORIGIN_NAME);
	irqtable_free(&back);
	json_object_put(js);

	o = napitable_entry_json(napitable_find_irq(&nt, 43));
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
	                    "{\"id\":9001,\"irq\":43,\"pid\":812,\"defer_hard_irqs\":0,"
	                    "\"gro_flush_timeout_ns\":20000,\"irq_suspend_timeout_ns\":null,"
	                    "\"threaded\":0,\"origin\":\"netlink\"}");
	json_object_put(o);

	/* The same again: gen stays; a NAPI renumbered (channels changed): it moves. */
	napitable_begin(&nt);
	add_napi(&nt, 9002, -1);
	add_napi(&nt, 9001, 43)->pid = 812;
	add_napi(&nt, 9000, 41);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		napitable_add_queue(&nt, &links[i]);
	napitable_end(&nt);
	assert_int_equal(nt.gen, gen);
	napitable_begin(&nt);
	napitable_end(&nt);
	assert_int_equal(nt.gen, gen + 1);
	assert_int_equal(napitable_apply(&nt, t.v, t.n), 0);
	assert_string_equal(t.v[1].queue.device, "eth0");
	assert_int_equal(t.v[1].queue.index, 1);
	assert_int_equal(t.v[1].queue.origin, IRQ_ORIGIN_NAME);
	assert_string_equal(t.v[3].queue.device, "");
	assert_int_equal(t.v[3].queue.origin, IRQ_ORIGIN_NONE);
	napitable_free(&nt);
}

/* Which arch lines are IPIs: x86's RES, CAL, TLB and IPI<n> (arm64 and the others), and no
 * other of the kernel's arch lines; "IPI" without a number is no line the kernel prints
 * (Prometheus once took any "IPI..." for one, the report only IPI<digit>). */
static void
test_is_ipi(void **state)
{
	const char *ipi[] = {"RES", "CAL", "TLB", "IPI0", "IPI6", "IPI15"};
	const char *not_ipi[] = {"NMI", "LOC", "SPU",  "PMI",  "IWI", "RTR", "TRM", "THR",
	                         "DFR", "MCE", "MCP",  "ERR",  "MIS", "PIN", "NPI", "PIW",
	                         "Err", "IPI", "IPIx", "IPI:", "45",  "res", ""};

	(void)state;
	for (size_t i = 0; i < sizeof(ipi) / sizeof(ipi[0]); i++)
		if (!irqtable_is_ipi(ipi[i]))
			fail_msg("%s is an IPI line", ipi[i]);
	for (size_t i = 0; i < sizeof(not_ipi) / sizeof(not_ipi[0]); i++)
		if (irqtable_is_ipi(not_ipi[i]))
			fail_msg("\"%s\" is not an IPI line", not_ipi[i]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_name),    cmocka_unit_test(test_split_fields),
	    cmocka_unit_test(test_read_copy),     cmocka_unit_test(test_json),
	    cmocka_unit_test(test_napi_apply),    cmocka_unit_test(test_irq_name_corpus),
	    cmocka_unit_test(test_irq_name_real), cmocka_unit_test(test_is_ipi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
