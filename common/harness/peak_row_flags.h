/* What the machine's readings say about a row: the flags the harness writes from the
 * machine floor's values (hypervisor steal over the point, a published baseline beside a
 * published peak). The machine returns the values; only the harness touches rows. */
#ifndef PEAK_ROW_FLAGS_H
#define PEAK_ROW_FLAGS_H

#include <stdbool.h>

#include "peak_peak.h"
#include "peak_result.h"
#include "peak_steal.h"

/* Flag r "steal" when sh.all_pct is above PEAK_STEAL_FLAG_PCT, with "steal_pct=P" (busy_pct
 * rounded up to a tenth: results compare takes it as the most the steal can explain);
 * returns whether it flagged. */
bool peak_row_flag_steal(struct peak_result *r, struct peak_steal_share sh);

/* The flag item of_baseline=R on a row whose peak is a published burst or maximum: R its
 * mean over the published baseline (3 decimals); nothing when either is unknown. */
void peak_row_flag_of_baseline(struct peak_result *r, const struct peak_value *baseline);

#endif
