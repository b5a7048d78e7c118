/* Validates a peakbench CSV or JSON file against the result schema
 * (docs/results-schema.md). Usage: schema_check csv|json FILE. Prints one line per
 * problem and exits 1 when there is any, 0 when the file conforms. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_result.h"

enum col_kind { TEXT, REQ_TEXT, UINT_OR_EMPTY, NUM_OR_EMPTY, UINT_REQ };

/* What each column may hold, in schema order. */
static const enum col_kind col_kinds[] = {
	REQ_TEXT,      /* suite */
	REQ_TEXT,      /* test */
	TEXT,          /* variant */
	UINT_OR_EMPTY, /* threads */
	UINT_OR_EMPTY, /* block_bytes */
	REQ_TEXT,      /* metric */
	REQ_TEXT,      /* unit */
	UINT_REQ,      /* n */
	NUM_OR_EMPTY, NUM_OR_EMPTY, NUM_OR_EMPTY, NUM_OR_EMPTY, NUM_OR_EMPTY, /* mean..max */
	NUM_OR_EMPTY, NUM_OR_EMPTY,                                           /* ci95 */
	NUM_OR_EMPTY, NUM_OR_EMPTY, NUM_OR_EMPTY, NUM_OR_EMPTY,               /* p50..p999 */
	NUM_OR_EMPTY, NUM_OR_EMPTY,  /* theoretical, efficiency */
	TEXT,          /* baseline_tool */
	NUM_OR_EMPTY,  /* baseline */
	TEXT,          /* flags */
};

static const char *const suites[] = {"cpu", "memory", "disk", "network", "dpdk", "baseline", NULL};

static int problems;

static void problem(const char *file, long line, const char *what, const char *detail)
{
	fprintf(stderr, "%s:%ld: %s%s%s\n", file, line, what, detail ? ": " : "",
		detail ? detail : "");
	problems++;
}

static bool is_uint(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static bool is_num(const char *s, double *v)
{
	char *end;
	if (!*s)
		return false;
	*v = strtod(s, &end);
	return *end == '\0' && isfinite(*v);
}

static bool known_suite(const char *s)
{
	for (int i = 0; suites[i]; i++)
		if (strcmp(s, suites[i]) == 0)
			return true;
	return false;
}

/* Split one CSV line (RFC 4180, no embedded newlines) into fields in place. */
static size_t split_csv(char *line, char **fields, size_t max)
{
	size_t n = 0;
	char *r = line, *w = line;

	while (n < max) {
		fields[n++] = w;
		if (*r == '"') {
			r++;
			for (;;) {
				if (*r == '\0')
					break;
				if (*r == '"' && r[1] == '"') {
					*w++ = '"';
					r += 2;
				} else if (*r == '"') {
					r++;
					break;
				} else {
					*w++ = *r++;
				}
			}
		}
		while (*r && *r != ',')
			*w++ = *r++;
		if (*r != ',') {
			*w = '\0';
			return n;
		}
		r++;
		*w++ = '\0';
	}
	return n + 1; /* too many */
}

/* mean / theoretical must equal efficiency when all three are present. */
static void check_efficiency(const char *file, long line, const char *mean, const char *theo,
			     const char *eff)
{
	double m, t, e;
	if (is_num(mean, &m) && is_num(theo, &t) && is_num(eff, &e) && t > 0 &&
	    fabs(m / t - e) > 1e-6 * fmax(1.0, fabs(e)))
		problem(file, line, "efficiency is not mean / theoretical", eff);
}

static int check_csv(const char *file)
{
	FILE *f = fopen(file, "r");
	char buf[8192], detail[128];
	char *fields[64];
	long line = 0, rows = 0;

	if (!f) {
		problem(file, 0, "cannot open", NULL);
		return 1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		buf[strcspn(buf, "\r\n")] = '\0';
		size_t n = split_csv(buf, fields, 64);
		if (line == 1) {
			if (n != peak_result_ncolumns) {
				problem(file, line, "header has the wrong number of columns", NULL);
				continue;
			}
			for (size_t i = 0; i < n; i++)
				if (strcmp(fields[i], peak_result_columns[i]) != 0)
					problem(file, line, "header column differs from the schema",
						fields[i]);
			continue;
		}
		rows++;
		if (n != peak_result_ncolumns) {
			snprintf(detail, sizeof(detail), "%zu fields instead of %zu", n,
				 peak_result_ncolumns);
			problem(file, line, "wrong field count", detail);
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			const char *v = fields[i];
			double d;
			bool ok = true;
			switch (col_kinds[i]) {
			case TEXT:
				break;
			case REQ_TEXT:
				ok = *v != '\0';
				break;
			case UINT_OR_EMPTY:
				ok = !*v || is_uint(v);
				break;
			case UINT_REQ:
				ok = is_uint(v);
				break;
			case NUM_OR_EMPTY:
				ok = !*v || is_num(v, &d);
				break;
			}
			if (!ok) {
				snprintf(detail, sizeof(detail), "%s = '%s'", peak_result_columns[i], v);
				problem(file, line, "bad value", detail);
			}
		}
		if (!known_suite(fields[0]))
			problem(file, line, "unknown suite", fields[0]);
		if (strcmp(fields[7], "0") != 0 && !*fields[8])
			problem(file, line, "n > 0 but mean is empty", NULL);
		check_efficiency(file, line, fields[8], fields[19], fields[20]);
	}
	fclose(f);
	if (line == 0)
		problem(file, 0, "empty file (no header)", NULL);
	else if (rows == 0)
		problem(file, line, "no result rows", NULL);
	return problems ? 1 : 0;
}

static char *slurp(const char *file)
{
	FILE *f = fopen(file, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += got;
		if (len + 1 == cap) {
			char *bigger = realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

static void check_json_result(const char *file, long idx, const cJSON *r)
{
	char detail[128];
	for (size_t i = 0; i < peak_result_ncolumns; i++) {
		const char *col = peak_result_columns[i];
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, col);
		bool ok;
		switch (col_kinds[i]) {
		case TEXT:
			ok = cJSON_IsString(v);
			break;
		case REQ_TEXT:
			ok = cJSON_IsString(v) && v->valuestring[0];
			break;
		case UINT_REQ:
			ok = cJSON_IsNumber(v) && v->valuedouble >= 0;
			break;
		default:
			ok = cJSON_IsNull(v) || cJSON_IsNumber(v);
			break;
		}
		if (!ok) {
			snprintf(detail, sizeof(detail), "results[%ld].%s", idx, col);
			problem(file, 0, "missing or wrongly typed field", detail);
		}
	}
	const cJSON *suite = cJSON_GetObjectItemCaseSensitive(r, "suite");
	if (cJSON_IsString(suite) && !known_suite(suite->valuestring))
		problem(file, 0, "unknown suite", suite->valuestring);
	const cJSON *samples = cJSON_GetObjectItemCaseSensitive(r, "samples");
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(r, "n");
	if (!cJSON_IsArray(samples)) {
		snprintf(detail, sizeof(detail), "results[%ld].samples", idx);
		problem(file, 0, "samples is not an array", detail);
	} else if (cJSON_GetArraySize(samples) > 0 && cJSON_IsNumber(n) &&
		   (double)cJSON_GetArraySize(samples) != n->valuedouble) {
		snprintf(detail, sizeof(detail), "results[%ld]", idx);
		problem(file, 0, "samples count differs from n", detail);
	}
}

static int check_json(const char *file)
{
	char *text = slurp(file);
	if (!text) {
		problem(file, 0, "cannot read", NULL);
		return 1;
	}
	cJSON *root = cJSON_Parse(text);
	free(text);
	if (!root) {
		problem(file, 0, "not valid JSON (NaN or Infinity are not JSON either)", NULL);
		return 1;
	}
	if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "context")))
		problem(file, 0, "no \"context\" object", NULL);
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
	if (!cJSON_IsArray(results) || cJSON_GetArraySize(results) == 0) {
		problem(file, 0, "no \"results\" array with at least one result", NULL);
	} else {
		long idx = 0;
		const cJSON *r;
		cJSON_ArrayForEach(r, results) check_json_result(file, idx++, r);
	}
	cJSON_Delete(root);
	return problems ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "csv") != 0 && strcmp(argv[1], "json") != 0)) {
		fprintf(stderr, "usage: schema_check csv|json FILE\n");
		return 2;
	}
	return strcmp(argv[1], "csv") == 0 ? check_csv(argv[2]) : check_json(argv[2]);
}
