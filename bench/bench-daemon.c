/* bench-daemon.c: the whole sampling path as netmetricsd runs it, on a 144-CPU fixture from
 * gen-host.py (144-queue NIC, ~1,200 IRQ lines, ~200,000 counters), for a simulated hour at
 * 1 Hz:
 *   - CPU time of one sample of every source against the bare read() of the same files
 *     (median of the rounds; the target is <= 3x);
 *   - allocations per round in steady state (target 0);
 *   - ring growth per 1 s round, keyframes amortised (target <= 12 KiB);
 *   - `rates` over the whole hour (target <= 20 ms) and `queues --last 10` (<= 2 ms), through
 *     the real command handlers;
 *   - the loop time of the worst read-only requests: the longest single callback each costs
 *     (the handler, or one part of a reply made in parts), against "a few ms".
 *   - the same sample and bare read at the daemon's cadence (-k rounds, default 20): each
 *     one after a pause of the sampling interval (-i, default [sampling] interval), so that
 *     the caches are as cold as in service, and on the sampler's real clock, so that each
 *     source has its own sample time as under its timer (the back-to-back loop above gives
 *     every source of a round one driven time). Target <= 3x.
 *
 *   bench-daemon [-g GEN_HOST_PY] [-n ROUNDS] [-s STEPS] [-c CACHE_DIR] [-k CADENCE_ROUNDS]
 *                [-i INTERVAL_MS]
 *
 * Fixture steps 0..STEPS-1 are generated once and kept in memory (with -c, kept in
 * CACHE_DIR/step-N and generated only when missing or made by another version of
 * gen-host.py, so that repeated runs for an A/B comparison skip the half minute of
 * generation); before each round the next
 * step's files are written in place (untimed; the sources keep their fds open, as in the
 * daemon). The sampler runs on a driven clock, one second per round. Ring growth is measured
 * over the first pass through the steps, where every counter moves forward at its rate; the
 * later rounds cycle through the steps again (each wrap to step 0 looks like a reset of
 * every counter, a worst case for the ring) only to fill an hour for the query timings. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc-count.h"
#include "bench-util.h"
#include "cmd.h"
#include "dispatch.h"
#include "config.h"
#include "daemon.h"
#include "error.h"
#include "query.h"
#include "results.h"
#include "ring.h"
#include "sampler.h"
#include "seriesblock.h"
#include "timeutil.h"
#include "window.h"

#ifndef GEN_HOST
#define GEN_HOST "tests/fixtures/gen-host.py"
#endif

struct file {
	char *rel;      /* path below the root */
	char **content; /* [step] */
	size_t *len;
	int fd; /* kept open in the root, written in place */
	char *buf;
	size_t cap;
};

static struct file *files;
static size_t nfiles;
static const char *walk_base;
static int walk_step;

/* Record one regular file of a step tree (nftw callback). */
static int
walk_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *rel = path + strlen(walk_base) + 1;
	size_t i;
	FILE *fp;

	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode) || !bench_sampled_file(rel))
		return 0;
	for (i = 0; i < nfiles && strcmp(files[i].rel, rel) != 0; i++)
		;
	if (i == nfiles) {
		if (walk_step != 0)
			return 0;
		files = realloc(files, (nfiles + 1) * sizeof(*files));
		memset(&files[nfiles], 0, sizeof(*files));
		files[nfiles].rel = strdup(rel);
		files[nfiles].content = calloc(64, sizeof(char *));
		files[nfiles].len = calloc(64, sizeof(size_t));
		nfiles++;
	}
	fp = fopen(path, "r");
	files[i].content[walk_step] = malloc((size_t)st->st_size + 1);
	files[i].len[walk_step] = fread(files[i].content[walk_step], 1, (size_t)st->st_size, fp);
	fclose(fp);
	return 0;
}

/* Generate step s into dir (unless cached there) and load its files. */
static void
load_step(const char *gen, const char *dir, int s, bool cached)
{
	char cmd[4096];

	if (cached)
		snprintf(
		    cmd, sizeof(cmd),
		    "test -f %s/.complete || { rm -rf %s && python3 %s %s --step %d >/dev/null "
		    "&& touch %s/.complete; }",
		    dir, dir, gen, dir, s, dir);
	else
		snprintf(cmd, sizeof(cmd), "rm -rf %s && python3 %s %s --step %d >/dev/null", dir,
		         gen, dir, s);
	if (system(cmd) != 0) {
		fprintf(stderr, "bench-daemon: %s failed\n", cmd);
		exit(1);
	}
	walk_base = dir;
	walk_step = s;
	nftw(dir, walk_cb, 32, FTW_PHYS);
}

/* Write step s's files in place in the root (same inodes). */
static void
put_step(int s)
{
	for (size_t i = 0; i < nfiles; i++) {
		if (files[i].content[s] == NULL)
			continue;
		if (pwrite(files[i].fd, files[i].content[s], files[i].len[s], 0) < 0 ||
		    ftruncate(files[i].fd, (off_t)files[i].len[s]) < 0) {
			perror(files[i].rel);
			exit(1);
		}
	}
}

/* The driven clock. */
static uint64_t
fake_now(void *arg)
{
	return *(uint64_t *)arg;
}

/* The clock of the cadence rounds: the driven clock's time when they began, moved on by
 * the real monotonic clock. */
struct cadence_clock {
	uint64_t base, real0;
};

static uint64_t
cadence_now(void *arg)
{
	const struct cadence_clock *c = arg;

	return c->base + (time_mono_ns() - c->real0);
}

/* The bare read of every file the sources read, into kept buffers: CPU ns. */
static uint64_t
bare_read(void)
{
	uint64_t c0 = bench_cpu_ns();

	for (size_t i = 0; i < nfiles; i++) {
		ssize_t n;
		if (files[i].cap < files[i].len[0] * 2 + 4096) {
			files[i].cap = files[i].len[0] * 2 + 4096;
			files[i].buf = realloc(files[i].buf, files[i].cap);
		}
		n = pread(files[i].fd, files[i].buf, files[i].cap, 0);
		(void)n;
	}
	return bench_cpu_ns() - c0;
}

/* The medians of n rounds: the bare read, one sample of every source, their ratio and
 * each source's cost; every line starts with prefix. Sorts the arrays. */
static void
print_costs(struct sampler *s, const char *prefix, uint64_t *tread, uint64_t *tsample,
            uint64_t **tsrc, size_t n)
{
	uint64_t mr = bench_median(tread, n), ms = bench_median(tsample, n);

	printf("%sbare read of the files:      %.3f ms CPU (median)\n", prefix, (double)mr / 1e6);
	printf("%sone sample of every source:  %.3f ms CPU (median)\n", prefix, (double)ms / 1e6);
	printf("%ssample / read ratio:         %.2fx (target <= 3x)\n", prefix,
	       (double)ms / (double)mr);
	for (size_t i = 0; i < sampler_nsources(s); i++)
		printf("%s  %-10s                 %.3f ms wall (median)\n", prefix,
		       sampler_source_at(s, i)->ops->name, (double)bench_median(tsrc[i], n) / 1e6);
}

/* Time one command handler call (CPU ns: the machine may be shared), median of reps. */
static uint64_t
time_cmd(struct daemon *d, cmd_handler fn, const char *args_json, int reps)
{
	uint64_t t[64];
	json_object *args = json_tokener_parse(args_json);

	for (int i = 0; i < reps; i++) {
		struct cmd_ctx ctx = {.d = d};
		json_object *res = NULL;
		struct nm_error err;
		uint64_t t0 = bench_cpu_ns();
		if (fn(&ctx, args, &res, &err) < 0) {
			fprintf(stderr, "bench-daemon: command failed: %s\n", err.message);
			exit(1);
		}
		/* A reply made in parts was also parsed back: count its parts, not that. */
		t[i] = bench_cpu_ns() - t0;
		if (ctx.parts > 0) /* made in parts, then parsed back: count the parts (CPU) */
			t[i] = t[i] - ctx.defer_ns + ctx.parts_ns;
		json_object_put(res);
		malloc_trim(0); /* untimed: see time_request */
	}
	json_object_put(args);
	return bench_median(t, (size_t)reps);
}

/* The loop time a read-only request costs the daemon at once, as a client would see it: the
 * handler's call (with the serialising of a reply made whole), and each part of a reply made
 * in parts, in CPU time. A reply made from stored results (results_load_reply) runs here at
 * once, but for a client in three callbacks: the loop's half before (the handler up to the
 * load), the reader thread's (not loop time: left out) and the loop's half after (with the
 * serialising, unless the thread made the line). Prints the longest single callback (median
 * of reps), the parts and the bytes. */
static void
time_request(struct daemon *d, const char *label, const char *name, const char *args_json, int reps)
{
	cmd_handler fn = dispatch_handler_find(name);
	json_object *args = json_tokener_parse(args_json);
	uint64_t longest[64], first[64], off[64];
	size_t parts = 0, bytes = 0;
	const char *code = "ok";

	for (int i = 0; i < reps; i++) {
		struct cmd_ctx ctx = {.d = d};
		json_object *res = NULL;
		struct nm_error err;
		uint64_t t0 = bench_cpu_ns(), f, after = 0;
		int rc = fn(&ctx, args, &res, &err);
		f = bench_cpu_ns() - t0 - ctx.defer_ns - ctx.offloop_ns;
		if (ctx.loaded) {
			after = ctx.after_ns;
			f -= after;
		}
		if (rc == 0 && ctx.parts == 0) {
			size_t len;
			char *line;
			uint64_t ser;
			t0 = bench_cpu_ns();
			line = proto_reply_ok(0, false, res, &len);
			ser = bench_cpu_ns() - t0;
			if (!ctx.loaded)
				f += ser;
			else if (!ctx.offloop_line)
				after += ser;
			bytes = len;
			free(line);
		} else if (rc == 0)
			bytes = ctx.reply_bytes;
		else {
			code = nm_error_name(err.code);
			bytes = 0;
		}
		first[i] = f;
		off[i] = ctx.offloop_ns;
		if (after > f)
			f = after;
		longest[i] = f > ctx.longest_part_ns ? f : ctx.longest_part_ns;
		parts = ctx.parts;
		json_object_put(res);
		/* The reply parsed back is millions of small blocks: give them back now, untimed,
		 * or the next large allocation consolidates them (100 ms of malloc_consolidate in
		 * the next handler, a cost of the bench, not of the daemon). */
		malloc_trim(0);
	}
	json_object_put(args);
	printf("  %-44s %8.2f ms longest (%7.2f ms at once, %5zu parts), %9zu bytes %s", label,
	       (double)bench_median(longest, (size_t)reps) / 1e6,
	       (double)bench_median(first, (size_t)reps) / 1e6, parts, bytes, code);
	/* What the reader thread did instead (the loop's cost before it did). */
	if (bench_median(off, (size_t)reps) > 0)
		printf(" (+%.2f ms off the loop)", (double)bench_median(off, (size_t)reps) / 1e6);
	printf("\n");
}

/* Generate the fixture, run the simulated hour, print the figures against their targets. */
int
main(int argc, char **argv)
{
	const char *gen = GEN_HOST, *cache = NULL;
	int rounds = 3600, steps = 12, cadence_rounds = 20, interval_ms = -1, ch;
	char root[] = "/tmp/nm-bench-daemon-XXXXXX", stepdir[256], state[64];
	struct config cfg;
	struct nm_error err;
	struct daemon d;
	uint64_t now = 1000000000ull, *tread, *tsample;
	unsigned long steady_allocs = 0;
	size_t bytes_total = 0;

	dispatch_init(cmd_table);
	struct ring_stats st0, st1;
	json_object *res;

	while ((ch = getopt(argc, argv, "g:n:s:c:k:i:")) != -1) {
		if (ch == 'g')
			gen = optarg;
		else if (ch == 'n')
			rounds = atoi(optarg);
		else if (ch == 's')
			steps = atoi(optarg);
		else if (ch == 'c')
			cache = optarg;
		else if (ch == 'k')
			cadence_rounds = atoi(optarg);
		else if (ch == 'i')
			interval_ms = atoi(optarg);
		else {
			fprintf(stderr,
			        "usage: bench-daemon [-g GEN_HOST_PY] [-n ROUNDS] [-s STEPS] "
			        "[-c CACHE_DIR] [-k CADENCE_ROUNDS] [-i INTERVAL_MS]\n");
			return 2;
		}
	}
	if (steps < 2 || steps > 64 || rounds < 100 || cadence_rounds < 0 ||
	    cadence_rounds > 100000 || interval_ms > 3600000)
		return 2;
	if (cache != NULL) {
		/* The path goes into shell commands and fixed buffers: keep it plain and short. */
		char cmd[1024];
		if (strlen(cache) > 200 ||
		    strspn(cache, "abcdefghijklmnopqrstuvwxyz"
		                  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") != strlen(cache)) {
			fprintf(stderr,
			        "bench-daemon: -c: use a path of at most 200 letters, digits "
			        "and / . _ -\n");
			return 2;
		}
		if (mkdir(cache, 0755) < 0 && errno != EEXIST) {
			perror(cache);
			return 1;
		}
		/* Steps made by another version of the generator are stale: make them again. */
		snprintf(
		    cmd, sizeof(cmd),
		    "cmp -s %s %s/gen-host.py || { rm -rf %s/step-* && cp %s %s/gen-host.py; }",
		    gen, cache, cache, gen, cache);
		if (system(cmd) != 0) {
			fprintf(stderr, "bench-daemon: %s failed\n", cmd);
			return 1;
		}
	}
	if (mkdtemp(root) == NULL)
		return 1;
	fprintf(stderr, "%s %d fixture steps...\n", cache ? "loading" : "generating", steps);
	for (int s = 0; s < steps; s++) {
		if (cache != NULL)
			snprintf(stepdir, sizeof(stepdir), "%s/step-%d", cache, s);
		else
			snprintf(stepdir, sizeof(stepdir), "%s.step", root);
		load_step(gen, stepdir, s, cache != NULL);
	}
	/* The root is step 0, written once; later steps are written in place. */
	{
		char cmd[1280];
		if (cache != NULL)
			snprintf(cmd, sizeof(cmd), "rm -rf %s && cp -a %s/step-0 %s", root, cache,
			         root);
		else
			snprintf(cmd, sizeof(cmd),
			         "rm -rf %s && python3 %s %s --step 0 >/dev/null && rm -rf %s",
			         root, gen, root, stepdir);
		if (system(cmd) != 0)
			return 1;
	}
	for (size_t i = 0; i < nfiles; i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", root, files[i].rel);
		files[i].fd = open(path, O_RDWR | O_CLOEXEC);
	}

	config_defaults(&cfg);
	free(cfg.root);
	cfg.root = strdup(root);
	/* Ethtool counters of the fixture's NIC, as on a real host where they are configured. */
	memset(&d, 0, sizeof(d));
	d.config.reply_max_points = cfg.reply_max_points; /* the reply budget, as configured */
	d.config.reply_max_bytes = cfg.reply_max_bytes;
	if ((d.sampler = sampler_new(&cfg, &err)) == NULL) {
		fprintf(stderr, "bench-daemon: %s\n", err.message);
		return 1;
	}
	sampler_set_clock(d.sampler, fake_now, &now);
	d.query = query_new(d.sampler);
	/* Windows and results in a state directory of their own, for report, compare and the
	 * stored-result commands: "whole" spans the run, "half" its second half. */
	snprintf(state, sizeof(state), "%s.state", root);
	if (mkdir(state, 0700) < 0 || (d.results = results_open(state, &err)) == NULL ||
	    (d.windows = window_init(d.sampler, d.results, state, &err)) == NULL) {
		fprintf(stderr, "bench-daemon: state: %s\n", err.message);
		return 1;
	}

	uint64_t *tsrc[SAMPLER_MAX_SOURCES];
	size_t nsrc = sampler_nsources(d.sampler);
	for (size_t i = 0; i < nsrc; i++)
		tsrc[i] = calloc((size_t)(rounds > cadence_rounds ? rounds : cadence_rounds),
		                 sizeof(uint64_t));
	tread = calloc((size_t)rounds, sizeof(*tread));
	tsample = calloc((size_t)rounds, sizeof(*tsample));
	sampler_sample_all(d.sampler); /* first sample: every series interned */
	if ((res = window_start(d.windows, "whole", "hand", &err)) == NULL)
		fprintf(stderr, "bench-daemon: window: %s\n", err.message);
	json_object_put(res);
	fprintf(stderr, "%zu series after the first sample; %d rounds...\n",
	        sampler_registry(d.sampler)->n, rounds);
	for (int r = 0; r < rounds; r++) {
		uint64_t c0;
		put_step((r + 1) % steps);
		tread[r] = bare_read();
		now += 1000000000ull;
		if (r >= steps * 2) /* steady state: every step seen twice */
			alloc_count_start();
		c0 = bench_cpu_ns();
		sampler_sample_all(d.sampler);
		tsample[r] = bench_cpu_ns() - c0;
		steady_allocs += alloc_count_stop();
		if (r == rounds / 2)
			json_object_put(window_start(d.windows, "half", "hand", &err));
		for (size_t i = 0; i < nsrc; i++)
			tsrc[i][r] = sampler_source_at(d.sampler, i)->last_cost_ns;
		/* Growth over rounds 2..steps-2 of the first pass: round 1 sets every rate. */
		if (r == 1)
			ring_get_stats(sampler_ring(d.sampler), &st0);
		if (r == steps - 2) {
			ring_get_stats(sampler_ring(d.sampler), &st1);
			bytes_total = st1.used - st0.used;
		}
	}
	ring_get_stats(sampler_ring(d.sampler), &st1);

	{
		printf("files read per round:        %zu\n", nfiles);
		printf("series:                      %zu\n", sampler_registry(d.sampler)->n);
		print_costs(d.sampler, "", tread, tsample, tsrc, (size_t)rounds);
		printf("allocations, steady state:   %lu in %d rounds (target 0)\n", steady_allocs,
		       rounds - steps * 2);
		printf("ring used after %d rounds:   %.1f MiB of %.0f MiB, %zu segments, %llu "
		       "evicted\n",
		       rounds, (double)st1.used / (1 << 20), (double)st1.capacity / (1 << 20),
		       st1.segments, (unsigned long long)st1.evicted_segments);
		printf("ring growth per 1 s round:   %.0f bytes in the first pass (target <= "
		       "12288)\n",
		       (double)bytes_total / (steps - 3));
		printf("keyframe:                    %zu bytes every 600 s: %.0f bytes per round "
		       "amortised\n",
		       st1.last_keyframe_bytes, (double)st1.last_keyframe_bytes / 600);
	}
	printf("rates over the last hour:    %.2f ms (target <= 20)\n",
	       (double)time_cmd(&d, dispatch_handler_find("rates"), "{\"last\":3600}", 9) / 1e6);
	printf("rates 'irq.*' over 10 s:     %.2f ms\n",
	       (double)time_cmd(&d, dispatch_handler_find("rates"),
	                        "{\"glob\":\"irq.*\",\"last\":10}", 9) /
	           1e6);
	printf("queues --last 10:            %.2f ms (target <= 2)\n",
	       (double)time_cmd(&d, dispatch_handler_find("queues"), "{\"last\":10}", 9) / 1e6);
	printf("cpu --last 10:               %.2f ms\n",
	       (double)time_cmd(&d, dispatch_handler_find("cpu"), "{\"last\":10}", 9) / 1e6);

	/* A close's copy of the series of "whole" and "half" out of the ring: at once (as the
	 * runner's and the benches' inline stops make it), and in the slices the loop makes
	 * it in (window_set_loop), each one's CPU time. */
	for (int half = 0; half < 2; half++) {
		uint64_t t0, t1, c0, once, total = 0, longest = 0, dt;
		struct seriesblock_collect *cs;
		unsigned slices = 0, at = 0;
		int done;

		if (window_span(d.windows, half ? "half" : "whole", &t0, &t1, &err) == 0) {
			c0 = bench_cpu_ns();
			seriesblock_free(seriesblock_collect(d.sampler, t0, t1));
			once = bench_cpu_ns() - c0;
			/* The first slice is in the close's callback, with the cursor's placing. */
			c0 = bench_cpu_ns();
			cs = seriesblock_collect_new(d.sampler, t0, t1);
			do {
				done = cs == NULL || seriesblock_collect_step(cs, DAEMON_SLICE_NS,
				                                              WINDOW_SLICE_RECORDS);
				dt = bench_cpu_ns() - c0;
				total += dt;
				if (dt > longest) {
					longest = dt;
					at = slices;
				}
				slices++;
				c0 = bench_cpu_ns();
			} while (!done);
			if (cs != NULL) {
				seriesblock_free(seriesblock_collect_finish(cs));
				seriesblock_collect_free(cs);
			}
			printf("series copy at a close (%.0f s): %.1f ms at once; in %u slices "
			       "%.1f ms, "
			       "the longest %.2f ms (slice %u; target <= 3)\n",
			       (double)(t1 - t0) / 1e9, (double)once / 1e6, slices,
			       (double)total / 1e6, (double)longest / 1e6, at + 1);
		}
	}

	/* Stored results to read back: "whole" and "half" closed, "open" left open. */
	json_object_put(window_start(d.windows, "open", "hand", &err));
	json_object_put(window_stop_inline(d.windows, "whole", NULL, "hand", NULL, &err));
	json_object_put(window_stop_inline(d.windows, "half", NULL, "hand", NULL, &err));
	/* Iterations for compare of globs: 8 copies of each as it/a_iter_N and it/b_iter_N. */
	for (int side = 0; side < 2; side++) {
		json_object *r = results_get(d.results, side == 0 ? "whole" : "half", &err);
		for (int k = 1; r != NULL && k <= 8; k++) {
			char name[32];
			snprintf(name, sizeof(name), "it/%c_iter_%d", side == 0 ? 'a' : 'b', k);
			if (results_put(d.results, name, r, &err) < 0)
				fprintf(stderr, "bench-daemon: %s: %s\n", name, err.message);
		}
		json_object_put(r);
	}

	/* The worst read-only requests: the longest callback each costs the loop. */
	printf("loop time of read-only requests (median of 5; the longest single callback):\n");
	{
		static const char *const reqs[][3] = {
		    {"metrics", "metrics", "{}"},
		    {"metrics --live", "metrics", "{\"live\":true}"},
		    {"now", "now", "{}"},
		    {"now irq.*", "now", "{\"glob\":\"irq.*\"}"},
		    {"rates --all --last 3600", "rates", "{\"all\":true,\"last\":3600}"},
		    {"rates --last 3600", "rates", "{\"last\":3600}"},
		    {"series * --from -1e7 --step 0.01 (too_large)", "series",
		     "{\"glob\":\"*\",\"from\":-1e7,\"step\":0.01}"},
		    {"series * --from -100 --step 0.01 (too_large)", "series",
		     "{\"glob\":\"*\",\"from\":-100,\"step\":0.01}"},
		    {"series irq.*.cpu1 --from -3600 --step 1", "series",
		     "{\"glob\":\"irq.*.cpu1\",\"from\":-3600,\"step\":1}"},
		    {"series cpu.* --from -3600 --step 1", "series",
		     "{\"glob\":\"cpu.*\",\"from\":-3600,\"step\":1}"},
		    {"series irq.*.cpu1 --from -300 --step 1", "series",
		     "{\"glob\":\"irq.*.cpu1\",\"from\":-300,\"step\":1}"},
		    {"series * --from -2 --step 1", "series",
		     "{\"glob\":\"*\",\"from\":-2,\"step\":1}"},
		    {"series cpu.all.* --from -300 --step 0.01", "series",
		     "{\"glob\":\"cpu.all.*\",\"from\":-300,\"step\":0.01}"},
		    {"series irq.*.cpu1 --from -600 --step 0.01", "series",
		     "{\"glob\":\"irq.*.cpu1\",\"from\":-600,\"step\":0.01}"},
		    {"interrupts --last 3600", "interrupts", "{\"last\":3600}"},
		    {"queues --last 3600", "queues", "{\"last\":3600}"},
		    {"cpu --last 3600", "cpu", "{\"last\":3600}"},
		    {"softirqs --last 3600", "softirqs", "{\"last\":3600}"},
		    {"report open (the ring, every series)", "report", "{\"name\":\"open\"}"},
		    {"report whole (stored)", "report", "{\"name\":\"whole\"}"},
		    {"report whole --cpus x8", "report",
		     "{\"name\":\"whole\",\"cpus\":[\"a=0-143\",\"b=0-71\",\"c=72-143\","
		     "\"d=0-4095\",\"e=1-143\",\"f=2-143\",\"g=3-143\",\"h=4-143\"]}"},
		    {"result show whole", "result-show", "{\"name\":\"whole\"}"},
		    {"result export whole --format csv", "result-export",
		     "{\"name\":\"whole\",\"format\":\"csv\"}"},
		    {"compare whole half", "compare", "{\"a\":\"whole\",\"b\":\"half\"}"},
		    {"compare it/a_iter_* it/b_iter_* (8 x 8)", "compare",
		     "{\"a\":\"it/a_iter_*\",\"b\":\"it/b_iter_*\"}"},
		    {"results", "results", "{}"},
		    {"trend irq.LOC.cpu1 --window whole", "trend",
		     "{\"metric\":\"irq.LOC.cpu1\",\"window\":\"whole\"}"},
		    {"series test.* --window whole (the stored block)", "series",
		     "{\"glob\":\"test.*\",\"window\":\"whole\"}"},
		};
		for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++)
			time_request(&d, reqs[i][0], reqs[i][1], reqs[i][2], 5);
	}

	window_free(d.windows);
	results_close(d.results);

	if (cadence_rounds > 0) {
		struct cadence_clock cc = {now, time_mono_ns()};
		uint64_t *cr = calloc((size_t)cadence_rounds, sizeof(*cr));
		uint64_t *cs = calloc((size_t)cadence_rounds, sizeof(*cs));
		unsigned iv =
		    interval_ms >= 0 ? (unsigned)interval_ms : (unsigned)cfg.sample_interval_ms;

		fprintf(stderr, "%d rounds at a cadence of %u ms...\n", cadence_rounds, iv);
		sampler_set_clock(d.sampler, cadence_now, &cc);
		for (int r = 0; r < cadence_rounds; r++) {
			uint64_t c0;
			put_step((rounds + r + 1) % steps);
			bench_pause_ms(iv);
			cr[r] = bare_read();
			bench_pause_ms(iv);
			c0 = bench_cpu_ns();
			sampler_sample_all(d.sampler);
			cs[r] = bench_cpu_ns() - c0;
			for (size_t i = 0; i < nsrc; i++)
				tsrc[i][r] = sampler_source_at(d.sampler, i)->last_cost_ns;
		}
		{
			printf("at a cadence of %u ms (%d rounds, each after a pause):\n", iv,
			       cadence_rounds);
			print_costs(d.sampler, "cadence ", cr, cs, tsrc, (size_t)cadence_rounds);
		}
		free(cr);
		free(cs);
	}

	query_free(d.query);
	sampler_free(d.sampler);
	config_free(&cfg);
	{
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf %s %s", root, state);
		if (system(cmd) != 0)
			return 1;
	}
	return 0;
}
