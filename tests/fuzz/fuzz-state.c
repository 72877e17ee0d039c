/* fuzz-state.c: the readers of the files of the state directory, on arbitrary file contents
 * of at most 1 MiB. The first byte chooses the file (its value mod 4); the rest is what the
 * file holds, written into a scratch state directory made once per process (below $TMPDIR,
 * removed at exit), and read back through the daemon's own entry points:
 *   0  results/r.json: results_get (statefile_read_json and results_check), then what the
 *      commands do with a result handed out: compare_flatten, compare_results (one and
 *      two a side: statistics and tuning warnings), compare_summary, report_to_csv and
 *      report_csv_table. A result handed out is an object whose checked members have their
 *      kinds; a refusal says why.
 *   1  profile/applied.json and profile/saved.json (the same bytes): profile_state_status on
 *      a scratch root with 4 CPUs, which checks every saved entry (entry_from_json) and
 *      reads the live values it names (none exist there); profile_state_applied_brief.
 *   2  suites/s.json: suite_status, the record with its summary (record_ok, summary_of).
 *   3  windows/w.json, the marker of a window a crash left open: window_init's recovery,
 *      which stores it as an incomplete result (deleted again after).
 * A first byte of '4' or '5' (ahead of the mod 4 choice, which the corpus's '0'-'3' keep):
 *   '4' results/r.series, the series block stored with a result: results_series_get
 *      (seriesblock_decode), then a query over the block (query_new_block): its span,
 *      every series' rate over it and over its steps, query_align.
 *   '5' the same past zlib's check: seriesblock_parse of a decompressed payload.
 * Nothing may crash or abort; each answer is an object or an error with a message. */
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "compare.h"
#include "daemon.h"
#include "error.h"
#include "log.h"
#include "profile.h"
#include "report-csv.h"
#include "query.h"
#include "results.h"
#include "seriesblock.h"
#include "statefile.h"
#include "suite.h"
#include "window.h"

#define FUZZ_MAX_INPUT (1u << 20)

/* The scratch directories and what is opened on them, once per process. */
static struct {
	char base[256];
	char state[300];
	char root[300];
	struct daemon d;
	struct results *rs;
	struct suites *ss;
	struct profile_host h;
} fz;

/* Remove one entry of the scratch tree (nftw callback). */
static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void
cleanup(void)
{
	profile_host_close(&fz.h);
	suite_free(fz.ss);
	results_close(fz.rs);
	nftw(fz.base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Write data[0..size) to STATE/rel (its directory exists). */
static void
put_file(const char *rel, const uint8_t *data, size_t size)
{
	char path[400];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", fz.state, rel);
	fp = fopen(path, "wb");
	fuzz_check(fp != NULL);
	fuzz_check(fwrite(data, 1, size, fp) == size);
	fuzz_check(fclose(fp) == 0);
}

/* Make the scratch state directory and root, and open what reads them. */
static void
setup(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[400];
	struct nm_error err;
	FILE *fp;

	/* Refusals are expected by the thousand: only errors are worth a line. */
	log_init("fuzz-state", LOG_TARGET_STDERR, LOG_LEVEL_ERR);
	snprintf(fz.base, sizeof(fz.base), "%s/nm-fuzz-state-XXXXXX", tmp ? tmp : "/tmp");
	fuzz_check(mkdtemp(fz.base) != NULL);
	atexit(cleanup);
	snprintf(fz.state, sizeof(fz.state), "%s/state", fz.base);
	snprintf(fz.root, sizeof(fz.root), "%s/root", fz.base);
	fuzz_check(mkdir(fz.state, 0700) == 0 && mkdir(fz.root, 0700) == 0);
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu", fz.root);
	for (char *s = path + strlen(fz.root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(path, 0700);
			*s = '/';
		}
	fuzz_check(mkdir(path, 0700) == 0);
	strcat(path, "/online");
	fp = fopen(path, "w");
	fuzz_check(fp != NULL);
	fputs("0-3\n", fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/profile", fz.state);
	fuzz_check(mkdir(path, 0700) == 0);
	fz.rs = results_open(fz.state, &err);
	fuzz_check(fz.rs != NULL);
	/* The index knows r before its bytes change in each run. */
	put_file("results/r.json", (const uint8_t *)"{}", 2);
	results_close(fz.rs);
	fz.rs = results_open(fz.state, &err);
	fuzz_check(fz.rs != NULL && results_exists(fz.rs, "r"));
	fz.d.config.state_dir = fz.state;
	fz.d.results = fz.rs;
	fz.ss = suite_init(&fz.d, &err);
	fuzz_check(fz.ss != NULL);
	fuzz_check(profile_host_open(&fz.h, fz.root, &err) == 0);
}

/* Count the figures compare_flatten finds. */
static void
count_figure(const char *path, double v, void *arg)
{
	(void)v;
	fuzz_check(path != NULL);
	(*(size_t *)arg)++;
}

/* An error has a code and a message. */
static void
check_error(const struct nm_error *err)
{
	fuzz_check(err->code != NM_OK);
	fuzz_check(err->message[0] != '\0');
}

/* 0: a stored result and what the commands do with it. */
static void
fuzz_result(const uint8_t *data, size_t size)
{
	struct nm_error err;
	json_object *r, *cmp;
	size_t n = 0;
	json_object *two[2];
	char *csv;

	put_file("results/r.json", data, size);
	if ((r = results_get(fz.rs, "r", &err)) == NULL) {
		check_error(&err);
		return;
	}
	fuzz_check(json_object_is_type(r, json_type_object));
	fuzz_check(results_check(r, &err) == 0);
	compare_flatten(r, count_figure, &n);
	cmp = compare_results(&r, 1, &r, 1);
	fuzz_check(json_object_is_type(cmp, json_type_object));
	json_object_put(cmp);
	/* Two a side: the statistics, Welch's test, the tuning warnings; the summary. */
	two[0] = two[1] = r;
	cmp = compare_results(two, 2, two, 2);
	fuzz_check(json_object_is_type(cmp, json_type_object));
	json_object_put(cmp);
	cmp = compare_summary(two, 2, two, 1);
	fuzz_check(json_object_is_type(cmp, json_type_object));
	json_object_put(cmp);
	csv = report_to_csv(r);
	fuzz_check(csv != NULL && strncmp(csv, "group,", 6) == 0);
	free(csv);
	csv = report_csv_table(two, 2);
	fuzz_check(csv != NULL && strncmp(csv, "name,", 5) == 0);
	free(csv);
	json_object_put(r);
}

/* 1: the saved and applied profile state. */
static void
fuzz_profile_state(const uint8_t *data, size_t size)
{
	json_object *st;

	put_file("profile/applied.json", data, size);
	put_file("profile/saved.json", data, size);
	st = profile_state_status(fz.state, &fz.h);
	fuzz_check(json_object_is_type(st, json_type_object));
	json_object_put(st);
	st = profile_state_applied_brief(fz.state);
	fuzz_check(st == NULL || json_object_is_type(st, json_type_object));
	json_object_put(st);
}

/* 2: a suite's record. */
static void
fuzz_suite(const uint8_t *data, size_t size)
{
	struct nm_error err;
	json_object *st;

	put_file("suites/s.json", data, size);
	if ((st = suite_status(fz.ss, "s", &err)) == NULL) {
		check_error(&err);
		return;
	}
	fuzz_check(json_object_is_type(st, json_type_object));
	json_object_put(st);
}

/* 3: the marker of a window left open, recovered at start. */
static void
fuzz_marker(const uint8_t *data, size_t size)
{
	struct nm_error err;
	struct windows *ws;
	char path[400];

	snprintf(path, sizeof(path), "%s/windows", fz.state);
	mkdir(path, 0700);
	put_file("windows/w.json", data, size);
	ws = window_init(NULL, fz.rs, fz.state, &err);
	fuzz_check(ws != NULL);
	window_free(ws);
	/* Recovered (stored as incomplete, the marker gone), or left for the next start. */
	if (results_exists(fz.rs, "w")) {
		json_object *r = results_get(fz.rs, "w", &err);
		fuzz_check(r != NULL);
		json_object_put(r);
		fuzz_check(results_delete(fz.rs, "w", &err) == 0);
	}
}

/* What a query over a block answers: within its span, for every series. */
static void
query_block(struct seriesblock *b)
{
	struct query *q = query_new_block(NULL, b);
	uint64_t lo, hi, t0, t1;
	struct nm_error err;

	fuzz_check(query_bounds(q, &lo, &hi) == 0);
	for (int k = 0; k <= 4; k++) {
		uint64_t a = lo + (hi - lo) / 4 * (uint64_t)(k > 0 ? k - 1 : 0);
		fuzz_check(query_span(q, a, k == 0 ? hi : a + (hi - lo) / 4, &err) == 0);
		fuzz_check(query_t0(q) >= lo && query_t1(q) <= hi);
		for (series_id id = 0; id < query_registry(q)->n; id++) {
			(void)query_rate(q, id);
			(void)query_value_end(q, id);
		}
	}
	if (query_registry(q)->n > 0) {
		t0 = lo;
		t1 = hi;
		query_align(q, 0, &t0, &t1);
	}
	query_free(q);
	seriesblock_free(b);
}

/* '4': a stored series block, as a view of a window the ring no longer holds reads it. */
static void
fuzz_series(const uint8_t *data, size_t size)
{
	struct seriesblock *b;
	struct nm_error err;

	put_file("results/r.series", data, size);
	if ((b = results_series_get(fz.rs, "r", 0, &err)) == NULL) {
		check_error(&err);
		return;
	}
	query_block(b);
}

/* '5': a block's payload, decompressed. */
static void
fuzz_series_payload(const uint8_t *data, size_t size)
{
	struct seriesblock *b;
	struct nm_error err;

	if ((b = seriesblock_parse(data, size, 0, &err)) == NULL) {
		check_error(&err);
		return;
	}
	query_block(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;

	if (size == 0 || size > FUZZ_MAX_INPUT)
		return 0;
	if (!ready) {
		setup();
		ready = true;
	}
	if (data[0] == '4' || data[0] == '5') {
		(data[0] == '4' ? fuzz_series : fuzz_series_payload)(data + 1, size - 1);
		return 0;
	}
	switch (data[0] % 4) {
	case 0:
		fuzz_result(data + 1, size - 1);
		break;
	case 1:
		fuzz_profile_state(data + 1, size - 1);
		break;
	case 2:
		fuzz_suite(data + 1, size - 1);
		break;
	default:
		fuzz_marker(data + 1, size - 1);
		break;
	}
	return 0;
}
