/*
 * writer.c - the native trace writer, text or binary, zstd-compressed or not
 * (the format is written down in native.c and docs/trace-format.md).
 *
 * Atomic output. A regular file is never written in place: open() creates a
 * temporary beside it, ".NAME.XXXXXX" in the same directory (rename() is
 * atomic only within one file system), and close() finishes it, fsync()s it
 * and renames it over NAME. An error, or abort(), removes the temporary and
 * leaves NAME as it was; a process killed on the way leaves NAME as it was
 * and its temporary behind.
 *
 *   open:   NAME ──(symbolic links followed)──▶ final; create .final.XXXXXX
 *   write:  record ──▶ buf ──▶ [zstd] ──▶ FILE on the temporary
 *   close:  end record, flush, fsync, rename(temporary, final), fsync(dir)
 *
 * An existing file keeps its permission bits (a new one gets 0666 less the
 * umask, as with fopen()); a symbolic link is followed, so its target is
 * replaced and the link stays. An output that exists and is not a regular
 * file (a character device, a FIFO: /dev/null, a pipe behind /dev/stdout)
 * cannot be replaced: it is written in place. The temporary's letters come
 * from getrandom(); they decide nothing a simulation sees.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../trace_internal.h"

#define WBUF_SIZE (64u << 10)
#define TMP_LETTERS 6   /* random letters at the end of the temporary's name */
#define TMP_TRIES 64    /* names tried before giving up (O_EXCL collisions) */
#define TMP_BASE_MAX 200 /* bytes of NAME kept in the temporary's name */

struct sws_trace_writer {
	struct sws_mem mem;
	struct sws_trace_writer_config cfg;
	FILE *f;
	char *final;        /* where the file goes (symbolic links resolved) */
	char *tmp;          /* the temporary beside it; NULL: written in place */
	size_t final_size, tmp_size;
	ZSTD_CCtx *cctx;
	uint8_t *buf; /* records before compression / writing */
	size_t len;
	uint8_t *zout;
	size_t zout_size;
	struct sws_trace_record prev;
	uint64_t nrec;
	uint32_t crc;       /* the trace checksum so far */
	int err;
	char path[256];     /* the name given, for messages */
	char msg[512];
};

__attribute__((format(printf, 3, 4))) static int werr(struct sws_trace_writer *w, int code,
						      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = sws__trace_verr(&w->err, w->msg, sizeof(w->msg), code, w->path, fmt, ap);
	va_end(ap);
	return rc;
}

static int wflush(struct sws_trace_writer *w, int end)
{
	if (w->err)
		return w->err;
	if (!w->cctx) {
		if (w->len && fwrite(w->buf, 1, w->len, w->f) != w->len)
			return werr(w, SWS_EIO, "write error: %s", strerror(errno));
		w->len = 0;
		return 0;
	}
	ZSTD_inBuffer in = {w->buf, w->len, 0};
	for (;;) {
		ZSTD_outBuffer out = {w->zout, w->zout_size, 0};
		size_t ret = ZSTD_compressStream2(w->cctx, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(ret))
			return werr(w, SWS_ENOMEM, "zstd compression failed: %s", ZSTD_getErrorName(ret));
		if (out.pos && fwrite(w->zout, 1, out.pos, w->f) != out.pos)
			return werr(w, SWS_EIO, "write error: %s", strerror(errno));
		if (end ? ret == 0 : in.pos == in.size)
			break;
	}
	w->len = 0;
	return 0;
}

static int wbytes(struct sws_trace_writer *w, const void *p, size_t n)
{
	if (w->len + n > WBUF_SIZE) {
		int rc = wflush(w, 0);
		if (rc)
			return rc;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
	return 0;
}

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Fill @p with TMP_LETTERS letters, different for each @attempt. */
static void tmp_letters(char *p, unsigned attempt, const void *salt)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	uint8_t rnd[TMP_LETTERS];
	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		uint64_t x = ((uint64_t)getpid() << 32 ^ (uintptr_t)salt) + attempt;
		for (size_t i = 0; i < sizeof(rnd); i++) {
			x = x * 0x9e3779b97f4a7c15ull + 1;
			rnd[i] = (uint8_t)(x >> 56);
		}
	}
	for (size_t i = 0; i < TMP_LETTERS; i++)
		p[i] = abc[rnd[i] % (sizeof(abc) - 1)];
}

/* Create the temporary ".BASE.XXXXXX" beside w->final, with @mode when @keep_mode. */
static int create_tmp(struct sws_trace_writer *w, int keep_mode, mode_t mode)
{
	const char *slash = strrchr(w->final, '/');
	size_t dn = slash ? (size_t)(slash - w->final) + 1 : 0;
	const char *base = w->final + dn;
	size_t bn = strlen(base) < TMP_BASE_MAX ? strlen(base) : TMP_BASE_MAX;
	w->tmp_size = dn + 1 + bn + 1 + TMP_LETTERS + 1;
	w->tmp = sws__mem_alloc(&w->mem, SWS__TRACE_MEM, w->tmp_size, 0);
	if (!w->tmp)
		return werr(w, SWS_ENOMEM, "out of memory");
	char *p = w->tmp;
	memcpy(p, w->final, dn);
	p += dn;
	*p++ = '.';
	memcpy(p, base, bn);
	p += bn;
	*p++ = '.';
	p[TMP_LETTERS] = '\0';
	int fd = -1;
	for (unsigned i = 0; i < TMP_TRIES && fd < 0; i++) {
		tmp_letters(p, i, w);
		fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	int e = errno;
	if (fd >= 0 && keep_mode)
		(void)fchmod(fd, mode); /* best effort: the file is ours either way */
	if (fd >= 0 && !(w->f = fdopen(fd, "wb"))) {
		e = errno;
		close(fd);
		unlink(w->tmp);
	}
	if (!w->f) {
		sws__mem_free(&w->mem, SWS__TRACE_MEM, w->tmp, w->tmp_size);
		w->tmp = NULL;
		return werr(w, SWS_EIO, "cannot create a temporary file beside it: %s", strerror(e));
	}
	return 0;
}

/* Decide where the output goes (w->final) and open what is written. */
static int wcreate(struct sws_trace_writer *w, const char *path)
{
	char resolved[PATH_MAX];
	const char *target = path;
	struct stat st;
	int exists = lstat(path, &st) == 0;
	if (!exists && errno != ENOENT)
		return werr(w, SWS_EIO, "cannot create: %s", strerror(errno));
	if (exists && S_ISLNK(st.st_mode)) {
		if (realpath(path, resolved) && !stat(resolved, &st)) {
			target = resolved;
		} else {
			/* A pipe or a socket behind /proc/self/fd/N (/dev/stdout) links to
			 * no path ("pipe:[N]"), yet opens: written in place, below. */
			int e = errno;
			if (stat(path, &st) || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
				return werr(w, SWS_EIO, "cannot follow the symbolic link: %s", strerror(e));
		}
	}
	if (exists && S_ISDIR(st.st_mode))
		return werr(w, SWS_EIO, "cannot create: %s", strerror(EISDIR));
	/* Replacing a file this process could not write would lift its protection. */
	if (exists && faccessat(AT_FDCWD, target, W_OK, AT_EACCESS))
		return werr(w, SWS_EIO, "cannot create: %s", strerror(errno));
	w->final_size = strlen(target) + 1;
	w->final = sws__mem_alloc(&w->mem, SWS__TRACE_MEM, w->final_size, 0);
	if (!w->final)
		return werr(w, SWS_ENOMEM, "out of memory");
	memcpy(w->final, target, w->final_size);
	if (exists && !S_ISREG(st.st_mode)) {
		w->f = fopen(target, "wb");
		if (!w->f)
			return werr(w, SWS_EIO, "cannot create: %s", strerror(errno));
		return 0;
	}
	return create_tmp(w, exists, st.st_mode & 07777);
}

/* fsync() the directory holding @file, so that the rename is durable too.
 * Best effort: the file is complete under its name whatever happens here. */
static void sync_dir(const char *file)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(file, '/');
	size_t n = !slash ? 1 : slash == file ? 1 : (size_t)(slash - file);
	if (n >= sizeof(dir))
		return;
	memcpy(dir, slash ? file : ".", n);
	dir[n] = '\0';
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

/* Close the file and remove the temporary, if any: the final name is untouched. */
static void wdiscard(struct sws_trace_writer *w)
{
	if (w->f)
		fclose(w->f);
	w->f = NULL;
	if (w->tmp) {
		unlink(w->tmp);
		sws__mem_free(&w->mem, SWS__TRACE_MEM, w->tmp, w->tmp_size);
		w->tmp = NULL;
	}
}

static void wfree(struct sws_trace_writer *w)
{
	if (w->cctx)
		ZSTD_freeCCtx(w->cctx);
	if (w->zout)
		sws__mem_free(&w->mem, SWS__TRACE_MEM, w->zout, w->zout_size);
	if (w->buf)
		sws__mem_free(&w->mem, SWS__TRACE_MEM, w->buf, WBUF_SIZE);
	if (w->final)
		sws__mem_free(&w->mem, SWS__TRACE_MEM, w->final, w->final_size);
	struct sws_mem mem = w->mem;
	sws__mem_free(&mem, SWS__TRACE_MEM, w, sizeof(*w));
}

int sws_trace_writer_open(const char *path, const struct sws_trace_writer_config *cfg,
			  struct sws_trace_writer **out, char *errbuf, size_t errlen)
{
	static const struct sws_trace_writer_config defaults = {0};
	if (out)
		*out = NULL;
	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!path || !out)
		return SWS_EINVAL;
	if (!cfg)
		cfg = &defaults;
	if (cfg->version > SWS_TRACE_WRITER_CONFIG_VERSION ||
	    (cfg->env && cfg->env->version > SWS_ENV_VERSION)) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "%s: unsupported config version", path);
		return SWS_EVERSION;
	}
	if ((cfg->encoding != SWS_TRACE_TEXT && cfg->encoding != SWS_TRACE_BINARY) ||
	    (cfg->flags & ~SWS_TRACE_WRITE_ZSTD) || cfg->zstd_level < 0 || cfg->zstd_level > 19 ||
	    (cfg->env && cfg->env->reserved)) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "%s: invalid writer configuration", path);
		return SWS_EINVAL;
	}
	struct sws_mem mem;
	sws__mem_init(&mem, cfg->env ? &cfg->env->allocator : NULL);
	struct sws_trace_writer *w = sws__mem_zalloc(&mem, SWS__TRACE_MEM, sizeof(*w), 0);
	if (!w) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "%s: out of memory", path);
		return SWS_ENOMEM;
	}
	w->mem = mem;
	w->cfg = *cfg;
	snprintf(w->path, sizeof(w->path), "%s", path);
	int rc = 0;
	w->buf = sws__mem_alloc(&w->mem, SWS__TRACE_MEM, WBUF_SIZE, 0);
	if (!w->buf) {
		rc = werr(w, SWS_ENOMEM, "out of memory");
		goto fail;
	}
	if (cfg->flags & SWS_TRACE_WRITE_ZSTD) {
		w->zout_size = ZSTD_CStreamOutSize();
		w->zout = sws__mem_alloc(&w->mem, SWS__TRACE_MEM, w->zout_size, 0);
		w->cctx = ZSTD_createCCtx_advanced(sws__trace_zstd_mem(&w->mem));
		if (!w->zout || !w->cctx) {
			rc = werr(w, SWS_ENOMEM, "out of memory for zstd compression");
			goto fail;
		}
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel,
				       cfg->zstd_level ? cfg->zstd_level : 3);
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
		/* Keep the window within what readers accept. */
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_windowLog, 23);
	}
	if ((rc = wcreate(w, path)))
		goto fail;
	if (cfg->encoding == SWS_TRACE_BINARY) {
		uint8_t h[SWS_TRACE_BIN_HEADER] = {0};
		memcpy(h, SWS_TRACE_BIN_MAGIC, 8);
		h[8] = SWS_TRACE_BIN_VERSION;
		rc = wbytes(w, h, sizeof(h));
	} else {
		char h[160];
		int n = snprintf(h, sizeof(h), "%s%d\n# time_ns pid tid cpu op addr len flags arg\n",
				 SWS_TRACE_TEXT_HEADER, SWS_TRACE_TEXT_VERSION);
		rc = wbytes(w, h, (size_t)n);
	}
	if (rc)
		goto fail;
	*out = w;
	return 0;
fail:
	if (errbuf && errlen)
		snprintf(errbuf, errlen, "%s", w->msg);
	wdiscard(w);
	wfree(w);
	return rc;
}

static int write_text(struct sws_trace_writer *w, const struct sws_trace_record *x)
{
	char line[256], cpu[16], flags[16];
	if (x->cpu == SWS_TRACE_CPU_ANY)
		strcpy(cpu, "-");
	else
		snprintf(cpu, sizeof(cpu), "%u", x->cpu);
	if (!x->flags) {
		strcpy(flags, "-");
	} else if (x->flags & ~(SWS_TRACE_F_WRITE | SWS_TRACE_F_IFETCH | SWS_TRACE_F_THP | SWS_TRACE_F_ZSWAP_WB |
				SWS_TRACE_F_ANON_LRU | SWS_TRACE_F_FILE_LRU | SWS_TRACE_F_VICTIM |
				SWS_TRACE_F_CHARGE)) {
		snprintf(flags, sizeof(flags), "0x%x", x->flags);
	} else {
		char *p = flags;
		if (x->flags & SWS_TRACE_F_WRITE)
			*p++ = 'w';
		if (x->flags & SWS_TRACE_F_IFETCH)
			*p++ = 'x';
		if (x->flags & SWS_TRACE_F_THP)
			*p++ = 'h';
		if (x->flags & SWS_TRACE_F_ZSWAP_WB)
			*p++ = 'z';
		if (x->flags & SWS_TRACE_F_ANON_LRU)
			*p++ = 'a';
		if (x->flags & SWS_TRACE_F_FILE_LRU)
			*p++ = 'f';
		if (x->flags & SWS_TRACE_F_VICTIM)
			*p++ = 'v';
		if (x->flags & SWS_TRACE_F_CHARGE)
			*p++ = 'c';
		*p = '\0';
	}
	int n = snprintf(line, sizeof(line), "%llu %u %u %s %s 0x%llx %llu %s %u\n",
			 (unsigned long long)x->time_ns, x->pid, x->tid, cpu, sws_trace_op_name(x->op),
			 (unsigned long long)x->addr, (unsigned long long)x->len, flags, x->arg);
	return wbytes(w, line, (size_t)n);
}

static int write_bin(struct sws_trace_writer *w, const struct sws_trace_record *x)
{
	uint8_t rec[2 + 3 * 10 + 5 * 5]; /* tag, ext, 3 64-bit and 5 32-bit varints */
	uint8_t fields[3 * 10 + 5 * 5], *p = fields;
	const struct sws_trace_record *pv = &w->prev;
	uint8_t tag = (uint8_t)x->op, ext = 0;
	if (x->time_ns != pv->time_ns) {
		tag |= SWS__TAG_TIME;
		p = put_varint(p, sws__zigzag(x->time_ns - pv->time_ns));
	}
	if (x->addr != pv->addr) {
		tag |= SWS__TAG_ADDR;
		p = put_varint(p, sws__zigzag(x->addr - pv->addr));
	}
	if (x->len != pv->len) {
		tag |= SWS__TAG_LEN;
		p = put_varint(p, x->len);
	}
	if (x->flags != pv->flags) {
		ext |= SWS__EXT_FLAGS;
		p = put_varint(p, x->flags);
	}
	if (x->pid != pv->pid) {
		ext |= SWS__EXT_PID;
		p = put_varint(p, x->pid);
	}
	if (x->tid != pv->tid) {
		ext |= SWS__EXT_TID;
		p = put_varint(p, x->tid);
	}
	if (x->cpu != pv->cpu) {
		ext |= SWS__EXT_CPU;
		p = put_varint(p, (uint32_t)(x->cpu + 1u));
	}
	if (x->arg != pv->arg) {
		ext |= SWS__EXT_ARG;
		p = put_varint(p, x->arg);
	}
	size_t n = 0;
	rec[n++] = tag | (ext ? SWS__TAG_EXT : 0);
	if (ext)
		rec[n++] = ext;
	memcpy(rec + n, fields, (size_t)(p - fields));
	n += (size_t)(p - fields);
	w->prev = *x;
	return wbytes(w, rec, n);
}

int sws_trace_writer_write(struct sws_trace_writer *w, const struct sws_trace_record *rec)
{
	if (!w || !rec)
		return SWS_EINVAL;
	if (w->err)
		return w->err;
	if (rec->op < 1 || rec->op > SWS_TRACE_OP_MAX)
		return SWS_EINVAL;
	int rc = w->cfg.encoding == SWS_TRACE_BINARY ? write_bin(w, rec) : write_text(w, rec);
	if (!rc) {
		w->nrec++;
		w->crc = sws__trace_record_crc(w->crc, rec);
	}
	return rc;
}

const char *sws_trace_writer_error(const struct sws_trace_writer *w)
{
	return w ? w->msg : "";
}

int sws_trace_writer_close(struct sws_trace_writer *w, char *errbuf, size_t errlen)
{
	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!w)
		return 0;
	int rc = w->err;
	if (!rc && w->cfg.encoding == SWS_TRACE_BINARY) {
		uint8_t end[1 + 10 + 4], *p = end;
		*p++ = 0;
		p = put_varint(p, w->nrec);
		p = sws__put_le(p, w->crc, 4);
		rc = wbytes(w, end, (size_t)(p - end));
	} else if (!rc) {
		char end[64];
		int n = snprintf(end, sizeof(end), "%s records=%llu crc32c=%08x\n", SWS_TRACE_TEXT_END,
				 (unsigned long long)w->nrec, w->crc);
		rc = wbytes(w, end, (size_t)n);
	}
	if (!rc)
		rc = wflush(w, 1);
	if (!rc && fflush(w->f))
		rc = werr(w, SWS_EIO, "write error: %s", strerror(errno));
	if (!rc && w->tmp && fsync(fileno(w->f)))
		rc = werr(w, SWS_EIO, "fsync: %s", strerror(errno));
	if (fclose(w->f) && !rc)
		rc = werr(w, SWS_EIO, "close: %s", strerror(errno));
	w->f = NULL;
	if (!rc && w->tmp) {
		if (rename(w->tmp, w->final)) {
			rc = werr(w, SWS_EIO, "cannot rename the temporary file over it: %s",
				  strerror(errno));
		} else {
			sws__mem_free(&w->mem, SWS__TRACE_MEM, w->tmp, w->tmp_size);
			w->tmp = NULL;
			sync_dir(w->final);
		}
	}
	if (rc && errbuf && errlen)
		snprintf(errbuf, errlen, "%s", w->msg);
	wdiscard(w);
	wfree(w);
	return rc;
}

void sws_trace_writer_abort(struct sws_trace_writer *w)
{
	if (!w)
		return;
	wdiscard(w);
	wfree(w);
}

