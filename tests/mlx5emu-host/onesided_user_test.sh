#!/bin/sh
# One-sided operations of an unprivileged user (uid 65534, no
# capabilities): ptrace permission over its own processes is all the
# requester needs. Skipped (77) unless run as root with setpriv.
# $1: the mlx5emu launcher, $2: the test program.
set -e
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	echo "SKIP: needs root and setpriv to become uid 65534"
	exit 77
fi
if ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$2"; then
	echo "SKIP: uid 65534 cannot run $2"
	exit 77
fi
# a private TMPDIR for the launcher, HOME is not ours either
dir=$(mktemp -d)
chown 65534:65534 "$dir"
trap 'rm -rf "$dir"' EXIT
as_user() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env TMPDIR="$dir" HOME="$dir" "$@"
}
as_user "$1" run -- "$2"
# refused (a responder that is not dumpable): the responder's NIC does
# it, as before, and stderr says why, once
as_user ONESIDED_TEST_UNDUMPABLE=1 "$1" run -- "$2" 2>"$dir/err" ||
	{ cat "$dir/err"; exit 1; }
cat "$dir/err"
[ "$(grep -c 'mlx5emu: one-sided operations to pid .* need its CPU' "$dir/err")" = 1 ]
