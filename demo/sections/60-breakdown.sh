# demo: Breaking Band in a tool: where one 8-byte RDMA WRITE's time goes
# ib_write_breakdown times mlx5's post steps (raw mlx5dv path), CQ polling and
# the verbs calls on a TD QP and a plain QP, then feeds the measured figures
# into the paper's injection and latency models (the rest stays Table 1's).
# Doorbells are polled: a trapped one would time the emulator's page fault.
MLX5EMU_DOORBELL_TRAP=off "$STAGE/bin/mlx5emu" run -- "$STAGE/bin/ib_write_breakdown" --breakdown \
	--iters=5000 | sed -n '/^timer/,/^models/p;/LLP injection/,/p >=/p' ||
	{ echo "ib_write_breakdown: FAILED"; exit 1; }
echo "reproduce: MLX5EMU_DOORBELL_TRAP=off $STAGE/bin/mlx5emu run -- $STAGE/bin/ib_write_breakdown --breakdown --what-if --plot=what-if.svg"
