/* cmd-suite-run.c: start a suite from the text of its file (the client reads it), or from
 * SUITE_DIR/NAME.conf ([daemon] suite_dir) when only a name is given; the suite then runs in
 * the daemon, whatever happens to the client. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clientfd.h"
#include "cmd.h"
#include "config.h"
#include "control.h"
#include "daemon.h"
#include "error.h"
#include "jsonutil.h"
#include "regfile.h"
#include "runner.h"
#include "suite.h"

#define SUITE_TEXT_MAX 60000 /* as the text argument */

/* A suite of the suite directory by name: its text (caller frees) and path; NULL with err. */
static char *
suite_by_name(const struct config *cfg, const char *name, char *path, size_t size,
              struct nm_error *err)
{
	size_t len;
	char *text;

	if (*name == '\0' || name[0] == '.' ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") !=
	        strlen(name)) {
		nm_error_set(
		    err, NM_ERR_BAD_ARGS,
		    "\"%s\" is not a suite name (letters, digits, '_', '-', '.'; a file is "
		    "given by a path with a '/' or ending in .conf)",
		    name);
		return NULL;
	}
	if ((size_t)snprintf(path, size, "%s/%s.conf", cfg->suite_dir, name) >= size) {
		nm_error_set(err, NM_ERR_BAD_ARGS, "suite path too long");
		return NULL;
	}
	if ((text = regfile_read(path, SUITE_TEXT_MAX, &len, err)) == NULL && err != NULL &&
	    err->code == NM_ERR_NOT_FOUND)
		nm_error_set(err, NM_ERR_NOT_FOUND,
		             "no suite \"%s\" (no %s; suite_dir in netmetricsd.conf sets the "
		             "directory, a suite file is also taken by path)",
		             name, path);
	return text;
}

/* suite-run: parse, check every run, start the first. */
static int
cmd_suite_run(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	struct test_cred cred = {true, control_client_uid(ctx->client),
	                         control_client_gid(ctx->client),
	                         clientfd_new(control_client_fd(ctx->client))};
	const char *text = json_get_string(args, "text", NULL);
	const char *file = json_get_string(args, "file", "(text)");
	char path[4096], *owned = NULL;
	struct suite_until until = {json_get_double(args, "until_ci", 0),
	                            (unsigned)json_get_int(args, "max_iterations", 0), ""};

	snprintf(until.figure, sizeof(until.figure), "%s", json_get_string(args, "figure", ""));
	if (until.pct <= 0 && (json_object_object_get_ex(args, "max_iterations", NULL) ||
	                       json_object_object_get_ex(args, "figure", NULL))) {
		clientfd_unref(cred.peer);
		return nm_error_set(err, NM_ERR_BAD_ARGS,
		                    "--max-iterations and --figure go with --until-ci PCT");
	}

	if (text == NULL) {
		if (!json_object_object_get_ex(args, "file", NULL)) {
			clientfd_unref(cred.peer);
			return nm_error_set(err, NM_ERR_BAD_ARGS,
			                    "give the suite: a FILE (the client sends its text) or "
			                    "the NAME of one in the suite directory");
		}
		if ((owned = suite_by_name(&ctx->d->config, file, path, sizeof(path), err)) ==
		    NULL) {
			clientfd_unref(cred.peer);
			return -1;
		}
		text = owned;
		file = path;
	}
	*result =
	    suite_run(ctx->d->suites, text, file, json_get_string(args, "name", NULL),
	              json_get_bool(args, "dry_run", false), json_object_object_get(args, "peer"),
	              &cred, until.pct > 0 ? &until : NULL, err);
	clientfd_unref(cred.peer); /* the suite took its own reference */
	free(owned);
	return *result != NULL ? 0 : -1;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_suite_run_entry = {.proto = "suite-run", .exec = cmd_suite_run};
