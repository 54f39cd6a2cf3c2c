#!/usr/bin/env bash
# check-rpm.sh OUT STAGE: the RPMs of `make rpm` (in OUT) pass rpmlint with
# no error, and hold what the .debs and the stage hold (compare-rpm-deb.py).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
out=$(realpath "${1:?usage: check-rpm.sh OUT STAGE}")
stage=${2:?}
fail=0

echo "=== rpmlint"
top=$(cd "$here/../.." && pwd)
rpmlint -r "$top/redhat/rdma-core.rpmlintrc" "$out"/*.rpm >"$out/rpmlint.txt" 2>&1 || true
tail -n 1 "$out/rpmlint.txt"
if grep -q ': E: ' "$out/rpmlint.txt"; then
	grep ': E: ' "$out/rpmlint.txt" | sed 's/^/FAIL: /'
	fail=1
else
	echo "rpmlint: no errors ($(grep -c ': W: ' "$out/rpmlint.txt" || true) warnings, in $out/rpmlint.txt)"
fi

echo "=== RPMs against the .debs and the stage"
"$here/compare-rpm-deb.py" "$out" "$stage" || fail=1
exit $fail
