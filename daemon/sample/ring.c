/* ring.c: the bounded in-memory history of every series (see ring.h for the model).
 *
 * Byte layout. The buffer is used circularly; a record never straddles its end. Every record
 * ends with a u32 little-endian footer holding its total length, so the newest record can be
 * found from the write head and the ring walked backwards.
 *
 *   'S' src uvarint(t - src's previous record time) uvarint(count)
 *       count x [svarint(id - previous id in this record) svarint(d_k - d_{k-1})]  footer
 *   'K' uvarint(t) uvarint(nsources) nsources x [uvarint(k) uvarint(last time)]
 *       uvarint(nseries) nseries x [uvarint(acc) svarint(delta) (src byte if delta != 0)]
 *       footer
 *   'W' wrap marker: the rest of the buffer is unused, the next record is at offset 0
 *       (omitted when the previous record ends exactly at the end of the buffer).
 *
 * A keyframe is written by ring_begin before the record it precedes: it holds the state
 * after every earlier record, and t is the time of the record that follows it. Sample records
 * therefore form an unbroken chain; a backward walk simply steps over keyframes.
 *
 * The lazy value representation (writer keeps acc eagerly; cursors are lazy). A cursor holds
 * for each series (acc, delta, at_k, src): acc is its value at record at_k of source src and
 * delta the delta of every record of src between at_k and the record K the cursor stands on,
 * in either direction, so its value there is acc + delta * (K - at_k) (mod 2^64; K < at_k
 * works too). A record k of src with entry (id, dod) means d_k = d_{k-1} + dod:
 *   forward  (cursor at k-1, moving to k): v_{k-1} = acc + delta * (k-1 - at_k);
 *            delta += dod; acc = v_{k-1} + delta; at_k = k.
 *   backward (cursor at k, moving to k-1): v_k = acc + delta * (k - at_k) (delta is d_k);
 *            acc = v_k - delta; delta -= dod; at_k = k - 1.
 * Both are linear, so two entries for one id in one record (a series put twice) replay right
 * in either order. A series with delta 0 has no use for at_k or src; a series changes source
 * only while its delta is 0, so the source of a moving series is always known. */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "ring.h"
#include "timeutil.h"
#include "xmalloc.h"

#define RING_MIN_BYTES    ((size_t)1 << 20)
#define RING_MAX_SEGMENTS 4096
#define RING_RATE_HISTORY 128 /* one (time, bytes) point per second of records */
#define RING_RATE_SPAN_NS (60 * 1000000000ull)

#define REC_SAMPLE   'S'
#define REC_KEYFRAME 'K'
#define REC_WRAP     'W'

#define FOOTER_BYTES 4
#define VARINT_MAX   10
#define HEADER_MAX   (2 + 2 * VARINT_MAX)      /* type, source, dt, count */
#define ENTRY_MAX    (VARINT_MAX + VARINT_MAX) /* id step, delta of delta */
#define SRC_NONE     0xff

/* What the writer knows about a series. */
struct wseries {
	uint64_t acc;     /* value at its source's newest record */
	uint64_t delta;   /* d_k of that record (two's complement) */
	uint32_t touched; /* generation of the last record that put it */
	int32_t moving;   /* index in its source's moving list, -1 when delta == 0 */
	uint8_t src;      /* source that puts it, SRC_NONE before the first put */
};

/* What the writer knows about a source. */
struct wsource {
	uint64_t k;        /* number of its newest record (0: none) */
	uint64_t last_t;   /* time of that record */
	uint64_t first_t;  /* time of its first record ever */
	series_id *moving; /* its series whose delta is not 0 */
	size_t nmoving, capmoving;
};

/* A keyframe and the records after it, up to the next keyframe. */
struct segment {
	size_t start;     /* offset of the keyframe */
	size_t bytes;     /* bytes of its records (wrap waste not counted) */
	uint64_t first_t; /* time of the first record after the keyframe */
	uint64_t last_t;  /* time of its newest record */
};

struct rate_point {
	uint64_t t;     /* record time */
	uint64_t bytes; /* bytes written up to and including that record */
};

struct ring {
	uint8_t *buf;
	size_t cap;
	size_t head;    /* end of the newest record */
	size_t tail;    /* start of the oldest segment */
	size_t wrap_at; /* end of the data before the wrap, when wrapped */
	bool wrapped;   /* the live data runs [tail, wrap_at) then [0, head) */

	struct segment *seg; /* circular, oldest at seg0 */
	size_t seg0, nseg;
	size_t used;

	unsigned nsources;
	uint64_t keyframe_ns;

	struct wseries *ws;
	size_t n, capn; /* series known (ids < n), room for */
	struct wsource src[RING_MAX_SOURCES];
	uint64_t last_t; /* time of the newest record of any source */

	/* the open record */
	bool open;
	unsigned cur_src;
	uint64_t cur_t;
	uint32_t gen;
	/* Of the source's moving series, how many there were when the record opened and how
	 * many of those it has put (each counted at its first put): when they are equal no
	 * series stopped, and ring_end need not walk the list. */
	size_t moving_at_begin, moving_put;
	uint8_t *scratch; /* header room, then entries */
	size_t scratch_len, scratch_cap;
	uint64_t nentries;
	series_id prev_id;

	/* keyframe policy */
	uint64_t kf_t;
	size_t bytes_since_kf;

	/* statistics */
	uint64_t records, evicted, allocations, bytes_written;
	size_t last_record_bytes, last_keyframe_bytes;
	struct rate_point rate[RING_RATE_HISTORY];
	size_t rate0, nrate;

	bool warned_fit, warned_src, warned_time, warned_owner;
};

/* What a cursor knows about a series (see the lazy representation above). */
struct cseries {
	uint64_t acc;
	uint64_t delta;
	uint64_t at_k;
	uint8_t src;
};

struct ring_cursor {
	const struct ring *r;
	struct cseries *v;
	size_t n, cap;
	uint64_t k[RING_MAX_SOURCES];
	uint64_t t[RING_MAX_SOURCES];
	/* A backward seek materialises only the series the undone records touch: v[id] is
	 * valid when gen[id] == curgen; any other series is read from the writer's state. */
	bool lazy;
	uint32_t *gen;
	uint32_t curgen;
	/* After a forward seek: where its replay stopped, so that a later seek to a time no
	 * earlier, in the same segment, replays only the records in between. Valid while fwd
	 * is set and the ring has evicted nothing and learnt no series since. */
	bool fwd;
	uint64_t fwd_t;       /* the time sought */
	size_t fwd_off;       /* the first record not replayed */
	size_t fwd_seg;       /* the start of the segment replayed */
	uint64_t fwd_evicted; /* the ring's evictions then */
};

/* ---- varints ---- */

static size_t
uvarint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static size_t
put_uvarint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static uint64_t
get_uvarint(const uint8_t **pp)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned shift = 0;

	while (*p & 0x80) {
		v |= (uint64_t)(*p++ & 0x7f) << shift;
		shift += 7;
	}
	v |= (uint64_t)*p++ << shift;
	*pp = p;
	return v;
}

/* Zigzag of a two's-complement difference: small magnitudes of either sign stay short. */
static uint64_t
zigzag(uint64_t v)
{
	return (v << 1) ^ (0 - (v >> 63));
}

static uint64_t
unzigzag(uint64_t u)
{
	return (u >> 1) ^ (0 - (u & 1));
}

static void
put_footer(uint8_t *p, size_t len)
{
	p[0] = (uint8_t)len;
	p[1] = (uint8_t)(len >> 8);
	p[2] = (uint8_t)(len >> 16);
	p[3] = (uint8_t)(len >> 24);
}

static size_t
get_footer(const uint8_t *p)
{
	return (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
}

/* ---- memory ---- */

/* xreallocarray, counted: the ring's allocations show in its stats (and in the tests). */
static void *
ring_realloc(struct ring *r, void *p, size_t nmemb, size_t size)
{
	r->allocations++;
	return xreallocarray(p, nmemb, size);
}

/* Make room for ids < n: a layout change, the only time the writer allocates. */
static void
grow_series(struct ring *r, size_t n)
{
	size_t cap = r->capn + r->capn / 2;

	if (cap < n)
		cap = n;
	if (n > r->capn) {
		r->ws = ring_realloc(r, r->ws, cap, sizeof(*r->ws));
		for (size_t i = r->capn; i < cap; i++)
			r->ws[i] = (struct wseries){0, 0, 0, -1, SRC_NONE};
		r->capn = cap;
	}
	r->n = n;
}

/* Room for one more entry in the open record. */
static void
reserve_entry(struct ring *r)
{
	if (r->scratch_len + ENTRY_MAX <= r->scratch_cap)
		return;
	r->scratch_cap *= 2;
	r->scratch = ring_realloc(r, r->scratch, r->scratch_cap, 1);
}

struct ring *
ring_new(size_t bytes, unsigned nsources, uint64_t keyframe_ns)
{
	struct ring *r;

	if (bytes < RING_MIN_BYTES)
		fatalx("ring: %zu bytes is below the minimum of %zu", bytes, RING_MIN_BYTES);
	if (nsources == 0 || nsources > RING_MAX_SOURCES)
		fatalx("ring: %u sources (1 to %d)", nsources, RING_MAX_SOURCES);
	r = xcalloc(1, sizeof(*r));
	/* Untouched pages cost nothing: memory follows the history actually written. */
	r->buf = xmalloc(bytes);
	r->cap = bytes;
	r->seg = xcalloc(RING_MAX_SEGMENTS, sizeof(*r->seg));
	r->nsources = nsources;
	r->keyframe_ns = keyframe_ns;
	r->scratch_cap = 4096;
	r->scratch = xmalloc(r->scratch_cap);
	r->gen = 1;
	return r;
}

void
ring_free(struct ring *r)
{
	if (r == NULL)
		return;
	for (unsigned s = 0; s < RING_MAX_SOURCES; s++)
		free(r->src[s].moving);
	free(r->ws);
	free(r->scratch);
	free(r->seg);
	free(r->buf);
	free(r);
}

/* ---- space ---- */

static struct segment *
seg_at(const struct ring *r, size_t i)
{
	return &r->seg[(r->seg0 + i) % RING_MAX_SEGMENTS];
}

static struct segment *
seg_newest(const struct ring *r)
{
	return seg_at(r, r->nseg - 1);
}

/* Drop the oldest segment. */
static void
evict_oldest(struct ring *r)
{
	size_t next;

	r->used -= r->seg[r->seg0].bytes;
	r->seg0 = (r->seg0 + 1) % RING_MAX_SEGMENTS;
	r->nseg--;
	r->evicted++;
	if (r->nseg == 0) {
		r->head = r->tail = r->used = 0;
		r->wrapped = false;
		return;
	}
	next = r->seg[r->seg0].start;
	/* Starting before the old tail means the data no longer crosses the end. */
	if (r->wrapped && next < r->tail)
		r->wrapped = false;
	r->tail = next;
}

static void
evict_all(struct ring *r)
{
	while (r->nseg > 0)
		evict_oldest(r);
}

/* Find n contiguous bytes for a record, evicting the oldest segments but never the newest
 * `keep`. Sets *off and returns true, or returns false (nothing evicted beyond `keep`). */
static bool
reserve_bytes(struct ring *r, size_t n, size_t keep, size_t *off)
{
	for (;;) {
		if (r->nseg == 0) {
			if (n > r->cap)
				return false;
			*off = 0;
			return true;
		}
		if (!r->wrapped) {
			if (r->cap - r->head >= n) {
				*off = r->head;
				return true;
			}
			if (r->tail >= n) {
				if (r->head < r->cap)
					r->buf[r->head] = REC_WRAP;
				r->wrap_at = r->head;
				r->head = 0;
				r->wrapped = true;
				*off = 0;
				return true;
			}
		} else if (r->tail - r->head >= n) {
			*off = r->head;
			return true;
		}
		if (r->nseg <= keep)
			return false;
		evict_oldest(r);
	}
}

/* Account for a record of n bytes just written at off. */
static void
commit_bytes(struct ring *r, size_t off, size_t n, uint64_t t)
{
	struct rate_point *last;

	r->head = off + n;
	r->used += n;
	seg_newest(r)->bytes += n;
	seg_newest(r)->last_t = t;
	r->bytes_written += n;
	/* A rate point at most once a second: (time, bytes written up to that record). */
	last = r->nrate ? &r->rate[(r->rate0 + r->nrate - 1) % RING_RATE_HISTORY] : NULL;
	if (last != NULL && t - last->t < 1000000000ull)
		return;
	if (r->nrate == RING_RATE_HISTORY) {
		r->rate0 = (r->rate0 + 1) % RING_RATE_HISTORY;
		r->nrate--;
	}
	last = &r->rate[(r->rate0 + r->nrate++) % RING_RATE_HISTORY];
	last->t = t;
	last->bytes = r->bytes_written;
}

/* ---- writer ---- */

/* Bytes of a keyframe of the current state. */
static size_t
keyframe_size(const struct ring *r, uint64_t t)
{
	size_t n = 1 + uvarint_len(t) + uvarint_len(r->nsources) + uvarint_len(r->n);

	for (unsigned s = 0; s < r->nsources; s++)
		n += uvarint_len(r->src[s].k) + uvarint_len(r->src[s].last_t);
	for (size_t id = 0; id < r->n; id++) {
		const struct wseries *w = &r->ws[id];
		n += uvarint_len(w->acc) + uvarint_len(zigzag(w->delta)) + (w->delta != 0);
	}
	return n + FOOTER_BYTES;
}

/* Start a segment with a keyframe of the state before the record at t. */
static void
write_keyframe(struct ring *r, uint64_t t)
{
	size_t size = keyframe_size(r, t), off;
	struct segment *sg;
	uint8_t *p;

	if (r->nseg == RING_MAX_SEGMENTS)
		evict_oldest(r);
	if (size > UINT32_MAX || !reserve_bytes(r, size, 0, &off)) {
		if (!r->warned_fit)
			log_warnx("ring: a keyframe of %zu bytes does not fit in %zu; "
			          "no history is kept",
			          size, r->cap);
		r->warned_fit = true;
		evict_all(r);
		return;
	}
	p = r->buf + off;
	*p++ = REC_KEYFRAME;
	p += put_uvarint(p, t);
	p += put_uvarint(p, r->nsources);
	for (unsigned s = 0; s < r->nsources; s++) {
		p += put_uvarint(p, r->src[s].k);
		p += put_uvarint(p, r->src[s].last_t);
	}
	p += put_uvarint(p, r->n);
	for (size_t id = 0; id < r->n; id++) {
		const struct wseries *w = &r->ws[id];
		p += put_uvarint(p, w->acc);
		p += put_uvarint(p, zigzag(w->delta));
		if (w->delta != 0)
			*p++ = w->src;
	}
	put_footer(p, size);
	sg = &r->seg[(r->seg0 + r->nseg) % RING_MAX_SEGMENTS];
	*sg = (struct segment){off, 0, t, t};
	if (r->nseg == 0)
		r->tail = off;
	r->nseg++;
	commit_bytes(r, off, size, t);
	r->kf_t = t;
	r->bytes_since_kf = 0;
	r->last_keyframe_bytes = size;
}

void
ring_begin(struct ring *r, unsigned src, uint64_t t_ns, size_t nseries)
{
	if (r->open) {
		log_warnx("ring: record of source %u left open", r->cur_src);
		ring_end(r);
	}
	if (src >= r->nsources) {
		if (!r->warned_src)
			log_warnx("ring: source %u out of range; its records are dropped", src);
		r->warned_src = true;
		return;
	}
	if (t_ns < r->last_t) {
		if (!r->warned_time)
			log_warnx("ring: source %u: time went back %llu ns", src,
			          (unsigned long long)(r->last_t - t_ns));
		r->warned_time = true;
		t_ns = r->last_t;
	}
	if (nseries > r->n)
		grow_series(r, nseries);
	if (++r->gen == 0) {
		/* After 2^32 records, forget every old generation rather than match one. */
		for (size_t id = 0; id < r->capn; id++)
			r->ws[id].touched = 0;
		r->gen = 1;
	}
	if (r->nseg == 0 || t_ns - r->kf_t >= r->keyframe_ns || r->bytes_since_kf >= r->cap / 8)
		write_keyframe(r, t_ns);
	r->open = true;
	r->cur_src = src;
	r->cur_t = t_ns;
	r->moving_at_begin = r->src[src].nmoving;
	r->moving_put = 0;
	r->scratch_len = HEADER_MAX;
	r->nentries = 0;
	r->prev_id = 0;
}

/* Add (id, dod) to the open record. */
static void
add_entry(struct ring *r, series_id id, uint64_t dod)
{
	reserve_entry(r);
	r->scratch_len +=
	    put_uvarint(r->scratch + r->scratch_len, zigzag((uint64_t)id - (uint64_t)r->prev_id));
	r->scratch_len += put_uvarint(r->scratch + r->scratch_len, zigzag(dod));
	r->prev_id = id;
	r->nentries++;
}

/* Take id out of its source's moving list. */
static void
moving_remove(struct ring *r, series_id id)
{
	struct wseries *w = &r->ws[id];
	struct wsource *s = &r->src[w->src];
	series_id last = s->moving[--s->nmoving];

	s->moving[w->moving] = last;
	r->ws[last].moving = w->moving;
	w->moving = -1;
}

/* Put id in its source's moving list. */
static void
moving_add(struct ring *r, series_id id)
{
	struct wseries *w = &r->ws[id];
	struct wsource *s = &r->src[w->src];

	if (s->nmoving == s->capmoving) {
		s->capmoving = s->capmoving ? s->capmoving * 2 : 256;
		s->moving = ring_realloc(r, s->moving, s->capmoving, sizeof(*s->moving));
	}
	w->moving = (int32_t)s->nmoving;
	s->moving[s->nmoving++] = id;
}

/* Give id a new delta, recording the change. */
static void
set_delta(struct ring *r, series_id id, uint64_t nd)
{
	struct wseries *w = &r->ws[id];

	add_entry(r, id, nd - w->delta);
	w->delta = nd;
	if (nd != 0 && w->moving < 0)
		moving_add(r, id);
	else if (nd == 0 && w->moving >= 0)
		moving_remove(r, id);
}

/* ring_put for what the fast path leaves: no open record, an id past the known ones (or
 * SERIES_NONE), a series new to this source or put a second time in this record. */
static __attribute__((noinline)) void
ring_put_slow(struct ring *r, series_id id, uint64_t d)
{
	struct wseries *w;
	uint64_t nd;

	if (!r->open || id == SERIES_NONE)
		return;
	if (id >= r->n)
		grow_series(r, (size_t)id + 1); /* a series interned during this sample */
	w = &r->ws[id];
	if (w->src != r->cur_src) {
		/* A series changes source only while still; see the top comment. */
		if (w->src != SRC_NONE && w->delta != 0) {
			if (!r->warned_owner)
				log_warnx("ring: series %u put by sources %u and %u; ignored", id,
				          w->src, r->cur_src);
			r->warned_owner = true;
			return;
		}
		w->src = (uint8_t)r->cur_src;
	}
	/* Put twice in one record, it moved by the sum. A series is in the moving list at its
	 * first put only if it was when the record opened: set_delta comes after. */
	if (w->touched == r->gen) {
		nd = w->delta + d;
	} else {
		nd = d;
		w->touched = r->gen;
		r->moving_put += w->moving >= 0;
	}
	w->acc += d;
	if (nd != w->delta)
		set_delta(r, id, nd);
}

/* Thousands of calls a sample, nearly all the first put in a record of a series its source
 * already owns, and most with an unchanged delta: that case is a leaf that saves no
 * register; the rest goes to ring_put_slow. */
void
ring_put(struct ring *r, series_id id, uint64_t d)
{
	struct wseries *w;

	if (!r->open || id >= r->n) { /* SERIES_NONE is never below n */
		ring_put_slow(r, id, d);
		return;
	}
	w = &r->ws[id];
	if (w->src != r->cur_src || w->touched == r->gen) {
		ring_put_slow(r, id, d);
		return;
	}
	w->touched = r->gen;
	r->moving_put += w->moving >= 0;
	w->acc += d;
	if (d != w->delta)
		set_delta(r, id, d);
}

/* Store the open record (header built in front of its entries in scratch). */
static void
store_sample(struct ring *r, uint64_t dt)
{
	uint8_t hdr[HEADER_MAX], *rec;
	size_t hl = 0, len, off;

	hdr[hl++] = REC_SAMPLE;
	hdr[hl++] = (uint8_t)r->cur_src;
	hl += put_uvarint(hdr + hl, dt);
	hl += put_uvarint(hdr + hl, r->nentries);
	rec = r->scratch + HEADER_MAX - hl;
	memcpy(rec, hdr, hl);
	len = (size_t)(r->scratch + r->scratch_len - rec) + FOOTER_BYTES;
	if (r->nseg == 0)
		return; /* no keyframe could be written: no history */
	if (len > UINT32_MAX || !reserve_bytes(r, len, 1, &off)) {
		if (!r->warned_fit)
			log_warnx("ring: a segment outgrew %zu bytes; history restarts", r->cap);
		r->warned_fit = true;
		evict_all(r);
		return;
	}
	memcpy(r->buf + off, rec, len - FOOTER_BYTES);
	put_footer(r->buf + off + len - FOOTER_BYTES, len);
	commit_bytes(r, off, len, r->cur_t);
	r->records++;
	r->bytes_since_kf += len;
	r->last_record_bytes = len;
}

void
ring_end(struct ring *r)
{
	struct wsource *s;
	uint64_t dt;

	if (!r->open)
		return;
	r->open = false;
	s = &r->src[r->cur_src];
	/* Series that moved last time and were not put now stopped. When every one was put (a
	 * steady host: each moving counter moved again) there are none, and the walk, a read of
	 * each one's state, is skipped. Walking down, a removal only brings in an element
	 * already seen. */
	for (size_t i = r->moving_put < r->moving_at_begin ? s->nmoving : 0; i-- > 0;) {
		series_id id = s->moving[i];
		struct wseries *w = &r->ws[id];

		if (w->touched == r->gen)
			continue;
		add_entry(r, id, 0 - w->delta);
		w->delta = 0;
		moving_remove(r, id);
	}
	dt = r->cur_t - s->last_t;
	s->k++;
	if (s->k == 1)
		s->first_t = r->cur_t;
	s->last_t = r->cur_t;
	r->last_t = r->cur_t;
	store_sample(r, dt);
}

uint64_t
ring_live_value(const struct ring *r, series_id id)
{
	return id < r->n ? r->ws[id].acc : 0;
}

void
ring_live_values(const struct ring *r, uint64_t *out, size_t n)
{
	size_t have = n < r->n ? n : r->n;

	for (size_t id = 0; id < have; id++)
		out[id] = r->ws[id].acc;
	memset(out + have, 0, (n - have) * sizeof(*out));
}

uint64_t
ring_live_time(const struct ring *r, unsigned src)
{
	return src < RING_MAX_SOURCES ? r->src[src].last_t : 0;
}

void
ring_get_stats(const struct ring *r, struct ring_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->capacity = r->cap;
	st->used = r->used;
	st->segments = r->nseg;
	st->records = r->records;
	st->evicted_segments = r->evicted;
	st->allocations = r->allocations;
	if (r->nseg > 0) {
		st->oldest_ns = seg_at(r, 0)->first_t;
		st->newest_ns = seg_newest(r)->last_t;
	}
	st->last_record_bytes = r->last_record_bytes;
	st->last_keyframe_bytes = r->last_keyframe_bytes;
	/* Bytes written after the oldest point of the last minute, over the time since. */
	for (size_t i = 0; i < r->nrate && r->nseg > 0; i++) {
		const struct rate_point *p = &r->rate[(r->rate0 + i) % RING_RATE_HISTORY];

		if (st->newest_ns - p->t > RING_RATE_SPAN_NS)
			continue;
		if (st->newest_ns > p->t)
			st->bytes_per_second = (double)(r->bytes_written - p->bytes) * 1e9 /
			                       (double)(st->newest_ns - p->t);
		break;
	}
}

size_t
ring_evict_before(struct ring *r, uint64_t t_ns)
{
	size_t n = 0;

	while (r->nseg > 1 && seg_at(r, 0)->last_t < t_ns) {
		evict_oldest(r);
		n++;
	}
	return n;
}

/* ---- readers ---- */

struct ring_cursor *
ring_cursor_new(const struct ring *r)
{
	struct ring_cursor *c = xcalloc(1, sizeof(*c));

	c->r = r;
	c->cap = r->n;
	c->v = xcalloc(c->cap ? c->cap : 1, sizeof(*c->v));
	c->gen = xcalloc(c->cap ? c->cap : 1, sizeof(*c->gen));
	return c;
}

void
ring_cursor_free(struct ring_cursor *c)
{
	if (c == NULL)
		return;
	free(c->v);
	free(c->gen);
	free(c);
}

/* Forget everything: every value 0, every source without a record. */
static void
cursor_clear(struct ring_cursor *c)
{
	c->n = 0;
	c->fwd = false;
	memset(c->k, 0, sizeof(c->k));
	memset(c->t, 0, sizeof(c->t));
}

/* Room for every series the ring knows now. */
static void
cursor_fit(struct ring_cursor *c)
{
	if (c->r->n > c->cap) {
		c->v = xreallocarray(c->v, c->r->n, sizeof(*c->v));
		c->gen = xreallocarray(c->gen, c->r->n, sizeof(*c->gen));
		memset(c->gen + c->cap, 0, (c->r->n - c->cap) * sizeof(*c->gen));
		c->cap = c->r->n;
	}
	c->n = c->r->n;
	c->lazy = false;
}

/* Start from the writer's state: the cursor after the newest record. Series are copied
 * from it only when an undone record touches them (cursor_own). */
static void
cursor_load_live(struct ring_cursor *c)
{
	const struct ring *r = c->r;

	for (unsigned s = 0; s < RING_MAX_SOURCES; s++) {
		c->k[s] = r->src[s].k;
		c->t[s] = r->src[s].last_t;
	}
	c->lazy = true;
	if (++c->curgen == 0) {
		memset(c->gen, 0, c->cap * sizeof(*c->gen));
		c->curgen = 1;
	}
}

/* The cursor's own copy of a series, taken from the writer's state on first use. */
static struct cseries *
cursor_own(struct ring_cursor *c, series_id id)
{
	struct cseries *v = &c->v[id];

	if (c->lazy && c->gen[id] != c->curgen) {
		const struct wseries *w = &c->r->ws[id];
		v->acc = w->acc;
		v->delta = w->delta;
		v->src = w->src;
		v->at_k = w->src != SRC_NONE ? c->r->src[w->src].k : 0;
		c->gen[id] = c->curgen;
	}
	return v;
}

/* Load the keyframe at off; returns the offset just past it. */
static size_t
cursor_load_keyframe(struct ring_cursor *c, size_t off)
{
	const struct ring *r = c->r;
	const uint8_t *p = r->buf + off + 1;
	size_t ns, n;

	(void)get_uvarint(&p); /* t */
	ns = (size_t)get_uvarint(&p);
	memset(c->k, 0, sizeof(c->k));
	memset(c->t, 0, sizeof(c->t));
	for (size_t s = 0; s < ns; s++) {
		c->k[s] = get_uvarint(&p);
		c->t[s] = get_uvarint(&p);
	}
	n = (size_t)get_uvarint(&p);
	for (size_t id = 0; id < n; id++) {
		struct cseries *v = &c->v[id];

		v->acc = get_uvarint(&p);
		v->delta = unzigzag(get_uvarint(&p));
		v->src = v->delta != 0 ? *p++ : SRC_NONE;
		v->at_k = v->delta != 0 ? c->k[v->src] : 0;
	}
	memset(c->v + n, 0, (c->n - n) * sizeof(*c->v));
	for (size_t id = n; id < c->n; id++)
		c->v[id].src = SRC_NONE;
	return (size_t)(p - r->buf) + FOOTER_BYTES;
}

/* Move the cursor forward over the entries at p of the next record of src; returns the end
 * of the entries. */
static const uint8_t *
cursor_apply(struct ring_cursor *c, const uint8_t *p, unsigned src, uint64_t count)
{
	uint64_t k = c->k[src] + 1;
	series_id id = 0;

	for (uint64_t i = 0; i < count; i++) {
		id = (series_id)(id + unzigzag(get_uvarint(&p)));
		uint64_t dod = unzigzag(get_uvarint(&p));
		struct cseries *v = &c->v[id];
		uint64_t prev = v->acc + v->delta * (k - 1 - v->at_k);

		v->delta += dod;
		v->acc = prev + v->delta;
		v->at_k = k;
		v->src = (uint8_t)src;
	}
	c->k[src] = k;
	return p;
}

/* Move the cursor back over the entries at p of the record of src it stands on. */
static void
cursor_undo(struct ring_cursor *c, const uint8_t *p, unsigned src, uint64_t count)
{
	uint64_t k = c->k[src];
	series_id id = 0;

	for (uint64_t i = 0; i < count; i++) {
		id = (series_id)(id + unzigzag(get_uvarint(&p)));
		uint64_t dod = unzigzag(get_uvarint(&p));
		struct cseries *v = cursor_own(c, id);
		uint64_t cur = v->acc + v->delta * (k - v->at_k);

		v->acc = cur - v->delta;
		v->delta -= dod;
		v->at_k = k - 1;
		v->src = (uint8_t)src;
	}
	c->k[src] = k - 1;
}

/* Replay the records from off on while their time is <= t, and remember where it stopped
 * (the cursor stands in segment sg at t). With a deadline (CLOCK_MONOTONIC ns; 0: none),
 * stop once it has passed, after a record at least: false, the cursor standing at the last
 * record replayed (fwd_t its time), from where a later replay to t goes on. */
static bool
replay_forward_until(struct ring_cursor *c, const struct segment *sg, size_t off, uint64_t t,
                     uint64_t deadline)
{
	const struct ring *r = c->r;
	uint64_t at = c->fwd && c->fwd_seg == sg->start ? c->fwd_t : sg->first_t;
	bool done = true, moved = false;

	for (;;) {
		const uint8_t *p;
		uint64_t dt, count;
		unsigned src;

		if (off == r->head)
			break;
		if (off == r->cap || r->buf[off] == REC_WRAP) {
			off = 0;
			continue;
		}
		/* The next segment starts after t: sg is the newest that does not. */
		if (r->buf[off] != REC_SAMPLE)
			break;
		p = r->buf + off + 1;
		src = *p++;
		dt = get_uvarint(&p);
		if (c->t[src] + dt > t)
			break;
		if (deadline != 0 && moved && time_mono_ns() >= deadline) {
			done = false;
			break;
		}
		count = get_uvarint(&p);
		p = cursor_apply(c, p, src, count);
		c->t[src] += dt;
		at = c->t[src];
		moved = true;
		off = (size_t)(p - r->buf) + FOOTER_BYTES;
	}
	c->fwd = true;
	c->fwd_t = done ? t : at;
	c->fwd_off = off;
	c->fwd_seg = sg->start;
	c->fwd_evicted = r->evicted;
	return done;
}

/* replay_forward_until without a deadline. */
static void
replay_forward(struct ring_cursor *c, const struct segment *sg, size_t off, uint64_t t)
{
	replay_forward_until(c, sg, off, t, 0);
}

/* Replay the records after the keyframe of segment sg while their time is <= t. */
static void
seek_forward(struct ring_cursor *c, const struct segment *sg, uint64_t t)
{
	replay_forward(c, sg, cursor_load_keyframe(c, sg->start), t);
}

/* Can a seek to t in segment sg go on from where the last forward seek stopped? Only when
 * that replay is still what the ring holds (nothing evicted, no series learnt since: n is
 * the count before this seek's cursor_fit) and t is no earlier, in the same segment. */
static bool
can_continue(const struct ring_cursor *c, const struct segment *sg, uint64_t t, size_t n)
{
	return c->fwd && c->fwd_evicted == c->r->evicted && n == c->r->n &&
	       c->fwd_seg == sg->start && t >= c->fwd_t;
}

/* Start from the live state and undo the records newer than t, newest first. */
static void
seek_backward(struct ring_cursor *c, uint64_t t)
{
	const struct ring *r = c->r;
	size_t end = r->head;

	cursor_load_live(c);
	c->fwd = false;
	for (;;) {
		size_t start = end - get_footer(r->buf + end - FOOTER_BYTES);
		const uint8_t *p = r->buf + start;

		if (*p == REC_SAMPLE) {
			unsigned src = p[1];
			uint64_t dt, count;

			if (c->t[src] <= t)
				break;
			p += 2;
			dt = get_uvarint(&p);
			count = get_uvarint(&p);
			cursor_undo(c, p, src, count);
			c->t[src] -= dt;
		}
		if (start == r->tail)
			break;
		end = start == 0 ? r->wrap_at : start;
	}
}

/* The index of the newest segment whose first record is at or before t (0 when t is before
 * the oldest's). */
static size_t
find_segment_index(const struct ring *r, uint64_t t)
{
	size_t lo = 0, hi = r->nseg; /* first_t <= t for every index < lo */

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (seg_at(r, mid)->first_t <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The newest segment whose first record is at or before t (t >= the oldest's). */
static const struct segment *
find_segment(const struct ring *r, uint64_t t)
{
	return seg_at(r, find_segment_index(r, t));
}

int
ring_cursor_seek_dir(struct ring_cursor *c, uint64_t t_ns, enum ring_seek_dir dir)
{
	const struct ring *r = c->r;
	const struct segment *sg;
	uint64_t newest;
	size_t n = c->n;

	if (r->nseg == 0 || t_ns < seg_at(r, 0)->first_t) {
		cursor_clear(c);
		return -1;
	}
	cursor_fit(c);
	sg = find_segment(r, t_ns);
	/* Steps of a series or a trend move forward a step at a time: replay just the step. */
	if (dir != RING_SEEK_BACKWARD && can_continue(c, sg, t_ns, n)) {
		replay_forward(c, sg, c->fwd_off, t_ns);
		return 0;
	}
	newest = seg_newest(r)->last_t;
	if (dir == RING_SEEK_AUTO)
		dir = t_ns >= newest || newest - t_ns < t_ns - sg->first_t ? RING_SEEK_BACKWARD
		                                                           : RING_SEEK_FORWARD;
	if (dir == RING_SEEK_BACKWARD)
		seek_backward(c, t_ns);
	else
		seek_forward(c, sg, t_ns);
	return 0;
}

int
ring_cursor_seek_part(struct ring_cursor *c, uint64_t t_ns, uint64_t deadline)
{
	const struct ring *r = c->r;
	const struct segment *sg;
	size_t n = c->n;

	if (r->nseg == 0 || t_ns < seg_at(r, 0)->first_t) {
		cursor_clear(c);
		return -1;
	}
	/* At or past the newest record: the live state, nothing to undo. */
	if (t_ns >= seg_newest(r)->last_t) {
		cursor_fit(c);
		seek_backward(c, t_ns);
		return 1;
	}
	cursor_fit(c);
	sg = find_segment(r, t_ns);
	if (can_continue(c, sg, t_ns, n))
		return replay_forward_until(c, sg, c->fwd_off, t_ns, deadline) ? 1 : 0;
	/* From the segment's keyframe: a part of its own. */
	c->fwd = false;
	c->fwd_off = cursor_load_keyframe(c, sg->start);
	c->fwd = true;
	c->fwd_t = sg->first_t;
	c->fwd_seg = sg->start;
	c->fwd_evicted = r->evicted;
	if (deadline != 0 && time_mono_ns() >= deadline)
		return 0; /* the keyframe took the part: the records in the next */
	return replay_forward_until(c, sg, c->fwd_off, t_ns, deadline) ? 1 : 0;
}

int
ring_cursor_step(struct ring_cursor *c, uint64_t limit_ns)
{
	const struct ring *r = c->r;
	size_t off = c->fwd_off;

	if (!c->fwd || c->fwd_evicted != r->evicted || c->n != r->n)
		return -1;
	for (;;) {
		const uint8_t *p;
		uint64_t dt, count;
		unsigned src;

		if (off == r->head)
			return -1;
		if (off == r->cap || r->buf[off] == REC_WRAP) {
			off = 0;
			continue;
		}
		if (r->buf[off] == REC_KEYFRAME) {
			/* The next segment: its keyframe holds the state the cursor has. */
			c->fwd_seg = off;
			off = cursor_load_keyframe(c, off);
			c->fwd_off = off;
			continue;
		}
		p = r->buf + off + 1;
		src = *p++;
		dt = get_uvarint(&p);
		if (c->t[src] + dt > limit_ns)
			return -1;
		count = get_uvarint(&p);
		p = cursor_apply(c, p, src, count);
		c->t[src] += dt;
		c->fwd_off = (size_t)(p - r->buf) + FOOTER_BYTES;
		c->fwd_t = c->t[src];
		return (int)src;
	}
}

uint64_t
ring_segment_first(const struct ring *r, uint64_t t_ns)
{
	if (r->nseg == 0 || t_ns < seg_at(r, 0)->first_t)
		return 0;
	return find_segment(r, t_ns)->first_t;
}

bool
ring_cursor_stale(const struct ring_cursor *c)
{
	return !c->fwd || c->fwd_evicted != c->r->evicted || c->n != c->r->n;
}

int
ring_cursor_seek(struct ring_cursor *c, uint64_t t_ns)
{
	return ring_cursor_seek_dir(c, t_ns, RING_SEEK_AUTO);
}

uint64_t
ring_cursor_value(const struct ring_cursor *c, series_id id)
{
	const struct cseries *v;

	if (id >= c->n)
		return 0;
	if (c->lazy && c->gen[id] != c->curgen) {
		/* Untouched by the undone records: the live state, moved back along its delta. */
		const struct wseries *w = &c->r->ws[id];
		if (w->delta == 0 || w->src == SRC_NONE)
			return w->acc;
		return w->acc + w->delta * (c->k[w->src] - c->r->src[w->src].k);
	}
	v = &c->v[id];
	if (v->delta == 0)
		return v->acc;
	return v->acc + v->delta * (c->k[v->src] - v->at_k);
}

/* Where a walk back over the records' headers for the times up to t starts: at the keyframe
 * of the segment after t's (every record from there on is newer than t; the keyframe holds
 * each source's time before it), or at the newest record. Sets cur[] (each source's time
 * there) and *end (the end of the first record to walk back over). */
static void
walk_start(const struct ring *r, uint64_t t, uint64_t *cur, size_t *end)
{
	size_t lo = find_segment_index(r, t);

	if (lo + 1 < r->nseg && t >= seg_at(r, 0)->first_t) {
		const struct segment *nx = seg_at(r, lo + 1);
		const uint8_t *p = r->buf + nx->start + 1;
		size_t ns;

		(void)get_uvarint(&p); /* t */
		ns = (size_t)get_uvarint(&p);
		memset(cur, 0, RING_MAX_SOURCES * sizeof(*cur));
		for (size_t s = 0; s < ns; s++) {
			(void)get_uvarint(&p); /* k */
			uint64_t ts = get_uvarint(&p);
			if (s < RING_MAX_SOURCES)
				cur[s] = ts;
		}
		*end = nx->start == 0 ? r->wrap_at : nx->start;
		return;
	}
	for (unsigned s = 0; s < RING_MAX_SOURCES; s++)
		cur[s] = r->src[s].last_t;
	*end = r->head;
}

size_t
ring_src_times(const struct ring *r, unsigned src, uint64_t t, uint64_t *out, size_t max)
{
	uint64_t cur[RING_MAX_SOURCES];
	size_t n = 0, end;
	bool walked = false; /* every record kept undone */

	if (src >= RING_MAX_SOURCES || r->nseg == 0)
		return 0;
	/* cur: each source's time at a cursor built back from the live state, as seek_backward
	 * builds it, the records after `end` undone. */
	walk_start(r, t, cur, &end);
	while (n < max && t > 0) {
		/* Undo the records newer than t, newest first. */
		while (!walked) {
			size_t start = end - get_footer(r->buf + end - FOOTER_BYTES);
			const uint8_t *p = r->buf + start;
			if (*p == REC_SAMPLE) {
				unsigned rs = p[1];
				if (cur[rs] <= t)
					break;
				p += 2;
				cur[rs] -= get_uvarint(&p);
			}
			if (start == r->tail)
				walked = true;
			else
				end = start == 0 ? r->wrap_at : start;
		}
		if (t < seg_at(r, 0)->first_t || cur[src] == 0)
			break;
		out[n++] = cur[src];
		t = cur[src] - 1;
	}
	return n;
}

uint64_t
ring_src_time_after(const struct ring *r, unsigned src, uint64_t after, uint64_t limit)
{
	uint64_t cur[RING_MAX_SOURCES], best = 0;
	size_t end;

	if (src >= RING_MAX_SOURCES || r->nseg == 0)
		return 0;
	walk_start(r, limit, cur, &end);
	/* Back from the newest record, headers only, until src's records are no later than
	 * after: the last one seen in (after, limit] is the first after `after`. */
	for (;;) {
		size_t start = end - get_footer(r->buf + end - FOOTER_BYTES);
		const uint8_t *p = r->buf + start;
		if (*p == REC_SAMPLE) {
			unsigned rs = p[1];
			if (rs == src) {
				if (cur[rs] <= after)
					break;
				if (cur[rs] <= limit)
					best = cur[rs];
			}
			p += 2;
			cur[rs] -= get_uvarint(&p);
		}
		if (start == r->tail)
			break;
		end = start == 0 ? r->wrap_at : start;
	}
	return best;
}

uint64_t
ring_first_time(const struct ring *r, unsigned src)
{
	return src < RING_MAX_SOURCES ? r->src[src].first_t : 0;
}

uint64_t
ring_cursor_time(const struct ring_cursor *c, unsigned src)
{
	return src < RING_MAX_SOURCES ? c->t[src] : 0;
}

uint64_t
ring_cursor_k(const struct ring_cursor *c, unsigned src)
{
	return src < RING_MAX_SOURCES ? c->k[src] : 0;
}
