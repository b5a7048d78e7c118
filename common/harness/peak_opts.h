/* One option table per binary: drives getopt_long, range checks, --help and --version,
 * and parses lists (1,2,4,8) and sizes (8B, 8KiB, 8KB, 80MiB, 1GiB). */
#ifndef PEAK_OPTS_H
#define PEAK_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PEAK_LIST_MAX 64

struct peak_list {
	size_t n;
	uint64_t v[PEAK_LIST_MAX];
};

struct peak_str_list {
	size_t n;
	const char *v[PEAK_LIST_MAX]; /* point into argv or a choices table */
};

enum peak_opt_type {
	PEAK_OPT_FLAG,        /* bool, no argument */
	PEAK_OPT_UINT,        /* uint64_t in [min, max] */
	PEAK_OPT_DOUBLE,      /* double in [min, max] */
	PEAK_OPT_SIZE,        /* uint64_t bytes with B/KiB/MiB/GiB/KB/MB/GB suffix, in [min, max] */
	PEAK_OPT_UINT_LIST,   /* struct peak_list, each in [min, max] */
	PEAK_OPT_SIZE_LIST,   /* struct peak_list of byte sizes, each in [min, max] */
	PEAK_OPT_STRING,      /* const char * (points into argv) */
	PEAK_OPT_PATH,        /* a STRING the kernel can take as a path (peak_path_check) */
	PEAK_OPT_CHOICE,      /* const char * that must be one of choices */
	PEAK_OPT_CHOICE_LIST, /* struct peak_str_list, each one of choices (or "all") */
	PEAK_OPT_CALLBACK,    /* callback(arg, dest, err, err_len) returns 0 or -1 */
};

typedef int (*peak_opt_callback)(const char *arg, void *dest, char *err, size_t err_len);

struct peak_opt {
	const char *name;  /* long name without dashes */
	const char *arg;   /* metavar for --help, NULL for flags */
	const char *help;  /* one line */
	enum peak_opt_type type;
	void *dest;
	double min;        /* inclusive range for numbers and sizes (ignored when min == max == 0) */
	double max;
	const char *const *choices; /* NULL-terminated, for CHOICE and CHOICE_LIST */
	peak_opt_callback callback;
};
/* An option whose help is NULL is hidden: parsed, but not listed by --help (test-only
 * flags). */

enum peak_format { PEAK_FORMAT_CONSOLE, PEAK_FORMAT_CSV, PEAK_FORMAT_JSON };

/* The flags every binary takes. */
struct peak_common_opts {
	struct peak_list threads;
	uint64_t reps;
	double min_time_s;
	const char *format_name;
	enum peak_format format;
	const char *output; /* NULL: stdout */
	bool quiet;
	/* Adaptive repetitions (peak_stats_enough): a point runs at least reps repetitions
	 * and stops once its 95% CI of the mean is at most ci_pct % of the mean wide (full
	 * width), or at max_reps. ci_pct 0: exactly reps (zeroed options are fixed reps);
	 * max_reps 0: the default cap (peak_opts_max_reps). */
	double ci_pct;
	uint64_t max_reps;
	/* Time a point may spend on repetitions past reps (--point-budget, seconds; 0: no
	 * limit): the next one is run only when the point's measured time so far plus its
	 * mean repetition stays within it. A suite's budget divided by its points. */
	double point_budget_s;
	/* --no-metadata: no request to the cloud's metadata service (peak_cloud.h). */
	bool no_metadata;
};

/* The most repetitions --reps, --max-reps and --ci allow. */
#define PEAK_OPTS_MAX_REPS 1000
/* The default cap with --ci: this many times --reps (bounded by PEAK_OPTS_MAX_REPS). */
#define PEAK_OPTS_MAX_REPS_FACTOR 4

/* Defaults: threads 1, reps 3, min-time 0.2 s, ci 2%, max-reps 4 x reps, console, stdout. */
void peak_opts_common_defaults(struct peak_common_opts *c);

/* The most repetitions a point may run: reps with --ci 0, else max_reps (its default when
 * 0); never below reps nor above PEAK_OPTS_MAX_REPS. Size per-repetition arrays with it. */
uint64_t peak_opts_max_reps(const struct peak_common_opts *c);

/* Table rows for the common flags; put this macro in a binary's table. */
#define PEAK_OPTS_COMMON(c)                                                                        \
	{"threads", "LIST", "thread counts to sweep, e.g. 1,2,4,8", PEAK_OPT_UINT_LIST,           \
	 &(c)->threads, 1, 1024, NULL, NULL},                                                      \
	{"min-time", "SECONDS", "shortest duration of one repetition", PEAK_OPT_DOUBLE,           \
	 &(c)->min_time_s, 0.0001, 3600, NULL, NULL},                                              \
	PEAK_OPTS_COMMON_REPORT(c)

/* The common flags without --threads and --min-time, for a binary that has no thread sweep
 * and whose repetitions have their own length (dpdkbench: -l/--queues, --time). */
#define PEAK_OPTS_COMMON_REPORT(c)                                                                 \
	{"reps", "N", "measured repetitions per point after a warm-up; with --ci the fewest",      \
	 PEAK_OPT_UINT, &(c)->reps, 1, PEAK_OPTS_MAX_REPS, NULL, NULL},                            \
	{"ci", "PCT", "repeat until the 95% CI of the mean is within PCT% (full width; 0: off)",   \
	 PEAK_OPT_DOUBLE, &(c)->ci_pct, 0, 100, NULL, NULL},                                       \
	{"max-reps", "N", "most repetitions per point with --ci (default 4 x --reps)",             \
	 PEAK_OPT_UINT, &(c)->max_reps, 2, PEAK_OPTS_MAX_REPS, NULL, NULL},                        \
	{"point-budget", "SECONDS",                                                                 \
	 "with --ci, repeat past --reps only while a point's measured time stays within SECONDS",  \
	 PEAK_OPT_DOUBLE, &(c)->point_budget_s, 0, 86400, NULL, NULL},                             \
	{"format", "FMT", "console, csv or json", PEAK_OPT_CHOICE, &(c)->format_name, 0, 0,       \
	 peak_opts_formats, NULL},                                                                 \
	{"output", "FILE", "write results to FILE instead of stdout", PEAK_OPT_PATH,              \
	 &(c)->output, 0, 0, NULL, NULL},                                                          \
	{"quiet", NULL, "no progress on stderr", PEAK_OPT_FLAG, &(c)->quiet, 0, 0, NULL, NULL},     \
	{"no-metadata", NULL,                                                                       \
	 "ask no cloud metadata service for the instance type (DMI and --set only)",               \
	 PEAK_OPT_FLAG, &(c)->no_metadata, 0, 0, NULL, NULL}

extern const char *const peak_opts_formats[];

struct peak_cli {
	const char *prog;     /* e.g. "cpubench" */
	const char *usage;    /* e.g. "[options]" */
	const char *summary;  /* one line on what the binary measures */
	const struct peak_opt *opts;
	size_t nopts;
	struct peak_common_opts *common; /* may be NULL; its format is resolved after parsing */
};

enum peak_opts_status {
	PEAK_OPTS_OK = 0,
	PEAK_OPTS_EXIT = 1,  /* --help or --version printed: exit 0 */
	PEAK_OPTS_ERROR = 2, /* one line already printed on stderr: exit 2 */
};

/* Parse argv against the table. Non-option arguments are left at argv[*first_arg ..]
 * (first_arg may be NULL, then any non-option argument is an error). */
enum peak_opts_status peak_opts_parse(const struct peak_cli *cli, int argc, char **argv,
				      int *first_arg);

/* Print --help for the table on stdout. */
void peak_opts_usage(const struct peak_cli *cli);

/* Parsers, also used directly. Return 0, or -1 with a reason in err (without the flag). */
int peak_parse_u64(const char *s, uint64_t *out, char *err, size_t err_len);
int peak_parse_double(const char *s, double *out, char *err, size_t err_len);
int peak_parse_size(const char *s, uint64_t *out, char *err, size_t err_len);
int peak_parse_u64_list(const char *s, struct peak_list *out, char *err, size_t err_len);
int peak_parse_size_list(const char *s, struct peak_list *out, char *err, size_t err_len);

/* "0,2,3": a list as it was given (the context's record of a --cpus). */
const char *peak_format_list(const struct peak_list *l, char *buf, size_t buf_len);

/* "8KiB" style label for a byte count (exact binary units when they divide, else bytes). */
const char *peak_format_size(uint64_t bytes, char *buf, size_t buf_len);

/* Version string of the suite (from the build, with git revision when known). */
const char *peak_version(void);

#endif
