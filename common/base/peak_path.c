/* Paths checked against the kernel's limits; formatting that reports a cut. */
#include "peak_path.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int peak_path_check(const char *path, char *err, size_t err_len)
{
	size_t len = strlen(path);
	if (len >= PEAK_PATH_MAX) {
		(void)peak_fmt(err, err_len,
			       "path of %zu bytes is longer than the kernel takes (PATH_MAX %d, "
			       "with its NUL)",
			       len, PEAK_PATH_MAX);
		return -1;
	}
	for (const char *p = path; *p;) {
		size_t part = strcspn(p, "/");
		if (part > NAME_MAX) {
			(void)peak_fmt(err, err_len,
				       "a name in the path has %zu bytes, more than the kernel takes "
				       "(NAME_MAX %d): '%.40s...'",
				       part, NAME_MAX, p);
			return -1;
		}
		p += part;
		p += strspn(p, "/");
	}
	return 0;
}

bool peak_fmt(char *buf, size_t len, const char *fmt, ...)
{
	if (len == 0)
		return false;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < len)
		return true;
	if (n < 0)
		buf[0] = '\0';
	/* Mark the cut where there is room for it. */
	if (len > 4)
		memcpy(buf + len - 4, "...", 4);
	return false;
}
