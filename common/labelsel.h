/* labelsel.h: label selectors as Prometheus writes them, for choosing series:
 *
 *     NAME                       a family by name
 *     NAME{KEY OP "VALUE", ...}  and its series whose labels match every matcher
 *     {KEY OP "VALUE", ...}      any family
 *
 * NAME is a glob (fnmatch, no flags). OP is = (equal), != (not equal), =~ (the POSIX
 * extended regular expression matches the whole value: anchored, as in Prometheus) or !~
 * (does not). A label a series does not have is the empty string, as in Prometheus. VALUE
 * is in double quotes, with \", \\ and \n escapes. Blanks around tokens are allowed. */
#ifndef NM_LABELSEL_H
#define NM_LABELSEL_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

struct nm_error;

enum labelsel_op { LABELSEL_EQ, LABELSEL_NE, LABELSEL_RE, LABELSEL_NRE };

struct labelsel_matcher {
	char *key, *value;
	enum labelsel_op op;
	regex_t re; /* compiled for RE and NRE */
};

struct labelsel {
	char *name; /* the glob on family names; NULL: any */
	struct labelsel_matcher *m;
	size_t n;
};

/* Parse text into s (zeroed first; free with labelsel_free, also after a failure). -1 with
 * err (bad_args) on a syntax error or a bad regular expression. */
int labelsel_parse(struct labelsel *s, const char *text, struct nm_error *err);
void labelsel_free(struct labelsel *s);
/* Whether a family named name may hold matches (the name glob alone). */
bool labelsel_name_matches(const struct labelsel *s, const char *name);
/* Whether a series of family name (NULL: the name is not checked) with labels looked up by
 * get (NULL: none, taken as "") matches. */
bool labelsel_matches(const struct labelsel *s, const char *name,
                      const char *(*get)(void *arg, const char *key), void *arg);

#endif
