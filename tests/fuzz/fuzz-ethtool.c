/* fuzz-ethtool.c: `ethtool -S` text and per-queue counter patterns, on arbitrary input of
 * at most 256 KiB.
 *
 * The input is the text of two reads of one device, the second after the first form feed
 * ('\f') if there is one, else the same bytes again. Each line that starts with
 * "pattern = " is also a [source.queues] pattern (at most FUZZ_MAX_PATTERNS), tried before
 * the built-in table as source-queues.c does. Each read is parsed with ethtool_parse_text
 * into the same struct ethtool_counters and, when its generation moved, mapped to queues
 * with qpattern_map. Every hit must name a counter that a pattern of its direction and kind
 * matches with its queue, and a read of the same text again must not move the
 * generation. The two reads also go through ethtool_parse_text_since (the second given the
 * first), which must give what ethtool_parse_text gives: counters, names, values, skipped
 * lines, the generation's move and the changed list. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "error.h"
#include "ethtool.h"
#include "qpattern.h"

#define FUZZ_MAX_INPUT    (256u << 10)
#define FUZZ_MAX_PATTERNS 32
#define FUZZ_MAX_SPEC     512 /* longer pattern lines are cut */

/* Add the "pattern = " lines of the input to t, as configure would. */
static void
add_patterns(struct qpattern_table *t, const uint8_t *data, size_t size)
{
	static const char key[] = "pattern = ";
	const char *p = (const char *)data, *end = p + size, *nl;
	char spec[FUZZ_MAX_SPEC + 1];
	struct nm_error err;
	size_t len, npat = 0;

	for (; p < end && npat < FUZZ_MAX_PATTERNS; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		len = (size_t)(nl - p);
		if (len < sizeof(key) - 1 || memcmp(p, key, sizeof(key) - 1) != 0)
			continue;
		len -= sizeof(key) - 1;
		if (len > FUZZ_MAX_SPEC)
			len = FUZZ_MAX_SPEC;
		memcpy(spec, p + sizeof(key) - 1, len);
		spec[len] = '\0';
		nm_error_clear(&err);
		if (qpattern_table_add(t, spec, &err) < 0)
			fuzz_check(err.message[0] != '\0');
		npat++;
	}
}

/* Whether name k of ec matches an occurrence term ("NAME#%u": the same name once per queue)
 * with queue q: the name is NAME and q names before it are NAME too. */
static bool
occurrence_explains(const char *term, const struct ethtool_counters *ec, uint32_t k, uint32_t q)
{
	size_t l = strlen(term), n;
	uint32_t before = 0;

	if (l <= 3 || strcmp(term + l - 3, "#%u") != 0)
		return false;
	n = l - 3;
	if (strlen(ec->names[k]) != n || memcmp(ec->names[k], term, n) != 0)
		return false;
	for (uint32_t i = 0; i < k; i++)
		before += strlen(ec->names[i]) == n && memcmp(ec->names[i], term, n) == 0;
	return before == q;
}

/* Whether a pattern of the hit's direction and kind matches its counter with its queue. */
static bool
hit_explained(const struct qpattern_table *t, const struct qpattern_hit *h,
              const struct ethtool_counters *ec)
{
	const char *name = ec->names[h->counter];
	uint32_t queue;

	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].dir != h->dir || t->v[i].kind != h->kind)
			continue;
		for (unsigned j = 0; j < t->v[i].nterms; j++) {
			if (qpattern_term_match(t->v[i].terms[j], name, &queue) &&
			    queue == h->queue)
				return true;
			if (occurrence_explains(t->v[i].terms[j], ec, h->counter, h->queue))
				return true;
		}
	}
	return false;
}

/* Map the counters to queues and check every hit. */
static void
map_queues(const struct qpattern_table *t, const struct ethtool_counters *ec,
           struct qpattern_hit **hits, size_t *cap)
{
	size_t n;

	if (ec->n == 0)
		return;
	n = qpattern_map(t, ec->names[0], sizeof(ec->names[0]), ec->n, hits, cap);
	fuzz_check(n <= *cap);
	for (size_t i = 0; i < n; i++) {
		const struct qpattern_hit *h = &(*hits)[i];

		fuzz_check(h->counter < ec->n && h->queue <= QPATTERN_MAX_QUEUE);
		fuzz_check(h->dir <= QPATTERN_TX && h->kind <= QPATTERN_BYTES);
		fuzz_check(hit_explained(t, h, ec));
	}
}

/* Parse one read into ec and map it again when its names changed. */
static void
read_text(const struct qpattern_table *t, const uint8_t *data, size_t size,
          struct ethtool_counters *ec, struct qpattern_hit **hits, size_t *cap)
{
	unsigned gen = ec->generation;

	ethtool_parse_text((const char *)data, size, ec);
	fuzz_check(ec->loaded && ec->n <= ec->cap);
	for (uint32_t i = 0; i < ec->n; i++)
		fuzz_check(memchr(ec->names[i], '\0', sizeof(ec->names[i])) != NULL);
	if (ec->generation != gen)
		map_queues(t, ec, hits, cap);
}

/* since, parsed from a text given the text before, holds what ec does, ec's parse of the same
 * text having returned sk and moved the generation when moved. */
static void
check_since(const struct ethtool_counters *since, const struct ethtool_counters *ec, size_t sk,
            size_t since_sk, bool moved, bool since_moved)
{
	fuzz_check(since_sk == sk && since->n == ec->n && since_moved == moved);
	for (uint32_t i = 0; i < ec->n; i++)
		fuzz_check(strcmp(since->names[i], ec->names[i]) == 0 &&
		           since->values[i] == ec->values[i]);
	if (moved)
		return;
	fuzz_check(since->nchanged == ec->nchanged);
	for (uint32_t i = 0; i < ec->nchanged; i++)
		fuzz_check(since->changed[i] == ec->changed[i]);
}

/* The reads of a and then b through ethtool_parse_text_since against ethtool_parse_text. */
static void
compare_since(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	struct ethtool_counters ec, since;
	unsigned g, sg;
	size_t sk, ssk;

	ethtool_counters_init(&ec);
	ethtool_counters_init(&since);
	g = ec.generation;
	sg = since.generation;
	sk = ethtool_parse_text((const char *)a, alen, &ec);
	ssk = ethtool_parse_text_since((const char *)a, alen, NULL, 0, &since);
	check_since(&since, &ec, sk, ssk, ec.generation != g, since.generation != sg);
	g = ec.generation;
	sg = since.generation;
	sk = ethtool_parse_text((const char *)b, blen, &ec);
	ssk = ethtool_parse_text_since((const char *)b, blen, (const char *)a, alen, &since);
	check_since(&since, &ec, sk, ssk, ec.generation != g, since.generation != sg);
	ethtool_counters_free(&ec);
	ethtool_counters_free(&since);
}

/* libFuzzer's entry point: two reads of one device, parsed and mapped. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ethtool_counters ec;
	struct qpattern_table t;
	struct qpattern_hit *hits = NULL;
	const uint8_t *ff, *b;
	size_t cap = 0, alen, blen;
	unsigned gen;

	if (size > FUZZ_MAX_INPUT)
		return 0;
	qpattern_table_init(&t);
	add_patterns(&t, data, size);
	qpattern_table_add_builtin(&t);
	ethtool_counters_init(&ec);
	ff = size > 0 ? memchr(data, '\f', size) : NULL;
	alen = ff != NULL ? (size_t)(ff - data) : size;
	b = ff != NULL ? ff + 1 : data;
	blen = ff != NULL ? size - alen - 1 : size;

	read_text(&t, data, alen, &ec, &hits, &cap);
	read_text(&t, b, blen, &ec, &hits, &cap);
	/* The same text again: the names did not change. */
	gen = ec.generation;
	read_text(&t, b, blen, &ec, &hits, &cap);
	fuzz_check(ec.generation == gen);
	compare_since(data, alen, b, blen);

	free(hits);
	ethtool_counters_free(&ec);
	qpattern_table_free(&t);
	return 0;
}
