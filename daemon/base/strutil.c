/* strutil.c: small string tests the daemon's layers share, kept in one place rather than
 * copied into each file that needs one. */
#include <string.h>

#include "strutil.h"

/* Whether s ends with suffix: the state directory's walk (statefile.c: "*.json", its
 * temporary files) and the Prometheus families (prom.c: lnstat's "*entries"). */
bool
strutil_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}
