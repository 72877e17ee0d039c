/* regfile.h: the one way to open and read a file of the state or profile directory: only
 * a regular file, never through a symbolic link, never blocking (a FIFO or a device is
 * refused, not opened for good), with a size cap. */
#ifndef NM_REGFILE_H
#define NM_REGFILE_H

#include <stddef.h>

struct nm_error;

/* Open path read-only, close-on-exec, when it is a regular file of at most max bytes. A
 * symbolic link as its last component is refused, not followed (O_NOFOLLOW); a FIFO or a
 * device is opened O_NONBLOCK, so the open never waits, and refused after fstat. The fd
 * (still O_NONBLOCK, which changes nothing for a regular file), or -1 with err:
 * NM_ERR_NOT_FOUND when it does not exist, NM_ERR_TOO_LONG when bigger than max,
 * NM_ERR_FAILED otherwise. */
int regfile_open(const char *path, size_t max, struct nm_error *err);
/* Read all of such a file: a NUL-terminated buffer (the caller frees) of *len bytes, or
 * NULL with err as regfile_open's (NM_ERR_TOO_LONG also when it grew past max). */
char *regfile_read(const char *path, size_t max, size_t *len, struct nm_error *err);

#endif
