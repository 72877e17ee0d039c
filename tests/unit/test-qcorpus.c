/* test-qcorpus.c: the driver corpus (tests/golden/ethtool-drivers): for each driver an
 * `ethtool -S` capture, DRIVER.txt, and what its per-queue figures are, DRIVER.expect,
 * written from the driver's naming (README.md there), not from this parser:
 *
 *   queues RX TX          the device has RX and TX queues now (sys/class/net/DEV/queues)
 *   note TEXT             what its figures lack, as the queues source must say it
 *   rx|tx N packets|bytes V   queue N's figure
 *   total rx|tx packets|bytes NAME   the capture's own counter NAME is the queues' sum
 *
 * Each capture is read by the queues source on a fixture root: every expected figure must
 * be there with its value and no other queue series may be (a slot of the driver's table
 * the device does not have, a per-port or XDP counter taken for a queue, packets invented
 * for a driver that counts bytes). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "series.h"
#include "source-harness.h"
#include "source-queues.h"
#include "source.h"

#ifndef CORPUS_DIR
#error CORPUS_DIR must name tests/golden/ethtool-drivers
#endif
#ifndef REAL_CORPUS_DIR
#error REAL_CORPUS_DIR must name tests/golden/ethtool-real
#endif

#define MAX_FILE (1u << 20)

/* The whole of a file, NUL-terminated (freed by the caller). */
static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = malloc(MAX_FILE);
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, MAX_FILE - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Drop the lines that start with '#' (a real capture's header: its source), in place. */
static void
strip_comments(char *text)
{
	char *r = text, *w = text;

	while (*r != '\0') {
		char *nl = strchr(r, '\n');
		size_t len = nl ? (size_t)(nl - r) + 1 : strlen(r);
		if (*r != '#') {
			memmove(w, r, len);
			w += len;
		}
		r += len;
	}
	*w = '\0';
}

/* The value of counter name in an ethtool -S text, or -1. */
static long long
capture_value(const char *text, const char *name)
{
	size_t nl = strlen(name);

	for (const char *p = text; (p = strstr(p, name)) != NULL; p += nl)
		if ((p == text || p[-1] == ' ') && strncmp(p + nl, ": ", 2) == 0)
			return strtoll(p + nl + 2, NULL, 10);
	return -1;
}

/* Make sys/class/net/dev/queues with rx-0..rx-(nrx-1) and tx-0..tx-(ntx-1). */
static void
make_queues(struct world *w, const char *dev, int nrx, int ntx)
{
	char rel[256];

	harness_mkdir(w, "sys");
	harness_mkdir(w, "sys/class");
	harness_mkdir(w, "sys/class/net");
	snprintf(rel, sizeof(rel), "sys/class/net/%s", dev);
	harness_mkdir(w, rel);
	snprintf(rel, sizeof(rel), "sys/class/net/%s/queues", dev);
	harness_mkdir(w, rel);
	for (int i = 0; i < nrx; i++) {
		snprintf(rel, sizeof(rel), "sys/class/net/%s/queues/rx-%d", dev, i);
		harness_mkdir(w, rel);
	}
	for (int i = 0; i < ntx; i++) {
		snprintf(rel, sizeof(rel), "sys/class/net/%s/queues/tx-%d", dev, i);
		harness_mkdir(w, rel);
	}
}

/* One driver of the corpus. */
static void
check_driver(const char *dir_path, const char *drv)
{
	char path[512], rel[128], name[160], dir[8], kind[16], tname[128];
	char *capture, *expect, *line, *save = NULL;
	const struct queue_dev *qd;
	const char *note = NULL;
	struct world w;
	size_t nexp = 0, nseries = 0, n;
	int nrx = -1, ntx = -1;
	unsigned q;
	unsigned long long v;

	snprintf(path, sizeof(path), "%s/%s.txt", dir_path, drv);
	capture = slurp(path);
	strip_comments(capture);
	snprintf(path, sizeof(path), "%s/%s.expect", dir_path, drv);
	expect = slurp(path);
	harness_init(&w, &source_queues_ops, NULL);
	harness_mkdir(&w, "ethtool");
	snprintf(rel, sizeof(rel), "ethtool/%s.txt", drv);
	harness_write(&w, rel, capture);
	for (line = strtok_r(expect, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "queues %d %d", &nrx, &ntx) == 2)
			make_queues(&w, drv, nrx, ntx);
	harness_start(&w);
	harness_sample(&w);
	free(expect);
	expect = slurp(path);
	save = NULL;
	for (line = strtok_r(expect, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%7s %u %15s %llu", dir, &q, kind, &v) == 4) {
			snprintf(name, sizeof(name), "queue.%s.%s%u.%s", drv, dir, q, kind);
			if (!harness_exists(&w, name))
				fail_msg("%s: no %s", drv, name);
			if (harness_value(&w, name) != v)
				fail_msg("%s: %s is %llu, want %llu", drv, name,
				         (unsigned long long)harness_value(&w, name), v);
			nexp++;
		} else if (sscanf(line, "total %7s %15s %127s", dir, kind, tname) == 3) {
			unsigned long long sum = 0;
			for (q = 0; q < 1024; q++) {
				snprintf(name, sizeof(name), "queue.%s.%s%u.%s", drv, dir, q, kind);
				if (series_find(&w.reg, name) != SERIES_NONE)
					sum += harness_value(&w, name);
			}
			if ((long long)sum != capture_value(capture, tname))
				fail_msg("%s: %s %s of the queues add up to %llu, %s is %lld", drv,
				         dir, kind, sum, tname, capture_value(capture, tname));
		} else if (strncmp(line, "note ", 5) == 0)
			note = line + 5;
	}
	/* No queue series but the expected ones. */
	snprintf(name, sizeof(name), "queue.%s.", drv);
	for (series_id id = 0; id < w.reg.n; id++) {
		const struct series_info *si = series_get(&w.reg, id);
		if (strncmp(si->name, name, strlen(name)) == 0 && si->live) {
			snprintf(tname, sizeof(tname), "%s", si->name + strlen(name));
			if (strstr(tname, ".packets") == NULL && strstr(tname, ".bytes") == NULL)
				continue;
			nseries++;
		}
	}
	if (nseries != nexp)
		fail_msg("%s: %zu queue series, %zu expected", drv, nseries, nexp);
	qd = source_queues_devices(&w.src, &n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(qd[i].dev, drv) == 0) {
			if (note == NULL && qd[i].note != NULL)
				fail_msg("%s: note \"%s\", none expected", drv, qd[i].note);
			if (note != NULL &&
			    (qd[i].note == NULL || strstr(qd[i].note, note) == NULL))
				fail_msg("%s: note \"%s\", want \"%s\"", drv,
				         qd[i].note ? qd[i].note : "(none)", note);
		}
	printf("%-12s %zu queue figures\n", drv, nexp);
	free(expect);
	free(capture);
	harness_free(&w);
}

/* Every capture (NAME.txt with NAME.expect) of directory dir_path; the number checked. For
 * each of the n names of required, whether a capture of that name was among them. */
static size_t
check_dir(const char *dir_path, const char *const *required, size_t n, size_t *seen)
{
	struct dirent *de;
	DIR *d = opendir(dir_path);
	size_t checked = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		char drv[128];
		if (l < 5 || strcmp(de->d_name + l - 4, ".txt") != 0 || l - 4 >= sizeof(drv))
			continue;
		memcpy(drv, de->d_name, l - 4);
		drv[l - 4] = '\0';
		check_driver(dir_path, drv);
		checked++;
		for (size_t i = 0; i < n; i++)
			*seen += strcmp(required[i], drv) == 0;
	}
	closedir(d);
	return checked;
}

/* Every driver of the constructed corpus, and at least the ones the issue names. */
static void
test_corpus(void **state)
{
	static const char *const required[] = {
	    "mlx5", "mlx4", "ice",        "i40e", "ixgbe", "igb", "bnxt_en", "ena", "gve",
	    "mana", "idpf", "virtio_net", "sfc",  "hns3",  "nfp", "qede",    "tg3", "veth"};
	size_t n = sizeof(required) / sizeof(required[0]), seen = 0;

	(void)state;
	check_dir(CORPUS_DIR, required, n, &seen);
	assert_int_equal(seen, n);
}

/* Every real capture (tests/golden/ethtool-real: public pastes, each with its source in a
 * header comment), at least these. */
static void
test_real_corpus(void **state)
{
	static const char *const required[] = {
	    "mlx5_core-ethq8", "mlx4_en-ethq21", "ice-ethq27",    "i40e-rocknsm246",
	    "bnx2x-ethq6",     "be2net-nu208",   "ena-ethq15",    "ena-dd",
	    "virtio-ethq12",   "virtio-nd17015", "virtio-dd",     "ixgbe-netmap152",
	    "igb-openwrt",     "mana-lore0314",  "gve-lore2009",  "gve-dd",
	    "hv_netvsc-dd",    "vmxnet3-xrdocs", "bnxt-lore0306", "idpf-lore2603"};
	size_t n = sizeof(required) / sizeof(required[0]), seen = 0;

	(void)state;
	assert_true(check_dir(REAL_CORPUS_DIR, required, n, &seen) >= n);
	assert_int_equal(seen, n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_corpus),
	    cmocka_unit_test(test_real_corpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
