/* source-sysctl.c: the values of sysctls matched by globs, for kernels patched with extra
 * counters (net.core.*arfs*) and for tunables worth recording beside a run (tcp_mem).
 *
 * Options ([source.sysctl]):
 *   match  = GLOB...   globs below /proc/sys, with '/' or '.' separators
 *                      (net.core.*arfs* or net/ipv4/tcp_mem); may be given several times
 *   kind   = gauge|counter   the kind of every series (default gauge)
 *   rescan = SECONDS   how often the globs are expanded again (default 60; 0: every sample)
 *
 * A glob without '/' uses '.' as separator, as sysctl(8) does; a glob with '/' is taken
 * as a path, so net/ipv4/conf/eth0.100/rp_filter names a VLAN's file. A file holding one
 * integer becomes sysctl.<dotted.path>; one holding several (tcp_mem "a b c") becomes
 * sysctl.<dotted.path>.0, .1, ... In the dotted path a '.' of the file's path becomes '/'
 * (sysctl.net.ipv4.conf.eth0/100.rp_filter), as sysctl(8) prints it. Files that can't be
 * read (write-only, EACCES, EPERM) or don't hold integers are skipped with a debug
 * message, once, until they stop matching. Every matched file is kept open and read with
 * pread; glob(3) allocates, so expansion happens only at init and on rescan. */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "error.h"
#include "log.h"
#include "procparse.h"
#include "source.h"
#include "timeutil.h"
#include "xmalloc.h"

#define SYSCTL_DIR            "proc/sys/"
#define SYSCTL_MAX_FILES      16384 /* matched files beyond this are ignored */
#define SYSCTL_MAX_VALUES     64    /* a file with more values is skipped */
#define SYSCTL_MAX_RESCAN     86400 /* seconds */
#define SYSCTL_DEFAULT_RESCAN 60
#define SYSCTL_NAME_MAX       512

/* Options from [source.sysctl]; src->opts. */
struct sysctl_opts {
	char **globs; /* with '/' separators, relative to proc/sys */
	size_t nglobs;
	enum series_kind kind;
	unsigned rescan_s;
};

/* One matched file. */
struct sysctl_file {
	char *path;     /* below proc/sys: "net/ipv4/tcp_mem" */
	int fd;         /* -1 when skipped */
	series_id *ids; /* one per value */
	size_t nids;
};

struct sysctl_priv {
	struct sysctl_file *files; /* sorted by path */
	size_t nfiles;
	char *pattern; /* root + "proc/sys/" with glob metacharacters escaped */
	size_t dirlen; /* length of root + "proc/sys/" unescaped */
	char *buf;     /* read buffer shared by the files */
	size_t bufcap;
	uint64_t last_scan_ns;
};

/* The options, created with their defaults on first use. */
static struct sysctl_opts *
get_opts(struct source *src)
{
	struct sysctl_opts *o = src->opts;

	if (o == NULL) {
		o = xcalloc(1, sizeof(*o));
		o->kind = SERIES_GAUGE;
		o->rescan_s = SYSCTL_DEFAULT_RESCAN;
		src->opts = o;
	}
	return o;
}

/* Turn a glob into a path glob below proc/sys (owned by the caller); NULL if it is empty
 * or climbs out with "..". */
static char *
normalise_glob(const char *g, size_t len)
{
	bool dots = memchr(g, '/', len) == NULL;
	char *out = xmalloc(len + 1);
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		char c = g[i] == '.' && dots ? '/' : g[i];

		/* Drop leading and repeated separators. */
		if (c == '/' && (n == 0 || out[n - 1] == '/'))
			continue;
		out[n++] = c;
	}
	while (n > 0 && out[n - 1] == '/')
		n--;
	out[n] = '\0';
	for (const char *c = out; *c != '\0' && n > 0;) {
		size_t clen = strcspn(c, "/");

		if (clen == 2 && c[0] == '.' && c[1] == '.')
			n = 0;
		c += clen + (c[clen] == '/');
	}
	if (n == 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* Option "match": add each whitespace-separated glob. */
static int
configure_match(struct sysctl_opts *o, const char *val, struct nm_error *err)
{
	const char *s = val, *e;
	size_t added = 0;
	char *g;

	for (;;) {
		s += strspn(s, " \t\n");
		if (*s == '\0')
			break;
		e = s + strcspn(s, " \t\n");
		g = normalise_glob(s, (size_t)(e - s));
		if (g == NULL)
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "[source.sysctl] match: bad glob \"%.*s\"",
			                    (int)(e - s), s);
		o->globs = xreallocarray(o->globs, o->nglobs + 1, sizeof(*o->globs));
		o->globs[o->nglobs++] = g;
		added++;
		s = e;
	}
	if (added == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[source.sysctl] match: no glob in \"%s\"", val);
	return 0;
}

/* Option "rescan": whole seconds, 0 to SYSCTL_MAX_RESCAN. */
static int
configure_rescan(struct sysctl_opts *o, const char *val, struct nm_error *err)
{
	unsigned v = 0;
	const char *s;

	for (s = val; *s >= '0' && *s <= '9' && v <= SYSCTL_MAX_RESCAN; s++)
		v = v * 10 + (unsigned)(*s - '0');
	if (s == val || *s != '\0' || v > SYSCTL_MAX_RESCAN)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "[source.sysctl] rescan: bad value \"%s\" (seconds, 0 to %u)",
		                    val, SYSCTL_MAX_RESCAN);
	o->rescan_s = v;
	return 0;
}

/* Take one option of [source.sysctl]. */
static int
sysctl_configure(struct source *src, const char *key, const char *val, struct nm_error *err)
{
	struct sysctl_opts *o = get_opts(src);

	if (strcmp(key, "match") == 0)
		return configure_match(o, val, err);
	if (strcmp(key, "rescan") == 0)
		return configure_rescan(o, val, err);
	if (strcmp(key, "kind") == 0) {
		if (strcmp(val, "gauge") == 0)
			o->kind = SERIES_GAUGE;
		else if (strcmp(val, "counter") == 0)
			o->kind = SERIES_COUNTER;
		else
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "[source.sysctl] kind: bad value \"%s\" (counter or "
			                    "gauge)",
			                    val);
		return 0;
	}
	return nm_error_set(err, NM_ERR_BAD_ARGS, "[source.sysctl]: unknown key \"%s\"", key);
}

/* Parse a decimal token, optionally negative, into its two's complement; -1 if not one. */
static int
parse_signed(const char *tok, size_t len, uint64_t *raw)
{
	const char *p = tok, *end = tok + len;
	bool neg = len > 0 && *p == '-';
	uint64_t v;

	p += neg;
	if (pp_u64(&p, end, &v) < 0 || p != end)
		return -1;
	*raw = neg ? (uint64_t)0 - v : v;
	return 0;
}

/* Split a file's text into integers; the count, or -1 if a token is not one (or too many). */
static int
parse_values(const char *s, const char *end, uint64_t *v)
{
	const char *eol, *tok;
	size_t len;
	int n = 0;

	for (; s < end; s = eol + (eol < end)) {
		if ((eol = pp_eol(s, end)) == NULL)
			eol = end;
		while (pp_token(&s, eol, &tok, &len) == 0) {
			if (n == SYSCTL_MAX_VALUES || parse_signed(tok, len, &v[n]) < 0)
				return -1;
			n++;
		}
	}
	return n;
}

/* The series name of value i of n of a file: sysctl.<dotted.path>[.i]. */
static size_t
value_name(const char *path, int i, int n, char *name, size_t size)
{
	size_t len = (size_t)snprintf(name, size, "sysctl.");

	for (const char *c = path; *c != '\0' && len + 1 < size; c++)
		name[len++] = *c == '/' ? '.' : *c == '.' ? '/' : *c;
	name[len] = '\0';
	if (n > 1)
		len += (size_t)snprintf(name + len, size - len, ".%d", i);
	return len < size ? len : size - 1;
}

/* Intern the series of a file holding n values; declare gone the old ones not kept. */
static void
file_reshape(struct source *src, struct sysctl_file *f, int n, struct sink *sink)
{
	enum series_kind kind = get_opts(src)->kind;
	series_id *ids = xreallocarray(NULL, (size_t)n, sizeof(*ids));
	char name[SYSCTL_NAME_MAX];
	size_t len;
	bool kept;

	struct series_labels l = source_labels(src);

	for (int i = 0; i < n; i++) {
		len = value_name(f->path, i, n, name, sizeof(name));
		/* field: the key as sysctl(8) writes it, with the value's index when several */
		l.field = source_atom(src, name + 7, len - 7);
		ids[i] = series_intern(src->reg, name, len, kind, src->index,
		                       kind == SERIES_GAUGE ? "value" : "events", 1.0, &l);
	}
	for (size_t j = 0; j < f->nids; j++) {
		kept = false;
		for (int i = 0; i < n && !kept; i++)
			kept = ids[i] == f->ids[j];
		if (!kept && sink != NULL)
			sink_gone(sink, f->ids[j]);
	}
	free(f->ids);
	f->ids = ids;
	f->nids = (size_t)n;
}

/* Stop reading a file until it stops matching: close it, its series are gone. */
static void
file_skip(struct sysctl_file *f, struct sink *sink)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	for (size_t j = 0; j < f->nids && sink != NULL; j++)
		sink_gone(sink, f->ids[j]);
	f->nids = 0;
}

/* Read one file and put its values. */
static void
file_sample(struct source *src, struct sysctl_file *f, struct sink *sink)
{
	struct sysctl_priv *p = src->priv;
	uint64_t v[SYSCTL_MAX_VALUES];
	ssize_t len;
	int n;

	len = source_pread_fd(f->fd, false, &p->buf, &p->bufcap);
	if (len < 0) {
		log_debug("source sysctl: %s: read failed, skipped: %s", f->path, strerror(errno));
		file_skip(f, sink);
		return;
	}
	n = parse_values(p->buf, p->buf + len, v);
	if (n <= 0) {
		log_debug("source sysctl: %s: not integers, skipped", f->path);
		file_skip(f, sink);
		return;
	}
	if ((size_t)n != f->nids)
		file_reshape(src, f, n, sink);
	for (int i = 0; i < n; i++)
		sink_put(sink, f->ids[i], v[i]);
}

/* Open a newly matched file (path below proc/sys); fd -1 when it can't be read. */
static void
file_open(struct source *src, struct sysctl_file *f, const char *path)
{
	char rel[PATH_MAX];

	f->path = xstrdup(path);
	f->ids = NULL;
	f->nids = 0;
	f->fd = -1;
	if ((size_t)snprintf(rel, sizeof(rel), SYSCTL_DIR "%s", path) >= sizeof(rel))
		return;
	f->fd = source_open(src, rel);
	if (f->fd < 0)
		log_debug("source sysctl: %s: can't be read, skipped: %s", path, strerror(errno));
}

/* qsort/bsearch order of strings held by pointer. */
static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Expand every glob into a sorted list of paths below proc/sys; globfree() it after. */
static void
expand_globs(struct source *src, glob_t *g)
{
	struct sysctl_priv *p = src->priv;
	const struct sysctl_opts *o = get_opts(src);
	char pattern[PATH_MAX];
	int flags = GLOB_MARK, rc;

	memset(g, 0, sizeof(*g));
	for (size_t i = 0; i < o->nglobs; i++) {
		if ((size_t)snprintf(pattern, sizeof(pattern), "%s%s", p->pattern, o->globs[i]) >=
		    sizeof(pattern))
			continue;
		rc = glob(pattern, flags, NULL, g);
		if (rc != 0 && rc != GLOB_NOMATCH)
			log_warnx("source sysctl: %s: glob failed (%d)", o->globs[i], rc);
		/* GLOB_APPEND needs a glob_t filled by a previous call. */
		if (g->gl_pathv != NULL)
			flags |= GLOB_APPEND;
	}
	if (g->gl_pathc > 1)
		qsort(g->gl_pathv, g->gl_pathc, sizeof(*g->gl_pathv), cmp_str);
}

/* The path below proc/sys of a glob result, or NULL for a directory or a stray. */
static const char *
match_path(const struct sysctl_priv *p, const char *full, const char *prev)
{
	size_t len = strlen(full);

	if (len <= p->dirlen || full[len - 1] == '/')
		return NULL;
	/* Two globs matching one file: keep it once. */
	if (prev != NULL && strcmp(full, prev) == 0)
		return NULL;
	return full + p->dirlen;
}

/* Expand the globs and merge: keep files still matched, open new ones, drop the others. */
static void
rescan(struct source *src, struct sink *sink)
{
	struct sysctl_priv *p = src->priv;
	struct sysctl_file *next;
	const char *path, *prev = NULL;
	size_t n = 0, old = 0;
	glob_t g;
	int c = 1;

	expand_globs(src, &g);
	next = xreallocarray(NULL, g.gl_pathc + p->nfiles + 1, sizeof(*next));
	for (size_t i = 0; i < g.gl_pathc && n < SYSCTL_MAX_FILES; i++) {
		path = match_path(p, g.gl_pathv[i], prev);
		prev = g.gl_pathv[i];
		if (path == NULL)
			continue;
		/* Both lists are sorted: files before path no longer match. */
		while (old < p->nfiles && (c = strcmp(p->files[old].path, path)) < 0) {
			file_skip(&p->files[old], sink);
			free(p->files[old].path);
			free(p->files[old++].ids);
		}
		if (old < p->nfiles && c == 0)
			next[n++] = p->files[old++];
		else
			file_open(src, &next[n++], path);
	}
	if (g.gl_pathc > 0 && n == SYSCTL_MAX_FILES)
		log_warnx("source sysctl: more than %d files match, the rest are ignored",
		          SYSCTL_MAX_FILES);
	for (; old < p->nfiles; old++) {
		file_skip(&p->files[old], sink);
		free(p->files[old].path);
		free(p->files[old].ids);
	}
	free(p->files);
	p->files = next;
	p->nfiles = n;
	globfree(&g);
	p->last_scan_ns = time_mono_ns();
}

/* root + "proc/sys/" as a glob prefix: glob metacharacters of the root escaped. */
static void
make_pattern(struct source *src, struct sysctl_priv *p)
{
	const char *root = src->root ? src->root : "/";
	size_t rlen = strlen(root), n = 0;
	bool slash = rlen > 0 && root[rlen - 1] == '/';

	p->pattern = xmalloc(2 * rlen + sizeof("/" SYSCTL_DIR));
	for (size_t i = 0; i < rlen; i++) {
		if (strchr("*?[]\\", root[i]) != NULL)
			p->pattern[n++] = '\\';
		p->pattern[n++] = root[i];
	}
	if (!slash)
		p->pattern[n++] = '/';
	memcpy(p->pattern + n, SYSCTL_DIR, sizeof(SYSCTL_DIR));
	p->dirlen = rlen + !slash + strlen(SYSCTL_DIR);
}

/* Allocate the state and expand the globs; no globs means no series. */
static int
sysctl_init(struct source *src, struct nm_error *err)
{
	struct sysctl_priv *p = xcalloc(1, sizeof(*p));

	(void)err;
	src->priv = p;
	make_pattern(src, p);
	rescan(src, NULL);
	return 0;
}

/* Expand the globs when due, then read every matched file. */
static int
sysctl_sample(struct source *src, struct sink *sink, struct nm_error *err)
{
	struct sysctl_priv *p = src->priv;
	const struct sysctl_opts *o = get_opts(src);

	(void)err;
	if (o->nglobs == 0)
		return 0;
	if (o->rescan_s == 0 || time_mono_ns() - p->last_scan_ns >= o->rescan_s * 1000000000ull)
		rescan(src, sink);
	for (size_t i = 0; i < p->nfiles; i++)
		if (p->files[i].fd >= 0)
			file_sample(src, &p->files[i], sink);
	return 0;
}

/* The globs and how many files they match, for status. */
static json_object *
sysctl_describe(struct source *src)
{
	struct sysctl_priv *p = src->priv;
	const struct sysctl_opts *o = src->opts;
	json_object *obj = json_object_new_object(), *globs = json_object_new_array();
	size_t nread = 0;

	for (size_t i = 0; o != NULL && i < o->nglobs; i++)
		json_object_array_add(globs, json_object_new_string(o->globs[i]));
	for (size_t i = 0; p != NULL && i < p->nfiles; i++)
		nread += p->files[i].fd >= 0;
	json_object_object_add(obj, "globs", globs);
	json_object_object_add(obj, "matched", json_object_new_int64(p ? (int64_t)p->nfiles : 0));
	json_object_object_add(obj, "read", json_object_new_int64((int64_t)nread));
	return obj;
}

/* Close the files and free the state and the options (which configure allocated). */
static void
sysctl_free(struct source *src)
{
	struct sysctl_priv *p = src->priv;
	struct sysctl_opts *o = src->opts;

	if (p != NULL) {
		for (size_t i = 0; i < p->nfiles; i++) {
			if (p->files[i].fd >= 0)
				close(p->files[i].fd);
			free(p->files[i].path);
			free(p->files[i].ids);
		}
		free(p->files);
		free(p->pattern);
		free(p->buf);
		free(p);
		src->priv = NULL;
	}
	if (o != NULL) {
		for (size_t i = 0; i < o->nglobs; i++)
			free(o->globs[i]);
		free(o->globs);
		free(o);
		src->opts = NULL;
	}
}

/* Its Prometheus families (serve/prom.c): counters and values. */
static const struct source_family sysctl_families[] = {
    {"netmetrics_sysctl_level", {.kind = SOURCE_GAUGES}, false},
    {"netmetrics_sysctl", {.kind = SOURCE_ANY_KIND}, false},
    {NULL, {.kind = SOURCE_ANY_KIND}, false},
};

const struct source_ops source_sysctl_ops = {
    .name = "sysctl",
    .prom = sysctl_families,
    .keep = SOURCE_NOT_KEPT,
    .description = "values of sysctls matched by globs",
    .configure = sysctl_configure,
    .init = sysctl_init,
    .sample = sysctl_sample,
    .describe = sysctl_describe,
    .free = sysctl_free,
};
