/* Steal windows over /proc/stat (see peak_steal.h). */
#include "peak_steal.h"

#include <math.h>

#include "peak_sysinfo.h"

void peak_steal_begin_at(struct peak_steal *s, const char *root)
{
	s->root = root;
	s->ok = peak_sysinfo_ticks(root, &s->steal, &s->total) == 0;
}

void peak_steal_begin(struct peak_steal *s)
{
	peak_steal_begin_at(s, "");
}

double peak_steal_pct_between(uint64_t steal0, uint64_t total0, uint64_t steal1, uint64_t total1)
{
	if (total1 <= total0 || steal1 < steal0)
		return NAN;
	return 100.0 * (double)(steal1 - steal0) / (double)(total1 - total0);
}

double peak_steal_pct(const struct peak_steal *s)
{
	uint64_t steal, total;
	if (!s->ok || peak_sysinfo_ticks(s->root, &steal, &total) != 0)
		return NAN;
	return peak_steal_pct_between(s->steal, s->total, steal, total);
}

bool peak_steal_flag(double pct, struct peak_result *r)
{
	if (!(pct > PEAK_STEAL_FLAG_PCT)) /* NAN: unknown, not flagged */
		return false;
	peak_result_flag(r, "steal");
	return true;
}
