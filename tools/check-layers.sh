#!/usr/bin/env bash
# The layering rule: the kernel model (src/mm, src/lib, src/workloads,
# src/kernel.c) uses the machine layer (src/machine) and never the runner
# (src/lab, src/experiments).
#
#   tools/check-layers.sh KERNEL_OBJ_OR_LIB... -- RUNNER_LIB
#   tools/check-layers.sh --headers     (the header lists, derived from the tree)
#
# Fails (exit 1, one line per offence) if a kernel object references a
# symbol the runner's library defines, or if a kernel source includes a
# runner header (KERNEL_SRC_DIRS overrides where to look; a header the
# Makefile generates in build/gen is the runner's unless it is the table of
# workloads or a workload's params and results), or if the list
# of headers kernel builds may include names one that is not in the tree;
# and for the one machine interface: if a kernel-named header reaches the
# machine past machine/machine.h (or declares a machine function itself),
# if an experiment or workload asks which machine it runs on (ctx->vt,
# MMLAB_VT, a machine header besides machine.h), or if the list of the
# machine's kernel-side headers differs from the tree and machine.h.
# Run by tests/layers.sh on every kernel build.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2

bad=0
kobjs=()
list_only=0
if [ "${1:-}" = --headers ] && [ $# -eq 1 ]; then
	list_only=1
else
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		kobjs+=("$1")
		shift
	done
	[ "${1:-}" = "--" ] && [ $# -eq 2 ] && [ ${#kobjs[@]} -gt 0 ] || {
		echo "usage: $0 KERNEL_OBJ_OR_LIB... -- RUNNER_LIB, or $0 --headers" >&2
		exit 2
	}
	runner=$2
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
fi

# The headers of include/mmlab a kernel build may include: the interface
# it exports (kernel.h, workloads/) and header-only helpers that keep no
# runner state.  Every other header there is the runner's, found in the tree,
# and so is every header of src/lab and src/experiments.  The list is
# checked against the tree: a name that matches no file fails the check.
KERNEL_MMLAB_HDRS=${KERNEL_MMLAB_HDRS:-kernel.h workloads/*.h random.h uncharged.h hist.h record_sum.h}
MMLAB_HDR_DIR=${MMLAB_HDR_DIR:-include/mmlab}
RUNNER_SRC_DIRS=${RUNNER_SRC_DIRS:-src/lab src/experiments}

declare -A kernel_ok=()
for pat in $KERNEL_MMLAB_HDRS; do
	found=0
	for f in "$MMLAB_HDR_DIR"/$pat; do
		[ -f "$f" ] || continue
		kernel_ok[${f#"$MMLAB_HDR_DIR"/}]=1
		found=1
	done
	if [ $found -eq 0 ]; then
		echo "check-layers: KERNEL_MMLAB_HDRS names $MMLAB_HDR_DIR/$pat, which matches no file"
		bad=1
	fi
done
runner_hdrs=()
while IFS= read -r f; do
	h=${f#"$MMLAB_HDR_DIR"/}
	[ -n "${kernel_ok[$h]:-}" ] || runner_hdrs+=("mmlab/$h")
done < <(find "$MMLAB_HDR_DIR" -name '*.h' | LC_ALL=C sort)
runner_private=$(find $RUNNER_SRC_DIRS -name '*.h' -exec realpath -m --relative-to=. {} + 2>/dev/null |
	LC_ALL=C sort)

# The headers the Makefile generates (build/gen, on the include path after
# include/): kernel builds may include the table of workloads and each
# workload's params and results (tools/gen-workload-abi.sh); every other one
# there is the runner's (designs.h).  Checked against the build, if any.
GEN_DIR=${GEN_DIR:-build/gen}
KERNEL_GEN_HDRS=${KERNEL_GEN_HDRS:-mm_workloads.h workloads/*.h}
declare -A gen_kernel_ok=()
gen_runner=()
if [ -d "$GEN_DIR" ]; then
	for pat in $KERNEL_GEN_HDRS; do
		for f in "$GEN_DIR"/$pat; do
			[ -f "$f" ] && gen_kernel_ok[${f#"$GEN_DIR"/}]=1
		done
	done
	while IFS= read -r f; do
		h=${f#"$GEN_DIR"/}
		[ -n "${gen_kernel_ok[$h]:-}" ] || gen_runner+=("$GEN_DIR/$h")
	done < <(find "$GEN_DIR" -name '*.h' | LC_ALL=C sort)
fi

# The machine's headers: those a kernel build sees (machine/machine.h, the
# only one kernel-named headers include, and the kernel's side it brings in),
# and the others, the runner's and the tests' (checked against the tree too).
MACHINE_HDR_DIR=${MACHINE_HDR_DIR:-include/machine}
MACHINE_KERNEL_HDRS=${MACHINE_KERNEL_HDRS:-machine.h yield.h vt_hooks.h}
declare -A machine_kernel=()
for h in $MACHINE_KERNEL_HDRS; do
	if [ -f "$MACHINE_HDR_DIR/$h" ]; then
		machine_kernel[$h]=1
	else
		echo "check-layers: MACHINE_KERNEL_HDRS names $MACHINE_HDR_DIR/$h, which is not in the tree"
		bad=1
	fi
done
machine_other=()
while IFS= read -r f; do
	h=${f#"$MACHINE_HDR_DIR"/}
	[ -n "${machine_kernel[$h]:-}" ] || machine_other+=("machine/$h")
done < <(find "$MACHINE_HDR_DIR" -name '*.h' | LC_ALL=C sort)

if [ $list_only -eq 1 ]; then
	echo "kernel builds may include: $(printf 'mmlab/%s ' $(printf '%s\n' "${!kernel_ok[@]}" | LC_ALL=C sort))"
	echo "runner headers: ${runner_hdrs[*]} $runner_private"
	echo "generated, kernel builds may include: $(for h in "${!gen_kernel_ok[@]}"; do echo "$GEN_DIR/$h"; done |
		LC_ALL=C sort | tr '\n' ' ')"
	echo "generated, the runner's: ${gen_runner[*]}"
	echo "the machine, as kernel builds see it: machine/machine.h, which brings in $(printf 'machine/%s ' $(printf '%s\n' "${!machine_kernel[@]}" | grep -vx machine.h | LC_ALL=C sort))"
	echo "the machine's other headers (runner, tests): ${machine_other[*]}"
	exit $bad
fi

# "FILE:LINE: offence" for each include of a runner header in FILES.
runner_includes() {
	local file line inc target
	grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"][^>"]+[>"]' "$@" 2>/dev/null |
	while IFS= read -r hit; do
		file=${hit%%:*} line=${hit#*:} line=${line%%:*}
		inc=$(sed -E 's/.*#[[:space:]]*include[[:space:]]*[<"]([^>"]+)[>"].*/\1/' <<<"${hit#*:*:}")
		case "$inc" in
		mmlab/*)
			[ -n "${kernel_ok[${inc#mmlab/}]:-}" ] ||
				echo "$file:$line: includes the runner header <$inc>"
			;;
		*)
			# "x.h": beside the file, else under include/, else generated
			if [ -f "$(dirname "$file")/$inc" ]; then
				target=$(realpath -m --relative-to=. "$(dirname "$file")/$inc")
			elif [ ! -f "include/$inc" ] && [ -f "$GEN_DIR/$inc" ]; then
				target=$GEN_DIR/$inc
			else
				target=$(realpath -m --relative-to=. "include/$inc")
			fi
			if grep -qxF "$target" <<<"$runner_private"; then
				echo "$file:$line: includes the runner's $target"
			elif [ "$target" = "$GEN_DIR/$inc" ] && [ -z "${gen_kernel_ok[$inc]:-}" ]; then
				echo "$file:$line: includes the runner's generated $target"
			elif [[ $target == include/mmlab/* ]] && [ -z "${kernel_ok[${target#include/mmlab/}]:-}" ]; then
				echo "$file:$line: includes the runner header $target"
			fi
			;;
		esac
	done
}

# The headers a kernel build may include must not bring the runner in.
mapfile -t allowed < <({ for h in "${!kernel_ok[@]}"; do echo "$MMLAB_HDR_DIR/$h"; done
			  for h in "${!gen_kernel_ok[@]}"; do echo "$GEN_DIR/$h"; done; } | LC_ALL=C sort)
while read -r hit; do
	[ -n "$hit" ] || continue
	echo "$hit (a header kernel builds may include)"
	bad=1
done < <([ ${#allowed[@]} -eq 0 ] || runner_includes "${allowed[@]}")

mapfile -t ksrcs < <(find ${KERNEL_SRC_DIRS:-src/mm src/lib src/workloads src/kernel.c include/linux include/asm src/machine include/machine} \
	-type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null | LC_ALL=C sort)
while read -r hit; do
	[ -n "$hit" ] || continue
	echo "$hit"
	bad=1
done < <([ ${#ksrcs[@]} -eq 0 ] || runner_includes "${ksrcs[@]}")

# --- one machine interface ----------------------------------------------------------
# Kernel-named headers (include/linux, include/asm) reach the machine only
# through machine/machine.h and declare none of its functions themselves;
# machine.h brings in exactly the kernel's side of the machine (the list
# above).  No experiment or workload asks which machine it runs on (ctx->vt
# and the like, MMLAB_VT or MMLAB_CHECKER, a machine header besides
# machine.h); nothing outside the machine layer reads ctx->vt.
KERNEL_HDR_DIRS=${KERNEL_HDR_DIRS:-include/linux include/asm}
MACHINE_USER_DIRS=${MACHINE_USER_DIRS:-src/experiments src/workloads include/mmlab}
OUTSIDE_MACHINE_DIRS=${OUTSIDE_MACHINE_DIRS:-src/lab src/experiments src/workloads src/mm src/lib src/kernel.c include/mmlab include/linux include/asm}
machine_offences() {
	local f
	mapfile -t khdrs < <(find $KERNEL_HDR_DIRS -name '*.h' 2>/dev/null | LC_ALL=C sort)
	if [ ${#khdrs[@]} -gt 0 ]; then
		grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]machine/' "${khdrs[@]}" |
			grep -vE '[<"]machine/machine\.h[>"]' |
			sed -E 's/^([^:]*:[0-9]*):.*[<"](machine\/[^>"]*)[>"].*/\1: includes <\2>: kernel-named headers reach the machine only through <machine\/machine.h>/'
		grep -nHE '^[a-z][a-z_ *]*[[:space:]*](vt|checker)_[a-z0-9_]+\(.*\);' "${khdrs[@]}" |
			sed -E 's/^([^:]*:[0-9]*):.*[[:space:]*]((vt|checker)_[a-z0-9_]+)\(.*/\1: declares the machine'"'"'s \2(): declare it in <machine\/machine.h>/'
	fi
	for f in $MACHINE_KERNEL_HDRS; do
		[ "$f" = machine.h ] || [ ! -f "$MACHINE_HDR_DIR/machine.h" ] ||
			grep -qE "^[[:space:]]*#[[:space:]]*include[[:space:]]*<machine/$f>" "$MACHINE_HDR_DIR/machine.h" ||
			echo "$MACHINE_HDR_DIR/machine.h: does not include <machine/$f>, on MACHINE_KERNEL_HDRS"
	done
	[ ! -f "$MACHINE_HDR_DIR/machine.h" ] ||
		grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<machine/' "$MACHINE_HDR_DIR/machine.h" |
		while IFS= read -r hit; do
			f=$(sed -E 's/.*<machine\/([^>]*)>.*/\1/' <<<"$hit")
			[ -n "${machine_kernel[$f]:-}" ] ||
				echo "${hit%%:#*}: machine.h includes <machine/$f>, which MACHINE_KERNEL_HDRS does not list"
		done
	grep -rnHE --include='*.c' --include='*.h' 'ctx->vt|[a-z_]->vt\b|\bMMLAB_VT\b|\bMMLAB_CHECKER\b' \
		$MACHINE_USER_DIRS 2>/dev/null | grep -vE '^[^:]*:[0-9]*:[[:space:]]*(/?\*|//)' |
		sed -E 's/^([^:]*:[0-9]*):.*/\1: asks which machine it runs on: use the machine interface (machine\/machine.h)/'
	grep -rnHE --include='*.c' --include='*.h' '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]machine/' \
		$MACHINE_USER_DIRS 2>/dev/null | grep -vE '[<"]machine/machine\.h[>"]' |
		sed -E 's/^([^:]*:[0-9]*):.*[<"](machine\/[^>"]*)[>"].*/\1: includes <\2>: experiments and workloads see the machine through <machine\/machine.h>/'
	grep -rnHE --include='*.c' --include='*.h' 'ctx->vt\b' $OUTSIDE_MACHINE_DIRS 2>/dev/null |
		sed -E 's/^([^:]*:[0-9]*):.*/\1: reads ctx->vt outside the machine layer/'
}
while read -r hit; do
	[ -n "$hit" ] || continue
	echo "$hit"
	bad=1
done < <(machine_offences | LC_ALL=C sort -u)

exit $bad
