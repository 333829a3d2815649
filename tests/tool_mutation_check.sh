#!/usr/bin/env bash
# tools/mutation.sh --check (TAP): every mutant of tools/mutants.txt still applies to the
# tree (its FIND occurs exactly the number of times its NTH says), and a list with stale
# mutants is refused, each named, exit 1.  make check runs this so that a change which
# moves a mutant's FIND moves the mutant in the same commit.
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

bash tools/mutation.sh --check >"$tmp/all.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q ", 0 no longer apply$" "$tmp/all.txt"
ok $? "every mutant of tools/mutants.txt applies ($(tail -n 1 "$tmp/all.txt"))"

# Drawn against src/machine/vt_cache.c as it is:
#   gone:    a FIND the file does not have
#   twice:   a FIND on two lines (vt_memcpy()'s and vt_memmove()'s) said to be on one
#   nofile:  a file the tree does not have
#   empty:   no FIND at all
#   good:    one that applies, as in the list
t=$'\t'
printf '%s\n' \
	"gone${t}src/machine/vt_cache.c${t}1/1${t}no such text in the file${t}x${t}dbg/common/test_vt_cache${t}w" \
	"twice${t}src/machine/vt_cache.c${t}1/1${t}vt_mem_at(s, n, false, __builtin_return_address(0));${t}x${t}dbg/common/test_vt_cache${t}w" \
	"nofile${t}src/machine/no_such_file.c${t}1/1${t}x${t}y${t}dbg/common/test_vt_cache${t}w" \
	"empty${t}src/machine/vt_cache.c${t}1/1" \
	"good${t}src/machine/vt_cache.c${t}1/2${t}vt_mem_at(s, n, false, __builtin_return_address(0));${t}(void)s;${t}dbg/common/test_vt_cache${t}w" \
	>"$tmp/stale.txt"
sum=$(cksum <src/machine/vt_cache.c)
MMLAB_MUTANTS="$tmp/stale.txt" bash tools/mutation.sh --check >"$tmp/out.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "^stale: gone: .*occurs 0 times, the list says 1" "$tmp/out.txt" &&
	grep -q "^stale: twice: .*occurs 2 times, the list says 1" "$tmp/out.txt" &&
	grep -q "^stale: nofile: " "$tmp/out.txt" && grep -q "^stale: empty: " "$tmp/out.txt" &&
	! grep -q "^stale: good" "$tmp/out.txt" && grep -q "^mutants: 5 in .*, 4 no longer apply$" "$tmp/out.txt"
ok $? "a list with four stale mutants: exit 1, each named, the good one not (exit $rc)"
grep "^good" "$tmp/stale.txt" >"$tmp/good.txt"
MMLAB_MUTANTS="$tmp/good.txt" bash tools/mutation.sh --check >"$tmp/out.txt" 2>&1
ok $? "a list whose one mutant applies: exit 0 ($(tail -n 1 "$tmp/out.txt"))"
[ "$(cksum <src/machine/vt_cache.c)" = "$sum" ]
ok $? "--check writes nothing to the tree (even the mutant that applies)"

done_testing
