/* Reading a file of /proc or /sys under an injectable root: the one primitive that every
 * peak_sysinfo reader (the files, the counters, peak_peak) builds on. It depends on no
 * other part of libpeak, so the readers above it never need each other. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "peak_path.h"
#include "peak_sysinfo.h"

bool peak_sysinfo_path(char *out, size_t len, const char *root, const char *path)
{
	if (peak_fmt(out, len, "%s%s", root ? root : "", path))
		return true;
	errno = ENAMETOOLONG; /* as the kernel would say: the caller fails the read */
	return false;
}

long peak_sysinfo_read_bytes(const char *root, const char *path, void *buf, size_t len)
{
	char full[PEAK_PATH_MAX];
	if (!peak_sysinfo_path(full, sizeof full, root, path))
		return -1;
	FILE *f = fopen(full, "rb");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, len, f);
	int bad = ferror(f);
	(void)fclose(f);
	return bad ? -1 : (long)n;
}

int peak_sysinfo_read(const char *root, const char *path, char *buf, size_t len)
{
	if (len == 0)
		return -1;
	long n = peak_sysinfo_read_bytes(root, path, buf, len - 1);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		buf[--n] = '\0';
	return 0;
}
