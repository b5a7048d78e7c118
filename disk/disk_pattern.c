/* The file's content: random bytes keyed by absolute offset, and the read-back check. */
#define _GNU_SOURCE
#include "disk_pattern.h"

#include "disk_buffer_dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

int disk_pattern_init(struct disk_pattern *p, uint64_t seed, uint64_t file_bytes,
		      uint64_t span_bytes, uint64_t max_period, unsigned page_flags,
		      int shared_fd, char *why, size_t why_len)
{
	uint64_t period = (file_bytes + 4095) & ~4095ull;

	memset(p, 0, sizeof(*p));
	if (max_period == 0 || max_period > DISK_PATTERN_MAX_PERIOD)
		max_period = DISK_PATTERN_MAX_PERIOD;
	if (period > max_period)
		period = (max_period + 4095) & ~4095ull;
	if (period == 0)
		period = 4096;
	span_bytes = (span_bytes + 4095) & ~4095ull;
	size_t len = (size_t)(period + span_bytes);
	if (shared_fd >= 0) {
		if (disk_buffer_dir_reserve(shared_fd, len) != 0 ||
		    peak_team_map_shared(&p->mem, shared_fd, 0, len) != 0) {
			if (why && why_len)
				snprintf(why, why_len, "--buffer-dir: %s", strerror(errno));
			return -1;
		}
	} else if (peak_team_alloc_pages(&p->mem, len, page_flags, why, why_len) != 0) {
		return -1;
	}
	p->buf = p->mem.ptr;
	p->len = len;
	p->period = (size_t)period;
	p->seed = seed;
	uint64_t state = seed;
	uint64_t *w = p->mem.ptr;
	for (size_t i = 0; i < p->period / 8; i++)
		w[i] = splitmix64(&state);
	/* The tail repeats the head so a span starting anywhere in the period is contiguous. */
	for (size_t done = p->period; done < len;) {
		size_t n = len - done < p->period ? len - done : p->period;
		memcpy(p->buf + done, p->buf, n);
		done += n;
	}
	return 0;
}

void disk_pattern_free(struct disk_pattern *p)
{
	(void)peak_team_free_pages(&p->mem);
	p->buf = NULL;
}

bool disk_pattern_matches(const struct disk_pattern *p, uint64_t offset, const void *data,
			  size_t len)
{
	while (len > 0) {
		size_t in_period = p->period - (size_t)(offset % p->period);
		size_t n = len < in_period ? len : in_period;
		if (memcmp(data, disk_pattern_at(p, offset), n) != 0)
			return false;
		data = (const uint8_t *)data + n;
		offset += n;
		len -= n;
	}
	return true;
}

uint64_t disk_checksum(uint64_t seed, const void *data, size_t len)
{
	const uint8_t *b = data;
	uint64_t h = seed;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0x100000001B3ull;
		h ^= h >> 29;
	}
	for (; i < len; i++)
		h = (h ^ b[i]) * 0x100000001B3ull;
	return h;
}

int disk_pattern_verify_fd(const struct disk_pattern *p, int fd, uint64_t size, void *scratch,
			   size_t chunk_bytes, uint64_t *bad_offset, uint64_t *file_sum,
			   uint64_t *want_sum)
{
	uint64_t fs = DISK_CHECKSUM_INIT, ws = DISK_CHECKSUM_INIT;
	int rc = 0;

	*bad_offset = UINT64_MAX;
	for (uint64_t off = 0; off < size;) {
		size_t want = size - off < chunk_bytes ? (size_t)(size - off) : chunk_bytes;
		ssize_t got = pread(fd, scratch, want, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got == 0)
				errno = EIO;
			*bad_offset = UINT64_MAX;
			return -1;
		}
		size_t n = (size_t)got;
		fs = disk_checksum(fs, scratch, n);
		for (size_t done = 0; done < n;) {
			size_t in_period = p->period - (size_t)((off + done) % p->period);
			size_t m = n - done < in_period ? n - done : in_period;
			ws = disk_checksum(ws, disk_pattern_at(p, off + done), m);
			done += m;
		}
		if (rc == 0 && !disk_pattern_matches(p, off, scratch, n)) {
			const uint8_t *s = scratch;
			size_t i = 0;
			while (i < n && s[i] == *disk_pattern_at(p, off + i))
				i++;
			*bad_offset = off + i;
			rc = -1;
		}
		off += n;
	}
	if (file_sum)
		*file_sum = fs;
	if (want_sum)
		*want_sum = ws;
	return rc;
}
