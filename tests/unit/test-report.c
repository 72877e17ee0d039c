/* test-report.c: every figure of a report over a 144-CPU fixture from gen-host.py, between
 * a snapshot at step 0 and one at step 1 two seconds later (driven clock), checked against
 * the increments the generator publishes under "report" in its --json summary: per-queue
 * packets and rates, the CPU sets' sums by IRQ CPU and by queue index and their ratio, CPU
 * utilisation, IPIs, interrupts per device, NET_RX/NET_TX and packets per NET_RX, device
 * packets and drops, softnet, TCP, a sysctl counter and lnstat. CPU 71 is offline, so queue
 * 71's IRQ fires on CPU 72: the two conventions of the CPU sets differ by that queue. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "config.h"
#include "cpulist.h"
#include "error.h"
#include "irqtable.h"
#include "report.h"
#include "results.h"
#include "sampler.h"
#include "snapshot.h"
#include "window.h"

#define SEC     1000000000ull
#define NCPUS   144
#define SPAN    2.0 /* seconds between the snapshots */
#define OFFLINE 71
#define ARFS    "proc/sys/net/core/arfs_add_count"

static const char *const modes[] = {"user", "nice",    "system", "idle",  "iowait",
                                    "irq",  "softirq", "steal",  "guest", "guest_nice"};

struct world {
	char root[64];
	struct config cfg;
	struct sampler *s;
	uint64_t now;
	struct snapshot a, b;
	json_object *js;  /* gen-host.py's summary */
	json_object *exp; /* its "report" member */
	double scale;     /* seconds per CPU tick */
};

/* The driven clock. */
static uint64_t
fake_clock(void *arg)
{
	return ((struct world *)arg)->now;
}

/* Run gen-host.py at a step into the world's root and keep its summary. */
static void
gen(struct world *w, int step)
{
	char cmd[512], *out = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
	         "python3 -S %s/gen-host.py %s --cpus %d --offline %d --step %d --json",
	         FIXTURE_DIR, w->root, NCPUS, OFFLINE, step);
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
	assert_true(json_object_object_get_ex(w->js, "report", &w->exp));
	free(out);
}

/* Write a file below the root in place (same inode: the sources keep their fds). */
static void
put_file(struct world *w, const char *rel, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", w->root, rel);
	fp = fopen(path, "r+");
	if (fp == NULL)
		fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(ftruncate(fileno(fp), 0), 0);
	fputs(text, fp);
	fclose(fp);
}

/* The fixture at step 0, every source on it, snapshot a at 10 s; step 1, snapshot b at
 * 12 s. */
static int
setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	const struct series_registry *reg;
	struct nm_error err;

	snprintf(w->root, sizeof(w->root), "/tmp/nm-test-report-XXXXXX");
	assert_non_null(mkdtemp(w->root));
	gen(w, 0);
	put_file(w, ARFS, "100\n");
	config_defaults(&w->cfg);
	free(w->cfg.root);
	w->cfg.root = strdup(w->root);
	config_add_source_opt(&w->cfg, "sysctl", "match", "net.core.arfs_*");
	config_add_source_opt(&w->cfg, "sysctl", "kind", "counter");
	w->s = sampler_new(&w->cfg, &err);
	if (w->s == NULL)
		fail_msg("sampler_new: %s", err.message);
	sampler_set_clock(w->s, fake_clock, w);
	w->now = 10 * SEC;
	snapshot_take(w->s, &w->a);
	gen(w, 1);
	put_file(w, ARFS, "175\n");
	w->now = 12 * SEC;
	snapshot_take(w->s, &w->b);
	reg = sampler_registry(w->s);
	w->scale = series_get(reg, series_find(reg, "cpu.all.user"))->scale;
	assert_true(w->scale > 0);
	*state = w;
	return 0;
}

/* Free the world and remove the fixture tree. */
static int
teardown(void **state)
{
	struct world *w = *state;
	char cmd[128];

	snapshot_free(&w->a);
	snapshot_free(&w->b);
	sampler_free(w->s);
	config_free(&w->cfg);
	json_object_put(w->js);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", w->root);
	assert_int_equal(system(cmd), 0);
	free(w);
	return 0;
}

/* ---- JSON helpers ---- */

/* The member at a dotted path of objects; fails the test when missing. */
static json_object *
at(json_object *o, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k != NULL; k = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(o, k, &o))
			fail_msg("no member \"%s\" (path %s)", k, path);
	return o;
}

/* The element of an array of objects whose member key is the string val, or NULL. */
static json_object *
find_str(json_object *arr, const char *key, const char *val)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *el = json_object_array_get_idx(arr, i), *v;
		if (json_object_object_get_ex(el, key, &v) &&
		    strcmp(json_object_get_string(v), val) == 0)
			return el;
	}
	return NULL;
}

/* The element whose member key is the integer val, or NULL. */
static json_object *
find_int(json_object *arr, const char *key, int64_t val)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *el = json_object_array_get_idx(arr, i), *v;
		if (json_object_object_get_ex(el, key, &v) && json_object_get_int64(v) == val)
			return el;
	}
	return NULL;
}

/* An integer of the generator's summary at a path. */
static int64_t
xint(struct world *w, const char *path)
{
	return json_object_get_int64(at(w->exp, path));
}

/* Element i of an integer array of the summary (0 for null: an offline CPU). */
static int64_t
xarr(struct world *w, const char *path, size_t i)
{
	json_object *v = json_object_array_get_idx(at(w->exp, path), i);

	return v == NULL ? 0 : json_object_get_int64(v);
}

/* Is element i of a summary array null (an offline CPU)? */
static bool
xnull(struct world *w, const char *path, size_t i)
{
	return json_object_array_get_idx(at(w->exp, path), i) == NULL;
}

/* A number of the report equals exp: exactly for whole numbers and exact halves, within
 * 1e-9 relative for percentages and ratios. */
static void
check_num(json_object *o, const char *path, double exp)
{
	json_object *v = at(o, path);
	double got = json_object_get_double(v);

	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		fail_msg("%s: not a number", path);
	if (fabs(got - exp) > 1e-9 * fmax(1, fabs(exp)))
		fail_msg("%s: got %.12g, want %.12g", path, got, exp);
}

/* A whole number of the report equals exp exactly. */
static void
check_uint(json_object *o, const char *path, uint64_t exp)
{
	json_object *v = at(o, path);

	if (!json_object_is_type(v, json_type_int))
		fail_msg("%s: not an integer: %s", path, json_object_get_string(v));
	if (json_object_get_uint64(v) != exp)
		fail_msg("%s: got %llu, want %llu", path,
		         (unsigned long long)json_object_get_uint64(v), (unsigned long long)exp);
}

/* The report with expected=0-71 unexpected=72-143 and TcpExt fields. */
static json_object *
build(struct world *w, double min_rate, const char *device)
{
	static const char *const tcpext[] = {"TCPTimeouts", "TCPLossProbes", "NoSuchField", NULL};
	struct report_opts opts;
	struct nm_error err;
	json_object *r;

	memset(&opts, 0, sizeof(opts));
	assert_int_equal(report_parse_cpuset(&opts, "expected=0-71", &err), 0);
	assert_int_equal(report_parse_cpuset(&opts, "unexpected=72-143", &err), 0);
	opts.min_queue_rate = min_rate;
	opts.tcpext = tcpext;
	opts.device = device;
	r = report_build(w->s, &w->a, &w->b, &opts, &err);
	if (r == NULL)
		fail_msg("report_build: %s", err.message);
	return r;
}

/* ---- the figures ---- */

/* Per-queue packets and rates of eth0 (eth1 is idle: left out), each queue's IRQ CPU, the
 * total, the sets' sums under both conventions and the ratio. */
static void
test_queues(void **state)
{
	struct world *w = *state;
	json_object *r = build(w, 0, NULL), *q = at(r, "figures.queues"), *devs, *dev, *qs;
	double irq_rx[2] = {0}, irq_tx[2] = {0}, idx_rx[2] = {0}, idx_tx[2] = {0};
	uint64_t trx = 0, ttx = 0;
	char name[64];

	check_num(r, "span_s", SPAN);
	devs = at(q, "devices");
	assert_int_equal(json_object_array_length(devs), 1);
	dev = find_str(devs, "name", "eth0");
	assert_non_null(dev);
	qs = at(dev, "queues");
	assert_int_equal(json_object_array_length(qs), NCPUS);
	for (int i = 0; i < NCPUS; i++) {
		json_object *row = find_int(qs, "queue", i);
		int64_t rx = xarr(w, "queues.eth0.rx", (size_t)i);
		int64_t tx = xarr(w, "queues.eth0.tx", (size_t)i);
		int64_t cpu = xarr(w, "queues.eth0.irq_cpu", (size_t)i);
		int set = cpu < 72 ? 0 : 1;
		assert_non_null(row);
		check_uint(row, "rx_packets", (uint64_t)rx);
		check_uint(row, "tx_packets", (uint64_t)tx);
		check_num(row, "rx_pps", (double)rx / SPAN);
		check_num(row, "tx_pps", (double)tx / SPAN);
		snprintf(name, sizeof(name), "%lld", (long long)cpu);
		assert_string_equal(json_object_get_string(at(row, "irq_cpus")), name);
		irq_rx[set] += (double)rx;
		irq_tx[set] += (double)tx;
		idx_rx[i < 72 ? 0 : 1] += (double)rx;
		idx_tx[i < 72 ? 0 : 1] += (double)tx;
		trx += (uint64_t)rx;
		ttx += (uint64_t)tx;
	}
	check_uint(dev, "total.rx_packets", trx);
	check_uint(dev, "total.tx_packets", ttx);
	check_num(dev, "total.rx_pps", (double)trx / SPAN);
	check_uint(dev, "hidden", 0);
	/* Queue 71 fires on CPU 72: it moves from the first set to the second. */
	assert_int_equal(xarr(w, "queues.eth0.irq_cpu", 71), 72);
	assert_true(irq_rx[0] < idx_rx[0]);
	for (int s = 0; s < 2; s++) {
		json_object *so = json_object_array_get_idx(at(q, "cpusets"), (size_t)s);
		assert_string_equal(json_object_get_string(at(so, "name")),
		                    s == 0 ? "expected" : "unexpected");
		assert_string_equal(json_object_get_string(at(so, "cpus")),
		                    s == 0 ? "0-71" : "72-143");
		check_num(so, "by_irq_cpu.rx_packets", irq_rx[s]);
		check_num(so, "by_irq_cpu.tx_packets", irq_tx[s]);
		check_num(so, "by_irq_cpu.rx_pps", irq_rx[s] / SPAN);
		check_num(so, "by_irq_cpu.tx_pps", irq_tx[s] / SPAN);
		check_num(so, "by_queue_index.rx_packets", idx_rx[s]);
		check_num(so, "by_queue_index.tx_packets", idx_tx[s]);
		check_num(so, "by_queue_index.rx_pps", idx_rx[s] / SPAN);
		check_num(so, "by_queue_index.tx_pps", idx_tx[s] / SPAN);
	}
	/* By hand, from the generator's rates: queue q carries 20000 + 100q rx and half as
	 * many tx packets a step; the first set by index is queues 0-71. */
	assert_true(idx_rx[0] == 72 * 20000 + 100 * (71 * 72 / 2));
	assert_true(irq_rx[0] == idx_rx[0] - (20000 + 100 * 71));
	check_num(q, "ratio.by_irq_cpu", (irq_rx[0] + irq_tx[0]) / (irq_rx[1] + irq_tx[1]));
	check_num(q, "ratio.by_queue_index", (idx_rx[0] + idx_tx[0]) / (idx_rx[1] + idx_tx[1]));
	assert_string_equal(
	    json_object_get_string(json_object_array_get_idx(at(q, "ratio.sets"), 1)),
	    "unexpected");
	json_object_put(r);
}

/* A minimum rate hides the slower queues but keeps them in the sums; a device limits the
 * device figures. */
static void
test_min_rate_and_device(void **state)
{
	struct world *w = *state;
	/* Queue q moves (20000 + 100q) * 1.5 packets in 2 s: 15000 + 75q a second. */
	json_object *r = build(w, 15000 + 75 * 100, "eth0");
	json_object *dev = json_object_array_get_idx(at(r, "figures.queues.devices"), 0);
	json_object *qs = at(dev, "queues"), *devs = at(r, "figures.devices");
	uint64_t trx = 0;

	assert_int_equal(json_object_array_length(qs), NCPUS - 100);
	check_uint(dev, "hidden", 100);
	assert_null(find_int(qs, "queue", 99));
	assert_non_null(find_int(qs, "queue", 100));
	for (size_t i = 0; i < NCPUS; i++)
		trx += (uint64_t)xarr(w, "queues.eth0.rx", i);
	check_uint(dev, "total.rx_packets", trx);
	assert_int_equal(json_object_array_length(devs), 1);
	assert_non_null(find_str(devs, "name", "eth0"));
	check_uint(r, "figures.softirqs.rx_packets", (uint64_t)xint(w, "link.eth0.rx_packets"));
	json_object_put(r);
}

/* Utilisation of all CPUs (the "cpu" line) and of each set (the online CPUs in it). */
static void
test_cpu(void **state)
{
	struct world *w = *state;
	json_object *r = build(w, 0, NULL), *cpu = at(r, "figures.cpu");
	char path[64];
	double dev_packets = 0;

	for (int s = -1; s < 2; s++) {
		double t[10] = {0}, total = 0, busy;
		json_object *o =
		    s < 0 ? at(cpu, "all") : json_object_array_get_idx(at(cpu, "sets"), (size_t)s);
		unsigned count = 0;
		/* "all" is the sum of the online CPUs (not the kernel's "cpu" line, which the
		 * generator makes count the offline CPU too). */
		int c0 = s < 0 ? 0 : s * 72, c1 = s < 0 ? 144 : s * 72 + 72;
		for (int m = 0; m < 10; m++) {
			snprintf(path, sizeof(path), "cpu.per_cpu.%s", modes[m]);
			for (int c = c0; c < c1; c++)
				t[m] += (double)xarr(w, path, (size_t)c);
		}
		for (int c = c0; s >= 0 && c < c1; c++)
			count += !xnull(w, "cpu.per_cpu.user", (size_t)c);
		/* The generator has no guest time: user is the same with it taken out. */
		for (int m = 0; m < 10; m++)
			total += t[m];
		busy = total - t[3] - t[4];
		for (int m = 0; m < 10; m++)
			check_num(o, modes[m], 100.0 * t[m] / total);
		check_num(o, "busy", 100.0 * busy / total);
		check_num(o, "busy_cpus", busy * w->scale / SPAN);
		if (s >= 0)
			check_uint(o, "count", count);
		if (s < 0) {
			static const char *const devs[] = {"lo", "eth0", "eth1"};
			for (int d = 0; d < 3; d++) {
				snprintf(path, sizeof(path), "link.%s.rx_packets", devs[d]);
				dev_packets += (double)xint(w, path);
				snprintf(path, sizeof(path), "link.%s.tx_packets", devs[d]);
				dev_packets += (double)xint(w, path);
			}
			check_num(cpu, "busy_us_per_packet", busy * w->scale * 1e6 / dev_packets);
		}
	}
	assert_int_equal(
	    json_object_get_int(at(json_object_array_get_idx(at(cpu, "sets"), 0), "count")), 71);
	json_object_put(r);
}

/* Function-call and all IPIs (RES CAL TLB), each IPI line, and interrupts per device:
 * eth0's PCI function (named eth0) and nvme0, the only devices whose IRQs move. */
static void
test_interrupts(void **state)
{
	struct world *w = *state;
	json_object *r = build(w, 0, NULL), *irq = at(r, "figures.interrupts"), *devs;
	json_object *lines = at(w->exp, "irq_lines"), *d;
	int64_t res = xint(w, "irq_lines.RES"), cal = xint(w, "irq_lines.CAL");
	int64_t tlb = xint(w, "irq_lines.TLB"), mlx = 0, nvme = 0;

	check_uint(irq, "ipi_cal", (uint64_t)cal);
	check_num(irq, "ipi_cal_per_s", (double)cal / SPAN);
	/* A TLB shootdown is a function-call IPI: CAL holds TLB, which is never added again. */
	assert_true(tlb > 0 && tlb <= cal);
	check_uint(irq, "ipi_tlb", (uint64_t)tlb);
	check_num(irq, "ipi_tlb_per_s", (double)tlb / SPAN);
	check_uint(irq, "ipi_all", (uint64_t)(res + cal));
	check_num(irq, "ipi_all_per_s", (double)(res + cal) / SPAN);
	assert_int_equal(json_object_array_length(at(irq, "ipis")), 3);
	d = find_str(at(irq, "ipis"), "line", "TLB");
	assert_non_null(d);
	check_uint(d, "total", (uint64_t)tlb);
	assert_false(json_object_get_boolean(at(d, "in_ipi_all")));
	d = find_str(at(irq, "ipis"), "line", "CAL");
	assert_non_null(d);
	assert_true(json_object_get_boolean(at(d, "in_ipi_all")));
	d = find_str(at(irq, "ipis"), "line", "RES");
	assert_non_null(d);
	check_uint(d, "total", (uint64_t)res);
	check_num(d, "per_s", (double)res / SPAN);
	json_object_object_foreach(lines, name, v)
	{
		if (strstr(name, "@pci:0000:08:00.0") != NULL)
			mlx += json_object_get_int64(v);
		else if (strncmp(name, "nvme0q", 6) == 0)
			nvme += json_object_get_int64(v);
	}
	assert_true(mlx > 0 && nvme > 0);
	devs = at(irq, "devices");
	assert_int_equal(json_object_array_length(devs), 2);
	d = json_object_array_get_idx(devs, 0); /* the most interrupts first */
	assert_string_equal(json_object_get_string(at(d, "device")), "0000:08:00.0");
	assert_string_equal(json_object_get_string(at(d, "netdev")), "eth0");
	check_uint(d, "total", (uint64_t)mlx);
	check_num(d, "per_s", (double)mlx / SPAN);
	d = json_object_array_get_idx(devs, 1);
	assert_string_equal(json_object_get_string(at(d, "device")), "nvme0");
	assert_false(json_object_object_get_ex(d, "netdev", NULL));
	check_uint(d, "total", (uint64_t)nvme);
	json_object_put(r);
}

/* NET_RX and NET_TX in all, per CPU and per set; packets per NET_RX overall (link
 * packets of the devices shown) and per set (its packets by IRQ CPU). */
static void
test_softirqs(void **state)
{
	struct world *w = *state;
	json_object *r = build(w, 0, NULL), *si = at(r, "figures.softirqs");
	json_object *per = at(si, "per_cpu");
	uint64_t rx = 0, tx = 0, srx[2] = {0}, stx[2] = {0}, dev_rx;
	double set_rx[2] = {0};
	size_t moved = 0;

	for (size_t c = 0; c < NCPUS; c++) {
		uint64_t crx = (uint64_t)xarr(w, "softirqs.NET_RX", c);
		uint64_t ctx = (uint64_t)xarr(w, "softirqs.NET_TX", c);
		json_object *o = find_int(per, "cpu", (int64_t)c);
		rx += crx;
		tx += ctx;
		srx[c < 72 ? 0 : 1] += crx;
		stx[c < 72 ? 0 : 1] += ctx;
		if (crx + ctx == 0) {
			assert_null(o);
			continue;
		}
		moved++;
		assert_non_null(o);
		check_uint(o, "net_rx", crx);
		check_uint(o, "net_tx", ctx);
		check_num(o, "net_rx_per_s", (double)crx / SPAN);
		check_num(o, "net_tx_per_s", (double)ctx / SPAN);
	}
	assert_int_equal(json_object_array_length(per), moved);
	check_uint(si, "net_rx", rx);
	check_uint(si, "net_tx", tx);
	check_num(si, "net_rx_per_s", (double)rx / SPAN);
	check_num(si, "net_tx_per_s", (double)tx / SPAN);
	dev_rx = (uint64_t)(xint(w, "link.lo.rx_packets") + xint(w, "link.eth0.rx_packets") +
	                    xint(w, "link.eth1.rx_packets"));
	check_uint(si, "rx_packets", dev_rx);
	check_num(si, "packets_per_net_rx", (double)dev_rx / (double)rx);
	for (size_t q = 0; q < NCPUS; q++)
		set_rx[xarr(w, "queues.eth0.irq_cpu", q) < 72 ? 0 : 1] +=
		    (double)xarr(w, "queues.eth0.rx", q);
	for (size_t s = 0; s < 2; s++) {
		json_object *o = json_object_array_get_idx(at(si, "sets"), s);
		check_uint(o, "net_rx", srx[s]);
		check_uint(o, "net_tx", stx[s]);
		check_num(o, "net_rx_per_s", (double)srx[s] / SPAN);
		check_num(o, "rx_packets", set_rx[s]);
		check_num(o, "packets_per_net_rx", set_rx[s] / (double)srx[s]);
	}
	json_object_put(r);
}

/* Link packets, bytes and drops of every device that moved (eth1 only through its
 * driver's drop counter), the driver's drop counters, and their rates. */
static void
test_devices(void **state)
{
	static const char *const devnames[] = {"lo", "eth0", "eth1"};
	static const char *const stats[] = {"rx_packets", "tx_packets", "rx_bytes",
	                                    "tx_bytes",   "rx_dropped", "tx_dropped"};
	struct world *w = *state;
	json_object *r = build(w, 0, NULL), *devs = at(r, "figures.devices");
	char path[96], key[64];

	assert_int_equal(json_object_array_length(devs), 3);
	for (size_t d = 0; d < 3; d++) {
		json_object *o = json_object_array_get_idx(devs, d), *drops = at(o, "driver_drops");
		assert_string_equal(json_object_get_string(at(o, "name")), devnames[d]);
		for (size_t i = 0; i < 6; i++) {
			snprintf(path, sizeof(path), "link.%s.%s", devnames[d], stats[i]);
			check_uint(o, stats[i], (uint64_t)xint(w, path));
			snprintf(key, sizeof(key), "%s_per_s", stats[i]);
			check_num(o, key, (double)xint(w, path) / SPAN);
		}
		if (d == 0) {
			assert_int_equal(json_object_object_length(drops), 0);
			continue;
		}
		snprintf(path, sizeof(path), "ethtool.%s.rx_out_of_buffer", devnames[d]);
		assert_int_equal(json_object_object_length(drops), 1);
		check_uint(drops, "rx_out_of_buffer", (uint64_t)xint(w, path));
		check_num(at(o, "driver_drops_per_s"), "rx_out_of_buffer",
		          (double)xint(w, path) / SPAN);
	}
	json_object_put(r);
}

/* A member of an object of the summary whose keys hold dots ("Tcp.InSegs"). */
static int64_t
xkey(struct world *w, const char *obj, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(at(w->exp, obj), key, &v))
		fail_msg("summary: no %s[%s]", obj, key);
	return json_object_get_int64(v);
}

/* The same, 0 for a counter that did not move (the summary leaves it out). */
static int64_t
xkey0(struct world *w, const char *obj, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(at(w->exp, obj), key, &v) ? json_object_get_int64(v) : 0;
}

/* Softnet sums, TCP segments and the retransmit ratio, the TcpExt fields asked for (one
 * that does not exist is left out), the sysctl counter, and the lnstat sums that moved. */
static void
test_softnet_tcp_sysctl_lnstat(void **state)
{
	static const char *const cols[] = {"processed", "dropped", "time_squeeze", "received_rps",
	                                   "flow_limit_count"};
	static const char *const tcp[][2] = {{"in_segs", "Tcp.InSegs"},
	                                     {"out_segs", "Tcp.OutSegs"},
	                                     {"retrans_segs", "Tcp.RetransSegs"}};
	struct world *w = *state;
	json_object *r = build(w, 0, NULL), *f = at(r, "figures"), *ln = at(f, "lnstat"), *ext;
	char path[96];
	size_t n = 0;

	for (size_t i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "softnet.%s", cols[i]);
		check_uint(f, path, (uint64_t)xint(w, path));
		snprintf(path, sizeof(path), "softnet.%s_per_s", cols[i]);
		check_num(f, path, (double)xkey(w, "softnet", cols[i]) / SPAN);
	}
	assert_true(xint(w, "softnet.dropped") > 0 && xint(w, "softnet.time_squeeze") > 0);
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "tcp.%s", tcp[i][0]);
		check_num(f, path, (double)xkey(w, "snmp", tcp[i][1]));
		snprintf(path, sizeof(path), "tcp.%s_per_s", tcp[i][0]);
		check_num(f, path, (double)xkey(w, "snmp", tcp[i][1]) / SPAN);
	}
	check_num(f, "tcp.retrans_ratio",
	          (double)xkey(w, "snmp", "Tcp.RetransSegs") /
	              (double)xkey(w, "snmp", "Tcp.OutSegs"));
	ext = at(f, "tcp.tcpext");
	assert_int_equal(json_object_object_length(ext), 4);
	check_num(ext, "TCPTimeouts", (double)xkey(w, "snmp", "TcpExt.TCPTimeouts"));
	check_num(ext, "TCPTimeouts_per_s", (double)xkey(w, "snmp", "TcpExt.TCPTimeouts") / SPAN);
	check_num(ext, "TCPLossProbes", (double)xkey(w, "snmp", "TcpExt.TCPLossProbes"));
	check_num(ext, "TCPLossProbes_per_s",
	          (double)xkey(w, "snmp", "TcpExt.TCPLossProbes") / SPAN);
	/* The sysctl counter went from 100 to 175. */
	assert_int_equal(json_object_object_length(at(f, "sysctl")), 1);
	assert_true(json_object_object_get_ex(at(f, "sysctl"), "net.core.arfs_add_count", &ext));
	assert_true(json_object_is_type(ext, json_type_int));
	assert_int_equal(json_object_get_int64(ext), 75);
	/* lnstat: exactly the sums that moved, entries (a level) included. */
	json_object_object_foreach(at(w->exp, "lnstat"), name, v)
	{
		char table[32];
		const char *field = strchr(name, '.') + 1;
		snprintf(table, sizeof(table), "%.*s", (int)(field - 1 - name), name);
		check_num(at(ln, table), field, (double)json_object_get_int64(v));
		n++;
	}
	json_object_object_foreach(ln, table, t)
	{
		(void)table;
		n -= json_object_object_length(t);
	}
	assert_int_equal(n, 0);
	json_object_put(r);
}

/* The udp figure: IPv4's Udp fields plus IPv6's Udp6 ones, each with its rate, and the
 * share of arriving datagrams that UDP dropped. */
static void
test_udp(void **state)
{
	static const char *const fields[][3] = {
	    {"in_datagrams", "Udp.InDatagrams", "Udp6InDatagrams"},
	    {"out_datagrams", "Udp.OutDatagrams", "Udp6OutDatagrams"},
	    {"in_errors", "Udp.InErrors", "Udp6InErrors"},
	    {"rcvbuf_errors", "Udp.RcvbufErrors", "Udp6RcvbufErrors"},
	    {"sndbuf_errors", "Udp.SndbufErrors", "Udp6SndbufErrors"},
	    {"no_ports", "Udp.NoPorts", "Udp6NoPorts"}};
	struct world *w = *state;
	json_object *r = build(w, 0, NULL), *udp = at(r, "figures.udp");
	double v[6], in, err;
	char path[64];

	for (size_t i = 0; i < 6; i++) {
		v[i] = (double)(xkey0(w, "snmp", fields[i][1]) + xkey0(w, "snmp", fields[i][2]));
		check_num(udp, fields[i][0], v[i]);
		snprintf(path, sizeof(path), "%s_per_s", fields[i][0]);
		check_num(udp, path, v[i] / SPAN);
	}
	/* Both families moved in the fixture: 100 + 10 in a step, 7 + 3 errors. */
	in = v[0];
	err = v[2];
	assert_true(xkey(w, "snmp", "Udp6InDatagrams") > 0 && xkey(w, "snmp", "Udp6InErrors") > 0);
	check_num(udp, "in_datagrams", 110);
	check_num(udp, "rcvbuf_errors", 8);
	check_num(udp, "in_loss_pct", 100 * err / (in + err));
	json_object_put(r);
}

/* NAME=LIST parsing: lists and masks; bad names, lists, duplicates and too many sets. */
static void
test_parse_cpuset(void **state)
{
	static const char *const bad[] = {
	    "noequals", "=0-3", "x=", "bad name=1", "a=zz", "waytoolongnamewaytoolongname0123=1"};
	struct report_opts opts;
	struct nm_error err;
	char arg[64];

	(void)state;
	memset(&opts, 0, sizeof(opts));
	assert_int_equal(report_parse_cpuset(&opts, "expected=0-71", &err), 0);
	assert_int_equal(report_parse_cpuset(&opts, "m=0xff", &err), 0);
	assert_int_equal(opts.ncpusets, 2);
	assert_string_equal(opts.cpusets[0].name, "expected");
	assert_string_equal(opts.cpusets[0].list, "0-71");
	assert_int_equal(cpuset_count(&opts.cpusets[0].set), 72);
	assert_int_equal(cpuset_count(&opts.cpusets[1].set), 8);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(report_parse_cpuset(&opts, bad[i], &err), -1);
		assert_int_equal(err.code, NM_ERR_BAD_ARGS);
	}
	assert_int_equal(report_parse_cpuset(&opts, "expected=1", &err), -1);
	assert_non_null(strstr(err.message, "twice"));
	for (int i = 2; i < REPORT_MAX_CPUSETS; i++) {
		snprintf(arg, sizeof(arg), "s%d=%d", i, i);
		assert_int_equal(report_parse_cpuset(&opts, arg, &err), 0);
	}
	assert_int_equal(report_parse_cpuset(&opts, "one_more=1", &err), -1);
	assert_int_equal(opts.ncpusets, REPORT_MAX_CPUSETS);
}

/* A window that ends before it starts is refused. */
static void
test_backwards(void **state)
{
	struct world *w = *state;
	struct report_opts opts;
	struct nm_error err;

	memset(&opts, 0, sizeof(opts));
	assert_null(report_build(w->s, &w->b, &w->a, &opts, &err));
	assert_int_equal(err.code, NM_ERR_BAD_ARGS);
}

/* The sum of a CPU set's packets by IRQ CPU in a report. */
static double
set_rx(json_object *r, size_t set)
{
	return json_object_get_double(
	    at(json_object_array_get_idx(at(r, "figures.queues.cpusets"), set),
	       "by_irq_cpu.rx_packets"));
}

/* The IRQ table a window name gives (with today's queue 5 IRQ on CPU 100): a kept
 * window's edge copy; once forgotten, the result's, read back; a result without one, or a
 * malformed one, gives today's with a note. */
static void
check_window_irq_table(struct world *w, int irq)
{
	struct irq_table t;
	struct results *rs;
	struct windows *ws;
	struct nm_error err;
	json_object *r, *old;
	char dir[128], note[256], cmd[160];
	const struct irq_info *e;

	snprintf(dir, sizeof(dir), "%s/state", w->root);
	assert_int_equal(mkdir(dir, 0700), 0);
	rs = results_open(dir, &err);
	assert_non_null(rs);
	ws = window_init(w->s, rs, dir, &err);
	assert_non_null(ws);
	assert_non_null(r = window_start(ws, "w", "hand", &err));
	json_object_put(r);
	assert_non_null(r = window_stop_inline(ws, "w", NULL, "hand", NULL, &err));
	json_object_put(r);
	/* Today's table (the interrupts source's) has the IRQ on 100, so has the window. */
	assert_int_equal(window_irq_table(ws, "w", &t, note, sizeof(note), &err), 0);
	assert_string_equal(note, "");
	assert_true(cpuset_has(&irqtable_find_irq(&t, irq)->effective, 100));
	assert_true(irqtable_find_irq(&t, irq)->ncpus > 0); /* the copy keeps the series */
	irqtable_free(&t);
	/* Moved back afterwards: the window keeps 100, from memory and from its result. */
	snprintf(cmd, sizeof(cmd), "proc/irq/%d/effective_affinity_list", irq);
	put_file(w, cmd, "3\n");
	sampler_irq_refresh_affinity(w->s);
	assert_int_equal(window_irq_table(ws, "w", &t, note, sizeof(note), &err), 0);
	assert_true(cpuset_has(&irqtable_find_irq(&t, irq)->effective, 100));
	irqtable_free(&t);
	assert_non_null(r = window_delete(ws, "w", &err));
	json_object_put(r);
	assert_int_equal(window_irq_table(ws, "w", &t, note, sizeof(note), &err), 0);
	assert_string_equal(note, "");
	e = irqtable_find_irq(&t, irq);
	assert_non_null(e);
	assert_int_equal(cpuset_count(&e->effective), 1);
	assert_true(cpuset_has(&e->effective, 100));
	assert_int_equal(e->ncpus, 0);
	irqtable_free(&t);
	/* An older result, then a malformed one: today's table, with a note. */
	old = json_tokener_parse("{\"window\": {\"name\": \"old\"}, \"figures\": {}}");
	assert_int_equal(results_put(rs, "old", old, &err), 0);
	json_object_put(old);
	assert_int_equal(window_irq_table(ws, "old", &t, note, sizeof(note), &err), 0);
	assert_non_null(strstr(note, "keeps no IRQ table"));
	assert_true(cpuset_has(&irqtable_find_irq(&t, irq)->effective, 3));
	irqtable_free(&t);
	old = json_tokener_parse("{\"window\": {}, \"irq_table\": [{\"irq\": \"x\"}]}");
	assert_int_equal(results_put(rs, "bad", old, &err), 0);
	json_object_put(old);
	assert_int_equal(window_irq_table(ws, "bad", &t, note, sizeof(note), &err), 0);
	assert_non_null(strstr(note, "entry 0 is malformed"));
	assert_true(cpuset_has(&irqtable_find_irq(&t, irq)->effective, 3));
	irqtable_free(&t);
	assert_int_equal(window_irq_table(ws, "none", &t, note, sizeof(note), &err), -1);
	assert_int_equal(err.code, NM_ERR_NOT_FOUND);
	window_free(ws);
	results_close(rs);
}

/* A window's report joins with the IRQ table its edges kept, not today's: over a window in
 * which no IRQ fired (the step-0 /proc/interrupts kept through step 1), traffic goes to the
 * CPU sets by effective affinity; eth0 queue 5's IRQ then moves to CPU 100 (as a profile
 * would move it, the table's affinities read again), and the report over the same edges still
 * credits queue 5 to its old CPU. The same edges without their tables (today's) move it. */
static void
test_kept_irq_table(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	const struct irq_info *q5 = NULL;
	const char *pci;
	struct snapshot a2, b2;
	struct report_opts opts;
	struct nm_error err;
	json_object *kept, *today, *row;
	char path[256], *intr0 = NULL, rel[64];
	size_t cap = 0;
	double rx5;
	FILE *f;

	(void)state;
	snprintf(w->root, sizeof(w->root), "/tmp/nm-test-report-XXXXXX");
	assert_non_null(mkdtemp(w->root));
	gen(w, 0);
	snprintf(path, sizeof(path), "%s/proc/interrupts", w->root);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(getdelim(&intr0, &cap, '\0', f) > 0);
	fclose(f);
	config_defaults(&w->cfg);
	free(w->cfg.root);
	w->cfg.root = strdup(w->root);
	w->s = sampler_new(&w->cfg, &err);
	assert_non_null(w->s);
	sampler_set_clock(w->s, fake_clock, w);
	w->now = 10 * SEC;
	snapshot_take(w->s, &w->a);
	gen(w, 1);
	put_file(w, "proc/interrupts", intr0);
	w->now = 12 * SEC;
	snapshot_take(w->s, &w->b);

	pci = json_object_get_string(at(w->js, "mlx5.eth0.pci"));
	assert_int_equal(irqtable_find_queue(&w->b.irqs, pci, 5, &q5, 1), 1);
	assert_true(q5->has_effective && cpuset_count(&q5->effective) == 1);
	assert_true(cpuset_last(&q5->effective) < 72);
	snprintf(rel, sizeof(rel), "proc/irq/%d/effective_affinity_list", q5->irq);
	put_file(w, rel, "100\n");
	snprintf(rel, sizeof(rel), "proc/irq/%d/smp_affinity_list", q5->irq);
	put_file(w, rel, "100\n");
	sampler_irq_refresh_affinity(w->s);
	assert_true(
	    cpuset_has(&irqtable_find_irq(sampler_irq_table(w->s, NULL), q5->irq)->effective, 100));

	memset(&opts, 0, sizeof(opts));
	assert_int_equal(report_parse_cpuset(&opts, "expected=0-71", &err), 0);
	assert_int_equal(report_parse_cpuset(&opts, "unexpected=72-143", &err), 0);
	kept = report_build(w->s, &w->a, &w->b, &opts, &err);
	assert_non_null(kept);
	a2 = w->a;
	b2 = w->b;
	memset(&a2.irqs, 0, sizeof(a2.irqs));
	memset(&b2.irqs, 0, sizeof(b2.irqs));
	today = report_build(w->s, &a2, &b2, &opts, &err);
	assert_non_null(today);

	row = find_int(at(find_str(at(kept, "figures.queues.devices"), "name", "eth0"), "queues"),
	               "queue", 5);
	assert_non_null(row);
	rx5 = json_object_get_double(at(row, "rx_packets"));
	assert_true(rx5 > 0);
	assert_true(fabs(set_rx(kept, 0) - set_rx(today, 0) - rx5) < 1e-6 * rx5);
	assert_true(fabs(set_rx(today, 1) - set_rx(kept, 1) - rx5) < 1e-6 * rx5);
	json_object_put(kept);
	json_object_put(today);
	free(intr0);
	check_window_irq_table(w, q5->irq);
	teardown((void **)&w);
}

/* One fixture for every test: it takes a few seconds to generate. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_queues),
	    cmocka_unit_test(test_min_rate_and_device),
	    cmocka_unit_test(test_cpu),
	    cmocka_unit_test(test_interrupts),
	    cmocka_unit_test(test_softirqs),
	    cmocka_unit_test(test_devices),
	    cmocka_unit_test(test_softnet_tcp_sysctl_lnstat),
	    cmocka_unit_test(test_udp),
	    cmocka_unit_test(test_backwards),
	    cmocka_unit_test(test_parse_cpuset),
	};

	const struct CMUnitTest own[] = {
	    cmocka_unit_test(test_kept_irq_table),
	};

	return cmocka_run_group_tests(tests, setup, teardown) |
	       cmocka_run_group_tests(own, NULL, NULL);
}
