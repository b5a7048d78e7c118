/* The test file as a whole: laid out with the data pattern (or zeros) before the tests,
 * and read back against the pattern under --verify. Untimed. */
#include "disk_layout.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peak_exit.h"

int disk_layout(struct disk_file *f, const struct disk_pattern *pat, bool zero,
		struct peak_bench_err *e)
{
	size_t chunk = 4u << 20;
	void *zbuf = NULL;
	bool direct = f->direct_ok && f->dio_align <= 4096;

	if (zero && posix_memalign(&zbuf, 4096, chunk) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	if (zbuf)
		memset(zbuf, 0, chunk);
	if (direct && disk_file_set_direct(f, true) != 0)
		direct = false;
	for (uint64_t off = 0; off < f->size_bytes;) {
		size_t n = f->size_bytes - off < chunk ? (size_t)(f->size_bytes - off) : chunk;
		const void *src = zero ? zbuf : (const void *)disk_pattern_at(pat, off);
		ssize_t w = pwrite(f->fd, src, n, (off_t)off);
		if (w < 0 && errno == EINTR && !disk_stop_signal())
			continue;
		if (w <= 0) {
			int err = w < 0 ? errno : EIO;
			free(zbuf);
			(void)disk_file_set_direct(f, false);
			if (disk_stop_signal())
				return peak_bench_fail(e, PEAK_EXIT_FAIL, "interrupted");
			return peak_bench_fail(e, PEAK_EXIT_FAIL, "writing %s/%s at %llu: %s",
					       f->dir_path, f->name, (unsigned long long)off,
					       strerror(err));
		}
		off += (uint64_t)w;
	}
	free(zbuf);
	(void)disk_file_set_direct(f, false);
	if (fdatasync(f->fd) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "fdatasync on %s/%s: %s", f->dir_path,
				       f->name, strerror(errno));
	return 0;
}

int disk_verify_file(struct disk_file *f, const struct disk_pattern *pat, struct peak_bench_err *e)
{
	size_t chunk = 4u << 20;
	void *buf = NULL;
	uint64_t bad, fsum = 0, wsum = 0;

	if (posix_memalign(&buf, 4096, chunk) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory for --verify");
	(void)disk_file_drop_cache(f);
	int rc = disk_pattern_verify_fd(pat, f->fd, f->size_bytes, buf, chunk, &bad, &fsum, &wsum);
	free(buf);
	if (rc == 0 && fsum == wsum)
		return 0;
	if (bad == UINT64_MAX && rc != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "--verify: reading %s/%s back: %s",
				       f->dir_path, f->name, strerror(errno));
	return peak_bench_fail(
	    e, PEAK_EXIT_FAIL,
	    "--verify: %s/%s differs from what was written at offset %llu (checksum %016llx, "
	    "expected %016llx)",
	    f->dir_path, f->name, (unsigned long long)bad, (unsigned long long)fsum,
	    (unsigned long long)wsum);
}
