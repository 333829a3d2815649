#!/usr/bin/env bash
# Mutation testing: does some test fail when one rule of the code is broken?
#
#   tools/mutation.sh [ID...]        (make mutation: every mutant)
#   tools/mutation.sh --check        does every mutant still apply? (make check)
#
# Each line of tools/mutants.txt (tab-separated; # starts a comment) is one
# plausible slip in the kernel model or the runner:
#
#   ID  FILE  NTH  FIND  REPLACE  TESTS  WHAT
#
# NTH is k/n: FIND must occur exactly n times in FILE, and the k-th becomes
# REPLACE ("\n" and "\t" stand for a newline and a tab).  TESTS are the test programs the mutant concerns, as
# build/tests/ paths (flavour/design/name, or lab/name).  For each mutant, in
# one scratch copy of the tracked tree (build/mutation/tree, builds kept
# between mutants so only what the slip touches is rebuilt):
#
#   1. apply it; a mutant that no longer applies or does not build is
#      reported "invalid" (the list has gone stale), not counted;
#   2. build and run its TESTS: any failure and it is caught ("targeted");
#   3. a survivor then runs the suite: every dbg and chk test of vanilla and
#      of the designs its TESTS name, the common tests and the runner's tests
#      ("suite"); a failure there catches it, else it survived.
#
# The TSan builds, the stress tests under TSan and the command-line scripts
# (which need every design built into build/mmlab) are not part of the suite
# here: `make check` runs them.
#
# Output: one line per mutant, then the score (caught / valid).  The report
# is also written to build/mutation/report.txt.  Environment:
# MMLAB_MUTATION_SUITE=0 skips stage 3; MMLAB_TEST_TIMEOUT (default 120 here)
# bounds each test program, so a mutant that makes a test hang is caught by
# its timeout; MMLAB_MUTANTS names another list.  --check builds and runs
# nothing: it applies stage 1's rule to the tracked files themselves, without
# writing them, names each mutant that no longer applies, and exits 1 if any
# does (a change that moved a mutant's FIND must move the mutant too).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
LIST=${MMLAB_MUTANTS:-tools/mutants.txt}
WORK=build/mutation
TREE=$WORK/tree
REPORT=$WORK/report.txt
SUITE=${MMLAB_MUTATION_SUITE:-1}
export MMLAB_TEST_TIMEOUT=${MMLAB_TEST_TIMEOUT:-120}
JOBS=$(nproc 2>/dev/null || echo 1)

# The tree as tracked (working-tree contents), builds of earlier runs kept.
# A file the tree no longer tracks goes from the copy too (the Makefile's
# wildcards would build a source that was renamed or split away).
sync_tree() {
	mkdir -p "$TREE"
	git ls-files -z | while IFS= read -r -d '' f; do
		if ! cmp -s "$f" "$TREE/$f"; then
			mkdir -p "$TREE/$(dirname "$f")"
			cp "$f" "$TREE/$f"
		fi
	done
	(cd "$TREE" && find . -path ./build -prune -o -type f -print0) |
		while IFS= read -r -d '' f; do
			f=${f#./}
			[ -e "$f" ] || rm -f "$TREE/$f"
		done
}

# The rule of stage 1: the k-th of exactly n occurrences of FIND in FILE.
# "PATH NTH FIND REPL" applies one mutant to PATH; "--check LIST" only says,
# for every mutant of LIST, whether its tracked file would take it.
APPLY_PY=$(cat <<'EOF'
import re, sys
unesc = lambda s: s.replace('\\n', '\n').replace('\\t', '\t')

def where(path, nth, find):
    k, n = (int(x) for x in nth.split('/'))
    if not find:
        raise ValueError(f"{path}: an empty FIND")
    text = open(path).read()
    at, pos = [], text.find(find)
    while pos >= 0:
        at.append(pos)
        pos = text.find(find, pos + len(find))
    if len(at) != n or not 1 <= k <= n:
        raise ValueError(f"{path}: '{find}' occurs {len(at)} times, the list says {n}")
    return text, at[k - 1]

if sys.argv[1] == "--check":
    total = stale = 0
    for line in open(sys.argv[2]):
        f = re.split("\t+", line.rstrip("\n").strip("\t"))	# as bash's read splits it
        if not f[0] or f[0].startswith("#"):
            continue
        total += 1
        try:
            where(f[1], f[2], unesc(f[3]))
        except (OSError, ValueError, IndexError) as e:
            print(f"stale: {f[0]}: {e}")
            stale += 1
    print(f"mutants: {total} in {sys.argv[2]}, {stale} no longer apply")
    sys.exit(1 if stale else 0)
path, nth, find, repl = sys.argv[1:5]
find, repl = unesc(find), unesc(repl)
try:
    text, p = where(path, nth, find)
except ValueError as e:
    sys.exit(str(e))
open(path, 'w').write(text[:p] + repl + text[p + len(find):])
EOF
)

# Apply one mutant to the scratch copy.
apply() {
	python3 -c "$APPLY_PY" "$TREE/$1" "$2" "$3" "$4"
}

restore() {
	cp "$ROOT/$1" "$TREE/$1"
}

# The suite for a mutant whose targeted tests are $@: their designs, vanilla, common, lab.
suite_patterns() {
	local t designs="vanilla"

	for t in "$@"; do
		case "$t" in
		lab/*) ;;
		*/*/*) designs+=" $(echo "$t" | cut -d/ -f2)" ;;
		esac
	done
	for d in $(echo "$designs" | tr ' ' '\n' | sort -u); do
		[ "$d" = common ] || printf 'dbg/%s/ chk/%s/ ' "$d" "$d"
	done
	printf 'dbg/common/ chk/common/ lab/\n'
}

# TEST_BINS of the scratch tree that match the patterns.
suite_bins() {
	printf 'mmlab-print-test-bins:\n\t@echo $(TEST_BINS)\n' |
		env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$TREE" -f Makefile -f - \
		mmlab-print-test-bins | tr ' ' '\n' | grep -F "$(printf '%s\n' "$@" |
		sed 's|^|build/tests/|')"
}

# Build @bins in the scratch tree, then run them; 0 iff every test passes.
build_and_run() {
	local bins=() pats=() t

	for t in "$@"; do
		case "$t" in
		# A script of tests/ (sh/cli_vt.sh) runs build/mmlab, and the report's venv.
		sh/*) [[ " ${bins[*]} " == *" build/mmlab "* ]] || bins+=(build/mmlab venv) ;;
		*) bins+=("build/tests/$t") ;;
		esac
		pats+=("$t")
	done
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$TREE" -j"$JOBS" "${bins[@]}" \
		>"$WORK/build.log" 2>&1 || return 2
	(cd "$TREE" && bash tools/run-tests.sh "${pats[@]}") >"$WORK/run.log" 2>&1
}

if [ "${1:-}" = --check ]; then
	python3 -c "$APPLY_PY" --check "$LIST"
	exit
fi

mkdir -p "$WORK"
sync_tree
: >"$REPORT"
caught=0 survived=0 invalid=0 total=0
survivors=()

while IFS=$'\t' read -r id file nth find repl tests what; do
	case "$id" in ''|'#'*) continue ;; esac
	if [ $# -gt 0 ] && [[ " $* " != *" $id "* ]]; then
		continue
	fi
	read -ra tl <<<"$tests"
	if ! apply "$file" "$nth" "$find" "$repl" 2>"$WORK/apply.log"; then
		line=$(printf '%-9s %-9s %-28s %s' invalid - "$id" "$(cat "$WORK/apply.log")")
		invalid=$((invalid + 1))
	else
		build_and_run "${tl[@]}"
		rc=$?
		stage=targeted
		if [ $rc -eq 0 ] && [ "$SUITE" != 0 ]; then
			stage=suite
			mapfile -t sb < <(suite_bins $(suite_patterns "${tl[@]}"))
			build_and_run "${sb[@]#build/tests/}"
			rc=$?
		fi
		if [ $rc -eq 2 ]; then
			line=$(printf '%-9s %-9s %-28s %s' invalid build "$id" "does not build: $(grep -m1 error "$WORK/build.log")")
			invalid=$((invalid + 1))
		elif [ $rc -ne 0 ]; then
			fails=$(grep '^FAIL ' "$WORK/run.log" | awk '{print $2}' | head -3 | tr '\n' ' ')
			line=$(printf '%-9s %-9s %-28s %s [%s]' caught "$stage" "$id" "$what" "$fails")
			caught=$((caught + 1))
		else
			line=$(printf '%-9s %-9s %-28s %s' SURVIVED "$stage" "$id" "$what")
			survived=$((survived + 1))
			survivors+=("$id")
		fi
	fi
	restore "$file"
	total=$((total + 1))
	echo "$line" | tee -a "$REPORT"
done <"$LIST"

valid=$((caught + survived))
score=$(awk -v c=$caught -v v=$valid 'BEGIN { printf "%.1f", v ? 100 * c / v : 0 }')
{
	echo "mutation score: $caught caught of $valid valid mutants ($score%), $survived survived, $invalid invalid, $total in all"
	[ ${#survivors[@]} -eq 0 ] || echo "survivors: ${survivors[*]}"
} | tee -a "$REPORT"
[ "$survived" -eq 0 ] && [ "$invalid" -eq 0 ]
