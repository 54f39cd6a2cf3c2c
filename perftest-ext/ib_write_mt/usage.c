// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_write_mt --help (the man page, ib_write_mt.1.md, says the same at
 * length). The categories, their sets and the exit statuses come from their
 * tables, so the text cannot drift from what the tool does.
 */
#include <stdio.h>

#include "layout.h"
#include "options.h"

#define INDENT "                          "

static const char usage_head[] =
	"Usage:\n"
	"  ib_write_mt [options]                   server (waits for a client)\n"
	"  ib_write_mt [options] <server>          client\n"
	"  ib_write_mt [options] --loopback        both ends in this process\n"
	"  mpirun -np 2 ib_write_mt [options]      ranks 0/1 = server/client (also srun -n 2)\n"
	"\n"
	"Multithreaded RC RDMA-write message rate over the ICPADS'18 endpoint\n"
	"categories, with the resources (contexts .. UAR pages, uUARs, memory) each costs.\n"
	"\n"
	"Endpoints:\n"
	"  --endpoints=LIST        comma-separated categories and sets of them:\n";

static const char usage_rest[] =
	"                          default: all; with --sharing the level's category;\n"
	"                          with --share-X: xway\n"
	"  --sharing=1|2|3         TD sharing level: IBV_TD_SHARING_NONE, _PAGE or\n"
	"                          _REGISTER (must agree with the category)\n"
	"  --td-fallback           a TD that cannot have its level takes more sharing,\n"
	"                          up to level 3, and the row says what it got\n"
	"  --share-ctx|pd|mr|buf|cq|qp=X  X threads share one instance (X divides --threads;\n"
	"                          a child is never shared wider than its parent:\n"
	"                          ctx>=pd>=mr>=buf, ctx>=cq>=qp, pd>=qp)\n"
	"  --threads=T             threads (default min(16, CPUs allowed)), pinned one per\n"
	"                          core when there are enough cores (--no-pin: never)\n"
	"\n"
	"Workload (perftest's letters):\n"
	"  -s, --size=BYTES        message size (default 2, at most 65536)\n"
	"  -n, --iters=N           messages per thread\n"
	"  -D, --duration=SEC      run each row for SEC seconds (default 2 without -n)\n"
	"      --repeat=N          run each row N times: the rate is their median, min\n"
	"                          and max beside it (table, JSON, CSV)\n"
	"  -t, --tx-depth=D        QP depth per thread (default 128); a QP shared by x threads is x*D deep\n"
	"  -l, --post_list=P       WQEs per ibv_post_send (default 32)\n"
	"  -Q, --cq-mod=Q          one signaled WQE every Q (default 64); CQ depth D/Q per endpoint\n"
	"  -I, --inline_size=B     inline messages up to B bytes (default 220; 0 = off)\n"
	"  -q, --qp=N              N QPs in one context, each shared by T/N threads (xway)\n"
	"  -a, --all               every size, 2 to 65536 bytes (--sweep=size -s 65536)\n"
	"      --wide              every column (pd, mr, td, #msgs, uUARs, buffers)\n"
	"  -N, --noPeak            accepted: no peak bandwidth is computed anyway\n"
	"      --perform_warm_up   2*D writes per thread before the timed phase\n"
	"      --blueflame=on|off  off sets MLX5_SHUT_UP_BF=1 before the device opens\n"
	"      --doorbell=LIST     rows per mode in LIST of bf, db, auto (default auto):\n"
	"                          bf: BlueFlame (MLX5_POST_SEND_PREFER_BF=1; single WRs\n"
	"                          only, a list is UNAVAILABLE), db: 8-byte doorbells\n"
	"                          (MLX5_SHUT_UP_BF=1), auto: libmlx5's own rule\n"
	"      --lockstep          one list in flight per thread (-t P -Q 1 at every\n"
	"                          point): the emulated NIC then sees every doorbell\n"
	"      --poll=busy|yield   a thread waiting for completions spins, or yields its\n"
	"                          core after each empty poll (default: yield when threads\n"
	"                          outnumber the cores or the device is mlx5emu's)\n"
	"\n"
	"Device and connection:\n"
	"  -d, --ib-dev=DEV        device (default: the first)\n"
	"  -i, --ib-port=PORT      port (default 1)\n"
	"  -x, --gid-index=N       use a GRH with this GID index (RoCE: default 0)\n"
	"  -p, --port=PORT         TCP port of the server (default 18515)\n"
	"      --server=HOST       the server, for a client started by a launcher\n"
	"      --connect-timeout=SEC  the client retries connecting for SEC (default 10);\n"
	"                          the server waits SEC for a client (default: for ever)\n"
	"      --peer-timeout=SEC  give up when the connected peer is silent for SEC\n"
	"                          (default 30)\n"
	"\n"
	"Output:\n"
	"      --out_json          JSON report to --out_json_file (default perftest_out.json)\n"
	"      --out_json_file=F   JSON report to F\n"
	"      --csv=FILE          one CSV row per category / sweep point\n"
	"      --sweep=WHAT        threads|postlist|unsignaled|size|share-ctx|pd|mr|buf|cq|qp\n"
	"      --plot=FILE.svg|png rate and resources side by side (gnuplot)\n"
	"  -F, --CPU-freq          accepted for perftest compatibility (no effect)\n"
	"  -h, --help              this text;  -V, --version  the version\n"
	"\n"
	"Resources are the initiator's (in loopback the target is left out), each\n"
	"figure labelled with its source: maps = /proc/self/maps, bf.reg =\n"
	"mlx5dv_init_obj, emu = mlx5emu stat.\n"
	"\n"
	"Examples:\n"
	"  host1$ ib_write_mt --threads=16                 two hosts: the server ...\n"
	"  host2$ ib_write_mt --threads=16 --endpoints=all host1     ... and the client\n"
	"  ib_write_mt --loopback --endpoints=all --plot=fig12.svg   one host\n"
	"  mpirun -np 2 --map-by node ib_write_mt --endpoints=levels\n"
	"  srun -N 2 -n 2 ib_write_mt --out_json\n"
	"  mlx5emu run --uar=static -- ib_write_mt --loopback        the emulated device\n"
	"\n";

/* "dynamic,shared-dynamic,.." for a mask of categories */
static void print_names(FILE *f, const struct wmt_category_set *set)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		fprintf(f, "%s%s", i ? "," : "",
			wmt_category_name(set->members[i]));
}

void wmt_usage(FILE *f)
{
	static const enum perftest_exit exits[] = {
		PERFTEST_EXIT_OK,      PERFTEST_EXIT_USAGE,
		PERFTEST_EXIT_VERIFY,  PERFTEST_EXIT_UNAVAILABLE,
		PERFTEST_EXIT_DEVICE,  PERFTEST_EXIT_PROTOCOL,
		PERFTEST_EXIT_VERSION, PERFTEST_EXIT_DISCONNECT,
		PERFTEST_EXIT_TIMEOUT, PERFTEST_EXIT_OUTPUT,
		PERFTEST_EXIT_PEER,
	};
	unsigned int c, i;

	fputs(usage_head, f);
	for (c = 0; c < CAT_COUNT; c++)
		fprintf(f, INDENT "%-15s %s\n", wmt_category_name(c),
			wmt_category_help(c));
	for (i = 0; i < WMT_NSETS; i++) {
		const struct wmt_category_set *set = &wmt_category_sets[i];

		fprintf(f, INDENT "%s = ", set->name);
		if (set->help)
			fputs(set->help, f);
		else
			print_names(f, set);
		fputc('\n', f);
	}
	fputs(usage_rest, f);
	perftest_exit_usage(f, exits, sizeof(exits) / sizeof(exits[0]));
}
