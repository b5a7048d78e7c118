/* peak_cloud without a network: each cloud's DMI fixture (tests/fixtures/cloud) gives its
 * provider, and AWS Nitro its type; peaks.conf / --set's cloud keys; the run's
 * PEAKBENCH_CLOUD; a --root tree never asks a metadata service. */
#include "peak_cmocka.h"

#include <stdlib.h>
#include <string.h>

#include "peak_cloud.h"
#include "peak_context.h"
#include "peak_peak.h"
#include "peak_sysinfo.h"

#define CLOUD PEAK_FIXTURES_DIR "/cloud/"

static void expect_dmi(const char *fixture, const char *provider, const char *type,
		       const char *source)
{
	struct peak_cloud c;
	char root[512];
	(void)snprintf(root, sizeof root, CLOUD "%s", fixture);
	peak_cloud_from_dmi(&c, root);
	print_message("%s: %s '%s' %s (%s)\n", fixture, c.provider, c.instance_type, c.source,
		      c.note);
	assert_string_equal(c.provider, provider);
	assert_string_equal(c.instance_type, type);
	assert_string_equal(c.source, source);
}

static void test_dmi_each_cloud(void **state)
{
	(void)state;
	expect_dmi("aws-nitro", "aws", "m5.large", "dmi");
	expect_dmi("aws-xen", "aws", "", "dmi");
	expect_dmi("azure", "azure", "", "dmi");
	expect_dmi("gce", "gce", "", "dmi");
	expect_dmi("openstack-nova", "openstack", "", "dmi");
	expect_dmi("openstack-compute", "openstack", "", "dmi");
	expect_dmi("openstack-asset-tag", "openstack", "", "dmi");
	expect_dmi("oracle", "oracle", "", "dmi");
	expect_dmi("alibaba", "alibaba", "", "dmi");
	expect_dmi("hetzner", "hetzner", "", "dmi");
	expect_dmi("digitalocean", "digitalocean", "", "dmi");
}

static void test_dmi_no_cloud(void **state)
{
	(void)state;
	expect_dmi("bare-metal", "unknown", "", "unknown");
	expect_dmi("plain-kvm", "unknown", "", "unknown");
	expect_dmi("no-dmi", "unknown", "", "unknown");
	expect_dmi("../sysroot-full", "unknown", "", "unknown");
}

/* A --root tree is another machine: identified from its DMI, never asked about over the
 * network (the type stays unknown and the note says why), whatever metadata says. */
static void test_root_sends_nothing(void **state)
{
	(void)state;
	struct peak_cloud c;
	char warn[256];
	(void)unsetenv(PEAK_CLOUD_ENV);
	peak_cloud_identify(&c, CLOUD "azure", NULL, true, warn, sizeof warn);
	assert_string_equal(c.provider, "azure");
	assert_string_equal(c.instance_type, "");
	assert_string_equal(c.source, "dmi");
	assert_string_equal(warn, "");
	assert_non_null(strstr(c.note, "no metadata request for a --root tree"));
	/* No client for Hetzner: the note says to set the type, no warning. */
	peak_cloud_identify(&c, CLOUD "hetzner", NULL, true, warn, sizeof warn);
	assert_non_null(strstr(c.note, "no metadata client for hetzner"));
	assert_string_equal(warn, "");
}

static void test_set_overrides(void **state)
{
	(void)state;
	struct peak_cloud c;
	char warn[256];
	const struct peak_cloud_set type = {.instance_type = "m6i.xlarge", .origin = "--set"};
	peak_cloud_identify(&c, CLOUD "aws-nitro", &type, false, warn, sizeof warn);
	assert_string_equal(c.provider, "aws");
	assert_string_equal(c.instance_type, "m6i.xlarge");
	assert_string_equal(c.source, "--set");
	/* Another provider than DMI's: DMI's type was that cloud's, so it goes. */
	const struct peak_cloud_set prov = {.provider = "gce", .origin = "peaks.conf:4"};
	peak_cloud_identify(&c, CLOUD "aws-nitro", &prov, false, warn, sizeof warn);
	assert_string_equal(c.provider, "gce");
	assert_string_equal(c.instance_type, "");
	assert_string_equal(c.source, "--set");
	assert_non_null(strstr(c.note, "peaks.conf:4"));
	/* No DMI at all: --set alone names both. */
	const struct peak_cloud_set both = {.provider = "azure", .instance_type = "Standard_D2s_v5"};
	peak_cloud_identify(&c, CLOUD "no-dmi", &both, false, warn, sizeof warn);
	assert_string_equal(c.provider, "azure");
	assert_string_equal(c.instance_type, "Standard_D2s_v5");
	assert_string_equal(c.source, "--set");
}

static void test_config_keys(void **state)
{
	(void)state;
	struct peak_config cfg;
	char err[256];
	peak_config_init(&cfg);
	assert_int_equal(peak_config_set(&cfg, "cloud.provider=aws", err, sizeof err), 0);
	assert_int_equal(peak_config_set(&cfg, "cloud.instance_type = m5.large", err, sizeof err),
			 0);
	assert_string_equal(cfg.cloud_provider, "aws");
	assert_string_equal(cfg.cloud_instance_type, "m5.large");
	assert_string_equal(cfg.cloud_origin, "--set");
	assert_int_equal(cfg.n, 0); /* names, not numeric peak inputs */
	assert_int_equal(peak_config_set(&cfg, "cloud.provider=ibm", err, sizeof err), -1);
	assert_non_null(strstr(err, "cloud.provider 'ibm'"));
	assert_int_equal(peak_config_set(&cfg, "cloud.instance_type=m5 large", err, sizeof err),
			 -1);
	assert_int_equal(peak_config_set(&cfg, "cloud.instance_type=", err, sizeof err), -1);
	assert_int_equal(peak_config_set(&cfg, "cloud.region=eu", err, sizeof err), -1);
	assert_non_null(strstr(err, "cloud.region"));
	assert_string_equal(cfg.cloud_provider, "aws"); /* bad input changed nothing */
	assert_string_equal(cfg.cloud_instance_type, "m5.large");
}

/* PEAKBENCH_CLOUD, handed down by run_all.sh: taken on the live root only, checked. */
static void test_env(void **state)
{
	(void)state;
	struct peak_cloud c, out;
	char warn[256], value[160];
	memset(&c, 0, sizeof c);
	(void)snprintf(c.provider, sizeof c.provider, "gce");
	(void)snprintf(c.instance_type, sizeof c.instance_type, "n2-standard-4");
	(void)snprintf(c.source, sizeof c.source, "metadata");
	peak_cloud_env_value(&c, value, sizeof value);
	assert_string_equal(value, "gce,n2-standard-4,metadata");
	assert_int_equal(setenv(PEAK_CLOUD_ENV, value, 1), 0);
	peak_cloud_identify(&out, "", NULL, true, warn, sizeof warn);
	assert_string_equal(out.provider, "gce");
	assert_string_equal(out.instance_type, "n2-standard-4");
	assert_string_equal(out.source, "metadata");
	assert_string_equal(warn, "");
	/* An empty type: provider known, type unknown, and still no request of its own. */
	assert_int_equal(setenv(PEAK_CLOUD_ENV, "azure,,dmi", 1), 0);
	peak_cloud_identify(&out, "", NULL, true, warn, sizeof warn);
	assert_string_equal(out.provider, "azure");
	assert_string_equal(out.instance_type, "");
	assert_non_null(strstr(out.note, PEAK_CLOUD_ENV));
	/* What a machine with no cloud hands down (cloud_env.py: "unknown,,unknown"). */
	assert_int_equal(setenv(PEAK_CLOUD_ENV, "unknown,,unknown", 1), 0);
	peak_cloud_identify(&out, "", NULL, true, warn, sizeof warn);
	assert_string_equal(out.provider, "unknown");
	assert_string_equal(out.source, "unknown");
	assert_string_equal(warn, "");
	/* Malformed: one warning, and the machine is identified here (this one: no cloud). */
	const char *bad[] = {"aws", "aws,m5.large", "mars,x,dmi", "aws,m5 large,dmi",
			     "aws,m5.large,guess", "aws,m5.large,dmi,extra"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(setenv(PEAK_CLOUD_ENV, bad[i], 1), 0);
		peak_cloud_identify(&out, "", NULL, false, warn, sizeof warn);
		print_message("%s: %s\n", bad[i], warn);
		assert_non_null(strstr(warn, PEAK_CLOUD_ENV));
	}
	/* Under a --root tree the variable (the live machine's) is not taken. */
	assert_int_equal(setenv(PEAK_CLOUD_ENV, "gce,n2-standard-4,metadata", 1), 0);
	peak_cloud_identify(&out, CLOUD "azure", NULL, false, warn, sizeof warn);
	assert_string_equal(out.provider, "azure");
	(void)unsetenv(PEAK_CLOUD_ENV);
}

static void test_context(void **state)
{
	(void)state;
	struct peak_sysinfo *si = calloc(1, sizeof *si);
	struct peak_context *ctx = calloc(1, sizeof *ctx);
	assert_non_null(si);
	assert_non_null(ctx);
	peak_sysinfo_collect(si, CLOUD "aws-nitro");
	peak_context_init(ctx);
	peak_sysinfo_to_context(si, ctx);
	assert_string_equal(peak_context_get(ctx, "cloud.provider"), "aws");
	assert_string_equal(peak_context_get(ctx, "cloud.instance_type"), "m5.large");
	assert_string_equal(peak_context_get(ctx, "cloud.source"), "dmi");
	peak_sysinfo_collect(si, CLOUD "gce");
	peak_context_init(ctx);
	peak_sysinfo_to_context(si, ctx);
	assert_string_equal(peak_context_get(ctx, "cloud.provider"), "gce");
	assert_string_equal(peak_context_get(ctx, "cloud.instance_type"), "unknown");
	free(ctx);
	free(si);
}

static void test_type_plausible(void **state)
{
	(void)state;
	assert_true(peak_cloud_type_plausible("m5.large", 64));
	assert_true(peak_cloud_type_plausible("Standard_D2s_v5", 64));
	assert_true(peak_cloud_type_plausible("VM.Standard.E4.Flex", 64));
	assert_false(peak_cloud_type_plausible("", 64));
	assert_false(peak_cloud_type_plausible("<html>", 64));
	assert_false(peak_cloud_type_plausible("m5.large\r\nX: y", 64));
	assert_false(peak_cloud_type_plausible("abcdefgh", 8));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dmi_each_cloud),    cmocka_unit_test(test_dmi_no_cloud),
	    cmocka_unit_test(test_root_sends_nothing), cmocka_unit_test(test_set_overrides),
	    cmocka_unit_test(test_config_keys),       cmocka_unit_test(test_env),
	    cmocka_unit_test(test_context),           cmocka_unit_test(test_type_plausible),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
