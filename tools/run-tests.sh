#!/usr/bin/env bash
# Run every test `make check` built, and every tests/*.sh script.
#
#   tools/run-tests.sh [PATTERN...]
#
# Test programs are the Makefile's TEST_BINS (build/tests/<flavour>/<design>/<name>
# and build/tests/lab/<name>); PATTERNs (shell globs, matched against names
# such as dbg/refcount-frozen-bit/test_page_ref or common/test_xarray or sh/cli.sh) select a subset.
# A program that was not built, or (with DESIGNS=vanilla,foo in the
# environment, as `make check DESIGNS=...` sets it) one of a design left
# out, is reported skipped: `ok   NAME  # SKIP why`, as TAP marks a skip.
#
# Each program speaks TAP (tests/tap.h).  Every test point counts; a program
# that crashes, times out, exits non-zero without a failing test point,
# prints no plan, or runs a different number of points than it planned adds
# one failed point under its own name.  A tests/*.sh script that prints no
# TAP at all counts as one point, passed iff it exits 0.
#
# Programs under build/tests/tsan/ run with TSAN_OPTIONS (halt_on_error,
# exitcode=66, tests/tsan.supp if present); one that dies of ThreadSanitizer's
# "unexpected memory mapping" (high-entropy ASLR on newer kernels) is retried
# once under `setarch $(uname -m) -R`.
#
# One line per program; failures are followed by their failing points and the
# tail of their output.  Full output: build/test-logs/<name>.log (stdout) and
# <name>.stderr.  The last line is `N passed, N failed` (then `, N skipped`
# programs, if any); the exit status is non-zero if anything failed.
#
# Environment: MMLAB_TEST_TIMEOUT (seconds per program, default 300),
# MMLAB_TEST_JOBS (programs at a time, default 2, at most the CPU count).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2

BUILD=build
LOGDIR=$BUILD/test-logs
RESDIR=$LOGDIR/.results
TIMEOUT=${MMLAB_TEST_TIMEOUT:-300}
ncpu=$(nproc 2>/dev/null || echo 1)
JOBS=${MMLAB_TEST_JOBS:-$((ncpu < 2 ? ncpu : 2))}
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=1

TSAN_OPTS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
[ -f tests/tsan.supp ] && TSAN_OPTS+=" suppressions=$PWD/tests/tsan.supp"

# --- what to run --------------------------------------------------------------

# The Makefile's own list, so that stale binaries of removed tests are not
# run: of every design, or of DESIGNS=$1 when given.
list_test_bins() {
	printf 'mmlab-print-test-bins:\n\t@echo $(TEST_BINS)\n' |
		env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS DESIGNS="$1" \
		make --no-print-directory -s -f Makefile -f - mmlab-print-test-bins
}

names=() paths=() kinds=()

DESIGNS=${DESIGNS:-}
bins=$(list_test_bins "" 2>/dev/null) || bins=
if [ -z "$bins" ]; then
	echo "run-tests: could not ask make for TEST_BINS; running what is under $BUILD/tests/" >&2
	bins=$(find "$BUILD/tests" -type f -perm -u+x 2>/dev/null | sort)
fi
# With DESIGNS, the programs of the designs left out are skipped.
declare -A in_designs=()
if [ -n "$DESIGNS" ]; then
	chosen=$(list_test_bins "$DESIGNS" 2>&1) || {
		echo "run-tests: DESIGNS=$DESIGNS: $(echo "$chosen" | grep -o '\*\*\* .*' | head -n 1)" >&2
		exit 2
	}
	for b in $chosen; do in_designs[$b]=1; done
fi

# flavour order: runner tests, unit/stress, checker, then the slow TSan ones
rank() {
	case "$1" in
	lab/*) echo 0 ;; dbg/*) echo 1 ;; chk/*) echo 2 ;; tsan/*) echo 3 ;; *) echo 4 ;;
	esac
}

patterns=("$@")

selected() {
	local pat
	[ ${#patterns[@]} -eq 0 ] && return 0
	for pat in "${patterns[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == $pat || $1 == *$pat* ]] && return 0
	done
	return 1
}

while read -r _ name; do
	[ -n "$name" ] || continue
	selected "$name" || continue
	names+=("$name"); paths+=("$BUILD/tests/$name")
	if [ -n "$DESIGNS" ] && [ -z "${in_designs[$BUILD/tests/$name]:-}" ]; then
		kinds+=("skip:not of DESIGNS=$DESIGNS")
	elif [ ! -x "$BUILD/tests/$name" ]; then
		kinds+=("skip:not built")
	else
		kinds+=(prog)
	fi
done < <(for b in $bins; do
		n=${b#"$BUILD"/tests/}
		echo "$(rank "$n") $n"
	done | LC_ALL=C sort -k1,1n -k2,2)

for s in tests/*.sh; do
	[ -f "$s" ] || continue
	name="sh/$(basename "$s")"
	selected "$name" || continue
	names+=("$name"); paths+=("$s")
	# the command-line tests expect every design in build/mmlab
	if [ -n "$DESIGNS" ] && grep -qE 'MMLAB|build/mmlab' "$s"; then
		kinds+=("skip:runs build/mmlab, built with DESIGNS=$DESIGNS")
	else
		kinds+=(script)
	fi
done

rm -rf "$LOGDIR"
mkdir -p "$RESDIR"

total=${#names[@]}
if [ "$total" -eq 0 ]; then
	echo "FAIL no test programs found"
	echo "0 passed, 1 failed"
	exit 1
fi

# --- running one ------------------------------------------------------------

now() { date +%s.%N; }

signame() {
	local s
	s=$(kill -l "$1" 2>/dev/null) && echo "SIG$s" || echo "signal $1"
}

# TAP counts of a stdout file: "passed failed has_plan plan bail"
tap_counts() {
	awk '
		/^ok([ \t]|$)/		{ pass++; next }
		/^not ok([ \t]|$)/	{ if ($0 ~ /#[ \t]*[Tt][Oo][Dd][Oo]/) pass++; else fail++; next }
		/^1\.\.[0-9]+/		{ has_plan = 1; plan = substr($0, 4) + 0; next }
		/^Bail out!/		{ bail = 1 }
		END { printf "%d %d %d %d %d\n", pass, fail, has_plan, plan, bail }
	' "$1"
}

is_aslr_failure() {
	grep -qE 'unexpected memory mapping|memory layout is incompatible|ThreadSanitizer:.*ASLR' "$1"
}

# Runs test $1 (an index); leaves $RESDIR/$1.{counts,block} then $1.done.
run_one() {
	local i=$1 name=${names[$1]} path=${paths[$1]} kind=${kinds[$1]}
	local log=$LOGDIR/$name.log err=$LOGDIR/$name.stderr
	local -a cmd pre=()
	local t0 t1 rc note="" reason="" pass fail has_plan plan bail extra=0 secs

	if [[ $kind == skip:* ]]; then
		echo "0 0 1" >"$RESDIR/$i.counts"
		printf 'ok   %-46s # SKIP %s\n' "$name" "${kind#skip:}" >"$RESDIR/$i.block"
		touch "$RESDIR/$i.done"
		return
	fi
	mkdir -p "$(dirname "$log")"
	if [ "$kind" = script ]; then
		cmd=(bash "$path")
	else
		cmd=("./$path")
	fi
	case "$name" in
	tsan/*) pre=(env "TSAN_OPTIONS=$TSAN_OPTS") ;;
	esac

	t0=$(now)
	# (the braces keep bash's "Segmentation fault" notices out of the output)
	{ timeout -k 10 "$TIMEOUT" "${pre[@]}" "${cmd[@]}" >"$log" 2>"$err" </dev/null; } 2>/dev/null
	rc=$?
	if [[ $name == tsan/* ]] && [ $rc -ne 0 ] && is_aslr_failure "$err"; then
		mv "$log" "$log.aslr-attempt"; mv "$err" "$err.aslr-attempt"
		if command -v setarch >/dev/null 2>&1; then
			note="retried under setarch $(uname -m) -R (TSan: unexpected memory mapping)"
			{ timeout -k 10 "$TIMEOUT" setarch "$(uname -m)" -R "${pre[@]}" "${cmd[@]}" \
				>"$log" 2>"$err" </dev/null; } 2>/dev/null
			rc=$?
		else
			note="TSan failed on a memory mapping (ASLR) and setarch is not installed"
			cp "$log.aslr-attempt" "$log"; cp "$err.aslr-attempt" "$err"
		fi
	fi
	t1=$(now)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')

	read -r pass fail has_plan plan bail < <(tap_counts "$log")

	if [ -n "$reason" ]; then
		:
	elif [ $rc -eq 124 ] || { [ $rc -eq 137 ] && [ "$(awk -v s="$secs" -v t="$TIMEOUT" 'BEGIN{print (s >= t)}')" = 1 ]; }; then
		reason="timed out after ${TIMEOUT}s"
	elif [ $rc -gt 128 ]; then
		reason="killed by $(signame $((rc - 128)))"
	elif [ $rc -eq 66 ] && [[ $name == tsan/* ]]; then
		reason="ThreadSanitizer report (exit 66)"
	elif [ "$bail" -eq 1 ]; then
		reason="bailed out"
	elif [ "$kind" = script ] && [ $((pass + fail + has_plan)) -eq 0 ]; then
		# a plain script: one point, its exit status
		if [ $rc -eq 0 ]; then pass=1; else fail=1; fi
	elif [ $rc -ne 0 ] && [ "$fail" -eq 0 ]; then
		reason="exit status $rc without a failing test point"
	elif [ "$has_plan" -eq 0 ]; then
		reason="no plan printed"
	elif [ "$plan" -ne $((pass + fail)) ]; then
		reason="planned $plan test points, ran $((pass + fail))"
	fi
	[ -n "$reason" ] && extra=1

	echo "$pass $((fail + extra)) 0" >"$RESDIR/$i.counts"
	{
		local shown="$pass/$((pass + fail))"
		if [ $((fail + extra)) -eq 0 ]; then
			printf 'ok   %-46s (%s)  %ss\n' "$name" "$shown" "$secs"
			[ -n "$note" ] && printf '     %s\n' "$note"
		else
			printf 'FAIL %-46s (%s)  %ss%s\n' "$name" "$shown" "$secs" \
				"${reason:+  -- $reason}"
			[ -n "$note" ] && printf '     %s\n' "$note"
			if [ "$fail" -gt 0 ]; then
				# failing points and the diagnostics under them
				awk '
					/^not ok/ && !/#[ \t]*[Tt][Oo][Dd][Oo]/ { show = 1; print; next }
					/^#/ && show { print; next }
					{ show = 0 }
				' "$log" | head -n 30 | sed 's/^/     | /'
			fi
			if [ -s "$log" ]; then
				echo "     --- last lines of stdout ($log)"
				tail -n 8 "$log" | sed 's/^/     | /'
			fi
			if [ -s "$err" ]; then
				echo "     --- last lines of stderr ($err)"
				tail -n 15 "$err" | sed 's/^/     | /'
			fi
		fi
	} >"$RESDIR/$i.block"
	touch "$RESDIR/$i.done"
}

# --- run them, $JOBS at a time ------------------------------------------------

# Results are printed in the order of the list, each as soon as it and all
# before it are done.
next_print=0
print_done() {
	while [ "$next_print" -lt "$total" ] && [ -e "$RESDIR/$next_print.done" ]; do
		cat "$RESDIR/$next_print.block"
		next_print=$((next_print + 1))
	done
}

echo "running $total test programs, $JOBS at a time, ${TIMEOUT}s each; logs in $LOGDIR/"
running=0
for ((i = 0; i < total; i++)); do
	if [ "$running" -ge "$JOBS" ]; then
		wait -n
		running=$((running - 1))
		print_done
	fi
	run_one "$i" &
	running=$((running + 1))
done
wait
print_done

passed=0 failed=0 skipped=0
for ((i = 0; i < total; i++)); do
	if [ -f "$RESDIR/$i.counts" ]; then
		read -r p f k <"$RESDIR/$i.counts"
	else
		echo "FAIL ${names[$i]}  -- the runner lost its result"
		p=0 f=1 k=0
	fi
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + k))
done
rm -rf "$RESDIR"

if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
