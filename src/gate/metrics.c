// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stdio.h>
#include "metrics.h"
#include "output/output.h"

const char *metric_why(const struct figure_def *m, const struct run_info *info,
		       unsigned int path, const struct path_summary *p)
{
	return path_figure_why(info, path, p, m->fig, m->sample);
}

const char *metric_fmt(char *buf, size_t len, enum figure_unit u, double v)
{
	const char *sign = v < 0 ? "-" : "";
	double a = fabs(v);
	char t[32];

	switch (u) {
	case U_COUNT:
		snprintf(buf, len, "%s%.0f", sign, a);
		break;
	case U_BYTES:
		snprintf(buf, len, "%s%s", sign, fmt_bytes(t, sizeof(t), a));
		break;
	case U_NS:
		snprintf(buf, len, "%s%s", sign, fmt_ns(t, sizeof(t), a));
		break;
	default:
		snprintf(buf, len, "%.2f", v);
	}
	return buf;
}
