#!/usr/bin/env bash
# lintian-compare.sh OUT: lintian on our .debs reports no error, and no
# warning that it does not also report on Debian's own rdma-core packages
# (the machine's version, 44.0-2 on Debian 12; see debian-reference.sh).
# Warnings both share are listed, not fatal: they are Debian's as well.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
out=$(realpath "${1:?usage: lintian-compare.sh OUT}")
ref=$("$here/debian-reference.sh" "$out")
version=$(lintian --print-version)

# "E|W tag" lines of lintian's report on some packages
tags() {
	lintian --tag-display-limit 0 "$@" 2>/dev/null |
		awk -F': ' '/^[EW]: / { split($3, t, " "); print $1, t[1] }' | sort -u || true
}

cache=$ref/lintian-$version.tags
[ -f "$cache" ] || tags "$ref"/*.deb >"$cache"
lintian --tag-display-limit 0 "$out"/*.deb >"$out/lintian.txt" 2>&1 || true
awk -F': ' '/^[EW]: / { split($3, t, " "); print $1, t[1] }' "$out/lintian.txt" |
	sort -u >"$out/lintian.tags"

echo "lintian $version on $(ls "$out"/*.deb | wc -l) packages of ours and $(ls "$ref"/*.deb | wc -l) of Debian's ($(dpkg-deb -f "$(ls "$ref"/*.deb | head -n1)" Version))"
shared=$(comm -12 <(awk '$1 == "W" { print $2 }' "$out/lintian.tags") \
	<(awk '{ print $2 }' "$cache" | sort -u))
[ -z "$shared" ] || echo "warnings Debian's packages have too: $(echo $shared)"
errors=$(awk '$1 == "E" { print $2 }' "$out/lintian.tags")
new=$(comm -23 <(awk '$1 == "W" { print $2 }' "$out/lintian.tags") \
	<(awk '{ print $2 }' "$cache" | sort -u))
fail=0
for t in $errors; do
	echo "FAIL: error $t:"
	grep "^E: .*: $t\b" "$out/lintian.txt" | head -n 5 | sed 's/^/  /'
	fail=1
done
for t in $new; do
	echo "FAIL: warning $t, which Debian's packages do not have:"
	grep "^W: .*: $t\b" "$out/lintian.txt" | head -n 5 | sed 's/^/  /'
	fail=1
done
[ $fail -eq 0 ] && echo "lintian: no errors, no warnings beyond Debian's own"
exit $fail
