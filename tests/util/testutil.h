/* testutil.h - shared helpers for libswapsim's cmocka tests. */
#ifndef SWS_TESTUTIL_H
#define SWS_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <swapsim/swapsim.h>

/* Assert an SWS call returned @want, printing names on failure. */
#define assert_sws(want, call)                                                                \
	do {                                                                                  \
		int sws__got = (call);                                                        \
		if (sws__got != (want))                                                       \
			fail_msg("%s: got %s, want %s", #call, sws_error_name(sws__got),      \
				 sws_error_name(want));                                       \
	} while (0)

/* Assert the invariants of docs/design.md (sws_swap_check()) hold. */
#define assert_consistent(sim)                                                  \
	do {                                                                    \
		char sws__msg[256];                                             \
		if (sws_swap_check((sim), sws__msg, sizeof(sws__msg)))          \
			fail_msg("invariant violated: %s", sws__msg);           \
	} while (0)

/* The memory model's counters now (sws_mm_stats_get() by value). */
static inline struct sws_mm_stats sws_test_mm_stats(struct sws_mm *mm)
{
	struct sws_mm_stats s;
	sws_mm_stats_get(mm, &s);
	return s;
}

/* After sws_mm_destroy(): the memory model's own memory all given back. */
static inline void sws_test_assert_mm_freed(struct sws_sim *sim)
{
	sws_sim_quiesce(sim);
	struct sws_memory_usage mu;
	sws_sim_memory_usage(sim, &mu);
	assert_int_equal(mu.bytes[SWS_MEM_mm], 0);
	assert_int_equal(mu.bytes[SWS_MEM_pgtable], 0);
}

/* Destroy @mm, then check that every slot of @sim is free again and the memory
 * model's metadata all given back. */
static inline void sws_test_mm_destroy(struct sws_sim *sim, struct sws_mm *mm)
{
	sws_mm_destroy(mm);
	uint64_t total, freeslots;
	sws_swap_totals(sim, &total, &freeslots);
	assert_int_equal(total, freeslots);
	sws_test_assert_mm_freed(sim);
}

/* A growing NUL-terminated text: sws_test_buf_write() is a report's write callback
 * (ctx: the buffer; free p after). */
struct sws_test_buf {
	char *p;
	size_t len, cap;
};
int sws_test_buf_write(void *ctx, const char *text, size_t len);

/* A simulation with one attached CPU and one device of @nr_slots (SSD). */
struct sws_fixture {
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	int type;
};
void sws_fixture_open(struct sws_fixture *f, enum sws_backend backend, uint64_t nr_slots, uint32_t flags);
void sws_fixture_close(struct sws_fixture *f);

/* A counting allocator that can fail the Nth allocation (1-based; 0: never). */
struct sws_test_alloc {
	struct sws_allocator a;
	uint64_t calls;
	uint64_t fail_nth;
	int64_t live_bytes;
};
void sws_test_alloc_init(struct sws_test_alloc *ta);

/* Deterministic PRNG (splitmix64). */
static inline uint64_t sws_test_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A replay source over an array of records, and a record with no CPU (tid = pid). */
struct sws_test_vec {
	const struct sws_trace_record *rec;
	size_t n, i;
};
int sws_test_vec_next(void *ctx, struct sws_trace_record *rec);
#define SWS_TEST_REC(op_, pid_, addr_, len_, arg_, fl_)                                               \
	(struct sws_trace_record){.op = (op_), .pid = (pid_), .tid = (pid_), .cpu = SWS_TRACE_CPU_ANY, \
				  .addr = (addr_), .len = (len_), .arg = (arg_), .flags = (fl_)}

/* A path for a scratch file under the test directory. */
const char *sws_test_path(char *buf, size_t len, const char *name);

/* A kB figure of this process from /proc/self/status (@key "VmRSS:", ...); 0 if none. */
uint64_t sws_test_proc_status_kb(const char *key);

#endif
