// SPDX-License-Identifier: GPL-2.0
/*
 * The virtual-time machine's scheduler (see include/machine/vt.h and
 * docs/design/virtual-time.md): where each CPU sits, when each runs,
 * and what its plain code costs.
 *
 * Virtual CPUs are coroutines on the thread that calls vt_run(), switched
 * by a few instructions of assembly (x86-64) or swapcontext() elsewhere.
 * The scheduler keeps the CPUs that can run in a binary heap by (clock,
 * id); the running CPU goes on until its clock passes the heap's top,
 * which is then switched to (vt_sched(), vt_int.h).  Clocks are integer
 * picoseconds, so a run is the same on every host.
 *
 * The heap's small steps and vt_sched() itself are inline in vt_int.h:
 * the coherence model (vt_coherence.c) takes them on every access.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <linux/smp.h>
#include <machine/vt.h>

#include "vt_int.h"

/* --- topology ------------------------------------------------------------------ */

/*
 * CPU numbering as Linux numbers a two-socket x86 machine: first every
 * core's first hardware thread, socket by socket, L3 by L3 (will-it-scale
 * pins thread i to CPU i, so N threads fill socket 0 first, and CCX by CCX
 * on AMD), then the second hardware threads in the same order.
 */
void vt_place(const struct vt_machine *m, int id, int *socket, int *l3, int *core)
{
	int cores = m->sockets * m->l3_per_socket * m->cores_per_l3;
	int c = id % cores;

	*core = c;
	*l3 = c / m->cores_per_l3;
	*socket = c / (m->l3_per_socket * m->cores_per_l3);
}

enum vt_dist vt_distance(const struct vt_machine *m, int a, int b)
{
	int sa, la, ca, sb, lb, cb;

	vt_place(m, a, &sa, &la, &ca);
	vt_place(m, b, &sb, &lb, &cb);
	if (ca == cb)
		return VT_D_SMT;
	if (la == lb)
		return VT_D_L3;
	if (sa == sb)
		return VT_D_SOCKET;
	return VT_D_REMOTE;
}

/* --- the heap of runnable CPUs, by (clock, id) ----------------------------------- */

/* The earliest runnable CPU, out of the heap (its other steps: vt_int.h). */
struct vt_cpu *heap_pop(void)
{
	struct vt_cpu *top = vt.heap[0], *last = vt.heap[--vt.nheap];
	int i = 0;

	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		struct vt_cpu *best = last;

		if (l < vt.nheap && vt_before(vt.heap[l], best)) {
			m = l;
			best = vt.heap[l];
		}
		if (r < vt.nheap && vt_before(vt.heap[r], best))
			m = r;
		if (m == i)
			break;
		heap_set(i, vt.heap[m]);
		i = m;
	}
	if (vt.nheap)
		heap_set(i, last);
	top->heap_pos = -1;
	return top;
}

/* --- coroutines -------------------------------------------------------------------- */

#if defined(__x86_64__)
void vt_ctx_switch(void **save_sp, void *load_sp);
__asm__(".text\n"
	".globl vt_ctx_switch\n"
	".type vt_ctx_switch,@function\n"
	"vt_ctx_switch:\n"
	"\tpushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n"
	"\tmovq %rsp, (%rdi)\n"
	"\tmovq %rsi, %rsp\n"
	"\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n"
	"\tret\n"
	".size vt_ctx_switch, .-vt_ctx_switch\n");
#endif

/*
 * What an agent does is not the machine's CPUs' time: the run's counts are
 * saved when an agent starts running and put back when it stops.
 */
static struct vt_counts agent_saved;

void vt_switch(struct vt_cpu *from, struct vt_cpu *to)
{
	if (from && from->agent)
		vt.acc = agent_saved;
	if (to && to->agent)
		agent_saved = vt.acc;
	vt.cur = to;
	/* A kthread has no CPU id (linux/kthread.h). */
	cpu_number = to ? (to->agent ? -1 : to->id) : vt.saved_cpu_number;
#if defined(__x86_64__)
	vt_ctx_switch(from ? &from->sp : &vt.main_sp, to ? to->sp : vt.main_sp);
#else
	swapcontext(from ? &from->uc : &vt.main_uc, to ? &to->uc : &vt.main_uc);
#endif
}

/* --- plain code: basic blocks ------------------------------------------------------ */

/*
 * The vt flavour compiles the kernel model with -fsanitize-coverage=trace-pc:
 * every basic block it enters calls this.  The machine itself is not
 * compiled so.  Outside a run (boot, set-up) blocks cost nothing.
 */
void __sanitizer_cov_trace_pc(void)
{
	struct vt_cpu *c = vt.cur;

	if (c) {
		uintptr_t slot = ((uintptr_t)__builtin_return_address(0) - vt.insn_base) >> 2;

		c->blocks++;
		if (slot < vt.insn_n) {
			const struct vt_block_slot *b = &vt.insns[slot];
			bool taken = slot != c->fall_slot;

			c->insns += b->ops;
			c->taken += taken;
			c->insn_ps += vt.insn_extra[taken][b->ops];
			c->fall_slot = b->fall ? slot + b->fall : UINTPTR_MAX;
		}
		/* this hook's frame lies a fixed distance below its caller's stack pointer */
		if (c->bp)
			vt_bp_block(c, (uint32_t)((uintptr_t)__builtin_return_address(0) -
						  (uintptr_t)__sanitizer_cov_trace_pc) + 1,
				    (uintptr_t)__builtin_frame_address(0));
		if (vt_prof_on(VT_PROF_BLOCKS))
			vt_prof_hit((uintptr_t)__builtin_return_address(0), vt.window_open);
	}
}

/*
 * The ops of every block of the vt builds, counted from the linked binary by
 * tools/gen-block-insns.py and linked into build/mmlab: slot i holds the
 * block whose hook returns to the hook's address + first + 4 i.  Weak: a
 * program without it (the unit tests) has every block cost cost.block.
 */
struct vt_block_table {
	int64_t first;
	uint64_t slots;
	struct vt_block_slot slot[];
};
extern const struct vt_block_table vt_block_table __attribute__((weak));

/*
 * core.insn: a block of n ops costs n times core.insn, the core's width, and
 * at least cost.block; with core.fall, at least cost.block only where a
 * branch was taken to it: the front end follows one taken branch a cycle,
 * and a not-taken one does not end its fetch.  insn_extra[taken][n] is what
 * it costs beyond cost.block.
 */
void vt_insn_start(const struct vt_machine *m)
{
	int64_t block = (int64_t)vt.cost[VT_C_BLOCK];

	vt.insn_n = 0;
	if (!(m->insn_ns > 0) || !&vt_block_table)
		return;
	for (int n = 0; n < 256; n++) {
		int64_t t = llround(n * m->insn_ns * 1000);

		vt.insn_extra[1][n] = t > block ? t - block : 0;
		vt.insn_extra[0][n] = m->fall ? t - block : vt.insn_extra[1][n];
	}
	vt.insns = vt_block_table.slot;
	vt.insn_base = (uintptr_t)__sanitizer_cov_trace_pc + (uintptr_t)vt_block_table.first;
	vt.insn_n = vt_block_table.slots;
}

/* The running CPU gives way to the next one, or to vt_run() when none is left. */
static void vt_yield_to_next(struct vt_cpu *c)
{
	/* Once the machine's CPUs are done, so is the run: agents are left where they wait. */
	struct vt_cpu *next = vt.live && vt.nheap ? heap_pop() : NULL;

	if (next != c)
		vt_switch(c, next);
}

static void vt_cpu_body(void)
{
	struct vt_cpu *c = vt.cur;

	c->fn(c->arg);
	vt_charge_code(c);
	vt_drain_all(c);
	c->done = true;
	if (!c->agent) {
		vt.live--;
		vt.acc.st.cpu_ns += c->clock / 1000.0;
		if (c->clock > ns_to_ps(vt.acc.st.end_ns))
			vt.acc.st.end_ns = c->clock / 1000.0;
	}
	vt_yield_to_next(c);
	abort();	/* a finished CPU is never switched to */
}

#if defined(__x86_64__)
static void vt_trampoline(void)
{
	vt_cpu_body();
}

void vt_cpu_init_ctx(struct vt_cpu *c)
{
	uintptr_t top = ((uintptr_t)c->stack + VT_STACK) & ~(uintptr_t)15;
	void **sp = (void **)top;

	*--sp = NULL;			/* the trampoline's return address: never used */
	*--sp = (void *)vt_trampoline;	/* vt_ctx_switch's ret */
	for (int i = 0; i < 6; i++)
		*--sp = NULL;		/* rbp rbx r12 r13 r14 r15 */
	c->sp = sp;
}
#else
void vt_cpu_init_ctx(struct vt_cpu *c)
{
	getcontext(&c->uc);
	c->uc.uc_stack.ss_sp = c->stack;
	c->uc.uc_stack.ss_size = VT_STACK;
	c->uc.uc_link = NULL;
	makecontext(&c->uc, vt_cpu_body, 0);
}
#endif

/* --- a CPU's clock ----------------------------------------------------------------- */

void vt_delay_ns(unsigned long ns)
{
	struct vt_cpu *c = vt.cur;

	if (!c)
		return;
	vt_charge_code(c);
	vt_rmw_drain(c);
	c->clock += (vt_ps)ns * 1000;
	vt.acc.delay_ps += (vt_ps)ns * 1000;	/* an agent's is put back when it stops running */
}

/*
 * @ns of work handed to another agent, which does it one item at a time:
 * the CPU goes on at once, unless its last hand-off is still in flight.
 */
void vt_async_ns(unsigned long ns)
{
	struct vt_cpu *c = vt.cur;

	if (!c)
		return;
	vt_charge_code(c);
	vt_async_drain(c);
	c->async_free = c->clock + (vt_ps)ns * 1000;
}

/* Wait until what this CPU handed off is done (a DSB after TLBIs). */
void vt_async_wait(void)
{
	struct vt_cpu *c = vt.cur;

	if (!c)
		return;
	vt_charge_code(c);
	vt_async_drain(c);
}

/* A clock read sees the code run before it. */
uint64_t vt_now_ns(void)
{
	if (!vt.cur)
		return 0;
	vt_charge_code(vt.cur);
	vt_rmw_drain(vt.cur);
	return vt.cur->clock / 1000;
}

double vt_clock_ns(void)
{
	if (!vt.cur)
		return 0;
	vt_charge_code(vt.cur);
	vt_rmw_drain(vt.cur);
	return vt.cur->clock / 1000.0;
}
