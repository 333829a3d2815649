#!/usr/bin/env bash
# Where a virtual-time run's basic blocks go, by function of the kernel model:
#
#   tools/blockprof.sh [-n N] [-o FILE] [-e rmw|miss|stall] -- build/mmlab run EXPERIMENT --machine PRESET ...
#
# Runs the command with MMLAB_VT_BLOCKPROF (src/machine/vt_blockprof.c), which
# counts every block a simulated CPU enters by its call site, names the sites
# with addr2line (the command's first word is the binary), and prints the N
# functions (default 25) with the most blocks: count, share of all blocks
# counted, name.  Where the run times windows (the single-threaded experiments'
# measured calls) only the blocks inside them are counted, else all of the
# run's (set-up and checks included).  Blocks of every sample and variant of
# the command are in it: run one variant and one point to see one design.  -o
# keeps the raw counts (OFFSET COUNT WINDOWED).  -e rmw counts the locked RMWs
# instead of the blocks (each atomic RMW of the kernel model and each spinlock
# acquisition), each by the function that made it and the two it was inlined
# into (addr2line's inline chain).  -e miss counts the L1 misses (lines from
# the L2, the L3, memory or another core) by the load, store or atomic that
# made each, named the same way (a memcpy() or memset() by its caller, for all
# the lines it moves).  -e stall sums the nanoseconds each
# access stalled on the memory system (share_mem_pct's time): the access
# that waits, which need not be the one whose miss it waits for (a locked
# RMW waits for the stores buffered before it).
set -uo pipefail

top=25
raw=
ev=blocks
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	case "$1" in
	-n) top=${2:-}; shift 2 ;;
	-o) raw=${2:-}; shift 2 ;;
	-e) ev=${2:-}; shift 2 ;;
	*) echo "usage: $0 [-n N] [-o FILE] [-e rmw|miss|stall] -- BINARY ARGS..." >&2; exit 2 ;;
	esac
done
case "$ev" in
blocks | rmw | miss | stall) ;;
*) echo "$0: -e takes blocks, rmw, miss or stall (got '$ev')" >&2; exit 2 ;;
esac
[ "${1:-}" = -- ] && [ $# -ge 2 ] || { echo "usage: $0 [-n N] [-o FILE] [-e rmw|miss|stall] -- BINARY ARGS..." >&2; exit 2; }
shift
case "$top" in
'' | *[!0-9]*) echo "$0: -n takes a count of functions, 1 or more (got '$top')" >&2; exit 2 ;;
esac
[ "$top" -ge 1 ] || { echo "$0: -n takes a count of functions, 1 or more (got '$top')" >&2; exit 2; }
bin=$1
[ -x "$bin" ] || { echo "$0: $bin is not an executable" >&2; exit 2; }
command -v addr2line >/dev/null || { echo "$0: needs addr2line (binutils)" >&2; exit 2; }

unit=1
case "$ev" in
blocks) what=blocks one=block ;;
rmw) what="locked RMWs" one="locked RMW" ;;
miss) what="L1 misses" one="L1 miss" ;;
stall) what="ns stalled" one=stall unit=1000 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MMLAB_VT_BLOCKPROF=$tmp/raw MMLAB_VT_BLOCKPROF_EVENTS=$ev "$@" >"$tmp/out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	cat "$tmp/out" >&2
	echo "$0: the command exited $rc" >&2
	exit $rc
fi
[ -s "$tmp/raw" ] || { echo "$0: no $one was counted (not a virtual-time run?)" >&2; exit 1; }
[ -z "$raw" ] || cp "$tmp/raw" "$raw"
if [ "$ev" = blocks ]; then
	grep -v '^#' "$tmp/raw" | awk '{ print $1 }' | addr2line -f -e "$bin" | awk 'NR % 2' >"$tmp/names"
else
	# each site as "function < the one it is in < ...", three deep: the atomic and its users
	grep -v '^#' "$tmp/raw" | awk '{ print $1 }' | addr2line -a -f -i -e "$bin" | python3 -c '
import sys
sites = []
for l in sys.stdin:
    l = l.rstrip("\n")
    if l.startswith("0x"):
        sites.append([])
    else:
        sites[-1].append(l)
for s in sites:
    print(" < ".join(s[0::2][:3]))' >"$tmp/names"
fi
python3 - "$tmp/raw" "$tmp/names" "$top" "$what" "$unit" <<'PY'
import collections, sys
counts = [l.split() for l in open(sys.argv[1]) if not l.startswith("#")]
names = [l.strip() for l in open(sys.argv[2])]
assert len(counts) == len(names), (len(counts), len(names))
windowed = any(int(w) for _, _, w in counts)
by = collections.Counter()
unit = int(sys.argv[5])	# the stall profile counts ps, and prints ns
for (_, n, w), name in zip(counts, names):
    by[name] += int(w if windowed else n)
by = collections.Counter({k: v // unit for k, v in by.items() if v // unit})
total = sum(by.values())
what = sys.argv[4]
print("# %s" % ("%s inside the run's timed windows" % what if windowed else
                "every one of the run's %s (it times no window)" % what))
print("%12s %6s  %s" % (what, "share", "function"))
for name, n in by.most_common(int(sys.argv[3])):
    print("%12d %5.1f%%  %s" % (n, 100.0 * n / total, name))
print("%12d %5.1f%%  all %d functions (%d call sites)" % (total, 100.0, len(by), len(names)))
for l in open(sys.argv[1]):
    if l.startswith("#"):
        print(l.strip())
PY
