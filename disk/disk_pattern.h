/* The file's content: incompressible random bytes that are a function of the absolute
 * offset only (byte x holds buf[x mod period]), so any block written at any size from any
 * thread is a pointer into one shared buffer (no copy in the timed loop), and any block
 * read back can be checked against the same buffer. */
#ifndef DISK_PATTERN_H
#define DISK_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "peak_team.h"

struct disk_pattern {
	uint8_t *buf; /* period + span bytes, page aligned; the source of every write */
	size_t len;
	struct peak_mem mem; /* buf's memory and the page kind it got */
	size_t period;       /* multiple of 4096; no repeat within it (at most 64 MiB) */
	uint64_t seed;
};

#define DISK_PATTERN_MAX_PERIOD (64ull << 20)

/* Build the pattern for a file of file_bytes read or written in pieces of at most
 * span_bytes, on the pages page_flags ask for (PEAK_PAGES_*), or with shared_fd >= 0 on
 * that file's pages from offset 0, mapped shared (--buffer-dir's write.buf, grown to fit).
 * The data repeats every min(file_bytes, max_period) bytes (max_period 0:
 * DISK_PATTERN_MAX_PERIOD; a multiple of 4096). Returns 0, or -1 (out of memory, or a
 * required page kind not available: the reason is in why). */
int disk_pattern_init(struct disk_pattern *p, uint64_t seed, uint64_t file_bytes,
		      uint64_t span_bytes, uint64_t max_period, unsigned page_flags,
		      int shared_fd, char *why, size_t why_len);
void disk_pattern_free(struct disk_pattern *p);

/* The bytes the file holds at offset (valid for up to span_bytes). */
static inline const uint8_t *disk_pattern_at(const struct disk_pattern *p, uint64_t offset)
{
	return p->buf + offset % p->period;
}

/* True when data equals the pattern at offset. */
bool disk_pattern_matches(const struct disk_pattern *p, uint64_t offset, const void *data,
			  size_t len);

/* 64-bit checksum (word-wise multiply-xor; order-sensitive). Start from DISK_CHECKSUM_INIT
 * and chain: pieces split at multiples of 8 bytes give the same sum as the whole. */
#define DISK_CHECKSUM_INIT 0xcbf29ce484222325ull
uint64_t disk_checksum(uint64_t seed, const void *data, size_t len);

/* Read [0, size) of fd back in chunk_bytes pieces into scratch (aligned for O_DIRECT)
 * and compare with the pattern. Returns 0 when identical; -1 with *bad_offset set at the
 * first difference (or errno set and *bad_offset = UINT64_MAX on a read error).
 * *file_sum and *want_sum get the checksums of what was read and what was expected. */
int disk_pattern_verify_fd(const struct disk_pattern *p, int fd, uint64_t size, void *scratch,
			   size_t chunk_bytes, uint64_t *bad_offset, uint64_t *file_sum,
			   uint64_t *want_sum);

#endif
