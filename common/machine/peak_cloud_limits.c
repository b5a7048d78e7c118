/* Finding an instance type's published limits: its own row, else the most specific pattern
 * row (GCE's "e2-*-2": every e2 shape of 2 vCPUs), whose per-vCPU rule (egress scaling
 * with vCPUs up to a cap) is computed from the vCPU count. */
#include <string.h>

#include "peak_cloud_limits.h"

static bool provider_matches(const char *want, const char *have)
{
	return !want || !want[0] || strcmp(want, "unknown") == 0 || strcmp(want, have) == 0;
}

/* A pattern ("e2-*-2", "n2-*": one '*' for any run of characters) matches the type: its
 * part before the '*' starts it and its part after ends it. */
static bool pattern_matches(const char *pattern, const char *type)
{
	const char *star = strchr(pattern, '*');
	if (!star)
		return false;
	size_t head = (size_t)(star - pattern), tail = strlen(star + 1), n = strlen(type);
	return n >= head + tail && strncmp(pattern, type, head) == 0 &&
	       strcmp(type + n - tail, star + 1) == 0;
}

bool peak_cloud_limits_find_in(const struct peak_cloud_limits *table, size_t n,
			       const char *provider, const char *instance_type, unsigned vcpus,
			       struct peak_cloud_limits *out)
{
	if (!instance_type || !instance_type[0])
		return false;
	for (size_t i = 0; i < n; i++)
		if (provider_matches(provider, table[i].provider) &&
		    strcmp(table[i].instance_type, instance_type) == 0) {
			if (out)
				*out = table[i];
			return true;
		}
	/* The most specific pattern wins (the longest): "e2-*-16" before a rule "e2-*". */
	const struct peak_cloud_limits *rule = NULL;
	for (size_t i = 0; i < n; i++)
		if (provider_matches(provider, table[i].provider) &&
		    pattern_matches(table[i].instance_type, instance_type) &&
		    (!rule || strlen(table[i].instance_type) > strlen(rule->instance_type)))
			rule = &table[i];
	if (!rule)
		return false;
	if (out) {
		*out = *rule;
		out->instance_type = instance_type;
		if (!(rule->net_per_vcpu_gbps > 0))
			return true; /* a pattern row: its own figures */
		out->vcpus = vcpus ? (double)vcpus : -1;
		/* The rule gives one figure, the maximum egress: no burst above a baseline. */
		double gbps = -1;
		if (vcpus) {
			gbps = rule->net_per_vcpu_gbps * vcpus;
			if (rule->net_cap_gbps > 0 && gbps > rule->net_cap_gbps)
				gbps = rule->net_cap_gbps;
		}
		out->net_baseline_gbps = gbps;
		out->net_burst_gbps = gbps;
	}
	return true;
}

bool peak_cloud_limits_find(const char *provider, const char *instance_type, unsigned vcpus,
			    struct peak_cloud_limits *out)
{
	return peak_cloud_limits_find_in(peak_cloud_limits_table, peak_cloud_limits_count, provider,
					 instance_type, vcpus, out);
}
