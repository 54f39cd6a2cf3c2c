#!/bin/bash
# loopback_test.sh MLX5EMU_OPTS -- CHECK [CHECK_ARGS] -- IB_WRITE_MT_ARGS
# Runs ib_write_mt --loopback on the emulated device with a JSON report and
# applies each check of check_json.py to it (checks separated by '+').
here=$(dirname "$0")
. "$here/../lib.sh"
: "${MLX5EMU:?}" "${IB_WRITE_MT:?}"
emu=()
while [ "$1" != -- ]; do emu+=("$1"); shift; done
shift
checks=()
while [ "$1" != -- ]; do checks+=("$1"); shift; done
shift
scratch_dir dir
rc=0
"$MLX5EMU" run "${emu[@]}" -- "$IB_WRITE_MT" --loopback \
	--out_json_file="$dir/out.json" "$@" || rc=$?
echo "ib_write_mt exit status $rc"
[ "$rc" -eq 0 ] || exit 1
set -- "${checks[@]}"
args=()
for word in "$@" +; do
	if [ "$word" = + ]; then
		python3 "$here/check_json.py" "$dir/out.json" "${args[@]}"
		args=()
	else
		args+=("$word")
	fi
done
