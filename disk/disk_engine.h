/* I/O engines: one ops struct each (psync, io_uring), filled with designated initializers.
 * The core queues I/Os tagged with a slot number, submits, and reaps completions; an
 * engine only moves bytes. Everything an engine needs lives in its per-thread state. */
#ifndef DISK_ENGINE_H
#define DISK_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum disk_dir { DISK_READ, DISK_WRITE };

struct disk_completion {
	unsigned tag; /* the slot given to queue() */
	int64_t res;  /* bytes transferred, or -errno */
};

struct disk_engine_ops {
	const char *name;
	unsigned max_depth; /* 1 for synchronous engines */
	/* True when the engine can run here; otherwise a reason ("built without liburing"). */
	bool (*available)(char *reason, size_t reason_len);
	/* Per-thread state for `depth` I/Os in flight on fd. Returns 0 or -errno. */
	int (*init)(void **state, int fd, unsigned depth);
	/* Queue one I/O (a synchronous engine performs it here). Returns 0 or -errno. */
	int (*queue)(void *state, enum disk_dir dir, void *buf, size_t len, uint64_t offset,
		     unsigned tag);
	/* Submit what is queued; wait until at least min_done completions are ready.
	 * Returns 0 or -errno (-EINTR when a signal arrived: the caller checks its flag). */
	int (*submit_wait)(void *state, unsigned min_done);
	/* Take up to max ready completions without blocking; returns how many. */
	unsigned (*reap)(void *state, struct disk_completion *out, unsigned max);
	void (*exit)(void *state);
};

extern const struct disk_engine_ops disk_engine_psync;
/* Always defined: when liburing was not found at build time, available() says so. */
extern const struct disk_engine_ops disk_engine_uring;

#endif
