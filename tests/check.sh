# shellcheck shell=bash
# check WHAT EXPECTED OBSERVED: an "ok" or "FAIL" line, and fail=1 on a
# mismatch, for scripts that compare many values and exit $fail at the
# end (the planner's tests). Source it; unlike lib.sh it sets no mode.
check() {
	if [ "$2" = "$3" ]; then
		echo "ok   $1: $2"
	else
		echo "FAIL $1: expected $2, observed $3"
		# shellcheck disable=SC2034 # the caller exits $fail
		fail=1
	fi
}
