/* One diskbench point: per-thread setup (engine, buffers, precomputed offsets), a warm-up,
 * timed repetitions with fdatasync for writes, per-I/O latency histograms. */
#define _GNU_SOURCE
#include "disk_job.h"
#include "disk_buffer_dir.h"
#include "disk_layout.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peak_exit.h"
#include "peak_time.h"

/* disk_thread.err besides -errno. */
#define ERR_DATA  1 /* a short transfer or data that is not the pattern */
#define ERR_PAGES 2 /* the buffer's required page kind could not be had */

struct disk_thread {
	uint64_t region_start;
	uint64_t region_blocks;
	uint64_t *offsets; /* random tests: block indices, precomputed */
	uint64_t cursor;   /* I/Os issued in earlier repetitions: the next one goes on from here */
	size_t noffsets;
	void *engine_state;
	uint8_t *bufs; /* depth read buffers of slot_bytes each, in mem */
	struct peak_mem mem;
	char why[256]; /* why the buffer pages asked for were not had */
	size_t slot_bytes;
	uint64_t *slot_start_ns;
	uint64_t *slot_offset;
	bool *slot_read; /* the slot's last completed I/O was a read */
	unsigned *free_slots;
	struct disk_completion *done;
	struct peak_hist *hist;
	/* One repetition's outcome. */
	uint64_t bytes, ops, lat_sum_ns;
	int err; /* -errno, ERR_DATA (short transfer, bad data) or ERR_PAGES */
	uint64_t err_offset;
};

struct disk_run {
	const struct disk_point *pt;
	struct disk_file *file;
	const struct disk_pattern *pat;
	struct disk_thread *th;
	unsigned depth;
	/* Stop when (issued >= min_ops and elapsed >= min_ns) or issued >= max_ops. */
	uint64_t min_ops, min_ns, max_ops;
	bool poisoned; /* the file was zeroed (--verify on a write test) */
};

static size_t slot_bytes_for(uint64_t block_bytes)
{
	return (size_t)((block_bytes + 4095) & ~4095ull);
}

uint64_t disk_point_buffer_bytes(const struct disk_point *pt)
{
	return (uint64_t)pt->depth * slot_bytes_for(pt->block_bytes);
}

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Random block order, outside every timed region: a permutation (each block once per
 * pass) when the region is small enough, else uniform draws with replacement. */
static int make_offsets(struct disk_thread *t, uint64_t seed)
{
	uint64_t state = seed;
	size_t n = t->region_blocks <= DISK_PASS_MAX_BLOCKS ? (size_t)t->region_blocks
							    : (size_t)DISK_PASS_MAX_BLOCKS;
	t->offsets = malloc(n * sizeof(*t->offsets));
	if (!t->offsets)
		return -ENOMEM;
	t->noffsets = n;
	if (t->region_blocks <= DISK_PASS_MAX_BLOCKS) {
		for (size_t i = 0; i < n; i++)
			t->offsets[i] = i;
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = (size_t)(splitmix64(&state) % (i + 1));
			uint64_t tmp = t->offsets[i];
			t->offsets[i] = t->offsets[j];
			t->offsets[j] = tmp;
		}
	} else {
		for (size_t i = 0; i < n; i++)
			t->offsets[i] = splitmix64(&state) % t->region_blocks;
	}
	return 0;
}

static void thread_free(struct disk_run *run, struct disk_thread *t)
{
	if (t->engine_state)
		run->pt->engine->exit(t->engine_state);
	(void)peak_team_free_pages(&t->mem);
	free(t->offsets);
	free(t->slot_start_ns);
	free(t->slot_offset);
	free(t->slot_read);
	free(t->free_slots);
	free(t->done);
	free(t->hist);
	memset(t, 0, sizeof(*t));
}

/* Team function: each worker builds its own engine state and buffers (first touch). */
static int thread_setup(void *arg, unsigned idx, unsigned n)
{
	struct disk_run *run = arg;
	struct disk_thread *t = &run->th[idx];
	const struct disk_point *pt = run->pt;
	unsigned d = run->depth;
	(void)n;

	t->slot_bytes = slot_bytes_for(pt->block_bytes);
	if (pt->read_buffer_fd >= 0) {
		if (peak_team_map_shared(&t->mem, pt->read_buffer_fd,
					 (uint64_t)idx * t->slot_bytes * d, t->slot_bytes * d) != 0) {
			t->err = -errno;
			return 1;
		}
	} else if (peak_team_alloc_pages(&t->mem, t->slot_bytes * d, pt->buffer_pages, t->why,
					 sizeof(t->why)) != 0) {
		t->err = (pt->buffer_pages & PEAK_PAGES_REQUIRED) ? ERR_PAGES : -ENOMEM;
		return 1;
	}
	t->bufs = t->mem.ptr;
	t->slot_start_ns = calloc(d, sizeof(uint64_t));
	t->slot_offset = calloc(d, sizeof(uint64_t));
	t->slot_read = calloc(d, sizeof(bool));
	t->free_slots = calloc(d, sizeof(unsigned));
	t->done = calloc(d, sizeof(*t->done));
	t->hist = malloc(sizeof(*t->hist));
	if (!t->bufs || !t->slot_start_ns || !t->slot_offset || !t->slot_read || !t->free_slots ||
	    !t->done || !t->hist) {
		t->err = -ENOMEM;
		return 1;
	}
	peak_hist_init(t->hist);
	if (disk_test_random(pt->test) &&
	    make_offsets(t, pt->seed ^ (0x1000193ull * (idx + 1))) != 0) {
		t->err = -ENOMEM;
		return 1;
	}
	int rc = pt->engine->init(&t->engine_state, run->file->fd, d);
	if (rc < 0) {
		t->engine_state = NULL;
		t->err = rc;
		return 1;
	}
	return 0;
}

/* Offset and direction of the k-th I/O of a thread. seq_rw reads block i, then writes it. */
static uint64_t op_offset(const struct disk_run *run, const struct disk_thread *t, uint64_t k,
			  enum disk_dir *dir)
{
	uint64_t block;
	*dir = disk_test_writes(run->pt->test) ? DISK_WRITE : DISK_READ;
	switch (run->pt->test) {
	case DISK_SEQ_RW:
		block = (k / 2) % t->region_blocks;
		*dir = (k & 1) ? DISK_WRITE : DISK_READ;
		break;
	case DISK_RAND_READ:
	case DISK_RAND_WRITE:
		block = t->offsets[k % t->noffsets];
		break;
	default:
		block = k % t->region_blocks;
		break;
	}
	return t->region_start + block * run->pt->block_bytes;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/* Complete what the engine has finished: latency, bytes, and the slot back to the pool. */
static int reap_some(struct disk_run *run, struct disk_thread *t, unsigned *nfree)
{
	unsigned got = run->pt->engine->reap(t->engine_state, t->done, run->depth);
	uint64_t now = peak_time_now_ns();
	for (unsigned i = 0; i < got; i++) {
		unsigned s = t->done[i].tag;
		if (t->done[i].res != (int64_t)run->pt->block_bytes) {
			t->err = t->done[i].res < 0 ? (int)t->done[i].res : ERR_DATA;
			t->err_offset = t->slot_offset[s];
		}
		uint64_t lat = now - t->slot_start_ns[s];
		peak_hist_record(t->hist, lat);
		t->lat_sum_ns += lat;
		t->bytes += run->pt->block_bytes;
		t->ops++;
		t->free_slots[(*nfree)++] = s;
	}
	return (int)got;
}

/* Team function: one repetition of one thread. Keeps up to depth I/Os in flight. */
static int thread_run(void *arg, unsigned idx, unsigned n)
{
	struct disk_run *run = arg;
	struct disk_thread *t = &run->th[idx];
	const struct disk_engine_ops *eng = run->pt->engine;
	size_t len = (size_t)run->pt->block_bytes;
	unsigned nfree = run->depth, inflight = 0, unsubmitted = 0;
	unsigned batch = run->pt->submit_batch > 1 ? run->pt->submit_batch : 1;
	uint64_t issued = 0, begin = peak_time_now_ns();
	bool stop = false;
	(void)n;

	t->bytes = t->ops = t->lat_sum_ns = 0;
	for (unsigned s = 0; s < run->depth; s++) {
		t->free_slots[s] = s;
		t->slot_read[s] = false;
	}
	while (!t->err) {
		while (!stop && nfree > 0) {
			uint64_t now = peak_time_now_ns();
			if ((issued >= run->min_ops && now - begin >= run->min_ns) ||
			    issued >= run->max_ops || disk_stop_signal()) {
				stop = true;
				break;
			}
			enum disk_dir dir;
			uint64_t off = op_offset(run, t, t->cursor + issued, &dir);
			unsigned s = t->free_slots[--nfree];
			void *buf = dir == DISK_READ ? t->bufs + (size_t)s * t->slot_bytes
						     : (void *)disk_pattern_at(run->pat, off);
			t->slot_start_ns[s] = now;
			t->slot_offset[s] = off;
			t->slot_read[s] = dir == DISK_READ;
			int rc = eng->queue(t->engine_state, dir, buf, len, off, s);
			if (rc < 0) {
				t->err = rc;
				t->err_offset = off;
				break;
			}
			inflight++;
			issued++;
			/* fio's default: each I/O goes to the device as soon as it is queued. Refilling
			 * every free slot first and submitting them together sends bursts; on a
			 * virtio disk that cost about 15% of IOPS at depth 32 (docs/benchmarks). */
			if (++unsubmitted >= batch) {
				rc = eng->submit_wait(t->engine_state, 0);
				if (rc < 0 && rc != -EINTR && rc != -EAGAIN) {
					t->err = rc;
					break;
				}
				unsubmitted = 0;
			}
		}
		if (inflight == 0)
			break;
		int rc = eng->submit_wait(t->engine_state, 1);
		unsubmitted = 0;
		if (rc == -EINTR || rc == -EAGAIN)
			continue;
		if (rc < 0) {
			t->err = rc;
			break;
		}
		inflight -= (unsigned)reap_some(run, t, &nfree);
	}
	while (inflight > 0 && t->err) { /* drain what is still in flight before leaving */
		if (eng->submit_wait(t->engine_state, 1) < 0 && !disk_stop_signal())
			break;
		inflight -= (unsigned)reap_some(run, t, &nfree);
	}
	/* A time-based repetition that stops mid-pass leaves the rest for the next one, so no
	 * repetition re-reads blocks an earlier one just read (a cache below the guest, as on
	 * a VM host, would serve those). */
	t->cursor += issued;
	if (t->err)
		return 1;
	/* Reads are checked outside the timing: every slot's last block against the pattern. */
	for (unsigned s = 0; s < run->depth; s++) {
		if (!t->slot_read[s])
			continue;
		const uint8_t *b = t->bufs + (size_t)s * t->slot_bytes;
		if (!disk_pattern_matches(run->pat, t->slot_offset[s], b, len) &&
		    !(run->poisoned && all_zero(b, len))) {
			t->err = ERR_DATA;
			t->err_offset = t->slot_offset[s];
			return 1;
		}
	}
	return 0;
}


/* Turn the first failing thread into one line. */
static int thread_error(const struct disk_run *run, struct peak_bench_err *e)
{
	for (unsigned i = 0; i < run->pt->threads; i++) {
		const struct disk_thread *t = &run->th[i];
		if (!t->err)
			continue;
		if (t->err == ERR_PAGES)
			return peak_bench_fail(
			    e, PEAK_EXIT_UNSUPPORTED,
			    "%s: the %zu-byte I/O buffer on the pages --buffer-pages requires: %s",
			    disk_test_name(run->pt->test), t->slot_bytes * run->depth, t->why);
		if (t->err == ERR_DATA)
			return peak_bench_fail(
			    e, PEAK_EXIT_FAIL,
			    "%s: data read at offset %llu of %s/%s is not what was written",
			    disk_test_name(run->pt->test), (unsigned long long)t->err_offset,
			    run->file->dir_path, run->file->name);
		return peak_bench_fail(e, PEAK_EXIT_FAIL,
				       "%s (%s engine): I/O error at offset %llu: %s",
				       disk_test_name(run->pt->test), run->pt->engine->name,
				       (unsigned long long)t->err_offset, strerror(-t->err));
	}
	return peak_bench_fail(e, PEAK_EXIT_FAIL, "%s: a worker thread failed",
			       disk_test_name(run->pt->test));
}

/* Page cache out of the picture before each repetition; access-pattern hint for buffered I/O. */
static int prepare_rep(struct disk_run *run, struct peak_bench_err *e)
{
	if (run->pt->test == DISK_SEQ_WRITE_NEW && disk_file_release_blocks(run->file) != 0)
		return peak_bench_fail(
		    e, errno == EOPNOTSUPP ? PEAK_EXIT_UNSUPPORTED : PEAK_EXIT_FAIL,
		    "seq_write_new: cannot release the blocks of %s/%s (fallocate "
		    "PUNCH_HOLE): %s",
		    run->file->dir_path, run->file->name, strerror(errno));
	if (disk_file_drop_cache(run->file) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "fdatasync/posix_fadvise on %s/%s: %s",
				       run->file->dir_path, run->file->name, strerror(errno));
	(void)posix_fadvise(run->file->fd, 0, 0,
			    disk_test_random(run->pt->test) ? POSIX_FADV_RANDOM
							    : POSIX_FADV_SEQUENTIAL);
	return 0;
}

/* One repetition: the team's I/O plus, for writes, the fdatasync (--sync fsync: fsync) that
 * makes it durable. */
static int one_rep(struct disk_run *run, struct peak_team *team, uint64_t *elapsed_ns,
		   struct peak_bench_err *e)
{
	uint64_t team_ns = 0;
	if (prepare_rep(run, e) != 0)
		return -1;
	if (peak_team_run(team, thread_run, run, &team_ns, NULL) != 0)
		return thread_error(run, e);
	if (disk_test_writes(run->pt->test)) {
		uint64_t t0 = peak_time_now_ns();
		int rc = run->pt->fsync ? fsync(run->file->fd) : fdatasync(run->file->fd);
		if (rc != 0)
			return peak_bench_fail(e, PEAK_EXIT_FAIL, "%s on %s/%s: %s",
					       run->pt->fsync ? "fsync" : "fdatasync",
					       run->file->dir_path, run->file->name,
					       strerror(errno));
		team_ns += peak_time_now_ns() - t0;
	}
	*elapsed_ns = team_ns ? team_ns : 1;
	return 0;
}

/* --verify on a write test: every block of the threads' regions was written (or, for a
 * time-based run that cannot cover them all, is either still zero or written). */
static int check_written(struct disk_run *run, uint64_t covered, bool partial,
			 struct peak_bench_err *e)
{
	uint64_t bs = run->pt->block_bytes, matched = 0;
	size_t chunk = bs > (4u << 20) ? slot_bytes_for(bs) : (4u << 20);
	void *buf = NULL;
	int rc = 0;

	if (posix_memalign(&buf, 4096, chunk) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory for --verify");
	size_t step = (size_t)(chunk / bs * bs);
	for (uint64_t off = 0; off < covered && rc == 0; off += step) {
		size_t want = covered - off < step ? (size_t)(covered - off) : step;
		ssize_t got = pread(run->file->fd, buf, want, (off_t)off);
		if (got != (ssize_t)want) {
			rc = peak_bench_fail(
			    e, PEAK_EXIT_FAIL, "--verify: reading %s/%s back failed at %llu: %s",
			    run->file->dir_path, run->file->name, (unsigned long long)off,
			    got < 0 ? strerror(errno) : "short read");
			break;
		}
		for (size_t b = 0; b < want; b += bs) {
			const uint8_t *p = (const uint8_t *)buf + b;
			if (disk_pattern_matches(run->pat, off + b, p, (size_t)bs)) {
				matched++;
			} else if (!partial || !all_zero(p, (size_t)bs)) {
				rc = peak_bench_fail(
				    e, PEAK_EXIT_FAIL,
				    "--verify: %s wrote wrong data at offset %llu (%s engine)",
				    disk_test_name(run->pt->test), (unsigned long long)(off + b),
				    run->pt->engine->name);
				break;
			}
		}
	}
	if (rc == 0 && matched == 0)
		rc = peak_bench_fail(e, PEAK_EXIT_FAIL,
				     "--verify: %s wrote nothing that reads back (%s engine)",
				     disk_test_name(run->pt->test), run->pt->engine->name);
	free(buf);
	return rc;
}

static void collect_rep(struct disk_run *run, uint64_t elapsed_ns, struct disk_point_result *out)
{
	uint64_t bytes = 0, ops = 0, lat = 0;
	for (unsigned i = 0; i < run->pt->threads; i++) {
		bytes += run->th[i].bytes;
		ops += run->th[i].ops;
		lat += run->th[i].lat_sum_ns;
	}
	size_t r = out->nreps++;
	out->mb_per_s[r] = (double)bytes * 1e3 / (double)elapsed_ns;
	out->iops[r] = (double)ops * 1e9 / (double)elapsed_ns;
	out->lat_us[r] = ops ? (double)lat / (double)ops / 1e3 : NAN;
}

struct disk_job {
	struct disk_run run;
	struct peak_team *team;
	struct disk_point_result out;
	uint64_t pass; /* I/Os of one pass over a thread's region */
	bool merged;   /* the threads' histograms are in out.hist */
};

/* Stop rules of a measured repetition: one pass at least and --min-time at least, or
 * exactly --runtime (or --min-time) for a time-based one. */
static void measured_limits(struct disk_job *j)
{
	struct disk_run *run = &j->run;
	const struct disk_point *pt = run->pt;
	run->max_ops = UINT64_MAX;
	if (j->out.time_based) {
		double s = pt->runtime_s > 0 ? pt->runtime_s : pt->min_time_s;
		run->min_ops = 1;
		run->min_ns = (uint64_t)(s * 1e9);
	} else {
		run->min_ops = j->pass;
		run->min_ns = (uint64_t)(pt->min_time_s * 1e9);
	}
	/* A first write is one pass at most: a second would overwrite what the first wrote. */
	if (pt->test == DISK_SEQ_WRITE_NEW)
		run->max_ops = j->pass;
}

int disk_job_warmup(struct disk_job *j, struct peak_bench_err *e)
{
	struct disk_run *run = &j->run;
	uint64_t elapsed;
	run->min_ops = 1;
	run->min_ns = (uint64_t)(run->pt->min_time_s * 1e9);
	run->max_ops = j->pass;
	int rc = one_rep(run, j->team, &elapsed, e);
	for (unsigned i = 0; i < run->pt->threads; i++)
		peak_hist_init(run->th[i].hist);
	measured_limits(j);
	return rc;
}

int disk_job_rep(struct disk_job *j, double *mb_per_s, struct peak_bench_err *e)
{
	uint64_t elapsed;
	if (j->out.nreps >= DISK_MAX_REPS)
		return peak_bench_fail(e, PEAK_EXIT_USAGE, "more than %d repetitions",
				       DISK_MAX_REPS);
	if (one_rep(&j->run, j->team, &elapsed, e) != 0)
		return -1;
	collect_rep(&j->run, elapsed, &j->out);
	*mb_per_s = j->out.mb_per_s[j->out.nreps - 1];
	return 0;
}

int disk_job_check(struct disk_job *j, struct peak_bench_err *e)
{
	struct disk_run *run = &j->run;
	if (!run->poisoned || disk_stop_signal())
		return 0;
	if (check_written(run, j->out.region_bytes * run->pt->threads, j->out.time_based, e) != 0)
		return -1;
	return disk_layout(run->file, run->pat, false, e);
}

const struct disk_point_result *disk_job_result(struct disk_job *j)
{
	if (!j->merged)
		for (unsigned i = 0; i < j->run.pt->threads; i++)
			peak_hist_merge(&j->out.hist, j->run.th[i].hist);
	j->merged = true;
	return &j->out;
}

void disk_job_close(struct disk_job *j)
{
	if (!j)
		return;
	if (j->run.th) {
		for (unsigned i = 0; i < j->run.pt->threads; i++)
			thread_free(&j->run, &j->run.th[i]);
		free(j->run.th);
	}
	(void)disk_file_set_direct(j->run.file, false);
	free(j);
}

int disk_job_open(struct disk_job **jp, const struct disk_point *pt, struct disk_file *f,
		  const struct disk_pattern *pat, struct peak_team *team, struct peak_bench_err *e)
{
	uint64_t region = f->size_bytes / pt->threads / pt->block_bytes * pt->block_bytes;
	*jp = NULL;
	if (region == 0)
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "--block %llu is larger than the file's share per thread",
				       (unsigned long long)pt->block_bytes);
	struct disk_job *j = calloc(1, sizeof(*j));
	if (!j)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	struct disk_run *run = &j->run;
	struct disk_point_result *out = &j->out;
	run->pt = pt;
	run->file = f;
	run->pat = pat;
	j->team = team;
	peak_hist_init(&out->hist);
	run->depth = pt->depth < pt->engine->max_depth ? pt->depth : pt->engine->max_depth;
	if (run->depth == 0)
		run->depth = 1;
	out->depth_used = run->depth;
	out->region_bytes = region;
	out->time_based = pt->runtime_s > 0 || region / pt->block_bytes > DISK_PASS_MAX_BLOCKS;
	run->th = calloc(pt->threads, sizeof(*run->th));
	if (!run->th) {
		free(j);
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	}
	for (unsigned i = 0; i < pt->threads; i++) {
		run->th[i].region_start = (uint64_t)i * region;
		run->th[i].region_blocks = region / pt->block_bytes;
	}
	j->pass = run->th[0].region_blocks * (pt->test == DISK_SEQ_RW ? 2 : 1);
	measured_limits(j);
	bool poison = pt->verify_writes && disk_test_writes(pt->test);
	/* Reads are always checked (each slot's last block); writes only under --verify. */
	out->verified = !disk_test_writes(pt->test) || poison;
	if (poison && disk_layout(f, pat, true, e) != 0)
		goto fail;
	run->poisoned = poison;
	if (disk_file_set_direct(f, pt->direct) != 0) {
		peak_bench_fail(e, PEAK_EXIT_UNSUPPORTED, "cannot %s O_DIRECT on %s: %s",
				pt->direct ? "set" : "clear", f->dir_path, strerror(errno));
		goto fail;
	}
	/* --buffer-dir: read.buf holds every thread's buffers, one after the other */
	if (pt->read_buffer_fd >= 0 &&
	    disk_buffer_dir_reserve(pt->read_buffer_fd,
				    (uint64_t)pt->threads * run->depth *
					slot_bytes_for(pt->block_bytes)) != 0) {
		peak_bench_fail(e, PEAK_EXIT_FAIL, "--buffer-dir: growing %s: %s",
				DISK_BUFFER_DIR_READ, strerror(errno));
		goto fail;
	}
	if (peak_team_run(team, thread_setup, run, NULL, NULL) != 0) {
		thread_error(run, e);
		goto fail;
	}
	for (unsigned i = 0; i < pt->threads; i++)
		if (disk_test_reads(pt->test))
			out->pages_seen |= 1u << run->th[i].mem.pages;
	if (disk_test_writes(pt->test))
		out->pages_seen |= 1u << pat->mem.pages;
	*jp = j;
	return 0;
fail:
	disk_job_close(j);
	return -1;
}
