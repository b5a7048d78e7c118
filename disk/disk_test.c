/* The disk tests: their command-line names and what each one does (reads, writes, random). */
#include "disk_job.h"

const char *disk_test_name(enum disk_test t)
{
	static const char *const names[] = {"seq_rw",	  "seq_read",	"seq_write",
					    "rand_read",  "rand_write", "seq_write_new"};
	return names[t];
}

bool disk_test_writes(enum disk_test t)
{
	return t == DISK_SEQ_RW || t == DISK_SEQ_WRITE || t == DISK_RAND_WRITE ||
	       t == DISK_SEQ_WRITE_NEW;
}

bool disk_test_reads(enum disk_test t)
{
	return t != DISK_SEQ_WRITE && t != DISK_RAND_WRITE && t != DISK_SEQ_WRITE_NEW;
}

bool disk_test_random(enum disk_test t)
{
	return t == DISK_RAND_READ || t == DISK_RAND_WRITE;
}
