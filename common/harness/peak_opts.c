/* Command-line parsing from one option table per binary: getopt_long, range checks, lists
 * and sizes, --help and --version. Every error is one line naming the flag. */
#include "peak_opts.h"
#include "peak_path.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef PEAK_VERSION_STR
#define PEAK_VERSION_STR "0.0.0"
#endif
#ifndef PEAK_GIT_REV
#define PEAK_GIT_REV "unknown"
#endif

const char *const peak_opts_formats[] = {"console", "csv", "json", NULL};

const char *peak_version(void)
{
	return PEAK_VERSION_STR " (git " PEAK_GIT_REV ")";
}

void peak_opts_common_defaults(struct peak_common_opts *c)
{
	memset(c, 0, sizeof(*c));
	c->threads.n = 1;
	c->threads.v[0] = 1;
	c->reps = 3;
	c->min_time_s = 0.2;
	c->ci_pct = 2.0;
	c->format_name = "console";
	c->format = PEAK_FORMAT_CONSOLE;
}

uint64_t peak_opts_max_reps(const struct peak_common_opts *c)
{
	if (!(c->ci_pct > 0) || c->reps >= PEAK_OPTS_MAX_REPS)
		return c->reps;
	uint64_t cap = c->max_reps ? c->max_reps : c->reps * PEAK_OPTS_MAX_REPS_FACTOR;
	if (cap > PEAK_OPTS_MAX_REPS)
		cap = PEAK_OPTS_MAX_REPS;
	return cap > c->reps ? cap : c->reps;
}

__attribute__((format(printf, 3, 4))) static void say(char *err, size_t err_len,
							const char *fmt, ...)
{
	va_list ap;

	if (!err || !err_len)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
	if ((n < 0 || (size_t)n >= err_len) && err_len > 4) /* cut: show it, as peak_fmt does */
		memcpy(err + err_len - 4, "...", 4);
}

int peak_parse_u64(const char *s, uint64_t *out, char *err, size_t err_len)
{
	if (!s || !*s) {
		say(err, err_len, "empty value");
		return -1;
	}
	for (const char *p = s; *p; p++) {
		if (!isdigit((unsigned char)*p)) {
			say(err, err_len, "'%s' is not a non-negative integer", s);
			return -1;
		}
	}
	errno = 0;
	unsigned long long v = strtoull(s, NULL, 10);
	if (errno == ERANGE) {
		say(err, err_len, "'%s' is too large", s);
		return -1;
	}
	*out = (uint64_t)v;
	return 0;
}

int peak_parse_double(const char *s, double *out, char *err, size_t err_len)
{
	char *end = NULL;

	if (!s || !*s) {
		say(err, err_len, "empty value");
		return -1;
	}
	/* Plain decimal numbers only: strtod would also take "inf", "nan" and hex. */
	for (const char *p = s; *p; p++) {
		if (!isdigit((unsigned char)*p) && *p != '.' && *p != 'e' && *p != 'E' &&
		    *p != '-' && *p != '+') {
			say(err, err_len, "'%s' is not a number", s);
			return -1;
		}
	}
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != '\0') {
		say(err, err_len, "'%s' is not a number", s);
		return -1;
	}
	if (errno == ERANGE || !isfinite(v)) {
		say(err, err_len, "'%s' is out of range", s);
		return -1;
	}
	*out = v;
	return 0;
}

struct unit {
	const char *suffix;
	uint64_t multiplier;
};

/* KB/MB/GB are binary here, as the PA1 protocol spells them ("8KB" = 8192 bytes). */
static const struct unit size_units[] = {
	{"", 1},
	{"B", 1},
	{"K", 1ull << 10},   {"KB", 1ull << 10},  {"KiB", 1ull << 10},
	{"M", 1ull << 20},   {"MB", 1ull << 20},  {"MiB", 1ull << 20},
	{"G", 1ull << 30},   {"GB", 1ull << 30},  {"GiB", 1ull << 30},
	{"T", 1ull << 40},   {"TB", 1ull << 40},  {"TiB", 1ull << 40},
};

int peak_parse_size(const char *s, uint64_t *out, char *err, size_t err_len)
{
	char digits[32];
	size_t nd = 0;

	if (!s || !*s) {
		say(err, err_len, "empty size");
		return -1;
	}
	while (isdigit((unsigned char)s[nd]) && nd < sizeof(digits) - 1) {
		digits[nd] = s[nd];
		nd++;
	}
	digits[nd] = '\0';
	if (nd == 0) {
		say(err, err_len, "'%s' is not a size (expected e.g. 8B, 8KiB, 80MiB, 1GiB)", s);
		return -1;
	}
	const char *suffix = s + nd;
	uint64_t mult = 0;
	for (size_t i = 0; i < sizeof(size_units) / sizeof(size_units[0]); i++) {
		if (strcasecmp(suffix, size_units[i].suffix) == 0) {
			mult = size_units[i].multiplier;
			break;
		}
	}
	if (mult == 0) {
		say(err, err_len, "'%s' has an unknown unit (use B, KiB, MiB, GiB, or KB/MB/GB)",
		    s);
		return -1;
	}
	uint64_t n;
	if (peak_parse_u64(digits, &n, NULL, 0) != 0 || n > UINT64_MAX / mult) {
		say(err, err_len, "'%s' is too large", s);
		return -1;
	}
	*out = n * mult;
	return 0;
}

typedef int (*item_parser)(const char *s, uint64_t *out, char *err, size_t err_len);

static int parse_list(const char *s, struct peak_list *out, item_parser parse, char *err,
		      size_t err_len)
{
	char item[64];
	const char *p = s;

	out->n = 0;
	if (!s || !*s) {
		say(err, err_len, "empty list");
		return -1;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0) {
			say(err, err_len, "'%s' has an empty item", s);
			return -1;
		}
		if (len >= sizeof(item)) {
			say(err, err_len, "'%s' has an item that is too long", s);
			return -1;
		}
		if (out->n == PEAK_LIST_MAX) {
			say(err, err_len, "'%s' has too many items (at most 64)", s);
			return -1;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		if (parse(item, &out->v[out->n], err, err_len) != 0)
			return -1;
		out->n++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

int peak_parse_u64_list(const char *s, struct peak_list *out, char *err, size_t err_len)
{
	return parse_list(s, out, peak_parse_u64, err, err_len);
}

int peak_parse_size_list(const char *s, struct peak_list *out, char *err, size_t err_len)
{
	return parse_list(s, out, peak_parse_size, err, err_len);
}

const char *peak_format_list(const struct peak_list *l, char *buf, size_t buf_len)
{
	size_t used = 0;
	if (buf_len == 0)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < l->n && used < buf_len; i++) {
		int w = snprintf(buf + used, buf_len - used, "%s%llu", i ? "," : "",
				 (unsigned long long)l->v[i]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (used >= buf_len && buf_len > 4) /* cut: show it, as peak_fmt does */
		memcpy(buf + buf_len - 4, "...", 4);
	return buf;
}

const char *peak_format_size(uint64_t bytes, char *buf, size_t buf_len)
{
	static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	unsigned u = 0;
	uint64_t v = bytes;

	while (u < 4 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	snprintf(buf, buf_len, "%llu%s", (unsigned long long)v, names[u]);
	return buf;
}

static bool has_range(const struct peak_opt *o)
{
	return !(o->min == 0 && o->max == 0);
}

static int check_range(const struct peak_opt *o, double v, const char *text, char *err,
		       size_t err_len)
{
	if (!has_range(o) || (v >= o->min && v <= o->max))
		return 0;
	if (err && err_len)
		snprintf(err, err_len, "'%s' is out of range (%g..%g)", text, o->min, o->max);
	return -1;
}

static int find_choice(const char *const *choices, const char *s)
{
	for (int i = 0; choices && choices[i]; i++)
		if (strcmp(choices[i], s) == 0)
			return i;
	return -1;
}

static void choices_text(const char *const *choices, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; choices && choices[i]; i++) {
		if (!peak_fmt(buf + used, len - used, "%s%s", i ? ", " : "", choices[i]))
			return; /* the list ends in "...": --help has it whole */
		used += strlen(buf + used);
	}
}

static int parse_choice_list(const struct peak_opt *o, const char *arg, char *err, size_t err_len)
{
	struct peak_str_list *dst = o->dest;
	char item[64], allowed[1024];
	const char *p = arg;

	dst->n = 0;
	if (!*arg) {
		say(err, err_len, "empty list");
		return -1;
	}
	if (strcmp(arg, "all") == 0) {
		for (int i = 0; o->choices[i] && dst->n < PEAK_LIST_MAX; i++)
			dst->v[dst->n++] = o->choices[i];
		return 0;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0 || len >= sizeof(item) || dst->n == PEAK_LIST_MAX) {
			say(err, err_len, "'%s' is not a valid list", arg);
			return -1;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		int idx = find_choice(o->choices, item);
		if (idx < 0) {
			choices_text(o->choices, allowed, sizeof(allowed));
			if (err && err_len)
				(void)peak_fmt(err, err_len,
					       "unknown value '%s' (choose from %s, or all)", item,
					       allowed);
			return -1;
		}
		dst->v[dst->n++] = o->choices[idx];
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* Store one option's argument; on error write the reason (without the flag) to err. */
static int apply_opt(const struct peak_opt *o, const char *arg, char *err, size_t err_len)
{
	uint64_t u;
	double d;
	int idx;
	char allowed[1024];

	switch (o->type) {
	case PEAK_OPT_FLAG:
		*(bool *)o->dest = true;
		return 0;
	case PEAK_OPT_UINT:
		if (peak_parse_u64(arg, &u, err, err_len) != 0 ||
		    check_range(o, (double)u, arg, err, err_len) != 0)
			return -1;
		*(uint64_t *)o->dest = u;
		return 0;
	case PEAK_OPT_SIZE:
		if (peak_parse_size(arg, &u, err, err_len) != 0 ||
		    check_range(o, (double)u, arg, err, err_len) != 0)
			return -1;
		*(uint64_t *)o->dest = u;
		return 0;
	case PEAK_OPT_DOUBLE:
		if (peak_parse_double(arg, &d, err, err_len) != 0 ||
		    check_range(o, d, arg, err, err_len) != 0)
			return -1;
		*(double *)o->dest = d;
		return 0;
	case PEAK_OPT_UINT_LIST:
	case PEAK_OPT_SIZE_LIST: {
		struct peak_list tmp;
		int rc = o->type == PEAK_OPT_UINT_LIST ? peak_parse_u64_list(arg, &tmp, err, err_len)
						       : peak_parse_size_list(arg, &tmp, err, err_len);
		if (rc != 0)
			return -1;
		for (size_t i = 0; i < tmp.n; i++) {
			char item[32];
			snprintf(item, sizeof(item), "%llu", (unsigned long long)tmp.v[i]);
			if (check_range(o, (double)tmp.v[i], item, err, err_len) != 0)
				return -1;
		}
		*(struct peak_list *)o->dest = tmp;
		return 0;
	}
	case PEAK_OPT_STRING:
		if (!*arg) {
			say(err, err_len, "empty value");
			return -1;
		}
		*(const char **)o->dest = arg;
		return 0;
	case PEAK_OPT_PATH:
		if (!*arg) {
			say(err, err_len, "empty value");
			return -1;
		}
		if (peak_path_check(arg, err, err_len) != 0)
			return -1;
		*(const char **)o->dest = arg;
		return 0;
	case PEAK_OPT_CHOICE:
		idx = find_choice(o->choices, arg);
		if (idx < 0) {
			choices_text(o->choices, allowed, sizeof(allowed));
			if (err && err_len)
				(void)peak_fmt(err, err_len, "'%s' is not one of %s", arg, allowed);
			return -1;
		}
		*(const char **)o->dest = o->choices[idx];
		return 0;
	case PEAK_OPT_CHOICE_LIST:
		return parse_choice_list(o, arg, err, err_len);
	case PEAK_OPT_CALLBACK:
		return o->callback(arg, o->dest, err, err_len);
	}
	say(err, err_len, "unsupported option type");
	return -1;
}

void peak_opts_usage(const struct peak_cli *cli)
{
	printf("Usage: %s %s\n%s\n\nOptions:\n", cli->prog, cli->usage ? cli->usage : "[options]",
	       cli->summary ? cli->summary : "");
	for (size_t i = 0; i < cli->nopts; i++) {
		const struct peak_opt *o = &cli->opts[i];
		char left[64];
		if (!o->help)
			continue;
		snprintf(left, sizeof(left), "--%s%s%s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		printf("  %-26s %s\n", left, o->help);
	}
	printf("  %-26s %s\n  %-26s %s\n", "--help", "show this help and exit", "--version",
	       "show the version and exit");
	printf("\nSizes take B, KiB, MiB, GiB (KB, MB, GB are read as binary units too).\n"
	       "Exit codes: 0 ok, 1 measurement failed, 2 usage error, 3 not supported here.\n");
}

static void resolve_format(struct peak_common_opts *c)
{
	int idx = find_choice(peak_opts_formats, c->format_name ? c->format_name : "console");
	c->format = idx == 1 ? PEAK_FORMAT_CSV : idx == 2 ? PEAK_FORMAT_JSON : PEAK_FORMAT_CONSOLE;
}

enum { OPT_HELP = 0x1000, OPT_VERSION, OPT_TABLE_BASE };

enum peak_opts_status peak_opts_parse(const struct peak_cli *cli, int argc, char **argv,
				      int *first_arg)
{
	struct option *longopts = calloc(cli->nopts + 3, sizeof(*longopts));
	enum peak_opts_status status = PEAK_OPTS_OK;
	char err[PEAK_MSG_MAX];

	if (!longopts) {
		fprintf(stderr, "%s: out of memory parsing options\n", cli->prog);
		return PEAK_OPTS_ERROR;
	}
	for (size_t i = 0; i < cli->nopts; i++) {
		longopts[i].name = cli->opts[i].name;
		longopts[i].has_arg = cli->opts[i].type == PEAK_OPT_FLAG ? no_argument
									 : required_argument;
		longopts[i].val = OPT_TABLE_BASE + (int)i;
	}
	longopts[cli->nopts] = (struct option){"help", no_argument, NULL, OPT_HELP};
	longopts[cli->nopts + 1] = (struct option){"version", no_argument, NULL, OPT_VERSION};

	optind = 0; /* full re-initialisation (glibc), so tests may parse repeatedly */
	opterr = 0;
	for (;;) {
		int c = getopt_long(argc, argv, ":h", longopts, NULL);
		if (c == -1)
			break;
		/* After an error getopt has stepped past the offending word. */
		const char *seen = optind > 0 && optind <= argc ? argv[optind - 1] : "";
		if (c == OPT_HELP || c == 'h') {
			peak_opts_usage(cli);
			status = PEAK_OPTS_EXIT;
			goto out;
		}
		if (c == OPT_VERSION) {
			printf("%s (peakbench) %s\n", cli->prog, peak_version());
			status = PEAK_OPTS_EXIT;
			goto out;
		}
		if (c == ':') {
			fprintf(stderr, "%s: %s needs a value (see --help)\n", cli->prog, seen);
			status = PEAK_OPTS_ERROR;
			goto out;
		}
		if (c == '?' || c < OPT_TABLE_BASE) {
			fprintf(stderr, "%s: unknown option '%s' (see --help)\n", cli->prog, seen);
			status = PEAK_OPTS_ERROR;
			goto out;
		}
		const struct peak_opt *o = &cli->opts[c - OPT_TABLE_BASE];
		if (apply_opt(o, optarg ? optarg : "", err, sizeof(err)) != 0) {
			fprintf(stderr, "%s: --%s: %s\n", cli->prog, o->name, err);
			status = PEAK_OPTS_ERROR;
			goto out;
		}
	}
	if (first_arg) {
		*first_arg = optind;
	} else if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", cli->prog,
			argv[optind]);
		status = PEAK_OPTS_ERROR;
		goto out;
	}
	if (cli->common) {
		resolve_format(cli->common);
		if (cli->common->max_reps && cli->common->max_reps < cli->common->reps) {
			fprintf(stderr, "%s: --max-reps: %llu is below --reps %llu\n", cli->prog,
				(unsigned long long)cli->common->max_reps,
				(unsigned long long)cli->common->reps);
			status = PEAK_OPTS_ERROR;
		}
	}
out:
	free(longopts);
	return status;
}
