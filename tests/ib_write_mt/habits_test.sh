#!/bin/bash
# habits_test.sh SCENARIO: what a perftest user expects of ib_write_mt.
#   interrupt      rows print as each ends; Ctrl-C keeps the rows done and
#                  writes the JSON marked incomplete (exit 130)
#   interrupt-group, term-group  the same with SIGINT or SIGTERM sent to
#                  the process group of `mlx5emu run`
#   outputs-first  an output file that cannot be written stops the run
#                  before it starts, with our message, not gnuplot's
. "$(dirname "$0")/../lib.sh"
: "${MLX5EMU:?}" "${IB_WRITE_MT:?}"
scratch_dir dir

case $1 in
interrupt | interrupt-group | term-group)
	# interrupt: SIGINT to the launcher alone, which forwards it; -group:
	# to the whole process group, as a terminal's Ctrl-C or a harness's
	# kill does, where the launcher must not add a second copy
	sig=INT target=
	[ "$1" = term-group ] && sig=TERM
	[ "$1" = interrupt ] || target=-
	setsid "$MLX5EMU" run -- "$IB_WRITE_MT" --loopback --threads=2 -D 60 \
		--endpoints=dynamic,static --out_json_file="$dir/o.json" \
		>"$dir/out" 2>&1 &
	pid=$!
	# the table's head is out: the first row runs (for 60 s unless stopped)
	for _ in $(seq 300); do
		grep -q "#category" "$dir/out" && break
		sleep 0.1
	done
	sleep 1
	kill -$sig -- $target$pid
	rc=0
	wait $pid || rc=$?
	cat "$dir/out"
	[ "$rc" -eq 130 ] || die "exit $rc after Ctrl-C, want 130"
	grep -q "^ dynamic .* yes$" "$dir/out" || die "the row done is not printed"
	if grep -q "^ static " "$dir/out"; then die "a row after Ctrl-C ran"; fi
	grep -q "interrupted: 1 row(s) done" "$dir/out" || die "no word of the interruption"
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert d['complete'] is False and len(d['results']) == 1, d" "$dir/o.json" ||
		die "JSON not marked incomplete"
	echo "ok: Ctrl-C: the row done printed and in the JSON, marked incomplete"
	;;
outputs-first)
	# no device is opened: the checks come first
	for bad in "--plot=$dir/fig.pdf:1:a .svg or .png file" \
		"--plot=/nonexistent/f.svg:9:/nonexistent/f.svg: No such file or directory" \
		"--csv=/nonexistent/f.csv:9:/nonexistent/f.csv: No such file or directory" \
		"--out_json_file=$dir:9:$dir: Is a directory"; do
		opt=${bad%%:*} rest=${bad#*:}
		want=${rest%%:*} msg=${rest#*:}
		rc=0
		"$IB_WRITE_MT" --loopback --threads=2 -n 32 --endpoints=dynamic \
			"$opt" >"$dir/out" 2>&1 || rc=$?
		cat "$dir/out"
		[ "$rc" -eq "$want" ] || die "$opt: exit $rc, want $want"
		grep -q -- "$msg" "$dir/out" || die "$opt: not '$msg'"
		if grep -q "#category" "$dir/out"; then die "$opt: the run started"; fi
		if grep -q "perftest-ext-\|gnuplot" "$dir/out"; then
			die "$opt: gnuplot's words"
		fi
		echo "ok: $opt: exit $rc before the run"
	done
	if [ -e "$dir/fig.pdf" ]; then die "a file left behind"; fi
	;;
table)
	# fits 120 columns, names the device, says once what emulated rates are
	"$MLX5EMU" run -- "$IB_WRITE_MT" --loopback --threads=2 -n 32 \
		--endpoints=dynamic,static --out_json_file="$dir/t.json" >"$dir/out" 2>&1 ||
		{ cat "$dir/out"; die "run"; }
	cat "$dir/out"
	width=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$dir/out")
	[ "$width" -le 120 ] || die "the table is $width columns wide"
	grep -q "^ Device          : mlx5_0 (emulated by mlx5emu)$" "$dir/out" || die "no device"
	[ "$(grep -c "emulated rates measure the emulator" "$dir/out")" -eq 1 ] ||
		die "the emulation note not said once"
	grep -q "MiB/s" "$dir/out" || die "no MiB/s"
	grep -q "Message size    : 2 bytes" "$dir/out" || die "no message size"
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert d['emulated'] is True and 'emulator' in d['note'] and d['device'] == 'mlx5_0', d" \
		"$dir/t.json" || die "JSON: device, emulated, note"
	"$MLX5EMU" run -- "$IB_WRITE_MT" --loopback --threads=2 -n 32 --wide \
		--endpoints=dynamic >"$dir/wide" 2>&1 || die "--wide"
	grep -q "#msgs .* QPbuf" "$dir/wide" || die "--wide without every column"
	echo "ok: 120 columns, device and emulation said once, --wide has the rest"
	;;
perftest-letters)
	"$IB_WRITE_MT" -V | grep -q "^ib_write_mt [0-9]" || die "-V: no version"
	"$MLX5EMU" run -- "$IB_WRITE_MT" --loopback --threads=4 -n 32 -q 2 -N \
		--out_json_file="$dir/q.json" >"$dir/out" 2>&1 || { cat "$dir/out"; die "-q 2"; }
	python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]['resources']; \
assert (r['contexts'], r['qps'], r['cqs']) == (1, 2, 1), r" "$dir/q.json" ||
		die "-q 2: not 2 QPs in one context"
	echo "ok: -q 2: 2 QPs, one context; -N accepted"
	rc=0
	"$IB_WRITE_MT" --loopback --threads=16 -q 16 --endpoints=mpi+threads \
		>"$dir/out" 2>&1 || rc=$?
	cat "$dir/out"
	[ "$rc" -eq 1 ] && grep -q -- "-q 16 contradicts" "$dir/out" || die "-q error"
	if grep -q -- "--share" "$dir/out"; then die "a flag not typed is named"; fi
	"$MLX5EMU" run -- "$IB_WRITE_MT" --loopback --threads=1 -n 16 -a \
		--endpoints=dynamic --csv="$dir/a.csv" >"$dir/out" 2>&1 || { cat "$dir/out"; die "-a"; }
	[ "$(tail -n +2 "$dir/a.csv" | cut -d, -f2 | tr '\n' ' ')" = \
		"$(for i in $(seq 1 16); do printf 'size=%d ' $((1 << i)); done)" ] ||
		die "-a: sizes $(tail -n +2 "$dir/a.csv" | cut -d, -f2 | tr '\n' ' ')"
	echo "ok: -V, -a (2..65536), -q 16 refused naming -q"
	# without -n a row runs for a duration, as perftest's -D
	"$MLX5EMU" run -- "$IB_WRITE_MT" --loopback --threads=1 --endpoints=dynamic \
		--out_json_file="$dir/d.json" >"$dir/out" 2>&1 || { cat "$dir/out"; die "no -n"; }
	grep -q "Duration   : 2 s" "$dir/out" || die "no default duration in the header"
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert d['params']['duration'] == 2 and d['results'][0]['seconds'] >= 1, d" "$dir/d.json" ||
		die "the row did not run for its duration"
	echo "ok: without -n, 2 s per row"
	;;
*)
	echo "unknown scenario $1"
	exit 2
	;;
esac
