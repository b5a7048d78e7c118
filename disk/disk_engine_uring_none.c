/* Stand-in for the io_uring engine when liburing was not found at build time. */
#include "disk_engine.h"

#include <stdio.h>

static bool none_available(char *reason, size_t reason_len)
{
	snprintf(reason, reason_len,
		 "diskbench was built without liburing (install liburing-dev and rebuild)");
	return false;
}

const struct disk_engine_ops disk_engine_uring = {
    .name = "uring",
    .max_depth = 1,
    .available = none_available,
};
