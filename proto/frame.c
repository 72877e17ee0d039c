/* frame.c: splits a byte stream into newline-terminated lines with a bound on each line.
 *
 * The buffer holds buf[scan..len), the bytes not yet popped; buf[0..scan) are lines already
 * returned, kept until the next call because the caller may still read the last one. They are
 * reclaimed by resetting to 0 once everything is popped, or by one memmove when the buffer
 * must grow and the popped part is at least as large as the rest, so each byte is moved at
 * most once on average.
 *
 * An over-long line is kept as a placeholder of its first limit + 1 bytes, followed by '\n'
 * once its real newline arrives; the rest of it is dropped as it comes. Popping a placeholder
 * reports FRAME_TOO_LONG in its place in the stream, so the lines around it keep their order.
 * When the placeholder is still the unfinished last line, frame_pop reports it at once and
 * drops it, and too_long_pending records that it has not been reported yet. */
#include <string.h>

#include "proto.h"
#include "utf8.h"
#include "xmalloc.h"

#define FRAME_MIN_CAP 256

/* Start an empty reader for lines of at most limit bytes. */
void
frame_init(struct frame_reader *fr, size_t limit)
{
	memset(fr, 0, sizeof(*fr));
	fr->limit = limit;
}

/* Free the buffer; the reader can be initialised again. */
void
frame_free(struct frame_reader *fr)
{
	free(fr->buf);
	memset(fr, 0, sizeof(*fr));
}

/* Make room for extra more bytes: reclaim popped bytes when they pay for the move, else grow. */
static void
frame_reserve(struct frame_reader *fr, size_t extra)
{
	size_t live = fr->len - fr->scan;
	size_t need, cap;

	if (fr->len + extra <= fr->cap)
		return;
	if (fr->scan > 0 && fr->scan >= live) {
		memmove(fr->buf, fr->buf + fr->scan, live);
		fr->len = live;
		fr->scan = 0;
		if (fr->len + extra <= fr->cap)
			return;
	}
	need = fr->len + extra;
	cap = fr->cap < FRAME_MIN_CAP ? FRAME_MIN_CAP : fr->cap;
	while (cap < need)
		cap *= 2;
	fr->buf = xreallocarray(fr->buf, cap, 1);
	fr->cap = cap;
}

/* Append n bytes to the buffer. */
static void
frame_append(struct frame_reader *fr, const char *data, size_t n)
{
	if (n == 0)
		return;
	frame_reserve(fr, n);
	memcpy(fr->buf + fr->len, data, n);
	fr->len += n;
}

/* Length of the unfinished last line: the bytes after the last '\n' not yet popped. */
static size_t
frame_tail(const struct frame_reader *fr)
{
	const char *nl;

	if (fr->len == fr->scan)
		return 0;
	nl = memrchr(fr->buf + fr->scan, '\n', fr->len - fr->scan);
	if (nl == NULL)
		return fr->len - fr->scan;
	return fr->len - (size_t)(nl + 1 - fr->buf);
}

/* Append bytes; never buffers more than limit + 1 bytes of an unfinished line. */
void
frame_feed(struct frame_reader *fr, const void *data, size_t len)
{
	const char *p = data, *nl;
	size_t tail = 0, seg;
	bool tail_known = false;

	while (len > 0) {
		nl = memchr(p, '\n', len);
		if (fr->discarding) {
			if (nl == NULL)
				return;
			/* End an unreported placeholder so it is popped as a line in order. */
			if (fr->too_long_pending)
				frame_append(fr, "\n", 1);
			fr->too_long_pending = false;
			fr->discarding = false;
			tail = 0;
			tail_known = true;
			len -= (size_t)(nl + 1 - p);
			p = nl + 1;
			continue;
		}
		seg = nl != NULL ? (size_t)(nl - p) : len;
		/* Cheap test first: only look for the tail when the limit could be passed. */
		if (!tail_known && fr->len - fr->scan + seg > fr->limit) {
			tail = frame_tail(fr);
			tail_known = true;
		}
		if (tail_known && tail + seg > fr->limit) {
			frame_append(fr, p, fr->limit + 1 - tail);
			fr->discarding = true;
			fr->too_long_pending = true;
			len -= seg;
			p += seg;
			continue;
		}
		if (nl != NULL) {
			frame_append(fr, p, seg + 1);
			tail = 0;
			tail_known = true;
			len -= seg + 1;
			p += seg + 1;
		} else {
			frame_append(fr, p, seg);
			tail += seg;
			len = 0;
		}
	}
}

/* Pop the next line, skipping empty ones; see enum frame_status for what is set. */
enum frame_status
frame_pop(struct frame_reader *fr, const char **line, size_t *len)
{
	const char *nl;
	size_t start, n;

	for (;;) {
		if (fr->scan == fr->len) {
			/* Everything popped: reuse the buffer from its start on the next feed. */
			fr->scan = fr->len = 0;
			return FRAME_NONE;
		}
		nl = memchr(fr->buf + fr->scan, '\n', fr->len - fr->scan);
		if (nl == NULL) {
			if (fr->too_long_pending) {
				/* The unfinished line passed the limit: say so now, keep dropping.
				 */
				fr->too_long_pending = false;
				fr->len = fr->scan;
				return FRAME_TOO_LONG;
			}
			return FRAME_NONE;
		}
		start = fr->scan;
		n = (size_t)(nl - fr->buf) - start;
		fr->scan = start + n + 1;
		if (n > fr->limit)
			return FRAME_TOO_LONG;
		if (n > 0 && fr->buf[start + n - 1] == '\r')
			n--;
		if (n == 0)
			continue;
		fr->buf[start + n] = '\0';
		if (!frame_utf8_valid(fr->buf + start, n))
			return FRAME_BAD_UTF8;
		*line = fr->buf + start;
		*len = n;
		return FRAME_LINE;
	}
}

/* Bytes of the unfinished line buffered now (0 once an over-long one was reported). */
size_t
frame_pending(const struct frame_reader *fr)
{
	return frame_tail(fr);
}

/* True when buf[0..len) is valid UTF-8 (utf8.c holds the one check). */
bool
frame_utf8_valid(const char *buf, size_t len)
{
	return utf8_valid(buf, len);
}
