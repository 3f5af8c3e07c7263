/*
 * fuzz_reader.c - a fuzz target for one trace reader, chosen when it is built:
 * FUZZ_FORMAT is the enum sws_trace_format to open with; FUZZ_NATIVE 1 (text)
 * or 2 (binary) puts the native text or binary header in front of an input
 * that has none (and is not zstd-compressed), so that the native targets
 * reach past the header check.
 *
 * The input becomes a file (a memfd, opened through /proc/self/fd/N) and is
 * read to its end with the default configuration. Beyond memory safety (the
 * sanitizers) the target checks what swapsim/trace.h promises on any input:
 *
 *   - open() and next() return only the documented codes, and a failed open
 *     leaves *out NULL;
 *   - an error has a message naming the file, and it is sticky;
 *   - every record has a valid op;
 *   - the output is bounded by the input: at most one record per byte read,
 *     DAMON at most SWS_TRACE_DAMON_EXPANSION_DEFAULT per byte of the file;
 *   - the reader's memory stays within its documented bounds.
 *
 * libFuzzer's -timeout and -rss_limit_mb catch unbounded work and memory.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <swapsim/swapsim.h>

#include "fuzz.h"

#ifndef FUZZ_FORMAT
#define FUZZ_FORMAT SWS_TRACE_FORMAT_AUTO
#endif
#ifndef FUZZ_NATIVE
#define FUZZ_NATIVE 0
#endif

/* The header FUZZ_NATIVE adds, and how many of its bytes say "this has one". */
static const struct {
	const char *bytes;
	size_t len, match;
} headers[3] = {
	{"", 0, 0},
	{"# swapsim-trace v2\n", 19, 15},
	{"SWSTRACE\2\0\0\0\0\0\0\0", 16, 8},
};

/* The reader's memory: the buffer, zstd's window and context, DAMON regions,
 * the perf importer's task table (at most 2 slots of 56 bytes per task) and
 * held records (56 bytes each). */
#define MEMORY_BOUND ((size_t)SWS_TRACE_MAX_LINE_DEFAULT + 2 + (64u << 10) + (1u << 27) + \
		      (32u << 20) + (size_t)SWS_TRACE_DAMON_MAX_REGIONS * 32 +                \
		      (size_t)SWS_TRACE_PERF_MAX_TASKS * 2 * 56 + (size_t)SWS_TRACE_PERF_MAX_HELD * 56)

static int fd = -1;
static char path[64];

static void write_all(const void *p, size_t n, off_t at)
{
	const char *c = p;
	while (n) {
		ssize_t w = pwrite(fd, c, n, at);
		FUZZ_CHECK(w > 0, "pwrite to the memfd failed");
		c += w;
		at += w;
		n -= (size_t)w;
	}
}

static int documented(int rc)
{
	return rc == SWS_EFORMAT || rc == SWS_EVERSION || rc == SWS_ENOMEM;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fd < 0) {
		fd = memfd_create("trace", MFD_CLOEXEC);
		FUZZ_CHECK(fd >= 0, "memfd_create failed");
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	const char *hdr = headers[FUZZ_NATIVE].bytes;
	size_t hn = headers[FUZZ_NATIVE].len, match = headers[FUZZ_NATIVE].match;
	static const uint8_t zmagic[4] = {0x28, 0xb5, 0x2f, 0xfd};
	if (hn && ((size >= match && !memcmp(data, hdr, match)) ||
		   (size >= 4 && !memcmp(data, zmagic, 4))))
		hn = 0; /* it has a header (or is compressed): leave it as it is */
	FUZZ_CHECK(ftruncate(fd, 0) == 0, "ftruncate failed");
	write_all(hdr, hn, 0);
	write_all(data, size, (off_t)hn);

	struct sws_trace_reader_config cfg = {.format = FUZZ_FORMAT};
	struct sws_trace_reader *r = (void *)&cfg;
	char msg[600] = "";
	int rc = sws_trace_reader_open(path, &cfg, &r, msg, sizeof(msg));
	if (rc) {
		FUZZ_CHECK(documented(rc), "open: %s", sws_error_name(rc));
		FUZZ_CHECK(r == NULL, "failed open left *out set");
		FUZZ_CHECK(strstr(msg, path), "open error does not name the file: %s", msg);
		return 0;
	}
	FUZZ_CHECK(FUZZ_FORMAT == SWS_TRACE_FORMAT_AUTO ||
			   sws_trace_reader_format(r) == FUZZ_FORMAT,
		   "opened as %s", sws_trace_format_name(sws_trace_reader_format(r)));
	const char *warning = sws_trace_reader_warning(r);
	FUZZ_CHECK(!warning[0] || strstr(warning, path), "warning does not name the file: %s",
		   warning);
	struct sws_trace_record rec;
	uint64_t n = 0;
	while ((rc = sws_trace_reader_next(r, &rec)) == 1) {
		n++;
		FUZZ_CHECK(rec.op >= 1 && rec.op <= SWS_TRACE_OP_MAX, "record %llu has op %u",
			   (unsigned long long)n, rec.op);
		FUZZ_CHECK(sws_trace_reader_memory_usage(r) <= MEMORY_BOUND, "reader holds %zu bytes",
			   sws_trace_reader_memory_usage(r));
	}
	struct sws_trace_reader_stats st;
	sws_trace_reader_stats_get(r, &st);
	/* DAMON: per byte of the file (compressed or not); the others: per byte read */
	uint64_t bound = sws_trace_reader_format(r) == SWS_TRACE_FORMAT_DAMON
				 ? SWS_TRACE_DAMON_EXPANSION_DEFAULT * (uint64_t)(hn + size)
				 : st.bytes;
	FUZZ_CHECK(st.records == n && n <= bound, "%llu records (stats: %llu) from %llu bytes",
		   (unsigned long long)n, (unsigned long long)st.records,
		   (unsigned long long)st.bytes);
	if (rc) {
		FUZZ_CHECK(documented(rc), "next: %s", sws_error_name(rc));
		const char *e = sws_trace_reader_error(r);
		FUZZ_CHECK(strstr(e, path), "error does not name the file: %s", e);
		FUZZ_CHECK(sws_trace_reader_next(r, &rec) == rc, "error not sticky");
	} else {
		FUZZ_CHECK(!sws_trace_reader_error(r)[0], "error message at a clean end");
		FUZZ_CHECK(sws_trace_reader_next(r, &rec) == 0, "end not sticky");
	}
	sws_trace_reader_close(r);
	return 0;
}
