/*
 * __lab_uncharged: the lab's own checking code inside a measured loop
 * (record checksums, latency histograms, result counters).  The kernel does
 * not run it, so on a simulated machine none of it is charged: the vt
 * flavour counts blocks with -fsanitize-coverage=trace-pc and sends loads
 * and stores to its memory hierarchy through TSan's instrumentation, and
 * this attribute turns both off for the function.  (GCC does not inline it
 * into an instrumented caller; the call is the only trace it leaves.)  The
 * lab's memory is the runner's heap, laid out by the process's past: a
 * charged access to it would make a sample depend on what ran before.
 * Copies inside it use __builtin_memcpy(): the vt objects' memcpy() is the
 * machine's, charged.
 */
#ifndef MMLAB_UNCHARGED_H
#define MMLAB_UNCHARGED_H

#if defined(__has_attribute)
#if __has_attribute(no_sanitize_coverage)
#define __lab_uncharged	__attribute__((no_sanitize_coverage, no_sanitize_thread))
#endif
#endif
#ifndef __lab_uncharged
#define __lab_uncharged
#endif

#endif
