/* peak_team: every thread runs with its own index; team time covers the slowest thread. */
#include "peak_cmocka.h"
#include <string.h>

#include "peak_team.h"
#include "peak_time.h"

struct seen {
	unsigned count[16];
	unsigned nthreads_seen[16];
};

static int mark(void *arg, unsigned idx, unsigned n)
{
	struct seen *s = arg;
	s->count[idx]++; /* each index is written by exactly one thread */
	s->nthreads_seen[idx] = n;
	return 0;
}

/* Thread i sleeps (i + 1) ms: the team time must be at least the slowest one. */
static int staggered(void *arg, unsigned idx, unsigned n)
{
	(void)arg;
	(void)n;
	peak_time_sleep_ns((uint64_t)(idx + 1) * 1000000u);
	return 0;
}

static int fail_on_two(void *arg, unsigned idx, unsigned n)
{
	(void)arg;
	(void)n;
	return idx == 2 ? 7 : 0;
}

static void test_all_threads_run(void **state)
{
	(void)state;
	const unsigned sizes[] = {1, 2, 4, 8};
	for (size_t k = 0; k < 4; k++) {
		char err[128];
		struct peak_team *t = peak_team_create(sizes[k], true, err, sizeof(err));
		assert_non_null(t);
		assert_int_equal(peak_team_size(t), sizes[k]);
		struct seen s;
		memset(&s, 0, sizeof(s));
		for (int rep = 0; rep < 3; rep++)
			assert_int_equal(peak_team_run(t, mark, &s, NULL, NULL), 0);
		for (unsigned i = 0; i < sizes[k]; i++) {
			assert_int_equal(s.count[i], 3);
			assert_int_equal(s.nthreads_seen[i], sizes[k]);
		}
		assert_int_equal(s.count[sizes[k]], 0);
		assert_int_equal(peak_team_oversubscribed(t), sizes[k] > peak_team_allowed_cpus());
		if (peak_team_pinned(t))
			assert_true(peak_team_cpu(t, 0) >= 0);
		peak_team_destroy(t);
	}
}

static void test_team_time_covers_slowest(void **state)
{
	(void)state;
	struct peak_team *t = peak_team_create(4, false, NULL, 0);
	assert_non_null(t);
	uint64_t team_ns = 0, thread_ns[4];
	assert_int_equal(peak_team_run(t, staggered, NULL, &team_ns, thread_ns), 0);
	for (unsigned i = 0; i < 4; i++) {
		assert_true(thread_ns[i] >= (uint64_t)(i + 1) * 1000000u);
		assert_true(team_ns >= thread_ns[i]);
	}
	peak_team_destroy(t);
}

static void test_error_propagates(void **state)
{
	(void)state;
	struct peak_team *t = peak_team_create(4, true, NULL, 0);
	assert_non_null(t);
	assert_int_equal(peak_team_run(t, fail_on_two, NULL, NULL, NULL), 7);
	/* The team is still usable afterwards. */
	struct seen s;
	memset(&s, 0, sizeof(s));
	assert_int_equal(peak_team_run(t, mark, &s, NULL, NULL), 0);
	peak_team_destroy(t);
	assert_null(peak_team_create(0, true, NULL, 0));
}

static void test_alloc_local(void **state)
{
	(void)state;
	size_t bytes = 3u << 20;
	unsigned char *p = peak_team_alloc_local(bytes);
	assert_non_null(p);
	assert_int_equal(((uintptr_t)p) % 4096, 0);
	memset(p, 0xab, bytes);
	assert_int_equal(p[bytes - 1], 0xab);
	peak_team_free_local(p, bytes);
	assert_null(peak_team_alloc_local(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_threads_run),
		cmocka_unit_test(test_team_time_covers_slowest),
		cmocka_unit_test(test_error_propagates),
		cmocka_unit_test(test_alloc_local),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
