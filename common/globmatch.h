/* globmatch.h: fnmatch(3) without flags, fast for the patterns series names are matched
 * with ("irq.*.cpu1", "link.*.rx_?ytes"): '*' and '?' are matched here byte by byte, as
 * fnmatch does in the C locale the daemon runs in (it never calls setlocale), without its
 * general machinery; a pattern with a bracket expression or a backslash is left to fnmatch.
 * Same answers as fnmatch(pat, s, 0) in the C locale. */
#ifndef NM_GLOBMATCH_H
#define NM_GLOBMATCH_H

#include <stdbool.h>

/* Does s match pat, as fnmatch(pat, s, 0) == 0? */
bool globmatch(const char *pat, const char *s);
/* Can globmatch answer for pat without fnmatch (only '*', '?' and literal bytes)? */
bool globmatch_simple(const char *pat);

#endif
