# shellcheck shell=bash
# What the test scripts share. Source it first:
#   . "$(dirname "$0")/../lib.sh"
# It turns on strict mode (set -euo pipefail): a command whose failure is
# an outcome to check, not an error, is written `cmd || rc=$?`.
set -euo pipefail

# die MESSAGE...: the test failed; say why on stderr and exit 1
die() {
	echo "FAIL: $*" >&2
	exit 1
}

# at_exit COMMAND: run COMMAND (a shell string) when the script exits,
# before the ones registered earlier (a process is stopped before the
# directory it writes to is removed); the exit status stays the script's.
lib_at_exit=()
at_exit() {
	lib_at_exit=("$1" "${lib_at_exit[@]}")
}
lib_on_exit() {
	local rc=$? c
	for c in "${lib_at_exit[@]}"; do
		eval "$c" || true
	done
	exit $rc
}
trap lib_on_exit EXIT

# scratch_dir VAR: a new temporary directory in VAR, removed at exit
scratch_dir() {
	local lib_dir # a name the caller's VAR is unlikely to have
	lib_dir=$(mktemp -d)
	at_exit "rm -rf '$lib_dir'"
	printf -v "$1" %s "$lib_dir"
}

# wait_for SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds
# (status 0), at most SECONDS x 10 times (status 1)
wait_for() {
	local tries=$(($1 * 10))
	shift
	while ! "$@"; do
		tries=$((tries - 1))
		[ $tries -gt 0 ] || return 1
		sleep 0.1
	done
}

# listening PORT: something listens on TCP PORT
listening() {
	[ -n "$(ss -ltnH "sport = :$1" 2>/dev/null)" ]
}

# wait_listening PORT [PID]: wait (at most 10 s) until something listens on
# TCP PORT; give up early when process PID has exited. Status 1 if nothing
# listens: the caller's client then reports the failure as it would.
wait_listening() {
	local port=$1 pid=${2:-}
	wait_for 10 lib_listening_or_gone "$port" "$pid" && listening "$port"
}
lib_listening_or_gone() {
	listening "$1" || { [ -n "$2" ] && ! kill -0 "$2" 2>/dev/null; }
}
