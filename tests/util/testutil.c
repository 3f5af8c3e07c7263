/* testutil.c - fixtures, the fail-the-Nth-allocation allocator, scratch paths, /proc figures. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

int sws_test_buf_write(void *ctx, const char *text, size_t len)
{
	struct sws_test_buf *b = ctx;
	if (b->len + len + 1 > b->cap) {
		b->cap = (b->len + len + 1) * 2;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->len, text, len);
	b->len += len;
	b->p[b->len] = 0;
	return 0;
}

void sws_fixture_open(struct sws_fixture *f, enum sws_backend backend, uint64_t nr_slots, uint32_t flags)
{
	struct sws_sim_config cfg = {.backend = backend};
	assert_sws(0, sws_sim_create(&cfg, &f->sim));
	assert_sws(0, sws_cpu_attach(f->sim, &f->cpu));
	struct sws_device_config dc = {.nr_slots = nr_slots, .flags = flags};
	assert_sws(0, sws_swapon(f->sim, &dc, &f->type));
}

void sws_fixture_close(struct sws_fixture *f)
{
	assert_consistent(f->sim);
	sws_cpu_detach(f->cpu);
	sws_sim_destroy(f->sim);
	f->sim = NULL;
}

static void *counting_alloc(void *ctx, size_t size, size_t align)
{
	struct sws_test_alloc *ta = ctx;
	uint64_t n = __atomic_add_fetch(&ta->calls, 1, __ATOMIC_RELAXED);
	if (ta->fail_nth && n == ta->fail_nth)
		return NULL;
	size_t rounded = (size + align - 1) & ~(align - 1);
	void *p = aligned_alloc(align, rounded ? rounded : align);
	if (p)
		__atomic_add_fetch(&ta->live_bytes, (int64_t)size, __ATOMIC_RELAXED);
	return p;
}

static void counting_free(void *ctx, void *p, size_t size)
{
	struct sws_test_alloc *ta = ctx;
	__atomic_sub_fetch(&ta->live_bytes, (int64_t)size, __ATOMIC_RELAXED);
	free(p);
}

void sws_test_alloc_init(struct sws_test_alloc *ta)
{
	ta->a.alloc = counting_alloc;
	ta->a.free = counting_free;
	ta->a.ctx = ta;
	ta->calls = 0;
	ta->fail_nth = 0;
	ta->live_bytes = 0;
}

const char *sws_test_path(char *buf, size_t len, const char *name)
{
	const char *dir = getenv("SWS_TEST_TMPDIR");
	snprintf(buf, len, "%s/%s.%d", dir ? dir : "/tmp", name, (int)getpid());
	return buf;
}

uint64_t sws_test_proc_status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	uint64_t v = 0;
	size_t kl = strlen(key);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl))
			v = strtoull(line + kl + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

int sws_test_vec_next(void *ctx, struct sws_trace_record *rec)
{
	struct sws_test_vec *v = ctx;
	if (v->i == v->n)
		return 0;
	*rec = v->rec[v->i++];
	return 1;
}
