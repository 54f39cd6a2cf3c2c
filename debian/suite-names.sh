#!/bin/sh
# suite-names.sh: the library package names of the suite building the
# package. debian/control names the libraries as Debian 13 and later do
# since the 64-bit time_t transition (librdmacm1t64, libibnetdisc5t64,
# with Provides/Replaces/Breaks of the old names). A suite from before the
# transition has the old names: there the control file and the packages'
# debhelper files are rewritten to those names, without the transition's
# relations. The transition's suites are those whose dpkg-buildflags has
# the "abi" feature area (dpkg 1.22, where time64 became the default).
set -e
t64="librdmacm1t64 libibnetdisc5t64"
if dpkg-buildflags --query-features abi >/dev/null 2>&1; then
	exit 0
fi
for p in $t64; do
	old=${p%t64}
	for f in debian/"$p".*; do
		[ -e "$f" ] || continue
		sed "s/\b$p\b/$old/g" "$f" >"debian/$old.${f#debian/"$p".}"
		rm -f "$f"
	done
	# the transition's relations name the old package: drop them
	sed -i -e "/^\(Provides\|Replaces\|Breaks\): $old\( \|$\)/d" \
		-e "s/\b$p\b/$old/g" debian/control
done
echo "suite-names.sh: pre-t64 suite: $(echo $t64 | sed 's/t64//g')" >&2
