#!/usr/bin/env bash
# The layering rule: the kernel model (src/mm, src/lib, src/workloads,
# src/kernel.c) uses the machine layer (src/machine) and never the runner
# (src/lab, src/experiments).
#
#   tools/check-layers.sh KERNEL_OBJ_OR_LIB... -- RUNNER_LIB
#
# Fails (exit 1, one line per offence) if a kernel object references a
# symbol the runner's library defines, or if a kernel source includes a
# runner header (mmlab/lab.h, mmlab/experiment.h and the other runner-only
# headers; KERNEL_SRC_DIRS overrides where to look).  Run by tests/layers.sh
# on every kernel build.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2

kobjs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	kobjs+=("$1")
	shift
done
[ "${1:-}" = "--" ] && [ $# -eq 2 ] && [ ${#kobjs[@]} -gt 0 ] || {
	echo "usage: $0 KERNEL_OBJ_OR_LIB... -- RUNNER_LIB" >&2
	exit 2
}
runner=$2

bad=0
runner_defs=$(nm --defined-only -g "$runner" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u)
[ -n "$runner_defs" ] || { echo "check-layers: no symbols in $runner" >&2; exit 2; }

for k in "${kobjs[@]}"; do
	undef=$(nm -u "$k" | awk '{ print $NF }' | sort -u)
	while read -r s; do
		[ -n "$s" ] || continue
		echo "$k: the kernel model references the runner's $s"
		bad=1
	done < <(comm -12 <(echo "$undef") <(echo "$runner_defs"))
done

# Headers of the runner: everything in include/mmlab except the interface a
# kernel build exports (kernel.h and the workload types) and header-only
# helpers with no runner state.
RUNNER_HDRS='mmlab/(lab|experiment|options|data_file|table|json|stats)\.h'
while read -r hit; do
	echo "$hit: a kernel source includes a runner header"
	bad=1
done < <(grep -rnE "#include <$RUNNER_HDRS>" ${KERNEL_SRC_DIRS:-src/mm src/lib src/workloads src/kernel.c include/linux include/asm src/machine include/machine} 2>/dev/null)

exit $bad
