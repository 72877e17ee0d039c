/* source-snmp.c: protocol counters from /proc/net/snmp, /proc/net/netstat and
 * /proc/net/snmp6 (what `netstat -s` and `nstat` show).
 *
 * snmp and netstat hold pairs of lines, a names line then a values line with the same
 * prefix ("Tcp: RtoAlgorithm RtoMin ..." / "Tcp: 1 200 ..."); each value becomes
 * snmp.<Group>.<Field>. snmp6 holds one "Name value" per line; each becomes
 * snmp6.<Name>. Values are decimal and may be negative (Tcp MaxConn is -1): a negative
 * value is reported as its two's complement and its series is a gauge.
 *
 * The files are kept open and read with pread. Each line (a pair in snmp and netstat)
 * remembers the names it was interned from and the ids it got, so steady state compares
 * bytes and puts values without allocating; a line whose values are byte-identical to the
 * last sample puts nothing. Only when a names line changes (IcmpMsg gains a type, a
 * module adds a group) are its names interned again; ids no longer reported by any line
 * are declared gone at the end of the sample. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "error.h"
#include "log.h"
#include "procparse.h"
#include "source.h"
#include "xmalloc.h"

#define SNMP_MAX_LINES   1024 /* cached lines (pairs) per file; more are ignored */
#define SNMP_MAX_COLUMNS 1024 /* values per line; more are ignored */
#define SNMP_NAME_MAX    256  /* longest series name; longer fields are ignored */

/* Fields that are levels, not counts: their deltas may be negative. */
static const char *const snmp_levels[] = {
    "Tcp.CurrEstab", "Tcp.MaxConn",   "Tcp.RtoAlgorithm", "Tcp.RtoMin",
    "Tcp.RtoMax",    "Ip.Forwarding", "Ip.DefaultTTL",    "MPTcpExt.MPCurrEstab",
};

/* One cached line: a names/values pair of snmp or netstat, or one line of snmp6. */
struct snmp_line {
	char *names; /* the names line (snmp6: the name) the ids were interned from */
	size_t nameslen, namescap;
	series_id *ids; /* ids[column]; SERIES_NONE for a name too long */
	size_t nids, idscap;
	char *vals; /* the values line last put */
	size_t valslen, valscap;
	bool vals_valid; /* vals holds what the sampler last received */
};

/* One kept-open file and its cached lines. */
struct snmp_file {
	const char *path; /* below the root */
	bool pairs;       /* names/values pairs, else "Name value" lines */
	bool optional;    /* missing is not an error (snmp6 without IPv6) */
	int fd;
	bool sized;              /* see source_fd_sized */
	struct snmp_line *lines; /* lines[0..nalloc) zeroed when allocated */
	size_t nlines, nalloc;   /* in use; allocated */
};

enum { SNMP_FILE_SNMP, SNMP_FILE_NETSTAT, SNMP_FILE_SNMP6, SNMP_NFILES };

struct snmp_priv {
	struct snmp_file files[SNMP_NFILES];
	char *buf; /* read buffer shared by the files */
	size_t bufcap;
	series_id *retired; /* ids a changed line stopped reporting, this sample */
	size_t nretired, retiredcap;
};

/* The end of the line starting at p: its '\n', or end. */
static const char *
line_end(const char *p, const char *end)
{
	const char *nl = pp_eol(p, end);

	return nl ? nl : end;
}

/* Parse a decimal token, optionally negative, into its two's complement; -1 if not one. */
static int
parse_signed(const char *tok, size_t len, uint64_t *raw, bool *neg)
{
	const char *p = tok, *end = tok + len;
	uint64_t v;

	*neg = len > 0 && *p == '-';
	p += *neg;
	if (pp_u64(&p, end, &v) < 0 || p != end)
		return -1;
	*raw = *neg ? (uint64_t)0 - v : v;
	return 0;
}

/* Copy len bytes into a growable buffer. */
static void
keep_bytes(char **dst, size_t *dstlen, size_t *dstcap, const char *s, size_t len)
{
	if (len > *dstcap) {
		*dstcap = len < 64 ? 64 : len * 2;
		*dst = xreallocarray(*dst, *dstcap, 1);
	}
	if (len > 0)
		memcpy(*dst, s, len);
	*dstlen = len;
}

/* Whether a "Group.Field" is a level rather than a count. */
static bool
is_level(const char *group_field)
{
	for (size_t i = 0; i < sizeof(snmp_levels) / sizeof(snmp_levels[0]); i++)
		if (strcmp(group_field, snmp_levels[i]) == 0)
			return true;
	return false;
}

/* Remember that id is no longer reported by the line that had it. */
static void
retire(struct snmp_priv *p, series_id id)
{
	if (id == SERIES_NONE)
		return;
	if (p->nretired == p->retiredcap) {
		p->retiredcap = p->retiredcap ? p->retiredcap * 2 : 64;
		p->retired = xreallocarray(p->retired, p->retiredcap, sizeof(*p->retired));
	}
	p->retired[p->nretired++] = id;
}

/* Retire every id of a line and forget its names and values. */
static void
line_reset(struct snmp_priv *p, struct snmp_line *ln)
{
	for (size_t i = 0; i < ln->nids; i++)
		retire(p, ln->ids[i]);
	ln->nids = 0;
	ln->nameslen = 0;
	ln->vals_valid = false;
}

/* Append one id to a line. */
static void
line_add_id(struct snmp_line *ln, series_id id)
{
	if (ln->nids == ln->idscap) {
		ln->idscap = ln->idscap ? ln->idscap * 2 : 16;
		ln->ids = xreallocarray(ln->ids, ln->idscap, sizeof(*ln->ids));
	}
	ln->ids[ln->nids++] = id;
}

/* Intern one series: a gauge if it is a level or its current value is negative. */
static series_id
intern_field(struct source *src, const char *prefix, size_t prefixlen, const char *field,
             size_t fieldlen, const char *val, size_t vallen)
{
	char name[SNMP_NAME_MAX];
	enum series_kind kind = SERIES_COUNTER;
	struct series_labels l = source_labels(src);
	const char *unit;
	uint64_t raw;
	bool neg;
	int n;

	n = snprintf(name, sizeof(name), "%.*s.%.*s", (int)prefixlen, prefix, (int)fieldlen, field);
	if (n < 0 || (size_t)n >= sizeof(name))
		return SERIES_NONE;
	if (parse_signed(val, vallen, &raw, &neg) == 0 && neg)
		kind = SERIES_GAUGE;
	if (strncmp(name, "snmp.", 5) == 0 && is_level(name + 5))
		kind = SERIES_GAUGE;
	/* table: the group ("TcpExt"; snmp6 is one table), field: the field's name; the unit
	 * from the field's name (series_unit_guess). */
	l.table = strncmp(prefix, "snmp.", 5) == 0 ? source_atom(src, prefix + 5, prefixlen - 5)
	                                           : source_atom(src, prefix, prefixlen);
	l.field = source_atom(src, field, fieldlen);
	unit = series_unit_guess(field, fieldlen, kind == SERIES_GAUGE);
	/* ICMP counts messages (Icmp, IcmpMsg, snmp6's Icmp6...): what is not an error. */
	if ((strncmp(name, "snmp.Icmp", 9) == 0 || strncmp(name, "snmp6.Icmp6", 11) == 0) &&
	    strcmp(unit, "errors") != 0)
		unit = "messages";
	return series_intern(src->reg, name, (size_t)n, kind, src->index, unit, 1.0, &l);
}

/* The line at index i of a file, allocated zeroed on first use; NULL past the bound. */
static struct snmp_line *
file_line(struct snmp_file *f, size_t i)
{
	if (i >= SNMP_MAX_LINES)
		return NULL;
	if (i >= f->nalloc) {
		size_t n = f->nalloc ? f->nalloc * 2 : 16;

		while (n <= i)
			n *= 2;
		f->lines = xreallocarray(f->lines, n, sizeof(*f->lines));
		memset(f->lines + f->nalloc, 0, (n - f->nalloc) * sizeof(*f->lines));
		f->nalloc = n;
	}
	return &f->lines[i];
}

/* Put each value of a values line whose tokens follow the "Group:" prefix. */
static void
put_values(struct snmp_line *ln, struct sink *sink, const char *vals, const char *end)
{
	const char *tok;
	uint64_t raw;
	size_t len;
	bool neg;

	for (size_t i = 0; i < ln->nids; i++) {
		if (pp_token(&vals, end, &tok, &len) < 0)
			break;
		if (ln->ids[i] != SERIES_NONE && parse_signed(tok, len, &raw, &neg) == 0)
			sink_put(sink, ln->ids[i], raw);
	}
}

/* Intern the names of a pair again: "Group: A B C" with values "Group: 1 2 3". */
static void
pair_intern(struct source *src, struct snmp_line *ln, const char *names, const char *nend,
            const char *vals, const char *vend, size_t prefixlen)
{
	char prefix[64];
	const char *name, *val;
	size_t nlen, vlen;
	int n;

	n = snprintf(prefix, sizeof(prefix), "snmp.%.*s", (int)(prefixlen - 1), names);
	if (n < 0 || (size_t)n >= sizeof(prefix))
		return;
	names += prefixlen;
	vals += prefixlen;
	while (ln->nids < SNMP_MAX_COLUMNS && pp_token(&names, nend, &name, &nlen) == 0) {
		if (pp_token(&vals, vend, &val, &vlen) < 0)
			vlen = 0;
		line_add_id(ln, intern_field(src, prefix, (size_t)n, name, nlen, val, vlen));
	}
}

/* Handle one names/values pair at line index idx: intern on change, put on change. */
static void
sample_pair(struct source *src, struct snmp_file *f, size_t idx, struct sink *sink,
            const char *names, const char *nend, const char *vals, const char *vend,
            size_t prefixlen)
{
	struct snmp_priv *p = src->priv;
	struct snmp_line *ln = file_line(f, idx);
	size_t nameslen = (size_t)(nend - names), valslen = (size_t)(vend - vals);

	if (ln == NULL)
		return;
	if (ln->nameslen != nameslen || memcmp(ln->names, names, nameslen) != 0) {
		line_reset(p, ln);
		pair_intern(src, ln, names, nend, vals, vend, prefixlen);
		keep_bytes(&ln->names, &ln->nameslen, &ln->namescap, names, nameslen);
	} else if (ln->vals_valid && ln->valslen == valslen &&
	           memcmp(ln->vals, vals, valslen) == 0) {
		return;
	}
	put_values(ln, sink, vals + prefixlen, vend);
	keep_bytes(&ln->vals, &ln->valslen, &ln->valscap, vals, valslen);
	ln->vals_valid = true;
}

/* Walk a file of names/values pairs; returns the number of pairs seen. */
static size_t
parse_pairs(struct source *src, struct snmp_file *f, struct sink *sink, const char *s,
            const char *end)
{
	const char *colon, *e1, *v, *e2;
	size_t idx = 0, plen;

	while (s < end) {
		e1 = line_end(s, end);
		colon = memchr(s, ':', (size_t)(e1 - s));
		if (colon == NULL || e1 == end) {
			s = e1 + (e1 < end);
			continue;
		}
		plen = (size_t)(colon - s) + 1;
		v = e1 + 1;
		e2 = line_end(v, end);
		if ((size_t)(e2 - v) < plen || memcmp(v, s, plen) != 0) {
			/* Not a pair: try the second line as a names line. */
			s = v;
			continue;
		}
		sample_pair(src, f, idx++, sink, s, e1, v, e2, plen);
		s = e2 + (e2 < end);
	}
	return idx;
}

/* Handle one "Name value" line of snmp6 at index idx. */
static void
sample_single(struct source *src, struct snmp_file *f, size_t idx, struct sink *sink,
              const char *name, size_t namelen, const char *val, size_t vallen)
{
	struct snmp_priv *p = src->priv;
	struct snmp_line *ln = file_line(f, idx);
	uint64_t raw;
	bool neg;

	if (ln == NULL)
		return;
	if (ln->nameslen != namelen || memcmp(ln->names, name, namelen) != 0) {
		line_reset(p, ln);
		line_add_id(ln, intern_field(src, "snmp6", 5, name, namelen, val, vallen));
		keep_bytes(&ln->names, &ln->nameslen, &ln->namescap, name, namelen);
	} else if (ln->vals_valid && ln->valslen == vallen && memcmp(ln->vals, val, vallen) == 0) {
		return;
	}
	if (ln->ids[0] != SERIES_NONE && parse_signed(val, vallen, &raw, &neg) == 0)
		sink_put(sink, ln->ids[0], raw);
	keep_bytes(&ln->vals, &ln->valslen, &ln->valscap, val, vallen);
	ln->vals_valid = true;
}

/* Walk a file of "Name value" lines; returns the number of lines seen. */
static size_t
parse_singles(struct source *src, struct snmp_file *f, struct sink *sink, const char *s,
              const char *end)
{
	const char *e, *name, *val;
	size_t idx = 0, nlen, vlen;

	for (; s < end; s = e + (e < end)) {
		e = line_end(s, end);
		if (pp_token(&s, e, &name, &nlen) < 0 || pp_token(&s, e, &val, &vlen) < 0)
			continue;
		sample_single(src, f, idx++, sink, name, nlen, val, vlen);
	}
	return idx;
}

/* Read and report one file. */
static int
sample_file(struct source *src, struct snmp_file *f, struct sink *sink, struct nm_error *err)
{
	struct snmp_priv *p = src->priv;
	ssize_t n;
	size_t seen;

	if (f->fd < 0)
		return 0;
	n = source_pread_fd(f->fd, f->sized, &p->buf, &p->bufcap);
	if (n < 0)
		return nm_error_set(err, NM_ERR_FAILED, "source snmp: %s: read failed: %s", f->path,
		                    strerror(errno));
	if (f->pairs)
		seen = parse_pairs(src, f, sink, p->buf, p->buf + n);
	else
		seen = parse_singles(src, f, sink, p->buf, p->buf + n);
	/* Lines past the end are gone (a group disappeared). */
	for (size_t i = seen; i < f->nlines && i < f->nalloc; i++)
		line_reset(p, &f->lines[i]);
	f->nlines = seen < SNMP_MAX_LINES ? seen : SNMP_MAX_LINES;
	return 0;
}

/* Declare gone each retired id that no line reports any more. */
static void
sweep_retired(struct source *src, struct sink *sink)
{
	struct snmp_priv *p = src->priv;
	size_t nreg = src->reg->n;
	uint8_t *live;

	if (p->nretired == 0)
		return;
	/* Rare (names changed): a map over all ids is simpler than searching each line. */
	live = xcalloc(nreg ? nreg : 1, 1);
	for (size_t fi = 0; fi < SNMP_NFILES; fi++) {
		struct snmp_file *f = &p->files[fi];

		for (size_t i = 0; i < f->nlines; i++)
			for (size_t c = 0; c < f->lines[i].nids; c++)
				if (f->lines[i].ids[c] < nreg)
					live[f->lines[i].ids[c]] = 1;
	}
	for (size_t i = 0; i < p->nretired; i++) {
		series_id id = p->retired[i];

		if (id < nreg && !live[id]) {
			live[id] = 1; /* once, even if retired twice */
			sink_gone(sink, id);
		}
	}
	free(live);
	p->nretired = 0;
}

/* Forget what the sampler last received, so the next sample puts every value. */
static void
invalidate_values(struct snmp_priv *p)
{
	for (size_t fi = 0; fi < SNMP_NFILES; fi++)
		for (size_t i = 0; i < p->files[fi].nalloc; i++)
			p->files[fi].lines[i].vals_valid = false;
}

/* Allocate the state and open the three files (snmp6 may be missing). */
static int
snmp_init(struct source *src, struct nm_error *err)
{
	static const struct snmp_file files[SNMP_NFILES] = {
	    [SNMP_FILE_SNMP] = {.path = "proc/net/snmp", .pairs = true, .fd = -1},
	    [SNMP_FILE_NETSTAT] = {.path = "proc/net/netstat", .pairs = true, .fd = -1},
	    [SNMP_FILE_SNMP6] = {.path = "proc/net/snmp6", .optional = true, .fd = -1},
	};
	struct snmp_priv *p = xcalloc(1, sizeof(*p));

	memcpy(p->files, files, sizeof(files));
	src->priv = p;
	for (size_t i = 0; i < SNMP_NFILES; i++) {
		struct snmp_file *f = &p->files[i];

		f->fd = source_open(src, f->path);
		f->sized = f->fd >= 0 && source_fd_sized(f->fd);
		if (f->fd >= 0)
			continue;
		if (f->optional && errno == ENOENT) {
			log_debug("source snmp: %s: missing, skipped", f->path);
			continue;
		}
		return nm_error_set(err, NM_ERR_FAILED, "source snmp: %s: open failed: %s", f->path,
		                    strerror(errno));
	}
	return 0;
}

/* Read the three files once and put what changed. */
static int
snmp_sample(struct source *src, struct sink *sink, struct nm_error *err)
{
	struct snmp_priv *p = src->priv;

	for (size_t i = 0; i < SNMP_NFILES; i++) {
		if (sample_file(src, &p->files[i], sink, err) < 0) {
			/* The sampler may drop this sample's values: put them all next time. */
			invalidate_values(p);
			return -1;
		}
	}
	sweep_retired(src, sink);
	return 0;
}

/* The files read and the number of lines cached for status. */
static json_object *
snmp_describe(struct source *src)
{
	struct snmp_priv *p = src->priv;
	json_object *o = json_object_new_object(), *files = json_object_new_array();

	for (size_t i = 0; p != NULL && i < SNMP_NFILES; i++)
		if (p->files[i].fd >= 0)
			json_object_array_add(files, json_object_new_string(p->files[i].path));
	json_object_object_add(o, "files", files);
	return o;
}

/* Close the files and free the state. */
static void
snmp_free(struct source *src)
{
	struct snmp_priv *p = src->priv;

	if (p == NULL)
		return;
	for (size_t fi = 0; fi < SNMP_NFILES; fi++) {
		struct snmp_file *f = &p->files[fi];

		if (f->fd >= 0)
			close(f->fd);
		for (size_t i = 0; i < f->nalloc; i++) {
			free(f->lines[i].names);
			free(f->lines[i].ids);
			free(f->lines[i].vals);
		}
		free(f->lines);
	}
	free(p->buf);
	free(p->retired);
	free(p);
	src->priv = NULL;
}

/* Its Prometheus families (serve/prom.c): counters and levels. */
static const struct source_family snmp_families[] = {
    {"netmetrics_snmp_level", {.kind = SOURCE_GAUGES}, false},
    {"netmetrics_snmp", {.kind = SOURCE_ANY_KIND}, false},
    {NULL, {.kind = SOURCE_ANY_KIND}, false},
};

const struct source_ops source_snmp_ops = {
    .name = "snmp",
    .prom = snmp_families,
    .keep = SOURCE_KEPT,
    .description = "protocol counters from /proc/net/snmp, netstat and snmp6",
    .configure = NULL,
    .init = snmp_init,
    .sample = snmp_sample,
    .describe = snmp_describe,
    .free = snmp_free,
};
