/* A row's flags from the machine's readings (see peak_row_flags.h). */
#include "peak_row_flags.h"

#include <math.h>
#include <stdio.h>

bool peak_row_flag_steal(struct peak_result *r, struct peak_steal_share sh)
{
	if (!(sh.all_pct > PEAK_STEAL_FLAG_PCT)) /* NAN: unknown, not flagged */
		return false;
	peak_result_flag(r, "steal");
	peak_result_flag_pct(r, "steal_pct", sh.busy_pct, true);
	return true;
}

void peak_row_flag_of_baseline(struct peak_result *r, const struct peak_value *baseline)
{
	if (baseline->source == PEAK_SRC_UNKNOWN || !(baseline->value > 0) || r->summary.n == 0 ||
	    !isfinite(r->summary.mean))
		return;
	char item[48];
	(void)snprintf(item, sizeof item, "of_baseline=%.3f", r->summary.mean / baseline->value);
	peak_result_flag(r, item);
}
