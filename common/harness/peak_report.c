/* Reporter plumbing: choose the reporter for --format, bind it to --output or stdout. */
#include "peak_report.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "peak_path.h"

const struct peak_reporter_ops *peak_report_ops_for(enum peak_format format)
{
	switch (format) {
	case PEAK_FORMAT_CSV:
		return &peak_report_csv;
	case PEAK_FORMAT_JSON:
		return &peak_report_json;
	case PEAK_FORMAT_CONSOLE:
		break;
	}
	return &peak_report_console;
}

const char *peak_report_num(double v, char *buf, size_t buf_len)
{
	if (!isfinite(v))
		buf[0] = '\0';
	else
		snprintf(buf, buf_len, "%.9g", v);
	return buf;
}

int peak_output_open(struct peak_output *o, enum peak_format format, const char *path, char *err,
		     size_t err_len)
{
	memset(o, 0, sizeof(*o));
	o->rep.ops = peak_report_ops_for(format);
	o->rep.out = stdout;
	if (path && strcmp(path, "-") != 0) {
		o->rep.out = fopen(path, "w");
		if (!o->rep.out) {
			(void)peak_fmt(err, err_len, "cannot write --output %s: %s", path,
				       strerror(errno));
			return -1;
		}
		o->close_out = true;
	}
	return 0;
}

void peak_output_cluster(struct peak_output *o, const struct peak_context *nodes, size_t nnodes)
{
	o->rep.hosts = true;
	o->rep.nodes = nodes;
	o->rep.nnodes = nnodes;
}

int peak_output_begin(struct peak_output *o, const struct peak_context *ctx)
{
	o->begun = true;
	return o->rep.ops->begin(&o->rep, ctx);
}

int peak_output_record(struct peak_output *o, const struct peak_result *res)
{
	return o->rep.ops->record(&o->rep, res);
}

int peak_output_close(struct peak_output *o, const struct peak_context *ctx)
{
	int rc = 0;

	if (o->begun && o->rep.ops->end(&o->rep, ctx) != 0)
		rc = -1;
	if (fflush(o->rep.out) != 0 || ferror(o->rep.out))
		rc = -1;
	if (o->close_out && fclose(o->rep.out) != 0)
		rc = -1;
	o->rep.out = NULL;
	o->begun = false;
	return rc;
}
