/* Reporters: the CSV header is the schema; JSON parses back with every field; NaN and
 * infinity become empty cells / null. */
#include "peak_cmocka.h"
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_report.h"

static const char *expected_header =
	"suite,test,variant,threads,block_bytes,metric,unit,n,mean,stddev,min,median,max,"
	"ci95_low,ci95_high,p50,p90,p99,p999,theoretical,efficiency,baseline_tool,baseline,flags";

static const double samples[] = {10.0, 12.0, 14.0};

static void make_results(struct peak_result *a, struct peak_result *b)
{
	peak_result_init(a, "memory", "seq_rw", "avx512-nt", "throughput", "GB/s");
	a->threads = 2;
	a->has_block = true;
	a->block_bytes = 80ull << 20;
	peak_result_set_samples(a, samples, 3);
	a->theoretical = 24.0;
	peak_result_flag(a, "steal");
	peak_result_flag(a, "steal"); /* no duplicate */
	peak_result_finish(a);

	peak_result_init(b, "cpu", "flops", "scalar,\"odd\"", "flops", "GFLOPS");
	b->threads = 1;
	b->theoretical = INFINITY; /* must come out empty / null */
	b->p99 = NAN;
	peak_result_set_samples(b, samples, 1);
	peak_result_finish(b);
}

static char *render(enum peak_format fmt)
{
	struct peak_context ctx;
	struct peak_result a, b;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);

	peak_context_init(&ctx);
	peak_context_set_str(&ctx, "cpu.model", "Test CPU");
	peak_context_set_num(&ctx, "cpu.ghz", 2.5);
	peak_context_set_num(&ctx, "unknown.number", NAN);
	peak_context_set_bool(&ctx, "pinned", true);
	make_results(&a, &b);

	struct peak_reporter r = {.ops = peak_report_ops_for(fmt), .out = f};
	assert_int_equal(r.ops->begin(&r, &ctx), 0);
	assert_int_equal(r.ops->record(&r, &a), 0);
	assert_int_equal(r.ops->record(&r, &b), 0);
	assert_int_equal(r.ops->end(&r, &ctx), 0);
	fclose(f);
	return buf;
}

static void test_csv_header_and_rows(void **state)
{
	(void)state;
	char *text = render(PEAK_FORMAT_CSV);
	char *nl = strchr(text, '\n');
	assert_non_null(nl);
	*nl = '\0';
	assert_string_equal(text, expected_header);
	char *row1 = nl + 1;
	nl = strchr(row1, '\n');
	assert_non_null(nl);
	*nl = '\0';
	assert_string_equal(row1, "memory,seq_rw,avx512-nt,2,83886080,throughput,GB/s,3,12,2,10,12,"
				  "14,7.03132358,16.9686764,,,,,24,0.5,,,steal");
	char *row2 = nl + 1;
	nl = strchr(row2, '\n');
	assert_non_null(nl);
	*nl = '\0';
	/* Quoted variant, single sample: no CI; infinite peak and NaN percentiles empty. */
	assert_string_equal(row2, "cpu,flops,\"scalar,\"\"odd\"\"\",1,,flops,GFLOPS,1,10,0,10,10,10,"
				  ",,,,,,,,,,");
	free(text);
}

static void test_json_round_trip(void **state)
{
	(void)state;
	char *text = render(PEAK_FORMAT_JSON);
	assert_null(strstr(text, "nan"));
	assert_null(strstr(text, "inf"));
	cJSON *root = cJSON_Parse(text);
	assert_non_null(root);
	cJSON *ctx = cJSON_GetObjectItem(root, "context");
	assert_true(cJSON_IsObject(ctx));
	assert_string_equal(cJSON_GetObjectItem(ctx, "cpu.model")->valuestring, "Test CPU");
	assert_double_equal(cJSON_GetObjectItem(ctx, "cpu.ghz")->valuedouble, 2.5, 0);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(ctx, "unknown.number")));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(ctx, "pinned")));

	cJSON *results = cJSON_GetObjectItem(root, "results");
	assert_int_equal(cJSON_GetArraySize(results), 2);
	cJSON *a = cJSON_GetArrayItem(results, 0);
	for (size_t i = 0; i < peak_result_ncolumns; i++)
		assert_non_null(cJSON_GetObjectItem(a, peak_result_columns[i]));
	assert_double_equal(cJSON_GetObjectItem(a, "mean")->valuedouble, 12.0, 1e-12);
	assert_double_equal(cJSON_GetObjectItem(a, "efficiency")->valuedouble, 0.5, 1e-12);
	assert_double_equal(cJSON_GetObjectItem(a, "block_bytes")->valuedouble, 83886080.0, 0);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(a, "p99")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(a, "samples")), 3);

	cJSON *b = cJSON_GetArrayItem(results, 1);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(b, "theoretical")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(b, "efficiency")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(b, "block_bytes")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(b, "ci95_low")));
	assert_string_equal(cJSON_GetObjectItem(b, "variant")->valuestring, "scalar,\"odd\"");
	cJSON_Delete(root);
	free(text);
}

static void test_console_renders(void **state)
{
	(void)state;
	char *text = render(PEAK_FORMAT_CONSOLE);
	assert_non_null(strstr(text, "Test CPU"));
	assert_non_null(strstr(text, "seq_rw"));
	assert_non_null(strstr(text, "80MiB"));
	assert_non_null(strstr(text, "50.0")); /* efficiency in % */
	free(text);
}

static void test_above_peak_flagged(void **state)
{
	(void)state;
	struct peak_result r;
	const double x[] = {30.0, 31.0};
	peak_result_init(&r, "cpu", "flops", "avx512", "flops", "GFLOPS");
	peak_result_set_samples(&r, x, 2);
	r.theoretical = 20.0;
	peak_result_finish(&r);
	assert_non_null(strstr(r.flags, "above_peak"));
}

/* The rule's tolerance (PEAK_ABOVE_PEAK_RATIO) on the final figure: a second finish after
 * the peak changed (the row's clock measured later) drops the flag the first set, keeps
 * the other flags, and sets it again when the figure is above once more. */
static void test_above_peak_follows_the_final_peak(void **state)
{
	(void)state;
	struct peak_result r;
	const double x[] = {101.0, 101.0};
	peak_result_init(&r, "cpu", "iops", "scalar_i32_mul", "iops_int", "GIOPS");
	peak_result_set_samples(&r, x, 2);
	peak_result_flag(&r, "vs_probe=0.995");
	r.theoretical = 98.0; /* 1.031 */
	peak_result_finish(&r);
	assert_string_equal(r.flags, "vs_probe=0.995;above_peak");
	r.theoretical = 100.0; /* 1.010: within the tolerance */
	peak_result_finish(&r);
	assert_string_equal(r.flags, "vs_probe=0.995");
	assert_true(fabs(r.efficiency - 1.01) < 1e-12);
	r.theoretical = 101.0 / (PEAK_ABOVE_PEAK_RATIO + 0.001);
	peak_result_finish(&r);
	assert_string_equal(r.flags, "vs_probe=0.995;above_peak");
	r.theoretical = 101.0 / (PEAK_ABOVE_PEAK_RATIO - 0.001);
	peak_result_finish(&r);
	assert_string_equal(r.flags, "vs_probe=0.995");
	r.theoretical = NAN; /* no peak: no efficiency, no flag */
	peak_result_finish(&r);
	assert_true(isnan(r.efficiency));
	assert_string_equal(r.flags, "vs_probe=0.995");
}

/* A comparison row's peak is another one: 1.18 of it is no alarm. */
static void test_comparison_is_not_above_peak(void **state)
{
	(void)state;
	struct peak_result r;
	const double x[] = {154.5};
	peak_result_init(&r, "cpu", "linpack", "dgesv_vs_avx2", "flops", "GFLOPS");
	peak_result_set_samples(&r, x, 1);
	peak_result_flag(&r, PEAK_COMPARISON_FLAG);
	r.theoretical = 130.7;
	peak_result_finish(&r);
	assert_true(r.efficiency > 1.18);
	assert_null(strstr(r.flags, "above_peak"));
	assert_true(peak_result_has_flag(r.flags, "comparison"));
	assert_false(peak_result_has_flag("comparisons;x", "comparison"));
	assert_true(peak_result_has_flag("x;steal_pct=2.0", "steal_pct"));
}

/* A figure in a flag (steal_pct=, cpu_share_pct=) is rounded the way its reader needs and
 * goes in whole or not at all; an item is copied from a flags string by its key. */
static void test_flag_figures(void **state)
{
	(void)state;
	struct peak_result r;
	char item[32];
	peak_result_init(&r, "cpu", "flops", "avx2", "flops", "GFLOPS");
	peak_result_flag_pct(&r, "up", 2.01, true);
	peak_result_flag_pct(&r, "exact", 2.1, true);
	peak_result_flag_pct(&r, "down", 93.59, false);
	peak_result_flag_pct(&r, "nan", NAN, true);
	assert_string_equal(r.flags, "up=2.1;exact=2.1;down=93.5");
	assert_true(peak_result_flag_item(r.flags, "down", item, sizeof item));
	assert_string_equal(item, "down=93.5");
	assert_false(peak_result_flag_item(r.flags, "dow", item, sizeof item));
	assert_false(peak_result_flag_item("steal", "steal", item, sizeof item));
	assert_false(peak_result_flag_item(r.flags, "down", item, 4)); /* does not fit */
	/* Room for flags is the buffer less ";flags_cut" and its NUL. With 5 characters of it
	 * left, ";x=1.0" does not fit: left out, and the flags end in flags_cut (never a cut
	 * item); ";ab" would have fitted but the list is already marked cut and full. */
	size_t room = sizeof r.flags - sizeof(";" PEAK_FLAGS_CUT);
	memset(r.flags, 'f', room - 5);
	r.flags[room - 5] = '\0';
	peak_result_flag(&r, "ab");
	assert_int_equal(strlen(r.flags), room - 2);
	peak_result_flag_pct(&r, "x", 1.0, true);
	assert_null(strstr(r.flags, "x="));
	assert_true(peak_result_has_flag(r.flags, PEAK_FLAGS_CUT));
	size_t cut = strlen(r.flags);
	assert_true(cut < sizeof r.flags);
	peak_result_flag(&r, "steal_pct=12.3");
	assert_int_equal(strlen(r.flags), cut);
	assert_null(strstr(r.flags, "steal_pct"));
}

/* The context keeps a value as long as a path the kernel takes, whole; a longer one ends
 * in "..." (cut, and showing it); a key too long for its slot is dropped, not cut into
 * another key's name (issue 34). */
static void test_context_long_values(void **state)
{
	(void)state;
	static struct peak_context ctx;
	static char path[PEAK_PATH_MAX], over[PEAK_CONTEXT_VALUE_LEN + 100];
	memset(path, 'p', sizeof path - 1);
	path[0] = '/';
	path[sizeof path - 1] = '\0';
	memset(over, 'o', sizeof over - 1);
	over[sizeof over - 1] = '\0';
	peak_context_init(&ctx);
	peak_context_set_str(&ctx, "peakinfo.config", path);
	assert_string_equal(peak_context_get(&ctx, "peakinfo.config"), path);
	peak_context_set_str(&ctx, "too.long.value", over);
	const char *cut = peak_context_get(&ctx, "too.long.value");
	assert_int_equal(strlen(cut), PEAK_CONTEXT_VALUE_LEN - 1);
	assert_string_equal(cut + strlen(cut) - 3, "...");
	char key[PEAK_CONTEXT_KEY_LEN + 8];
	memset(key, 'k', sizeof key - 1);
	key[sizeof key - 1] = '\0';
	peak_context_set_str(&ctx, key, "x");
	assert_int_equal(ctx.n, 2);
	key[PEAK_CONTEXT_KEY_LEN - 1] = '\0';
	assert_null(peak_context_get(&ctx, key));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_header_and_rows),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_console_renders),
		cmocka_unit_test(test_above_peak_flagged),
		cmocka_unit_test(test_above_peak_follows_the_final_peak),
		cmocka_unit_test(test_comparison_is_not_above_peak),
		cmocka_unit_test(test_flag_figures),
		cmocka_unit_test(test_context_long_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
