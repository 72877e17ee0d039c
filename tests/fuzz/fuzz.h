/* fuzz.h: what every fuzz harness shares: libFuzzer's entry point, which each fuzz-<name>.c
 * defines and replay.c calls, and the check that aborts when an invariant does not hold (so
 * that libFuzzer, or the sanitizers under replay, report it). */
#ifndef NM_FUZZ_H
#define NM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Run one input; always 0 (libFuzzer's contract). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort with a message when an invariant does not hold (libFuzzer reports the abort). */
#define fuzz_check(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#endif
