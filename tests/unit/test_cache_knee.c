/* peak_cache_knees on recorded latency curves (tests/fixtures/cache_curves: the two
 * machines of ../shared/machines, both page kinds) and on synthetic ones: the masked Intel
 * VM's 480 MiB L3 is found far smaller, sizes that agree are left as reported, a curve
 * without a knee keeps the reported size and says so. */
#include "peak_cmocka.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_cache_knee.h"

#define CURVES PEAK_FIXTURES_DIR "/cache_curves/"
#define KiB    ((uint64_t)1024)
#define MiB    (KiB * 1024)
#define MAXPTS 256

struct curve {
	struct peak_cache_point pts[MAXPTS];
	size_t n;
	uint64_t reported[PEAK_CACHE_LEVELS];
};

/* A fixture: '#' comments, "# reported: l1d=B l2=B l3=B", a "bytes,ns" header, rows. */
static void load(const char *name, struct curve *c)
{
	char path[512], line[256];
	(void)snprintf(path, sizeof path, "%s%s", CURVES, name);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	memset(c, 0, sizeof *c);
	while (fgets(line, sizeof line, f)) {
		unsigned long long a, b, d;
		double ns;
		if (sscanf(line, "# reported: l1d=%llu l2=%llu l3=%llu", &a, &b, &d) == 3) {
			c->reported[0] = a, c->reported[1] = b, c->reported[2] = d;
		} else if (sscanf(line, "%llu,%lf", &a, &ns) == 2) {
			assert_true(c->n < MAXPTS);
			c->pts[c->n].bytes = a, c->pts[c->n].ns = ns, c->n++;
		}
	}
	(void)fclose(f);
	assert_true(c->n > 40);
	assert_true(c->reported[2] > 0);
}

static void knees(const struct curve *c, struct peak_cache_level out[PEAK_CACHE_LEVELS])
{
	peak_cache_knees(c->pts, c->n, c->reported, out);
}

/* A record's curve whose L1d and L2 knees agree with their reported sizes (l1d, l2). */
static void private_caches_agree(const char *file, uint64_t l1d, uint64_t l2,
				 struct peak_cache_level lv[PEAK_CACHE_LEVELS])
{
	struct curve c;
	load(file, &c);
	knees(&c, lv);
	assert_int_equal(lv[0].verdict, PEAK_CACHE_AGREES);
	assert_int_equal(lv[0].effective_bytes, l1d);
	assert_int_equal(lv[1].verdict, PEAK_CACHE_AGREES);
	assert_int_equal(lv[1].effective_bytes, l2);
}

/* The masked Intel server VM: L3 reported 480 MiB, the curve leaves its 35 ns plateau
 * between 12 and 16 MiB. L1d (48 KiB) and L2 (2 MiB) agree with their knees. */
static void intel_masked(const char *file)
{
	struct curve c;
	struct peak_cache_level lv[PEAK_CACHE_LEVELS];
	load(file, &c);
	knees(&c, lv);
	assert_int_equal(lv[0].verdict, PEAK_CACHE_AGREES);
	assert_int_equal(lv[0].effective_bytes, 48 * KiB);
	assert_int_equal(lv[1].verdict, PEAK_CACHE_AGREES);
	assert_int_equal(lv[1].effective_bytes, 2 * MiB);
	assert_int_equal(lv[2].verdict, PEAK_CACHE_SMALLER);
	assert_int_equal(lv[2].reported_bytes, 480 * MiB);
	assert_true(lv[2].effective_bytes < 32 * MiB);
	assert_true(lv[2].effective_bytes > 2 * MiB); /* beyond the L2, where the plateau is */
	assert_true(lv[2].plateau_ns > 30 && lv[2].plateau_ns < 40);
}

static void test_intel_masked_4k(void **state)
{
	(void)state;
	intel_masked("intel-server-masked-kvm-4k.csv");
}

static void test_intel_masked_thp(void **state)
{
	(void)state;
	intel_masked("intel-server-masked-kvm-thp.csv");
}

/* The Zen 3 record's curve (4 KiB pages): L1d and L2 agree with 32 KiB and 512 KiB. Its
 * L3 does not: from 3.4 MiB on every working set took 150-200 ns, DRAM's latency, in
 * that run (the 18 ns L3 plateau ends by 2.4 MiB). The finder says what the curve says. */
static void test_zen3_record(void **state)
{
	(void)state;
	struct curve c;
	struct peak_cache_level lv[PEAK_CACHE_LEVELS];
	private_caches_agree("amd-zen3-milan-kvm-4k.csv", 32 * KiB, 512 * KiB, lv);
	assert_int_equal(lv[2].verdict, PEAK_CACHE_SMALLER);
	assert_true(lv[2].effective_bytes < 4 * MiB);
	assert_true(lv[2].effective_bytes > 512 * KiB);
	load("amd-zen3-milan-kvm-thp.csv", &c);
	knees(&c, lv);
	assert_int_equal(lv[2].verdict, PEAK_CACHE_SMALLER);
	assert_true(lv[2].effective_bytes < 4 * MiB);
}

/* The Zen 5 record (issue 41): membench's own curve in the full run reads 12-18 ns up to
 * 4 MiB, 22 ns at 4.76 MiB and 120 ns (DRAM) from 5.66 MiB; the L3 the guest is told is
 * 508 MiB. The effective L3 from that curve is 4-5 MiB (peakinfo's curve in the same run,
 * with other tenants on the L3, gave 7.05). L1d (48 KiB) and L2 (1 MiB) agree. */
static void test_zen5_record(void **state)
{
	(void)state;
	struct peak_cache_level lv[PEAK_CACHE_LEVELS];
	private_caches_agree("amd-zen5-turin-bhyve-4k.csv", 48 * KiB, 1024 * KiB, lv);
	assert_int_equal(lv[2].verdict, PEAK_CACHE_SMALLER);
	assert_true(lv[2].effective_bytes >= 4 * MiB);
	assert_true(lv[2].effective_bytes <= 5 * MiB);
}

/* A synthetic curve on the record's sizes (4 KiB x 2^(k/4)): plateaus at l1_ns up to
 * edge[0], l2_ns up to edge[1], l3_ns up to edge[2], then DRAM rising slowly, with a
 * deterministic wobble of +-4% so that no plateau is perfectly flat. */
static void synthetic(struct curve *c, const uint64_t edge[3], const double lat[4], uint64_t top)
{
	memset(c, 0, sizeof *c);
	for (unsigned k = 0; c->n < MAXPTS; k++) {
		uint64_t b = (uint64_t)(4096.0 * pow(2.0, k / 4.0)) / 64 * 64;
		if (b > top)
			break;
		unsigned lvl = b <= edge[0] ? 0 : b <= edge[1] ? 1 : b <= edge[2] ? 2 : 3;
		double ns = lat[lvl] * (1.0 + 0.04 * ((k % 3) - 1.0));
		if (lvl == 3)
			ns *= 1.0 + 0.05 * log2((double)b / (double)edge[2]);
		c->pts[c->n].bytes = b, c->pts[c->n].ns = ns, c->n++;
	}
}

/* Zen 3 as the issue describes it: 32 KiB, 512 KiB and 32 MiB, each plateau reaching its
 * reported size. Every level agrees and every effective size is the reported one. */
static void test_agreeing_curve_changes_nothing(void **state)
{
	(void)state;
	struct curve c;
	struct peak_cache_level lv[PEAK_CACHE_LEVELS];
	const uint64_t edge[3] = {32 * KiB, 512 * KiB, 32 * MiB};
	const double lat[4] = {1.3, 4.2, 15.0, 110.0};
	synthetic(&c, edge, lat, 1024 * MiB);
	memcpy(c.reported, edge, sizeof edge);
	knees(&c, lv);
	for (unsigned i = 0; i < PEAK_CACHE_LEVELS; i++) {
		assert_int_equal(lv[i].verdict, PEAK_CACHE_AGREES);
		assert_int_equal(lv[i].effective_bytes, edge[i]);
		assert_true(lv[i].knee_bytes <= edge[i] && lv[i].knee_bytes * 2 >= edge[i]);
	}
}

/* A guest given 8 MiB of a reported 64 MiB L3 (a synthetic mask, not a record): found. */
static void test_shared_l3_found(void **state)
{
	(void)state;
	struct curve c;
	struct peak_cache_level lv[PEAK_CACHE_LEVELS];
	const uint64_t edge[3] = {48 * KiB, 1280 * KiB, 8 * MiB};
	const double lat[4] = {1.1, 3.8, 22.0, 95.0};
	synthetic(&c, edge, lat, 512 * MiB);
	c.reported[0] = 48 * KiB, c.reported[1] = 1280 * KiB, c.reported[2] = 64 * MiB;
	knees(&c, lv);
	assert_int_equal(lv[2].verdict, PEAK_CACHE_SMALLER);
	assert_true(lv[2].effective_bytes <= 8 * MiB && lv[2].effective_bytes >= 4 * MiB);
	assert_int_equal(lv[1].verdict, PEAK_CACHE_AGREES);
}

/* A sweep that ends inside the L3's plateau shows no knee for it: the reported size stands
 * and the verdict says no_knee. No curve at all: every level unmeasured, reported stands. */
static void test_no_knee_keeps_reported(void **state)
{
	(void)state;
	struct curve c;
	struct peak_cache_level lv[PEAK_CACHE_LEVELS];
	const uint64_t edge[3] = {32 * KiB, 1 * MiB, 64 * MiB};
	const double lat[4] = {1.2, 4.0, 30.0, 120.0};
	synthetic(&c, edge, lat, 16 * MiB);
	memcpy(c.reported, edge, sizeof edge);
	knees(&c, lv);
	assert_int_equal(lv[1].verdict, PEAK_CACHE_AGREES);
	assert_int_equal(lv[2].verdict, PEAK_CACHE_NO_KNEE);
	assert_int_equal(lv[2].effective_bytes, 64 * MiB);
	assert_string_equal(peak_cache_verdict_name(lv[2].verdict), "no_knee");

	peak_cache_knees(NULL, 0, c.reported, lv);
	for (unsigned i = 0; i < PEAK_CACHE_LEVELS; i++) {
		assert_int_equal(lv[i].verdict, PEAK_CACHE_UNMEASURED);
		assert_int_equal(lv[i].effective_bytes, edge[i]);
	}
}

/* A level the machine does not report is not invented from a plateau. */
static void test_unreported_level_stays_unknown(void **state)
{
	(void)state;
	struct curve c;
	struct peak_cache_level lv[PEAK_CACHE_LEVELS];
	const uint64_t edge[3] = {32 * KiB, 1 * MiB, 16 * MiB};
	const double lat[4] = {1.2, 4.0, 30.0, 120.0};
	synthetic(&c, edge, lat, 256 * MiB);
	c.reported[0] = 32 * KiB, c.reported[1] = 1 * MiB, c.reported[2] = 0;
	knees(&c, lv);
	assert_int_equal(lv[2].verdict, PEAK_CACHE_UNMEASURED);
	assert_int_equal(lv[2].effective_bytes, 0);
	assert_int_equal(lv[1].verdict, PEAK_CACHE_AGREES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_intel_masked_4k),
	    cmocka_unit_test(test_intel_masked_thp),
	    cmocka_unit_test(test_zen3_record),
	    cmocka_unit_test(test_zen5_record),
	    cmocka_unit_test(test_agreeing_curve_changes_nothing),
	    cmocka_unit_test(test_shared_l3_found),
	    cmocka_unit_test(test_no_knee_keeps_reported),
	    cmocka_unit_test(test_unreported_level_stays_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
