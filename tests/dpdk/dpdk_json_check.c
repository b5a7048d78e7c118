/* Checks a dpdkbench JSON report: packets conserved per direction (sent = received +
 * lost counted from sequence numbers, nothing unexplained), latency samples present,
 * rates positive, --rate respected. Usage: dpdk_json_check loopback|pair-bi|pair-uni FILE */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void fail(const char *what)
{
	fprintf(stderr, "FAIL: %s\n", what);
	failures++;
}

static double ctx_num(const cJSON *ctx, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(ctx, key);
	if (!cJSON_IsNumber(v)) {
		fprintf(stderr, "FAIL: context key %s missing or not a number\n", key);
		failures++;
		return -1;
	}
	return v->valuedouble;
}

static void conserved(const cJSON *ctx, const char *prefix)
{
	char k[64];
	(void)snprintf(k, sizeof(k), "%s_sent", prefix);
	double sent = ctx_num(ctx, k);
	(void)snprintf(k, sizeof(k), "%s_received", prefix);
	double recv = ctx_num(ctx, k);
	(void)snprintf(k, sizeof(k), "%s_lost", prefix);
	double lost = ctx_num(ctx, k);
	printf("%s: sent %.0f received %.0f lost %.0f\n", prefix, sent, recv, lost);
	if (sent <= 0)
		fail("nothing was sent");
	if (sent != recv + lost)
		fail("sent != received + counted loss");
	if (recv <= 0)
		fail("nothing was received");
}

/* Count rows of a test with a positive mean (and, for latency, a positive p50). */
static int rows_ok(const cJSON *results, const char *test, const char *unit)
{
	int n = 0;
	const cJSON *r;
	cJSON_ArrayForEach(r, results)
	{
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "test");
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(r, "unit");
		const cJSON *mean = cJSON_GetObjectItemCaseSensitive(r, "mean");
		const cJSON *p50 = cJSON_GetObjectItemCaseSensitive(r, "p50");
		if (!cJSON_IsString(t) || strcmp(t->valuestring, test) != 0 || !cJSON_IsString(u) ||
		    strcmp(u->valuestring, unit) != 0)
			continue;
		if (!cJSON_IsNumber(mean) || mean->valuedouble <= 0)
			continue;
		if (strcmp(unit, "us") == 0 && (!cJSON_IsNumber(p50) || p50->valuedouble <= 0))
			continue;
		n++;
	}
	printf("%s [%s]: %d rows with positive values\n", test, unit, n);
	return n;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			char *nb = realloc(buf, cap);
			if (nb == NULL) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, 4096, f);
		len += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* With --rate, no repetition may offer more than the rate: the generator builds a frame
 * only once the time since the start allows it (a bound, not a speed). */
static void rate_respected(const cJSON *ctx, const cJSON *results)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(ctx, "dpdk_rate_mpps");
	if (!cJSON_IsNumber(r) || r->valuedouble <= 0)
		return;
	int rows = 0, before = failures;
	const cJSON *row;
	cJSON_ArrayForEach(row, results)
	{
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(row, "test");
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(row, "unit");
		const cJSON *mx = cJSON_GetObjectItemCaseSensitive(row, "max");
		if (!cJSON_IsString(t) || strncmp(t->valuestring, "tx_", 3) != 0 ||
		    !cJSON_IsString(u) || strcmp(u->valuestring, "Mpps") != 0)
			continue;
		rows++;
		if (!cJSON_IsNumber(mx) || mx->valuedouble > r->valuedouble * 1.001) {
			fprintf(stderr, "FAIL: %s offered %g Mpps with --rate %g\n", t->valuestring,
				cJSON_IsNumber(mx) ? mx->valuedouble : -1.0, r->valuedouble);
			failures++;
		}
	}
	if (rows == 0)
		fail("--rate given but no tx_* Mpps row to check it against");
	else if (failures == before)
		printf("rate: %d tx rows within --rate %g Mpps\n", rows, r->valuedouble);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: dpdk_json_check loopback|pair-bi|pair-uni FILE\n");
		return 2;
	}
	const char *mode = argv[1];
	char *text = slurp(argv[2]);
	cJSON *doc = text ? cJSON_Parse(text) : NULL;
	free(text);
	if (doc == NULL) {
		fprintf(stderr, "FAIL: %s is not JSON\n", argv[2]);
		return 1;
	}
	const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(doc, "context");
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(doc, "results");
	if (!cJSON_IsObject(ctx) || !cJSON_IsArray(results)) {
		cJSON_Delete(doc);
		fprintf(stderr, "FAIL: no context or results\n");
		return 1;
	}
	if (ctx_num(ctx, "dpdk_packets_unexplained") != 0)
		fail("frames the sequence numbers cannot explain");
	rate_respected(ctx, results);
	int bi = strcmp(mode, "pair-uni") != 0;
	if (strcmp(mode, "loopback") == 0) {
		conserved(ctx, "dpdk_packets");
		if (rows_ok(results, "rx_loopback", "Mpps") == 0)
			fail("no positive rx_loopback Mpps row");
		if (rows_ok(results, "latency_loopback", "us") == 0)
			fail("no latency_loopback row with samples");
		if (ctx_num(ctx, "dpdk_latency_samples") <= 0)
			fail("no latency samples");
	} else {
		conserved(ctx, "dpdk_fwd_packets");
		if (rows_ok(results, "rx_dut", "Mpps") == 0)
			fail("no positive rx_dut Mpps row");
		if (bi) {
			conserved(ctx, "dpdk_packets");
			if (rows_ok(results, "rx_tester", "Mpps") == 0)
				fail("no positive rx_tester Mpps row");
			if (rows_ok(results, "latency_roundtrip", "us") == 0)
				fail("no latency_roundtrip row with samples");
		}
	}
	cJSON_Delete(doc);
	if (failures == 0)
		printf("ok: %s accounting and rows check out\n", mode);
	return failures ? 1 : 0;
}
