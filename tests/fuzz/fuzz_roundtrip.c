/*
 * fuzz_roundtrip.c - a fuzz target for the native writer: the input's bytes
 * become records (48 bytes each, copied into struct sws_trace_record, the op
 * folded into 1..SWS_TRACE_OP_MAX; the first byte chooses zstd for the text
 * (bit 0) and the binary (bit 1) file), which are written as text and as
 * binary and read back (format auto). Both must give the records back
 * exactly, with the native format detected and no warning.
 *
 * The files live in a directory of their own under /dev/shm (tmpfs: the
 * writer's fsync costs nothing there) or $TMPDIR, removed at exit.
 */
#include <string.h>
#include <unistd.h>

#include <swapsim/swapsim.h>

#include "fuzz.h"

#define MAX_RECORDS 4096

static char dir[256], text_path[300], bin_path[300];

static void cleanup(void)
{
	unlink(text_path);
	unlink(bin_path);
	rmdir(dir);
}

static void setup(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/sws-fuzz-roundtrip.XXXXXX", base ? base : "/tmp");
	FUZZ_CHECK(mkdtemp(dir), "mkdtemp %s failed", dir);
	snprintf(text_path, sizeof(text_path), "%s/t.swt", dir);
	snprintf(bin_path, sizeof(bin_path), "%s/b.swt", dir);
	atexit(cleanup);
}

static void roundtrip(const char *path, enum sws_trace_encoding enc, int zstd,
		      const struct sws_trace_record *v, size_t n)
{
	struct sws_trace_writer_config wc = {.encoding = enc,
					     .flags = zstd ? SWS_TRACE_WRITE_ZSTD : 0};
	struct sws_trace_writer *w;
	char msg[600];
	int rc = sws_trace_writer_open(path, &wc, &w, msg, sizeof(msg));
	FUZZ_CHECK(rc == 0, "writer open: %s", msg);
	for (size_t i = 0; i < n; i++) {
		rc = sws_trace_writer_write(w, &v[i]);
		FUZZ_CHECK(rc == 0, "write %zu: %s", i, sws_trace_writer_error(w));
	}
	rc = sws_trace_writer_close(w, msg, sizeof(msg));
	FUZZ_CHECK(rc == 0, "writer close: %s", msg);

	struct sws_trace_reader *r;
	rc = sws_trace_reader_open(path, NULL, &r, msg, sizeof(msg));
	FUZZ_CHECK(rc == 0, "reader open: %s", msg);
	FUZZ_CHECK(sws_trace_reader_format(r) == SWS_TRACE_FORMAT_NATIVE, "not detected as native");
	int is_zstd;
	FUZZ_CHECK(sws_trace_reader_is_binary(r, &is_zstd) == (enc == SWS_TRACE_BINARY) &&
			   is_zstd == zstd,
		   "wrong encoding detected");
	FUZZ_CHECK(!sws_trace_reader_warning(r)[0], "warning: %s", sws_trace_reader_warning(r));
	struct sws_trace_record x;
	size_t got = 0;
	while ((rc = sws_trace_reader_next(r, &x)) == 1) {
		FUZZ_CHECK(got < n, "more records than written");
		FUZZ_CHECK(!memcmp(&x, &v[got], sizeof(x)), "record %zu differs (%s)", got,
			   enc == SWS_TRACE_BINARY ? "binary" : "text");
		got++;
	}
	FUZZ_CHECK(rc == 0, "reading back: %s", sws_trace_reader_error(r));
	FUZZ_CHECK(got == n, "%zu of %zu records read back", got, n);
	sws_trace_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sws_trace_record v[MAX_RECORDS];
	if (!dir[0])
		setup();
	uint8_t opts = size ? data[0] : 0;
	size_t n = size ? (size - 1) / sizeof(v[0]) : 0;
	if (n > MAX_RECORDS)
		n = MAX_RECORDS;
	for (size_t i = 0; i < n; i++) {
		memcpy(&v[i], data + 1 + i * sizeof(v[0]), sizeof(v[0]));
		v[i].op = 1 + v[i].op % SWS_TRACE_OP_MAX;
	}
	roundtrip(text_path, SWS_TRACE_TEXT, opts & 1, v, n);
	roundtrip(bin_path, SWS_TRACE_BINARY, !!(opts & 2), v, n);
	return 0;
}
