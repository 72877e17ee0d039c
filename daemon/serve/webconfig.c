/* webconfig.c: the exporter toolkit's web configuration (see webconfig.h). */
#include <libgen.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "error.h"
#include "webconfig.h"
#include "xmalloc.h"

/* The scalar text of node n, NULL when it is not a scalar. */
static const char *
scalar(yaml_node_t *n)
{
	return n != NULL && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* path made absolute against the directory dir of the configuration file. */
static char *
resolve(const char *dir, const char *path)
{
	char *out;

	if (path[0] == '/')
		return xstrdup(path);
	out = xmalloc(strlen(dir) + strlen(path) + 2);
	sprintf(out, "%s/%s", dir, path);
	return out;
}

/* The client_auth_type named s; -1 when unknown. */
static int
client_auth_of(const char *s)
{
	static const char *const names[] = {"NoClientCert", "RequestClientCert",
	                                    "RequireAnyClientCert", "VerifyClientCertIfGiven",
	                                    "RequireAndVerifyClientCert"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

/* The TLS version named s (TLS10 ... TLS13); -1 when unknown. */
static int
tls_version_of(const char *s)
{
	if (strcmp(s, "TLS10") == 0)
		return TLS1_VERSION;
	if (strcmp(s, "TLS11") == 0)
		return TLS1_1_VERSION;
	if (strcmp(s, "TLS12") == 0)
		return TLS1_2_VERSION;
	if (strcmp(s, "TLS13") == 0)
		return TLS1_3_VERSION;
	return -1;
}

/* tls_server_config's mapping. */
static int
tls_section(struct webconfig *w, yaml_document_t *doc, yaml_node_t *map, const char *dir,
            struct nm_error *err)
{
	if (map->type != YAML_MAPPING_NODE)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "tls_server_config is not a mapping");
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *k = scalar(yaml_document_get_node(doc, p->key));
		const char *v = scalar(yaml_document_get_node(doc, p->value));
		int x;
		if (k == NULL || v == NULL)
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "tls_server_config: keys and values are plain strings");
		if (strcmp(k, "cert_file") == 0)
			w->cert_file = resolve(dir, v);
		else if (strcmp(k, "key_file") == 0)
			w->key_file = resolve(dir, v);
		else if (strcmp(k, "client_ca_file") == 0)
			w->client_ca_file = resolve(dir, v);
		else if (strcmp(k, "client_auth_type") == 0) {
			if ((x = client_auth_of(v)) < 0)
				return nm_error_set(
				    err, NM_ERR_BAD_ARGS,
				    "tls_server_config: unknown client_auth_type %s", v);
			w->client_auth = (enum webconfig_client_auth)x;
		} else if (strcmp(k, "min_version") == 0) {
			if ((x = tls_version_of(v)) < 0)
				return nm_error_set(err, NM_ERR_BAD_ARGS,
				                    "tls_server_config: unknown min_version %s", v);
			w->min_version = x;
		} else
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "tls_server_config: %s is not supported", k);
	}
	if (w->cert_file == NULL || w->key_file == NULL)
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "tls_server_config needs cert_file and key_file");
	if (w->client_ca_file == NULL &&
	    (w->client_auth == WEBCONFIG_VERIFY_CLIENT_CERT_IF_GIVEN ||
	     w->client_auth == WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT))
		return nm_error_set(
		    err, NM_ERR_BAD_ARGS,
		    "client_auth_type verifies certificates: client_ca_file is needed");
	w->tls = true;
	return 0;
}

/* Whether h looks like a bcrypt hash: $2a$, $2b$ or $2y$, a cost, 53 more characters. */
static bool
is_bcrypt(const char *h)
{
	return strlen(h) == 60 && h[0] == '$' && h[1] == '2' &&
	       (h[2] == 'a' || h[2] == 'b' || h[2] == 'y') && h[3] == '$' && h[6] == '$';
}

/* basic_auth_users' mapping. */
static int
users_section(struct webconfig *w, yaml_document_t *doc, yaml_node_t *map, struct nm_error *err)
{
	if (map->type != YAML_MAPPING_NODE)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "basic_auth_users is not a mapping");
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *k = scalar(yaml_document_get_node(doc, p->key));
		const char *v = scalar(yaml_document_get_node(doc, p->value));
		if (k == NULL || v == NULL || k[0] == '\0' || strchr(k, ':') != NULL)
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "basic_auth_users: a user name (no ':') and its hash");
		if (!is_bcrypt(v))
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "basic_auth_users: %s: not a bcrypt hash ($2y$...)", k);
		if (webconfig_user_hash(w, k) != NULL)
			return nm_error_set(err, NM_ERR_BAD_ARGS, "basic_auth_users: %s twice", k);
		w->users = xreallocarray(w->users, w->nusers + 1, sizeof(*w->users));
		w->users[w->nusers].name = xstrdup(k);
		w->users[w->nusers].hash = xstrdup(v);
		w->nusers++;
	}
	return 0;
}

/* The document's top mapping. */
static int
top(struct webconfig *w, yaml_document_t *doc, const char *dir, struct nm_error *err)
{
	yaml_node_t *root = yaml_document_get_root_node(doc);

	if (root == NULL)
		return 0; /* an empty file: no TLS, no users */
	if (root->type != YAML_MAPPING_NODE)
		return nm_error_set(err, NM_ERR_BAD_ARGS, "the top of the file is not a mapping");
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++) {
		const char *k = scalar(yaml_document_get_node(doc, p->key));
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		int r;
		if (k == NULL)
			return nm_error_set(err, NM_ERR_BAD_ARGS, "a key is not a string");
		if (strcmp(k, "tls_server_config") == 0)
			r = tls_section(w, doc, v, dir, err);
		else if (strcmp(k, "basic_auth_users") == 0)
			r = users_section(w, doc, v, err);
		else
			r = nm_error_set(err, NM_ERR_BAD_ARGS, "%s is not supported", k);
		if (r < 0)
			return -1;
	}
	return 0;
}

int
webconfig_load(struct webconfig *w, const char *path, struct nm_error *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	char *copy, *dir;
	FILE *fp;
	int r;

	memset(w, 0, sizeof(*w));
	w->min_version = TLS1_2_VERSION;
	if ((fp = fopen(path, "r")) == NULL)
		return nm_error_set(err, NM_ERR_FAILED, "web_config %s: cannot open it", path);
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, fp);
	if (!yaml_parser_load(&parser, &doc)) {
		r = nm_error_set(err, NM_ERR_BAD_ARGS, "web_config %s: line %zu: %s", path,
		                 parser.problem_mark.line + 1,
		                 parser.problem != NULL ? parser.problem : "bad YAML");
		yaml_parser_delete(&parser);
		fclose(fp);
		return r;
	}
	copy = xstrdup(path);
	dir = dirname(copy);
	r = top(w, &doc, dir, err);
	if (r < 0)
		nm_error_prefix(err, NM_ERR_BAD_ARGS, "web_config %s", path);
	free(copy);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(fp);
	return r;
}

void
webconfig_free(struct webconfig *w)
{
	free(w->cert_file);
	free(w->key_file);
	free(w->client_ca_file);
	for (size_t i = 0; i < w->nusers; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
	}
	free(w->users);
	memset(w, 0, sizeof(*w));
}

const char *
webconfig_user_hash(const struct webconfig *w, const char *name)
{
	for (size_t i = 0; i < w->nusers; i++)
		if (strcmp(w->users[i].name, name) == 0)
			return w->users[i].hash;
	return NULL;
}
