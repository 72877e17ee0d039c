/* test-prom.c: the Prometheus exposition (prom.c) of a registry and ring made here: a
 * counter, a gauge, CPU ticks as seconds, label escaping, OpenMetrics, the export globs and
 * the max_series cap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "irqtable.h"
#include "napitable.h"
#include "error.h"
#include "prom.h"
#include "ring.h"
#include "sampler.h"
#include "series.h"
#include "strbuf.h"

#define SEC ((uint64_t)1000000000)
/* Sample time (monotonic) and the offset to wall clock: 1,700,000,000.250 s. */
#define T_MONO  (100 * SEC)
#define TO_REAL ((int64_t)(1700000000 * SEC + 250000000 - T_MONO))

enum { SRC_LINK, SRC_SNMP, SRC_CPU, SRC_INTERRUPTS, SRC_BPF, NSRC };

/* The sources the registry's series come from, with the daemon's own ops: their families
 * (source_ops.prom) are what prom.c exports them by. Disabled: no per-source samples. */
static const struct prom_source fx_sources[NSRC] = {
    {"link", SRC_LINK, &source_link_ops, false, true, 0, 0, 0, 0},
    {"snmp", SRC_SNMP, &source_snmp_ops, false, true, 0, 0, 0, 0},
    {"cpu", SRC_CPU, &source_cpu_ops, false, true, 0, 0, 0, 0},
    {"interrupts", SRC_INTERRUPTS, &source_interrupts_ops, false, true, 0, 0, 0, 0},
    {"bpf", SRC_BPF, &source_bpf_ops, false, true, 0, 0, 0, 0},
};

struct fx {
	struct series_registry reg;
	struct ring *ring;
	struct prom *prom;
	struct strbuf out;
	struct prom_input in;
	struct prom_result res;
};

/* A series with labels from the arguments (NULL / -1: none). */
static series_id
add(struct fx *f, int src, const char *name, enum series_kind kind, double scale,
    const char *device, const char *field, int dir, const char *table, const char *mode, int cpu,
    int irq)
{
	struct series_labels l = SERIES_LABELS_NONE;

	if (device != NULL)
		l.device = series_atom_intern(&f->reg, device, strlen(device));
	if (field != NULL)
		l.field = series_atom_intern(&f->reg, field, strlen(field));
	if (table != NULL)
		l.table = series_atom_intern(&f->reg, table, strlen(table));
	if (mode != NULL)
		l.mode = series_atom_intern(&f->reg, mode, strlen(mode));
	l.dir = (uint8_t)dir;
	l.cpu = (int16_t)cpu;
	l.irq = irq;
	return series_intern(&f->reg, name, strlen(name), kind, (uint8_t)src, "x", scale, &l);
}

/* One record of source src putting (id, value) pairs, ended by SERIES_NONE. */
static void
record(struct fx *f, int src, ...)
{
	va_list ap;
	series_id id;

	ring_begin(f->ring, (unsigned)src, T_MONO, f->reg.n);
	va_start(ap, src);
	while ((id = va_arg(ap, series_id)) != SERIES_NONE)
		ring_put(f->ring, id, va_arg(ap, uint64_t));
	va_end(ap);
	ring_end(f->ring);
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	series_registry_init(&f->reg);
	series_registry_name_source(&f->reg, SRC_LINK, "link");
	series_registry_name_source(&f->reg, SRC_SNMP, "snmp");
	series_registry_name_source(&f->reg, SRC_CPU, "cpu");
	series_registry_name_source(&f->reg, SRC_INTERRUPTS, "interrupts");
	series_registry_name_source(&f->reg, SRC_BPF, "bpf");
	f->ring = ring_new(1u << 20, NSRC, 600 * SEC);
	f->prom = prom_new();
	strbuf_init(&f->out);
	f->in.reg = &f->reg;
	f->in.ring = f->ring;
	f->in.mono_to_real_ns = TO_REAL;
	f->in.sources = fx_sources;
	f->in.nsources = NSRC;
	f->in.profile_drift = -1;
	f->in.last_scrape_seconds = -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	strbuf_free(&f->out);
	prom_free(f->prom);
	ring_free(f->ring);
	series_registry_free(&f->reg);
	free(f);
	return 0;
}

/* Render in fmt; the text. */
static const char *
render(struct fx *f, enum prom_format fmt)
{
	prom_render(f->prom, &f->in, fmt, &f->out, &f->res);
	return f->out.buf;
}

/* Assert that text holds line (a whole line). */
static void
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; p != NULL && *p != '\0';) {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (len == n && memcmp(p, line, n) == 0)
			return;
		p = nl != NULL ? nl + 1 : NULL;
	}
	fail_msg("no line \"%s\" in:\n%s", line, text);
}

/* A counter: _total, HELP and TYPE, device and direction from the labels, the sample's time
 * in ms. */
static void
test_counter(void **state)
{
	struct fx *f = *state;
	series_id rx = add(f, SRC_LINK, "link.eth0.rx_bytes", SERIES_COUNTER, 1.0, "eth0",
	                   "rx_bytes", SERIES_DIR_RX, NULL, NULL, -1, -1);
	series_id tx = add(f, SRC_LINK, "link.eth0.tx_bytes", SERIES_COUNTER, 1.0, "eth0",
	                   "tx_bytes", SERIES_DIR_TX, NULL, NULL, -1, -1);
	const char *t;

	record(f, SRC_LINK, rx, (uint64_t)123456789012, tx, (uint64_t)7, SERIES_NONE);
	t = render(f, PROM_TEXT);
	has_line(t, "# TYPE netmetrics_link_bytes_total counter");
	assert_non_null(strstr(t, "# HELP netmetrics_link_bytes_total "));
	has_line(t, "netmetrics_link_bytes_total{device=\"eth0\",direction=\"rx\"} 123456789012 "
	            "1700000000250");
	has_line(t,
	         "netmetrics_link_bytes_total{device=\"eth0\",direction=\"tx\"} 7 1700000000250");
	assert_int_equal(f->res.series, 2);
	has_line(t, "netmetrics_export_series 2");
	has_line(t, "netmetrics_export_series_dropped 0");
	assert_null(strstr(t, "# EOF"));
}

/* A gauge keeps its name and may be negative; CPU ticks are shown in seconds. */
static void
test_gauge_and_seconds(void **state)
{
	struct fx *f = *state;
	series_id est = add(f, SRC_SNMP, "snmp.Tcp.CurrEstab", SERIES_GAUGE, 1.0, NULL, "CurrEstab",
	                    SERIES_DIR_NONE, "Tcp", NULL, -1, -1);
	series_id neg = add(f, SRC_SNMP, "snmp.Ip.Level", SERIES_GAUGE, 1.0, NULL, "Level",
	                    SERIES_DIR_NONE, "Ip", NULL, -1, -1);
	series_id user = add(f, SRC_CPU, "cpu.3.user", SERIES_COUNTER, 0.01, NULL, NULL,
	                     SERIES_DIR_NONE, NULL, "user", 3, -1);
	const char *t;

	record(f, SRC_SNMP, est, (uint64_t)5, neg, (uint64_t)-3, SERIES_NONE);
	record(f, SRC_CPU, user, (uint64_t)250, SERIES_NONE);
	t = render(f, PROM_TEXT);
	has_line(t, "# TYPE netmetrics_snmp_level gauge");
	has_line(t, "netmetrics_snmp_level{table=\"Tcp\",field=\"CurrEstab\"} 5 1700000000250");
	has_line(t, "netmetrics_snmp_level{table=\"Ip\",field=\"Level\"} -3 1700000000250");
	has_line(t, "# TYPE netmetrics_cpu_seconds_total counter");
	has_line(t, "netmetrics_cpu_seconds_total{cpu=\"3\",mode=\"user\"} 2.5 1700000000250");
}

/* A device name with a quote, a backslash and a newline is escaped in the label value. */
static void
test_label_escaping(void **state)
{
	struct fx *f = *state;
	series_id id = add(f, SRC_LINK, "link.a\"b\\c\nd.rx_packets", SERIES_COUNTER, 1.0,
	                   "a\"b\\c\nd", "rx_packets", SERIES_DIR_RX, NULL, NULL, -1, -1);
	struct strbuf sb = STRBUF_INIT;

	record(f, SRC_LINK, id, (uint64_t)9, SERIES_NONE);
	has_line(render(f, PROM_TEXT), "netmetrics_link_packets_total{device=\"a\\\"b\\\\c\\nd\","
	                               "direction=\"rx\"} 9 1700000000250");
	prom_escape_label(&sb, "\\\"\n");
	assert_string_equal(sb.buf, "\\\\\\\"\\n");
	strbuf_free(&sb);
}

/* OpenMetrics: a counter's family has no _total, its samples do; seconds; # EOF. */
static void
test_openmetrics(void **state)
{
	struct fx *f = *state;
	series_id rx = add(f, SRC_LINK, "link.vb.rx_bytes", SERIES_COUNTER, 1.0, "vb", "rx_bytes",
	                   SERIES_DIR_RX, NULL, NULL, -1, -1);
	const char *t;
	size_t n;

	record(f, SRC_LINK, rx, (uint64_t)42, SERIES_NONE);
	t = render(f, PROM_OPENMETRICS);
	has_line(t, "# TYPE netmetrics_link_bytes counter");
	has_line(t,
	         "netmetrics_link_bytes_total{device=\"vb\",direction=\"rx\"} 42 1700000000.250");
	n = strlen(t);
	assert_true(n > 6 && strcmp(t + n - 6, "# EOF\n") == 0);
	assert_string_equal(prom_content_type(PROM_OPENMETRICS),
	                    "application/openmetrics-text; version=1.0.0; charset=utf-8");
}

/* A counter shows its source's total (acc + base) and, in OpenMetrics, when its count
 * started (_created); the text format has no _created, a gauge neither. */
static void
test_totals_and_created(void **state)
{
	struct fx *f = *state;
	series_id rx = add(f, SRC_LINK, "link.vb.rx_bytes", SERIES_COUNTER, 1.0, "vb", "rx_bytes",
	                   SERIES_DIR_RX, NULL, NULL, -1, -1);
	series_id est = add(f, SRC_SNMP, "snmp.Tcp.CurrEstab", SERIES_GAUGE, 1.0, NULL, "CurrEstab",
	                    SERIES_DIR_NONE, "Tcp", NULL, -1, -1);
	uint64_t base[2] = {0}, epoch[2] = {0};
	const char *t;

	base[rx] = 21732444325ull;
	epoch[rx] = T_MONO - 5 * SEC;
	f->in.base = base;
	f->in.epoch_ns = epoch;
	f->in.nbase = 2;
	record(f, SRC_LINK, rx, (uint64_t)42, SERIES_NONE);
	record(f, SRC_SNMP, est, (uint64_t)7, SERIES_NONE);
	t = render(f, PROM_OPENMETRICS);
	has_line(t, "netmetrics_link_bytes_total{device=\"vb\",direction=\"rx\"} 21732444367 "
	            "1700000000.250");
	has_line(t, "netmetrics_link_bytes_created{device=\"vb\",direction=\"rx\"} "
	            "1699999995.250");
	has_line(t, "netmetrics_snmp_level{table=\"Tcp\",field=\"CurrEstab\"} 7 1700000000.250");
	assert_null(strstr(t, "netmetrics_snmp_level_created"));
	t = render(f, PROM_TEXT);
	has_line(t, "netmetrics_link_bytes_total{device=\"vb\",direction=\"rx\"} 21732444367 "
	            "1700000000250");
	assert_null(strstr(t, "_created"));
}

/* Raw per-IRQ-per-CPU cells are opt-in by glob; "!GLOB" turns series off. */
static void
test_export_globs(void **state)
{
	struct fx *f = *state;
	series_id cell = add(f, SRC_INTERRUPTS, "irq.45.cpu3", SERIES_COUNTER32, 1.0, NULL, NULL,
	                     SERIES_DIR_NONE, NULL, NULL, 3, 45);
	series_id rx = add(f, SRC_LINK, "link.eth0.rx_bytes", SERIES_COUNTER, 1.0, "eth0",
	                   "rx_bytes", SERIES_DIR_RX, NULL, NULL, -1, -1);
	const char *on[] = {"irq.*", "!link.eth0.*"};
	const char *t;

	record(f, SRC_INTERRUPTS, cell, (uint64_t)11, SERIES_NONE);
	record(f, SRC_LINK, rx, (uint64_t)12, SERIES_NONE);
	t = render(f, PROM_TEXT);
	assert_null(strstr(t, "netmetrics_irq_interrupts_total{"));
	assert_non_null(strstr(t, "netmetrics_link_bytes_total{"));
	prom_configure(f->prom, on, 2, 100);
	t = render(f, PROM_TEXT);
	has_line(t, "netmetrics_irq_interrupts_total{cpu=\"3\",irq=\"45\"} 11 1700000000250");
	assert_null(strstr(t, "netmetrics_link_bytes_total{"));
}

/* Past max_series the rest is left out and counted in netmetrics_export_series_dropped. */
static void
test_cap(void **state)
{
	struct fx *f = *state;
	series_id id[5];
	char name[32], field[16];

	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "snmp.Tcp.F%d", i);
		snprintf(field, sizeof(field), "F%d", i);
		id[i] = add(f, SRC_SNMP, name, SERIES_COUNTER, 1.0, NULL, field, SERIES_DIR_NONE,
		            "Tcp", NULL, -1, -1);
	}
	record(f, SRC_SNMP, id[0], (uint64_t)1, id[1], (uint64_t)1, id[2], (uint64_t)1, id[3],
	       (uint64_t)1, id[4], (uint64_t)1, SERIES_NONE);
	prom_configure(f->prom, NULL, 0, 3);
	const char *t = render(f, PROM_TEXT);
	assert_int_equal(f->res.series, 3);
	assert_int_equal(f->res.dropped, 2);
	has_line(t, "netmetrics_export_series 3");
	has_line(t, "netmetrics_export_series_dropped 2");
	has_line(t, "netmetrics_snmp_total{table=\"Tcp\",field=\"F2\"} 1 1700000000250");
	assert_null(strstr(t, "field=\"F3\""));
}

/* Options with the given include/exclude and roll-up lines and CPU sets. */
static void
options(struct fx *f, const char *const *sel, size_t nsel, const char *const *roll, size_t nroll,
        const char *const *sets, size_t nsets, bool drop, size_t famcap)
{
	static const char *const unmoved[] = {"cpu_seconds", "none"};
	struct prom_options o = {.select = sel,
	                         .nselect = nsel,
	                         .rollup = roll,
	                         .nrollup = nroll,
	                         .cpusets = sets,
	                         .ncpusets = nsets,
	                         .unmoved = unmoved + !drop,
	                         .nunmoved = 1,
	                         .max_family_series = famcap};
	struct nm_error err;

	if (prom_set_options(f->prom, &o, &err) < 0)
		fail_msg("prom_set_options: %s", err.message);
}

/* include/exclude by label matchers, in order: the cells of CPUs 4-7 of IRQ 45 out (an
 * anchored regex: "1[0-4]" does not match CPU 1), CPU 6 back in; a selector without a name
 * turns eth0's link counters off. */
static void
test_select(void **state)
{
	struct fx *f = *state;
	const char *on[] = {"irq.*"};
	const char *sel[] = {"-irq_interrupts{cpu=~\"[4-7]|1[0-4]\"}",
	                     "+netmetrics_irq_interrupts{cpu=\"6\", irq!=\"3\"}",
	                     "-{device=\"eth0\"}"};
	series_id rx = add(f, SRC_LINK, "link.eth0.rx_bytes", SERIES_COUNTER, 1.0, "eth0",
	                   "rx_bytes", SERIES_DIR_RX, NULL, NULL, -1, -1);
	series_id rx1 = add(f, SRC_LINK, "link.eth1.rx_bytes", SERIES_COUNTER, 1.0, "eth1",
	                    "rx_bytes", SERIES_DIR_RX, NULL, NULL, -1, -1);
	char name[32], line[96];
	const char *t;

	ring_begin(f->ring, SRC_INTERRUPTS, T_MONO, 64);
	for (int c = 0; c < 8; c++) {
		snprintf(name, sizeof(name), "irq.45.cpu%d", c);
		ring_put(f->ring,
		         add(f, SRC_INTERRUPTS, name, SERIES_COUNTER32, 1.0, NULL, NULL,
		             SERIES_DIR_NONE, NULL, NULL, c, 45),
		         (uint64_t)(100 + c));
	}
	ring_end(f->ring);
	record(f, SRC_LINK, rx, (uint64_t)5, rx1, (uint64_t)6, SERIES_NONE);
	prom_configure(f->prom, on, 1, 100);
	options(f, sel, 3, (const char *const[]){"none"}, 1, NULL, 0, false, 0);
	t = render(f, PROM_TEXT);
	for (int c = 0; c < 8; c++) {
		snprintf(line, sizeof(line),
		         "netmetrics_irq_interrupts_total{cpu=\"%d\",irq=\"45\"}", c);
		if ((c < 4 || c == 6) != (strstr(t, line) != NULL))
			fail_msg("cpu %d: %s", c, t);
	}
	assert_null(strstr(t, "device=\"eth0\""));
	has_line(t,
	         "netmetrics_link_bytes_total{device=\"eth1\",direction=\"rx\"} 6 1700000000250");
	assert_int_equal(f->res.series, 6);
}

/* Roll-ups: the user time of CPUs 0-3 summed per CPU set (a CPU in two sets counts in
 * both), the per-CPU series gone; drop_unmoved leaves out a counter at 0 (steal), not a gauge
 * at 0; max_family_series caps each family and counts the rest as dropped. */
static void
test_rollup_drop_cap(void **state)
{
	struct fx *f = *state;
	const char *roll[] = {"cpu_seconds{mode=\"user\"}"};
	const char *sets[] = {"a=0-1", "b=1-3"};
	series_id user[4], steal, est;
	char name[32];
	const char *t;

	steal = add(f, SRC_CPU, "cpu.0.steal", SERIES_COUNTER, 1.0, NULL, NULL, SERIES_DIR_NONE,
	            NULL, "steal", 0, -1);
	ring_begin(f->ring, SRC_CPU, T_MONO, 64);
	for (int c = 0; c < 4; c++) {
		snprintf(name, sizeof(name), "cpu.%d.user", c);
		user[c] = add(f, SRC_CPU, name, SERIES_COUNTER, 1.0, NULL, NULL, SERIES_DIR_NONE,
		              NULL, "user", c, -1);
		ring_put(f->ring, user[c], (uint64_t)(c + 1));
	}
	ring_put(f->ring, steal, 0);
	ring_end(f->ring);
	est = add(f, SRC_SNMP, "snmp.Tcp.CurrEstab", SERIES_GAUGE, 1.0, NULL, "CurrEstab",
	          SERIES_DIR_NONE, "Tcp", NULL, -1, -1);
	record(f, SRC_SNMP, est, (uint64_t)0, SERIES_NONE);
	options(f, NULL, 0, roll, 1, sets, 2, true, 0);
	t = render(f, PROM_TEXT);
	has_line(t, "netmetrics_cpu_seconds_total{mode=\"user\",cpuset=\"a\"} 3 1700000000250");
	has_line(t, "netmetrics_cpu_seconds_total{mode=\"user\",cpuset=\"b\"} 9 1700000000250");
	assert_null(strstr(t, "netmetrics_cpu_seconds_total{cpu="));
	has_line(t, "netmetrics_snmp_level{table=\"Tcp\",field=\"CurrEstab\"} 0 1700000000250");
	assert_int_equal(f->res.series, 3);
	options(f, NULL, 0, roll, 1, NULL, 0, false, 0);
	t = render(f, PROM_TEXT);
	has_line(t, "netmetrics_cpu_seconds_total{mode=\"user\",cpuset=\"all\"} 10 1700000000250");
	/* In the members' unit: CPU ticks as seconds. */
	series_id sys = add(f, SRC_CPU, "cpu.9.system", SERIES_COUNTER, 0.01, NULL, NULL,
	                    SERIES_DIR_NONE, NULL, "system", 9, -1);
	record(f, SRC_CPU, sys, (uint64_t)250, SERIES_NONE);
	options(f, NULL, 0, (const char *const[]){"cpu_seconds{mode=\"system\"}"}, 1, NULL, 0,
	        false, 0);
	t = render(f, PROM_TEXT);
	has_line(t,
	         "netmetrics_cpu_seconds_total{mode=\"system\",cpuset=\"all\"} 2.5 1700000000250");
	has_line(t, "netmetrics_cpu_seconds_total{cpu=\"0\",mode=\"steal\"} 0 1700000000250");
	options(f, NULL, 0, (const char *const[]){"none"}, 1, NULL, 0, false, 2);
	t = render(f, PROM_TEXT);
	has_line(t, "netmetrics_cpu_seconds_total{cpu=\"0\",mode=\"steal\"} 0 1700000000250");
	has_line(t, "netmetrics_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 1 1700000000250");
	assert_null(strstr(t, "cpu=\"1\""));
	assert_int_equal(f->res.series, 3);
	assert_int_equal(f->res.dropped, 4); /* cpu 1-3 user, cpu 9 system */
}

/* A roll-up does not fall when a member goes (a CPU offline: its counter's last total stays
 * in the sum, as the member's own series would); when a member's count starts again (back,
 * reset), the roll-up's starts then too: its _created in OpenMetrics is the latest of its
 * members'. */
static void
test_rollup_member_gone_and_created(void **state)
{
	struct fx *f = *state;
	const char *roll[] = {"cpu_seconds{mode=\"user\"}"};
	series_id user[4];
	uint64_t base[4] = {0}, epoch[4] = {0};
	char name[32];
	const char *t;

	ring_begin(f->ring, SRC_CPU, T_MONO, 64);
	for (int c = 0; c < 4; c++) {
		snprintf(name, sizeof(name), "cpu.%d.user", c);
		user[c] = add(f, SRC_CPU, name, SERIES_COUNTER, 1.0, NULL, NULL, SERIES_DIR_NONE,
		              NULL, "user", c, -1);
		ring_put(f->ring, user[c], (uint64_t)(c + 1));
	}
	ring_end(f->ring);
	f->in.base = base;
	f->in.epoch_ns = epoch;
	f->in.nbase = 4;
	options(f, NULL, 0, roll, 1, NULL, 0, false, 0);
	t = render(f, PROM_OPENMETRICS);
	has_line(t, "netmetrics_cpu_seconds_total{mode=\"user\",cpuset=\"all\"} 10 "
	            "1700000000.250");
	assert_null(strstr(t, "_created"));
	/* CPU 3 offline: its series gone, its 4 still counted. */
	f->reg.v[user[3]].live = false;
	t = render(f, PROM_OPENMETRICS);
	has_line(t, "netmetrics_cpu_seconds_total{mode=\"user\",cpuset=\"all\"} 10 "
	            "1700000000.250");
	/* CPU 1's count started again 3 s ago (a reset): the roll-up's too. */
	epoch[user[1]] = T_MONO - 3 * SEC;
	epoch[user[2]] = T_MONO - 7 * SEC;
	t = render(f, PROM_OPENMETRICS);
	has_line(t, "netmetrics_cpu_seconds_created{mode=\"user\",cpuset=\"all\"} "
	            "1699999997.250");
	t = render(f, PROM_TEXT);
	assert_null(strstr(t, "_created"));
}

/* A bad selector or cpuset is refused with a message, and the options stay unset. */
static void
test_bad_options(void **state)
{
	struct fx *f = *state;
	const char *bad_sel[] = {"+irq_interrupts{cpu=~\"(\"}"};
	const char *bad_set[] = {"x=1-"};
	struct prom_options o = {bad_sel, 1, NULL, 0, NULL, 0, NULL, 0, 0};
	struct nm_error err;

	assert_int_equal(prom_set_options(f->prom, &o, &err), -1);
	assert_non_null(strstr(err.message, "regular expression"));
	o = (struct prom_options){NULL, 0, NULL, 0, bad_set, 1, NULL, 0, 0};
	assert_int_equal(prom_set_options(f->prom, &o, &err), -1);
}

/* Windows, tests and sources: label values from outside are escaped too. */
static void
test_own_gauges(void **state)
{
	struct fx *f = *state;
	struct prom_window w = {"run \"1\"", "hand"};
	struct prom_test te = {"t1", "iperf3"};
	struct prom_source s = {"link", SRC_LINK, &source_link_ops, true, false, 10, 2, 1500000, 0};
	const char *t;

	f->in.windows = &w;
	f->in.nwindows = 1;
	f->in.tests = &te;
	f->in.ntests = 1;
	f->in.sources = &s;
	f->in.nsources = 1;
	f->in.profile = "latency";
	f->in.profile_drift = 1;
	t = render(f, PROM_TEXT);
	has_line(t, "netmetrics_window_open{name=\"run \\\"1\\\"\",origin=\"hand\"} 1");
	has_line(t, "netmetrics_test_running{name=\"t1\",driver=\"iperf3\"} 1");
	has_line(t, "netmetrics_profile_applied{name=\"latency\"} 1");
	has_line(t, "netmetrics_profile_drift{name=\"latency\"} 1");
	has_line(t, "netmetrics_source_healthy{source=\"link\"} 0");
	has_line(t, "netmetrics_source_sample_cost_seconds{source=\"link\"} 0.001500000");
	has_line(t, "netmetrics_source_failures_total{source=\"link\"} 2");
}

/* netmetrics_queue_irq_info says where each queue's IRQ mapping came from: the kernel's
 * NAPI links (netlink) or the IRQ's name (irq-name). */
static void
test_queue_irq_origin(void **state)
{
	struct fx *f = *state;
	struct irq_info v[2];
	struct irq_table t = {IRQ_TABLE_BORROWED, v, 2};
	const char *text;

	memset(v, 0, sizeof(v));
	for (int i = 0; i < 2; i++) {
		v[i].irq = 41 + i;
		v[i].label = v[i].chip = v[i].hwirq = v[i].trigger = "";
		v[i].total = SERIES_NONE;
		v[i].has_effective = true;
		cpuset_add(&v[i].effective, i);
	}
	v[0].name = "eth0-TxRx-1";
	irqtable_parse_name(v[0].name, strlen(v[0].name), &v[0].queue);
	v[1].name = "mlx5_comp0@pci:0000:08:00.0";
	snprintf(v[1].queue.device, sizeof(v[1].queue.device), "ens5");
	v[1].queue.dev_kind = IRQ_DEV_NETDEV;
	v[1].queue.kind = IRQ_QUEUE_RX;
	v[1].queue.index = 0;
	v[1].queue.origin = IRQ_ORIGIN_NETLINK;
	f->in.irqtab = &t;
	text = render(f, PROM_TEXT);
	has_line(text, "netmetrics_queue_irq_info{device=\"eth0\",queue=\"1\",direction=\"rx\","
	               "irq=\"41\",cpu=\"0\",origin=\"irq-name\"} 1");
	has_line(text, "netmetrics_queue_irq_info{device=\"eth0\",queue=\"1\",direction=\"tx\","
	               "irq=\"41\",cpu=\"0\",origin=\"irq-name\"} 1");
	has_line(text, "netmetrics_queue_irq_info{device=\"ens5\",queue=\"0\",direction=\"rx\","
	               "irq=\"42\",cpu=\"1\",origin=\"netlink\"} 1");
	assert_null(strstr(text, "device=\"ens5\",queue=\"0\",direction=\"tx\"")); /* rx only */
	f->in.irqtab = NULL;
}

/* netmetrics_queue_napi_info: each queue linked to a NAPI, with the NAPI's id, its IRQ and
 * kthread when it has them and its settings as napi-get gave them, origin netlink; a queue
 * linked to none has no line. eth0 as virtio_net here after test_napi's write (NAPI 257, no
 * IRQ, defer 2, gro_flush_timeout 20000); ens5 a threaded mlx5-like NAPI on IRQ 98
 * serving rx-3 and tx-3, settings not given. */
static void
test_queue_napi_info(void **state)
{
	struct fx *f = *state;
	struct napi_table t;
	struct napi_queue q = {.ifindex = 4, .dir = 0, .index = 0, .napi_id = 257};
	struct napi_entry *e;
	const char *text;

	memset(&t, 0, sizeof(t));
	napitable_begin(&t);
	napitable_add_queue(&t, &q);
	q.dir = 1;
	q.napi_id = 0; /* tx-0: linked to none */
	napitable_add_queue(&t, &q);
	q = (struct napi_queue){.ifindex = 5, .dir = 0, .index = 3, .napi_id = 8195};
	napitable_add_queue(&t, &q);
	q.dir = 1;
	napitable_add_queue(&t, &q);
	e = napitable_add_napi(&t);
	snprintf(e->dev, sizeof(e->dev), "eth0");
	e->ifindex = 4;
	e->id = 257;
	e->defer_hard_irqs = 2;
	e->gro_flush_timeout = 20000;
	e->irq_suspend_timeout = 0;
	e->threaded = 0;
	e = napitable_add_napi(&t);
	snprintf(e->dev, sizeof(e->dev), "ens5");
	e->ifindex = 5;
	e->id = 8195;
	e->irq = 98;
	e->pid = 1234;
	e->threaded = 1;
	napitable_end(&t);
	f->in.napitab = &t;
	text = render(f, PROM_TEXT);
	has_line(text,
	         "netmetrics_queue_napi_info{device=\"eth0\",queue=\"0\",direction=\"rx\","
	         "napi=\"257\",threaded=\"0\",defer_hard_irqs=\"2\","
	         "gro_flush_timeout=\"20000\",irq_suspend_timeout=\"0\",origin=\"netlink\"} 1");
	has_line(text,
	         "netmetrics_queue_napi_info{device=\"ens5\",queue=\"3\",direction=\"rx\","
	         "napi=\"8195\",irq=\"98\",pid=\"1234\",threaded=\"1\",origin=\"netlink\"} 1");
	has_line(text,
	         "netmetrics_queue_napi_info{device=\"ens5\",queue=\"3\",direction=\"tx\","
	         "napi=\"8195\",irq=\"98\",pid=\"1234\",threaded=\"1\",origin=\"netlink\"} 1");
	assert_null(strstr(text, "device=\"eth0\",queue=\"0\",direction=\"tx\""));
	f->in.napitab = NULL;
	napitable_free(&t);
}

/* A series of a source and what its source's rules say of it: its family ("": not
 * exported), opt-in, kept by results. The classification prom.c's strcmp chain over source
 * names made, and seriesblock-collect.c's kept_sources[], before the sources said it. */
struct rule_case {
	const char *source, *name;
	enum series_kind kind;
	const char *field, *type, *mode, *unit;
	int cpu, irq;
	const char *family;
	bool optin, kept;
};

static const struct rule_case rule_cases[] = {
    {"link", "link.eth0.rx_bytes", SERIES_COUNTER, "rx_bytes", NULL, NULL, "bytes", -1, -1,
     "netmetrics_link_bytes", false, true},
    {"link", "link.eth0.tx_packets", SERIES_COUNTER, "tx_packets", NULL, NULL, "packets", -1, -1,
     "netmetrics_link_packets", false, true},
    {"link", "link.eth0.tx_dropped", SERIES_COUNTER, "tx_dropped", NULL, NULL, "drops", -1, -1,
     "netmetrics_link_drops", false, true},
    {"link", "link.eth0.rx_crc_errors", SERIES_COUNTER, "rx_crc_errors", NULL, NULL, "errors", -1,
     -1, "netmetrics_link_errors", false, true},
    {"link", "link.eth0.multicast", SERIES_COUNTER, "multicast", NULL, NULL, "packets", -1, -1,
     "netmetrics_link_events", false, true},
    {"link", "link.eth0.mtu", SERIES_GAUGE, "mtu", NULL, NULL, "bytes", -1, -1, "", false, true},
    {"queues", "queues.eth0.rx0.packets", SERIES_COUNTER, "packets", NULL, NULL, "packets", -1, -1,
     "netmetrics_queue_packets", false, true},
    {"queues", "queues.eth0.rx0.bytes", SERIES_COUNTER, "bytes", NULL, NULL, "bytes", -1, -1,
     "netmetrics_queue_bytes", false, true},
    {"queues", "queues.eth0.rx0.csum_none", SERIES_COUNTER, "csum_none", NULL, NULL, "packets", -1,
     -1, "netmetrics_queue_events", false, true},
    {"queues", "queues.eth0.rx0.depth", SERIES_GAUGE, "depth", NULL, NULL, "packets", -1, -1, "",
     false, true},
    {"cpu", "cpu.3.user", SERIES_COUNTER, NULL, NULL, "user", "s", 3, -1, "netmetrics_cpu_seconds",
     false, true},
    {"cpu", "cpu.all.user", SERIES_COUNTER, NULL, NULL, "user", "s", -1, -1,
     "netmetrics_cpu_all_seconds", false, true},
    {"cpu", "stat.ctxt", SERIES_COUNTER, "ctxt", NULL, NULL, "switches", -1, -1, "netmetrics_stat",
     false, true},
    {"cpu", "stat.procs_running", SERIES_GAUGE, "procs_running", NULL, NULL, "tasks", -1, -1,
     "netmetrics_stat_level", false, true},
    {"softirqs", "softirqs.NET_RX.cpu0", SERIES_COUNTER, NULL, "NET_RX", NULL, "softirqs", 0, -1,
     "netmetrics_softirqs", false, true},
    {"softirqs", "softirqs.NET_RX", SERIES_COUNTER, NULL, "NET_RX", NULL, "softirqs", -1, -1, "",
     false, true},
    {"bpf", "bpf.softirq.NET_RX.cpu1", SERIES_COUNTER, NULL, "NET_RX", NULL, "softirqs", 1, -1,
     "netmetrics_bpf_softirqs", false, true},
    {"bpf", "bpf.softirq_time.NET_RX.cpu1", SERIES_COUNTER, "time", "NET_RX", NULL, "ns", 1, -1,
     "netmetrics_bpf_softirq_seconds", false, true},
    {"bpf", "bpf.irq_time.36.cpu1", SERIES_COUNTER, "time", NULL, NULL, "ns", 1, 36, "", false,
     false},
    {"bpf", "bpf.drop.NO_SOCKET", SERIES_COUNTER, "NO_SOCKET", NULL, NULL, "packets", -1, -1,
     "netmetrics_bpf_drops", false, true},
    {"bpf", "bpf.drop.NO_SOCKET.eth0", SERIES_COUNTER, "NO_SOCKET", NULL, NULL, "packets", -1, -1,
     "netmetrics_bpf_device_drops", false, true},
    {"bpf", "bpf.napi.713.packets", SERIES_COUNTER, "packets", NULL, NULL, "packets", -1, -1,
     "netmetrics_bpf_napi_packets", false, true},
    {"bpf", "bpf.napi.713.polls", SERIES_COUNTER, "polls", NULL, NULL, "polls", -1, -1,
     "netmetrics_bpf_napi_polls", false, true},
    {"bpf", "bpf.napi.backlog.exhausted", SERIES_COUNTER, "exhausted", NULL, NULL, "polls", -1, -1,
     "netmetrics_bpf_napi_budget_exhausted", false, true},
    {"bpf", "bpf.napi.713.polls.cpu1", SERIES_COUNTER, "polls", NULL, NULL, "polls", 1, -1, "",
     false, true},
    {"bpf", "bpf.irq.36.cpu1", SERIES_COUNTER, NULL, NULL, NULL, "interrupts", 1, 36, "", false,
     false},
    {"bpf", "bpf.prog.softirq_entry.runs", SERIES_COUNTER, "run_cnt", NULL, NULL, "runs", -1, -1,
     "", false, true},
    {"interrupts", "irq.45.cpu3", SERIES_COUNTER32, NULL, NULL, NULL, "interrupts", 3, 45,
     "netmetrics_irq_interrupts", false, false},
    {"interrupts", "irq.45.spurious", SERIES_COUNTER, "spurious", NULL, NULL, "interrupts", -1, 45,
     "netmetrics_irq_events", false, false},
    {"interrupts", "irq.RES.cpu1", SERIES_COUNTER32, NULL, "RES", NULL, "interrupts", 1, -1,
     "netmetrics_ipis", false, true},
    {"interrupts", "irq.IPI3.cpu1", SERIES_COUNTER32, NULL, "IPI3", NULL, "interrupts", 1, -1,
     "netmetrics_ipis", false, true},
    {"interrupts", "irq.LOC.cpu0", SERIES_COUNTER32, NULL, "LOC", NULL, "interrupts", 0, -1,
     "netmetrics_arch_interrupts", false, true},
    {"interrupts", "irq.MCE.cpu0", SERIES_COUNTER32, NULL, "MCE", NULL, "interrupts", 0, -1,
     "netmetrics_arch_interrupts", true, true},
    {"interrupts", "irq.MCE", SERIES_COUNTER, NULL, "MCE", NULL, "interrupts", -1, -1,
     "netmetrics_arch_interrupts", false, true},
    {"interrupts", "irq.45.affinity", SERIES_GAUGE, "affinity", NULL, NULL, "cpus", -1, 45, "",
     false, false},
    {"snmp", "snmp.Tcp.RetransSegs", SERIES_COUNTER, "RetransSegs", NULL, NULL, "segments", -1, -1,
     "netmetrics_snmp", false, true},
    {"snmp", "snmp.Tcp.CurrEstab", SERIES_GAUGE, "CurrEstab", NULL, NULL, "connections", -1, -1,
     "netmetrics_snmp_level", false, true},
    {"softnet", "softnet.cpu0.processed", SERIES_COUNTER32, "processed", NULL, NULL, "packets", 0,
     -1, "netmetrics_softnet", false, true},
    {"softnet", "softnet.cpu0.backlog", SERIES_GAUGE, "backlog", NULL, NULL, "packets", 0, -1,
     "netmetrics_softnet_level", false, true},
    {"lnstat", "lnstat.rt_cache.entries", SERIES_GAUGE, "entries", NULL, NULL, "entries", -1, -1,
     "netmetrics_lnstat_entries", false, true},
    {"lnstat", "lnstat.rt_cache.in_hit", SERIES_COUNTER, "in_hit", NULL, NULL, "lookups", -1, -1,
     "netmetrics_lnstat", false, true},
    {"lnstat", "lnstat.rt_cache.cpu2.in_hit", SERIES_COUNTER32, "in_hit", NULL, NULL, "lookups", 2,
     -1, "netmetrics_lnstat_cpu", false, false},
    /* A row past CPUSET_MAX_CPUS: no cpu label, left out of results by its name. */
    {"lnstat", "lnstat.rt_cache.cpu9999.in_hit", SERIES_COUNTER32, "in_hit", NULL, NULL, "lookups",
     -1, -1, "netmetrics_lnstat", false, false},
    {"ethtool", "ethtool.eth0.rx_cqe_compress", SERIES_COUNTER, "rx_cqe_compress", NULL, NULL,
     "packets", -1, -1, "netmetrics_ethtool", false, false},
    {"ethtool", "ethtool.eth0.std.eth-mac.FramesReceivedOK", SERIES_COUNTER, "FramesReceivedOK",
     NULL, NULL, "packets", -1, -1, "netmetrics_ethtool_std", false, false},
    {"ethtool", "ethtool.eth0.std.rmon.etherStatsJabbers", SERIES_COUNTER, "etherStatsJabbers",
     NULL, NULL, "packets", -1, -1, "netmetrics_ethtool_std", false, false},
    {"ethtool", "ethtool.eth0.std.rmon.rx.65-127", SERIES_COUNTER, "65-127", NULL, NULL, "packets",
     -1, -1, "netmetrics_ethtool_rmon_packets", false, false},
    {"ethtool", "ethtool.eth0.std.rmon.tx.1519-max", SERIES_COUNTER, "1519-max", NULL, NULL,
     "packets", -1, -1, "netmetrics_ethtool_rmon_packets", false, false},
    {"ethtool", "ethtool.eth0.level", SERIES_GAUGE, "level", NULL, NULL, "packets", -1, -1, "",
     false, false},
    {"sysctl", "sysctl.net.core.somaxconn", SERIES_GAUGE, "net.core.somaxconn", NULL, NULL, "value",
     -1, -1, "netmetrics_sysctl_level", false, false},
    {"sysctl", "sysctl.net.ipv4.tcp_count", SERIES_COUNTER, "net.ipv4.tcp_count", NULL, NULL,
     "events", -1, -1, "netmetrics_sysctl", false, false},
};

/* The sources' rules (source_ops.prom, .keep, .keep_except) classify as before. */
static void
test_source_rules(void **state)
{
	struct series_registry reg;

	(void)state;
	series_registry_init(&reg);
	for (size_t i = 0; i < sizeof(rule_cases) / sizeof(rule_cases[0]); i++) {
		const struct rule_case *c = &rule_cases[i];
		struct series_labels l = SERIES_LABELS_NONE;
		const struct source_ops *ops = NULL;
		const struct source_family *r;
		series_id id;
		size_t k;

		for (k = 0; (ops = sampler_table_ops(k)) != NULL; k++)
			if (strcmp(ops->name, c->source) == 0)
				break;
		assert_non_null(ops);
		if (c->field != NULL)
			l.field = series_atom_intern(&reg, c->field, strlen(c->field));
		if (c->type != NULL)
			l.type = series_atom_intern(&reg, c->type, strlen(c->type));
		if (c->mode != NULL)
			l.mode = series_atom_intern(&reg, c->mode, strlen(c->mode));
		l.cpu = (int16_t)c->cpu;
		l.irq = c->irq;
		id = series_intern(&reg, c->name, strlen(c->name), c->kind, (uint8_t)k, c->unit,
		                   1.0, &l);
		r = source_family_of(ops, &reg, id);
		if (strcmp(r != NULL ? r->family : "", c->family) != 0)
			fail_msg("%s: family %s, not %s", c->name, r != NULL ? r->family : "none",
			         c->family);
		if (r != NULL && r->optin != c->optin)
			fail_msg("%s: opt-in %d, not %d", c->name, r->optin, c->optin);
		if (source_keeps(ops, &reg, id) != c->kept)
			fail_msg("%s: kept %d, not %d", c->name, !c->kept, c->kept);
	}
	series_registry_free(&reg);
}

/* A NAPI series of the bpf source: table napi, the field, device and queue when given. */
static series_id
add_napi(struct fx *f, const char *name, const char *field, const char *unit, const char *dev,
         int queue, int cpu)
{
	struct series_labels l = SERIES_LABELS_NONE;

	l.table = series_atom_intern(&f->reg, "napi", 4);
	l.field = series_atom_intern(&f->reg, field, strlen(field));
	if (dev != NULL)
		l.device = series_atom_intern(&f->reg, dev, strlen(dev));
	l.queue = queue;
	l.cpu = (int16_t)cpu;
	return series_intern(&f->reg, name, strlen(name), SERIES_COUNTER, SRC_BPF, unit, 1.0, &l);
}

/* The bpf source's NAPI counts: two instances of one device (two queues) are two series,
 * told apart by napi_id (from the series' name) and queue; the per-CPU backlogs' instance has
 * napi_id "backlog" and no device; the per-CPU polls are not exported; a selector takes
 * napi_id. */
static void
test_bpf_napi(void **state)
{
	struct fx *f = *state;
	series_id p0 = add_napi(f, "bpf.napi.8193.polls", "polls", "polls", "eth0", 0, -1);
	series_id k0 = add_napi(f, "bpf.napi.8193.packets", "packets", "packets", "eth0", 0, -1);
	series_id x0 = add_napi(f, "bpf.napi.8193.exhausted", "exhausted", "polls", "eth0", 0, -1);
	series_id p1 = add_napi(f, "bpf.napi.8194.polls", "polls", "polls", "eth0", 1, -1);
	series_id c1 = add_napi(f, "bpf.napi.8194.polls.cpu1", "polls", "polls", "eth0", 1, 1);
	series_id pb = add_napi(f, "bpf.napi.backlog.polls", "polls", "polls", NULL, -1, -1);
	const char *sel[] = {"-bpf_napi_polls{napi_id=\"backlog\"}"};
	const char *t;

	record(f, SRC_BPF, p0, (uint64_t)1000, k0, (uint64_t)40000, x0, (uint64_t)12, p1,
	       (uint64_t)700, c1, (uint64_t)700, pb, (uint64_t)5, SERIES_NONE);
	t = render(f, PROM_TEXT);
	has_line(t, "# TYPE netmetrics_bpf_napi_polls_total counter");
	has_line(t, "# TYPE netmetrics_bpf_napi_budget_exhausted_total counter");
	has_line(t, "netmetrics_bpf_napi_polls_total{device=\"eth0\",queue=\"0\",napi_id=\"8193\"} "
	            "1000 1700000000250");
	has_line(t, "netmetrics_bpf_napi_polls_total{device=\"eth0\",queue=\"1\",napi_id=\"8194\"} "
	            "700 1700000000250");
	has_line(t, "netmetrics_bpf_napi_packets_total{device=\"eth0\",queue=\"0\","
	            "napi_id=\"8193\"} 40000 1700000000250");
	has_line(t, "netmetrics_bpf_napi_budget_exhausted_total{device=\"eth0\",queue=\"0\","
	            "napi_id=\"8193\"} 12 1700000000250");
	has_line(t, "netmetrics_bpf_napi_polls_total{napi_id=\"backlog\"} 5 1700000000250");
	assert_null(strstr(t, "cpu=\"1\""));
	assert_int_equal(f->res.series, 5);
	options(f, sel, 1, NULL, 0, NULL, 0, false, 0);
	t = render(f, PROM_TEXT);
	assert_null(strstr(t, "napi_id=\"backlog\""));
	assert_int_equal(f->res.series, 4);
}

/* Every family a source of the sampler's table names is one the exposition has: a family
 * spelt wrong would leave the source's series out silently. */
static void
test_source_families_known(void **state)
{
	const struct source_ops *ops;

	(void)state;
	for (size_t i = 0; (ops = sampler_table_ops(i)) != NULL; i++) {
		assert_non_null(ops->prom);
		for (const struct source_family *r = ops->prom; r->family != NULL; r++)
			if (r->family[0] != '\0' && !prom_has_family(r->family))
				fail_msg("source %s: no family %s", ops->name, r->family);
	}
	assert_false(prom_has_family("netmetrics_nonesuch"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_counter, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gauge_and_seconds, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_label_escaping, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_openmetrics, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_totals_and_created, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_export_globs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_select, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rollup_drop_cap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rollup_member_gone_and_created, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_options, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_own_gauges, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_queue_irq_origin, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_queue_napi_info, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bpf_napi, setup, teardown),
	    cmocka_unit_test(test_source_families_known),
	    cmocka_unit_test(test_source_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
