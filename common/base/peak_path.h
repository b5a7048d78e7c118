/* Paths and messages without silent cuts: a path from the user is checked against the
 * kernel's limits where it comes in, so every buffer sized PEAK_PATH_MAX holds it whole
 * afterwards; a formatted text either fits or says that it did not. */
#ifndef PEAK_PATH_H
#define PEAK_PATH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* The longest path the kernel takes, with its NUL (Linux: 4096). A buffer of this size
 * holds any path that passed peak_path_check. */
#define PEAK_PATH_MAX PATH_MAX
/* A message that may quote one such path: the path and a sentence about it. */
#define PEAK_MSG_MAX (PEAK_PATH_MAX + 512)

/* 0 when the kernel can take path: shorter than PATH_MAX and no component longer than
 * NAME_MAX. Else -1 with the reason (without the path itself) in err. An empty path is
 * left to the caller. */
int peak_path_check(const char *path, char *err, size_t err_len);

/* snprintf that tells: true when the whole text fit in buf; false when it did not, and
 * then buf ends in "..." so that a cut message shows it was cut. A caller that stores a
 * path, a key or a value treats false as an error. */
bool peak_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
