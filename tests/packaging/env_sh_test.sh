#!/usr/bin/env bash
# Sourcing build/env.sh changes only the search paths it documents: the
# caller's own variables (whatever their names) and options are left alone.
. "$(dirname "$0")/../lib.sh"
env_sh=${1:?usage: env_sh_test.sh BUILD/env.sh STAGE}
stage=${2:?}
fail=0
check() {
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1: got '$2', want '$3'"
		fail=1
	fi
}

before=$(bash -c 'stage=mine; prefix=p; lib=l; dir=d; set -o noglob
	PATH=/usr/bin:/bin; unset LD_LIBRARY_PATH PYTHONPATH PKG_CONFIG_PATH MANPATH
	. "$1" || exit 1
	echo "$stage|$prefix|$lib|$dir|$-"
	echo "$PATH"; echo "$LD_LIBRARY_PATH"; echo "$PYTHONPATH"
	echo "$PKG_CONFIG_PATH"; echo "$MANPATH"
	declare -F | wc -l' _ "$env_sh") || die "sourcing $env_sh failed"
mapfile -t got <<<"$before"
check "caller's variables and options" "${got[0]%|*}" "mine|p|l|d"
case ${got[0]##*|} in *f*) ;; *) echo "FAIL: set -o noglob lost"; fail=1 ;; esac
check PATH "${got[1]}" "$stage/bin:/usr/bin:/bin"
check LD_LIBRARY_PATH "${got[2]}" "$stage/lib"
check PYTHONPATH "${got[3]}" "$stage/lib/python3/dist-packages"
check PKG_CONFIG_PATH "${got[4]}" "$stage/lib/pkgconfig"
check MANPATH "${got[5]}" "$stage/share/man:"
check "functions defined" "${got[6]}" 0

# existing search paths are kept, after the stage's
got=$(bash -c 'LD_LIBRARY_PATH=/opt/x; PYTHONPATH=/opt/y; . "$1"; echo "$LD_LIBRARY_PATH $PYTHONPATH"' _ "$env_sh") || true
check "kept search paths" "$got" "$stage/lib:/opt/x $stage/lib/python3/dist-packages:/opt/y"

# and it works in a POSIX shell under set -eu
got=$(sh -euc '. "$1"; echo ok' _ "$env_sh" 2>&1) || true
check "sh -eu" "$got" ok
[ $fail -eq 0 ] && echo "env.sh leaves the caller's shell alone"
exit $fail
