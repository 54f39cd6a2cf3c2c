# shellcheck shell=bash
# What mlx5emu's benchmark scripts share (sourced): their usage and error
# messages, a temporary directory, the staged environment.

# bench_usage ARGS: "usage: SCRIPT ARGS" on stderr, exit 2
bench_usage() {
	echo "usage: $0 $*" >&2
	exit 2
}

# bench_die MESSAGE: "SCRIPT: MESSAGE" on stderr, exit 1
bench_die() {
	echo "$0: $*" >&2
	exit 1
}

# bench_tmp: a temporary directory in $tmp, removed at exit together with
# the background jobs the script started
bench_tmp() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"; kill $(jobs -p) 2>/dev/null || true' EXIT
}

# bench_env BUILD: run against BUILD's stage (BUILD/env.sh)
bench_env() {
	[ -r "$1/env.sh" ] || bench_die "no $1/env.sh: run make build"
	# shellcheck source=/dev/null
	. "$1/env.sh"
}
