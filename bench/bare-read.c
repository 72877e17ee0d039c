/* bare-read.c: the floor bench-service compares the daemon with. At the daemon's cadence,
 * pread every file the sources read each sample (the same rule as bench-daemon's
 * bench_sampled_file in bench-util.c: the /proc files of the sources and the `ethtool -S` text of
 * each device), on fds opened once, into buffers allocated once; nothing parsed. Its CPU time is
 * read from outside (schedstat), as the daemon's is.
 *
 *   bare-read ROOT INTERVAL_MS SECONDS [ONLY]
 *
 * ONLY, when given, is a comma-separated list of the files (relative to ROOT, a trailing '/'
 * for every file below a directory) to read instead of all of them: the floor of a daemon
 * that samples only some sources (bench-service --only).
 * Prints "ready" once the files are open, then runs SECONDS seconds and exits.
 *
 *   bare-read --compare ROOT INTERVAL_MS SECONDS [ONLY]
 *
 * also compares each read with the one before (two buffers a file, swapped each read), every
 * byte, and counts the bytes that differ; still nothing parsed. That is the least a reader
 * pays that must know what changed: a second floor, above the first, for a daemon that
 * compares its reads (bench-service --floor-compare). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"

struct file {
	int fd;
	char *buf, *prev; /* prev: the read before (--compare only) */
	size_t cap, len, prevlen;
};

static struct file *files;
static size_t nfiles;
static size_t root_len;
static const char *only;          /* NULL: every sampled file */
static bool compare;              /* --compare */
static volatile size_t differing; /* kept, so the compare is not optimised away */

/* Whether rel is in the ONLY list. */
static bool
wanted(const char *rel)
{
	const char *p = only, *e;
	size_t n;

	if (only == NULL)
		return true;
	while (*p != '\0') {
		e = strchr(p, ',');
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		if (n > 0 && (p[n - 1] == '/' ? strncmp(rel, p, n) == 0
		                              : strlen(rel) == n && strncmp(rel, p, n) == 0))
			return true;
		p += n + (e != NULL);
	}
	return false;
}

/* Open one sampled file (nftw callback). */
static int
walk_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_F || !bench_sampled_file(path + root_len + 1) ||
	    !wanted(path + root_len + 1))
		return 0;
	files = realloc(files, (nfiles + 1) * sizeof(*files));
	files[nfiles].fd = open(path, O_RDONLY | O_CLOEXEC);
	/* Room for the file to grow between steps, as the daemon's buffers have. */
	files[nfiles].cap = (size_t)st->st_size * 2 + 4096;
	files[nfiles].buf = malloc(files[nfiles].cap);
	files[nfiles].prev = compare ? calloc(1, files[nfiles].cap) : NULL;
	files[nfiles].len = files[nfiles].prevlen = 0;
	if (files[nfiles].fd < 0 || files[nfiles].buf == NULL ||
	    (compare && files[nfiles].prev == NULL)) {
		perror(path);
		exit(1);
	}
	nfiles++;
	return 0;
}

/* The bytes that differ between a and b's first n bytes, a word at a time (vectorised). */
static size_t
count_differing(const char *a, const char *b, size_t n)
{
	size_t count = 0, i = 0;
	uint64_t x, y;

	for (; i + 8 <= n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		count += x != y;
	}
	for (; i < n; i++)
		count += a[i] != b[i];
	return count;
}

/* Read file f (into a fresh buffer, the read before kept, with --compare). */
static void
read_file(struct file *f)
{
	ssize_t got;
	char *t;

	if (compare) {
		t = f->prev;
		f->prev = f->buf;
		f->buf = t;
		f->prevlen = f->len;
	}
	if ((got = pread(f->fd, f->buf, f->cap, 0)) < 0) {
		perror("pread");
		got = 0;
	}
	f->len = (size_t)got;
	if (compare)
		differing +=
		    count_differing(f->buf, f->prev, f->len < f->prevlen ? f->len : f->prevlen);
}

int
main(int argc, char **argv)
{
	struct timespec next;
	long interval_ms, rounds;

	if (argc > 1 && strcmp(argv[1], "--compare") == 0) {
		compare = true;
		argv++;
		argc--;
	}
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: bare-read [--compare] ROOT INTERVAL_MS SECONDS [ONLY]\n");
		return 2;
	}
	only = argc == 5 ? argv[4] : NULL;
	root_len = strlen(argv[1]);
	interval_ms = strtol(argv[2], NULL, 10);
	rounds = strtol(argv[3], NULL, 10) * 1000 / (interval_ms > 0 ? interval_ms : 1000);
	nftw(argv[1], walk_cb, 32, FTW_PHYS);
	printf("ready %zu files\n", nfiles);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long r = 0; r < rounds; r++) {
		for (size_t i = 0; i < nfiles; i++)
			read_file(&files[i]);
		next.tv_nsec += interval_ms * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return 0;
}
