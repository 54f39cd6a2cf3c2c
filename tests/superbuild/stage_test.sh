#!/usr/bin/env bash
# stage_test.sh STAGE: staged programs resolve libibverbs from the stage
# without any environment, and the stage carries the fork's version.
. "$(dirname "$0")/../lib.sh"
stage=$1
status=0
check() {
	if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; status=1; fi
}
lib=$(env -u LD_LIBRARY_PATH ldd "$stage/bin/ibv_devinfo" | awk '$1 ~ /^libibverbs/ { print $3 }')
check "ibv_devinfo loads $lib" '[ "$(readlink -f "$lib")" = "$(readlink -f "$stage/lib/libibverbs.so.1")" ]'
ver=$(PKG_CONFIG_PATH=$stage/lib/pkgconfig pkg-config --modversion libibverbs) || true
check "pkg-config libibverbs is $ver" '[[ $ver == *tdshare* ]]'
check "libmlx5 provider is staged" '[ -f "$stage/lib/libibverbs/libmlx5-rdmav65.so" ]'
check "pyverbs is staged" '[ -d "$stage/lib/python3/dist-packages/pyverbs" ]'
check "man pages are staged" '[ -f "$stage/share/man/man3/ibv_alloc_td.3" ]'
exit $status
