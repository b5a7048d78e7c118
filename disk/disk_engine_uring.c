/* io_uring engine through liburing: up to `depth` reads or writes in flight per thread,
 * submitted in batches and reaped in batches (fio's io_uring engine, default options). */
#define _GNU_SOURCE
#include "disk_engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <liburing.h>

struct uring_state {
	struct io_uring ring;
	int fd;
	unsigned queued;
};

static bool uring_available(char *reason, size_t reason_len)
{
	struct io_uring ring;
	int rc = io_uring_queue_init(2, &ring, 0);
	if (rc < 0) {
		snprintf(reason, reason_len,
			 "io_uring_setup failed (%s): the kernel disables io_uring", strerror(-rc));
		return false;
	}
	io_uring_queue_exit(&ring);
	return true;
}

static int uring_init(void **state, int fd, unsigned depth)
{
	struct uring_state *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	/* The flags fio's io_uring engine sets: one thread creates, submits and reaps, so the
	 * kernel may skip completion IPIs and run task work only when we wait for events
	 * (submit_wait always does). Kernels before 6.1 refuse them: retry without. */
	unsigned flags =
	    IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	int rc = io_uring_queue_init(depth, &s->ring, flags);
	if (rc == -EINVAL)
		rc = io_uring_queue_init(depth, &s->ring, IORING_SETUP_COOP_TASKRUN);
	if (rc == -EINVAL)
		rc = io_uring_queue_init(depth, &s->ring, 0);
	if (rc < 0) {
		free(s);
		return rc;
	}
	s->fd = fd;
	*state = s;
	return 0;
}

static int uring_queue(void *state, enum disk_dir dir, void *buf, size_t len, uint64_t offset,
		       unsigned tag)
{
	struct uring_state *s = state;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
	if (!sqe)
		return -EBUSY;
	if (dir == DISK_READ)
		io_uring_prep_read(sqe, s->fd, buf, (unsigned)len, offset);
	else
		io_uring_prep_write(sqe, s->fd, buf, (unsigned)len, offset);
	io_uring_sqe_set_data64(sqe, tag);
	s->queued++;
	return 0;
}

static int uring_submit_wait(void *state, unsigned min_done)
{
	struct uring_state *s = state;
	int rc = io_uring_submit_and_wait(&s->ring, min_done);
	if (rc < 0)
		return rc;
	s->queued = 0;
	return 0;
}

static unsigned uring_reap(void *state, struct disk_completion *out, unsigned max)
{
	struct uring_state *s = state;
	struct io_uring_cqe *cqes[64];
	unsigned total = 0;
	while (total < max) {
		unsigned want = max - total < 64 ? max - total : 64;
		unsigned n = io_uring_peek_batch_cqe(&s->ring, cqes, want);
		if (n == 0)
			break;
		for (unsigned i = 0; i < n; i++) {
			out[total + i].tag = (unsigned)io_uring_cqe_get_data64(cqes[i]);
			out[total + i].res = cqes[i]->res;
		}
		io_uring_cq_advance(&s->ring, n);
		total += n;
	}
	return total;
}

static void uring_exit(void *state)
{
	struct uring_state *s = state;
	io_uring_queue_exit(&s->ring);
	free(s);
}

const struct disk_engine_ops disk_engine_uring = {
    .name = "uring",
    .max_depth = 4096,
    .available = uring_available,
    .init = uring_init,
    .queue = uring_queue,
    .submit_wait = uring_submit_wait,
    .reap = uring_reap,
    .exit = uring_exit,
};
