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

void
globmatch_compile(struct globmatch *g, const char *pat)
{
	size_t len = strlen(pat), first, last;

	g->pat = pat;
	g->simple = globmatch_simple(pat);
	first = strcspn(pat, "*?");
	g->head = first;
	g->tail = 0;
	g->stars_only = false;
	if (!g->simple || first == len)
		return;
	/* The tail: after the last wildcard, when that is a '*'. */
	last = len;
	while (last > first && pat[last - 1] != '*' && pat[last - 1] != '?')
		last--;
	if (pat[last - 1] == '*')
		g->tail = len - last;
	g->stars_only = g->tail > 0 || pat[len - 1] == '*';
	for (size_t i = first; i < len - g->tail; i++)
		if (pat[i] != '*')
			g->stars_only = false;
}

bool
globmatch_exec(const struct globmatch *g, const char *s)
{
	size_t n;

	if (!g->simple)
		return fnmatch(g->pat, s, 0) == 0;
	if (strncmp(s, g->pat, g->head) != 0)
		return false;
	if (g->pat[g->head] == '\0')
		return s[g->head] == '\0';
	if (g->tail > 0) {
		n = strlen(s);
		if (n < g->head + g->tail ||
		    memcmp(s + n - g->tail, g->pat + strlen(g->pat) - g->tail, g->tail) != 0)
			return false;
	}
	if (g->stars_only)
		return true;
	return simple(g->pat + g->head, s + g->head);
}

bool
globmatch(const char *pat, const char *s)
{
	return globmatch_simple(pat) ? simple(pat, s) : fnmatch(pat, s, 0) == 0;
}
