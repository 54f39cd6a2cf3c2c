#!/bin/bash
# The layering check refuses what it must: on a fixture whose bottom layer
# includes and calls its top layer, it reports the include, the call and
# the cycle and fails; with the three listed in an allow-list it passes;
# with a stale allow-list entry it fails again.
#   layers_fixture_test.sh LAYERS_PY FIXTURE_DIR OBJECT_DIR
set -u
py=$1 fixture=$2 objs=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { python3 "$py" --src "$fixture" --objs "$objs" \
	--layers "$fixture/layers.txt" "$@" >"$tmp/out" 2>&1; }
fail() { echo "FAIL: $*"; cat "$tmp/out"; exit 1; }

run && fail "the upward dependencies passed"
grep -q 'include upward: bottom/bottom.c \[bottom\] -> top/top.h \[top\]' \
	"$tmp/out" || fail "no upward include reported"
grep -q 'call upward: bottom/bottom.c \[bottom\] -> top/top.c \[top\]' \
	"$tmp/out" || fail "no upward call reported"
grep -q 'cycle across layers: bottom/bottom.c\[bottom\] top/top.c\[top\]' \
	"$tmp/out" || fail "no cycle reported"

printf '%s\n' 'include bottom/bottom.c top/top.h' \
	'call bottom/bottom.c top/top.c  # top_call' >"$tmp/allow"
run --allow "$tmp/allow" || fail "the allow-list was not honoured"

echo 'call top/top.c bottom/bottom.c' >>"$tmp/allow"
run --allow "$tmp/allow" && fail "a stale allow-list entry passed"
grep -q 'matches nothing' "$tmp/out" || fail "stale entry not named"
echo "layers fixture: ok"
