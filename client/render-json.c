/* render-json.c: --json output: the daemon's result object, unchanged, one line. */
#include "ctl.h"
#include "jsonutil.h"

void
render_json(json_object *result, FILE *fp)
{
	size_t len;
	const char *s = json_to_line(result, &len);

	fwrite(s, 1, len, fp);
	fputc('\n', fp);
}
