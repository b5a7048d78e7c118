/* Validates a peakbench CSV or JSON file against the result schema
 * (docs/results-schema.md), clusterbench's host and peer and its per-node context blocks
 * included. Usage: schema_check csv|json FILE. Prints one line per problem and exits 1
 * when there is any, 0 when the file conforms. */
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

static const char *const suites[] = {"cpu",  "memory",   "disk",    "network",
				     "dpdk", "baseline", "cluster", NULL};

static int problems;

/* The i-th CSV column: the schema's, then the optional host columns. */
static const char *column_name(size_t i)
{
	return i < peak_result_ncolumns ? peak_result_columns[i]
					: peak_result_host_columns[i - peak_result_ncolumns];
}

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
	bool hosts = false;

	if (!f) {
		problem(file, 0, "cannot open", NULL);
		return 1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		buf[strcspn(buf, "\r\n")] = '\0';
		size_t n = split_csv(buf, fields, 64);
		if (line == 1) {
			/* The schema's columns, or those and host, peer (clusterbench). */
			hosts = n == peak_result_ncolumns + peak_result_nhost_columns;
			if (n != peak_result_ncolumns && !hosts) {
				problem(file, line, "header has the wrong number of columns", NULL);
				continue;
			}
			for (size_t i = 0; i < n; i++)
				if (strcmp(fields[i], column_name(i)) != 0)
					problem(file, line, "header column differs from the schema",
						fields[i]);
			continue;
		}
		rows++;
		size_t want = peak_result_ncolumns + (hosts ? peak_result_nhost_columns : 0);
		if (n != want) {
			snprintf(detail, sizeof(detail), "%zu fields instead of %zu", n, want);
			problem(file, line, "wrong field count", detail);
			continue;
		}
		if (hosts && !*fields[peak_result_ncolumns])
			problem(file, line, "empty host", NULL);
		for (size_t i = 0; i < peak_result_ncolumns; i++) {
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

/* Whether a node other than except is named name. */
static bool node_named(const cJSON *nodes, const char *name, const cJSON *except)
{
	const cJSON *n;
	cJSON_ArrayForEach(n, nodes)
	{
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(n, "host");
		if (n != except && cJSON_IsString(h) && strcmp(h->valuestring, name) == 0)
			return true;
	}
	return false;
}

/* context.nodes (clusterbench): a non-empty array of flat context blocks, each naming its
 * node in "host", no two the same. Returns the array, or NULL when there is none. */
static const cJSON *check_nodes(const char *file, const cJSON *ctx)
{
	const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(ctx, "nodes");
	char detail[160];
	long i = 0;
	const cJSON *n, *kv;

	if (!nodes)
		return NULL;
	if (!cJSON_IsArray(nodes) || cJSON_GetArraySize(nodes) == 0) {
		problem(file, 0, "context.nodes is not a non-empty array", NULL);
		return NULL;
	}
	cJSON_ArrayForEach(n, nodes)
	{
		snprintf(detail, sizeof(detail), "context.nodes[%ld]", i++);
		if (!cJSON_IsObject(n)) {
			problem(file, 0, "node context is not an object", detail);
			continue;
		}
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(n, "host");
		if (!cJSON_IsString(h) || !h->valuestring[0])
			problem(file, 0, "node context has no host", detail);
		else if (node_named(nodes, h->valuestring, n))
			problem(file, 0, "two node contexts name the same host", h->valuestring);
		cJSON_ArrayForEach(kv, n)
		{
			if (!cJSON_IsString(kv) && !cJSON_IsNumber(kv) && !cJSON_IsBool(kv) &&
			    !cJSON_IsNull(kv))
				problem(file, 0, "node context value is not a string, number or bool",
					kv->string);
		}
	}
	return nodes;
}

/* host and peer: both or neither; with them the context has nodes, host is a node (or
 * "all", the across-node row) and peer a node or empty. */
static void check_hosts(const char *file, long idx, const cJSON *r, const cJSON *nodes)
{
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(r, "host");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "peer");
	char detail[160];

	snprintf(detail, sizeof(detail), "results[%ld]", idx);
	if (!h && !p) {
		if (nodes)
			problem(file, 0, "no host and peer, but the context has nodes", detail);
		return;
	}
	if (!cJSON_IsString(h) || !h->valuestring[0] || !cJSON_IsString(p)) {
		problem(file, 0, "host must be a non-empty string and peer a string", detail);
		return;
	}
	if (!nodes) {
		problem(file, 0, "host and peer without context.nodes", detail);
		return;
	}
	if (strcmp(h->valuestring, "all") != 0 && !node_named(nodes, h->valuestring, NULL))
		problem(file, 0, "host is not one of context.nodes", h->valuestring);
	if (p->valuestring[0] && !node_named(nodes, p->valuestring, NULL))
		problem(file, 0, "peer is not one of context.nodes", p->valuestring);
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
	const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(root, "context");
	if (!cJSON_IsObject(ctx))
		problem(file, 0, "no \"context\" object", NULL);
	const cJSON *nodes = cJSON_IsObject(ctx) ? check_nodes(file, ctx) : NULL;
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
	if (!cJSON_IsArray(results) || cJSON_GetArraySize(results) == 0) {
		problem(file, 0, "no \"results\" array with at least one result", NULL);
	} else {
		long idx = 0;
		const cJSON *r;
		cJSON_ArrayForEach(r, results)
		{
			check_json_result(file, idx, r);
			check_hosts(file, idx++, r, nodes);
		}
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
