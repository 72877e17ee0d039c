/* config.c: defaults, the INI file (libinih) and value parsers. */
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cpulist.h"
#include "labelsel.h"
#include "timeutil.h"
#include "error.h"
#include "jsonutil.h"
#include "log.h"
#include "xmalloc.h"

struct load_ctx {
	struct config *cfg;
	struct nm_error *err;
	const char *path;
	int failed;
};

/* Free a NULL-terminated list of strings. */
static void
env_free(char **v)
{
	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* Copy a NULL-terminated list of strings (NULL stays NULL). */
static char **
env_dup(char *const *v)
{
	size_t n = 0;
	char **c;

	if (v == NULL)
		return NULL;
	while (v[n] != NULL)
		n++;
	c = xcalloc(n + 1, sizeof(*c));
	for (size_t i = 0; i < n; i++)
		c[i] = xstrdup(v[i]);
	return c;
}

/* test_env: NAME=VALUE words separated by blanks (no quoting; NAME of letters, digits and
 * _, not starting with a digit; it may replace PATH, LANG or HOME). 0, or -1 on a bad
 * word. */
static int
parse_env(const char *val, char ***out)
{
	char **v = NULL, *copy = xstrdup(val), *save = NULL;
	size_t n = 0;

	for (char *w = strtok_r(copy, " \t", &save); w != NULL; w = strtok_r(NULL, " \t", &save)) {
		size_t klen = strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		                        "0123456789_");
		if (klen == 0 || w[klen] != '=' || (w[0] >= '0' && w[0] <= '9') || n >= 64) {
			free(copy);
			env_free(v);
			return -1;
		}
		v = xreallocarray(v, n + 2, sizeof(*v));
		v[n++] = xstrdup(w);
		v[n] = NULL;
	}
	free(copy);
	env_free(*out);
	*out = v;
	return 0;
}

char **
config_split_words(const char *s, size_t max)
{
	char **v = xcalloc(max + 1, sizeof(*v)), *w = xmalloc(strlen(s) + 1);
	size_t n = 0, len;
	char quote;

	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			break;
		len = 0;
		quote = 0;
		for (; *s && (quote || (*s != ' ' && *s != '\t')); s++) {
			if (quote && *s == quote)
				quote = 0;
			else if (!quote && (*s == '\'' || *s == '"'))
				quote = *s;
			else if (*s == '\\' && quote != '\'' && s[1] != '\0')
				w[len++] = *++s;
			else
				w[len++] = *s;
		}
		if (quote || n == max) {
			free(w);
			config_strv_free(v);
			return NULL;
		}
		w[len] = '\0';
		v[n++] = xstrdup(w);
	}
	free(w);
	return v;
}

void
config_strv_free(char **v)
{
	env_free(v);
}

/* Whether two NULL-terminated vectors hold the same strings in the same order; NULL is the
 * empty vector (an unset prom_listen), as config_strv_free takes it. */
bool
config_strv_equal(char **a, char **b)
{
	size_t i = 0;

	for (; a != NULL && b != NULL && a[i] != NULL && b[i] != NULL; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return (a == NULL || a[i] == NULL) && (b == NULL || b[i] == NULL);
}

char **
config_peer_argv(const struct config_peer *cp)
{
	char **v, **proxy = cp->proxy_command, **own = NULL;
	size_t n = 0, cap = 12;
	char port[16] = "", host[512];
	const char *colon;

	if (cp->command != NULL) {
		while (cp->command[n] != NULL)
			n++;
		v = xcalloc(n + 1, sizeof(*v));
		for (size_t i = 0; i < n; i++)
			v[i] = xstrdup(cp->command[i]);
		return v;
	}
	if (proxy == NULL)
		proxy = own = config_split_words(CONFIG_PEER_PROXY_DEFAULT, 4);
	for (size_t i = 0; cp->ssh_options != NULL && cp->ssh_options[i] != NULL; i++)
		cap++;
	for (size_t i = 0; proxy[i] != NULL; i++)
		cap++;
	/* host:port, but not an IPv6 address without brackets ("[::1]:22" or "::1"). */
	snprintf(host, sizeof(host), "%s", cp->ssh);
	colon = strrchr(host, ':');
	if (colon != NULL && strchr(host, ':') == colon) {
		snprintf(port, sizeof(port), "%s", colon + 1);
		host[colon - host] = '\0';
	}
	v = xcalloc(cap + 1, sizeof(*v));
	v[n++] = xstrdup("ssh");
	v[n++] = xstrdup("-T");
	v[n++] = xstrdup("-o");
	v[n++] = xstrdup("BatchMode=yes");
	v[n++] = xstrdup("-o");
	v[n++] = xstrdup("ConnectTimeout=5");
	for (size_t i = 0; cp->ssh_options != NULL && cp->ssh_options[i] != NULL; i++)
		v[n++] = xstrdup(cp->ssh_options[i]);
	if (port[0]) {
		v[n++] = xstrdup("-p");
		v[n++] = xstrdup(port);
	}
	v[n++] = xstrdup(host);
	for (size_t i = 0; proxy[i] != NULL; i++)
		v[n++] = xstrdup(proxy[i]);
	config_strv_free(own);
	return v;
}

/* Replace an owned string member. */
static void
set_str(char **dst, const char *val)
{
	free(*dst);
	*dst = (val == NULL || *val == '\0') ? NULL : xstrdup(val);
}

/* Does this binary run from the build tree it was built in (NM_BUILD_ROOT)? */
static bool
in_build_tree(void)
{
#if defined(NM_BUILD_ROOT) && defined(NM_SOURCE_ROOT)
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t len = strlen(NM_BUILD_ROOT);

	if (n <= 0)
		return false;
	exe[n] = '\0';
	return strncmp(exe, NM_BUILD_ROOT, len) == 0 && exe[len] == '/';
#else
	return false;
#endif
}

/* One directory: set by the file, the default, or the source tree's conf/SUB. */
static void
find_dir(char **dir, const char **from, const char *dflt, const char *sub, bool build)
{
	char path[4096];

	if (*from != NULL)
		return; /* the file set it */
	*from = "default";
	if (!build || access(dflt, F_OK) == 0)
		return;
#ifdef NM_SOURCE_ROOT
	snprintf(path, sizeof(path), "%s/conf/%s", NM_SOURCE_ROOT, sub);
	if (access(path, F_OK) == 0) {
		set_str(dir, path);
		*from = "build tree";
	}
#else
	(void)path;
	(void)sub;
	(void)dir;
#endif
}

void
config_find_dirs(struct config *cfg)
{
	bool build = in_build_tree();

	find_dir(&cfg->profile_dir, &cfg->profile_dir_from, CONFIG_DEFAULT_PROFILEDIR, "profiles",
	         build);
	find_dir(&cfg->suite_dir, &cfg->suite_dir_from, CONFIG_DEFAULT_SUITEDIR, "suites", build);
}

const char *
config_dir_origin(const char *from, const char *dflt, char *buf, size_t size)
{
	if (from != NULL && strcmp(from, "config") == 0)
		return "set in the configuration file";
	if (from != NULL && strcmp(from, "build tree") == 0) {
		snprintf(buf, size,
		         "the source tree's: the daemon runs from its build tree and %s is missing",
		         dflt);
		return buf;
	}
	return "the default";
}

void
config_defaults(struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->socket_path = xstrdup(CONFIG_DEFAULT_SOCKET);
	cfg->socket_mode = 0660;
	cfg->state_dir = xstrdup(CONFIG_DEFAULT_STATEDIR);
	cfg->profile_dir = xstrdup(CONFIG_DEFAULT_PROFILEDIR);
	cfg->suite_dir = xstrdup(CONFIG_DEFAULT_SUITEDIR);
	cfg->user = xstrdup(CONFIG_DEFAULT_USER);
	cfg->root = xstrdup("/");
	cfg->log_level = LOG_LEVEL_INFO;
	cfg->child_path = xstrdup(CONFIG_DEFAULT_CHILD_PATH);
	cfg->test_pids_max = CONFIG_DEFAULT_PIDS_MAX;
	cfg->max_clients = 256;
	cfg->max_clients_per_uid = 64;
	cfg->max_tests = 1;
	cfg->test_deadline_ms = 3600000;
	cfg->client_output_high = 4u << 20;
	cfg->client_output_low = 1u << 20;
	cfg->request_timeout_ms = 10000;
	cfg->reply_max_points = 500000;
	cfg->reply_max_bytes = 32u << 20;
	cfg->ring_memory = 64u << 20;
	cfg->sample_interval_ms = 1000;
	cfg->keyframe_interval_ms = 600000;
	cfg->fine_sources = CONFIG_FINE_DEFAULT;
	cfg->fine_interval_ms = 10;
	cfg->fine_when = CONFIG_FINE_WINDOW;
	cfg->fine_keep_ms = 300000;
	cfg->fine_memory = 0;
	cfg->bursts_max_series = CONFIG_BURSTS_MAX_SERIES;
	cfg->prom_max_series = 20000;
	cfg->prom_max_family_series = 5000;
	cfg->prom_max_connections = 8;
	cfg->prom_timeout_ms = 10000;
}

/* Free every owned member. */
void
config_free(struct config *cfg)
{
	free(cfg->socket_path);
	free(cfg->socket_group);
	free(cfg->admin_group);
	free(cfg->state_dir);
	free(cfg->profile_dir);
	free(cfg->suite_dir);
	free(cfg->user);
	free(cfg->root);
	free(cfg->child_path);
	free(cfg->work_dir);
	env_free(cfg->test_env);
	env_free(cfg->prom_listen);
	env_free(cfg->prom_export);
	env_free(cfg->prom_select);
	env_free(cfg->prom_rollup);
	env_free(cfg->prom_cpuset);
	env_free(cfg->prom_unmoved);
	free(cfg->prom_web_config);
	for (size_t i = 0; i < cfg->npeers; i++) {
		free(cfg->peers[i].name);
		env_free(cfg->peers[i].command);
		free(cfg->peers[i].ssh);
		env_free(cfg->peers[i].ssh_options);
		env_free(cfg->peers[i].proxy_command);
	}
	free(cfg->peers);
	for (size_t i = 0; i < cfg->nsource_opts; i++) {
		free(cfg->source_opts[i].source);
		free(cfg->source_opts[i].key);
		free(cfg->source_opts[i].val);
	}
	free(cfg->source_opts);
	memset(cfg, 0, sizeof(*cfg));
}

/* Duplicate an optional string. */
static char *
dup_opt(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void
config_copy(struct config *dst, const struct config *src)
{
	*dst = *src;
	dst->socket_path = dup_opt(src->socket_path);
	dst->socket_group = dup_opt(src->socket_group);
	dst->admin_group = dup_opt(src->admin_group);
	dst->state_dir = dup_opt(src->state_dir);
	dst->profile_dir = dup_opt(src->profile_dir);
	dst->suite_dir = dup_opt(src->suite_dir);
	dst->user = dup_opt(src->user);
	dst->root = dup_opt(src->root);
	dst->child_path = dup_opt(src->child_path);
	dst->work_dir = dup_opt(src->work_dir);
	dst->test_env = env_dup(src->test_env);
	dst->prom_listen = env_dup(src->prom_listen);
	dst->prom_export = env_dup(src->prom_export);
	dst->prom_select = env_dup(src->prom_select);
	dst->prom_rollup = env_dup(src->prom_rollup);
	dst->prom_cpuset = env_dup(src->prom_cpuset);
	dst->prom_unmoved = env_dup(src->prom_unmoved);
	dst->prom_web_config = dup_opt(src->prom_web_config);
	dst->peers = src->npeers ? xcalloc(src->npeers, sizeof(*dst->peers)) : NULL;
	for (size_t i = 0; i < src->npeers; i++) {
		dst->peers[i].name = xstrdup(src->peers[i].name);
		dst->peers[i].command = env_dup(src->peers[i].command);
		dst->peers[i].ssh = dup_opt(src->peers[i].ssh);
		dst->peers[i].ssh_options = env_dup(src->peers[i].ssh_options);
		dst->peers[i].proxy_command = env_dup(src->peers[i].proxy_command);
	}
	dst->source_opts = NULL;
	dst->nsource_opts = 0;
	for (size_t i = 0; i < src->nsource_opts; i++)
		config_add_source_opt(dst, src->source_opts[i].source, src->source_opts[i].key,
		                      src->source_opts[i].val);
}

void
config_add_source_opt(struct config *cfg, const char *source, const char *key, const char *val)
{
	struct config_kv *kv;

	cfg->source_opts =
	    xreallocarray(cfg->source_opts, cfg->nsource_opts + 1, sizeof(*cfg->source_opts));
	kv = &cfg->source_opts[cfg->nsource_opts++];
	kv->source = xstrdup(source);
	kv->key = xstrdup(key);
	kv->val = xstrdup(val);
}

/* Parse yes/no/true/false/on/off/1/0. */
int
config_parse_bool(const char *s, bool *out)
{
	static const char *yes[] = {"yes", "true", "on", "1"};
	static const char *no[] = {"no", "false", "off", "0"};

	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

/* Parse a byte size with an optional k/M/G suffix (powers of 1024). */
int
config_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		mult = 1ull << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mult = 1ull << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mult = 1ull << 30;
		end++;
		break;
	default:
		return -1;
	}
	if (*end == 'i' && end[-1] != *s)
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end != '\0' || v > UINT64_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

/* Parse a duration in milliseconds: time_parse_duration's text (5m, 1m30s, 500ms; seconds
 * when bare), rounded to the millisecond. */
int
config_parse_duration_ms(const char *s, uint64_t *out)
{
	int64_t ns;

	if (time_parse_duration(s, 1000000000, 0, &ns) < 0)
		return -1;
	*out = (uint64_t)((ns + 500000) / 1000000);
	return 0;
}

/* Parse an unsigned integer in [min, max]. */
static int
parse_uint(const char *s, unsigned long long min, unsigned long long max, int base,
           unsigned long long *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || end == s || *end != '\0' || *s == '-' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* child_path: absolute directories separated by ':', none empty, at most 4000 bytes. 0 or
 * -1. */
static int
check_search_path(const char *val)
{
	if (*val == '\0' || strlen(val) > 4000)
		return -1;
	for (const char *p = val; *p;) {
		size_t n = strcspn(p, ":");
		if (n == 0 || p[0] != '/')
			return -1;
		p += n;
		if (*p == ':' && *++p == '\0')
			return -1;
	}
	for (const char *p = val; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return -1;
	return 0;
}

/* Set one [daemon] key. 1 handled, 0 unknown key, -1 bad value. */
static int
set_daemon_key(struct config *cfg, const char *key, const char *val)
{
	unsigned long long u;
	int lvl;

	if (strcmp(key, "socket") == 0) {
		if (*val != '/')
			return -1;
		set_str(&cfg->socket_path, val);
	} else if (strcmp(key, "socket_group") == 0) {
		set_str(&cfg->socket_group, val);
	} else if (strcmp(key, "socket_mode") == 0) {
		if (parse_uint(val, 0, 0777, 8, &u) < 0)
			return -1;
		cfg->socket_mode = (unsigned)u;
	} else if (strcmp(key, "admin_group") == 0) {
		set_str(&cfg->admin_group, val);
	} else if (strcmp(key, "state_dir") == 0) {
		if (*val != '/')
			return -1;
		set_str(&cfg->state_dir, val);
	} else if (strcmp(key, "profile_dir") == 0) {
		if (*val != '/')
			return -1;
		set_str(&cfg->profile_dir, val);
		cfg->profile_dir_from = "config";
	} else if (strcmp(key, "suite_dir") == 0) {
		if (*val != '/')
			return -1;
		set_str(&cfg->suite_dir, val);
		cfg->suite_dir_from = "config";
	} else if (strcmp(key, "root") == 0) {
		if (*val != '/')
			return -1;
		set_str(&cfg->root, val);
	} else if (strcmp(key, "user") == 0) {
		/* A user name (checked against the password database at start). */
		if (*val == '\0' || strlen(val) > 32 ||
		    strspn(val, "abcdefghijklmnopqrstuvwxyz"
		                "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != strlen(val) ||
		    val[0] == '-')
			return -1;
		set_str(&cfg->user, val);
	} else if (strcmp(key, "log_level") == 0) {
		if ((lvl = log_level_parse(val)) < 0)
			return -1;
		cfg->log_level = lvl;
	} else if (strcmp(key, "child_path") == 0) {
		if (check_search_path(val) < 0)
			return -1;
		set_str(&cfg->child_path, val);
	} else if (strcmp(key, "work_dir") == 0) {
		if (*val != '/' || strlen(val) > 1024)
			return -1;
		set_str(&cfg->work_dir, val);
	} else
		return 0;
	return 1;
}

/* Set one [limits] key. 1 handled, 0 unknown key, -1 bad value. */
static int
set_limits_key(struct config *cfg, const char *key, const char *val)
{
	unsigned long long u;
	uint64_t v;

	if (strcmp(key, "max_clients") == 0) {
		if (parse_uint(val, 1, 100000, 10, &u) < 0)
			return -1;
		cfg->max_clients = (unsigned)u;
	} else if (strcmp(key, "max_clients_per_uid") == 0) {
		if (parse_uint(val, 1, 100000, 10, &u) < 0)
			return -1;
		cfg->max_clients_per_uid = (unsigned)u;
	} else if (strcmp(key, "max_tests") == 0) {
		if (parse_uint(val, 1, 64, 10, &u) < 0)
			return -1;
		cfg->max_tests = (unsigned)u;
	} else if (strcmp(key, "test_deadline") == 0) {
		if (config_parse_duration_ms(val, &v) < 0 || v < 1000 || v > 7 * 86400000ull)
			return -1;
		cfg->test_deadline_ms = v;
	} else if (strcmp(key, "test_env") == 0) {
		if (parse_env(val, &cfg->test_env) < 0)
			return -1;
	} else if (strcmp(key, "test_pids_max") == 0) {
		if (parse_uint(val, 0, 4194304, 10, &u) < 0 || (u > 0 && u < 8))
			return -1;
		cfg->test_pids_max = (unsigned)u;
	} else if (strcmp(key, "client_output_high") == 0) {
		if (config_parse_size(val, &v) < 0 || v < 65536 || v > (1ull << 32))
			return -1;
		cfg->client_output_high = v;
	} else if (strcmp(key, "client_output_low") == 0) {
		if (config_parse_size(val, &v) < 0 || v > (1ull << 32))
			return -1;
		cfg->client_output_low = v;
	} else if (strcmp(key, "request_timeout") == 0) {
		if (config_parse_duration_ms(val, &v) < 0 || v < 100)
			return -1;
		cfg->request_timeout_ms = v;
	} else if (strcmp(key, "reply_max_points") == 0) {
		if (parse_uint(val, 1000, 100000000, 10, &u) < 0)
			return -1;
		cfg->reply_max_points = u;
	} else if (strcmp(key, "reply_max_bytes") == 0) {
		if (config_parse_size(val, &v) < 0 || v < 65536 || v > (4ull << 30))
			return -1;
		cfg->reply_max_bytes = v;
	} else
		return 0;
	return 1;
}

const char *const config_fine_names[] = {"link", "queues", "softnet", NULL};

/* [sampling] fine: names of config_fine_names separated by spaces or commas, or "none". 0 with
 * the bits in *out, -1 with the word that is none of them in bad[]. */
static int
parse_fine_sources(const char *val, unsigned *out, char *bad, size_t badsize)
{
	unsigned bits = 0;
	const char *p = val;

	while (*p != '\0') {
		size_t len = strcspn(p, " \t,");
		unsigned i = 0;

		if (len == 0) {
			p++;
			continue;
		}
		while (config_fine_names[i] != NULL && (strlen(config_fine_names[i]) != len ||
		                                        strncmp(config_fine_names[i], p, len) != 0))
			i++;
		if (config_fine_names[i] != NULL)
			bits |= 1u << i;
		else if (!(len == 4 && strncmp(p, "none", 4) == 0)) {
			snprintf(bad, badsize, "%.*s", (int)len, p);
			return -1;
		}
		p += len;
	}
	*out = bits;
	return 0;
}

uint64_t
config_fine_memory(const struct config *cfg)
{
	uint64_t m = cfg->fine_memory;

	if (cfg->fine_when == CONFIG_FINE_NEVER || cfg->fine_sources == 0 ||
	    m == CONFIG_FINE_MEMORY_NONE)
		return 0;
	if (m == 0) {
		m = cfg->ring_memory / 8;
		if (m < (1u << 20))
			m = 1u << 20;
		if (cfg->ring_memory < m + (1u << 20))
			return 0;
	}
	return m;
}

/* Set one [sampling] fine_* key (clear errors: the values each takes). 1 handled, 0 unknown
 * key, -1 with err. */
static int
set_fine_key(struct config *cfg, const char *key, const char *val, struct nm_error *err)
{
	uint64_t v;
	char bad[64];

	if (strcmp(key, "fine") == 0) {
		if (parse_fine_sources(val, &cfg->fine_sources, bad, sizeof(bad)) < 0) {
			nm_error_set(err, NM_ERR_BAD_ARGS,
			             "[sampling] fine: \"%s\" cannot be sampled fine "
			             "(link, queues, softnet can; or none)",
			             bad);
			return -1;
		}
	} else if (strcmp(key, "fine_interval") == 0) {
		if (config_parse_duration_ms(val, &v) < 0 || v < 10 || v > 1000) {
			nm_error_set(err, NM_ERR_BAD_ARGS,
			             "[sampling] fine_interval: \"%s\" is not a duration from 10ms "
			             "to 1s",
			             val);
			return -1;
		}
		cfg->fine_interval_ms = v;
	} else if (strcmp(key, "fine_when") == 0) {
		if (strcmp(val, "window") == 0)
			cfg->fine_when = CONFIG_FINE_WINDOW;
		else if (strcmp(val, "always") == 0)
			cfg->fine_when = CONFIG_FINE_ALWAYS;
		else if (strcmp(val, "never") == 0)
			cfg->fine_when = CONFIG_FINE_NEVER;
		else {
			nm_error_set(err, NM_ERR_BAD_ARGS,
			             "[sampling] fine_when: \"%s\" is not window, always or never",
			             val);
			return -1;
		}
	} else if (strcmp(key, "fine_keep") == 0) {
		if (config_parse_duration_ms(val, &v) < 0 || v < 10000 || v > 3600000) {
			nm_error_set(
			    err, NM_ERR_BAD_ARGS,
			    "[sampling] fine_keep: \"%s\" is not a duration from 10s to 1h", val);
			return -1;
		}
		cfg->fine_keep_ms = v;
	} else if (strcmp(key, "fine_memory") == 0) {
		if (config_parse_size(val, &v) < 0 || (v != 0 && v < (1u << 20))) {
			nm_error_set(err, NM_ERR_BAD_ARGS,
			             "[sampling] fine_memory: \"%s\" is not 0 (no fine history) or "
			             "a size of 1M or more",
			             val);
			return -1;
		}
		cfg->fine_memory = v == 0 ? CONFIG_FINE_MEMORY_NONE : v;
	} else
		return 0;
	return 1;
}

/* Set one [sampling] key. 1 handled, 0 unknown key, -1 bad value. */
static int
set_sampling_key(struct config *cfg, const char *key, const char *val)
{
	uint64_t v;

	if (strcmp(key, "ring_memory") == 0) {
		if (config_parse_size(val, &v) < 0 || v < (1u << 20) || v > (64ull << 30))
			return -1;
		cfg->ring_memory = v;
	} else if (strcmp(key, "interval") == 0) {
		if (config_parse_duration_ms(val, &v) < 0 || v < 10 || v > 3600000)
			return -1;
		cfg->sample_interval_ms = v;
	} else if (strcmp(key, "keyframe_interval") == 0) {
		if (config_parse_duration_ms(val, &v) < 0 || v < 1000 || v > 86400000)
			return -1;
		cfg->keyframe_interval_ms = v;
	} else
		return 0;
	return 1;
}

/* Append a copy of s to a NULL-terminated list (at most 64 entries). 0, or -1 when full. */
static int
strv_add(char ***v, const char *s)
{
	size_t n = 0;

	while (*v != NULL && (*v)[n] != NULL)
		n++;
	if (n >= 64)
		return -1;
	*v = xreallocarray(*v, n + 2, sizeof(**v));
	(*v)[n] = xstrdup(s);
	(*v)[n + 1] = NULL;
	return 0;
}

/* Whether s is HOST:PORT with a port 1-65535 (HOST an address or name, [v6] bracketed). */
static bool
valid_listen(const char *s)
{
	const char *colon = strrchr(s, ':');
	unsigned long long port;

	if (colon == NULL || colon == s || strlen(s) > 255)
		return false;
	if (s[0] == '[' && colon[-1] != ']')
		return false;
	return parse_uint(colon + 1, 1, 65535, 10, &port) == 0;
}

/* Whether val is a label selector (common/labelsel.h) of at most 1024 bytes. */
static bool
valid_selector(const char *val)
{
	struct labelsel sel;
	struct nm_error err;
	int r;

	if (strlen(val) > 1024)
		return false;
	r = labelsel_parse(&sel, val, &err);
	labelsel_free(&sel);
	if (r < 0)
		log_warnx("config: [prometheus] selector \"%s\": %s", val, err.message);
	return r == 0;
}

/* Whether val is a cpuset line NAME=LIST (NAME of letters, digits, '_' and '-'). */
static bool
valid_cpuset_line(const char *val)
{
	const char *eq = strchr(val, '=');
	struct cpuset set;

	if (eq == NULL || eq == val || eq - val > 32)
		return false;
	for (const char *c = val; c < eq; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
			return false;
	return cpuset_parse_list(&set, eq + 1, NULL) == 0;
}

/* Add a [prometheus] include (+) or exclude (-) line. */
static int
add_select(struct config *cfg, char sign, const char *val)
{
	char *line;
	int r;

	if (!valid_selector(val))
		return -1;
	line = xmalloc(strlen(val) + 2);
	line[0] = sign;
	strcpy(line + 1, val);
	r = strv_add(&cfg->prom_select, line);
	free(line);
	return r;
}

/* Set one [prometheus] key. 1 handled, 0 unknown key, -1 bad value. */
static int
set_prometheus_key(struct config *cfg, const char *key, const char *val)
{
	unsigned long long u;
	uint64_t v;

	if (strcmp(key, "include") == 0 || strcmp(key, "exclude") == 0)
		return add_select(cfg, key[0] == 'i' ? '+' : '-', val) < 0 ? -1 : 1;
	if (strcmp(key, "rollup") == 0 || strcmp(key, "drop_unmoved") == 0) {
		if ((strcmp(val, "none") != 0 && !valid_selector(val)) ||
		    strv_add(key[0] == 'r' ? &cfg->prom_rollup : &cfg->prom_unmoved, val) < 0)
			return -1;
		return 1;
	}
	if (strcmp(key, "web_config") == 0) {
		if (val[0] != '/' || strlen(val) > 4095)
			return -1;
		free(cfg->prom_web_config);
		cfg->prom_web_config = xstrdup(val);
		return 1;
	}
	if (strcmp(key, "cpuset") == 0) {
		if (!valid_cpuset_line(val) || strv_add(&cfg->prom_cpuset, val) < 0)
			return -1;
		return 1;
	}
	if (strcmp(key, "max_family_series") == 0) {
		if (parse_uint(val, 1, 10000000, 10, &u) < 0)
			return -1;
		cfg->prom_max_family_series = u;
		return 1;
	}

	if (strcmp(key, "listen") == 0) {
		if (!valid_listen(val) || strv_add(&cfg->prom_listen, val) < 0)
			return -1;
	} else if (strcmp(key, "export") == 0) {
		if (val[0] == '\0' || (val[0] == '!' && val[1] == '\0') || strlen(val) > 255 ||
		    strv_add(&cfg->prom_export, val) < 0)
			return -1;
	} else if (strcmp(key, "max_series") == 0) {
		if (parse_uint(val, 1, 10000000, 10, &u) < 0)
			return -1;
		cfg->prom_max_series = u;
	} else if (strcmp(key, "max_connections") == 0) {
		if (parse_uint(val, 1, 1024, 10, &u) < 0)
			return -1;
		cfg->prom_max_connections = (unsigned)u;
	} else if (strcmp(key, "timeout") == 0) {
		if (config_parse_duration_ms(val, &v) < 0 || v < 1000 || v > 600000)
			return -1;
		cfg->prom_timeout_ms = v;
	} else
		return 0;
	return 1;
}

/* Set one [bursts] key. 1 handled, 0 unknown key, -1 bad value. */
static int
set_bursts_key(struct config *cfg, const char *key, const char *val)
{
	unsigned long long u;

	if (strcmp(key, "max_series") != 0)
		return 0;
	if (parse_uint(val, 0, 100000, 10, &u) < 0)
		return -1;
	cfg->bursts_max_series = u;
	return 1;
}

/* Is name a peer's name: letters, digits, '.', '_', '-', 1 to 32 of them? */
static bool
peer_name_ok(const char *name)
{
	size_t n = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	                        "0123456789._-");

	return n > 0 && n <= 32 && name[n] == '\0';
}

/* A key of [peer NAME]: 1 ok, 0 unknown key, -1 bad value. */
static int
set_peer_key(struct config *cfg, const char *name, const char *key, const char *val)
{
	struct config_peer *p = NULL;
	char ***vec = NULL;

	for (size_t i = 0; i < cfg->npeers; i++)
		if (strcmp(cfg->peers[i].name, name) == 0)
			p = &cfg->peers[i];
	if (p == NULL) {
		if (!peer_name_ok(name) || cfg->npeers == CONFIG_PEERS_MAX)
			return -1;
		cfg->peers = xreallocarray(cfg->peers, cfg->npeers + 1, sizeof(*cfg->peers));
		p = &cfg->peers[cfg->npeers++];
		memset(p, 0, sizeof(*p));
		p->name = xstrdup(name);
	}
	if (strcmp(key, "ssh") == 0) {
		/* [user@]host[:port]: no blank, no leading '-' (it would be an option of ssh). */
		if (val[0] == '\0' || val[0] == '-' || strpbrk(val, " \t'\"") != NULL)
			return -1;
		set_str(&p->ssh, val);
		return 1;
	}
	if (strcmp(key, "command") == 0)
		vec = &p->command;
	else if (strcmp(key, "ssh_options") == 0)
		vec = &p->ssh_options;
	else if (strcmp(key, "proxy_command") == 0)
		vec = &p->proxy_command;
	else
		return 0;
	char **v = config_split_words(val, CONFIG_PEER_ARGV_MAX);
	if (v == NULL || (vec != &p->ssh_options && v[0] == NULL)) {
		env_free(v);
		return -1;
	}
	env_free(*vec);
	*vec = v;
	return 1;
}

/* Every peer has exactly one transport. 0, or -1 with err. */
static int
check_peers(const struct config *cfg, const char *path, struct nm_error *err)
{
	for (size_t i = 0; i < cfg->npeers; i++) {
		const struct config_peer *p = &cfg->peers[i];
		if ((p->command == NULL) == (p->ssh == NULL))
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "%s: [peer %s]: give one of command = or ssh =", path,
			                    p->name);
		if (p->command != NULL && (p->ssh_options != NULL || p->proxy_command != NULL))
			return nm_error_set(
			    err, NM_ERR_BAD_ARGS,
			    "%s: [peer %s]: ssh_options and proxy_command go with ssh =", path,
			    p->name);
	}
	return 0;
}

/* inih callback: route a key to its section. Returns 0 to stop at the first error. */
static int
ini_line_cb(void *user, const char *section, const char *key, const char *val)
{
	struct load_ctx *lc = user;
	int r;

	if (strcmp(section, "daemon") == 0)
		r = set_daemon_key(lc->cfg, key, val);
	else if (strcmp(section, "limits") == 0)
		r = set_limits_key(lc->cfg, key, val);
	else if (strcmp(section, "sampling") == 0 && strncmp(key, "fine", 4) == 0) {
		if ((r = set_fine_key(lc->cfg, key, val, lc->err)) < 0) {
			nm_error_prefix(lc->err, NM_ERR_BAD_ARGS, "%s", lc->path);
			lc->failed = 1;
			return 0;
		}
	} else if (strcmp(section, "sampling") == 0)
		r = set_sampling_key(lc->cfg, key, val);
	else if (strcmp(section, "bursts") == 0)
		r = set_bursts_key(lc->cfg, key, val);
	else if (strcmp(section, "prometheus") == 0)
		r = set_prometheus_key(lc->cfg, key, val);
	else if (strncmp(section, "peer ", 5) == 0)
		r = set_peer_key(lc->cfg, section + 5, key, val);
	else if (strncmp(section, "source.", 7) == 0 && section[7] != '\0') {
		/* Checked by the sampler, which knows each source's keys. */
		config_add_source_opt(lc->cfg, section + 7, key, val);
		r = 1;
	} else {
		nm_error_set(lc->err, NM_ERR_BAD_ARGS, "%s: unknown section [%s]", lc->path,
		             section);
		lc->failed = 1;
		return 0;
	}
	if (r == 0)
		nm_error_set(lc->err, NM_ERR_BAD_ARGS, "%s: [%s]: unknown key \"%s\"", lc->path,
		             section, key);
	else if (r < 0)
		nm_error_set(lc->err, NM_ERR_BAD_ARGS, "%s: [%s] %s: bad value \"%s\"", lc->path,
		             section, key, val);
	if (r <= 0) {
		lc->failed = 1;
		return 0;
	}
	return 1;
}

int
config_load(struct config *cfg, const char *path, bool must_exist, struct nm_error *err)
{
	struct config tmp;
	struct load_ctx lc;
	FILE *fp;
	int r;

	if ((fp = fopen(path, "r")) == NULL) {
		if (errno == ENOENT && !must_exist)
			return 0;
		return nm_error_set(err, NM_ERR_FAILED, "%s: %s", path, strerror(errno));
	}
	config_copy(&tmp, cfg);
	lc = (struct load_ctx){&tmp, err, path, 0};
	r = ini_parse_file(fp, ini_line_cb, &lc);
	fclose(fp);
	if (r != 0 && !lc.failed)
		nm_error_set(err, NM_ERR_BAD_ARGS, "%s:%d: syntax error", path, r);
	if (r == 0 && tmp.client_output_low >= tmp.client_output_high) {
		nm_error_set(err, NM_ERR_BAD_ARGS,
		             "%s: [limits] client_output_low must be below client_output_high",
		             path);
		r = -1;
	}
	if (r == 0 && check_peers(&tmp, path, err) < 0)
		r = -1;
	if (r == 0 && tmp.fine_memory != 0 && tmp.fine_memory != CONFIG_FINE_MEMORY_NONE &&
	    tmp.fine_memory + (1u << 20) > tmp.ring_memory) {
		nm_error_set(err, NM_ERR_BAD_ARGS,
		             "%s: [sampling] fine_memory (%llu bytes) must leave at least 1M of "
		             "ring_memory (%llu bytes) to the main history",
		             path, (unsigned long long)tmp.fine_memory,
		             (unsigned long long)tmp.ring_memory);
		r = -1;
	}
	if (r != 0) {
		config_free(&tmp);
		return -1;
	}
	config_free(cfg);
	*cfg = tmp;
	return 0;
}

json_object *
config_to_json(const struct config *cfg)
{
	json_object *o = json_object_new_object();
	char mode[8];

	snprintf(mode, sizeof(mode), "%04o", cfg->socket_mode);
	json_add_string(o, "socket", cfg->socket_path);
	json_add_string(o, "socket_group", cfg->socket_group);
	json_add_string(o, "socket_mode", mode);
	json_add_string(o, "admin_group", cfg->admin_group);
	json_add_string(o, "state_dir", cfg->state_dir);
	json_add_string(o, "profile_dir", cfg->profile_dir);
	json_add_string(o, "profile_dir_from", cfg->profile_dir_from);
	json_add_string(o, "suite_dir", cfg->suite_dir);
	json_add_string(o, "suite_dir_from", cfg->suite_dir_from);
	json_add_string(o, "root", cfg->root);
	json_add_string(o, "user", cfg->user);
	json_add_string(o, "log_level", log_level_name(cfg->log_level));
	json_add_string(o, "child_path", cfg->child_path);
	json_add_string(o, "work_dir", cfg->work_dir);
	json_add_uint(o, "max_clients", cfg->max_clients);
	json_add_uint(o, "max_clients_per_uid", cfg->max_clients_per_uid);
	json_add_uint(o, "max_tests", cfg->max_tests);
	json_add_uint(o, "test_deadline_ms", cfg->test_deadline_ms);
	json_add_uint(o, "test_pids_max", cfg->test_pids_max);
	{
		json_object *env = json_object_new_array();
		for (size_t i = 0; cfg->test_env != NULL && cfg->test_env[i] != NULL; i++)
			json_object_array_add(env, json_object_new_string(cfg->test_env[i]));
		json_object_object_add(o, "test_env", env);
	}
	json_add_uint(o, "client_output_high", cfg->client_output_high);
	json_add_uint(o, "client_output_low", cfg->client_output_low);
	json_add_uint(o, "request_timeout_ms", cfg->request_timeout_ms);
	json_add_uint(o, "reply_max_points", cfg->reply_max_points);
	json_add_uint(o, "reply_max_bytes", cfg->reply_max_bytes);
	json_add_uint(o, "ring_memory", cfg->ring_memory);
	json_add_uint(o, "sample_interval_ms", cfg->sample_interval_ms);
	json_add_uint(o, "keyframe_interval_ms", cfg->keyframe_interval_ms);
	{
		json_object *fine = json_object_new_array();
		for (unsigned i = 0; config_fine_names[i] != NULL; i++)
			if (cfg->fine_sources & (1u << i))
				json_object_array_add(fine,
				                      json_object_new_string(config_fine_names[i]));
		json_object_object_add(o, "fine", fine);
	}
	json_add_uint(o, "fine_interval_ms", cfg->fine_interval_ms);
	json_add_string(o, "fine_when",
	                cfg->fine_when == CONFIG_FINE_ALWAYS  ? "always"
	                : cfg->fine_when == CONFIG_FINE_NEVER ? "never"
	                                                      : "window");
	json_add_uint(o, "fine_keep_ms", cfg->fine_keep_ms);
	json_add_uint(o, "fine_memory", config_fine_memory(cfg));
	{
		json_object *bu = json_object_new_object();
		json_add_uint(bu, "max_series", cfg->bursts_max_series);
		json_object_object_add(o, "bursts", bu);
	}
	{
		json_object *pr = json_object_new_object(), *l = json_object_new_array(),
		            *e = json_object_new_array();
		for (size_t i = 0; cfg->prom_listen != NULL && cfg->prom_listen[i] != NULL; i++)
			json_object_array_add(l, json_object_new_string(cfg->prom_listen[i]));
		for (size_t i = 0; cfg->prom_export != NULL && cfg->prom_export[i] != NULL; i++)
			json_object_array_add(e, json_object_new_string(cfg->prom_export[i]));
		json_object_object_add(pr, "listen", l);
		json_object_object_add(pr, "export", e);
		json_add_uint(pr, "max_series", cfg->prom_max_series);
		json_add_uint(pr, "max_connections", cfg->prom_max_connections);
		json_add_uint(pr, "timeout_ms", cfg->prom_timeout_ms);
		json_object_object_add(o, "prometheus", pr);
	}
	if (cfg->npeers > 0) {
		json_object *peers = json_object_new_object();
		for (size_t i = 0; i < cfg->npeers; i++) {
			const struct config_peer *p = &cfg->peers[i];
			json_object *po = json_object_new_object();
			json_add_string(po, "transport", p->ssh ? "ssh" : "command");
			if (p->ssh != NULL)
				json_add_string(po, "ssh", p->ssh);
			json_object_object_add(peers, p->name, po);
		}
		json_object_object_add(o, "peers", peers);
	}
	if (cfg->nsource_opts > 0) {
		json_object *srcs = json_object_new_object();
		for (size_t i = 0; i < cfg->nsource_opts; i++) {
			const struct config_kv *kv = &cfg->source_opts[i];
			json_object *so = NULL;
			if (!json_object_object_get_ex(srcs, kv->source, &so)) {
				so = json_object_new_object();
				json_object_object_add(srcs, kv->source, so);
			}
			json_add_string(so, kv->key, kv->val);
		}
		json_object_object_add(o, "sources", srcs);
	}
	return o;
}
