/* clientfd.c: a counted copy of a client's socket (clientfd.h). */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "clientfd.h"
#include "xmalloc.h"

struct clientfd {
	int refs;
	int fd;
};

struct clientfd *
clientfd_new(int fd)
{
	struct clientfd *cf;
	int copy;

	if (fd < 0 || (copy = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return NULL;
	cf = xcalloc(1, sizeof(*cf));
	cf->refs = 1;
	cf->fd = copy;
	return cf;
}

struct clientfd *
clientfd_ref(struct clientfd *cf)
{
	if (cf != NULL)
		cf->refs++;
	return cf;
}

void
clientfd_unref(struct clientfd *cf)
{
	if (cf == NULL || --cf->refs > 0)
		return;
	close(cf->fd);
	free(cf);
}

int
clientfd_fd(const struct clientfd *cf)
{
	return cf != NULL ? cf->fd : -1;
}
