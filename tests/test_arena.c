/*
 * The arena behind the simulated frames (src/machine/arena.c).  A byte is
 * written at the start and at the end of an arena of 64 pages, the arena
 * given back, and one asked for again:
 *
 *   reuse on:   put(A, 64 pages) | get(64 pages)  -> A, both bytes still there
 *               put(A, 64 pages) | get(63 pages)  -> fresh: zero
 *               put(A, 64 pages) | get(65 pages)  -> fresh: zero
 *   reuse on, then drop:             get(64)      -> fresh: zero
 *   reuse off:  put(A, 64 pages) | get(64 pages)  -> fresh: zero
 *
 * A fresh mapping reads zero (anonymous memory), so the bytes tell a kept
 * arena from a new one even where mmap() returns the same address.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <machine/machine.h>
#include "tap.h"

#define PG	4096UL

static char *arena_marked(size_t pages)
{
	char *p = machine_arena_get(pages * PG);

	if (p) {
		p[0] = 0x5a;
		p[pages * PG - 1] = 0xa5;
	}
	return p;
}

/* Whether the arena of @pages asked for now still holds the marks of one of @marked pages. */
static bool kept(size_t marked, size_t pages)
{
	char *p = arena_marked(marked), *q;
	bool same;

	if (!p)
		return false;
	machine_arena_put(p, marked * PG);
	q = machine_arena_get(pages * PG);
	if (!q)
		return false;
	same = q[0] == 0x5a && (pages != marked || q[pages * PG - 1] == (char)0xa5);
	machine_arena_put(q, pages * PG);
	return same;
}

int main(void)
{
	char *p, *q;

	plan_no_plan();
	machine_arena_reuse(true);
	ok(kept(64, 64), "reuse on: the arena given back is handed out again, its bytes as they were");
	ok(!kept(64, 63), "... a page smaller: a fresh one");
	ok(!kept(64, 65), "... a page larger: a fresh one");
	p = arena_marked(64);
	machine_arena_put(p, 64 * PG);
	machine_arena_drop();
	q = machine_arena_get(64 * PG);
	ok(q && q[0] == 0, "after machine_arena_drop() the next arena is fresh");
	machine_arena_put(q, 64 * PG);
	machine_arena_reuse(false);
	ok(!kept(64, 64), "reuse off (the host): every arena is fresh");
	return done_testing();
}
