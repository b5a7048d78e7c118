/* The diagnosis of a row above its peak (peak_diagnose.h). */
#include "peak_diagnose.h"

#include <math.h>
#include <stdio.h>

static int worst_input(const struct peak_input *in, size_t n, double *ratio)
{
	int worst = -1;
	*ratio = 1;
	for (size_t i = 0; i < n; i++) {
		if (!(in[i].used > 0) || !(in[i].measured > 0) || !isfinite(in[i].measured))
			continue;
		double r = in[i].used / in[i].measured;
		if (r < 1 - PEAK_DIAGNOSE_TOL && r < *ratio) {
			*ratio = r;
			worst = (int)i;
		}
	}
	return worst;
}

bool peak_diagnose(const struct peak_input *in, size_t n, char *out, size_t len)
{
	double ratio;
	int w = worst_input(in, n, &ratio);
	if (len)
		out[0] = '\0';
	if (w < 0 || !len)
		return false;
	(void)snprintf(out, len, "cause=%s_%.2f", in[w].name, ratio);
	return true;
}

int peak_diagnose_row(struct peak_result *r, const struct peak_input *in, size_t n)
{
	char cause[64];
	if (!peak_result_has_flag(r->flags, "above_peak") ||
	    !peak_diagnose(in, n, cause, sizeof cause))
		return -1;
	peak_result_flag(r, cause);
	double ratio;
	return worst_input(in, n, &ratio);
}
