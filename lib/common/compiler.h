/* compiler.h - small helpers shared by every file of libswapsim. */
#ifndef SWS_COMPILER_H
#define SWS_COMPILER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define sws_likely(x) __builtin_expect(!!(x), 1)
#define sws_unlikely(x) __builtin_expect(!!(x), 0)
#define SWS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define sws_container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#define SWS_DIV_ROUND_UP(n, d) (((n) + (d)-1) / (d))
#define SWS_CACHELINE 64
/* A body that callers specialise by a constant argument (an nr of 1). */
#define SWS_ALWAYS_INLINE inline __attribute__((always_inline))

#define sws_load_relaxed(p) atomic_load_explicit((p), memory_order_relaxed)
#define sws_store_relaxed(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)
#define sws_load_acquire(p) atomic_load_explicit((p), memory_order_acquire)
#define sws_store_release(p, v) atomic_store_explicit((p), (v), memory_order_release)

/* Which sanitizer this is built with (GCC's macros, clang's __has_feature):
 * SWS_TSAN, SWS_ASAN. */
#if defined(__SANITIZE_THREAD__)
#define SWS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SWS_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SWS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SWS_ASAN 1
#endif
#endif

/* Plain (not atomic) bitmaps of uint64_t words. */
static inline bool sws_bit_test(const uint64_t *b, unsigned i) { return (b[i / 64] >> (i % 64)) & 1; }
static inline void sws_bit_set(uint64_t *b, unsigned i) { b[i / 64] |= 1ull << (i % 64); }
static inline void sws_bit_clear(uint64_t *b, unsigned i) { b[i / 64] &= ~(1ull << (i % 64)); }
static inline void sws_bitmap_set_range(uint64_t *b, unsigned start, unsigned n)
{
	for (unsigned i = start; i < start + n; i++)
		sws_bit_set(b, i);
}

#endif
