/* seriesblock.c: the history of a window's series kept with its result (seriesblock.h). */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "error.h"
#include "ring.h"
#include "series.h"
#include "seriesblock.h"
#include "strbuf.h"
#include "xmalloc.h"

#define MAGIC       "NMSERIES"
#define MAGIC_LEN   8
#define VERSION     1
#define HEADER_LEN  (MAGIC_LEN + 1 + 8)
#define NAME_MAX_SB 4096 /* bytes of a stored name or label */
/* The latest epoch ns a block may hold (2^62: the year 2116). What is read is checked against
 * it before any arithmetic: the times become CLOCK_MONOTONIC by taking mono_to_real off, and
 * the commands add a (later) mono_to_real back, both in int64_t; headroom for the second. */
#define TIME_MAX_SB (UINT64_C(1) << 62)

void
seriesblock_free(struct seriesblock *b)
{
	if (b == NULL)
		return;
	for (size_t i = 0; i < b->nsrc; i++) {
		free(b->src[i].name);
		free(b->src[i].t);
	}
	free(b->src);
	for (size_t id = 0; id < b->reg.n; id++)
		free(b->v[id]);
	free(b->v);
	series_registry_free(&b->reg);
	free(b);
}

void
seriesblock_downsample(struct seriesblock *b)
{
	for (size_t s = 0; s < b->nsrc; s++) {
		struct seriesblock_source *so = &b->src[s];
		size_t k, m = 0;

		if (so->n <= SERIESBLOCK_MAX_POINTS)
			continue;
		k = (so->n - 1 + SERIESBLOCK_MAX_POINTS - 2) / (SERIESBLOCK_MAX_POINTS - 1);
		for (size_t i = 0; i < so->n; i += k) {
			so->t[m] = so->t[i];
			for (size_t id = 0; id < b->reg.n; id++)
				if (b->reg.v[id].source == s)
					b->v[id][m] = b->v[id][i];
			m++;
		}
		if ((so->n - 1) % k != 0) {
			so->t[m] = so->t[so->n - 1];
			for (size_t id = 0; id < b->reg.n; id++)
				if (b->reg.v[id].source == s)
					b->v[id][m] = b->v[id][so->n - 1];
			m++;
		}
		so->n = m;
		so->step_k *= (uint32_t)k;
		so->interval_ms *= (uint32_t)k;
	}
}

ssize_t
seriesblock_at(const struct seriesblock *b, unsigned src, uint64_t t)
{
	const struct seriesblock_source *so;
	size_t lo = 0, hi;

	if (src >= b->nsrc)
		return -1;
	so = &b->src[src];
	hi = so->n;
	if (hi == 0 || so->t[0] > t)
		return -1;
	/* so->t[lo] <= t < so->t[hi] */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (so->t[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return (ssize_t)lo;
}

/* ---- encoding ---- */

static void
put_uv(struct strbuf *sb, uint64_t v)
{
	char buf[10];
	size_t n = 0;

	while (v >= 0x80) {
		buf[n++] = (char)(v | 0x80);
		v >>= 7;
	}
	buf[n++] = (char)v;
	strbuf_add(sb, buf, n);
}

static uint64_t
zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t
unzz(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static void
put_str(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s);

	put_uv(sb, n);
	strbuf_add(sb, s, n);
}

int
seriesblock_encode(struct seriesblock *b, uint8_t **out, size_t *len, struct nm_error *err)
{
	struct strbuf sb;
	uLongf zlen;
	uint8_t *buf;
	uint64_t plen;

	seriesblock_downsample(b);
	strbuf_init(&sb);
	put_uv(&sb, (uint64_t)((int64_t)b->t0 + b->mono_to_real));
	put_uv(&sb, b->t1 - b->t0);
	put_uv(&sb, b->nsrc);
	for (size_t s = 0; s < b->nsrc; s++) {
		const struct seriesblock_source *so = &b->src[s];
		put_str(&sb, so->name);
		put_uv(&sb, so->interval_ms);
		put_uv(&sb, so->step_k);
		put_uv(&sb, so->first_t ? (uint64_t)((int64_t)so->first_t + b->mono_to_real) : 0);
		put_uv(&sb, so->n);
		for (size_t i = 0; i < so->n; i++)
			put_uv(&sb, i == 0 ? (uint64_t)((int64_t)so->t[0] + b->mono_to_real)
			                   : so->t[i] - so->t[i - 1]);
	}
	put_uv(&sb, b->reg.n);
	for (series_id id = 0; id < b->reg.n; id++) {
		const struct series_info *si = series_get(&b->reg, id);
		struct series_labels l = series_labels_of(&b->reg, id);
		const uint64_t *v = b->v[id];
		uint64_t bits, prevd = 0;

		put_str(&sb, si->name);
		put_str(&sb, si->unit);
		put_uv(&sb, si->kind);
		put_uv(&sb, si->source);
		memcpy(&bits, &si->scale, sizeof(bits));
		put_uv(&sb, bits);
		put_str(&sb, series_atom_str(&b->reg, l.device));
		put_str(&sb, series_atom_str(&b->reg, l.type));
		put_str(&sb, series_atom_str(&b->reg, l.mode));
		put_str(&sb, series_atom_str(&b->reg, l.table));
		put_str(&sb, series_atom_str(&b->reg, l.field));
		put_uv(&sb, zz(l.irq));
		put_uv(&sb, zz(l.queue));
		put_uv(&sb, zz(l.cpu));
		put_uv(&sb, l.dir);
		for (size_t i = 0; i < b->src[si->source].n; i++) {
			uint64_t d = i == 0 ? v[0] : v[i] - v[i - 1];
			put_uv(&sb, i == 0 ? d : zz((int64_t)(d - prevd)));
			prevd = i == 0 ? 0 : d;
		}
	}
	plen = sb.len;
	zlen = compressBound((uLong)sb.len);
	buf = xmalloc(HEADER_LEN + zlen);
	memcpy(buf, MAGIC, MAGIC_LEN);
	buf[MAGIC_LEN] = VERSION;
	for (int i = 0; i < 8; i++)
		buf[MAGIC_LEN + 1 + i] = (uint8_t)(plen >> (8 * i));
	if (compress2(buf + HEADER_LEN, &zlen, (const Bytef *)sb.buf, (uLong)sb.len, 6) != Z_OK) {
		free(buf);
		strbuf_free(&sb);
		return nm_error_set(err, NM_ERR_FAILED, "series: compression failed");
	}
	strbuf_free(&sb);
	*out = buf;
	*len = HEADER_LEN + zlen;
	return 0;
}

/* ---- decoding ---- */

struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t
get_uv(struct rd *r)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		uint8_t c = *r->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

/* A string into buf (NUL-terminated); false when too long or truncated. */
static bool
get_str(struct rd *r, char *buf, size_t size)
{
	uint64_t n = get_uv(r);

	if (r->bad || n >= size || n > (uint64_t)(r->end - r->p) || memchr(r->p, 0, n) != NULL) {
		r->bad = true;
		return false;
	}
	memcpy(buf, r->p, n);
	buf[n] = '\0';
	r->p += n;
	return true;
}

static int
bad(struct seriesblock *b, struct nm_error *err, const char *what)
{
	seriesblock_free(b);
	return nm_error_set(err, NM_ERR_FAILED, "series block: %s", what);
}

/* An epoch time read (real, at most TIME_MAX_SB) as CLOCK_MONOTONIC ns into *mono; false when
 * out of range (the caller refuses the block). */
static bool
to_mono(uint64_t real, int64_t m2r, uint64_t *mono)
{
	int64_t m;

	if (real > TIME_MAX_SB || __builtin_sub_overflow((int64_t)real, m2r, &m))
		return false;
	*mono = (uint64_t)m;
	return true;
}

/* Parse a payload into b. 0, or -1 with err (b freed). Every time and count is checked
 * before it is used: a damaged block is refused, never served with times that wrapped. */
static int
parse(struct seriesblock *b, struct rd *r, int64_t m2r, struct nm_error *err)
{
	char name[NAME_MAX_SB], unit[64], dev[NAME_MAX_SB], type[NAME_MAX_SB], mode[NAME_MAX_SB];
	char table[NAME_MAX_SB], field[NAME_MAX_SB];
	uint64_t nsrc, nser, base, span;

	base = get_uv(r);
	span = get_uv(r);
	if (r->bad)
		return bad(b, err, "bad span");
	if (!to_mono(base, m2r, &b->t0) || span > TIME_MAX_SB - base)
		return bad(b, err, "bad span (a time past the year 2116)");
	b->t1 = b->t0 + span;
	nsrc = get_uv(r);
	if (r->bad || nsrc > RING_MAX_SOURCES)
		return bad(b, err, "bad source count");
	b->src = xcalloc(nsrc ? nsrc : 1, sizeof(*b->src));
	for (uint64_t s = 0; s < nsrc; s++) {
		struct seriesblock_source *so = &b->src[s];
		uint64_t n, ft, iv, k, real = 0;

		b->nsrc = s + 1;
		if (!get_str(r, name, 128))
			return bad(b, err, "bad source name");
		so->name = xstrdup(name);
		iv = get_uv(r);
		k = get_uv(r);
		if (r->bad || iv > UINT32_MAX || k > UINT32_MAX)
			return bad(b, err, "bad source interval");
		so->interval_ms = (uint32_t)iv;
		so->step_k = (uint32_t)k;
		ft = get_uv(r);
		if (r->bad)
			return bad(b, err, "bad first record time");
		if (ft != 0 && !to_mono(ft, m2r, &so->first_t))
			return bad(b, err, "bad first record time (past the year 2116)");
		n = get_uv(r);
		/* Each time takes at least a byte. */
		if (r->bad || n > (uint64_t)(r->end - r->p) || n > SERIESBLOCK_MAX_POINTS * 4ull)
			return bad(b, err, "bad record count");
		so->n = n;
		so->t = xreallocarray(NULL, n ? n : 1, sizeof(*so->t));
		/* The first time absolute, the others differences: their sum stays in range. */
		for (size_t i = 0; i < n && !r->bad; i++) {
			uint64_t d = get_uv(r);
			if (i == 0) {
				real = d;
				r->bad = !to_mono(real, m2r, &so->t[0]);
			} else if (d > TIME_MAX_SB - real)
				r->bad = true;
			else {
				real += d;
				so->t[i] = so->t[i - 1] + d;
				r->bad = so->t[i] < so->t[i - 1]; /* across mono 0 */
			}
		}
		if (r->bad)
			return bad(b, err, "bad record times (out of order or past the year 2116)");
		series_registry_name_source(&b->reg, (uint8_t)s, so->name);
	}
	nser = get_uv(r);
	if (r->bad || nser > SERIESBLOCK_MAX_SERIES || nser > (uint64_t)(r->end - r->p))
		return bad(b, err, "bad series count");
	b->v = xcalloc(nser ? nser : 1, sizeof(*b->v));
	for (uint64_t i = 0; i < nser; i++) {
		struct series_labels l = SERIES_LABELS_NONE;
		uint64_t kind, src, bits, dir, prevd = 0, acc = 0;
		int64_t irq, queue, cpu;
		double scale;
		series_id id;

		if (!get_str(r, name, sizeof(name)) || !get_str(r, unit, sizeof(unit)))
			return bad(b, err, "bad series name");
		kind = get_uv(r);
		src = get_uv(r);
		bits = get_uv(r);
		memcpy(&scale, &bits, sizeof(scale));
		if (!get_str(r, dev, sizeof(dev)) || !get_str(r, type, sizeof(type)) ||
		    !get_str(r, mode, sizeof(mode)) || !get_str(r, table, sizeof(table)) ||
		    !get_str(r, field, sizeof(field)))
			return bad(b, err, "bad labels");
		l.device = series_atom_intern(&b->reg, dev, strlen(dev));
		l.type = series_atom_intern(&b->reg, type, strlen(type));
		l.mode = series_atom_intern(&b->reg, mode, strlen(mode));
		l.table = series_atom_intern(&b->reg, table, strlen(table));
		l.field = series_atom_intern(&b->reg, field, strlen(field));
		irq = unzz(get_uv(r));
		queue = unzz(get_uv(r));
		cpu = unzz(get_uv(r));
		dir = get_uv(r);
		/* Checked before they are narrowed: a wrapped number is no label. */
		if (r->bad || kind > SERIES_GAUGE || src >= b->nsrc || name[0] == '\0' ||
		    scale != scale || irq < -1 || irq > INT32_MAX || queue < -1 ||
		    queue > INT32_MAX || cpu < -1 || cpu > INT16_MAX || dir > SERIES_DIR_TX)
			return bad(b, err, "bad series");
		l.irq = (int32_t)irq;
		l.queue = (int32_t)queue;
		l.cpu = (int16_t)cpu;
		l.dir = (uint8_t)dir;
		id = series_intern(
		    &b->reg, name, strlen(name), (enum series_kind)kind, (uint8_t)src,
		    series_atom_str(&b->reg, series_atom_intern(&b->reg, unit, strlen(unit))),
		    scale, &l);
		if (id != b->reg.n - 1 || b->v[id] != NULL)
			return bad(b, err, "a series twice");
		/* The block keeps no flag for a peak series (sampler.h): its field says it. */
		b->reg.v[id].peak = kind == SERIES_GAUGE && strlen(field) >= 9 &&
		                    strcmp(field + strlen(field) - 9, "peak_rate") == 0;
		b->v[id] = xreallocarray(NULL, b->src[src].n ? b->src[src].n : 1, sizeof(uint64_t));
		for (size_t k = 0; k < b->src[src].n; k++) {
			uint64_t u = get_uv(r), d;
			if (k == 0)
				acc = u;
			else {
				d = prevd + (uint64_t)unzz(u);
				acc += d;
				prevd = d;
			}
			b->v[id][k] = acc;
		}
		if (r->bad)
			return bad(b, err, "bad values");
	}
	if (r->p != r->end)
		return bad(b, err, "trailing bytes");
	return 0;
}

struct seriesblock *
seriesblock_decode(const uint8_t *buf, size_t len, int64_t mono_to_real, struct nm_error *err)
{
	struct seriesblock *b;
	uint64_t plen = 0;
	uLongf got;
	uint8_t *payload;

	if (len < HEADER_LEN || memcmp(buf, MAGIC, MAGIC_LEN) != 0) {
		nm_error_set(err, NM_ERR_FAILED, "series block: not a series block");
		return NULL;
	}
	if (buf[MAGIC_LEN] != VERSION) {
		nm_error_set(err, NM_ERR_FAILED, "series block: version %u unknown",
		             buf[MAGIC_LEN]);
		return NULL;
	}
	for (int i = 0; i < 8; i++)
		plen |= (uint64_t)buf[MAGIC_LEN + 1 + i] << (8 * i);
	if (len > SERIESBLOCK_MAX_FILE || plen > SERIESBLOCK_MAX_PAYLOAD) {
		nm_error_set(err, NM_ERR_FAILED, "series block: too large");
		return NULL;
	}
	payload = xmalloc(plen ? plen : 1);
	got = (uLongf)plen;
	if (uncompress(payload, &got, buf + HEADER_LEN, (uLong)(len - HEADER_LEN)) != Z_OK ||
	    got != plen) {
		free(payload);
		nm_error_set(err, NM_ERR_FAILED, "series block: damaged (does not decompress)");
		return NULL;
	}
	b = seriesblock_parse(payload, plen, mono_to_real, err);
	free(payload);
	return b;
}

struct seriesblock *
seriesblock_parse(const uint8_t *payload, size_t len, int64_t mono_to_real, struct nm_error *err)
{
	struct seriesblock *b = xcalloc(1, sizeof(*b));
	struct rd r = {payload, payload + len, false};

	series_registry_init(&b->reg);
	b->mono_to_real = mono_to_real;
	if (parse(b, &r, mono_to_real, err) < 0)
		return NULL;
	return b;
}
