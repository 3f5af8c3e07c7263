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
