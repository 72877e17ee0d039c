/* writer.c: one worker thread with a queue of jobs; finished jobs go back to the loop
 * through an eventfd (libevent's own thread support is not needed: the thread never
 * touches the event base). */
#include <errno.h>
#include <event2/event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "error.h"
#include "log.h"
#include "writer.h"
#include "xmalloc.h"

/* How much nicer the writer thread is than the loop (which keeps the daemon's). */
#define WRITER_NICE 10

struct job {
	writer_job_fn fn;
	writer_done_fn done;
	void *arg;
	struct job *next;
};

/* A queue of jobs, first in first out. */
struct jobq {
	struct job *head, *tail;
};

struct writer {
	pthread_t thread;
	bool threaded;
	pthread_mutex_t mu;
	pthread_cond_t cv_todo, cv_done;
	struct jobq todo, done; /* under mu */
	bool stop;              /* under mu */
	unsigned pending;       /* loop thread only */
	int efd;
	struct event *ev;
};

/* Append j to q. */
static void
jobq_push(struct jobq *q, struct job *j)
{
	j->next = NULL;
	if (q->tail != NULL)
		q->tail->next = j;
	else
		q->head = j;
	q->tail = j;
}

/* Take the first job of q, NULL when empty. */
static struct job *
jobq_pop(struct jobq *q)
{
	struct job *j = q->head;

	if (j != NULL && (q->head = j->next) == NULL)
		q->tail = NULL;
	return j;
}

/* The thread: run jobs until told to stop with nothing left to do. */
static void *
writer_main(void *arg)
{
	struct writer *w = arg;
	uint64_t one = 1;
	id_t tid = (id_t)syscall(SYS_gettid);
	int nice;

	/* Background work: on a busy host the loop's sampling goes first (Linux: a thread's
	 * own nice value). */
	errno = 0;
	nice = getpriority(PRIO_PROCESS, tid);
	if (errno == 0 &&
	    setpriority(PRIO_PROCESS, tid, nice + WRITER_NICE > 19 ? 19 : nice + WRITER_NICE) < 0)
		log_debug("writer: cannot lower the thread's priority: %s", strerror(errno));
	pthread_mutex_lock(&w->mu);
	for (;;) {
		struct job *j;
		while (w->todo.head == NULL && !w->stop)
			pthread_cond_wait(&w->cv_todo, &w->mu);
		if ((j = jobq_pop(&w->todo)) == NULL)
			break;
		pthread_mutex_unlock(&w->mu);
		j->fn(j->arg);
		pthread_mutex_lock(&w->mu);
		jobq_push(&w->done, j);
		pthread_cond_broadcast(&w->cv_done);
		/* The loop reads the counter: one write per batch would do; one per job is
		 * simpler and as cheap. */
		if (write(w->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			log_warn("writer: eventfd");
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Run the done functions of finished jobs (loop thread). */
static void
run_done(struct writer *w)
{
	for (;;) {
		struct job *j;
		pthread_mutex_lock(&w->mu);
		j = jobq_pop(&w->done);
		pthread_mutex_unlock(&w->mu);
		if (j == NULL)
			return;
		w->pending--;
		if (j->done != NULL)
			j->done(j->arg);
		free(j);
	}
}

/* The eventfd is readable: jobs have finished. */
static void
done_cb(evutil_socket_t fd, short what, void *arg)
{
	uint64_t n;

	(void)what;
	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		log_warn("writer: eventfd");
	run_done(arg);
}

/* Start the thread (or not, with base NULL). */
struct writer *
writer_new(struct event_base *base, struct nm_error *err)
{
	struct writer *w = xcalloc(1, sizeof(*w));
	int rc;

	w->efd = -1;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv_todo, NULL);
	pthread_cond_init(&w->cv_done, NULL);
	if (base == NULL)
		return w;
	if ((w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
		nm_error_set(err, NM_ERR_FAILED, "writer: eventfd: %s", strerror(errno));
		writer_free(w);
		return NULL;
	}
	w->ev = event_new(base, w->efd, EV_READ | EV_PERSIST, done_cb, w);
	event_add(w->ev, NULL);
	if ((rc = pthread_create(&w->thread, NULL, writer_main, w)) != 0) {
		nm_error_set(err, NM_ERR_FAILED, "writer: thread: %s", strerror(rc));
		writer_free(w);
		return NULL;
	}
	w->threaded = true;
	return w;
}

/* Stop the thread; jobs queued still run. */
void
writer_inline(struct writer *w)
{
	if (!w->threaded)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_signal(&w->cv_todo);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	w->threaded = false;
	run_done(w);
}

/* Stop, then free. */
void
writer_free(struct writer *w)
{
	if (w == NULL)
		return;
	writer_inline(w);
	if (w->ev != NULL)
		event_free(w->ev);
	if (w->efd >= 0)
		close(w->efd);
	pthread_cond_destroy(&w->cv_todo);
	pthread_cond_destroy(&w->cv_done);
	pthread_mutex_destroy(&w->mu);
	free(w);
}

/* Queue a job (or run it now without a thread). */
void
writer_submit(struct writer *w, writer_job_fn fn, writer_done_fn done, void *arg)
{
	struct job *j;

	if (!w->threaded) {
		fn(arg);
		if (done != NULL)
			done(arg);
		return;
	}
	j = xcalloc(1, sizeof(*j));
	j->fn = fn;
	j->done = done;
	j->arg = arg;
	w->pending++;
	pthread_mutex_lock(&w->mu);
	jobq_push(&w->todo, j);
	pthread_cond_signal(&w->cv_todo);
	pthread_mutex_unlock(&w->mu);
}

/* Wait for every job submitted so far, then run the done functions. */
void
writer_drain(struct writer *w)
{
	if (!w->threaded)
		return;
	while (w->pending > 0) {
		pthread_mutex_lock(&w->mu);
		while (w->done.head == NULL)
			pthread_cond_wait(&w->cv_done, &w->mu);
		pthread_mutex_unlock(&w->mu);
		/* A done function may submit more: pending counts those too. */
		run_done(w);
	}
}

/* Submitted, not yet done. */
unsigned
writer_pending(const struct writer *w)
{
	return w->pending;
}
