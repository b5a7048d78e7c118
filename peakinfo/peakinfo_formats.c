/* peakinfo's per-format table (peak_formats.h): one row per number format and unit form
 * this architecture has, FP64 and FP32 included, with its peak or "unsupported: reason". */
#include <stdio.h>
#include <string.h>

#include "peak_formats.h"
#include "peakinfo.h"

/* A flag item holds no ';' (the flags' separator): a note's own become ','. */
static void flag_clean(struct peak_result *r, const char *fmt_name, const char *text)
{
	char item[PEAK_FMT_NOTE_LEN + 32];
	(void)snprintf(item, sizeof item, "%.24s%.200s", fmt_name, text);
	for (char *p = item; *p; p++)
		if (*p == ';')
			*p = ',';
	peak_result_flag(r, item);
}

static int format_row(struct peak_output *out, const struct peak_format_entry *e,
		      const char *clock_refused)
{
	struct peak_result r;
	bool int8 = e->format == PEAK_FMT_INT8;
	peak_result_init(&r, "cpu", "format_peak", e->variant, int8 ? "iops_int" : "flops",
			 peak_format_rate_unit(e->format));
	r.threads = e->threads;
	char flag[96];
	(void)snprintf(flag, sizeof flag, "format=%s", peak_format_name(e->format));
	peak_result_flag(&r, flag);
	(void)snprintf(flag, sizeof flag, "unit=%s", peak_format_unit_name(e->unit));
	peak_result_flag(&r, flag);
	(void)snprintf(flag, sizeof flag, "isa=%s", e->isa);
	peak_result_flag(&r, flag);
	if (!e->supported) {
		peak_result_flag(&r, "source=unknown");
		flag_clean(&r, "unsupported: ", e->reason);
		return peak_output_record(out, &r);
	}
	(void)snprintf(flag, sizeof flag, "source=%s",
		       e->peak_g_per_s > 0 ? peak_source_name(e->rate_source) : "unknown");
	peak_result_flag(&r, flag);
	if (e->peak_g_per_s > 0)
		r.theoretical = e->peak_g_per_s;
	(void)snprintf(flag, sizeof flag, "per_cycle=%g", e->ops_per_cycle);
	peak_result_flag(&r, flag);
	(void)snprintf(flag, sizeof flag, "ghz=%.3f(%s)", e->ghz, e->clock_key);
	peak_result_flag(&r, flag);
	if (e->table_corrected)
		peak_result_flag(&r, "table_corrected");
	if (clock_refused[0])
		flag_clean(&r, "clock_refused=", clock_refused);
	flag_clean(&r, "rate_source=", e->rate_note);
	return peak_output_record(out, &r);
}

/* Each supported form with a loaded chain gets the clock read under it (about 45 ms a
 * load, each load once), as cpubench's rows do: the peak at the clock the form runs at.
 * A reading its checks refuse leaves cpu.ghz, and the row says why. */
static void format_clocks(struct peak_format_list *l, char refused[][96])
{
	struct peak_freq_load_clock c[PEAK_FREQ_LOAD_COUNT];
	bool read[PEAK_FREQ_LOAD_COUNT] = {false};
	for (size_t i = 0; i < l->n; i++) {
		struct peak_format_entry *e = &l->e[i];
		refused[i][0] = '\0';
		if (!e->supported || e->load == PEAK_FREQ_LOAD_NONE ||
		    (unsigned)e->load >= PEAK_FREQ_LOAD_COUNT)
			continue;
		if (!read[e->load]) {
			peak_freq_load_clock(e->load, 0.002, 5, &c[e->load]);
			read[e->load] = true;
		}
		char key[PEAK_FMT_NAME_LEN];
		(void)snprintf(key, sizeof key, "cpu.clock_ghz.%s", peak_freq_load_name(e->load));
		if (c[e->load].ok)
			peak_format_set_clock(e, c[e->load].ghz, key);
		else
			(void)snprintf(refused[i], sizeof refused[i], "%s: %s", key,
				       c[e->load].why);
	}
}

int peakinfo_format_rows(struct peak_output *out, const struct peak_machine *m)
{
	struct peak_format_list l;
	char refused[PEAK_FMT_MAX][96];
	peak_formats_list(m, 0, &l);
	format_clocks(&l, refused);
	for (size_t i = 0; i < l.n; i++)
		if (format_row(out, &l.e[i], refused[i]) != 0)
			return -1;
	return 0;
}
