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
 * A term that ends in "#%u" counts occurrences instead: "ucast pkts tx#%u" matches a name that
 * is "ucast pkts tx" exactly, and the queue is how many names of the same text came before it
 * in the driver's list (vmxnet3 names every queue's counters the same, after a "Tx Queue#: N"
 * line, queue after queue in order).
 *
 * In [source.queues] every `pattern = ...` line is tried before the built-in table below, in
 * the order given; `builtin-patterns = no` drops the built-ins. Examples:
 *
 *	pattern = rx packets rx_queue_%u_packets
 *	pattern = rx packets [%u]: rx_ucast_packets + [%u]: rx_mcast_packets
 *
 * The order of counters in `ethtool -S` is not queue order; the index is always parsed. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "qpattern.h"
#include "xmalloc.h"

/* Every driver's per-queue `ethtool -S` naming: the driver as `ethtool -i` names it, the
 * kernel file that makes the names (below drivers/net/ethernet/ unless a path says
 * otherwise), the term of queue N's rx packets, rx bytes, tx packets and tx bytes (NULL:
 * the driver has none), and what a reader must know. Tried in this order, more specific
 * first; a name shared by several drivers is one pattern, of the first row that has it. */
static const struct qpattern_driver qpattern_drivers[] = {
    {"ixgbe", "intel/ixgbe/ixgbe_ethtool.c", "rx_queue_%u_packets", "rx_queue_%u_bytes",
     "tx_queue_%u_packets", "tx_queue_%u_bytes",
     NULL}, /* lists every slot of its table (64): a device's current queues only count */
    {"igb", "intel/igb/igb_ethtool.c", "rx_queue_%u_packets", "rx_queue_%u_bytes",
     "tx_queue_%u_packets", "tx_queue_%u_bytes", NULL},
    {"ice", "intel/ice/ice_ethtool.c", "rx_queue_%u_packets", "rx_queue_%u_bytes",
     "tx_queue_%u_packets", "tx_queue_%u_bytes", NULL},
    {"hv_netvsc", "drivers/net/hyperv/netvsc_drv.c", "rx_queue_%u_packets", "rx_queue_%u_bytes",
     "tx_queue_%u_packets", "tx_queue_%u_bytes", NULL},
    {"virtio_net", "drivers/net/virtio_net.c (before 6.10; since, rx<N>_* without packets)",
     "rx_queue_%u_packets", "rx_queue_%u_bytes", "tx_queue_%u_packets", "tx_queue_%u_bytes", NULL},
    {"mlx5_core", "mellanox/mlx5/core/en_stats.c", "rx%u_packets", "rx%u_bytes", "tx%u_packets",
     "tx%u_bytes", NULL},
    {"mlx4_en", "mellanox/mlx4/en_ethtool.c", "rx%u_packets", "rx%u_bytes", "tx%u_packets",
     "tx%u_bytes", NULL},
    {"i40e", "intel/i40e/i40e_ethtool.c (before 4.17)", "rx-%u.rx_packets", "rx-%u.rx_bytes",
     "tx-%u.tx_packets", "tx-%u.tx_bytes", NULL},
    {"sfc", "sfc/ethtool_common.c", "rx-%u.rx_packets", NULL, "tx-%u.tx_packets", NULL,
     "sfc counts packets per queue, not bytes"},
    {"i40e", "intel/i40e/i40e_ethtool.c", "rx-%u.packets", "rx-%u.bytes", "tx-%u.packets",
     "tx-%u.bytes", NULL},
    {"iavf", "intel/iavf/iavf_ethtool.c", "rx-%u.packets", "rx-%u.bytes", "tx-%u.packets",
     "tx-%u.bytes", NULL},
    {"ena", "amazon/ena/ena_ethtool.c", "queue_%u_rx_cnt", "queue_%u_rx_bytes", "queue_%u_tx_cnt",
     "queue_%u_tx_bytes", NULL},
    {"bnxt_en", "broadcom/bnxt/bnxt_ethtool.c",
     "[%u]: rx_ucast_packets + [%u]: rx_mcast_packets + [%u]: rx_bcast_packets",
     "[%u]: rx_ucast_bytes + [%u]: rx_mcast_bytes + [%u]: rx_bcast_bytes",
     "[%u]: tx_ucast_packets + [%u]: tx_mcast_packets + [%u]: tx_bcast_packets",
     "[%u]: tx_ucast_bytes + [%u]: tx_mcast_bytes + [%u]: tx_bcast_bytes", NULL},
    {"bnx2x", "broadcom/bnx2x/bnx2x_ethtool.c",
     "[%u]: rx_ucast_packets + [%u]: rx_mcast_packets + [%u]: rx_bcast_packets", "[%u]: rx_bytes",
     "[%u]: tx_ucast_packets + [%u]: tx_mcast_packets + [%u]: tx_bcast_packets", "[%u]: tx_bytes",
     NULL}, /* packets as bnxt_en's; bytes one counter per direction (a real capture) */
    {"be2net", "emulex/benet/be_ethtool.c", "rxq%u: rx_pkts", "rxq%u: rx_bytes", "txq%u: tx_pkts",
     "txq%u: tx_bytes", NULL},
    {"mana", "microsoft/mana/mana_ethtool.c", "rx_%u_packets", "rx_%u_bytes", "tx_%u_packets",
     "tx_%u_bytes", NULL},
    {"idpf", "intel/idpf/idpf_ethtool.c", "rx_q-%u_pkts", "rx_q-%u_bytes", "tx_q-%u_pkts",
     "tx_q-%u_bytes", NULL}, /* lists max_rxq/max_txq slots, unused ones 0 */
    {"gve", "google/gve/gve_ethtool.c", NULL, "rx_bytes[%u]", NULL, "tx_bytes[%u]",
     "gve counts bytes per queue, not packets (rx_completed_desc[N] and tx_completed_desc[N] "
     "count descriptors)"},
    {"hns3", "hisilicon/hns3/hns3_ethtool.c", "rxq%u_packets", "rxq%u_bytes", "txq%u_packets",
     "txq%u_bytes", NULL},
    {"nfp", "netronome/nfp/nfp_net_ethtool.c", "rxq_%u_pkts", "rxq_%u_bytes", "txq_%u_pkts",
     "txq_%u_bytes", NULL},
    {"qede", "qlogic/qede/qede_ethtool.c", "%u: rcv_pkts", NULL,
     "%u_0: xmit_pkts + %u_1: xmit_pkts + %u_2: xmit_pkts + %u_3: xmit_pkts", NULL,
     "qede counts packets per queue, not bytes (tx per traffic class, summed)"},
    {"vmxnet3", "drivers/net/vmxnet3/vmxnet3_ethtool.c",
     "ucast pkts rx#%u + mcast pkts rx#%u + bcast pkts rx#%u",
     "ucast bytes rx#%u + mcast bytes rx#%u + bcast bytes rx#%u",
     "ucast pkts tx#%u + mcast pkts tx#%u + bcast pkts tx#%u",
     "ucast bytes tx#%u + mcast bytes tx#%u + bcast bytes tx#%u",
     NULL}, /* the same names per queue: by occurrence; summed as vmxnet3_get_stats64 does */
    {"tg3", "broadcom/tg3.c", NULL, NULL, NULL, NULL,
     "tg3 has no per-queue counters in ethtool -S"},
    {"veth", "drivers/net/veth.c", NULL, NULL, NULL, NULL,
     "veth's rx_queue_N_xdp_* count XDP only, not the queue's packets"},
};
#define NDRIVERS (sizeof(qpattern_drivers) / sizeof(qpattern_drivers[0]))

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

/* Whether t already has a pattern of this direction and kind with the terms of spec. */
static bool
table_has(const struct qpattern_table *t, const struct qpattern *p)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].dir == p->dir && t->v[i].kind == p->kind &&
		    t->v[i].nterms == p->nterms &&
		    memcmp(t->v[i].terms, p->terms, sizeof(p->terms)) == 0)
			return true;
	return false;
}

/* Append the built-in driver conventions: each driver's terms, once. */
void
qpattern_table_add_builtin(struct qpattern_table *t)
{
	static const char *const what[4] = {"rx packets ", "rx bytes ", "tx packets ", "tx bytes "};
	struct qpattern_table one;
	char spec[256];

	qpattern_table_init(&one);
	for (size_t d = 0; d < NDRIVERS; d++) {
		const struct qpattern_driver *dr = &qpattern_drivers[d];
		const char *terms[4] = {dr->rx_packets, dr->rx_bytes, dr->tx_packets, dr->tx_bytes};
		for (int k = 0; k < 4; k++) {
			if (terms[k] == NULL)
				continue;
			snprintf(spec, sizeof(spec), "%s%s", what[k], terms[k]);
			one.n = 0;
			if (qpattern_table_add(&one, spec, NULL) < 0)
				abort(); /* our own table is wrong */
			one.v[0].driver = (int16_t)d;
			if (!table_has(t, &one.v[0]))
				table_push(t, &one.v[0]);
		}
	}
	qpattern_table_free(&one);
}

/* The driver row of the table, or NULL. */
const struct qpattern_driver *
qpattern_driver_at(int row)
{
	return row >= 0 && (size_t)row < NDRIVERS ? &qpattern_drivers[row] : NULL;
}

/* The first row of a driver by its ethtool -i name, or NULL. */
const struct qpattern_driver *
qpattern_driver_find(const char *driver)
{
	for (size_t d = 0; driver != NULL && d < NDRIVERS; d++)
		if (strcmp(qpattern_drivers[d].driver, driver) == 0)
			return &qpattern_drivers[d];
	return NULL;
}

/* The whole table, for its documentation and tests. */
const struct qpattern_driver *
qpattern_drivers_all(size_t *n)
{
	*n = NDRIVERS;
	return qpattern_drivers;
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
	p.driver = -1;
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

/* Whether term counts occurrences (ends in "#%u"): the length of the name it stands for, or
 * 0. */
static size_t
occurrence_len(const char *term)
{
	size_t l = strlen(term);

	return l > 3 && strcmp(term + l - 3, "#%u") == 0 ? l - 3 : 0;
}

/* Name k of names (stride apart) against an occurrence term of name length ol: true when it is
 * that name, *queue then how many earlier names are the same. */
static bool
occurrence_match(const char *term, size_t ol, const char *names, size_t stride, size_t k,
                 uint32_t *queue)
{
	const char *name = names + k * stride;
	uint32_t n = 0;

	if (strncmp(term, name, ol) != 0 || name[ol] != '\0')
		return false;
	for (size_t j = 0; j < k; j++)
		if (strcmp(names + j * stride, name) == 0 && ++n > QPATTERN_MAX_QUEUE)
			return false;
	*queue = n;
	return true;
}

/* The first pattern (and the term in it) that name k fits; false when none does. */
static bool
match_name(const struct qpattern_table *t, const char *names, size_t stride, size_t k, size_t *pat,
           uint32_t *queue)
{
	for (size_t i = 0; i < t->n; i++)
		for (unsigned j = 0; j < t->v[i].nterms; j++) {
			const char *term = t->v[i].terms[j];
			size_t ol = occurrence_len(term);
			if (ol > 0 ? occurrence_match(term, ol, names, stride, k, queue)
			           : qpattern_term_match(term, names + k * stride, queue)) {
				*pat = i;
				return true;
			}
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
		if (!match_name(t, names, stride, i, &pat, &queue))
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
		(*hits)[nhits].pattern = (uint32_t)pat;
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
