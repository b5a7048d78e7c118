/* Steal windows over /proc/stat (see peak_steal.h). */
#include "peak_steal.h"

#include <math.h>

#include "peak_sysinfo.h"

void peak_steal_begin_at(struct peak_steal *s, const char *root)
{
	s->root = root;
	s->ok = peak_sysinfo_ticks_idle(root, &s->steal, &s->total, &s->idle) == 0;
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

struct peak_steal_share peak_steal_share(const struct peak_steal *s)
{
	struct peak_steal_share sh = {NAN, NAN};
	uint64_t steal, total, idle;
	if (!s->ok || peak_sysinfo_ticks_idle(s->root, &steal, &total, &idle) != 0)
		return sh;
	sh.all_pct = peak_steal_pct_between(s->steal, s->total, steal, total);
	/* Busy ticks: the window's total less its idle and iowait (steal itself included: the
	 * CPU wanted to run then); an idle counter that went back is unknown. */
	if (isnan(sh.all_pct) || idle < s->idle || total - s->total <= idle - s->idle)
		return sh;
	uint64_t busy = (total - s->total) - (idle - s->idle);
	sh.busy_pct = 100.0 * (double)(steal - s->steal) / (double)busy;
	return sh;
}

double peak_steal_pct(const struct peak_steal *s)
{
	return peak_steal_share(s).all_pct;
}
