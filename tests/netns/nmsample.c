/* nmsample.c: run the network sources (link, queues, ethtool) outside the daemon and print
 * what they report, for the real-kernel checks in this directory.
 *
 *	nmsample [-r ROOT] [-n SAMPLES] [-i MS] [-o SOURCE:KEY=VALUE]... [-q] [-g] SOURCE...
 *
 * After the last sample every series put and not gone is printed as "name value"; -q adds
 * the queues source's queue list as "queue DEV rx|tx INDEX packets-id bytes-id COUNTERS"
 * and each device it reads as "qdev DEV COUNTERS WHY..." (source_queues_devices); -g prints
 * "# gone sample N SERIES" whenever a source says a series is gone. Built with
 * -DNMSAMPLE_COUNT_ALLOCS (and without the sanitizers) it counts malloc/calloc/realloc calls
 * and prints "# allocs sample N SOURCE: COUNT" for each sample. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "series.h"
#include "sink.h"
#include "source-queues.h"
#include "source.h"

#ifdef NMSAMPLE_COUNT_ALLOCS
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static unsigned long nallocs;

/* Counting wrappers around glibc's allocator. */
void *
malloc(size_t n)
{
	nallocs++;
	return __libc_malloc(n);
}

/* Counting calloc. */
void *
calloc(size_t a, size_t b)
{
	nallocs++;
	return __libc_calloc(a, b);
}

/* Counting realloc. */
void *
realloc(void *p, size_t n)
{
	nallocs++;
	return __libc_realloc(p, n);
}
#endif

/* The sampler's sink, reduced to the last raw value of each series. */
struct sink {
	uint64_t *val;
	bool *put, *gone;
	size_t cap;
	const struct series_registry *reg; /* for -g */
	bool print_gone;
	int sample;
};

/* Make room for id in s. */
static void
sink_reserve(struct sink *s, series_id id)
{
	size_t n = s->cap ? s->cap : 1024;

	if (id < s->cap)
		return;
	while (n <= id)
		n *= 2;
	s->val = realloc(s->val, n * sizeof(*s->val));
	s->put = realloc(s->put, n * sizeof(*s->put));
	s->gone = realloc(s->gone, n * sizeof(*s->gone));
	memset(s->val + s->cap, 0, (n - s->cap) * sizeof(*s->val));
	memset(s->put + s->cap, 0, (n - s->cap) * sizeof(*s->put));
	memset(s->gone + s->cap, 0, (n - s->cap) * sizeof(*s->gone));
	s->cap = n;
}

/* Record a raw value as the sampler's sink would. */
void
sink_put(struct sink *s, series_id id, uint64_t raw)
{
	sink_reserve(s, id);
	s->val[id] = raw;
	s->put[id] = true;
	s->gone[id] = false;
}

/* Record that a series went away. */
void
sink_gone(struct sink *s, series_id id)
{
	sink_reserve(s, id);
	s->gone[id] = true;
	if (s->print_gone)
		printf("# gone sample %d %s\n", s->sample, s->reg->v[id].name);
}

/* The ops of a source by name. */
static const struct source_ops *
ops_by_name(const char *name)
{
	static const struct source_ops *const all[] = {&source_link_ops, &source_queues_ops,
	                                               &source_ethtool_ops, &source_qdisc_ops};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(all[i]->name, name) == 0)
			return all[i];
	return NULL;
}

/* Print usage and exit 2. */
static void
usage(void)
{
	fprintf(stderr,
	        "usage: nmsample [-r ROOT] [-n SAMPLES] [-i MS] [-o SOURCE:KEY=VALUE] [-q] [-g] "
	        "SOURCE...\n");
	exit(2);
}

/* Configure, init and sample the named sources; print the series. */
int
main(int argc, char **argv)
{
	struct series_registry reg;
	struct source src[8];
	struct sink sink = {0};
	struct nm_error err;
	const char *root = "/", *opts[32];
	int nsrc = 0, nopts = 0, samples = 1, interval_ms = 0, ch, rootfd;
	bool list_queues = false;

	while ((ch = getopt(argc, argv, "r:n:i:o:qg")) != -1) {
		switch (ch) {
		case 'r':
			root = optarg;
			break;
		case 'n':
			samples = atoi(optarg);
			break;
		case 'i':
			interval_ms = atoi(optarg);
			break;
		case 'o':
			if (nopts < 32)
				opts[nopts++] = optarg;
			break;
		case 'q':
			list_queues = true;
			break;
		case 'g':
			sink.print_gone = true;
			break;
		default:
			usage();
		}
	}
	if (optind == argc)
		usage();
	series_registry_init(&reg);
	sink.reg = &reg;
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		perror(root);
		return 1;
	}
	for (int i = optind; i < argc && nsrc < 8; i++, nsrc++) {
		struct source *s = &src[nsrc];
		memset(s, 0, sizeof(*s));
		s->ops = ops_by_name(argv[i]);
		if (s->ops == NULL)
			usage();
		s->index = (uint8_t)nsrc;
		s->root = root;
		s->host = strcmp(root, "/") == 0;
		s->rootfd = rootfd;
		s->reg = &reg;
		for (int k = 0; k < nopts; k++) {
			size_t nl = strlen(s->ops->name);
			char key[64], *eq;
			if (strncmp(opts[k], s->ops->name, nl) != 0 || opts[k][nl] != ':')
				continue;
			snprintf(key, sizeof(key), "%s", opts[k] + nl + 1);
			eq = strchr(key, '=');
			if (eq == NULL)
				usage();
			*eq = '\0';
			if (s->ops->configure(s, key, strchr(opts[k], '=') + 1, &err) < 0) {
				fprintf(stderr, "%s\n", err.message);
				return 1;
			}
		}
		if (s->ops->init(s, &err) < 0) {
			fprintf(stderr, "init %s: %s\n", s->ops->name, err.message);
			return 1;
		}
	}
	for (int n = 0; n < samples; n++) {
		sink.sample = n + 1;
		if (n > 0 && interval_ms > 0) {
			struct timespec ts = {interval_ms / 1000, (interval_ms % 1000) * 1000000L};
			nanosleep(&ts, NULL);
		}
		for (int i = 0; i < nsrc; i++) {
#ifdef NMSAMPLE_COUNT_ALLOCS
			unsigned long before = nallocs;
#endif
			if (src[i].ops->sample(&src[i], &sink, &err) < 0)
				fprintf(stderr, "sample %s: %s\n", src[i].ops->name, err.message);
#ifdef NMSAMPLE_COUNT_ALLOCS
			printf("# allocs sample %d %s: %lu\n", n + 1, src[i].ops->name,
			       nallocs - before);
#endif
		}
	}
	for (size_t id = 0; id < reg.n; id++)
		if (id < sink.cap && sink.put[id] && !sink.gone[id])
			printf("%s %llu\n", reg.v[id].name, (unsigned long long)sink.val[id]);
	for (int i = 0; list_queues && i < nsrc; i++) {
		const struct queue_info *qi;
		size_t nq;
		if (src[i].ops != &source_queues_ops)
			continue;
		qi = source_queues_list(&src[i], &nq);
		for (size_t k = 0; k < nq; k++)
			printf("queue %s %s %u %d %d %s\n", qi[k].dev,
			       qi[k].dir == QUEUE_RX ? "rx" : "tx", qi[k].index, (int)qi[k].packets,
			       (int)qi[k].bytes, qi[k].counters);
		const struct queue_dev *qd = source_queues_devices(&src[i], &nq);
		for (size_t k = 0; k < nq; k++)
			printf("qdev %s %s %s\n", qd[k].dev, qd[k].counters, qd[k].why);
	}
	for (int i = 0; i < nsrc; i++)
		src[i].ops->free(&src[i]);
	close(rootfd);
	series_registry_free(&reg);
	free(sink.val);
	free(sink.put);
	free(sink.gone);
	return 0;
}
