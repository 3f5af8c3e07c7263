/*
 * fuzz_model.c - a fuzz target for the whole model: the input chooses a
 * machine and a stream of records (every op, a few processes, a small address
 * range), replayed with SWS_REPLAY_VERIFY on a RAM small enough that reclaim,
 * swap-in, zswap writeback and the OOM killer all run. The model may refuse
 * records (they count as errors) but must never hand back a page whose bytes
 * differ (verify_fail), break the swap core's invariants (sws_swap_check), or
 * crash, hang or leak under the sanitizers.
 *
 * Input: byte 0 the design (all seven values, the default included), byte 1
 * bit 0 zswap, bit 1 a memcg limit, bits 2-3 the device (SSD, zram, pmem,
 * xswap with zswap, on phase IV only), bit 4 reclaim policy clock; then 8 bytes a record: op,
 * pid (1..4), flags, page (2 bytes, 1024 pages), length in pages, arg, spare.
 *
 * With libFuzzer the target has a mutator of its own that knows that layout
 * (LLVMFuzzerCustomMutator, LLVMFuzzerCustomCrossOver): it inserts, deletes,
 * copies and swaps whole records, changes one field of one (an op, a pid, a
 * page near another record's, a length), inserts the life of a process (a
 * fork, the child touching its parent's pages, an exit or an exec), flips
 * the machine's bits, and splices two inputs at record boundaries; one time
 * in eight it leaves the bytes to libFuzzer's own mutations. Byte mutations
 * alone mostly make records whose pids never forked and whose pages nobody
 * shares; the seeds in corpus/model (multi-process ones: a bgsave, fork
 * trees, execs, many short-lived children) and this mutator keep the inputs
 * about processes.
 */
#include <string.h>

#include <swapsim/swapsim.h>

#include "fuzz.h"

#define MAX_RECORDS 512
#define NR_PAGES 1024
#define BASE 0x10000000ull

struct src {
	const uint8_t *p;
	size_t n, i;
};

static int next(void *ctx, struct sws_trace_record *rec)
{
	struct src *s = ctx;
	if (s->i >= MAX_RECORDS || (s->i + 1) * 8 > s->n)
		return 0;
	const uint8_t *b = s->p + s->i * 8;
	s->i++;
	uint32_t op = 1 + b[0] % SWS_TRACE_OP_MAX;
	uint64_t page = ((uint64_t)b[3] | (uint64_t)b[4] << 8) % NR_PAGES;
	uint64_t pages = 1 + b[5] % 16;
	*rec = (struct sws_trace_record){
		.addr = BASE + page * SWS_PAGE_SIZE,
		.len = op == SWS_TRACE_ACCESS && !(b[2] & 4) ? 0 : pages * SWS_PAGE_SIZE,
		.op = op,
		.flags = b[2] & 3, /* write, instruction fetch */
		.pid = 1 + b[1] % 4,
		.cpu = SWS_TRACE_CPU_ANY,
		.arg = op == SWS_TRACE_FORK ? 1u + b[6] % 4u : b[6] & 1 ? SWS_TRACE_MEMCG_TASK : 0u,
	};
	rec->tid = rec->pid;
	if (op == SWS_TRACE_RECLAIM)
		rec->len = pages; /* pages, not bytes */
	return 1;
}

static const char *error(void *ctx)
{
	(void)ctx;
	return "fuzz source";
}

#ifdef SWS_LIBFUZZER
/* ---- the structure-aware mutator ------------------------------------------------ */

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
				 size_t max_out, unsigned int seed);

static uint64_t mrand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Record @r: op (1..SWS_TRACE_OP_MAX), pid (1..4), flags, page, pages (1..16), arg byte. */
static void put_rec(uint8_t *r, unsigned op, unsigned pid, unsigned flags, unsigned page, unsigned pages,
		    unsigned arg)
{
	r[0] = (uint8_t)(op - 1);
	r[1] = (uint8_t)(pid - 1);
	r[2] = (uint8_t)flags;
	r[3] = (uint8_t)page;
	r[4] = (uint8_t)(page >> 8);
	r[5] = (uint8_t)(pages - 1);
	r[6] = (uint8_t)arg;
	r[7] = 0;
}

static unsigned rec_page(const uint8_t *r) { return ((unsigned)r[3] | (unsigned)r[4] << 8) % NR_PAGES; }

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	uint64_t s = seed;
	size_t cap = max_size < 2 ? 0 : (max_size - 2) / 8;
	if (cap > MAX_RECORDS)
		cap = MAX_RECORDS;
	if (size < 2 || !cap || mrand(&s) % 8 == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	size_t n = (size - 2) / 8;
	if (n > cap)
		n = cap;
	uint8_t *rec = data + 2;
	/* a page some record already touches, so that processes share it */
	unsigned near = n ? (rec_page(rec + 8 * (mrand(&s) % n)) + (unsigned)(mrand(&s) % 5)) % NR_PAGES
			  : (unsigned)(mrand(&s) % NR_PAGES);
	unsigned pid = 1 + (unsigned)(mrand(&s) % 4), child = 1 + (unsigned)(mrand(&s) % 4);
	size_t at = n ? mrand(&s) % (n + 1) : 0;
	switch (mrand(&s) % 8) {
	case 0: /* insert one record */
		if (n < cap) {
			memmove(rec + 8 * (at + 1), rec + 8 * at, 8 * (n - at));
			put_rec(rec + 8 * at, 1 + (unsigned)(mrand(&s) % SWS_TRACE_OP_MAX), pid,
				(unsigned)(mrand(&s) & 7), near, 1 + (unsigned)(mrand(&s) % 16), child);
			n++;
		}
		break;
	case 1: /* delete a run of records */
		if (n) {
			size_t k = 1 + mrand(&s) % (n - at < 8 ? (n - at ? n - at : 1) : 8);
			if (at + k > n)
				k = n - at;
			memmove(rec + 8 * at, rec + 8 * (at + k), 8 * (n - at - k));
			n -= k;
		}
		break;
	case 2: /* copy a run of records elsewhere */
		if (n && n < cap) {
			size_t from = mrand(&s) % n, k = 1 + mrand(&s) % 8;
			if (from + k > n)
				k = n - from;
			if (n + k > cap)
				k = cap - n;
			uint8_t tmp[8 * 8];
			memcpy(tmp, rec + 8 * from, 8 * k);
			memmove(rec + 8 * (at + k), rec + 8 * at, 8 * (n - at));
			memcpy(rec + 8 * at, tmp, 8 * k);
			n += k;
		}
		break;
	case 3: /* one field of one record */
		if (n) {
			uint8_t *r = rec + 8 * (mrand(&s) % n);
			switch (mrand(&s) % 5) {
			case 0: r[0] = (uint8_t)(mrand(&s) % SWS_TRACE_OP_MAX); break;
			case 1: r[1] = (uint8_t)(pid - 1); break;
			case 2: r[3] = (uint8_t)near; r[4] = (uint8_t)(near >> 8); break;
			case 3: r[5] = (uint8_t)(mrand(&s) % 16); r[2] ^= 4; break;
			default: r[6] = (uint8_t)mrand(&s); r[2] ^= (uint8_t)(1u << (mrand(&s) % 3)); break;
			}
		}
		break;
	case 4: { /* a process's life: fork, touch the parent's pages, exit or exec */
		unsigned touches = 1 + (unsigned)(mrand(&s) % 6);
		if (child == pid)
			child = 1 + pid % 4;
		if (n + touches + 2 <= cap) {
			memmove(rec + 8 * (at + touches + 2), rec + 8 * at, 8 * (n - at));
			uint8_t *r = rec + 8 * at;
			put_rec(r, SWS_TRACE_FORK, pid, 0, near, 1, child - 1); /* arg: 1 + (child - 1) % 4 */
			for (unsigned t = 0; t < touches; t++)
				put_rec(r + 8 * (1 + t), SWS_TRACE_ACCESS, child, (unsigned)(mrand(&s) & 5),
					(near + t) % NR_PAGES, 1 + (unsigned)(mrand(&s) % 4), 0);
			put_rec(r + 8 * (touches + 1), mrand(&s) % 4 ? SWS_TRACE_EXIT : SWS_TRACE_EXEC, child, 0, 0, 1,
				0);
			n += touches + 2;
		}
		break;
	}
	case 5: /* the machine */
		data[mrand(&s) % 2] ^= (uint8_t)(1u << (mrand(&s) % 5));
		break;
	default: /* swap two records */
		if (n > 1) {
			size_t a = mrand(&s) % n, b = mrand(&s) % n;
			uint8_t tmp[8];
			memcpy(tmp, rec + 8 * a, 8);
			memcpy(rec + 8 * a, rec + 8 * b, 8);
			memcpy(rec + 8 * b, tmp, 8);
		}
		break;
	}
	return 2 + 8 * n;
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
				 size_t max_out, unsigned int seed)
{
	uint64_t s = seed;
	if (s1 < 2 || max_out < 2)
		return 0;
	size_t n1 = (s1 - 2) / 8, n2 = s2 >= 2 ? (s2 - 2) / 8 : 0, cap = (max_out - 2) / 8;
	if (cap > MAX_RECORDS)
		cap = MAX_RECORDS;
	/* the first input's machine and head, the second's tail */
	size_t a = n1 ? mrand(&s) % (n1 + 1) : 0, b = n2 ? mrand(&s) % (n2 + 1) : 0;
	if (a > cap)
		a = cap;
	size_t k = n2 - b;
	if (a + k > cap)
		k = cap - a;
	memcpy(out, d1, 2 + 8 * a);
	if (k)
		memcpy(out + 2 + 8 * a, d2 + 2 + 8 * b, 8 * k);
	return 2 + 8 * (a + k);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	struct sws_replay_config cfg = {
		.version = SWS_REPLAY_CONFIG_VERSION,
		.threads = 1,
		.backend = (enum sws_backend)(data[0] % SWS_NR_BACKENDS),
		.ram_pages = 256, /* 1 MiB */
		.mem_limit_pages = data[1] & 2 ? 160 : 0,
		.policy = data[1] & 16 ? SWS_RECLAIM_CLOCK : SWS_RECLAIM_KERNEL,
		.seed = 7,
		.deferred_every = 32,
		.flags = SWS_REPLAY_VERIFY | (data[1] & 1 ? SWS_REPLAY_ZSWAP : 0),
		.nr_swap = 1,
	};
	static const enum sws_replay_swap_kind kinds[] = {SWS_REPLAY_SWAP_SSD, SWS_REPLAY_SWAP_ZRAM,
							   SWS_REPLAY_SWAP_PMEM, SWS_REPLAY_SWAP_XSWAP};
	enum sws_replay_swap_kind kind = kinds[(data[1] >> 2) & 3];
	if (kind == SWS_REPLAY_SWAP_XSWAP) {
		cfg.flags |= SWS_REPLAY_ZSWAP; /* xswap needs zswap and swap table phase IV */
		if (cfg.backend != SWS_BACKEND_DEFAULT && cfg.backend != SWS_BACKEND_ST_P4)
			kind = SWS_REPLAY_SWAP_SSD;
	}
	cfg.swap[0] = (struct sws_replay_swap){.kind = kind, .prio = -1,
					       .pages = kind == SWS_REPLAY_SWAP_XSWAP ? 0 : 512};
	struct sws_replay *r;
	int rc = sws_replay_create(&cfg, &r);
	FUZZ_CHECK(rc == 0, "replay create: %s (backend %d, kind %d)", sws_strerror(rc), cfg.backend,
		   kind);
	struct src s = {data + 2, size - 2, 0};
	struct sws_replay_source src = {.next = next, .error = error, .ctx = &s};
	rc = sws_replay_run(r, &src);
	FUZZ_CHECK(rc == 0, "replay run: %s", sws_strerror(rc));
	struct sws_replay_report rep;
	FUZZ_CHECK(sws_replay_report_get(r, &rep) == 0, "report");
	FUZZ_CHECK(rep.mm.counters[SWS_MM_verify_fail] == 0, "%llu pages came back different",
		   (unsigned long long)rep.mm.counters[SWS_MM_verify_fail]);
	char msg[256];
	FUZZ_CHECK(sws_swap_check(sws_replay_sim(r), msg, sizeof(msg)) == 0, "invariant: %s", msg);
	sws_replay_destroy(r);
	return 0;
}
