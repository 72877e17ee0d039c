/* qpattern.c: the table of driver naming conventions for per-queue `ethtool -S` counters.
 *
 * A pattern is written
 *
 *	DIR KIND TERM [+ TERM ...]
 *
 * DIR is "rx" or "tx", KIND is "packets" or "bytes", and each TERM is a counter name with
 * exactly one "%u" where the queue index goes (no other '%'). A term matches a whole name,
 * never a part of it: "rx%u_packets" matches "rx7_packets" but not "rx_prio7_packets" nor
 * "rx7_lro_packets". When a pattern has several terms the queue's value is their sum (bnxt_en
 * counts unicast, multicast and broadcast apart). Terms may contain spaces and colons; they
 * are separated by a '+' with blanks around it.
 *
 * In [source.queues] every `pattern = ...` line is tried before the built-in table below, in
 * the order given; `builtin-patterns = no` drops the built-ins. Examples:
 *
 *	pattern = rx packets rx_queue_%u_packets
 *	pattern = rx packets [%u]: rx_ucast_packets + [%u]: rx_mcast_packets
 *
 * The order of counters in `ethtool -S` is not queue order; the index is always parsed. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "qpattern.h"
#include "xmalloc.h"

/* The built-in conventions (real captures; see KERNEL-NOTES.md). More specific first. */
static const char *const builtin_patterns[] = {
    /* ixgbe, igb, ice, hv_netvsc, older virtio_net */
    "rx packets rx_queue_%u_packets",
    "rx bytes rx_queue_%u_bytes",
    "tx packets tx_queue_%u_packets",
    "tx bytes tx_queue_%u_bytes",
    /* mlx5 */
    "rx packets rx%u_packets",
    "rx bytes rx%u_bytes",
    "tx packets tx%u_packets",
    "tx bytes tx%u_bytes",
    /* i40e, sfc */
    "rx packets rx-%u.rx_packets",
    "rx bytes rx-%u.rx_bytes",
    "tx packets tx-%u.tx_packets",
    "tx bytes tx-%u.tx_bytes",
    /* iavf, out-of-tree i40e */
    "rx packets rx-%u.packets",
    "rx bytes rx-%u.bytes",
    "tx packets tx-%u.packets",
    "tx bytes tx-%u.bytes",
    /* ena */
    "rx packets queue_%u_rx_cnt",
    "rx bytes queue_%u_rx_bytes",
    "tx packets queue_%u_tx_cnt",
    "tx bytes queue_%u_tx_bytes",
    /* bnxt_en */
    "rx packets [%u]: rx_ucast_packets + [%u]: rx_mcast_packets + [%u]: rx_bcast_packets",
    "rx bytes [%u]: rx_ucast_bytes + [%u]: rx_mcast_bytes + [%u]: rx_bcast_bytes",
    "tx packets [%u]: tx_ucast_packets + [%u]: tx_mcast_packets + [%u]: tx_bcast_packets",
    "tx bytes [%u]: tx_ucast_bytes + [%u]: tx_mcast_bytes + [%u]: tx_bcast_bytes",
    /* be2net */
    "rx packets rxq%u: rx_pkts",
    "rx bytes rxq%u: rx_bytes",
    "tx packets txq%u: tx_pkts",
    "tx bytes txq%u: tx_bytes",
};

/* Start an empty table. */
void
qpattern_table_init(struct qpattern_table *t)
{
	memset(t, 0, sizeof(*t));
}

/* Release the table's patterns. */
void
qpattern_table_free(struct qpattern_table *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* Append p to t. */
static void
table_push(struct qpattern_table *t, const struct qpattern *p)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 32;
		t->v = xreallocarray(t->v, t->cap, sizeof(*t->v));
	}
	t->v[t->n++] = *p;
}

/* Append the built-in driver conventions. */
void
qpattern_table_add_builtin(struct qpattern_table *t)
{
	for (size_t i = 0; i < sizeof(builtin_patterns) / sizeof(builtin_patterns[0]); i++)
		if (qpattern_table_add(t, builtin_patterns[i], NULL) < 0)
			abort(); /* our own table is wrong */
}

/* Append a copy of every pattern of src. */
void
qpattern_table_append(struct qpattern_table *t, const struct qpattern_table *src)
{
	for (size_t i = 0; i < src->n; i++)
		table_push(t, &src->v[i]);
}

/* Copy the word at *s (up to a blank) into w; advance *s past it and the blanks after. */
static size_t
take_word(const char **s, char *w, size_t size)
{
	size_t n = 0;

	while (**s != '\0' && !isspace((unsigned char)**s)) {
		if (n + 1 < size)
			w[n] = **s;
		n++;
		(*s)++;
	}
	w[n < size ? n : size - 1] = '\0';
	while (isspace((unsigned char)**s))
		(*s)++;
	return n;
}

/* Check one term: exactly one "%u" and no other '%'. */
static bool
term_valid(const char *term)
{
	const char *pc = strchr(term, '%');

	return pc != NULL && pc[1] == 'u' && strchr(pc + 2, '%') == NULL;
}

/* Store term s[0..len) (trimmed) as the next term of p; 0 or -1 with err. */
static int
add_term(struct qpattern *p, const char *s, size_t len, struct nm_error *err)
{
	char *dst;

	while (len > 0 && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	if (len == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "pattern: empty term");
	if (p->nterms == QPATTERN_MAX_TERMS)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "pattern: more than %d terms",
		                    QPATTERN_MAX_TERMS);
	if (len >= QPATTERN_TERM_LEN)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "pattern: term \"%.*s\" too long",
		                    (int)len, s);
	dst = p->terms[p->nterms];
	memcpy(dst, s, len);
	dst[len] = '\0';
	if (!term_valid(dst))
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "pattern: term \"%s\" needs exactly one %%u", dst);
	p->nterms++;
	return 0;
}

/* Parse one "DIR KIND TERM [+ TERM ...]" pattern and append it. */
int
qpattern_table_add(struct qpattern_table *t, const char *spec, struct nm_error *err)
{
	struct qpattern p;
	char word[16];
	const char *s = spec, *plus;

	memset(&p, 0, sizeof(p));
	while (isspace((unsigned char)*s))
		s++;
	take_word(&s, word, sizeof(word));
	if (strcmp(word, "rx") == 0)
		p.dir = QPATTERN_RX;
	else if (strcmp(word, "tx") == 0)
		p.dir = QPATTERN_TX;
	else
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "pattern \"%s\": direction must be rx or tx", spec);
	take_word(&s, word, sizeof(word));
	if (strcmp(word, "packets") == 0)
		p.kind = QPATTERN_PACKETS;
	else if (strcmp(word, "bytes") == 0)
		p.kind = QPATTERN_BYTES;
	else
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "pattern \"%s\": kind must be packets or bytes", spec);
	/* Terms are separated by a '+' with a blank on each side. */
	for (;;) {
		plus = strstr(s, " + ");
		if (plus == NULL)
			break;
		if (add_term(&p, s, (size_t)(plus - s), err) < 0)
			return -1;
		s = plus + 3;
	}
	if (add_term(&p, s, strlen(s), err) < 0)
		return -1;
	table_push(t, &p);
	return 0;
}

/* Match a whole name against a term, digits standing for %u. */
bool
qpattern_term_match(const char *term, const char *name, uint32_t *queue)
{
	const char *pc = strstr(term, "%u");
	size_t plen = (size_t)(pc - term);
	uint32_t v = 0;

	if (strncmp(term, name, plen) != 0)
		return false;
	name += plen;
	if (*name < '0' || *name > '9')
		return false;
	for (; *name >= '0' && *name <= '9'; name++) {
		v = v * 10 + (uint32_t)(*name - '0');
		if (v > QPATTERN_MAX_QUEUE)
			return false;
	}
	if (strcmp(pc + 2, name) != 0)
		return false;
	*queue = v;
	return true;
}

/* The first pattern (and the term in it) that name fits; false when none does. */
static bool
match_name(const struct qpattern_table *t, const char *name, size_t *pat, uint32_t *queue)
{
	for (size_t i = 0; i < t->n; i++)
		for (unsigned j = 0; j < t->v[i].nterms; j++)
			if (qpattern_term_match(t->v[i].terms[j], name, queue)) {
				*pat = i;
				return true;
			}
	return false;
}

/* Map counter names to queues, one convention per direction and kind. */
size_t
qpattern_map(const struct qpattern_table *t, const char *names, size_t stride, size_t n,
             struct qpattern_hit **hits, size_t *cap)
{
	size_t best[2][2] = {{SIZE_MAX, SIZE_MAX}, {SIZE_MAX, SIZE_MAX}};
	size_t nhits = 0, kept = 0, pat, *pats;
	uint32_t queue;

	/* First pass: every counter that fits a pattern is a candidate, and the earliest
	 * pattern per direction and kind wins. Second pass: keep the winners' counters. */
	pats = xreallocarray(NULL, n ? n : 1, sizeof(*pats));
	for (size_t i = 0; i < n; i++) {
		const struct qpattern *p;
		if (!match_name(t, names + i * stride, &pat, &queue))
			continue;
		p = &t->v[pat];
		if (pat < best[p->dir][p->kind])
			best[p->dir][p->kind] = pat;
		if (nhits == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			*hits = xreallocarray(*hits, *cap, sizeof(**hits));
		}
		pats[nhits] = pat;
		(*hits)[nhits].counter = (uint32_t)i;
		(*hits)[nhits].queue = queue;
		(*hits)[nhits].dir = p->dir;
		(*hits)[nhits].kind = p->kind;
		nhits++;
	}
	for (size_t i = 0; i < nhits; i++) {
		struct qpattern_hit *h = &(*hits)[i];
		if (best[h->dir][h->kind] == pats[i])
			(*hits)[kept++] = *h;
	}
	free(pats);
	return kept;
}
