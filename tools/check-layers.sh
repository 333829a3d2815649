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
# runner header (KERNEL_SRC_DIRS overrides where to look), or if the list
# of headers kernel builds may include names one that is not in the tree.
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

if [ $list_only -eq 1 ]; then
	echo "kernel builds may include: $(printf 'mmlab/%s ' $(printf '%s\n' "${!kernel_ok[@]}" | LC_ALL=C sort))"
	echo "runner headers: ${runner_hdrs[*]} $runner_private"
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
			# "x.h": beside the file, else under include/
			if [ -f "$(dirname "$file")/$inc" ]; then
				target=$(realpath -m --relative-to=. "$(dirname "$file")/$inc")
			else
				target=$(realpath -m --relative-to=. "include/$inc")
			fi
			if grep -qxF "$target" <<<"$runner_private"; then
				echo "$file:$line: includes the runner's $target"
			elif [[ $target == include/mmlab/* ]] && [ -z "${kernel_ok[${target#include/mmlab/}]:-}" ]; then
				echo "$file:$line: includes the runner header $target"
			fi
			;;
		esac
	done
}

# The headers a kernel build may include must not bring the runner in.
mapfile -t allowed < <(for h in "${!kernel_ok[@]}"; do echo "$MMLAB_HDR_DIR/$h"; done | LC_ALL=C sort)
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

exit $bad
