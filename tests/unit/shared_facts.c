/* Prints common/base/peak_shared.h's facts as the C compiler reads them, NAME=VALUE a line, for
 * tests/results/test_shared.py to hold against the results program's reading. */
#include <stdio.h>

#include "peak_shared.h"

int main(void)
{
	printf("MOVED_FACTOR=%.17g\n", (double)PEAK_SHARED_MOVED_FACTOR);
	printf("UDP_SOCKBUF_BYTES=%.17g\n", (double)PEAK_SHARED_UDP_SOCKBUF_BYTES);
	return 0;
}
