/* cmocka with the pieces peakbench's tests need on every supported cmocka version:
 * cmocka 1.1 compares floats only, so assert_double_equal is provided here. */
#ifndef PEAK_CMOCKA_H
#define PEAK_CMOCKA_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>

#ifndef assert_double_equal
/* |a - b| <= epsilon, with both values in the failure message. */
#define assert_double_equal(a, b, epsilon)                                                        \
	do {                                                                                      \
		double peak_a_ = (double)(a), peak_b_ = (double)(b);                              \
		if (!(fabs(peak_a_ - peak_b_) <= (double)(epsilon))) {                            \
			print_error("%.17g != %.17g (epsilon %g)\n", peak_a_, peak_b_,            \
				    (double)(epsilon));                                           \
			_fail(__FILE__, __LINE__);                                                \
		}                                                                                 \
	} while (0)
#endif

#endif
