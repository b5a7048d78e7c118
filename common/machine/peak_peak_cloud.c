/* The cloud's published limits as the machine's disk and network peaks: the burst (network)
 * and the maximum (block storage) are the peaks, the baselines stand beside them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "peak_peak.h"

static void published(struct peak_value *v, double value, const char *note)
{
	v->value = value;
	v->source = PEAK_SRC_PUBLISHED;
	(void)peak_fmt(v->note, sizeof v->note, "%s", note);
}

static void unknown(struct peak_value *v)
{
	v->value = 0;
	v->source = PEAK_SRC_UNKNOWN;
	v->note[0] = '\0';
}

/* peak published from the row when it is known and peaks.conf did not set it; its
 * baseline beside it. */
static void take(struct peak_value *peak, struct peak_value *baseline, double peak_value,
		 double baseline_value, const char *what, const struct peak_machine_cloud *c)
{
	char note[PEAK_MSG_MAX];
	unknown(baseline);
	if (peak->source == PEAK_SRC_CONFIG || !(peak_value > 0))
		return;
	(void)peak_fmt(note, sizeof note, "%s of %s published (%s, read %s)", what,
		       c->instance_type, c->limits.source, c->limits.date_read);
	published(peak, peak_value, note);
	if (baseline_value > 0) {
		(void)peak_fmt(note, sizeof note, "baseline of %s published (%s, read %s)",
			       c->instance_type, c->limits.source, c->limits.date_read);
		published(baseline, baseline_value, note);
	}
}

void peak_machine_cloud_limits(struct peak_machine *m, const struct peak_cloud *cloud,
			       unsigned vcpus, const struct peak_config *cfg)
{
	struct peak_machine_cloud *c = &m->cloud;
	(void)cfg; /* peaks.conf's values are already in m (source config) */
	memset(c, 0, sizeof *c);
	if (!cloud || !cloud->instance_type[0])
		return;
	(void)peak_fmt(c->instance_type, sizeof c->instance_type, "%s", cloud->instance_type);
	c->listed = peak_cloud_limits_find(cloud->provider, c->instance_type, vcpus, &c->limits);
	if (!c->listed)
		return;
	c->limits.instance_type = c->instance_type;
	const struct peak_cloud_limits *l = &c->limits;
	take(&m->disk_mbps, &c->disk_baseline_mbps, l->disk_max_mbps, l->disk_baseline_mbps,
	     "block storage maximum", c);
	take(&m->disk_iops, &c->disk_baseline_iops, l->disk_max_iops, l->disk_baseline_iops,
	     "block storage maximum IOPS", c);
	take(&m->net_gbps, &c->net_baseline_gbps, l->net_burst_gbps, l->net_baseline_gbps,
	     "network burst", c);
}

static void limit_key(struct peak_context *ctx, const char *key, double value)
{
	if (value > 0)
		peak_context_set_num(ctx, key, value);
	else
		peak_context_set_str(ctx, key, "unknown");
}

void peak_machine_cloud_to_context(const struct peak_machine *m, struct peak_context *ctx)
{
	const struct peak_machine_cloud *c = &m->cloud;
	if (!c->instance_type[0])
		return;
	if (!c->listed) {
		char w[PEAK_MSG_MAX];
		(void)peak_fmt(w, sizeof w,
			       "instance type %s is not in the published limits table "
			       "(data/cloud_limits.tsv): its disk and network peaks stay unknown "
			       "unless peaks.conf sets them",
			       c->instance_type);
		peak_context_warn(ctx, w);
		return;
	}
	const struct peak_cloud_limits *l = &c->limits;
	limit_key(ctx, "cloud.limit.net_baseline_gbps", l->net_baseline_gbps);
	limit_key(ctx, "cloud.limit.net_burst_gbps", l->net_burst_gbps);
	limit_key(ctx, "cloud.limit.disk_baseline_mbps", l->disk_baseline_mbps);
	limit_key(ctx, "cloud.limit.disk_max_mbps", l->disk_max_mbps);
	limit_key(ctx, "cloud.limit.disk_baseline_iops", l->disk_baseline_iops);
	limit_key(ctx, "cloud.limit.disk_max_iops", l->disk_max_iops);
	limit_key(ctx, "cloud.limit.burst_minutes", l->burst_minutes);
	char src[PEAK_MSG_MAX];
	(void)peak_fmt(src, sizeof src, "%s, read %s", l->source, l->date_read);
	peak_context_set_str(ctx, "cloud.limit.source", src);
}
