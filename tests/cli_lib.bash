# Shared by the command-line tests (tests/cli*.sh; .bash so the test runner does not take it for a test): TAP output, a scratch
# directory, and the check that bad usage exits 2 with one line naming it.
# Not a test itself: sourced, after `cd` to the repository root.
MMLAB=${MMLAB:-build/mmlab}
n=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}

# usage_error DESCRIPTION ARGS...: exit 2, exactly one line on stderr naming the problem.
usage_error() {
	local what=$1; shift
	"$MMLAB" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^mmlab: ' "$tmp/err"
	ok $? "$what: exit 2 with one line ($(head -c 160 "$tmp/err" | tr -d '\n'))"
}

# usage_error_says PATTERN DESCRIPTION ARGS...: as usage_error, and the line matches the
# extended regex PATTERN; bounded in time (20 s) and memory (4 GB of address space), so that
# an input that blocks or never ends fails the test rather than hang it or exhaust the host.
usage_error_says() {
	local pat=$1 what=$2; shift 2
	(ulimit -v 4000000; timeout 20 "$MMLAB" "$@") </dev/null >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^mmlab: ' "$tmp/err" &&
		grep -qE "$pat" "$tmp/err"
	ok $? "$what: exit 2 with one line saying /$pat/ (exit $rc: $(head -c 200 "$tmp/err" | tr -d '\n'))"
}

done_testing() {
	echo "1..$n"
	[ $failed -eq 0 ]
}
