/* bench-prom.c: what a Prometheus scrape of the default set costs on the 144-CPU fixture
 * (gen-host.py: 144 CPUs, a 144-queue NIC, ~1,200 IRQ lines), at the daemon's cadence: each
 * round samples every source, pauses the sampling interval, reads bare every /proc file the
 * sources read (what an exporter that re-reads /proc per scrape pays at least, before any
 * parsing), pauses again and renders one scrape as GET /metrics does (http_prom_input,
 * prom_render, and http_gzip as Prometheus asks for gzip), timed in parts. Medians of the
 * interleaved rounds, in CPU time of the process; allocations of a steady scrape (target 0: nothing
 * grows with the scrapes). node_exporter's full scrape of the same host took ~0.8 s and 19 MB
 * (issue 19).
 *
 *   bench-prom [-g GEN_HOST_PY] [-c FIXTURE_DIR] [-k ROUNDS] [-i INTERVAL_MS]
 *
 * With -c the fixture is kept in FIXTURE_DIR and generated only when missing. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc-count.h"
#include "bench-util.h"
#include "config.h"
#include "error.h"
#include "http.h"
#include "prom.h"
#include "sampler.h"
#include "strbuf.h"

#ifndef GEN_HOST
#define GEN_HOST "tests/fixtures/gen-host.py"
#endif

/* The files of the bare read: kept open, read whole each round into one kept buffer. */
static int *bare_fds;
static size_t nbare;
static char *bare_buf;
static size_t bare_cap = 1u << 20;
static size_t root_len;

/* nftw: keep open a file the sources read every sample (/proc but its irq/ and sys/ trees,
 * which are read when the IRQs change, and the `ethtool -S` texts). */
static int
keep_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *rel = path + root_len;

	(void)st;
	(void)ftw;
	if (type != FTW_F)
		return 0;
	if (strncmp(rel, "/proc/", 6) == 0
	        ? strncmp(rel, "/proc/irq/", 10) == 0 || strncmp(rel, "/proc/sys/", 10) == 0
	        : strncmp(rel, "/ethtool/", 9) != 0 || strstr(rel, ".txt") == NULL)
		return 0;
	bare_fds = realloc(bare_fds, (nbare + 1) * sizeof(*bare_fds));
	if ((bare_fds[nbare] = open(path, O_RDONLY | O_CLOEXEC)) >= 0)
		nbare++;
	return 0;
}

/* Read every kept file whole: CPU ns. */
static uint64_t
read_bare(void)
{
	uint64_t c0 = bench_cpu_ns();

	for (size_t i = 0; i < nbare; i++) {
		off_t off = 0;
		ssize_t n;
		while ((n = pread(bare_fds[i], bare_buf, bare_cap, off)) > 0)
			off += n;
	}
	return bench_cpu_ns() - c0;
}

int
main(int argc, char **argv)
{
	const char *gen = GEN_HOST, *keep = NULL;
	char tmp[] = "/tmp/nm-bench-prom-XXXXXX", root[256], cmd[4096];
	int rounds = 20, interval_ms = -1, ch;
	struct config cfg;
	struct nm_error err;
	struct sampler *s;
	struct prom *p = prom_new();
	struct prom_source *srcs = NULL;
	size_t srccap = 0;
	struct strbuf out = STRBUF_INIT;
	struct prom_input in;
	struct prom_result res = {0};
	struct http_gzip gz = {0};
	uint64_t *tscrape, *tbare, *tgz;
	unsigned long allocs = 0;

	while ((ch = getopt(argc, argv, "g:c:k:i:")) != -1) {
		if (ch == 'g')
			gen = optarg;
		else if (ch == 'c')
			keep = optarg;
		else if (ch == 'k')
			rounds = atoi(optarg);
		else if (ch == 'i')
			interval_ms = atoi(optarg);
		else {
			fprintf(stderr, "usage: bench-prom [-g GEN_HOST_PY] [-c FIXTURE_DIR] "
			                "[-k ROUNDS] [-i INTERVAL_MS]\n");
			return 2;
		}
	}
	if (rounds < 1 || rounds > 100000 || interval_ms > 3600000 ||
	    (keep != NULL &&
	     (strlen(keep) > 200 || strspn(keep, "abcdefghijklmnopqrstuvwxyz"
	                                         "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                                         "0123456789/._-") != strlen(keep))))
		return 2;
	if (keep == NULL && mkdtemp(tmp) == NULL)
		return 1;
	snprintf(root, sizeof(root), "%s/root", keep != NULL ? keep : tmp);
	snprintf(cmd, sizeof(cmd),
	         "test -f %s/.complete || { rm -rf %s && mkdir -p %s && python3 %s %s >/dev/null "
	         "&& touch %s/.complete; }",
	         root, root, root, gen, root, root);
	fprintf(stderr, "fixture %s...\n", root);
	if (system(cmd) != 0) {
		fprintf(stderr, "bench-prom: %s failed\n", cmd);
		return 1;
	}
	root_len = strlen(root);
	nftw(root, keep_file, 32, FTW_PHYS);
	bare_buf = malloc(bare_cap);

	config_defaults(&cfg);
	free(cfg.root);
	cfg.root = strdup(root);
	if ((s = sampler_new(&cfg, &err)) == NULL) {
		fprintf(stderr, "bench-prom: %s\n", err.message);
		return 1;
	}
	if (prom_configure_from(p, &cfg, &err) < 0) { /* the default [prometheus] options */
		fprintf(stderr, "bench-prom: %s\n", err.message);
		return 1;
	}
	if (interval_ms < 0)
		interval_ms = (int)cfg.sample_interval_ms;
	tscrape = calloc((size_t)rounds, sizeof(*tscrape));
	tbare = calloc((size_t)rounds, sizeof(*tbare));
	tgz = calloc((size_t)rounds, sizeof(*tgz));
	/* Two samples and a first scrape: the registry is complete, the families are sorted. */
	sampler_sample_all(s);
	sampler_sample_all(s);
	http_prom_input(s, &srcs, &srccap, &in);
	prom_render(p, &in, PROM_TEXT, &out, &res);
	http_gzip(&gz, out.buf, out.len);
	fprintf(stderr, "%d rounds at a cadence of %d ms...\n", rounds, interval_ms);
	for (int r = 0; r < rounds; r++) {
		uint64_t c0;
		unsigned long a;

		sampler_sample_all(s);
		bench_pause_ms((unsigned)interval_ms / 2);
		tbare[r] = read_bare();
		bench_pause_ms((unsigned)interval_ms / 2);
		c0 = bench_cpu_ns();
		alloc_count_start();
		http_prom_input(s, &srcs, &srccap, &in);
		prom_render(p, &in, PROM_TEXT, &out, &res);
		tscrape[r] = bench_cpu_ns() - c0;
		c0 = bench_cpu_ns();
		http_gzip(&gz, out.buf, out.len);
		tgz[r] = bench_cpu_ns() - c0;
		a = alloc_count_stop();
		if (a > allocs)
			allocs = a;
	}
	{
		uint64_t ms = bench_median(tscrape, (size_t)rounds),
		         mb = bench_median(tbare, (size_t)rounds);
		uint64_t mg = bench_median(tgz, (size_t)rounds);
		printf("144-CPU fixture, default export set, one scrape per %d ms (%d rounds):\n",
		       interval_ms, rounds);
		printf("  series %zu (dropped %zu), body %zu bytes\n", res.series, res.dropped,
		       out.len);
		printf("  render (prom_render)  median %.3f ms CPU\n", ms / 1e6);
		printf("  gzip (level 1, to %zu bytes)  median %.3f ms CPU\n", gz.out.len,
		       mg / 1e6);
		printf("  scrape (render + gzip)  median %.3f ms CPU   target <= 5 ms\n",
		       (ms + mg) / 1e6);
		printf("  bare read of %zu /proc and ethtool files  median %.3f ms CPU\n", nbare,
		       mb / 1e6);
		printf("  scrape / bare read  %.2fx\n", mb ? (double)(ms + mg) / (double)mb : 0.0);
		printf("  allocations per steady scrape (most)  %lu   target 0\n", allocs);
		printf("  node_exporter on the same host (issue 19): ~800 ms, 19 MB per scrape\n");
	}
	free(tscrape);
	free(tbare);
	free(tgz);
	http_gzip_free(&gz);
	free(srcs);
	strbuf_free(&out);
	prom_free(p);
	sampler_free(s);
	config_free(&cfg);
	for (size_t i = 0; i < nbare; i++)
		close(bare_fds[i]);
	free(bare_fds);
	free(bare_buf);
	if (keep == NULL) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
		if (system(cmd) != 0)
			return 1;
	}
	return 0;
}
