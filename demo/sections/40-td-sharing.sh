# demo: thread-domain sharing levels: where 8 TDs land, with traffic over them
# Each TD gets a parent domain, a CQ and an RC QP; 8 threads then write over
# their own TD at once. "HW UAR" is what the emulated kernel bound the QP to,
# "+0x800"/"+0xa00" the BlueFlame register libmlx5 rings inside that UAR.
for level in 1 2 3; do
	"$STAGE/bin/mlx5emu" run --uar=dynamic -- \
		"$BUILD/tests/td/td-placement-test" level$level 8 2>&1 |
		grep -E '^(level|  TD)' || { echo "level $level: FAILED"; exit 1; }
done
echo "reproduce: $STAGE/bin/mlx5emu run --uar=dynamic|static -- $BUILD/tests/td/td-placement-test level1|level2|level3 [ntd]"
