# Shared by obtain-upstream.sh and tests/packaging/check-packages.sh: the
# machine's configured Debian apt sources (no mirror is named in the repo).

# Archive roots of the configured Debian sources (one-line and deb822 formats).
apt_mirrors() {
	local list parts
	list=$(apt-config shell L Dir::Etc::sourcelist/f | sed -n "s/^L='\(.*\)'$/\1/p")
	parts=$(apt-config shell P Dir::Etc::sourceparts/d | sed -n "s/^P='\(.*\)'$/\1/p")
	{
		[ -f "$list" ] && awk '$1 == "deb" || $1 == "deb-src" {
			for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' "$list"
		for f in "$parts"/*.list; do
			[ -f "$f" ] && awk '$1 == "deb" || $1 == "deb-src" {
				for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' "$f"
		done
		for f in "$parts"/*.sources; do
			[ -f "$f" ] && awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$f"
		done
		true
	} 2>/dev/null | grep -v -e '-security' | sed 's:/*$::' | awk '!seen[$0]++'
}
