/* The context block: ordered key/value pairs describing the machine and the run,
 * written by every reporter (console header, JSON "context" object). */
#ifndef PEAK_CONTEXT_H
#define PEAK_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "peak_path.h"

#define PEAK_CONTEXT_MAX 160
#define PEAK_CONTEXT_KEY_LEN 48
/* A value holds a whole path (a --config, --root or --dir the kernel takes) and a sentence
 * about it: PEAK_MSG_MAX. A longer value is cut and ends in "..." (peak_fmt). */
#define PEAK_CONTEXT_VALUE_LEN PEAK_MSG_MAX

enum peak_kv_type { PEAK_KV_STRING, PEAK_KV_NUMBER, PEAK_KV_BOOL };

struct peak_kv {
	char key[PEAK_CONTEXT_KEY_LEN];
	char value[PEAK_CONTEXT_VALUE_LEN]; /* numbers kept as their decimal text */
	enum peak_kv_type type;
};

struct peak_context {
	size_t n;
	struct peak_kv kv[PEAK_CONTEXT_MAX];
};

void peak_context_init(struct peak_context *ctx);
/* Set (or replace) a key. A key past PEAK_CONTEXT_MAX, or one longer than
 * PEAK_CONTEXT_KEY_LEN, is a program error: it is dropped with one line on stderr. */
void peak_context_set_str(struct peak_context *ctx, const char *key, const char *value);
void peak_context_set_num(struct peak_context *ctx, const char *key, double value);
void peak_context_set_bool(struct peak_context *ctx, const char *key, bool value);
/* Append to the semicolon-separated "warnings" key. */
void peak_context_warn(struct peak_context *ctx, const char *warning);
/* Value of a key, or NULL. */
const char *peak_context_get(const struct peak_context *ctx, const char *key);

#endif
