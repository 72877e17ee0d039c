/* globmatch.c: fnmatch(3) without flags, fast for '*' and '?' (globmatch.h). */
#include <fnmatch.h>
#include <string.h>

#include "globmatch.h"

bool
globmatch_simple(const char *pat)
{
	return pat[strcspn(pat, "[\\")] == '\0';
}

/* The usual linear matcher: on a mismatch, go back to the last '*' and let it take one byte
 * more. */
static bool
simple(const char *p, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			if (*p == '\0')
				return true;
			star = p;
			resume = s;
		} else if (*p == '?' || *p == *s) {
			p++;
			s++;
		} else if (star != NULL) {
			p = star;
			s = ++resume;
		} else
			return false;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

bool
globmatch(const char *pat, const char *s)
{
	return globmatch_simple(pat) ? simple(pat, s) : fnmatch(pat, s, 0) == 0;
}
