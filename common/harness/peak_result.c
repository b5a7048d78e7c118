/* The result record: one row of the common schema, with its samples and flags. */
#include "peak_result.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The columns and their cells, from the one list (peak_columns.def). */
#define TEXT(v)     ((struct peak_cell){.kind = PEAK_CELL_TEXT, .text = (v)})
#define NUM(v)      ((struct peak_cell){.kind = PEAK_CELL_NUM, .num = (v)})
#define COUNT(p, v) ((struct peak_cell){.kind = PEAK_CELL_COUNT, .present = (p), .count = (v)})

const char *const peak_result_columns[] = {
#define PEAK_COLUMN(name, cell) #name,
#define PEAK_HOST_COLUMN(name, cell)
#include "peak_columns.def"
#undef PEAK_COLUMN
#undef PEAK_HOST_COLUMN
};
const size_t peak_result_ncolumns = sizeof(peak_result_columns) / sizeof(peak_result_columns[0]);

const char *const peak_result_host_columns[] = {
#define PEAK_COLUMN(name, cell)
#define PEAK_HOST_COLUMN(name, cell) #name,
#include "peak_columns.def"
#undef PEAK_COLUMN
#undef PEAK_HOST_COLUMN
};
const size_t peak_result_nhost_columns =
	sizeof(peak_result_host_columns) / sizeof(peak_result_host_columns[0]);

_Static_assert(sizeof(peak_result_columns) / sizeof(peak_result_columns[0]) +
			   sizeof(peak_result_host_columns) / sizeof(peak_result_host_columns[0]) <=
		       PEAK_RESULT_MAX_CELLS,
	       "PEAK_RESULT_MAX_CELLS is below the columns of peak_columns.def");

void peak_result_cells(const struct peak_result *r, bool hosts, struct peak_cell *cells)
{
	const struct peak_summary *s = &r->summary;
	bool have = s->n > 0;
	size_t i = 0;
#define PEAK_COLUMN(name, cell) cells[i++] = cell;
#define PEAK_HOST_COLUMN(name, cell)                                                               \
	if (hosts)                                                                                 \
		cells[i++] = cell;
#include "peak_columns.def"
#undef PEAK_COLUMN
#undef PEAK_HOST_COLUMN
}

void peak_result_init(struct peak_result *r, const char *suite, const char *test,
		      const char *variant, const char *metric, const char *unit)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->suite, sizeof(r->suite), "%s", suite ? suite : "");
	snprintf(r->test, sizeof(r->test), "%s", test ? test : "");
	snprintf(r->variant, sizeof(r->variant), "%s", variant ? variant : "");
	snprintf(r->metric, sizeof(r->metric), "%s", metric ? metric : "");
	snprintf(r->unit, sizeof(r->unit), "%s", unit ? unit : "");
	r->p50 = r->p90 = r->p99 = r->p999 = NAN;
	r->theoretical = r->efficiency = r->baseline = NAN;
}

void peak_result_set_samples(struct peak_result *r, const double *samples, size_t n)
{
	r->samples = samples;
	r->nsamples = n;
	peak_stats_summarize(samples, n, &r->summary);
}

void peak_result_flag(struct peak_result *r, const char *flag)
{
	size_t len = strlen(r->flags), flen = strlen(flag);
	const char *p = r->flags;

	if (!flen)
		return;
	/* Already there as a whole item? */
	while ((p = strstr(p, flag)) != NULL) {
		bool starts = p == r->flags || p[-1] == ';';
		bool ends = p[flen] == '\0' || p[flen] == ';';
		if (starts && ends)
			return;
		p += flen;
	}
	/* Whole items only: a cut one ("steal_pct=1" of "steal_pct=12.3") would read as another
	 * figure. The room kept for PEAK_FLAGS_CUT says that one or more flags were left out. */
	size_t room = sizeof(r->flags) - sizeof(";" PEAK_FLAGS_CUT);
	size_t need = len + (len ? 1 : 0) + flen;
	if (need <= room) {
		memcpy(r->flags + len + (len ? 1 : 0), flag, flen + 1);
		if (len)
			r->flags[len] = ';';
		return;
	}
	if (peak_result_has_flag(r->flags, PEAK_FLAGS_CUT))
		return;
	(void)snprintf(r->flags + len, sizeof(r->flags) - len, "%s" PEAK_FLAGS_CUT, len ? ";" : "");
}

void peak_result_flag_pct(struct peak_result *r, const char *key, double pct, bool up)
{
	if (!isfinite(pct))
		return;
	/* The 1e-9 keeps a figure already on a tenth (2.1 read as 2.1000000001) where it is. */
	double tenths = up ? ceil(pct * 10.0 - 1e-9) : floor(pct * 10.0 + 1e-9);
	char item[64];
	int n = snprintf(item, sizeof(item), "%s=%.1f", key, tenths / 10.0);
	if (n > 0 && (size_t)n < sizeof(item))
		peak_result_flag(r, item);
}

bool peak_result_flag_item(const char *flags, const char *key, char *out, size_t n)
{
	size_t klen = strlen(key);
	for (const char *p = flags; p && *p;) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=' && len < n) {
			memcpy(out, p, len);
			out[len] = '\0';
			return true;
		}
		p = end ? end + 1 : NULL;
	}
	return false;
}

void peak_result_flag_copy(struct peak_result *r, const char *flags, const char *key)
{
	size_t klen = strlen(key);
	for (const char *p = flags; p && *p;) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len >= klen && strncmp(p, key, klen) == 0 && (len == klen || p[klen] == '=')) {
			char item[sizeof r->flags];
			if (len >= sizeof item)
				return;
			memcpy(item, p, len);
			item[len] = '\0';
			peak_result_flag(r, item);
			return;
		}
		p = end ? end + 1 : NULL;
	}
}

bool peak_result_has_flag(const char *flags, const char *name)
{
	size_t nlen = strlen(name);
	for (const char *p = flags; p && *p;) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len >= nlen && strncmp(p, name, nlen) == 0 && (len == nlen || p[nlen] == '='))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* Remove every whole item equal to name from r->flags. */
static void unflag(struct peak_result *r, const char *name)
{
	char kept[sizeof r->flags];
	size_t nlen = strlen(name), k = 0;
	for (const char *p = r->flags; *p;) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len && !(len == nlen && strncmp(p, name, nlen) == 0)) {
			if (k)
				kept[k++] = ';';
			memcpy(kept + k, p, len);
			k += len;
		}
		if (!end)
			break;
		p = end + 1;
	}
	kept[k] = '\0';
	memcpy(r->flags, kept, k + 1);
}

/* Set (or drop) a physics flag so that it says what the figure says now. */
static void flag_if(struct peak_result *r, const char *name, bool set)
{
	if (set)
		peak_result_flag(r, name);
	else
		unflag(r, name);
}

void peak_result_finish(struct peak_result *r)
{
	bool above = false;
	if (r->summary.n > 0 && isfinite(r->theoretical) && r->theoretical > 0) {
		r->efficiency = r->summary.mean / r->theoretical;
		/* A rate above the machine's peak breaks physics: the peak's inputs or the
		 * measurement is wrong, and the reader must be told. A comparison row's peak is
		 * another one by design: its ratio says nothing of physics. */
		above = r->efficiency > PEAK_ABOVE_PEAK_RATIO &&
			strcmp(r->metric, "latency") != 0 &&
			!peak_result_has_flag(r->flags, PEAK_COMPARISON_FLAG);
	} else {
		r->efficiency = NAN;
	}
	flag_if(r, "above_peak", above);
	flag_if(r, "zero",
		r->summary.n > 0 && r->summary.mean <= 0.0 && strcmp(r->metric, "loss") != 0 &&
		    strcmp(r->metric, "errors") != 0);
}
