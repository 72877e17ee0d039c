/* base64.h: bytes as base64 text (RFC 4648, with padding), for binary data inside JSON. */
#ifndef NM_BASE64_H
#define NM_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* The base64 text of buf[0..len) (new, NUL-terminated). */
char *base64_encode(const uint8_t *buf, size_t len);

#endif
