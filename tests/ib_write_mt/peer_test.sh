#!/bin/bash
# peer_test.sh SCENARIO PORT: ib_write_mt as two processes over TCP, with a
# real or a misbehaving peer (fake_peer.py). Each scenario checks the exit
# code and message of every ib_write_mt, and that no process is left.
# Run inside `mlx5emu run`.
here=$(dirname "$0")
. "$here/../lib.sh"
: "${IB_WRITE_MT:?}"
scenario=$1
port=$2
scratch_dir dir
failed=0
declare -A pids

# start NAME CMD...: in the background, output kept
start() {
	local name=$1
	shift
	timeout 60 "$@" >"$dir/$name" 2>&1 &
	pids[$name]=$!
}

# expect NAME RC PATTERN: NAME exits with RC and says PATTERN
expect() {
	local name=$1 want=$2 pattern=$3 rc=0
	wait "${pids[$name]}" || rc=$?
	sed "s/^/[$name] /" "$dir/$name"
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL: $name exited $rc, want $want"
		failed=1
	elif [ -n "$pattern" ] && ! grep -q -- "$pattern" "$dir/$name"; then
		echo "FAIL: $name did not say '$pattern'"
		failed=1
	else
		echo "ok: $name exited $rc: '$pattern'"
	fi
}

wmt=("$IB_WRITE_MT" --threads=2 -n 200 --endpoints=dynamic)
client=("${wmt[@]}" --connect-timeout=30 --peer-timeout=30 -p "$port" 127.0.0.1)
server=("${wmt[@]}" -p "$port")
fake=(python3 "$here/fake_peer.py")

case $scenario in
two-process)
	start server "${server[@]}"
	# 4 threads: level-3 TDs share a uUAR (with 2 each has its own)
	start client "${client[@]/--endpoints=dynamic/--endpoints=all,levels}" --perform_warm_up --threads=4
	expect client 0 "shared-uuar .* yes$"
	expect server 0 "shared-uuar, 4 threads: every slot and guard verified"
	[ "$(grep -c ' yes$' "$dir/client")" -eq 7 ] || { echo "FAIL: not 7 rows verified"; failed=1; }
	;;
server-table)
	# the server's own table and JSON; the client's workload wins, said so
	start server "${server[@]}" --threads=3 -s 64 --out_json_file="$dir/server.json"
	start client "${client[@]/--endpoints=dynamic/--endpoints=dynamic,static}" --threads=4
	expect client 0 "static .* yes$"
	expect server 0 "note: --threads=3 given here; the client's 4 apply"
	grep -q "note: -s 64 given here; the client's 2 apply" "$dir/server" || { echo "FAIL: no -s note"; failed=1; }
	grep -q "^ static  *4  *2  *4  *800  yes$" "$dir/server" || { echo "FAIL: no server table row"; failed=1; }
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert d['role'] == 'server' and d['complete'] and [r['category'] for r in d['results']] == ['dynamic', 'static'], d" \
		"$dir/server.json" || { echo "FAIL: server JSON"; failed=1; }
	;;
client-malformed)
	start fake "${fake[@]}" server-bad-magic "$port"
	start client "${client[@]}"
	expect client 5 "malformed message from 127.0.0.1: bad magic"
	expect fake 0 ""
	;;
client-truncated)
	start fake "${fake[@]}" server-truncated "$port"
	start client "${client[@]}"
	expect client 5 "truncated message from 127.0.0.1"
	expect fake 0 ""
	;;
client-version)
	start fake "${fake[@]}" server-version "$port"
	start client "${client[@]}"
	expect client 6 "127.0.0.1 speaks ib_write_mt protocol version 2, this is version 1"
	expect fake 0 ""
	;;
client-bad-field)
	start fake "${fake[@]}" server-bad-target "$port"
	start client "${client[@]}"
	expect client 5 "malformed TARGET message from the server"
	expect fake 0 ""
	;;
client-silent-peer)
	start fake "${fake[@]}" server-silent "$port"
	start client "${client[@]}" --peer-timeout=2
	expect client 8 "127.0.0.1 did not answer within 2 s (--peer-timeout)"
	expect fake 0 ""
	;;
client-trickling-peer)
	# one byte every 2 s: the 3 s bound is per message, not per read
	start fake "${fake[@]}" server-trickle "$port"
	start client "${client[@]}" --peer-timeout=3
	expect client 8 "127.0.0.1 did not answer within 3 s (--peer-timeout)"
	expect fake 0 ""
	;;
client-peer-error)
	# the peer's text is shown printable only, its code is not our status
	start fake "${fake[@]}" server-error-escapes "$port"
	start client "${client[@]}"
	expect client 10 "127.0.0.1 gave up (its status 2): ?\[31mred?\]0;title? bye?"
	expect fake 0 ""
	if grep -q "$(printf '\033')" "$dir/client"; then
		echo "FAIL: an escape byte from the peer reached the output"
		failed=1
	fi
	;;
client-no-server)
	start client "${client[@]}" --connect-timeout=1
	expect client 8 "no connection to 127.0.0.1 port $port within 1 s"
	;;
server-malformed)
	start server "${server[@]}"
	start fake "${fake[@]}" client-bad-setup "$port"
	expect server 5 "malformed SETUP message from the client: thread count out of range"
	expect fake 0 "got ERROR 5"
	;;
server-truncated)
	start server "${server[@]}"
	start fake "${fake[@]}" client-truncated "$port"
	expect server 5 "truncated message from the client"
	expect fake 0 ""
	;;
server-version)
	start server "${server[@]}"
	start fake "${fake[@]}" client-version "$port"
	expect server 6 "the client speaks ib_write_mt protocol version 7, this is version 1"
	expect fake 0 "got ERROR 6"
	;;
server-silent-peer)
	start server "${server[@]}" --peer-timeout=2
	start fake "${fake[@]}" client-silent "$port"
	expect server 8 "the client did not answer within 2 s"
	expect fake 0 ""
	;;
server-no-client)
	start server "${server[@]}" --connect-timeout=1
	expect server 8 "no client within 1 s (--connect-timeout)"
	;;
server-disconnect)
	start server "${server[@]}"
	start fake "${fake[@]}" client-disconnect "$port"
	expect server 7 "the client closed the connection"
	expect fake 0 ""
	;;
disconnect-mid-run)
	# a proxy cuts both connections while the threads run
	start server "${wmt[@]}" -p $((port + 1))
	start fake "${fake[@]}" proxy-cut "$port" $((port + 1))
	start client "${client[@]/-n/-D}" -D 30 -n 1
	expect client 7 "127.0.0.1 closed the connection"
	expect server 7 "the client closed the connection"
	expect fake 0 "cut both connections"
	;;
*)
	echo "unknown scenario $scenario"
	exit 2
	;;
esac
for name in "${!pids[@]}"; do
	if kill -0 "${pids[$name]}" 2>/dev/null; then
		echo "FAIL: $name (pid ${pids[$name]}) left behind"
		failed=1
	fi
done
[ -z "$(jobs -rp)" ] || { echo "FAIL: jobs left: $(jobs -rp)"; failed=1; }
exit $failed
