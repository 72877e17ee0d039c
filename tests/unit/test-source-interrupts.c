/* test-source-interrupts.c: /proc/interrupts parsing, on fixtures from gen-host.py and on
 * this machine's /proc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "procparse.h"
#include "series.h"
#include "sink.h"
#include "source-interrupts.h"
#include "source.h"

/* The test double of the sampler's sink: the last value put per id, and what this sample
 * put and declared gone. */
struct sink {
	uint64_t *val;
	uint8_t *put, *gone;
	size_t cap;
	size_t nput, ngone;
};

/* Grow the sink's arrays to hold id. */
static void
sink_reserve(struct sink *s, series_id id)
{
	size_t cap = s->cap ? s->cap : 1024;

	if (id < s->cap)
		return;
	while (cap <= id)
		cap *= 2;
	s->val = realloc(s->val, cap * sizeof(*s->val));
	s->put = realloc(s->put, cap);
	s->gone = realloc(s->gone, cap);
	memset(s->val + s->cap, 0, (cap - s->cap) * sizeof(*s->val));
	memset(s->put + s->cap, 0, cap - s->cap);
	memset(s->gone + s->cap, 0, cap - s->cap);
	s->cap = cap;
}

/* Record a value put. */
void
sink_put(struct sink *s, series_id id, uint64_t raw)
{
	sink_reserve(s, id);
	s->val[id] = raw;
	s->put[id] = 1;
	s->nput++;
}

/* Record a series declared gone. */
void
sink_gone(struct sink *s, series_id id)
{
	sink_reserve(s, id);
	s->gone[id] = 1;
	s->ngone++;
}

/* Forget what the last sample put (values stay). */
static void
sink_clear(struct sink *s)
{
	if (s->cap) {
		memset(s->put, 0, s->cap);
		memset(s->gone, 0, s->cap);
	}
	s->nput = s->ngone = 0;
}

/* Free the sink's arrays. */
static void
sink_free(struct sink *s)
{
	free(s->val);
	free(s->put);
	free(s->gone);
	memset(s, 0, sizeof(*s));
}

/* One test's world: a fixture dir, a registry, the source and the sink. */
struct world {
	char dir[64];
	struct series_registry reg;
	struct source src;
	struct sink sink;
	json_object *js; /* the last gen-host.py summary */
};

/* Run gen-host.py into the world's dir and keep its summary. */
static void
gen(struct world *w, const char *args)
{
	char cmd[1024], *out = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "python3 -S %s/gen-host.py %s --json %s", FIXTURE_DIR, w->dir,
	         args);
	f = popen(cmd, "r");
	assert_non_null(f);
	do {
		if (len + 65536 > cap) {
			cap = cap ? cap * 2 : 1 << 20;
			out = realloc(out, cap);
		}
		n = fread(out + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	out[len] = '\0';
	assert_int_equal(pclose(f), 0);
	if (w->js)
		json_object_put(w->js);
	w->js = json_tokener_parse(out);
	assert_non_null(w->js);
	free(out);
}

/* Set up a world on root (NULL: a new temporary fixture dir). */
static void
world_open(struct world *w, const char *root)
{
	memset(w, 0, sizeof(*w));
	if (root == NULL) {
		strcpy(w->dir, "/tmp/nm-test-irq-XXXXXX");
		assert_non_null(mkdtemp(w->dir));
		root = w->dir;
	}
	series_registry_init(&w->reg);
	w->src.ops = &source_interrupts_ops;
	w->src.root = root;
	w->src.host = strcmp(root, "/") == 0;
	w->src.rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(w->src.rootfd >= 0);
	w->src.reg = &w->reg;
}

/* Init the source, failing the test on error. */
static void
world_init(struct world *w)
{
	struct nm_error err;

	nm_error_clear(&err);
	if (w->src.ops->init(&w->src, &err) < 0)
		fail_msg("init: %s", err.message);
}

/* One sample into a cleared sink. */
static void
sample(struct world *w)
{
	struct nm_error err;

	nm_error_clear(&err);
	sink_clear(&w->sink);
	if (w->src.ops->sample(&w->src, &w->sink, &err) < 0)
		fail_msg("sample: %s", err.message);
}

/* Tear a world down and remove its fixture dir. */
static void
world_close(struct world *w)
{
	char cmd[128];

	w->src.ops->free(&w->src);
	close(w->src.rootfd);
	series_registry_free(&w->reg);
	sink_free(&w->sink);
	if (w->js)
		json_object_put(w->js);
	if (w->dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", w->dir);
		assert_int_equal(system(cmd), 0);
	}
}

/* The id of a series that must exist. */
static series_id
must_find(struct world *w, const char *name)
{
	series_id id = series_find(&w->reg, name);

	if (id == SERIES_NONE)
		fail_msg("no series %s", name);
	return id;
}

/* A member of the summary. */
static json_object *
js_get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("summary has no %s", key);
	return v;
}

/* The IRQ number gen-host.py gave an action name. */
static int
js_irq(struct world *w, const char *name)
{
	return json_object_get_int(js_get(js_get(w->js, "irqs"), name));
}

/* A summary number as 64 bits: json-c keeps values past 2^63 as unsigned, negative ones
 * (gauge deltas) as signed. */
static uint64_t
js_u64(json_object *v)
{
	int64_t i = json_object_get_int64(v);

	return i == INT64_MAX ? json_object_get_uint64(v) : (uint64_t)i;
}

/* Check every summary value of a series starting with prefix against what was put. */
static void
check_values(struct world *w, const char *prefix)
{
	json_object_object_foreach(js_get(w->js, "values"), name, v)
	{
		series_id id;

		if (strncmp(name, prefix, strlen(prefix)) != 0)
			continue;
		id = must_find(w, name);
		assert_true(id < w->sink.cap);
		if (w->sink.val[id] != js_u64(v))
			fail_msg("%s: got %llu, want %llu", name,
			         (unsigned long long)w->sink.val[id],
			         (unsigned long long)js_u64(v));
	}
}

/* The summary's absent series of a prefix exist nowhere, or are gone. */
static void
check_absent(struct world *w, const char *prefix)
{
	json_object *a = js_get(w->js, "absent");

	for (size_t i = 0; i < json_object_array_length(a); i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(a, i));
		series_id id = series_find(&w->reg, name);

		if (strncmp(name, prefix, strlen(prefix)) != 0)
			continue;
		if (id != SERIES_NONE && series_get(&w->reg, id)->live &&
		    !(id < w->sink.cap && w->sink.gone[id]))
			fail_msg("%s should be absent", name);
	}
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
	world_open(&w, NULL);
	gen(&w, "--only interrupts");
	world_init(&w);
	sample(&w);
	lines = (size_t)json_object_get_int(js_get(w.js, "lines"));
	irqs = source_interrupts_irqs(&w.src, &n);
	assert_int_equal(n, lines);
	assert_int_equal(w.sink.nput, (lines - 2) * 144 + 2); /* ERR and MIS: one total each */
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(irqs[0].irq, 0);
	assert_string_equal(irqs[n - 1].label, "PIW");
	check_values(&w, "irq.");
	wrap[0] = must_find(&w, "irq.37.cpu0"); /* mlx5_comp0: 2^32-600 */
	wrap[1] = must_find(&w, "irq.38.cpu1"); /* mlx5_comp1: wraps to exactly 0 */
	wrap[2] = must_find(&w, "irq.39.cpu2"); /* mlx5_comp2: 2^32-1 */
	assert_int_equal(js_irq(&w, "mlx5_comp0@pci:0000:08:00.0"), 37);
	for (int i = 0; i < 3; i++)
		v0[i] = w.sink.val[wrap[i]];
	assert_int_equal(v0[2], UINT32_MAX);
	changed = (size_t)json_object_get_int(js_get(w.js, "changed_cells"));

	gen(&w, "--only interrupts --step 1");
	sample(&w);
	assert_int_equal(w.sink.nput, changed);
	assert_int_equal(w.sink.ngone, 0);
	check_values(&w, "irq.");
	assert_int_equal(w.sink.val[wrap[1]], 0);
	json_object_object_foreach(js_get(w.js, "deltas"), name, d)
	{
		series_id id;

		if (strncmp(name, "irq.", 4) != 0)
			continue;
		id = must_find(&w, name);
		for (int i = 0; i < 3; i++) {
			if (id == wrap[i])
				assert_int_equal((uint32_t)(w.sink.val[id] - v0[i]),
				                 json_object_get_int64(d));
		}
	}
	assert_int_equal((uint32_t)(w.sink.val[wrap[0]] - v0[0]), 1000);

	/* Unchanged file: nothing is put. */
	sample(&w);
	assert_int_equal(w.sink.nput, 0);
	/* Back to step 0: the same cells change back. */
	gen(&w, "--only interrupts --step 0");
	sample(&w);
	assert_int_equal(w.sink.nput, changed);
	check_values(&w, "irq.");
	world_close(&w);
}

/* Chip, hwirq, names, device and queue, affinity and per-CPU series of fixture IRQs. */
static void
test_irq_table(void **state)
{
	const struct irq_info *q[4], *info;
	struct world w;
	struct nm_error err;
	char path[128], name[64];
	int irq;
	FILE *f;

	(void)state;
	world_open(&w, NULL);
	gen(&w, "--cpus 16 --queues 16 --irqs 200 --only interrupts,irq");
	world_init(&w);
	sample(&w);

	irq = js_irq(&w, "mlx5_comp7@pci:0000:08:00.0");
	assert_int_equal(source_interrupts_find_queue(&w.src, "0000:08:00.0", 7, q, 4), 1);
	info = q[0];
	assert_int_equal(info->irq, irq);
	assert_ptr_equal(source_interrupts_find_irq(&w.src, irq), info);
	snprintf(name, sizeof(name), "%d", irq);
	assert_ptr_equal(source_interrupts_find_label(&w.src, name), info);
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
	assert_int_equal(info->cpu_series[7], must_find(&w, name));

	/* The second port: same queue number, other device. */
	assert_int_equal(source_interrupts_find_queue(&w.src, "0000:08:00.1", 7, q, 4), 1);
	assert_int_equal(q[0]->irq, js_irq(&w, "mlx5_comp7@pci:0000:08:00.1"));
	/* The async vector names the device but no queue. */
	info = source_interrupts_find_irq(&w.src, js_irq(&w, "mlx5_async0@pci:0000:08:00.0"));
	assert_non_null(info);
	assert_string_equal(info->queue.device, "0000:08:00.0");
	assert_int_equal(info->queue.index, -1);
	/* Separate rx and tx IRQs of one queue. */
	assert_int_equal(source_interrupts_find_queue(&w.src, "eth6", 1, q, 4), 2);
	assert_int_equal(q[0]->queue.kind, IRQ_QUEUE_RX);
	assert_int_equal(q[1]->queue.kind, IRQ_QUEUE_TX);
	assert_int_equal(source_interrupts_find_queue(&w.src, "virtio2", 0, q, 1), 2);
	assert_int_equal(q[0]->queue.kind, IRQ_QUEUE_RX);
	assert_int_equal(source_interrupts_find_queue(&w.src, "eth2", 3, q, 4), 1);
	assert_string_equal(q[0]->name, "i40e-eth2-TxRx-3");
	assert_int_equal(source_interrupts_find_queue(&w.src, "eth4", 2, q, 4), 1);
	assert_int_equal(source_interrupts_find_queue(&w.src, "eth5", 1, q, 4), 1);
	assert_int_equal(source_interrupts_find_queue(&w.src, "ens5", 3, q, 4), 1);
	assert_int_equal(source_interrupts_find_queue(&w.src, "eth3", 3, q, 4), 1);
	assert_int_equal(source_interrupts_find_queue(&w.src, "eth9", 0, q, 4), 0);

	/* Legacy and shared lines. */
	info = source_interrupts_find_irq(&w.src, 9);
	assert_string_equal(info->chip, "IR-IO-APIC");
	assert_string_equal(info->trigger, "fasteoi");
	assert_string_equal(info->name, "acpi");
	assert_int_equal(info->queue.dev_kind, IRQ_DEV_NONE);
	info = source_interrupts_find_irq(&w.src, js_irq(&w, "PCIe PME, pciehp"));
	assert_string_equal(info->name, "PCIe PME, pciehp");
	assert_true(cpuset_count(&info->affinity) == 16);
	assert_int_equal(cpuset_count(&info->effective), 1);

	/* Arch lines. */
	info = source_interrupts_find_label(&w.src, "LOC");
	assert_int_equal(info->irq, -1);
	assert_string_equal(info->name, "Local timer interrupts");
	assert_string_equal(info->chip, "");
	assert_false(info->has_affinity);
	for (unsigned c = 0; c < 16; c++)
		assert_int_not_equal(info->cpu_series[c], SERIES_NONE);
	info = source_interrupts_find_label(&w.src, "ERR");
	assert_int_equal(info->total, must_find(&w, "irq.ERR.total"));
	for (unsigned c = 0; c < 16; c++)
		assert_int_equal(info->cpu_series[c], SERIES_NONE);
	assert_int_equal(series_find(&w.reg, "irq.ERR.cpu0"), SERIES_NONE);

	/* A profile moved queue 7: refresh reads the files again. */
	snprintf(path, sizeof(path), "%s/proc/irq/%d/smp_affinity_list", w.dir, irq);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("0-3,9\n", f);
	fclose(f);
	assert_int_equal(source_interrupts_refresh_affinity(&w.src, &err), 0);
	info = source_interrupts_find_irq(&w.src, irq);
	assert_int_equal(cpuset_count(&info->affinity), 5);
	assert_true(cpuset_has(&info->affinity, 9));
	world_close(&w);
}

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
	    {"nvme12q0", true, "nvme12", IRQ_DEV_BLOCK, IRQ_QUEUE_IO, 0},
	    /* Shared IRQ: the first name that matches wins. */
	    {"ehci_hcd:usb1, eth1-TxRx-0", true, "eth1", IRQ_DEV_NETDEV, IRQ_QUEUE_TXRX, 0},
	    {"PCIe PME, pciehp", false, "", IRQ_DEV_NONE, IRQ_QUEUE_NONE, -1},
	    {"i40e-0000:3b:00.0:misc", false, "", IRQ_DEV_NONE, IRQ_QUEUE_NONE, -1},
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
		bool m = source_interrupts_parse_name(cases[i].name, strlen(cases[i].name), &q);

		if (m != cases[i].match || strcmp(q.device, cases[i].device) != 0 ||
		    q.dev_kind != cases[i].dev_kind || q.kind != cases[i].kind ||
		    q.index != cases[i].index)
			fail_msg("%s: got %d %s %d %d %d", cases[i].name, m, q.device, q.dev_kind,
			         q.kind, q.index);
	}
	/* Only len bytes are read. */
	assert_true(source_interrupts_parse_name("eth0-rx-12", 9, &q));
	assert_int_equal(q.index, 1);
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
	world_open(&w, NULL);
	gen(&w, "--cpus 8 --queues 8 --irqs 80 --only interrupts,irq");
	world_init(&w);
	sample(&w);
	loc3 = must_find(&w, "irq.LOC.cpu3");
	loc4 = must_find(&w, "irq.LOC.cpu4");

	gen(&w, "--cpus 8 --queues 8 --irqs 80 --only interrupts --offline 3");
	sample(&w);
	source_interrupts_irqs(&w.src, &n);
	/* Every per-CPU line loses its CPU 3 cell: all lines but ERR and MIS. */
	assert_int_equal(w.sink.ngone, n - 2);
	assert_true(w.sink.gone[loc3]);
	assert_false(w.sink.gone[loc4]);
	loc = source_interrupts_find_label(&w.src, "LOC");
	assert_int_equal(loc->cpu_series[3], SERIES_NONE);
	assert_int_equal(loc->cpu_series[4], loc4);
	check_values(&w, "irq.");
	check_absent(&w, "irq.");
	/* The columns after the gap map to the right CPUs. */
	assert_int_equal(w.sink.val[loc4], 10000000 + 4000);

	gen(&w, "--cpus 8 --queues 8 --irqs 80 --only interrupts --step 1");
	sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_true(w.sink.put[loc3]);
	assert_int_equal(must_find(&w, "irq.LOC.cpu3"), loc3);
	assert_true(series_get(&w.reg, loc3)->live);
	assert_int_equal(source_interrupts_find_label(&w.src, "LOC")->cpu_series[3], loc3);
	check_values(&w, "irq.");
	world_close(&w);
}

/* IRQs freed in the middle and at the end of the table, then requested again. */
static void
test_irq_freed(void **state)
{
	series_id id;
	struct world w;
	size_t n;

	(void)state;
	world_open(&w, NULL);
	gen(&w, "--cpus 8 --queues 8 --irqs 100 --only interrupts,irq");
	world_init(&w);
	sample(&w);
	id = must_find(&w, "irq.40.cpu3");

	gen(&w, "--cpus 8 --queues 8 --irqs 100 --only interrupts,irq --free 40,41");
	sample(&w);
	assert_int_equal(w.sink.nput, 0); /* same step: nothing else changed */
	assert_int_equal(w.sink.ngone, 2 * 8);
	assert_true(w.sink.gone[id]);
	assert_null(source_interrupts_find_irq(&w.src, 40));
	source_interrupts_irqs(&w.src, &n);
	assert_int_equal(n, (size_t)json_object_get_int(js_get(w.js, "lines")));
	check_absent(&w, "irq.");

	gen(&w, "--cpus 8 --queues 8 --irqs 100 --only interrupts,irq");
	sample(&w);
	assert_int_equal(w.sink.nput, 2 * 8);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(must_find(&w, "irq.40.cpu3"), id);
	assert_non_null(source_interrupts_find_irq(&w.src, 40));
	assert_true(source_interrupts_find_irq(&w.src, 40)->has_affinity);

	/* The last two NVMe lines (just before the arch lines) freed, at step 1. */
	gen(&w, "--cpus 8 --queues 8 --irqs 98 --only interrupts,irq --step 1");
	sample(&w);
	assert_int_equal(w.sink.ngone, 2 * 8);
	source_interrupts_irqs(&w.src, &n);
	assert_int_equal(n, 98);
	check_values(&w, "irq.");
	world_close(&w);
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
	world_open(&w, NULL);
	gen(&w, "--cpus 8 --queues 8 --irqs 80 --odd --only interrupts,irq");
	world_init(&w);
	sample(&w);
	check_values(&w, "irq.");
	check_absent(&w, "irq.");
	source_interrupts_irqs(&w.src, &n);
	/* The cut line is not in the table on the first read. */
	assert_int_equal(n, (size_t)json_object_get_int(js_get(w.js, "lines")) - 1);
	assert_null(source_interrupts_find_label(&w.src, "PIW"));
	assert_non_null(source_interrupts_find_label(&w.src, "NPI"));

	irq = json_object_get_int(js_get(js_get(w.js, "odd"), "nocount_irq"));
	info = source_interrupts_find_irq(&w.src, irq);
	assert_non_null(info);
	assert_string_equal(info->name, "gpio-chained");
	assert_string_equal(info->chip, "IR-PCI-MSI-0000:00:1f.0");
	assert_int_equal(info->total, SERIES_NONE);
	for (unsigned c = 0; c < info->ncpus; c++)
		assert_int_equal(info->cpu_series[c], SERIES_NONE);

	irq = json_object_get_int(js_get(js_get(w.js, "odd"), "single_irq"));
	snprintf(name, sizeof(name), "irq.%d.total", irq);
	info = source_interrupts_find_irq(&w.src, irq);
	assert_int_equal(info->total, must_find(&w, name));
	assert_int_equal(w.sink.val[info->total], 77);
	assert_string_equal(info->name, "single-count");

	irq = json_object_get_int(js_get(js_get(w.js, "odd"), "long_irq"));
	info = source_interrupts_find_irq(&w.src, irq);
	assert_int_equal(strlen(info->name),
	                 json_object_get_int(js_get(js_get(w.js, "odd"), "long_name_len")));
	assert_string_equal(info->queue.device, "eth10");
	assert_int_equal(info->queue.index, 0);

	info = source_interrupts_find_label(&w.src, "IPI0");
	assert_int_equal(info->irq, -1);
	assert_string_equal(info->name, "Rescheduling interrupts");
	assert_int_equal(info->cpu_series[3], SERIES_NONE); /* offline */
	assert_int_not_equal(info->cpu_series[4], SERIES_NONE);

	gen(&w, "--cpus 8 --queues 8 --irqs 80 --odd --only interrupts --step 1");
	sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	check_values(&w, "irq.");
	irq = json_object_get_int(js_get(js_get(w.js, "odd"), "single_irq"));
	assert_int_equal(w.sink.val[source_interrupts_find_irq(&w.src, irq)->total], 78);

	/* The whole file again: the last line appears; then cut again: nothing goes. */
	gen(&w, "--cpus 8 --queues 8 --irqs 80 --offline 3,5 --only interrupts --step 1");
	sample(&w);
	assert_non_null(source_interrupts_find_label(&w.src, "PIW"));
	gen(&w, "--cpus 8 --queues 8 --irqs 80 --odd --only interrupts --step 2");
	sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_non_null(source_interrupts_find_label(&w.src, "PIW"));
	check_values(&w, "irq.");
	world_close(&w);
}

/* Make a directory below the fixture dir. */
static void
make_dir(struct world *w, const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", w->dir, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* Write a file below the fixture dir by hand. */
static void
write_file(struct world *w, const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", w->dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
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
	world_open(&w, NULL);
	make_dir(&w, "proc");
	write_file(&w, "proc/interrupts",
	           "     CPU0 CPU1\n"
	           "  1:    9    1  chip  1-edge  eth0-TxRx-0\n"
	           "  2:    5    6  chip  2-edge  eth0-TxRx-1\n");
	world_init(&w);
	sample(&w);
	a0 = must_find(&w, "irq.1.cpu0");
	a1 = must_find(&w, "irq.1.cpu1");
	b1 = must_find(&w, "irq.2.cpu1");
	assert_int_equal(w.sink.nput, 4);
	/* 9 -> 10 in the same width: only that cell. */
	write_file(&w, "proc/interrupts",
	           "     CPU0 CPU1\n"
	           "  1:   10    1  chip  1-edge  eth0-TxRx-0\n"
	           "  2:    5    6  chip  2-edge  eth0-TxRx-1\n");
	sample(&w);
	assert_int_equal(w.sink.nput, 1);
	assert_int_equal(w.sink.val[a0], 10);
	/* Two tokens where there was one: a full parse, not a misread. */
	write_file(&w, "proc/interrupts",
	           "     CPU0 CPU1\n"
	           "  1:  1 3    1  chip  1-edge  eth0-TxRx-0\n"
	           "  2:    5    6  chip  2-edge  eth0-TxRx-1\n");
	sample(&w);
	assert_int_equal(w.sink.val[a0], 1);
	assert_int_equal(w.sink.val[a1], 3);
	/* A longer line and the lines swapped: values follow the labels. */
	write_file(&w, "proc/interrupts",
	           "     CPU0 CPU1\n"
	           "  2:    5    7  chip  2-edge  eth0-TxRx-1\n"
	           "  1: 123456789    2  chip  1-edge  eth0-TxRx-0\n");
	sample(&w);
	assert_int_equal(w.sink.ngone, 0);
	assert_int_equal(w.sink.val[a0], 123456789);
	assert_int_equal(w.sink.val[a1], 2);
	assert_int_equal(w.sink.val[b1], 7);
	assert_int_equal(source_interrupts_irqs(&w.src, &(size_t){0})[0].irq, 2);
	/* The same label twice: the first one counts. The header only moved. */
	write_file(&w, "proc/interrupts",
	           "   CPU0   CPU1\n"
	           "  2:    5    8  chip  2-edge  eth0-TxRx-1\n"
	           "  2:    5    9  chip  2-edge  eth0-TxRx-1\n"
	           "  1: 123456789    2  chip  1-edge  eth0-TxRx-0\n");
	sample(&w);
	assert_int_equal(w.sink.val[b1], 8);
	assert_int_equal(w.sink.ngone, 0);
	/* A new chip and name: the description is parsed again. */
	write_file(&w, "proc/interrupts",
	           "   CPU0   CPU1\n"
	           "  2:    5    8  chip  2-edge  eth0-TxRx-1\n"
	           "  1: 123456789    2  GICv3  27 Level     arch_timer\n");
	sample(&w);
	assert_string_equal(source_interrupts_find_irq(&w.src, 1)->chip, "GICv3");
	assert_string_equal(source_interrupts_find_irq(&w.src, 1)->hwirq, "27");
	assert_string_equal(source_interrupts_find_irq(&w.src, 1)->trigger, "Level");
	assert_string_equal(source_interrupts_find_irq(&w.src, 1)->name, "arch_timer");
	assert_int_equal(source_interrupts_find_irq(&w.src, 1)->queue.index, -1);
	/* Old single-token chip-trigger form. */
	write_file(&w, "proc/interrupts",
	           "   CPU0   CPU1\n"
	           "  2:    5    8  chip  2-edge  eth0-TxRx-1\n"
	           "  1: 123456789    2  IO-APIC-edge  timer\n");
	sample(&w);
	assert_string_equal(source_interrupts_find_irq(&w.src, 1)->chip, "IO-APIC");
	assert_string_equal(source_interrupts_find_irq(&w.src, 1)->trigger, "edge");
	assert_string_equal(source_interrupts_find_irq(&w.src, 1)->name, "timer");
	/* An empty file has no header: an error, and the table stays. */
	write_file(&w, "proc/interrupts", "");
	assert_int_equal(w.src.ops->sample(&w.src, &w.sink, &err), -1);
	assert_string_equal(err.message, "source interrupts: proc/interrupts: no CPU header");
	assert_non_null(source_interrupts_find_irq(&w.src, 1));
	world_close(&w);
}

/* A root without /proc/interrupts. */
static void
test_missing(void **state)
{
	struct nm_error err;
	struct world w;

	(void)state;
	world_open(&w, NULL);
	nm_error_clear(&err);
	assert_int_equal(w.src.ops->init(&w.src, &err), -1);
	assert_string_equal(err.message,
	                    "source interrupts: proc/interrupts: No such file or directory");
	assert_int_equal(source_interrupts_refresh_affinity(&w.src, &err), -1);
	world_close(&w);
}

/* This machine's /proc: LOC has a cell per online CPU, counts move, the second sample puts
 * fewer cells than the first. */
static void
test_host(void **state)
{
	const struct irq_info *loc, *irqs;
	struct world w;
	size_t first, n, numeric = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	(void)state;
	world_open(&w, "/");
	world_init(&w);
	sample(&w);
	first = w.sink.nput;
	loc = source_interrupts_find_label(&w.src, "LOC");
	assert_non_null(loc);
	assert_int_equal(loc->irq, -1);
	assert_string_equal(loc->name, "Local timer interrupts");
	for (long c = 0; c < ncpu; c++) {
		assert_int_not_equal(loc->cpu_series[c], SERIES_NONE);
		assert_true(w.sink.put[loc->cpu_series[c]]);
	}
	assert_true(w.sink.val[loc->cpu_series[0]] > 0);
	irqs = source_interrupts_irqs(&w.src, &n);
	for (size_t i = 0; i < n; i++) {
		if (irqs[i].irq >= 0) {
			numeric++;
			assert_true(irqs[i].has_affinity);
			assert_false(cpuset_empty(&irqs[i].affinity));
		}
	}
	assert_true(numeric > 0);
	usleep(20000);
	sample(&w);
	assert_true(w.sink.nput < first);
	world_close(&w);
}

/* The parsing helpers on their own. */
static void
test_procparse(void **state)
{
	const char *s = "18446744073709551615 18446744073709551616 ff 0x1 12ab", *p = s;
	struct pp_row row = {0};
	const char *line, *old;
	uint64_t v;
	char buf[24];

	(void)state;
	assert_int_equal(pp_u64(&p, s + strlen(s), &v), 0);
	assert_true(v == UINT64_MAX);
	p = pp_skip_blanks(p, s + strlen(s));
	assert_int_equal(pp_u64(&p, s + strlen(s), &v), -1); /* 2^64 */
	p = strchr(p, ' ') + 1;
	assert_int_equal(pp_hex(&p, s + strlen(s), &v), 0);
	assert_int_equal(v, 255);
	p++;
	assert_int_equal(pp_hex(&p, s + strlen(s), &v), 0); /* "0" of "0x1" */
	assert_int_equal(v, 0);
	assert_int_equal(pp_utoa(0, buf), 1);
	assert_int_equal(pp_utoa(UINT64_MAX, buf), 20);
	assert_memory_equal(buf, "18446744073709551615", 20);

	/* A count split in two in place is a layout change, not a new value. */
	old = "  1:      12345     7  x";
	line = "  1:      12 45     7  x";
	pp_row_parse(&row, old, old + 4, old + strlen(old), 8, 10, NULL, NULL);
	assert_int_equal(row.ncells, 2);
	assert_int_equal(pp_row_diff(&row, line, old, strlen(line), 10, NULL, NULL), -1);
	/* A change in the text after the counts too. */
	line = "  1:      12345     7  y";
	assert_int_equal(pp_row_diff(&row, line, old, strlen(line), 10, NULL, NULL), -1);
	pp_row_free(&row);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_procparse),   cmocka_unit_test(test_parse_name),
	    cmocka_unit_test(test_steps),       cmocka_unit_test(test_irq_table),
	    cmocka_unit_test(test_cpu_offline), cmocka_unit_test(test_irq_freed),
	    cmocka_unit_test(test_odd),         cmocka_unit_test(test_handmade),
	    cmocka_unit_test(test_missing),     cmocka_unit_test(test_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
