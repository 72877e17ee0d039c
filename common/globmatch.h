/* globmatch.h: fnmatch(3) without flags, fast for the patterns series names are matched
 * with ("irq.*.cpu1", "link.*.rx_?ytes"): '*' and '?' are matched here byte by byte, as
 * fnmatch does in the C locale the daemon runs in (it never calls setlocale), without its
 * general machinery; a pattern with a bracket expression or a backslash is left to fnmatch.
 * Same answers as fnmatch(pat, s, 0) in the C locale. A pattern compiled once
 * (globmatch_compile) is tried on a name by its literal head and tail first: "irq.*.cpu1"
 * costs two short compares per name. */
#ifndef NM_GLOBMATCH_H
#define NM_GLOBMATCH_H

#include <stdbool.h>
#include <stddef.h>

struct globmatch {
	const char *pat; /* not copied: must outlive the struct */
	bool simple;     /* only '*', '?' and literal bytes */
	size_t head;     /* literal bytes before the first '*' or '?' */
	size_t tail;     /* literal bytes after the last '*' (none when it ends in a '?' run) */
	bool stars_only; /* between head and tail only '*' (at least one) */
};

/* Does s match pat, as fnmatch(pat, s, 0) == 0? */
bool globmatch(const char *pat, const char *s);
/* Can globmatch answer for pat without fnmatch (only '*', '?' and literal bytes)? */
bool globmatch_simple(const char *pat);
/* Prepare pat for many names. */
void globmatch_compile(struct globmatch *g, const char *pat);
/* globmatch(g->pat, s). */
bool globmatch_exec(const struct globmatch *g, const char *s);

#endif
