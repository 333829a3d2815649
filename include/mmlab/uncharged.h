/*
 * __lab_uncharged: the lab's own checking code inside a measured loop
 * (record checksums, latency histograms).  The kernel does not run it, so
 * on a simulated machine none of its basic blocks is charged: the vt
 * flavour counts blocks with -fsanitize-coverage=trace-pc, which this
 * attribute turns off for the function, inlined or not.
 */
#ifndef MMLAB_UNCHARGED_H
#define MMLAB_UNCHARGED_H

#if defined(__has_attribute)
#if __has_attribute(no_sanitize_coverage)
#define __lab_uncharged	__attribute__((no_sanitize_coverage))
#endif
#endif
#ifndef __lab_uncharged
#define __lab_uncharged
#endif

#endif
