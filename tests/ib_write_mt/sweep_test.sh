#!/bin/bash
# sweep_test.sh: --sweep runs powers of two up to the value it is given
# (-l, -Q, -s, --threads), and the header says which range the rows ran.
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}" "${IB_WRITE_MT:?}"
scratch_dir dir

# sweep OPTION SWEEP WANT_POINTS HEADER_PATTERN
sweep() {
	local opt=$1 what=$2 want=$3 header=$4 got
	"$MLX5EMU" run -- "$IB_WRITE_MT" --loopback --threads=2 -n 32 \
		--endpoints=dynamic $opt --sweep="$what" --csv="$dir/$what.csv" \
		>"$dir/$what.out" 2>&1 || { cat "$dir/$what.out"; die "$opt --sweep=$what"; }
	got=$(tail -n +2 "$dir/$what.csv" | cut -d, -f2 | tr '\n' ' ')
	[ "$got" = "$want" ] || die "$opt --sweep=$what ran '$got', want '$want'"
	grep -q -- "$header" "$dir/$what.out" || {
		cat "$dir/$what.out"
		die "$opt --sweep=$what: the header does not say '$header'"
	}
	echo "ok: $opt --sweep=$what: $got"
}

sweep "-l 8" postlist "p=1 p=2 p=4 p=8 " "Post list  : 1..8"
sweep "-Q 16" unsignaled "q=1 q=2 q=4 q=8 q=16 " "CQ moderation   : 1..16"
sweep "-s 64" size "size=2 size=4 size=8 size=16 size=32 size=64 " \
	"Message size    : 2..64 bytes"
sweep "-l 6" postlist "p=1 p=2 p=4 p=6 " "Post list  : 1..6"
