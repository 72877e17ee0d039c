/* replay.c: main() for a fuzz harness built without libFuzzer. Runs LLVMFuzzerTestOneInput
 * once on every file named on the command line, and on every regular file of every
 * directory named (in name order, not recursing), so that a gcc + ASan build replays the
 * seed corpus and every input that once crashed. Exits non-zero when an argument cannot be
 * read or no input was found; a crash is reported by the sanitizers. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#define REPLAY_MAX_FILE (16u << 20) /* larger than any harness accepts */

/* Read a whole file into a new buffer (the caller frees it); -1 with a message. */
static int
read_input(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	size_t n;

	if (f == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* One byte more than the bound, so that an oversized file is noticed. */
	buf = malloc(REPLAY_MAX_FILE + 1);
	if (buf == NULL) {
		fclose(f);
		fprintf(stderr, "replay: out of memory\n");
		return -1;
	}
	n = fread(buf, 1, REPLAY_MAX_FILE + 1, f);
	if (ferror(f) || n > REPLAY_MAX_FILE) {
		fprintf(stderr, "replay: %s: %s\n", path,
		        ferror(f) ? "read error" : "larger than 16 MiB");
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	*data = buf;
	*size = n;
	return 0;
}

/* Run the harness on one file; -1 when it cannot be read. */
static int
replay_file(const char *path)
{
	uint8_t *data;
	size_t size;

	if (read_input(path, &data, &size) < 0)
		return -1;
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 0;
}

/* Run the harness on every regular file of a directory; returns how many, or -1. */
static long
replay_dir(const char *dir)
{
	struct dirent **names;
	struct stat st;
	char path[4096];
	long done = 0;
	int n;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (replay_file(path) < 0)
				done = -1;
			else if (done >= 0)
				done++;
		}
		free(names[i]);
	}
	free(names);
	return done;
}

/* Replay every file and directory named on the command line. */
int
main(int argc, char **argv)
{
	struct stat st;
	long total = 0, n;
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR ...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			rc = 1;
			continue;
		}
		if (S_ISDIR(st.st_mode))
			n = replay_dir(argv[i]);
		else
			n = replay_file(argv[i]) < 0 ? -1 : 1;
		if (n < 0)
			rc = 1;
		else
			total += n;
	}
	printf("replay: %ld inputs\n", total);
	if (total == 0)
		rc = 1;
	return rc;
}
