/* strutil.h: small string tests the daemon's layers share. */
#ifndef NM_STRUTIL_H
#define NM_STRUTIL_H

#include <stdbool.h>

/* Whether s ends with suffix (every string ends with ""). */
bool strutil_ends_with(const char *s, const char *suffix);

#endif
