/* test-source-interrupts.c: /proc/interrupts parsing, on fixtures from gen-host.py and on
 * this machine's /proc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>
#include <unistd.h>

#include "error.h"
#include "series.h"
#include "source-interrupts.h"
#include "source-harness.h"
#include "source.h"

/* The entries of the source's IRQ table; *n its length. */
static const struct irq_info *
irqs_of(struct source *src, size_t *n)
{
	const struct irq_table *t = source_interrupts_table(src);

	*n = t != NULL ? t->n : 0;
	return *n > 0 ? t->v : NULL;
}

/* The IRQ number gen-host.py gave an action name. */
static int
js_irq(struct world *w, const char *name)
{
	return json_object_get_int(harness_js(harness_js(w->js, "irqs"), name));
}

/* A full 144-CPU host: every cell at step 0, only the changed cells at step 1, none when
 * nothing changed; exact values including the cells that wrap at 2^32. */
static void
test_steps(void **state)
{
	struct world w;
	uint64_t v0[3];
	series_id wrap[3];
	size_t n, lines, changed;
	const struct irq_info *irqs;

	(void)state;
	harness_init(&w, &source_interrupts_ops, NULL);
	harness_gen(&w, "--only interrupts");
	harness_start(&w);
	harness_sample(&w);
	lines = (size_t)json_object_get_int(harness_js(w.js, "lines"));
	irqs = irqs_of(&w.src, &n);
	assert_int_equal(n, lines);
	assert_int_equal(w.sink.nput, (lines - 2) * 144 + 2); /* ERR and MIS: one total each */
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(irqs[0].irq, 0);
	assert_string_equal(irqs[n - 1].label, "PIW");
	harness_check_values(&w, "irq.");
	wrap[0] = harness_find(&w, "irq.37.cpu0"); /* mlx5_comp0: 2^32-600 */
	wrap[1] = harness_find(&w, "irq.38.cpu1"); /* mlx5_comp1: wraps to exactly 0 */
	wrap[2] = harness_find(&w, "irq.39.cpu2"); /* mlx5_comp2: 2^32-1 */
	harness_labels(&w, "irq.39.cpu2", "source=interrupts irq=39 cpu=2 unit=interrupts");
	assert_int_equal(js_irq(&w, "mlx5_comp0@pci:0000:08:00.0"), 37);
	for (int i = 0; i < 3; i++)
		v0[i] = w.sink.val[wrap[i]];
	assert_int_equal(v0[2], UINT32_MAX);
	changed = (size_t)json_object_get_int(harness_js(w.js, "changed_cells"));

	harness_gen(&w, "--only interrupts --step 1");
	harness_sample(&w);
	assert_int_equal(w.sink.nput, changed);
	assert_int_equal(w.sink.ngone, 0);
	harness_check_values(&w, "irq.");
	assert_int_equal(w.sink.val[wrap[1]], 0);
	json_object_object_foreach(harness_js(w.js, "deltas"), name, d)
	{
		series_id id;

		if (strncmp(name, "irq.", 4) != 0)
			continue;
		id = harness_find(&w, name);
		for (int i = 0; i < 3; i++) {
			if (id == wrap[i])
				assert_int_equal((uint32_t)(w.sink.val[id] - v0[i]),
				                 json_object_get_int64(d));
		}
	}
	assert_int_equal((uint32_t)(w.sink.val[wrap[0]] - v0[0]), 1000);

	/* Unchanged file: nothing is put. */
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 0);
	/* Back to step 0: the same cells change back. */
	harness_gen(&w, "--only interrupts --step 0");
	harness_sample(&w);
	assert_int_equal(w.sink.nput, changed);
	harness_check_values(&w, "irq.");
	harness_free(&w);
}

/* Chip, hwirq, names, device and queue, affinity and per-CPU series of fixture IRQs. */
static void
test_irq_table(void **state)
{
	const struct irq_info *q[4], *info;
	struct world w;
	char path[128], name[64];
	int irq;
	FILE *f;

	(void)state;
	harness_init(&w, &source_interrupts_ops, NULL);
	harness_gen(&w, "--cpus 16 --queues 16 --irqs 200 --only interrupts,irq");
	harness_start(&w);
	harness_sample(&w);

	irq = js_irq(&w, "mlx5_comp7@pci:0000:08:00.0");
	assert_int_equal(
	    irqtable_find_queue(source_interrupts_table(&w.src), "0000:08:00.0", 7, q, 4), 1);
	info = q[0];
	assert_int_equal(info->irq, irq);
	assert_ptr_equal(irqtable_find_irq(source_interrupts_table(&w.src), irq), info);
	snprintf(name, sizeof(name), "%d", irq);
	assert_ptr_equal(irqtable_find_label(source_interrupts_table(&w.src), name), info);
	assert_string_equal(info->chip, "IR-PCI-MSIX-0000:08:00.0");
	assert_string_equal(info->hwirq, "8");
	assert_string_equal(info->trigger, "edge");
	assert_string_equal(info->name, "mlx5_comp7@pci:0000:08:00.0");
	assert_int_equal(info->queue.dev_kind, IRQ_DEV_PCI);
	assert_int_equal(info->queue.kind, IRQ_QUEUE_TXRX);
	assert_true(info->has_affinity && info->has_effective);
	assert_int_equal(cpuset_count(&info->affinity), 1);
	assert_true(cpuset_has(&info->affinity, 7));
	assert_true(cpuset_has(&info->effective, 7));
	assert_int_equal(info->ncpus, 16);
	assert_int_equal(info->total, SERIES_NONE);
	snprintf(name, sizeof(name), "irq.%d.cpu7", irq);
	assert_int_equal(info->cpu_series[7], harness_find(&w, name));

	/* The second port: same queue number, other device. */
	assert_int_equal(
	    irqtable_find_queue(source_interrupts_table(&w.src), "0000:08:00.1", 7, q, 4), 1);
	assert_int_equal(q[0]->irq, js_irq(&w, "mlx5_comp7@pci:0000:08:00.1"));
	/* The async vector names the device but no queue. */
	info = irqtable_find_irq(source_interrupts_table(&w.src),
	                         js_irq(&w, "mlx5_async0@pci:0000:08:00.0"));
	assert_non_null(info);
	assert_string_equal(info->queue.device, "0000:08:00.0");
	assert_int_equal(info->queue.index, -1);
	/* Separate rx and tx IRQs of one queue. */
	assert_int_equal(irqtable_find_queue(source_interrupts_table(&w.src), "eth6", 1, q, 4), 2);
	assert_int_equal(q[0]->queue.kind, IRQ_QUEUE_RX);
	assert_int_equal(q[1]->queue.kind, IRQ_QUEUE_TX);
	assert_int_equal(irqtable_find_queue(source_interrupts_table(&w.src), "virtio2", 0, q, 1),
	                 2);
	assert_int_equal(q[0]->queue.kind, IRQ_QUEUE_RX);
	assert_int_equal(irqtable_find_queue(source_interrupts_table(&w.src), "eth2", 3, q, 4), 1);
	assert_string_equal(q[0]->name, "i40e-eth2-TxRx-3");
	assert_int_equal(irqtable_find_queue(source_interrupts_table(&w.src), "eth4", 2, q, 4), 1);
	assert_int_equal(irqtable_find_queue(source_interrupts_table(&w.src), "eth5", 1, q, 4), 1);
	assert_int_equal(irqtable_find_queue(source_interrupts_table(&w.src), "ens5", 3, q, 4), 1);
	assert_int_equal(irqtable_find_queue(source_interrupts_table(&w.src), "eth3", 3, q, 4), 1);
	assert_int_equal(irqtable_find_queue(source_interrupts_table(&w.src), "eth9", 0, q, 4), 0);

	/* Legacy and shared lines. */
	info = irqtable_find_irq(source_interrupts_table(&w.src), 9);
	assert_string_equal(info->chip, "IR-IO-APIC");
	assert_string_equal(info->trigger, "fasteoi");
	assert_string_equal(info->name, "acpi");
	assert_int_equal(info->queue.dev_kind, IRQ_DEV_NONE);
	info = irqtable_find_irq(source_interrupts_table(&w.src), js_irq(&w, "PCIe PME, pciehp"));
	assert_string_equal(info->name, "PCIe PME, pciehp");
	assert_true(cpuset_count(&info->affinity) == 16);
	assert_int_equal(cpuset_count(&info->effective), 1);

	/* Arch lines. */
	info = irqtable_find_label(source_interrupts_table(&w.src), "LOC");
	assert_int_equal(info->irq, -1);
	assert_string_equal(info->name, "Local timer interrupts");
	assert_string_equal(info->chip, "");
	assert_false(info->has_affinity);
	for (unsigned c = 0; c < 16; c++)
		assert_int_not_equal(info->cpu_series[c], SERIES_NONE);
	info = irqtable_find_label(source_interrupts_table(&w.src), "ERR");
	assert_int_equal(info->total, harness_find(&w, "irq.ERR.total"));
	for (unsigned c = 0; c < 16; c++)
		assert_int_equal(info->cpu_series[c], SERIES_NONE);
	assert_int_equal(series_find(&w.reg, "irq.ERR.cpu0"), SERIES_NONE);

	/* A profile moved queue 7: refresh reads the files again. */
	snprintf(path, sizeof(path), "%s/proc/irq/%d/smp_affinity_list", w.dir, irq);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("0-3,9\n", f);
	fclose(f);
	irqtable_refresh_affinity((struct irq_table *)source_interrupts_table(&w.src),
	                          w.src.rootfd);
	info = irqtable_find_irq(source_interrupts_table(&w.src), irq);
	assert_int_equal(cpuset_count(&info->affinity), 5);
	assert_true(cpuset_has(&info->affinity, 9));
	harness_free(&w);
}

/* CPU 3 goes offline (its column and its series go), then comes back (same ids). */
static void
test_cpu_offline(void **state)
{
	const struct irq_info *loc;
	series_id loc3, loc4;
	struct world w;
	size_t n;

	(void)state;
	harness_init(&w, &source_interrupts_ops, NULL);
	harness_gen(&w, "--cpus 8 --queues 8 --irqs 80 --only interrupts,irq");
	harness_start(&w);
	harness_sample(&w);
	loc3 = harness_find(&w, "irq.LOC.cpu3");
	loc4 = harness_find(&w, "irq.LOC.cpu4");

	harness_gen(&w, "--cpus 8 --queues 8 --irqs 80 --only interrupts --offline 3");
	harness_sample(&w);
	irqs_of(&w.src, &n);
	/* Every per-CPU line loses its CPU 3 cell: all lines but ERR and MIS. */
	assert_int_equal(w.sink.ngone, n - 2);
	assert_true(w.sink.gone[loc3]);
	assert_false(w.sink.gone[loc4]);
	loc = irqtable_find_label(source_interrupts_table(&w.src), "LOC");
	assert_int_equal(loc->cpu_series[3], SERIES_NONE);
	assert_int_equal(loc->cpu_series[4], loc4);
	harness_check_values(&w, "irq.");
	harness_check_absent(&w, "irq.");
	/* The columns after the gap map to the right CPUs. */
	assert_int_equal(w.sink.val[loc4], 10000000 + 4000);

	harness_gen(&w, "--cpus 8 --queues 8 --irqs 80 --only interrupts --step 1");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_true(w.sink.put[loc3]);
	assert_int_equal(harness_find(&w, "irq.LOC.cpu3"), loc3);
	assert_true(series_get(&w.reg, loc3)->live);
	assert_int_equal(irqtable_find_label(source_interrupts_table(&w.src), "LOC")->cpu_series[3],
	                 loc3);
	harness_check_values(&w, "irq.");
	harness_free(&w);
}

/* IRQs freed in the middle and at the end of the table, then requested again. */
static void
test_irq_freed(void **state)
{
	series_id id;
	struct world w;
	size_t n;

	(void)state;
	harness_init(&w, &source_interrupts_ops, NULL);
	harness_gen(&w, "--cpus 8 --queues 8 --irqs 100 --only interrupts,irq");
	harness_start(&w);
	harness_sample(&w);
	id = harness_find(&w, "irq.40.cpu3");

	harness_gen(&w, "--cpus 8 --queues 8 --irqs 100 --only interrupts,irq --free 40,41");
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 0); /* same step: nothing else changed */
	assert_int_equal(w.sink.ngone, 2 * 8);
	assert_true(w.sink.gone[id]);
	assert_null(irqtable_find_irq(source_interrupts_table(&w.src), 40));
	irqs_of(&w.src, &n);
	assert_int_equal(n, (size_t)json_object_get_int(harness_js(w.js, "lines")));
	harness_check_absent(&w, "irq.");

	harness_gen(&w, "--cpus 8 --queues 8 --irqs 100 --only interrupts,irq");
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 2 * 8);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(harness_find(&w, "irq.40.cpu3"), id);
	assert_non_null(irqtable_find_irq(source_interrupts_table(&w.src), 40));
	assert_true(irqtable_find_irq(source_interrupts_table(&w.src), 40)->has_affinity);

	/* The last two NVMe lines (just before the arch lines) freed, at step 1. */
	harness_gen(&w, "--cpus 8 --queues 8 --irqs 98 --only interrupts,irq --step 1");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 2 * 8);
	irqs_of(&w.src, &n);
	assert_int_equal(n, 98);
	harness_check_values(&w, "irq.");
	harness_free(&w);
}

/* The odd layouts: offline CPUs, a line without counts, a single-count IRQ, 2 KB of action
 * names, arm IPI lines, and a file cut mid-line. */
static void
test_odd(void **state)
{
	const struct irq_info *info;
	struct world w;
	char name[64];
	size_t n;
	int irq;

	(void)state;
	harness_init(&w, &source_interrupts_ops, NULL);
	harness_gen(&w, "--cpus 8 --queues 8 --irqs 80 --odd --only interrupts,irq");
	harness_start(&w);
	harness_sample(&w);
	harness_check_values(&w, "irq.");
	harness_check_absent(&w, "irq.");
	irqs_of(&w.src, &n);
	/* The cut line is not in the table on the first read. */
	assert_int_equal(n, (size_t)json_object_get_int(harness_js(w.js, "lines")) - 1);
	assert_null(irqtable_find_label(source_interrupts_table(&w.src), "PIW"));
	assert_non_null(irqtable_find_label(source_interrupts_table(&w.src), "NPI"));

	irq = json_object_get_int(harness_js(harness_js(w.js, "odd"), "nocount_irq"));
	info = irqtable_find_irq(source_interrupts_table(&w.src), irq);
	assert_non_null(info);
	assert_string_equal(info->name, "gpio-chained");
	assert_string_equal(info->chip, "IR-PCI-MSI-0000:00:1f.0");
	assert_int_equal(info->total, SERIES_NONE);
	for (unsigned c = 0; c < info->ncpus; c++)
		assert_int_equal(info->cpu_series[c], SERIES_NONE);

	irq = json_object_get_int(harness_js(harness_js(w.js, "odd"), "single_irq"));
	snprintf(name, sizeof(name), "irq.%d.total", irq);
	info = irqtable_find_irq(source_interrupts_table(&w.src), irq);
	assert_int_equal(info->total, harness_find(&w, name));
	assert_int_equal(w.sink.val[info->total], 77);
	assert_string_equal(info->name, "single-count");

	irq = json_object_get_int(harness_js(harness_js(w.js, "odd"), "long_irq"));
	info = irqtable_find_irq(source_interrupts_table(&w.src), irq);
	assert_int_equal(strlen(info->name),
	                 json_object_get_int(harness_js(harness_js(w.js, "odd"), "long_name_len")));
	assert_string_equal(info->queue.device, "eth10");
	assert_int_equal(info->queue.index, 0);

	info = irqtable_find_label(source_interrupts_table(&w.src), "IPI0");
	assert_int_equal(info->irq, -1);
	assert_string_equal(info->name, "Rescheduling interrupts");
	assert_int_equal(info->cpu_series[3], SERIES_NONE); /* offline */
	assert_int_not_equal(info->cpu_series[4], SERIES_NONE);

	harness_gen(&w, "--cpus 8 --queues 8 --irqs 80 --odd --only interrupts --step 1");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	harness_check_values(&w, "irq.");
	irq = json_object_get_int(harness_js(harness_js(w.js, "odd"), "single_irq"));
	assert_int_equal(w.sink.val[irqtable_find_irq(source_interrupts_table(&w.src), irq)->total],
	                 78);

	/* The whole file again: the last line appears; then cut again: nothing goes. */
	harness_gen(&w, "--cpus 8 --queues 8 --irqs 80 --offline 3,5 --only interrupts --step 1");
	harness_sample(&w);
	assert_non_null(irqtable_find_label(source_interrupts_table(&w.src), "PIW"));
	harness_gen(&w, "--cpus 8 --queues 8 --irqs 80 --odd --only interrupts --step 2");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_non_null(irqtable_find_label(source_interrupts_table(&w.src), "PIW"));
	harness_check_values(&w, "irq.");
	harness_free(&w);
}

/* Hand-written layouts: cells changing width in place, a line growing, lines reordered,
 * the same label twice, a CPU header that only moves, an empty file. */
static void
test_handmade(void **state)
{
	struct nm_error err;
	struct world w;
	series_id a0, a1, b1;

	(void)state;
	harness_init(&w, &source_interrupts_ops, NULL);
	harness_mkdir(&w, "proc");
	harness_write(&w, "proc/interrupts",
	              "     CPU0 CPU1\n"
	              "  1:    9    1  chip  1-edge  eth0-TxRx-0\n"
	              "  2:    5    6  chip  2-edge  eth0-TxRx-1\n");
	harness_start(&w);
	harness_sample(&w);
	a0 = harness_find(&w, "irq.1.cpu0");
	a1 = harness_find(&w, "irq.1.cpu1");
	b1 = harness_find(&w, "irq.2.cpu1");
	assert_int_equal(w.sink.nput, 4);
	/* 9 -> 10 in the same width: only that cell. */
	harness_write(&w, "proc/interrupts",
	              "     CPU0 CPU1\n"
	              "  1:   10    1  chip  1-edge  eth0-TxRx-0\n"
	              "  2:    5    6  chip  2-edge  eth0-TxRx-1\n");
	harness_sample(&w);
	assert_int_equal(w.sink.nput, 1);
	assert_int_equal(w.sink.val[a0], 10);
	/* Two tokens where there was one: a full parse, not a misread. */
	harness_write(&w, "proc/interrupts",
	              "     CPU0 CPU1\n"
	              "  1:  1 3    1  chip  1-edge  eth0-TxRx-0\n"
	              "  2:    5    6  chip  2-edge  eth0-TxRx-1\n");
	harness_sample(&w);
	assert_int_equal(w.sink.val[a0], 1);
	assert_int_equal(w.sink.val[a1], 3);
	/* A longer line and the lines swapped: values follow the labels. */
	harness_write(&w, "proc/interrupts",
	              "     CPU0 CPU1\n"
	              "  2:    5    7  chip  2-edge  eth0-TxRx-1\n"
	              "  1: 123456789    2  chip  1-edge  eth0-TxRx-0\n");
	harness_sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(w.sink.val[a0], 123456789);
	assert_int_equal(w.sink.val[a1], 2);
	assert_int_equal(w.sink.val[b1], 7);
	assert_int_equal(irqs_of(&w.src, &(size_t){0})[0].irq, 2);
	/* The same label twice: the first one counts. The header only moved. */
	harness_write(&w, "proc/interrupts",
	              "   CPU0   CPU1\n"
	              "  2:    5    8  chip  2-edge  eth0-TxRx-1\n"
	              "  2:    5    9  chip  2-edge  eth0-TxRx-1\n"
	              "  1: 123456789    2  chip  1-edge  eth0-TxRx-0\n");
	harness_sample(&w);
	assert_int_equal(w.sink.val[b1], 8);
	assert_int_equal(w.sink.ngone, 0);
	/* A new chip and name: the description is parsed again. */
	harness_write(&w, "proc/interrupts",
	              "   CPU0   CPU1\n"
	              "  2:    5    8  chip  2-edge  eth0-TxRx-1\n"
	              "  1: 123456789    2  GICv3  27 Level     arch_timer\n");
	harness_sample(&w);
	assert_string_equal(irqtable_find_irq(source_interrupts_table(&w.src), 1)->chip, "GICv3");
	assert_string_equal(irqtable_find_irq(source_interrupts_table(&w.src), 1)->hwirq, "27");
	assert_string_equal(irqtable_find_irq(source_interrupts_table(&w.src), 1)->trigger,
	                    "Level");
	assert_string_equal(irqtable_find_irq(source_interrupts_table(&w.src), 1)->name,
	                    "arch_timer");
	assert_int_equal(irqtable_find_irq(source_interrupts_table(&w.src), 1)->queue.index, -1);
	/* Old single-token chip-trigger form. */
	harness_write(&w, "proc/interrupts",
	              "   CPU0   CPU1\n"
	              "  2:    5    8  chip  2-edge  eth0-TxRx-1\n"
	              "  1: 123456789    2  IO-APIC-edge  timer\n");
	harness_sample(&w);
	assert_string_equal(irqtable_find_irq(source_interrupts_table(&w.src), 1)->chip, "IO-APIC");
	assert_string_equal(irqtable_find_irq(source_interrupts_table(&w.src), 1)->trigger, "edge");
	assert_string_equal(irqtable_find_irq(source_interrupts_table(&w.src), 1)->name, "timer");
	/* An empty file has no header: an error, and the table stays. */
	harness_write(&w, "proc/interrupts", "");
	assert_int_equal(w.src.ops->sample(&w.src, &w.sink, &err), -1);
	assert_string_equal(err.message, "source interrupts: proc/interrupts: no CPU header");
	assert_non_null(irqtable_find_irq(source_interrupts_table(&w.src), 1));
	harness_free(&w);
}

/* A root without /proc/interrupts. */
static void
test_missing(void **state)
{
	struct world w;

	(void)state;
	harness_init_missing(&w, &source_interrupts_ops,
	                     "source interrupts: proc/interrupts: No such file or directory");
	assert_int_equal(source_interrupts_table(&w.src)->n, 0);
	harness_free(&w);
}

/* This machine's /proc: LOC has a cell per online CPU, counts move, the second sample puts
 * fewer cells than the first. */
static void
test_host(void **state)
{
	static const char *const per_cpu[] = {"irq.LOC.cpu%ld"};
	const struct irq_info *loc, *irqs;
	struct world w;
	size_t first, n, numeric = 0;
	long ncpu;

	(void)state;
	ncpu = harness_init_host_cpus(&w, &source_interrupts_ops, per_cpu, 1);
	first = w.sink.nput;
	loc = irqtable_find_label(source_interrupts_table(&w.src), "LOC");
	assert_non_null(loc);
	assert_int_equal(loc->irq, -1);
	assert_string_equal(loc->name, "Local timer interrupts");
	for (long c = 0; c < ncpu; c++) {
		assert_int_not_equal(loc->cpu_series[c], SERIES_NONE);
		assert_true(w.sink.put[loc->cpu_series[c]]);
	}
	assert_true(w.sink.val[loc->cpu_series[0]] > 0);
	irqs = irqs_of(&w.src, &n);
	for (size_t i = 0; i < n; i++) {
		if (irqs[i].irq >= 0) {
			numeric++;
			assert_true(irqs[i].has_affinity);
			assert_false(cpuset_empty(&irqs[i].affinity));
		}
	}
	assert_true(numeric > 0);
	usleep(20000);
	harness_sample(&w);
	assert_true(w.sink.nput < first);
	harness_free(&w);
}

/* The intr line of w's proc/stat, allocated. */
static char *
intr_line(struct world *w)
{
	char path[512], *buf = NULL, *line, *eol;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/stat", w->dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (getline(&buf, &cap, f) > 0 && strncmp(buf, "intr ", 5) != 0)
		;
	fclose(f);
	assert_memory_equal(buf, "intr ", 5);
	eol = strchr(buf, '\n');
	line = strndup(buf, eol != NULL ? (size_t)(eol - buf) : strlen(buf));
	free(buf);
	return line;
}

/* Sample w as the sampler does at time t, the cpu source having read line at read_ns. */
static void
sample_with(struct world *w, struct stat_intr *si, const char *line, uint64_t read_ns, uint64_t t)
{
	*si = (struct stat_intr){line, strlen(line), read_ns};
	w->src.stat_intr = si;
	w->src.sample_ns = t;
	harness_sample(w);
}

/* A number of describe. */
static size_t
described(struct world *w, const char *key)
{
	json_object *o = w->src.ops->describe(&w->src);
	size_t v = (size_t)json_object_get_int64(harness_js(o, key));

	json_object_put(o);
	return v;
}

/* The numbered lines /proc/stat gives a total for: the ones that can be left unread. */
static size_t
lines_with_total(struct world *w, const char *line)
{
	size_t n, ntotals = 0, with = 0;
	const struct irq_info *irqs = irqs_of(&w->src, &n);

	for (const char *p = line + 4; *p != '\0'; p++)
		ntotals += *p == ' ';
	ntotals--; /* the first number is the sum */
	for (size_t i = 0; i < n; i++)
		with += irqs[i].irq >= 0 && (size_t)irqs[i].irq < ntotals;
	return with;
}

/* A series of prefix that moved between the summary's step and the one before. */
static const char *
moved_series(struct world *w, const char *prefix)
{
	json_object_object_foreach(harness_js(w->js, "deltas"), name, d)
	{
		if (strncmp(name, prefix, strlen(prefix)) == 0 && json_object_get_int64(d) != 0)
			return name;
	}
	fail_msg("no %s series moved", prefix);
	return NULL;
}

#define GEN_TOTALS "--cpus 16 --queues 16 --irqs 200 --only interrupts,stat,irq"

/* Generate the GEN_TOTALS fixture into w (initialised), start the source and sample it at
 * 1 s with the fixture's own intr line, which it returns (allocated). */
static char *
start_totals(struct world *w, struct stat_intr *si)
{
	char *line;

	harness_gen(w, GEN_TOTALS);
	line = intr_line(w);
	harness_start(w);
	sample_with(w, si, line, 1000000000, 1000000000);
	return line;
}

/* With /proc/stat's intr line, the lines of IRQs whose total did not move are left unread:
 * the values stay exact. An interrupt counted after the cpu source's read (its total has not
 * moved yet) is reported at the next sample, when it has. A line whose total is too old is
 * not taken. */
static void
test_totals(void **state)
{
	struct stat_intr si;
	char *line0, *line1, *line2;
	const char *mover, *loc;
	size_t with;
	struct world w;
	uint64_t v0;

	(void)state;
	harness_init(&w, &source_interrupts_ops, NULL);
	/* The first line taken has nothing to compare with: every line is read. */
	line0 = start_totals(&w, &si);
	harness_check_values(&w, "irq.");
	assert_int_equal(described(&w, "lines_skipped"), 0);
	with = lines_with_total(&w, line0);
	assert_true(with > 150);

	/* Nothing moved: every line with a total is left unread, and nothing is put. */
	sample_with(&w, &si, line0, 2000000000, 2000000000);
	assert_int_equal(w.sink.nput, 0);
	assert_int_equal(described(&w, "lines_skipped"), with);

	/* Step 1 in /proc/interrupts, but the totals still of step 0 (counted in between). */
	harness_gen(&w, GEN_TOTALS " --step 1");
	line1 = intr_line(&w);
	mover = moved_series(&w, "irq.5");
	v0 = harness_value(&w, mover);
	sample_with(&w, &si, line0, 3000000000, 3000000001);
	assert_int_equal(described(&w, "lines_skipped"), with);
	assert_true(harness_value(&w, mover) == v0); /* not yet */
	loc = moved_series(&w, "irq.LOC.");          /* no total: always read */
	assert_true(w.sink.put[harness_find(&w, loc)]);
	assert_true(harness_value(&w, loc) ==
	            harness_js_u64(harness_js(harness_js(w.js, "values"), loc)));

	/* The totals of step 1: every moved line is compared with what was last handled. */
	sample_with(&w, &si, line1, 4000000000, 4000000001);
	harness_check_values(&w, "irq.");
	assert_true(harness_value(&w, mover) != v0);
	assert_true(described(&w, "lines_skipped") < with);
	assert_true(described(&w, "lines_skipped") > with / 2);
	sample_with(&w, &si, line1, 5000000000, 5000000000);
	assert_int_equal(w.sink.nput, 0);

	/* Step 2 with its own totals. */
	harness_gen(&w, GEN_TOTALS " --step 2");
	line2 = intr_line(&w);
	sample_with(&w, &si, line2, 6000000000, 6000000000);
	harness_check_values(&w, "irq.");

	/* A line read 3 ms before, or one already taken, is not used: all is compared. */
	harness_gen(&w, GEN_TOTALS " --step 3");
	sample_with(&w, &si, line2, 6997000000, 7000000000);
	assert_int_equal(described(&w, "lines_skipped"), 0);
	harness_check_values(&w, "irq.");
	harness_gen(&w, GEN_TOTALS " --step 4");
	sample_with(&w, &si, line2, 6000000000, 8000000000);
	assert_int_equal(described(&w, "lines_skipped"), 0);
	harness_check_values(&w, "irq.");
	free(line0);
	free(line1);
	free(line2);
	harness_free(&w);
}

/* stat-totals = no compares every line; a value that is not a boolean is refused. */
static void
test_totals_off(void **state)
{
	struct stat_intr si;
	struct nm_error err;
	struct world w;
	char *line0;

	(void)state;
	harness_init(&w, &source_interrupts_ops, NULL);
	assert_int_equal(w.src.ops->configure(&w.src, "stat-totals", "maybe", &err), -1);
	assert_non_null(strstr(err.message, "stat-totals = maybe"));
	assert_int_equal(w.src.ops->configure(&w.src, "stat-total", "no", &err), -1);
	harness_configure(&w, "stat-totals", "no");
	line0 = start_totals(&w, &si);
	sample_with(&w, &si, line0, 2000000000, 2000000000);
	assert_int_equal(described(&w, "lines_skipped"), 0);
	assert_int_equal(w.sink.nput, 0);
	harness_gen(&w, GEN_TOTALS " --step 1");
	sample_with(&w, &si, line0, 3000000000, 3000000000);
	harness_check_values(&w, "irq."); /* stale totals do not matter */
	free(line0);
	harness_free(&w);
}

/* A line left unread on its total is still checked where counts do not change it: a new
 * action name of the same length is seen, and so is a line that moved. */
static void
test_totals_text(void **state)
{
	const struct irq_info *info;
	struct stat_intr si;
	struct world w;
	char *line0;
	int irq;

	(void)state;
	harness_init(&w, &source_interrupts_ops, NULL);
	line0 = start_totals(&w, &si);
	sample_with(&w, &si, line0, 2000000000, 2000000000);
	irq = js_irq(&w, "mlx5_comp12@pci:0000:08:00.0");
	info = irqtable_find_irq(source_interrupts_table(&w.src), irq);
	assert_non_null(info);
	assert_int_equal(info->queue.index, 12);

	harness_edit(&w, "proc/interrupts", "mlx5_comp12@pci:0000:08:00.0",
	             "mlx5_comp13@pci:0000:08:00.0");
	sample_with(&w, &si, line0, 3000000000, 3000000000);
	info = irqtable_find_irq(source_interrupts_table(&w.src), irq);
	assert_string_equal(info->name, "mlx5_comp13@pci:0000:08:00.0");
	assert_int_equal(info->queue.index, 13);
	assert_int_equal(w.sink.nput, 16); /* that line parsed in full, no other */
	harness_check_values(&w, "irq.");
	free(line0);
	harness_free(&w);
}

/* Lines left unread with counts their totals do not show yet, then a line freed after them:
 * the walk that takes over keeps the text those lines were last handled with, so the
 * counts come at the next sample all the same. */
static void
test_totals_relayout(void **state)
{
	struct stat_intr si;
	const char *mover;
	struct world w;
	char *line0, *line1;
	uint64_t v0;

	(void)state;
	harness_init(&w, &source_interrupts_ops, NULL);
	line0 = start_totals(&w, &si);
	sample_with(&w, &si, line0, 2000000000, 2000000000);

	harness_gen(&w, "--cpus 16 --queues 16 --irqs 198 --only interrupts,stat,irq --step 1");
	line1 = intr_line(&w);
	mover = moved_series(&w, "irq.5");
	v0 = harness_value(&w, mover);
	sample_with(&w, &si, line0, 3000000000, 3000000000);
	assert_true(w.sink.ngone > 0); /* the freed lines */
	assert_true(harness_value(&w, mover) == v0);

	sample_with(&w, &si, line1, 4000000000, 4000000000);
	harness_check_values(&w, "irq.");
	harness_check_absent(&w, "irq.");
	assert_true(described(&w, "lines_skipped") > 0);
	free(line0);
	free(line1);
	harness_free(&w);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_steps),
	    cmocka_unit_test(test_irq_table),
	    cmocka_unit_test(test_cpu_offline),
	    cmocka_unit_test(test_irq_freed),
	    cmocka_unit_test(test_odd),
	    cmocka_unit_test(test_handmade),
	    cmocka_unit_test(test_missing),
	    cmocka_unit_test(test_host),
	    cmocka_unit_test(test_totals),
	    cmocka_unit_test(test_totals_text),
	    cmocka_unit_test(test_totals_relayout),
	    cmocka_unit_test(test_totals_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
