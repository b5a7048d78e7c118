/* The context block: an ordered key/value list every reporter writes. */
#include "peak_context.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void peak_context_init(struct peak_context *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
}

static struct peak_kv *slot(struct peak_context *ctx, const char *key)
{
	/* Keys are the program's own names (docs/results-schema.md): one that does not fit is
	 * a bug to see, not a key to cut into another's name. */
	if (strlen(key) >= PEAK_CONTEXT_KEY_LEN) {
		fprintf(stderr, "peakbench: context key '%s' longer than %d bytes: dropped\n", key,
			PEAK_CONTEXT_KEY_LEN - 1);
		return NULL;
	}
	for (size_t i = 0; i < ctx->n; i++)
		if (strcmp(ctx->kv[i].key, key) == 0)
			return &ctx->kv[i];
	if (ctx->n == PEAK_CONTEXT_MAX) {
		fprintf(stderr, "peakbench: context full (%d keys): '%s' dropped\n",
			PEAK_CONTEXT_MAX, key);
		return NULL;
	}
	struct peak_kv *kv = &ctx->kv[ctx->n++];
	memcpy(kv->key, key, strlen(key) + 1);
	return kv;
}

void peak_context_set_str(struct peak_context *ctx, const char *key, const char *value)
{
	struct peak_kv *kv = slot(ctx, key);
	if (!kv)
		return;
	(void)peak_fmt(kv->value, sizeof(kv->value), "%s", value ? value : "");
	kv->type = PEAK_KV_STRING;
}

void peak_context_set_num(struct peak_context *ctx, const char *key, double value)
{
	struct peak_kv *kv = slot(ctx, key);
	if (!kv)
		return;
	if (!isfinite(value)) {
		/* JSON has no NaN: an unknown number is written as null (empty string here). */
		kv->value[0] = '\0';
	} else {
		snprintf(kv->value, sizeof(kv->value), "%.15g", value);
	}
	kv->type = PEAK_KV_NUMBER;
}

void peak_context_set_bool(struct peak_context *ctx, const char *key, bool value)
{
	struct peak_kv *kv = slot(ctx, key);
	if (!kv)
		return;
	snprintf(kv->value, sizeof(kv->value), "%s", value ? "true" : "false");
	kv->type = PEAK_KV_BOOL;
}

void peak_context_warn(struct peak_context *ctx, const char *warning)
{
	const char *old = peak_context_get(ctx, "warnings");
	char joined[PEAK_CONTEXT_VALUE_LEN];

	if (!warning || !*warning)
		return;
	if (old && *old) {
		if (strstr(old, warning))
			return;
		(void)peak_fmt(joined, sizeof(joined), "%s;%s", old, warning);
	} else {
		(void)peak_fmt(joined, sizeof(joined), "%s", warning);
	}
	peak_context_set_str(ctx, "warnings", joined);
}

const char *peak_context_get(const struct peak_context *ctx, const char *key)
{
	for (size_t i = 0; i < ctx->n; i++)
		if (strcmp(ctx->kv[i].key, key) == 0)
			return ctx->kv[i].value;
	return NULL;
}
