/* webconfig.h: the Prometheus exporter toolkit's web configuration file ([prometheus]
 * web_config = FILE), read with libyaml:
 *
 *     tls_server_config:
 *       cert_file: server.crt          # PEM; paths relative to the file's directory
 *       key_file: server.key
 *       client_ca_file: ca.crt         # the CAs client certificates are checked against
 *       client_auth_type: RequireAndVerifyClientCert
 *       min_version: TLS12             # TLS10 TLS11 TLS12 TLS13 (default TLS12)
 *     basic_auth_users:
 *       alice: $2y$10$...              # bcrypt hashes
 *
 * client_auth_type is one of the toolkit's: NoClientCert (default), RequestClientCert,
 * RequireAnyClientCert, VerifyClientCertIfGiven, RequireAndVerifyClientCert. Keys the
 * toolkit has and this does not (http_server_config, cipher_suites, ...) are refused, never
 * ignored. */
#ifndef NM_WEBCONFIG_H
#define NM_WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct nm_error;

enum webconfig_client_auth {
	WEBCONFIG_NO_CLIENT_CERT = 0,
	WEBCONFIG_REQUEST_CLIENT_CERT,
	WEBCONFIG_REQUIRE_ANY_CLIENT_CERT,
	WEBCONFIG_VERIFY_CLIENT_CERT_IF_GIVEN,
	WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT,
};

struct webconfig_user {
	char *name, *hash;
};

struct webconfig {
	bool tls;                                    /* a tls_server_config with a certificate */
	char *cert_file, *key_file, *client_ca_file; /* absolute, or NULL */
	enum webconfig_client_auth client_auth;
	int min_version; /* TLS1_VERSION ... TLS1_3_VERSION */
	struct webconfig_user *users;
	size_t nusers;
};

/* Read path into w (zeroed first; free with webconfig_free, also after a failure). -1 with
 * err on a file that cannot be read, bad YAML, an unknown key, a bad value, a hash that is
 * not bcrypt ($2a$, $2b$, $2y$), or a TLS configuration without cert_file and key_file or
 * with client_ca_file missing where the client_auth_type verifies. */
int webconfig_load(struct webconfig *w, const char *path, struct nm_error *err);
void webconfig_free(struct webconfig *w);
/* The bcrypt hash of user name, NULL when there is no such user. */
const char *webconfig_user_hash(const struct webconfig *w, const char *name);

#endif
