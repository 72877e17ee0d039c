/* profile.c: the profile model: INI text (libinih) and JSON into struct profile, the [profile]
 * section, the value parsers the knob sections share, and the profile files of a
 * directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "jsonutil.h"
#include "knob.h"
#include "profile.h"
#include "regfile.h"
#include "strbuf.h"
#include "xmalloc.h"

#define PROFILE_MAX_FILES 256 /* profiles listed from one directory */

/* An empty profile. */
void
profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
}

/* Free what the profile owns. */
void
profile_free(struct profile *p)
{
	for (size_t i = 0; i < knobs_n; i++)
		if (knobs[i]->release != NULL)
			knobs[i]->release(p);
	memset(p, 0, sizeof(*p));
}

/* Parse a CPU value: a word, a list or a mask. */
int
profile_parse_cpus(const char *val, struct profile_cpus *out, struct nm_error *err)
{
	struct nm_error e;

	memset(out, 0, sizeof(*out));
	if (strcmp(val, "all") == 0) {
		out->kind = PROFILE_CPUS_ALL;
		return 0;
	}
	if (strcmp(val, "local") == 0) {
		out->kind = PROFILE_CPUS_LOCAL;
		return 0;
	}
	if (cpuset_parse_any(&out->set, val, &e) < 0)
		return nm_error_set(
		    err, NM_ERR_BAD_ARGS,
		    "\"%s\" is not a CPU list, a hex mask, \"all\" or \"local\": %s", val,
		    e.message);
	out->kind = PROFILE_CPUS_SET;
	return 0;
}

/* Match "PREFIX<N>" with N a plain decimal below 65536. */
int
profile_queue_key(const char *key, const char *prefix, unsigned *queue)
{
	size_t n = strlen(prefix);
	unsigned long v = 0;
	const char *p;

	if (strncmp(key, prefix, n) != 0 || key[n] == '\0')
		return 0;
	for (p = key + n; *p; p++) {
		if (*p < '0' || *p > '9' || v > 65535)
			return 0;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v > 65535 || (key[n] == '0' && key[n + 1] != '\0'))
		return 0;
	*queue = (unsigned)v;
	return 1;
}

/* Set one queue's CPUs, keeping the list sorted by queue. */
void
profile_knob_set_queue(struct profile_knob *k, unsigned queue, const struct profile_cpus *c)
{
	size_t i;

	for (i = 0; i < k->nqueues && k->queues[i].queue < queue; i++)
		;
	if (i < k->nqueues && k->queues[i].queue == queue) {
		k->queues[i].cpus = *c;
		return;
	}
	k->queues = xreallocarray(k->queues, k->nqueues + 1, sizeof(*k->queues));
	memmove(&k->queues[i + 1], &k->queues[i], (k->nqueues - i) * sizeof(*k->queues));
	k->queues[i].queue = queue;
	k->queues[i].cpus = *c;
	k->nqueues++;
}

/* The CPUs a knob names for a queue, or NULL. */
const struct profile_cpus *
profile_knob_queue(const struct profile_knob *k, unsigned queue)
{
	for (size_t i = 0; i < k->nqueues; i++)
		if (k->queues[i].queue == queue)
			return &k->queues[i].cpus;
	return NULL;
}

/* Parse a policy word among those a section allows. */
int
profile_parse_policy(const char *section, const char *val, const char *const *names,
                     const enum profile_policy *values, enum profile_policy *out,
                     struct nm_error *err)
{
	char list[128] = "";
	size_t off = 0;

	for (size_t i = 0; names[i] != NULL; i++) {
		if (strcmp(val, names[i]) == 0) {
			*out = values[i];
			return 0;
		}
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
		                        names[i]);
		if (off >= sizeof(list))
			off = sizeof(list) - 1;
	}
	return nm_error_set(err, NM_ERR_BAD_ARGS, "[%s] policy: unknown policy \"%s\" (%s)",
	                    section, val, list);
}

/* Parse on/off and its synonyms. */
int
profile_parse_switch(const char *section, const char *key, const char *val,
                     enum profile_switch *out, struct nm_error *err)
{
	static const char *const on[] = {"on", "yes", "true", "1"};
	static const char *const off[] = {"off", "no", "false", "0"};

	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(val, on[i]) == 0) {
			*out = PROFILE_SWITCH_ON;
			return 0;
		}
		if (strcasecmp(val, off[i]) == 0) {
			*out = PROFILE_SWITCH_OFF;
			return 0;
		}
	}
	return nm_error_set(err, NM_ERR_BAD_ARGS, "[%s] %s: \"%s\" is not on or off", section, key,
	                    val);
}

int
profile_parse_u32(const char *section, const char *key, const char *val, uint32_t max,
                  uint32_t *out, struct nm_error *err)
{
	unsigned long long v = 0;
	const char *p = val;

	if (*p == '\0')
		goto bad;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			goto bad;
		v = v * 10 + (unsigned long long)(*p - '0');
		if (v > max)
			goto bad;
	}
	*out = (uint32_t)v;
	return 0;
bad:
	return nm_error_set(err, NM_ERR_BAD_ARGS,
	                    "[%s] %s: \"%s\" is not a whole number from 0 to %u", section, key, val,
	                    max);
}

/* Take a key of a per-queue section: policy, cpus or a queue. */
int
profile_knob_key(struct profile_knob *k, const char *section, const char *qprefix,
                 const char *const *names, const enum profile_policy *values, const char *key,
                 const char *val, struct nm_error *err)
{
	struct profile_cpus c;
	struct nm_error e;
	unsigned q;

	k->present = true;
	if (strcmp(key, "policy") == 0)
		return profile_parse_policy(section, val, names, values, &k->policy, err);
	if (strcmp(key, "cpus") == 0) {
		if (profile_parse_cpus(val, &k->cpus, &e) < 0)
			return nm_error_set(err, NM_ERR_BAD_ARGS, "[%s] cpus: %s", section,
			                    e.message);
		return 0;
	}
	if (profile_queue_key(key, qprefix, &q)) {
		if (profile_parse_cpus(val, &c, &e) < 0)
			return nm_error_set(err, NM_ERR_BAD_ARGS, "[%s] %s: %s", section, key,
			                    e.message);
		profile_knob_set_queue(k, q, &c);
		return 0;
	}
	return nm_error_set(err, NM_ERR_BAD_ARGS, "[%s]: unknown key \"%s\" (policy, cpus, %sN)",
	                    section, key, qprefix);
}

/* Copy a string member, refusing one that does not fit. */
static int
set_field(char *dst, size_t size, const char *key, const char *val, struct nm_error *err)
{
	if (strlen(val) >= size)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "[profile] %s: longer than %zu bytes",
		                    key, size - 1);
	snprintf(dst, size, "%s", val);
	return 0;
}

/* One key of [profile]. */
static int
profile_key(struct profile *p, const char *key, const char *val, struct nm_error *err)
{
	if (strcmp(key, "name") == 0)
		return set_field(p->name, sizeof(p->name), key, val, err);
	if (strcmp(key, "description") == 0)
		return set_field(p->description, sizeof(p->description), key, val, err);
	if (strcmp(key, "strict") == 0) {
		enum profile_switch sw;
		if (profile_parse_switch("profile", key, val, &sw, err) < 0)
			return -1;
		p->strict = sw == PROFILE_SWITCH_ON;
		return 0;
	}
	if (strcmp(key, "device") == 0) {
		if (strcmp(val, PROFILE_DEFAULT_ROUTE) == 0 || *val == '\0') {
			p->device[0] = '\0';
			return 0;
		}
		if (profile_host_check_dev(val, err) < 0)
			return -1;
		snprintf(p->device, sizeof(p->device), "%s", val);
		return 0;
	}
	return nm_error_set(err, NM_ERR_BAD_ARGS,
	                    "[profile]: unknown key \"%s\" (name, description, device, strict)",
	                    key);
}

/* Route a key to its section: [profile], or a knob's (knobs[]). */
static int
profile_set(struct profile *p, const char *section, const char *key, const char *val,
            struct nm_error *err)
{
	const struct knob_ops *k = knob_by_section(section);
	char list[128];

	if (strcmp(section, "profile") == 0)
		return profile_key(p, key, val, err);
	if (k != NULL)
		return k->key(p, key, val, err);
	knob_list_sections(list, sizeof(list), false);
	return nm_error_set(err, NM_ERR_BAD_ARGS, "unknown section [%s] (profile, %s)", section,
	                    list);
}

/* The checks of every section once all keys are read. */
static int
profile_check(const struct profile *p, struct nm_error *err)
{
	bool any = false;
	char list[128];

	for (size_t i = 0; i < knobs_n; i++)
		if (knobs[i]->check(p, err) < 0)
			return -1;
	for (size_t i = 0; i < knobs_n; i++)
		any = any || knobs[i]->present(p);
	if (!any) {
		knob_list_sections(list, sizeof(list), true);
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "the profile changes nothing: give at least one of %s", list);
	}
	return 0;
}

/* Prefix err's message with the profile's label. */
static int
label_error(struct nm_error *err, const char *label, int line)
{
	if (err == NULL)
		return -1;
	if (line > 0)
		return nm_error_prefix(err, err->code, "%.63s:%d", label, line);
	return nm_error_prefix(err, err->code, "%.63s", label);
}

struct ini_ctx {
	struct profile *p;
	struct nm_error *err;
	int failed;
};

/* inih callback: 0 stops at the first bad key (inih then returns its line). */
static int
ini_cb(void *user, const char *section, const char *key, const char *val)
{
	struct ini_ctx *c = user;

	if (*section == '\0') {
		nm_error_set(c->err, NM_ERR_BAD_ARGS,
		             "\"%s\" is outside any section (a [section] line is missing or "
		             "malformed)",
		             key);
		c->failed = 1;
		return 0;
	}
	if (profile_set(c->p, section, key, val, c->err) < 0) {
		c->failed = 1;
		return 0;
	}
	return 1;
}

/* Parse INI text into a profile and check it. */
int
profile_parse_ini(struct profile *p, const char *name, const char *text, size_t len,
                  struct nm_error *err)
{
	struct ini_ctx c;
	char *copy;
	int r;

	profile_init(p);
	snprintf(p->name, sizeof(p->name), "%s", name);
	if (len > PROFILE_MAX_TEXT)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: longer than %u bytes", name,
		                    PROFILE_MAX_TEXT);
	if (memchr(text, '\0', len) != NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "%s: holds a NUL byte", name);
	copy = xmemdupz(text, len);
	c = (struct ini_ctx){p, err, 0};
	r = ini_parse_string(copy, ini_cb, &c);
	free(copy);
	if (r != 0) {
		if (!c.failed)
			nm_error_set(err, NM_ERR_BAD_ARGS, "syntax error");
		profile_free(p);
		return label_error(err, name, r);
	}
	if (profile_check(p, err) < 0) {
		profile_free(p);
		return label_error(err, name, 0);
	}
	return 0;
}

/* A JSON scalar as the string an INI value would be; NULL for other types. */
static const char *
json_scalar(json_object *v, char *buf, size_t size)
{
	switch (json_object_get_type(v)) {
	case json_type_string:
		return json_object_get_string(v);
	case json_type_int:
		snprintf(buf, size, "%lld", (long long)json_object_get_int64(v));
		return buf;
	case json_type_boolean:
		return json_object_get_boolean(v) ? "on" : "off";
	default:
		return NULL;
	}
}

/* The members of one JSON section (or of the top level for [profile]). */
static int
json_section(struct profile *p, const char *section, json_object *obj, bool top,
             struct nm_error *err)
{
	char num[32];

	json_object_object_foreach(obj, key, v)
	{
		const char *val;
		if (top && json_object_is_type(v, json_type_object))
			continue; /* a section, done by the caller */
		if ((val = json_scalar(v, num, sizeof(num))) == NULL)
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "[%s] %s: must be a string, an integer or a boolean",
			                    section, key);
		if (profile_set(p, section, key, val, err) < 0)
			return -1;
	}
	return 0;
}

/* Parse a JSON object into a profile and check it. */
int
profile_parse_json(struct profile *p, const char *name, json_object *obj, struct nm_error *err)
{
	profile_init(p);
	snprintf(p->name, sizeof(p->name), "%s", name);
	if (!json_object_is_type(obj, json_type_object)) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "a profile must be a JSON object");
		return label_error(err, name, 0);
	}
	if (json_section(p, "profile", obj, true, err) < 0)
		goto fail;
	json_object_object_foreach(obj, key, v)
	{
		if (!json_object_is_type(v, json_type_object))
			continue;
		if (strcmp(key, "profile") == 0 && json_section(p, "profile", v, false, err) < 0)
			goto fail;
		if (strcmp(key, "profile") != 0 && json_section(p, key, v, false, err) < 0)
			goto fail;
	}
	if (profile_check(p, err) < 0)
		goto fail;
	return 0;
fail:
	profile_free(p);
	return label_error(err, name, 0);
}

/* One KNOB=VALUE word as the INI lines of its section, appended to sb: the knob's index in
 * knobs[], or -1 with err. */
static int
setting_ini(struct strbuf *sb, const char *word, struct nm_error *err)
{
	const char *eq = strchr(word, '='), *v;
	char list[128];
	size_t k, klen;

	knob_list_settings(list, sizeof(list));
	if (eq == NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "\"%s\": give KNOB=VALUE (%s)", word,
		                    list);
	v = eq + 1;
	klen = (size_t)(eq - word);
	for (k = 0; k < knobs_n; k++)
		if (knobs[k]->setting != NULL && strlen(knobs[k]->setting) == klen &&
		    strncmp(word, knobs[k]->setting, klen) == 0)
			break;
	if (k == knobs_n)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "\"%s\": unknown knob (%s)", word, list);
	/* A value is a word: no INI syntax gets through. */
	if (*v == '\0' || strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789,-") != strlen(v))
		return nm_error_set(
		    err, NM_ERR_BAD_ARGS,
		    "\"%s\": the value is a CPU list, a hex mask, a number or a word", word);
	knobs[k]->setting_ini(sb, v);
	return (int)k;
}

/* A profile from KNOB=VALUE words. */
int
profile_parse_settings(struct profile *p, const char *name, json_object *settings,
                       struct nm_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned long long seen = 0;
	char list[128];
	int r;

	profile_init(p);
	knob_list_settings(list, sizeof(list));
	if (!json_object_is_type(settings, json_type_array) ||
	    json_object_array_length(settings) == 0)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "give at least one KNOB=VALUE (%s)",
		                    list);
	for (size_t i = 0; i < json_object_array_length(settings); i++) {
		const char *w = json_object_get_string(json_object_array_get_idx(settings, i));
		int k = w != NULL ? setting_ini(&sb, w, err) : -1;
		unsigned long long bit = 1ull << (k < 0 ? 0 : k);
		if (k < 0) {
			strbuf_free(&sb);
			return -1;
		}
		if (seen & bit) { /* each knob once */
			strbuf_free(&sb);
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "\"%s\": that knob is given twice", w);
		}
		seen |= bit;
	}
	r = profile_parse_ini(p, name, sb.buf, sb.len, err);
	strbuf_free(&sb);
	return r;
}

/* Is name a profile name (a file name in the profile directory, without ".conf")? */
static bool
valid_name(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= PROFILE_NAME_MAX || name[0] == '.')
		return false;
	for (const char *s = name; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' || *s == '.'))
			return false;
	return true;
}

/* Is the word a file rather than a profile name: a path with '/' or a name ending .conf? */
bool
profile_is_path(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') != NULL || (n > 5 && strcmp(s + n - 5, ".conf") == 0);
}

/* A profile file's name: its base name without ".conf" ("rfs-template"). */
void
profile_path_label(const char *path, char *buf, size_t size)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);

	if (n > 5 && strcmp(base + n - 5, ".conf") == 0)
		n -= 5;
	snprintf(buf, size, "%.*s", (int)n, base);
	if (buf[0] == '\0')
		snprintf(buf, size, "file");
}

/* A new profile file, written whole or not at all. */
int
profile_write_file(const char *dir, const char *name, const char *text, struct nm_error *err)
{
	char file[PROFILE_NAME_MAX + 8];
	struct profile p;
	size_t len = strlen(text);
	int dfd, fd, e;
	ssize_t n;

	if (!valid_name(name) || strcmp(name, "..") == 0) {
		errno = EINVAL;
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "\"%s\" is not a profile name (letters, digits, '_', '-', '.')",
		                    name);
	}
	if (profile_parse_ini(&p, name, text, len, err) < 0) {
		errno = EINVAL;
		return -1;
	}
	profile_free(&p);
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		e = errno;
		nm_error_set(err, NM_ERR_FAILED, "%s: %s", dir, strerror(e));
		errno = e;
		return -1;
	}
	snprintf(file, sizeof(file), "%s.conf", name);
	fd = openat(dfd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		e = errno;
		close(dfd);
		nm_error_set(err, e == EEXIST ? NM_ERR_EXISTS : NM_ERR_FAILED, "%s/%s: %s%s", dir,
		             file, strerror(e),
		             e == EEXIST ? " (choose another name, or delete that file)" : "");
		errno = e;
		return -1;
	}
	/* 0644 whatever the umask (the unit's UMask=0077 would make it root's alone): the
	 * main process, which reads the profiles, is not root under privilege separation. */
	if (fchmod(fd, 0644) < 0) {
		e = errno;
		close(fd);
		unlinkat(dfd, file, 0);
		close(dfd);
		nm_error_set(err, NM_ERR_FAILED, "chmod %s/%s: %s", dir, file, strerror(e));
		errno = e;
		return -1;
	}
	n = write(fd, text, len);
	e = errno;
	if (n != (ssize_t)len || fsync(fd) < 0) {
		e = n < 0 ? e : EIO;
		close(fd);
		unlinkat(dfd, file, 0);
		close(dfd);
		nm_error_set(err, NM_ERR_FAILED, "write %s/%s: %s", dir, file, strerror(e));
		errno = e;
		return -1;
	}
	close(fd);
	close(dfd);
	return 0;
}

/* Read a whole profile file (a regular file only: regfile.c); NULL with err. The caller
 * frees. */
static char *
read_text(const char *path, size_t *len, struct nm_error *err)
{
	char *buf = regfile_read(path, PROFILE_MAX_TEXT, len, err);

	if (buf == NULL && err != NULL && err->code == NM_ERR_TOO_LONG)
		err->code = NM_ERR_BAD_ARGS;
	return buf;
}

/* Read and parse a profile of the profile directory. */
/* Replace every ${NAME} of text with vars.NAME (a string or number); NULL with err when a
 * name has no value. The caller frees. */
static char *
substitute(const char *text, size_t len, json_object *vars, size_t *outlen, struct nm_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0;

	while (i < len) {
		const char *close;
		json_object *v;
		char key[64];

		if (text[i] != '$' || i + 1 >= len || text[i + 1] != '{') {
			strbuf_addch(&sb, text[i++]);
			continue;
		}
		close = memchr(text + i + 2, '}', len - i - 2);
		if (close == NULL || (size_t)(close - text - i - 2) >= sizeof(key)) {
			strbuf_free(&sb);
			nm_error_set(err, NM_ERR_BAD_ARGS, "unterminated ${ in the profile");
			return NULL;
		}
		snprintf(key, sizeof(key), "%.*s", (int)(close - text - i - 2), text + i + 2);
		if (!json_object_object_get_ex(vars, key, &v) ||
		    json_object_is_type(v, json_type_null)) {
			strbuf_free(&sb);
			nm_error_set(err, NM_ERR_BAD_ARGS,
			             "the profile uses ${%s}, which has no value here", key);
			return NULL;
		}
		strbuf_addstr(&sb, json_object_get_string(v));
		i = (size_t)(close - text) + 1;
	}
	if (sb.len > PROFILE_MAX_TEXT) {
		strbuf_free(&sb);
		nm_error_set(err, NM_ERR_BAD_ARGS,
		             "the profile is longer than %u bytes with its "
		             "values in",
		             PROFILE_MAX_TEXT);
		return NULL;
	}
	return strbuf_detach(&sb, outlen);
}

/* Read DIR/NAME.conf, fill in ${VARS}, parse. */
int
profile_load_vars(struct profile *p, const char *dir, const char *name, json_object *vars,
                  char *path, size_t size, struct nm_error *err)
{
	char *text, *filled;
	size_t len;
	int r;

	char label[PROFILE_NAME_MAX];
	bool file = profile_is_path(name);

	profile_init(p);
	if (file) {
		/* A file by path: absolute, as the daemon's working directory is "/". */
		if (name[0] != '/')
			return nm_error_set(
			    err, NM_ERR_BAD_ARGS,
			    "profile file \"%s\": give an absolute path (the daemon "
			    "does not know your working directory)",
			    name);
		if ((size_t)snprintf(path, size, "%s", name) >= size)
			return nm_error_set(err, NM_ERR_BAD_ARGS, "profile path too long");
		profile_path_label(name, label, sizeof(label));
		name = label;
	} else if (!valid_name(name))
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "\"%s\" is not a profile name (letters, digits, '_', '-', '.'; "
		                    "a file is given by a path with a '/' or ending in .conf)",
		                    name);
	else if ((size_t)snprintf(path, size, "%s/%s.conf", dir, name) >= size)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "profile path too long");
	if ((text = read_text(path, &len, err)) == NULL) {
		if (err && err->code == NM_ERR_NOT_FOUND && file)
			nm_error_set(err, NM_ERR_NOT_FOUND, "no profile file %s", path);
		else if (err && err->code == NM_ERR_NOT_FOUND)
			nm_error_set(err, NM_ERR_NOT_FOUND,
			             "no profile \"%s\" (no %s; \"profiles\" lists them)", name,
			             path);
		return -1;
	}
	if (vars != NULL) {
		filled = substitute(text, len, vars, &len, err);
		free(text);
		if ((text = filled) == NULL)
			return -1;
	}
	r = profile_parse_ini(p, name, text, len, err);
	free(text);
	return r;
}

/* inih callback: the raw [profile] description of a template, ${NAME}s left in. */
static int
raw_description_cb(void *user, const char *section, const char *key, const char *val)
{
	if (strcmp(section, "profile") == 0 && strcmp(key, "description") == 0)
		snprintf(user, sizeof(((struct profile *)NULL)->description), "%s", val);
	return 1;
}

/* A template (a profile with ${NAME}s a suite fills in): parse it with each ${NAME} set to
 * 1 to check the rest, and list its names in o.vars. true when it parses so. */
static bool
template_load(struct profile *p, const char *dir, const char *name, json_object *o)
{
	json_object *vars = json_object_new_object(), *list = json_object_new_array();
	char path[4096], *text;
	struct nm_error err;
	size_t len;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s.conf", dir, name);
	if ((text = read_text(path, &len, &err)) == NULL) {
		json_object_put(vars);
		json_object_put(list);
		return false;
	}
	for (const char *s = strstr(text, "${"), *e; s != NULL; s = strstr(e, "${")) {
		if ((e = strchr(s, '}')) == NULL || e - s - 2 > 63)
			break;
		char key[64];
		snprintf(key, sizeof(key), "%.*s", (int)(e - s - 2), s + 2);
		if (!json_object_object_get_ex(vars, key, NULL)) {
			json_add_string(vars, key, "1");
			json_object_array_add(list, json_object_new_string(key));
		}
	}
	ok = json_object_object_length(vars) > 0 &&
	     profile_load_vars(p, dir, name, vars, path, sizeof(path), &err) == 0;
	json_object_put(vars);
	if (ok) {
		/* "RFS with ${rfs} flows per rx queue", not with the 1 it was checked with. */
		ini_parse_string(text, raw_description_cb, p->description);
		json_add_bool(o, "template", true);
		json_object_object_add(o, "vars", list);
	} else
		json_object_put(list);
	free(text);
	return ok;
}

/* Read and parse DIR/NAME.conf as it is. */
int
profile_load(struct profile *p, const char *dir, const char *name, char *path, size_t size,
             struct nm_error *err)
{
	return profile_load_vars(p, dir, name, NULL, path, size, err);
}

/* The sections a profile sets, as JSON, in section order. */
json_object *
profile_sections_json(const struct profile *p)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < knobs_n; i++)
		if (knobs[i]->present(p))
			json_object_array_add(a, json_object_new_string(knobs[i]->section));
	return a;
}

/* qsort comparator of file names. */
static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The profiles of a directory, each parsed, as JSON. */
json_object *
profile_list_json(const char *dir)
{
	json_object *arr = json_object_new_array();
	char *names[PROFILE_MAX_FILES];
	size_t n = 0;
	struct dirent *de;
	DIR *dp = opendir(dir);

	if (dp == NULL)
		return arr;
	while ((de = readdir(dp)) != NULL && n < PROFILE_MAX_FILES) {
		size_t l = strlen(de->d_name);
		if (l > 5 && strcmp(de->d_name + l - 5, ".conf") == 0 && de->d_name[0] != '.')
			names[n++] = xstrndup(de->d_name, l - 5);
	}
	closedir(dp);
	qsort(names, n, sizeof(names[0]), cmp_names);
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_new_object();
		struct profile p;
		struct nm_error err;
		char path[4096] = "";

		json_add_string(o, "name", names[i]);
		if (profile_load(&p, dir, names[i], path, sizeof(path), &err) < 0 &&
		    !template_load(&p, dir, names[i], o)) {
			json_add_string(o, "error", err.message);
		} else {
			json_add_string(o, "description", p.description);
			json_add_string(o, "device",
			                p.device[0] ? p.device : PROFILE_DEFAULT_ROUTE);
			json_object_object_add(o, "sections", profile_sections_json(&p));
			profile_free(&p);
		}
		json_add_string(o, "path", path);
		json_object_array_add(arr, o);
		free(names[i]);
	}
	return arr;
}
