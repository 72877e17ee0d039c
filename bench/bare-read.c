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
 * Prints "ready" once the files are open, then runs SECONDS seconds and exits. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"

struct file {
	int fd;
	char *buf;
	size_t cap;
};

static struct file *files;
static size_t nfiles;
static size_t root_len;
static const char *only; /* NULL: every sampled file */

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
	if (files[nfiles].fd < 0 || files[nfiles].buf == NULL) {
		perror(path);
		exit(1);
	}
	nfiles++;
	return 0;
}

int
main(int argc, char **argv)
{
	struct timespec next;
	long interval_ms, rounds;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: bare-read ROOT INTERVAL_MS SECONDS [ONLY]\n");
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
			if (pread(files[i].fd, files[i].buf, files[i].cap, 0) < 0)
				perror("pread");
		next.tv_nsec += interval_ms * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return 0;
}
