/* bench-sample.c: what one sample of the interrupts, softirqs, cpu and softnet sources costs
 * next to the bare pread() of their files, on a 144-CPU fixture from gen-host.py, and how
 * many allocations a steady-state sample makes (must be 0).
 *
 *   bench-sample [-g GEN_HOST_PY] [-c CPUS] [-s STEPS] [-r RUNS]
 *
 * Steps 0..STEPS-1 of the fixture are generated once and kept in memory. After a first
 * sample (interning every series; its time is shown apart) and one untimed pass over the
 * steps (each source fills its second read buffer), each run writes the next step's files
 * in place (untimed: the sources keep their fds open, as in the daemon), then times with
 * CLOCK_PROCESS_CPUTIME_ID the pread of each file into a kept buffer, then one sample of each
 * source into a counting sink. Medians are printed. From one step to the next ~150 of the ~1,200
 * /proc/interrupts lines change, as on a busy host. malloc, calloc and realloc are interposed to
 * count allocations during samples.
 *
 * Build: meson builds it (bench/meson.build, without the sanitizers); by hand, every .c of
 *   common/, the sample/ sources it names there with config.c and procparse.c of base/,
 *   alloc-count.c and this file, with -I for common/, daemon/base/ and daemon/sample/. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alloc-count.h"
#include "error.h"
#include "series.h"
#include "sink.h"
#include "source.h"

#ifndef GEN_HOST
#define GEN_HOST "tests/fixtures/gen-host.py"
#endif

/* A sink that only counts. */
struct sink {
	unsigned long puts, gones;
};

/* Count a put. */
void
sink_put(struct sink *sink, series_id id, uint64_t raw)
{
	(void)id;
	(void)raw;
	sink->puts++;
}

/* Count a gone. */
void
sink_gone(struct sink *sink, series_id id)
{
	(void)id;
	sink->gones++;
}

/* The sources and their files. */
static const struct {
	const struct source_ops *ops;
	const char *path;
} benched[] = {
    {&source_interrupts_ops, "proc/interrupts"},
    {&source_softirqs_ops, "proc/softirqs"},
    {&source_cpu_ops, "proc/stat"},
    {&source_softnet_ops, "proc/net/softnet_stat"},
};
#define NBENCHED (sizeof(benched) / sizeof(benched[0]))

/* CPU time of the process in microseconds. */
static double
cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Order doubles for qsort. */
static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of n values (sorts them). */
static double
median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Read a whole file into a new buffer; exits on failure. */
static char *
slurp(const char *path, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || buf == NULL) {
		fprintf(stderr, "bench-sample: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap && (buf = realloc(buf, cap *= 2)) == NULL)
			exit(1);
	}
	close(fd);
	*len = n;
	return buf;
}

/* Run gen-host.py; exits on failure. */
static void
gen(const char *script, const char *dir, unsigned cpus, unsigned step, const char *only)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "python3 -S %s %s --cpus %u --queues %u --step %u --only %s",
	         script, dir, cpus, cpus, step, only);
	if (system(cmd) != 0) {
		fprintf(stderr, "bench-sample: %s failed\n", cmd);
		exit(1);
	}
}

/* Write a step's text over a fixture file in place; exits on failure. */
static void
put_step(int fd, const char *text, size_t len)
{
	if (pwrite(fd, text, len, 0) != (ssize_t)len || ftruncate(fd, (off_t)len) < 0) {
		fprintf(stderr, "bench-sample: write: %s\n", strerror(errno));
		exit(1);
	}
}

/* nftw callback removing one entry. */
static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Generate the fixture, time preads and samples, print medians and allocations. */
int
main(int argc, char **argv)
{
	const char *script = GEN_HOST;
	unsigned cpus = 144, nsteps = 4, runs = 400, i, s, r;
	char root[] = "/tmp/nm-bench-XXXXXX", path[512];
	char *content[NBENCHED][16], *rbuf[NBENCHED];
	size_t len[NBENCHED][16], rcap[NBENCHED];
	double *tp[NBENCHED], *ts[NBENCHED], first[NBENCHED], t0, sum_p = 0, sum_s = 0;
	unsigned long puts[NBENCHED] = {0}, max_alloc = 0, nalloc;
	int wfd[NBENCHED], rfd[NBENCHED], opt;
	struct source src[NBENCHED];
	struct series_registry reg;
	struct nm_error err;
	struct sink sink;

	while ((opt = getopt(argc, argv, "g:c:s:r:")) != -1) {
		switch (opt) {
		case 'g':
			script = optarg;
			break;
		case 'c':
			cpus = (unsigned)atoi(optarg);
			break;
		case 's':
			nsteps = (unsigned)atoi(optarg);
			break;
		case 'r':
			runs = (unsigned)atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: bench-sample [-g gen-host.py] [-c cpus] [-s steps] "
			                "[-r runs]\n");
			return 2;
		}
	}
	if (nsteps < 2 || nsteps > 16 || runs < 1 || cpus < 1) {
		fprintf(stderr, "bench-sample: need 2-16 steps, 1 run, 1 CPU\n");
		return 2;
	}
	if (mkdtemp(root) == NULL)
		return 1;

	/* Every step's files, then the root at step 0 (with /proc/irq for affinity). */
	for (s = 0; s < nsteps; s++) {
		gen(script, root, cpus, s, "interrupts,softirqs,stat,softnet");
		for (i = 0; i < NBENCHED; i++) {
			snprintf(path, sizeof(path), "%s/%s", root, benched[i].path);
			content[i][s] = slurp(path, &len[i][s]);
		}
	}
	gen(script, root, cpus, 0, "interrupts,softirqs,stat,softnet,irq");

	series_registry_init(&reg);
	for (i = 0; i < NBENCHED; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, benched[i].path);
		wfd[i] = open(path, O_RDWR | O_CLOEXEC);
		rfd[i] = open(path, O_RDONLY | O_CLOEXEC);
		rcap[i] = len[i][0] * 2 + 4096;
		rbuf[i] = malloc(rcap[i]);
		tp[i] = calloc(runs, sizeof(double));
		ts[i] = calloc(runs, sizeof(double));
		memset(&src[i], 0, sizeof(src[i]));
		src[i].ops = benched[i].ops;
		src[i].index = (uint8_t)i;
		src[i].root = root;
		src[i].rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		src[i].reg = &reg;
		if (wfd[i] < 0 || rfd[i] < 0 || src[i].ops->init(&src[i], &err) < 0) {
			fprintf(stderr, "bench-sample: %s: init failed: %s\n", benched[i].path,
			        err.message);
			return 1;
		}
		/* The first sample interns every series: timed apart, not in the medians. */
		t0 = cpu_us();
		if (src[i].ops->sample(&src[i], &sink, &err) < 0) {
			fprintf(stderr, "bench-sample: %s\n", err.message);
			return 1;
		}
		first[i] = cpu_us() - t0;
	}

	/* Warm up: one pass over the steps fills both read buffers of each source. */
	for (s = 1; s <= nsteps; s++) {
		for (i = 0; i < NBENCHED; i++) {
			put_step(wfd[i], content[i][s % nsteps], len[i][s % nsteps]);
			if (src[i].ops->sample(&src[i], &sink, &err) < 0)
				return 1;
		}
	}

	for (r = 0; r < runs; r++) {
		s = (r + 1) % nsteps;
		for (i = 0; i < NBENCHED; i++)
			put_step(wfd[i], content[i][s], len[i][s]);
		for (i = 0; i < NBENCHED; i++) {
			t0 = cpu_us();
			if (pread(rfd[i], rbuf[i], rcap[i], 0) < 0)
				return 1;
			tp[i][r] = cpu_us() - t0;
		}
		for (i = 0; i < NBENCHED; i++) {
			memset(&sink, 0, sizeof(sink));
			alloc_count_start();
			t0 = cpu_us();
			if (src[i].ops->sample(&src[i], &sink, &err) < 0)
				return 1;
			ts[i][r] = cpu_us() - t0;
			nalloc = alloc_count_stop();
			if (nalloc > max_alloc)
				max_alloc = nalloc;
			puts[i] += sink.puts;
		}
	}

	printf("fixture: %u CPUs, steps 0..%u, %u runs; median CPU time per call\n", cpus,
	       nsteps - 1, runs);
	printf("%-11s %9s %10s %10s %7s %8s %12s\n", "source", "bytes", "pread us", "sample us",
	       "ratio", "puts", "first us");
	for (i = 0; i < NBENCHED; i++) {
		double mp = median(tp[i], runs), ms = median(ts[i], runs);

		sum_p += mp;
		sum_s += ms;
		printf("%-11s %9zu %10.1f %10.1f %6.2fx %8lu %12.0f\n", src[i].ops->name, len[i][0],
		       mp, ms, ms / mp, puts[i] / runs, first[i]);
	}
	printf("%-11s %9s %10.1f %10.1f %6.2fx\n", "all four", "", sum_p, sum_s, sum_s / sum_p);
	printf("allocations per steady-state sample (max over runs): %lu\n", max_alloc);
	printf("registry: %zu series, %zu bytes, %.1f bytes per series\n", reg.n,
	       series_registry_bytes(&reg), (double)series_registry_bytes(&reg) / (double)reg.n);

	for (i = 0; i < NBENCHED; i++) {
		src[i].ops->free(&src[i]);
		close(src[i].rootfd);
		close(wfd[i]);
		close(rfd[i]);
		free(rbuf[i]);
		free(tp[i]);
		free(ts[i]);
		for (s = 0; s < nsteps; s++)
			free(content[i][s]);
	}
	series_registry_free(&reg);
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return max_alloc == 0 ? 0 : 1;
}
