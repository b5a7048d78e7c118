/* JSON reporter (cJSON): {"context": {...}, "results": [{schema fields, "samples": [...]}]}.
 * Built in memory and written at the end so context keys added during the run appear.
 * JSON has no NaN or Infinity: those become null. */
#include "peak_report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

struct json_state {
	cJSON *root;
	cJSON *results;
};

static cJSON *num_or_null(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static void add_num(cJSON *obj, const char *key, double v)
{
	cJSON_AddItemToObject(obj, key, num_or_null(v));
}

static cJSON *context_object(const struct peak_context *ctx)
{
	cJSON *obj = cJSON_CreateObject();
	for (size_t i = 0; obj && i < ctx->n; i++) {
		const struct peak_kv *kv = &ctx->kv[i];
		cJSON *item;
		if (kv->type == PEAK_KV_NUMBER)
			item = kv->value[0] ? cJSON_CreateNumber(strtod(kv->value, NULL))
					    : cJSON_CreateNull();
		else if (kv->type == PEAK_KV_BOOL)
			item = cJSON_CreateBool(kv->value[0] == 't');
		else
			item = cJSON_CreateString(kv->value);
		cJSON_AddItemToObject(obj, kv->key, item);
	}
	return obj;
}

static int json_begin(struct peak_reporter *r, const struct peak_context *ctx)
{
	(void)ctx;
	struct json_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -1;
	st->root = cJSON_CreateObject();
	st->results = cJSON_CreateArray();
	if (!st->root || !st->results) {
		cJSON_Delete(st->root);
		cJSON_Delete(st->results);
		free(st);
		return -1;
	}
	r->state = st;
	return 0;
}

static int json_record(struct peak_reporter *r, const struct peak_result *res)
{
	struct json_state *st = r->state;
	struct peak_cell cells[PEAK_RESULT_MAX_CELLS];
	cJSON *o = cJSON_CreateObject();

	if (!st || !o) {
		cJSON_Delete(o);
		return -1;
	}
	peak_result_cells(res, r->hosts, cells);
	for (size_t i = 0; i < peak_result_ncolumns + (r->hosts ? peak_result_nhost_columns : 0);
	     i++) {
		const char *key = i < peak_result_ncolumns
				      ? peak_result_columns[i]
				      : peak_result_host_columns[i - peak_result_ncolumns];
		if (cells[i].kind == PEAK_CELL_TEXT)
			cJSON_AddStringToObject(o, key, cells[i].text);
		else if (cells[i].kind == PEAK_CELL_NUM)
			add_num(o, key, cells[i].num);
		else
			add_num(o, key, cells[i].present ? (double)cells[i].count : NAN);
	}
	cJSON *samples = cJSON_AddArrayToObject(o, "samples");
	for (size_t i = 0; samples && i < res->nsamples; i++)
		cJSON_AddItemToArray(samples, num_or_null(res->samples[i]));
	cJSON_AddItemToArray(st->results, o);
	return 0;
}

static int json_end(struct peak_reporter *r, const struct peak_context *ctx)
{
	struct json_state *st = r->state;
	int rc = 0;

	if (!st)
		return -1;
	cJSON *context = context_object(ctx);
	if (context && r->nodes) {
		/* One context block per node (clusterbench), each a flat object like this one. */
		cJSON *nodes = cJSON_AddArrayToObject(context, "nodes");
		for (size_t i = 0; nodes && i < r->nnodes; i++)
			cJSON_AddItemToArray(nodes, context_object(&r->nodes[i]));
	}
	cJSON_AddItemToObject(st->root, "context", context);
	cJSON_AddItemToObject(st->root, "results", st->results);
	char *text = cJSON_Print(st->root);
	if (!text || fputs(text, r->out) == EOF || fputc('\n', r->out) == EOF)
		rc = -1;
	free(text);
	cJSON_Delete(st->root);
	free(st);
	r->state = NULL;
	return rc;
}

const struct peak_reporter_ops peak_report_json = {
	.name = "json",
	.begin = json_begin,
	.record = json_record,
	.end = json_end,
};
