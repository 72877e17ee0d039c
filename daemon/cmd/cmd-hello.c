/* cmd-hello.c: protocol version, daemon version and the command table. */
#include "cmd.h"
#include "jsonutil.h"

static int
cmd_hello(struct cmd_ctx *ctx, json_object *args, json_object **result, struct nm_error *err)
{
	json_object *o = json_object_new_object();

	(void)ctx;
	(void)args;
	(void)err;
	json_add_string(o, "daemon", "netmetricsd");
	json_add_int(o, "protocol", PROTO_VERSION);
	json_add_string(o, "version", NM_VERSION);
	json_object_object_add(o, "commands", proto_commands_json());
	*result = o;
	return 0;
}

/* Its entry in the command table (built from these lines, tools/gen-cmd-table). */
const struct cmd_entry cmd_hello_entry = {.proto = "hello", .exec = cmd_hello};
