/* diskbench --sustain: the I/O loop keeps --iodepth I/Os in flight through the engine's ops
 * and adds what each completion moved to the sampler's counter, so the series holds what
 * the device did in each second (O_DIRECT: no page cache between; a write job syncs once,
 * at the end, outside the series). */
#define _GNU_SOURCE
#include "disk_sustain.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disk_job.h"
#include "peak_exit.h"
#include "peak_sustain.h"

#define SUSTAIN_DEFAULT_BLOCK (1ull << 20)
#define SUSTAIN_MAX_DEPTH     256u

int disk_sustain_check(struct disk_opts *o, struct peak_bench_err *e)
{
	if (o->tests.n > 1 && o->tests.n == DISK_SEQ_WRITE_NEW + 1) { /* every test: the default */
		o->tests.v[0] = "seq_read";
		o->tests.n = 1;
	}
	if (o->tests.n != 1 ||
	    (strcmp(o->tests.v[0], "seq_read") != 0 && strcmp(o->tests.v[0], "seq_write") != 0))
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "--sustain runs one job: --test seq_read or seq_write");
	if (o->blocks.n == 0)
		o->blocks.v[o->blocks.n++] = SUSTAIN_DEFAULT_BLOCK;
	if (o->blocks.n > 1 || o->common.threads.n > 1 || o->common.threads.v[0] != 1 ||
	    o->engines.n > 1)
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "--sustain runs one job: one --block, one --engine, "
				       "--threads 1 (--iodepth sets what is in flight)");
	return 0;
}

struct loop {
	const struct disk_engine_ops *eng;
	void *st;
	enum disk_dir dir;
	const struct disk_pattern *pat;
	uint8_t *bufs; /* reads: one block per slot */
	uint64_t block, file_bytes, next;
	struct peak_sustain *s;
	double duration_s;
};

static int queue_next(struct loop *l, unsigned tag)
{
	uint64_t off = l->next;
	l->next = off + 2 * l->block > l->file_bytes ? 0 : off + l->block;
	/* writes go straight from the pattern, as the other write tests' do */
	void *buf = l->dir == DISK_WRITE ? (void *)disk_pattern_at(l->pat, off)
					 : l->bufs + (size_t)tag * l->block;
	return l->eng->queue(l->st, l->dir, buf, (size_t)l->block, off, tag);
}

/* Keep depth I/Os in flight until the duration is over. 0 or -errno. */
static int io_loop(struct loop *l, unsigned depth)
{
	struct disk_completion done[SUSTAIN_MAX_DEPTH];
	unsigned inflight = 0;
	int rc = 0;
	for (unsigned t = 0; t < depth && rc == 0; t++, inflight++)
		rc = queue_next(l, t);
	bool stop = rc != 0;
	while (inflight > 0) {
		int w = l->eng->submit_wait(l->st, 1);
		if (w < 0 && w != -EINTR) {
			rc = rc ? rc : w;
			break;
		}
		stop |= peak_sustain_over(l->s, l->duration_s) || disk_stop_signal() != 0;
		unsigned n = l->eng->reap(l->st, done, depth);
		for (unsigned i = 0; i < n; i++) {
			inflight--;
			if (done[i].res < 0) {
				rc = rc ? rc : (int)done[i].res;
				stop = true;
				continue;
			}
			atomic_fetch_add_explicit(&l->s->bytes, (uint64_t)done[i].res,
						  memory_order_relaxed);
			if (!stop) {
				int q = queue_next(l, done[i].tag);
				if (q != 0) {
					rc = q;
					stop = true;
				} else {
					inflight++;
				}
			}
		}
	}
	return rc;
}

static int emit(const struct disk_opts *o, const struct disk_engine_ops *eng, bool direct,
		const struct peak_sustain *s, double peak_mbps, struct peak_output *out,
		struct peak_context *ctx, struct peak_bench_err *e)
{
	struct peak_result tmpl;
	char test[48], item[48];
	snprintf(test, sizeof test, "%s_sustain", o->tests.v[0]);
	peak_result_init(&tmpl, "disk", test, "", "throughput", "MB/s");
	tmpl.threads = 1;
	tmpl.block_bytes = o->blocks.v[0];
	tmpl.has_block = true;
	tmpl.theoretical = peak_mbps;
	snprintf(item, sizeof item, "engine=%s", eng->name);
	peak_result_flag(&tmpl, item);
	if (!direct)
		peak_result_flag(&tmpl, "buffered");
	peak_context_set_num(ctx, "disk.sustain_s", o->sustain_s);
	return peak_sustain_record(s, 1e-6, &tmpl, "disk.sustain_knee", out, ctx, e);
}

int disk_sustain_run(const struct disk_opts *o, struct disk_file *f, const struct disk_pattern *pat,
		     const struct disk_engine_ops *eng, double peak_mbps, struct peak_output *out,
		     struct peak_context *ctx, struct peak_bench_err *e)
{
	uint64_t block = o->blocks.v[0];
	unsigned depth = (unsigned)o->iodepth;
	if (depth > eng->max_depth)
		depth = eng->max_depth;
	if (depth > SUSTAIN_MAX_DEPTH)
		depth = SUSTAIN_MAX_DEPTH;
	if (f->size_bytes < 2 * block)
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "--sustain: the file must hold two blocks (--file-size)");
	bool direct = strcmp(o->direct, "off") != 0 && f->direct_ok && block % f->dio_align == 0;
	if (strcmp(o->direct, "on") == 0 && !direct)
		return peak_bench_fail(e, PEAK_EXIT_UNSUPPORTED,
				       "--direct on: --block %llu cannot go through O_DIRECT here",
				       (unsigned long long)block);
	struct loop l = {.eng = eng,
			 .pat = pat,
			 .block = block,
			 .file_bytes = f->size_bytes,
			 .dir = strcmp(o->tests.v[0], "seq_write") == 0 ? DISK_WRITE : DISK_READ,
			 .duration_s = o->sustain_s};
	if (posix_memalign((void **)&l.bufs, 4096, (size_t)(block * depth)) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory for the I/O buffers");
	int rc = direct ? disk_file_set_direct(f, true) : disk_file_drop_cache(f);
	if (rc == 0)
		rc = eng->init(&l.st, f->fd, depth);
	if (rc != 0) {
		free(l.bufs);
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "--sustain: %s", strerror(errno));
	}
	struct peak_sustain s;
	l.s = &s;
	if (peak_sustain_start(&s, o->sustain_s) == 0) {
		rc = io_loop(&l, depth);
		peak_sustain_stop(&s);
	} else {
		rc = -errno;
	}
	eng->exit(l.st);
	if (rc == 0 && l.dir == DISK_WRITE && fdatasync(f->fd) != 0)
		rc = -errno;
	(void)disk_file_set_direct(f, false);
	free(l.bufs);
	if (rc != 0) {
		peak_sustain_free(&s);
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "--sustain: %s I/O: %s", eng->name,
				       strerror(-rc));
	}
	rc = emit(o, eng, direct, &s, peak_mbps, out, ctx, e);
	peak_sustain_free(&s);
	return rc;
}
