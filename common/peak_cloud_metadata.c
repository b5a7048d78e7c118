/* The metadata client: one HTTP exchange with the provider's link-local service, plain
 * sockets, within PEAK_CLOUD_METADATA_BUDGET_MS (peak_cloud.h). */
#include <stdio.h>

#include "peak_cloud.h"
#include "peak_path.h"

int peak_cloud_metadata(struct peak_cloud *c, char *why, size_t why_len)
{
	(void)peak_fmt(why, why_len, "no metadata client for %s yet", c->provider);
	return -1;
}
