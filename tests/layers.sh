#!/usr/bin/env bash
# The layering rule (tools/check-layers.sh) on every kernel build that
# `make` produced, and two mutants it must catch: a kernel object that
# calls the runner, and a kernel source that includes a runner header (TAP).
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

runner=build/lab/run/liblab.a

# caught DESCRIPTION PATTERN... -- VAR=VALUE...: the check on vanilla's dbg build, with
# those settings, fails (exit 1) with a line matching each PATTERN (grep); its output in $tmp/out.
caught() {
	local what=$1 pats=() p rc miss=
	shift
	while [ "$1" != -- ]; do pats+=("$1"); shift; done
	shift
	env "$@" tools/check-layers.sh build/k/vanilla/dbg/libmm.a -- "$runner" >"$tmp/out" 2>&1
	rc=$?
	for p in "${pats[@]}"; do
		grep -q -- "$p" "$tmp/out" || miss+=", no line says /$p/"
	done
	[ $rc -eq 1 ] && [ -z "$miss" ]
	ok $? "$what (exit $rc$miss)"
}

mapfile -t kernels < <(ls build/k/*/run/kernel.o build/k/*/dbg/libmm.a build/k/*/chk/libmm.a 2>/dev/null)
[ -f build/k/vanilla/run/kernel.o ] && [ -f build/k/vanilla/dbg/libmm.a ] && [ -f build/k/vanilla/chk/libmm.a ]
ok $? "found the kernel builds to check (${#kernels[@]}, vanilla's three among them)"

tools/check-layers.sh "${kernels[@]}" -- "$runner" >"$tmp/out" 2>&1
ok $? "no kernel build references the runner, no kernel source includes a runner header$(head -c 300 "$tmp/out" | tr '\n' ' ')"

# Mutant 1: a kernel object that calls a runner function.
cat >"$tmp/bad.c" <<'C'
int lab_parse_size(const char *text, unsigned long long *bytes);
int mutant_size(void) { unsigned long long b; return lab_parse_size("4K", &b); }
C
gcc -c "$tmp/bad.c" -o "$tmp/bad.o"
tools/check-layers.sh build/k/vanilla/dbg/libmm.a "$tmp/bad.o" -- "$runner" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "bad.o: the kernel model references the runner's lab_parse_size" "$tmp/out"
ok $? "a kernel object calling lab_parse_size is caught (exit $rc)"

# Mutant 2: a kernel source that includes the runner's header.
mkdir -p "$tmp/src"
printf '#include <mmlab/lab.h>\n' >"$tmp/src/bad.c"
caught "a kernel source including mmlab/lab.h is caught" \
	"bad.c:1: includes the runner header <mmlab/lab.h>" -- KERNEL_SRC_DIRS="$tmp/src"

# Mutant 3: a runner header the old hand-written list missed (files.h),
# found now because the list is the tree's.
printf '#include <mmlab/files.h>\n' >"$tmp/src/bad.c"
caught "a kernel source including mmlab/files.h is caught" \
	"bad.c:1: includes the runner header <mmlab/files.h>" -- KERNEL_SRC_DIRS="$tmp/src"

# Mutant 4: a workload that includes an experiment's private header by path.
mkdir -p "$tmp/tree/src/workloads" "$tmp/tree/src/experiments"
: >"$tmp/tree/src/experiments/common.h"
printf '#include <linux/mm.h>\n#include "../experiments/common.h"\n' >"$tmp/tree/src/workloads/bad.c"
caught "a workload including ../experiments/common.h is caught" \
	"bad.c:2: includes the runner's .*tree/src/experiments/common.h" -- \
	KERNEL_SRC_DIRS="$tmp/tree/src/workloads" RUNNER_SRC_DIRS="src/lab src/experiments $tmp/tree/src/experiments"
[ "$(grep -c . "$tmp/out")" -eq 1 ]
ok $? "and its linux/mm.h is not"

# Mutant 5: a header kernel builds may include brings the runner in.
cp -r include/mmlab "$tmp/mmlab"
printf '#include <mmlab/lab.h>\n' >>"$tmp/mmlab/hist.h"
caught "hist.h including mmlab/lab.h is caught" \
	"mmlab/hist.h:[0-9]*: includes the runner header <mmlab/lab.h> (a header kernel builds may include)" -- \
	MMLAB_HDR_DIR="$tmp/mmlab"

# Mutant 6: the list of headers kernel builds may include has drifted from the tree.
caught "a header list naming include/mmlab/lab_stats.h, which is not in the tree, fails" \
	"KERNEL_MMLAB_HDRS names include/mmlab/lab_stats.h, which matches no file" -- \
	KERNEL_MMLAB_HDRS="kernel.h workloads/*.h random.h lab_stats.h"

# Mutant 7: a kernel-named header that reaches the machine past machine/machine.h.
mkdir -p "$tmp/linux" "$tmp/exp"
sed 's|#include <machine/machine.h>|#include <machine/vt.h>|' include/linux/kthread.h >"$tmp/linux/kthread.h"
printf 'void vt_sleep(void);\n' >>"$tmp/linux/kthread.h"
caught "a linux header including machine/vt.h, or declaring vt_sleep() itself, is caught" \
	"kthread.h:[0-9]*: includes <machine/vt.h>: kernel-named headers reach the machine only through <machine/machine.h>" \
	"kthread.h:[0-9]*: declares the machine's vt_sleep()" -- KERNEL_HDR_DIRS="$tmp/linux"

# Mutant 8: an experiment that asks which machine it runs on.
printf 'int f(struct exp_ctx *ctx) { return ctx->vt != 0; }\n#ifdef MMLAB_VT\n#endif\n' >"$tmp/exp/bad.c"
caught "an experiment reading ctx->vt or testing MMLAB_VT is caught" \
	"bad.c:1: reads ctx->vt outside the machine layer" "bad.c:2: asks which machine it runs on" -- \
	MACHINE_USER_DIRS="$tmp/exp" OUTSIDE_MACHINE_DIRS="$tmp/exp"

# Mutant 9: the list of the machine's kernel-side headers has drifted from machine.h and the tree.
caught "a machine header list naming hooks.h and missing vt_hooks.h fails" \
	"MACHINE_KERNEL_HDRS names include/machine/hooks.h, which is not in the tree" \
	"machine.h includes <machine/vt_hooks.h>, which MACHINE_KERNEL_HDRS does not list" -- \
	MACHINE_KERNEL_HDRS="machine.h yield.h hooks.h"

# Mutant 10: a kernel source that includes the runner's generated header; a
# workload's generated params and results, and the table of workloads, are the kernel's.
printf '#include <workloads/free_contig.h>\n#include <mm_workloads.h>\n#include <designs.h>\n' >"$tmp/src/bad.c"
caught "a kernel source including the generated designs.h is caught" \
	"bad.c:3: includes the runner's generated build/gen/designs.h" -- KERNEL_SRC_DIRS="$tmp/src"
[ "$(grep -c . "$tmp/out")" -eq 1 ]
ok $? "and its workloads/free_contig.h and mm_workloads.h are not"

# Mutant 11: a generated workload header that brings the runner in.
cp -r build/gen "$tmp/gen"
printf '#include <mmlab/lab.h>\n' >>"$tmp/gen/workloads/free_contig.h"
caught "a generated workload header including mmlab/lab.h is caught" \
	"gen/workloads/free_contig.h:[0-9]*: includes the runner header <mmlab/lab.h> (a header kernel builds may include)" -- \
	GEN_DIR="$tmp/gen"

# The lists, from the tree: every header of include/mmlab is on one of them.
tools/check-layers.sh --headers >"$tmp/out" 2>&1
rc=$?
all=$(find include/mmlab -name '*.h' | sed 's|^include/||' | sort)
listed=$(tr ' ' '\n' <"$tmp/out" | grep '^mmlab/' | sort)
[ $rc -eq 0 ] && [ "$all" = "$listed" ] && grep -q "runner headers: .*mmlab/lab.h" "$tmp/out"
ok $? "--headers: each header of include/mmlab on exactly one list (exit $rc)"
all=$(find include/machine -name '*.h' | sed 's|^include/||' | sort)
listed=$(grep "^the machine" "$tmp/out" | tr " ," "\n\n" | grep '^machine/' | sort)
[ $rc -eq 0 ] && [ "$all" = "$listed" ]
ok $? "--headers: each header of include/machine on exactly one list"
all=$(find build/gen -name '*.h' | sort)
listed=$(grep "^generated" "$tmp/out" | tr ' ' '\n' | grep '^build/gen/' | sort)
[ -n "$all" ] && [ "$all" = "$listed" ] && grep -q "^generated, the runner's: build/gen/designs.h$" "$tmp/out" &&
	grep -q "^generated, kernel builds may include: .*build/gen/workloads/free_contig.h" "$tmp/out"
ok $? "--headers: each generated header on exactly one list, designs.h the runner's"

# The tests themselves link the kernel and the machine only.
! grep -q 'liblab' <(make -n -B build/tests/dbg/vanilla/test_page_ref V=1 2>/dev/null | grep -- '-o build/tests/dbg/vanilla/test_page_ref')
ok $? "kernel tests are linked without the runner"

done_testing
