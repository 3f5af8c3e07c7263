/*
 * stream.c - the byte stream under every trace reader: a file read with stdio,
 * decompressed on the fly when it starts with the zstd magic, split into lines
 * with a length cap. Also error formatting and zstd's allocator hooks.
 *
 * Bounded memory: one buffer of max(max_line + 2, 64 KiB) bytes, the zstd input
 * buffer, and the decompression context with its window capped at
 * 2^SWS_TRACE_ZSTD_WINDOW_LOG_MAX bytes.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include <zstd_errors.h>

#include "trace_internal.h"

#define STREAM_MIN_BUF (64u << 10)

/* ---- errors ---------------------------------------------------------- */

int sws__trace_verr(int *err, char *msg, size_t size, int code, const char *where, const char *fmt,
		    va_list ap)
{
	if (*err)
		return *err;
	int n = snprintf(msg, size, "%s: ", where);
	if (n < 0 || (size_t)n >= size)
		n = 0;
	vsnprintf(msg + n, size - (size_t)n, fmt, ap);
	*err = code;
	return code;
}

/* Record the first error of @r: "@prefix: " then the formatted message. Sticky. */
static int trace_verr(struct sws_trace_reader *r, int code, const char *prefix, const char *fmt,
		      va_list ap)
{
	return sws__trace_verr(&r->err, r->msg, sizeof(r->msg), code, prefix, fmt, ap);
}

static int trace_verr_at(struct sws_trace_reader *r, int code, uint64_t line, const char *fmt,
			 va_list ap)
{
	char where[512];
	snprintf(where, sizeof(where), "%s:%llu", r->path, (unsigned long long)line);
	return trace_verr(r, code, where, fmt, ap);
}

int sws__trace_err_line(struct sws_trace_reader *r, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = trace_verr_at(r, code, r->line, fmt, ap);
	va_end(ap);
	return rc;
}

int sws__trace_err_at(struct sws_trace_reader *r, int code, uint64_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = trace_verr_at(r, code, line, fmt, ap);
	va_end(ap);
	return rc;
}

/* An error at byte @off of the stream, "@note" after the offset. */
static int trace_verr_off(struct sws_trace_reader *r, int code, uint64_t off, const char *note,
			  const char *fmt, va_list ap)
{
	char where[512];
	snprintf(where, sizeof(where), "%s: byte %llu%s", r->path, (unsigned long long)off, note);
	return trace_verr(r, code, where, fmt, ap);
}

int sws__trace_err_byte(struct sws_trace_reader *r, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = trace_verr_off(r, code, off, r->s.zstd ? " (decompressed)" : "", fmt, ap);
	va_end(ap);
	return rc;
}

/* An error about the compressed file itself: its offset is in the file. */
__attribute__((format(printf, 4, 5))) static int err_raw(struct sws_trace_reader *r, int code,
							 uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = trace_verr_off(r, code, off, "", fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- zstd allocations ------------------------------------------------- */

/* zstd's free() gets no size: a 16-byte header in front of each block holds it. */
static void *zstd_alloc(void *opaque, size_t size)
{
	struct sws_mem *m = opaque;
	uint8_t *p = sws__mem_alloc(m, SWS__TRACE_MEM, size + 16, 16);
	if (!p)
		return NULL;
	memcpy(p, &size, sizeof(size));
	return p + 16;
}

static void zstd_free(void *opaque, void *ptr)
{
	struct sws_mem *m = opaque;
	if (!ptr)
		return;
	uint8_t *p = (uint8_t *)ptr - 16;
	size_t size;
	memcpy(&size, p, sizeof(size));
	sws__mem_free(m, SWS__TRACE_MEM, p, size + 16);
}

ZSTD_customMem sws__trace_zstd_mem(struct sws_mem *m)
{
	ZSTD_customMem cm = {zstd_alloc, zstd_free, m};
	return cm;
}

/* ---- the stream -------------------------------------------------------- */

int sws__stream_open(struct sws_trace_reader *r, const char *path)
{
	struct sws_trace_stream *s = &r->s;
	s->path = path;
	s->f = fopen(path, "rb");
	if (!s->f) {
		snprintf(r->msg, sizeof(r->msg), "%s: cannot open: %s", r->path, strerror(errno));
		return r->err = SWS_EIO;
	}
	s->cap = r->cfg.max_line + 2u;
	if (s->cap < STREAM_MIN_BUF)
		s->cap = STREAM_MIN_BUF;
	s->buf = sws__mem_alloc(&r->mem, SWS__TRACE_MEM, s->cap, 0);
	if (!s->buf)
		return err_raw(r, SWS_ENOMEM, 0, "out of memory for the read buffer");

	/* zstd magic (frame 0xFD2FB528, little endian) at the start: decompress. */
	uint8_t magic[4];
	size_t got = fread(magic, 1, sizeof(magic), s->f);
	if (ferror(s->f))
		return err_raw(r, SWS_EIO, 0, "read error: %s", strerror(errno));
	if (got == 0)
		return err_raw(r, SWS_EFORMAT, 0, "empty file");
	static const uint8_t zmagic[4] = {0x28, 0xb5, 0x2f, 0xfd};
	if (got == 4 && !memcmp(magic, zmagic, 4)) {
		s->zstd = 1;
		s->zin_size = ZSTD_DStreamInSize();
		s->zin = sws__mem_alloc(&r->mem, SWS__TRACE_MEM, s->zin_size, 0);
		s->dctx = ZSTD_createDCtx_advanced(sws__trace_zstd_mem(&r->mem));
		if (!s->zin || !s->dctx)
			return err_raw(r, SWS_ENOMEM, 0, "out of memory for zstd decompression");
		ZSTD_DCtx_setParameter(s->dctx, ZSTD_d_windowLogMax, SWS_TRACE_ZSTD_WINDOW_LOG_MAX);
		memcpy(s->zin, magic, 4);
		s->zin_len = 4;
		s->raw_off = 4;
		s->zret = 1;
	} else {
		memcpy(s->buf, magic, got);
		s->len = got;
		s->raw_off = got;
	}
	return 0;
}

void sws__stream_close(struct sws_trace_reader *r)
{
	struct sws_trace_stream *s = &r->s;
	if (s->f)
		fclose(s->f);
	if (s->dctx)
		ZSTD_freeDCtx(s->dctx);
	if (s->zin)
		sws__mem_free(&r->mem, SWS__TRACE_MEM, s->zin, s->zin_size);
	if (s->buf)
		sws__mem_free(&r->mem, SWS__TRACE_MEM, s->buf, s->cap);
	memset(s, 0, sizeof(*s));
}

/* Read more bytes into buf[len..cap). @return 0 (maybe with eof set) or an error. */
static int stream_read(struct sws_trace_reader *r)
{
	struct sws_trace_stream *s = &r->s;
	if (!s->zstd) {
		size_t n = fread(s->buf + s->len, 1, s->cap - s->len, s->f);
		/* An error after a short read too: a read interrupted by a signal
		 * (EINTR) must end the reading, not block again. */
		if (ferror(s->f))
			return err_raw(r, SWS_EIO, s->raw_off + n, "read error: %s", strerror(errno));
		if (n == 0)
			s->eof = 1;
		s->len += n;
		s->raw_off += n;
		return 0;
	}
	/* Loop until some output appears or the input ends: every turn either
	 * reads compressed input, or zstd consumes input or produces output (it
	 * reports an error when it cannot progress), so it terminates. */
	size_t before = s->len;
	for (;;) {
		if (s->zin_pos == s->zin_len && !s->zin_eof) {
			size_t n = fread(s->zin, 1, s->zin_size, s->f);
			if (ferror(s->f))
				return err_raw(r, SWS_EIO, s->raw_off + n, "read error: %s",
					       strerror(errno));
			if (n == 0)
				s->zin_eof = 1;
			s->zin_pos = 0;
			s->zin_len = n;
			s->raw_off += n;
		}
		ZSTD_inBuffer in = {s->zin, s->zin_len, s->zin_pos};
		ZSTD_outBuffer out = {s->buf, s->cap, s->len};
		size_t ret = ZSTD_decompressStream(s->dctx, &out, &in);
		if (ZSTD_isError(ret)) {
			uint64_t at = s->raw_off - (s->zin_len - in.pos);
			if (ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation)
				return err_raw(r, SWS_ENOMEM, at, "out of memory for zstd decompression");
			return err_raw(r, SWS_EFORMAT, at, "corrupted zstd data: %s",
				       ZSTD_getErrorName(ret));
		}
		int progress = in.pos != s->zin_pos || out.pos != s->len;
		s->zin_pos = in.pos;
		s->len = out.pos;
		if (progress) /* 0: the last frame is complete and flushed */
			s->zret = ret;
		if (s->len != before)
			return 0;
		if (!progress && s->zin_eof && s->zin_pos == s->zin_len) {
			if (s->zret != 0)
				return err_raw(r, SWS_EFORMAT, s->raw_off,
					       "truncated zstd stream (the file ends inside a frame)");
			s->eof = 1;
			return 0;
		}
	}
}

int sws__stream_fill(struct sws_trace_reader *r, size_t want)
{
	struct sws_trace_stream *s = &r->s;
	if (want > s->cap)
		want = s->cap;
	if (s->len - s->pos >= want)
		return 0;
	if (s->pos) { /* slide what is left to the front */
		memmove(s->buf, s->buf + s->pos, s->len - s->pos);
		s->base_off += s->pos;
		s->len -= s->pos;
		s->pos = 0;
	}
	while (s->len < want && !s->eof) {
		int rc = stream_read(r);
		if (rc)
			return rc;
	}
	return 0;
}

int sws__stream_line(struct sws_trace_reader *r, char **line, size_t *len)
{
	struct sws_trace_stream *s = &r->s;
	size_t max = r->cfg.max_line;
	size_t scanned = 0;
	for (;;) {
		char *start = (char *)s->buf + s->pos;
		size_t avail = s->len - s->pos;
		if (r->line && !scanned && avail && *start == '\n') {
			/* A run of empty lines after the first line: counted here,
			 * in bulk, as the readers would skip them one by one. Four
			 * bytes of zstd (an RLE block) make 128 KiB of them. */
			size_t k = 1;
			while (k < avail && start[k] == '\n')
				k++;
			s->pos += k;
			r->line += k;
			r->st.lines += k;
			r->st.skipped_lines += k;
			r->st.bytes = sws__stream_off(s);
			continue;
		}
		char *nl = memchr(start + scanned, '\n', avail - scanned);
		size_t n = nl ? (size_t)(nl - start) : avail;
		if (nl || (s->eof && avail)) {
			r->line++;
			r->st.lines++;
			if (n > max)
				return sws__trace_err_line(r, SWS_EFORMAT,
							   "line longer than %zu bytes", max);
			if (memchr(start, '\0', n))
				return sws__trace_err_line(r, SWS_EFORMAT,
							   "NUL byte in a text line (binary data?)");
			s->pos += n + (nl ? 1 : 0);
			/* A last line without '\n' is terminated in place: at EOF,
			 * len < cap (the read that found EOF had room). */
			if (n && start[n - 1] == '\r')
				n--;
			start[n] = '\0';
			*line = start;
			*len = n;
			r->st.bytes = sws__stream_off(s);
			return 1;
		}
		if (s->eof)
			return 0;
		if (avail > max) {
			r->line++;
			r->st.lines++;
			return sws__trace_err_line(r, SWS_EFORMAT, "line longer than %zu bytes", max);
		}
		scanned = avail;
		size_t want = avail + 1;
		int rc = sws__stream_fill(r, want);
		if (rc)
			return rc;
		/* fill() may have moved the data to the front; scanned is relative to pos */
	}
}
