/* psync engine: one pread/pwrite at a time (queue depth 1), like fio's psync. */
#define _GNU_SOURCE
#include "disk_engine.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

struct psync_state {
	int fd;
	bool done;
	struct disk_completion c;
};

static bool psync_available(char *reason, size_t reason_len)
{
	(void)reason;
	(void)reason_len;
	return true;
}

static int psync_init(void **state, int fd, unsigned depth)
{
	(void)depth;
	struct psync_state *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = fd;
	*state = s;
	return 0;
}

/* The whole transfer, resuming after a short count (buffered I/O may return one). */
static int64_t transfer(int fd, enum disk_dir dir, void *buf, size_t len, uint64_t offset)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n =
		    dir == DISK_READ
			? pread(fd, (char *)buf + done, len - done, (off_t)(offset + done))
			: pwrite(fd, (const char *)buf + done, len - done, (off_t)(offset + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (int64_t)done;
}

static int psync_queue(void *state, enum disk_dir dir, void *buf, size_t len, uint64_t offset,
		       unsigned tag)
{
	struct psync_state *s = state;
	if (s->done)
		return -EBUSY;
	s->c.tag = tag;
	s->c.res = transfer(s->fd, dir, buf, len, offset);
	s->done = true;
	return 0;
}

static int psync_submit_wait(void *state, unsigned min_done)
{
	(void)state;
	(void)min_done;
	return 0;
}

static unsigned psync_reap(void *state, struct disk_completion *out, unsigned max)
{
	struct psync_state *s = state;
	if (!s->done || max == 0)
		return 0;
	out[0] = s->c;
	s->done = false;
	return 1;
}

static void psync_exit(void *state)
{
	free(state);
}

const struct disk_engine_ops disk_engine_psync = {
    .name = "psync",
    .max_depth = 1,
    .available = psync_available,
    .init = psync_init,
    .queue = psync_queue,
    .submit_wait = psync_submit_wait,
    .reap = psync_reap,
    .exit = psync_exit,
};
