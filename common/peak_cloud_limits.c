/* Finding an instance type's published limits: its own row, or its family's per-vCPU rule
 * (GCE: egress scales with vCPUs up to a cap). */
#include <string.h>

#include "peak_cloud_limits.h"

static bool provider_matches(const char *want, const char *have)
{
	return !want || !want[0] || strcmp(want, "unknown") == 0 || strcmp(want, have) == 0;
}

/* A rule row's prefix ("n2-*" without its '*') starts the type. */
static bool rule_matches(const char *rule, const char *type)
{
	size_t n = strlen(rule);
	return n > 1 && rule[n - 1] == '*' && strncmp(rule, type, n - 1) == 0;
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
	/* The longest matching prefix wins: "n2d-*" before "n2-*". */
	const struct peak_cloud_limits *rule = NULL;
	for (size_t i = 0; i < n; i++)
		if (provider_matches(provider, table[i].provider) &&
		    rule_matches(table[i].instance_type, instance_type) &&
		    (!rule || strlen(table[i].instance_type) > strlen(rule->instance_type)))
			rule = &table[i];
	if (!rule)
		return false;
	if (out) {
		*out = *rule;
		out->instance_type = instance_type;
		out->vcpus = vcpus ? (double)vcpus : -1;
		/* The rule gives one figure, the maximum egress: no burst above a baseline. */
		double gbps = -1;
		if (vcpus && rule->net_per_vcpu_gbps > 0) {
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
	return peak_cloud_limits_find_in(peak_cloud_limits_table, peak_cloud_limits_count,
					 provider, instance_type, vcpus, out);
}
