/* utf8.h: UTF-8 validation, and the one sanitiser for text from children and files: it
 * makes valid UTF-8 with control characters escaped from arbitrary bytes. */
#ifndef NM_UTF8_H
#define NM_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* The length (1..4) of the valid UTF-8 sequence that s[0..len) starts with: shortest form,
 * no surrogate, at most U+10FFFF; 0 when it does not start with one (or len is 0). */
size_t utf8_seqlen(const char *s, size_t len);
/* True when s[0..len) is valid UTF-8 throughout. */
bool utf8_valid(const char *s, size_t len);

/* Keep '\n' and '\t' as they are (text kept for people, such as a program's output);
 * without it they are escaped as well (a log line, a table cell). */
#define UTF8_KEEP_NEWLINE 1u

/* Copy src[0..len) into dst (size > 0 bytes, always NUL-terminated) as valid UTF-8: a byte
 * that does not belong to a valid sequence becomes "\xNN", a C0 control character or DEL
 * "\xNN", a C1 control character (U+0080..U+009F) "\u00NN"; a NUL byte too. The copy is cut
 * only between characters (never inside a sequence or an escape). Returns its length. */
size_t utf8_sanitize(char *dst, size_t size, const char *src, size_t len, unsigned flags);
/* The same into a new string of the right size; the caller frees. */
char *utf8_sanitize_dup(const char *src, size_t len, unsigned flags);
/* True when utf8_sanitize would change s[0..len) (it is not valid, or has controls). */
bool utf8_needs_sanitize(const char *s, size_t len, unsigned flags);

#endif
