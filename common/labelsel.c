/* labelsel.c: Prometheus-style label selectors (see labelsel.h). */
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "labelsel.h"
#include "strbuf.h"
#include "xmalloc.h"

/* p past blanks. */
static const char *
blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Whether c may be in a label name. */
static bool
key_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* A quoted value at *pp into out (escapes undone); *pp past its closing quote. */
static int
quoted(const char **pp, struct strbuf *out, struct nm_error *err)
{
	const char *p = *pp;

	if (*p != '"')
		return nm_error_set(err, NM_ERR_BAD_ARGS, "a label value must be in double quotes");
	for (p++; *p != '"'; p++) {
		if (*p == '\0')
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "a label value lacks its closing quote");
		if (*p == '\\') {
			p++;
			if (*p != '"' && *p != '\\' && *p != 'n')
				return nm_error_set(
				    err, NM_ERR_BAD_ARGS,
				    "bad escape in a label value (\\\", \\\\, \\n)");
			strbuf_addch(out, *p == 'n' ? '\n' : *p);
			continue;
		}
		strbuf_addch(out, *p);
	}
	*pp = p + 1;
	return 0;
}

/* One matcher KEY OP "VALUE" at *pp into m; *pp past it. */
static int
matcher(const char **pp, struct labelsel_matcher *m, struct nm_error *err)
{
	const char *p = blanks(*pp), *k = p;
	struct strbuf v;
	char *anchored;
	int r;

	while (key_char(*p))
		p++;
	if (p == k)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "a label name is missing");
	m->key = xstrndup(k, (size_t)(p - k));
	p = blanks(p);
	if (p[0] == '=' && p[1] == '~')
		m->op = LABELSEL_RE, p += 2;
	else if (p[0] == '!' && p[1] == '~')
		m->op = LABELSEL_NRE, p += 2;
	else if (p[0] == '!' && p[1] == '=')
		m->op = LABELSEL_NE, p += 2;
	else if (p[0] == '=')
		m->op = LABELSEL_EQ, p += 1;
	else
		return nm_error_set(err, NM_ERR_BAD_ARGS, "label %s: no =, !=, =~ or !~", m->key);
	p = blanks(p);
	strbuf_init(&v);
	if (quoted(&p, &v, err) < 0) {
		strbuf_free(&v);
		return -1;
	}
	m->value = xstrdup(v.len ? v.buf : "");
	strbuf_free(&v);
	if (m->op == LABELSEL_RE || m->op == LABELSEL_NRE) {
		anchored = xmalloc(strlen(m->value) + 5);
		strcpy(anchored, "^(");
		strcat(anchored, m->value);
		strcat(anchored, ")$");
		r = regcomp(&m->re, anchored, REG_EXTENDED | REG_NOSUB);
		free(anchored);
		if (r != 0) {
			m->op = LABELSEL_EQ; /* nothing compiled to free */
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "label %s: bad regular expression \"%s\"", m->key,
			                    m->value);
		}
	}
	*pp = p;
	return 0;
}

int
labelsel_parse(struct labelsel *s, const char *text, struct nm_error *err)
{
	const char *p = blanks(text), *n = p;

	memset(s, 0, sizeof(*s));
	while (*p != '\0' && *p != '{' && *p != ' ' && *p != '\t')
		p++;
	if (p > n)
		s->name = xstrndup(n, (size_t)(p - n));
	p = blanks(p);
	if (*p == '{') {
		p = blanks(p + 1);
		while (*p != '}') {
			s->m = xreallocarray(s->m, s->n + 1, sizeof(*s->m));
			memset(&s->m[s->n], 0, sizeof(s->m[s->n]));
			s->n++;
			if (matcher(&p, &s->m[s->n - 1], err) < 0)
				return -1;
			p = blanks(p);
			if (*p == ',')
				p = blanks(p + 1);
			else if (*p != '}')
				return nm_error_set(
				    err, NM_ERR_BAD_ARGS,
				    "a selector's matchers are separated by commas and "
				    "end with }");
		}
		p = blanks(p + 1);
	}
	if (*p != '\0')
		return nm_error_set(err, NM_ERR_BAD_ARGS, "junk after the selector: \"%s\"", p);
	if (s->name == NULL && s->n == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "an empty selector");
	return 0;
}

void
labelsel_free(struct labelsel *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->m[i].key);
		free(s->m[i].value);
		if (s->m[i].op == LABELSEL_RE || s->m[i].op == LABELSEL_NRE)
			regfree(&s->m[i].re);
	}
	free(s->m);
	free(s->name);
	memset(s, 0, sizeof(*s));
}

bool
labelsel_name_matches(const struct labelsel *s, const char *name)
{
	return s->name == NULL || fnmatch(s->name, name, 0) == 0;
}

bool
labelsel_matches(const struct labelsel *s, const char *name,
                 const char *(*get)(void *arg, const char *key), void *arg)
{
	if (name != NULL && !labelsel_name_matches(s, name))
		return false;
	for (size_t i = 0; i < s->n; i++) {
		const struct labelsel_matcher *m = &s->m[i];
		const char *v = get(arg, m->key);
		bool eq;

		if (v == NULL)
			v = "";
		if (m->op == LABELSEL_EQ || m->op == LABELSEL_NE)
			eq = strcmp(v, m->value) == 0;
		else
			eq = regexec(&m->re, v, 0, NULL, 0) == 0;
		if (eq != (m->op == LABELSEL_EQ || m->op == LABELSEL_RE))
			return false;
	}
	return true;
}
