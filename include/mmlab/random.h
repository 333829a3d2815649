/*
 * splitmix64: the lab's deterministic generator (a seed gives the same
 * workload every time), for file contents and workload choices.
 */
#ifndef MMLAB_RANDOM_H
#define MMLAB_RANDOM_H

#include <stdint.h>

static inline uint64_t splitmix64_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif
