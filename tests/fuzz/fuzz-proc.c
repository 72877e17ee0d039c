/* fuzz-proc.c: the /proc parsers of the sources on arbitrary file contents of at most 1 MiB.
 *
 * The first byte chooses a file (its value modulo FUZZ_NTARGETS; '0' is the first); the
 * rest is the file's contents for the first sample and, after the first form feed ('\f')
 * if there is one, for the second: "2" CONTENTS_A "\f" CONTENTS_B. Without a form feed
 * both samples read the same bytes. Each input gets a fresh source and registry: init, a
 * sample, the file rewritten, a second sample, describe, free. That way an input behaves
 * the same whatever ran before it, which a crash reproducer needs.
 *
 * The fixture root (/tmp/nm-fuzz-PID/) is made once per process, with every file empty,
 * and removed at exit (a run that crashes leaves it behind). A source keeps its fds open
 * and preads from offset 0, as on /proc, so the file is rewritten in place (pwrite,
 * ftruncate) rather than replaced, and emptied again after the input.
 *
 * The test sink counts, and aborts on a put or gone of an id that the registry does not
 * hold or that another source owns, and on a put of a series declared gone and not
 * interned again: in the sampler (sampler.c) such an id would index past its arrays or
 * report a dead series. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "fuzz.h"
#include "error.h"
#include "series.h"
#include "sink.h"
#include "source-interrupts.h"
#include "source.h"

#define FUZZ_MAX_INPUT (1u << 20)
#define FUZZ_INDEX     5 /* the sources' place in the sampler's table: series_info.source */

/* The file each first byte chooses and the source that reads it. */
static const struct {
	const char *path;
	const struct source_ops *ops;
} targets[] = {
    {"proc/interrupts", &source_interrupts_ops},
    {"proc/softirqs", &source_softirqs_ops},
    {"proc/stat", &source_cpu_ops},
    {"proc/net/snmp", &source_snmp_ops},
    {"proc/net/netstat", &source_snmp_ops},
    {"proc/net/snmp6", &source_snmp_ops},
    {"proc/net/softnet_stat", &source_softnet_ops},
    {"proc/net/stat/arp_cache", &source_lnstat_ops},
};
#define FUZZ_NTARGETS (sizeof(targets) / sizeof(targets[0]))

/* The directories below the root, parents first. */
static const char *const dirs[] = {"proc", "proc/net", "proc/net/stat"};
#define FUZZ_NDIRS (sizeof(dirs) / sizeof(dirs[0]))

/* The fixture root of this process: made by the first input, removed at exit. */
static struct {
	char root[64];
	int rootfd;
	int fds[FUZZ_NTARGETS]; /* read-write fds of the files, kept */
	bool ready;
} fx;

/* The test double of the sampler's sink. */
struct sink {
	struct series_registry *reg;
	size_t nput, ngone;
};

/* Count a put and check its id. */
void
sink_put(struct sink *sink, series_id id, uint64_t raw)
{
	(void)raw;
	fuzz_check(id < sink->reg->n);
	fuzz_check(sink->reg->v[id].source == FUZZ_INDEX);
	fuzz_check(sink->reg->v[id].live);
	sink->nput++;
}

/* Count a gone, check its id and mark the series dead as the sampler does. */
void
sink_gone(struct sink *sink, series_id id)
{
	fuzz_check(id < sink->reg->n);
	fuzz_check(sink->reg->v[id].source == FUZZ_INDEX);
	sink->reg->v[id].live = false;
	sink->ngone++;
}

/* Remove the fixture root. */
static void
fixture_remove(void)
{
	for (size_t i = 0; i < FUZZ_NTARGETS; i++) {
		close(fx.fds[i]);
		unlinkat(fx.rootfd, targets[i].path, 0);
	}
	for (size_t i = FUZZ_NDIRS; i-- > 0;)
		unlinkat(fx.rootfd, dirs[i], AT_REMOVEDIR);
	close(fx.rootfd);
	rmdir(fx.root);
}

/* Make the fixture root with every file empty; exits when it cannot. */
static void
fixture_make(void)
{
	snprintf(fx.root, sizeof(fx.root), "/tmp/nm-fuzz-%ld", (long)getpid());
	if (mkdir(fx.root, 0700) < 0 && errno != EEXIST)
		goto fail;
	fx.rootfd = open(fx.root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fx.rootfd < 0)
		goto fail;
	for (size_t i = 0; i < FUZZ_NDIRS; i++) {
		if (mkdirat(fx.rootfd, dirs[i], 0700) < 0 && errno != EEXIST)
			goto fail;
	}
	for (size_t i = 0; i < FUZZ_NTARGETS; i++) {
		fx.fds[i] = openat(fx.rootfd, targets[i].path,
		                   O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fx.fds[i] < 0)
			goto fail;
	}
	fx.ready = true;
	atexit(fixture_remove);
	return;
fail:
	fprintf(stderr, "fuzz-proc: %s: %s\n", fx.root, strerror(errno));
	exit(1);
}

/* Replace the contents of a kept file in place (same inode, as /proc changes). */
static void
file_set(int fd, const uint8_t *data, size_t len)
{
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		n = pwrite(fd, data + off, len - off, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		fuzz_check(n > 0);
		off += (size_t)n;
	}
	fuzz_check(ftruncate(fd, (off_t)len) == 0);
}

/* Check the interrupts source's exported IRQ table, as profiles and views read it; read the
 * same file with the on-demand reader, copy it and take its stored form back. */
static void
check_irqs(struct source *src, const struct series_registry *reg)
{
	const struct irq_table *t = source_interrupts_table(src);
	const struct irq_info *v = t->v, *out[4];
	struct irq_table rd, cp, back;
	struct nm_error err;
	json_object *js;
	size_t n = t->n;

	for (size_t i = 0; i < n; i++) {
		const struct irq_info *info = &v[i];

		fuzz_check(strlen(info->label) > 0);
		fuzz_check(strlen(info->chip) + strlen(info->hwirq) + strlen(info->trigger) +
		               strlen(info->name) <
		           FUZZ_MAX_INPUT);
		fuzz_check(info->total == SERIES_NONE || info->total < reg->n);
		for (unsigned c = 0; c < info->ncpus; c++)
			fuzz_check(info->cpu_series[c] == SERIES_NONE ||
			           info->cpu_series[c] < reg->n);
		fuzz_check(irqtable_find_label(t, info->label) != NULL);
		fuzz_check(info->irq < 0 || irqtable_find_irq(t, info->irq) != NULL);
		fuzz_check(strnlen(info->queue.device, IRQ_DEVICE_MAX) < IRQ_DEVICE_MAX);
		if (info->queue.device[0] != '\0')
			fuzz_check(irqtable_find_queue(t, info->queue.device, info->queue.index,
			                               out, 4) > 0);
	}
	memset(&rd, 0, sizeof(rd));
	nm_error_clear(&err);
	if (irqtable_read(&rd, src->rootfd, &err) == 0) {
		irqtable_copy(&cp, &rd);
		fuzz_check(cp.n == rd.n);
		js = irqtable_json(&cp);
		fuzz_check(irqtable_from_json(&back, js, &err) == 0);
		json_object_put(js);
		irqtable_free(&back);
		irqtable_free(&cp);
	}
	irqtable_free(&rd);
}

/* One sample; a failure (a file without a CPU header) is an answer, not a crash. */
static void
sample(struct source *src, struct sink *sink)
{
	struct nm_error err;

	nm_error_clear(&err);
	if (src->ops->sample(src, sink, &err) < 0)
		fuzz_check(err.message[0] != '\0');
	if (src->ops == &source_interrupts_ops)
		check_irqs(src, sink->reg);
}

/* libFuzzer's entry point: one file's two contents through its source. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *b, *ff;
	size_t t, alen, blen;
	struct series_registry reg;
	struct source src;
	struct sink sink;
	struct nm_error err;
	json_object *d;

	if (size < 1 || size > FUZZ_MAX_INPUT)
		return 0;
	if (!fx.ready)
		fixture_make();
	t = data[0] % FUZZ_NTARGETS;
	data++;
	size--;
	ff = memchr(data, '\f', size);
	alen = ff != NULL ? (size_t)(ff - data) : size;
	b = ff != NULL ? ff + 1 : data;
	blen = ff != NULL ? size - alen - 1 : size;

	file_set(fx.fds[t], data, alen);
	series_registry_init(&reg);
	memset(&src, 0, sizeof(src));
	src.ops = targets[t].ops;
	src.index = FUZZ_INDEX;
	src.root = fx.root;
	src.host = false;
	src.rootfd = fx.rootfd;
	src.reg = &reg;
	sink = (struct sink){&reg, 0, 0};
	nm_error_clear(&err);
	if (src.ops->init(&src, &err) == 0) {
		sample(&src, &sink);
		file_set(fx.fds[t], b, blen);
		sample(&src, &sink);
	}
	if (src.ops->describe != NULL) {
		d = src.ops->describe(&src);
		json_object_put(d);
	}
	src.ops->free(&src);
	fuzz_check(src.priv == NULL);
	series_registry_free(&reg);
	file_set(fx.fds[t], NULL, 0);
	return 0;
}
