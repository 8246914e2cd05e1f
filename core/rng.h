/* rng.h — seeded, portable pseudo-random numbers (xoshiro256** seeded by splitmix64).
 *
 * Self-contained so that the same seed gives the same bits on every machine and
 * library version; every random choice in a run draws from the run's pfb_rng. */
#ifndef PFB_RNG_H
#define PFB_RNG_H

#include <stdint.h>

typedef struct pfb_rng {
    uint64_t s[4];
} pfb_rng;

/* Seed the generator (any 64-bit seed, 0 included). */
void rng_seed(pfb_rng *r, uint64_t seed);

/* Next 64 random bits. */
uint64_t rng_next(pfb_rng *r);

/* Uniform double in [0, 1). */
double rng_uniform(pfb_rng *r);

/* Uniform integer in [0, n), n > 0, without modulo bias. */
uint64_t rng_below(pfb_rng *r, uint64_t n);

#endif
