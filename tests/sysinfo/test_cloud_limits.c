/* peak_cloud_limits and the limits as peaks (issue 35 §2-3): m5.large's row in the shipped
 * table, a type by name alone and by provider, a per-vCPU rule row (capped, and unknown with
 * no vCPU count), GCE's pattern rows and Azure's rows, an unlisted type; peak_machine_init takes
 * the published figures with source published, peaks.conf / --set first; of_baseline on a row. */
#include "peak_cmocka.h"

#include <math.h>
#include <string.h>

#include "peak_cloud_limits.h"
#include "peak_peak.h"
#include "peak_row_flags.h"
#include "peak_sysinfo.h"

#define FULL PEAK_FIXTURES_DIR "/sysroot-full"

static void test_m5_large(void **state)
{
	(void)state;
	struct peak_cloud_limits l;
	assert_true(peak_cloud_limits_find("aws", "m5.large", 0, &l));
	assert_double_equal(l.net_baseline_gbps, 0.75, 0);
	assert_double_equal(l.net_burst_gbps, 10, 0);
	assert_double_equal(l.disk_baseline_mbps, 81.25, 0);
	assert_double_equal(l.disk_max_mbps, 593.75, 0);
	assert_double_equal(l.disk_baseline_iops, 3600, 0);
	assert_double_equal(l.disk_max_iops, 18750, 0);
	assert_double_equal(l.burst_minutes, 30, 0);
	assert_non_null(strstr(l.source, "aws-ec2-user-guide"));
	/* by type alone, and "unknown" provider as any */
	assert_true(peak_cloud_limits_find(NULL, "m5.large", 0, NULL));
	assert_true(peak_cloud_limits_find("unknown", "m5.large", 0, NULL));
	/* another provider's name does not match */
	assert_false(peak_cloud_limits_find("gce", "m5.large", 0, NULL));
	assert_false(peak_cloud_limits_find("aws", "x9z.huge", 0, NULL));
	assert_false(peak_cloud_limits_find("aws", "", 0, NULL));
}

/* Every shipped row names its source and date and gives some limit. */
static void test_every_row(void **state)
{
	(void)state;
	assert_true(peak_cloud_limits_count > 0);
	for (unsigned i = 0; i < peak_cloud_limits_count; i++) {
		const struct peak_cloud_limits *l = &peak_cloud_limits_table[i];
		assert_true(l->source[0] != '\0');
		assert_int_equal(strlen(l->date_read), 10);
		assert_true(l->net_baseline_gbps > 0 || l->net_burst_gbps > 0 ||
			    l->disk_max_mbps > 0 || l->net_per_vcpu_gbps > 0);
	}
}

static void test_rule(void **state)
{
	(void)state;
	const struct peak_cloud_limits table[] = {
	    {"gce", "n2-*", -1, -1, -1, 2, 32, -1, -1, -1, -1, -1, "rule-n2", "2026-01-01"},
	    {"gce", "n2d-*", -1, -1, -1, 2, 16, -1, -1, -1, -1, -1, "rule-n2d", "2026-01-01"},
	    {"gce", "n2-standard-2", 2, 10, 10, -1, -1, -1, -1, -1, -1, -1, "row", "2026-01-01"},
	};
	struct peak_cloud_limits l;
	/* a listed type: its own row before the rule */
	assert_true(peak_cloud_limits_find_in(table, 3, "gce", "n2-standard-2", 2, &l));
	assert_string_equal(l.source, "row");
	/* 4 vCPUs x 2 = 8 Gbit/s, under the cap */
	assert_true(peak_cloud_limits_find_in(table, 3, "gce", "n2-standard-4", 4, &l));
	assert_double_equal(l.net_burst_gbps, 8, 0);
	assert_double_equal(l.net_baseline_gbps, 8, 0);
	assert_string_equal(l.instance_type, "n2-standard-4");
	/* 32 vCPUs: the cap */
	assert_true(peak_cloud_limits_find_in(table, 3, "gce", "n2-highmem-32", 32, &l));
	assert_double_equal(l.net_burst_gbps, 32, 0);
	/* the longer prefix wins: n2d's cap */
	assert_true(peak_cloud_limits_find_in(table, 3, "gce", "n2d-standard-16", 16, &l));
	assert_string_equal(l.source, "rule-n2d");
	assert_double_equal(l.net_burst_gbps, 16, 0);
	/* no vCPU count: the rule is found, its figure unknown */
	assert_true(peak_cloud_limits_find_in(table, 3, "gce", "n2-standard-8", 0, &l));
	assert_true(l.net_burst_gbps < 0);
	assert_false(peak_cloud_limits_find_in(table, 3, "gce", "e2-small", 2, &l));
}

/* The shipped GCE rows by vCPU count ("e2-*-2"), and Azure's by name. */
static void test_patterns(void **state)
{
	(void)state;
	struct peak_cloud_limits l;
	assert_true(peak_cloud_limits_find("gce", "e2-standard-2", 2, &l));
	assert_double_equal(l.net_burst_gbps, 4, 0);
	assert_string_equal(l.instance_type, "e2-standard-2");
	assert_true(peak_cloud_limits_find("gce", "n2-highmem-16", 16, &l));
	assert_double_equal(l.net_burst_gbps, 32, 0);
	assert_true(peak_cloud_limits_find("gce", "c3-standard-4", 4, &l));
	assert_double_equal(l.net_burst_gbps, 23, 0);
	assert_true(peak_cloud_limits_find("gce", "c3-standard-44", 44, &l)); /* not "-4" */
	assert_double_equal(l.net_burst_gbps, 32, 0);
	assert_false(peak_cloud_limits_find("gce", "n2-standard-3", 3, &l)); /* no such row */
	assert_true(peak_cloud_limits_find("azure", "Standard_D2s_v5", 2, &l));
	assert_double_equal(l.disk_baseline_mbps, 85, 0);
	assert_double_equal(l.disk_max_mbps, 1200, 0);
	/* a pattern never matches a shorter name than its two halves */
	const struct peak_cloud_limits table[] = {
	    {"gce", "ab-*-ba", -1, 1, 1, -1, -1, -1, -1, -1, -1, -1, "p", "2026-01-01"},
	};
	assert_false(peak_cloud_limits_find_in(table, 1, NULL, "ab-ba", 0, NULL));
	assert_true(peak_cloud_limits_find_in(table, 1, NULL, "ab--ba", 0, NULL));
}

static void machine_with(struct peak_machine *m, const char *type, const char *const *sets,
			 size_t nsets)
{
	static struct peak_sysinfo si;
	static struct peak_config cfg;
	char err[256];
	peak_sysinfo_collect(&si, FULL);
	(void)snprintf(si.cloud.provider, sizeof si.cloud.provider, "aws");
	(void)snprintf(si.cloud.instance_type, sizeof si.cloud.instance_type, "%s", type);
	peak_config_init(&cfg);
	assert_int_equal(peak_config_set(&cfg, "cpu.ghz=3", err, sizeof err), 0);
	for (size_t i = 0; i < nsets; i++)
		assert_int_equal(peak_config_set(&cfg, sets[i], err, sizeof err), 0);
	peak_machine_init(m, &si, &cfg, FULL);
}

static void test_published_peaks(void **state)
{
	(void)state;
	static struct peak_machine m;
	machine_with(&m, "m5.large", NULL, 0);
	assert_true(m.cloud.listed);
	assert_int_equal(m.disk_mbps.source, PEAK_SRC_PUBLISHED);
	assert_double_equal(m.disk_mbps.value, 593.75, 0);
	assert_int_equal(m.disk_iops.source, PEAK_SRC_PUBLISHED);
	assert_double_equal(m.disk_iops.value, 18750, 0);
	assert_int_equal(m.net_gbps.source, PEAK_SRC_PUBLISHED); /* over the link speed */
	assert_double_equal(m.net_gbps.value, 10, 0);
	assert_double_equal(m.cloud.disk_baseline_mbps.value, 81.25, 0);
	assert_double_equal(m.cloud.net_baseline_gbps.value, 0.75, 0);
	assert_string_equal(peak_source_name(m.disk_mbps.source), "published");

	static struct peak_context ctx;
	peak_context_init(&ctx);
	peak_machine_to_context(&m, &ctx);
	assert_string_equal(peak_context_get(&ctx, "cloud.limit.disk_baseline_mbps"), "81.25");
	assert_string_equal(peak_context_get(&ctx, "cloud.limit.net_burst_gbps"), "10");
	assert_string_equal(peak_context_get(&ctx, "peak.disk_mbps_source"), "published");
	assert_non_null(strstr(peak_context_get(&ctx, "cloud.limit.source"), "aws-ec2-user-guide"));
}

static void test_config_first(void **state)
{
	(void)state;
	static struct peak_machine m;
	const char *sets[] = {"disk.mbps=250", "net.gbps=25"};
	machine_with(&m, "m5.large", sets, 2);
	assert_int_equal(m.disk_mbps.source, PEAK_SRC_CONFIG);
	assert_double_equal(m.disk_mbps.value, 250, 0);
	assert_int_equal(m.net_gbps.source, PEAK_SRC_CONFIG);
	assert_double_equal(m.net_gbps.value, 25, 0);
	/* no published baseline beside a peak that is not the published one */
	assert_int_equal(m.cloud.disk_baseline_mbps.source, PEAK_SRC_UNKNOWN);
	assert_int_equal(m.cloud.net_baseline_gbps.source, PEAK_SRC_UNKNOWN);
	/* disk.iops was not set: still published */
	assert_int_equal(m.disk_iops.source, PEAK_SRC_PUBLISHED);
}

static void test_unlisted(void **state)
{
	(void)state;
	static struct peak_machine m;
	machine_with(&m, "x9z.huge", NULL, 0);
	assert_false(m.cloud.listed);
	assert_int_equal(m.disk_mbps.source, PEAK_SRC_UNKNOWN);
	static struct peak_context ctx;
	peak_context_init(&ctx);
	peak_machine_to_context(&m, &ctx);
	assert_null(peak_context_get(&ctx, "cloud.limit.source"));
	const char *w = peak_context_get(&ctx, "warnings");
	assert_non_null(w);
	assert_non_null(strstr(w, "x9z.huge is not in the published limits table"));
}

static void test_of_baseline(void **state)
{
	(void)state;
	struct peak_result r;
	const double samples[] = {40, 41, 42};
	struct peak_value base = {.value = 82, .source = PEAK_SRC_PUBLISHED};
	peak_result_init(&r, "disk", "seq_read", "psync", "throughput", "MB/s");
	peak_result_set_samples(&r, samples, 3);
	peak_row_flag_of_baseline(&r, &base);
	assert_string_equal(r.flags, "of_baseline=0.500");
	base.source = PEAK_SRC_UNKNOWN;
	peak_result_init(&r, "disk", "seq_read", "psync", "throughput", "MB/s");
	peak_result_set_samples(&r, samples, 3);
	peak_row_flag_of_baseline(&r, &base);
	assert_string_equal(r.flags, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_m5_large),
	    cmocka_unit_test(test_every_row),
	    cmocka_unit_test(test_rule),
	    cmocka_unit_test(test_patterns),
	    cmocka_unit_test(test_published_peaks),
	    cmocka_unit_test(test_config_first),
	    cmocka_unit_test(test_unlisted),
	    cmocka_unit_test(test_of_baseline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
