/*
 * hotcold.c - a deterministic, single-process command for swapsim-record
 * --accesses: 16 MiB mapped anonymous private, one word of every 512 bytes
 * of each page written, then 16384 reads of one word of a page in a fixed
 * pseudo-random order (xorshift64), half of them in the first quarter of
 * the pages. Most of its reads of resident pages make no fault: a fault
 * trace cannot see them, its access stream can (tests/data/hotcold/).
 *
 *   gcc -O2 -o hotcold tests/kernel/hotcold.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
int main(void)
{
	size_t pages = 4096, ps = 4096;
	volatile uint64_t *m = mmap(NULL, pages * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	for (size_t p = 0; p < pages; p++)
		for (size_t w = 0; w < ps / 8; w += 64)
			m[p * ps / 8 + w] = p * 7 + w;
	uint64_t x = 88172645463325252ull, sum = 0;
	for (size_t i = 0; i < 4 * pages; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t p = (x & 4) ? x % (pages / 4) : x % pages;
		sum += m[p * ps / 8];
	}
	return (int)(sum & 1) * 0;
}
