#!/usr/bin/env bash
# A design's tests against vanilla's kernel: do they tell the design apart?
#
#   make expect-fail DESIGN=contig-bulk
#   (make runs: tools/expect-fail.sh DESIGN FLAVOUR/TEST..., with CC, CFLAGS,
#    LIBS, FL_<flavour>, KCFG_DESIGN and KCFG_VANILLA in the environment)
#
# A test states what a design does with #ifdef CONFIG_... (the design's
# KCFG in the Makefile).  Here each of the design's tests is compiled with
# the design's KCFG, so it expects the design, and linked against vanilla's
# kernel library (build/k/vanilla/FLAVOUR/libmm.a), so vanilla runs.  Per test:
#
#   FAIL (expected)  some points fail, or it does not link (vanilla lacks a
#                    function the test calls): the test tells the design apart
#   pass             it passes against vanilla: it checks nothing the design changes
#   same             the test's own text (tests/*.c, tests/*.h) is the same under
#                    both KCFGs: it is vanilla's own test, not run
#   not comparable   the design changes a kernel header the test compiles in
#                    (page_ref.h, migrate.h, pagemap.h: a design that lives in
#                    a header): linked with vanilla's library it would mix the two
#
# Exit 0 if at least one test fails as expected, 1 if none does, 2 on bad
# usage (one line).  Work files: build/expect-fail/DESIGN/.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2

design=${1:-}
[ -n "$design" ] || { echo "expect-fail: usage: make expect-fail DESIGN=<design>" >&2; exit 2; }
shift
[ $# -gt 0 ] || { echo "expect-fail: $design has no tests of its own" >&2; exit 2; }
: "${CC:?}" "${CFLAGS:?}" "${LIBS:?}"
TIMEOUT=${MMLAB_TEST_TIMEOUT:-300}
work=build/expect-fail/$design
rm -rf "$work"
mkdir -p "$work"

# "FILE<TAB>LINE" for every line of the preprocessed test: which file it came from.
by_file() {
	awk '/^# [0-9]+ "/ { f = $3; gsub(/"/, "", f); next } NF { print f "\t" $0 }'
}

nfail=0 npass=0 nsame=0 nmixed=0
for ft in "$@"; do
	fl=${ft%%/*} t=${ft#*/}
	flvar=FL_$fl
	flags=()
	for f in $CFLAGS ${!flvar:-}; do
		case "$f" in -MMD|-MP) ;; *) flags+=("$f") ;; esac	# no dependency files
	done
	read -ra kd <<<"${KCFG_DESIGN:-}"
	read -ra kv <<<"${KCFG_VANILLA:-}"
	out=$work/$fl/$t
	mkdir -p "$work/$fl"
	"$CC" "${flags[@]}" "${kd[@]}" -Itests -E "tests/$t.c" 2>/dev/null | by_file >"$out.design.i"
	"$CC" "${flags[@]}" "${kv[@]}" -Itests -E "tests/$t.c" 2>/dev/null | by_file >"$out.vanilla.i"
	if cmp -s <(grep -v '^tests/' "$out.design.i") <(grep -v '^tests/' "$out.vanilla.i"); then
		:
	else
		hdr=$(diff <(grep -v '^tests/' "$out.design.i") <(grep -v '^tests/' "$out.vanilla.i") |
			awk -F'\t' '/^[<>] / { print substr($1, 3); exit }')
		printf 'not comparable  %-28s %s differs under %s\n' "$ft" "$hdr" "$design"
		nmixed=$((nmixed + 1))
		continue
	fi
	if cmp -s "$out.design.i" "$out.vanilla.i"; then
		printf 'same            %s\n' "$ft"
		nsame=$((nsame + 1))
		continue
	fi
	if ! "$CC" "${flags[@]}" "${kd[@]}" -Itests -DMM_KERNEL_NAME="\"$design's test on vanilla\"" \
		-o "$out" "tests/$t.c" "build/k/vanilla/$fl/libmm.a" \
		"build/machine/$fl/libmachine.a" ${LDFLAGS:-} $LIBS 2>"$out.link"; then
		sym=$(grep -o "undefined reference to \`[^']*'" "$out.link" | head -n 1)
		if [ -n "$sym" ]; then
			printf 'FAIL (expected) %-28s does not link against vanilla: %s\n' "$ft" "$sym"
			nfail=$((nfail + 1))
		else
			echo "expect-fail: $ft does not compile: $(grep -m1 'error' "$out.link")" >&2
			exit 2
		fi
		continue
	fi
	{ timeout -k 10 "$TIMEOUT" "./$out" >"$out.log" 2>"$out.stderr" </dev/null; } 2>/dev/null
	rc=$?
	failing=$(grep -c '^not ok' "$out.log")
	points=$(grep -cE '^(not )?ok' "$out.log")
	if [ "$failing" -gt 0 ] || [ $rc -ne 0 ]; then
		printf 'FAIL (expected) %-28s %d of %d points fail against vanilla%s\n' "$ft" "$failing" \
			"$points" "$([ $rc -gt 128 ] && echo ", killed by signal $((rc - 128))")"
		grep '^not ok' "$out.log" | head -n 5 | sed 's/^/                | /'
		nfail=$((nfail + 1))
	else
		printf 'pass            %-28s %d points pass against vanilla too\n' "$ft" "$points"
		npass=$((npass + 1))
	fi
done

echo "$design on vanilla: $nfail fail as expected, $npass pass, $nsame same as vanilla's, $nmixed not comparable"
[ $nfail -gt 0 ]
