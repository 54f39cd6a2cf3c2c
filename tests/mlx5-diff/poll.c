// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Polling in each style, printing every completion; drains. */
#include <endian.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "mlx5_diff.h"

static void print_wc(struct diff *d, const struct ibv_wc *wc)
{
	const struct ep_device *dev = &d->dev;

	fprintf(d->out,
		"  wc %#llx st %d op %d vend %#x len %u imm %#x qp %u src %u flags %#x pkey %u slid %u sl %u dlid %u\n",
		(unsigned long long)(wc->wr_id ^ capture_wc_flip()), wc->status,
		wc->opcode, wc->vendor_err, wc->byte_len, be32toh(wc->imm_data),
		ep_qpn(dev, wc->qp_num),
		wc->src_qp ? ep_qpn(dev, wc->src_qp) : 0, wc->wc_flags,
		wc->pkey_index, wc->slid, wc->sl, wc->dlid_path_bits);
	d->completions++;
}

static void print_wc_ex(struct diff *d, struct ibv_cq_ex *cq)
{
	const struct ep_device *dev = &d->dev;
	uint64_t flags;

	fprintf(d->out, "  wcx %#llx st %d vend %#x",
		(unsigned long long)(cq->wr_id ^ capture_wc_flip()), cq->status,
		ibv_wc_read_vendor_err(cq));
	d->completions++;
	if (cq->status != IBV_WC_SUCCESS) {
		fprintf(d->out, " qp %u\n",
			ep_qpn(dev, ibv_wc_read_qp_num(cq)));
		return;
	}
	flags = ibv_wc_read_wc_flags(cq);
	fprintf(d->out, " op %d len %u qp %u flags %#llx",
		ibv_wc_read_opcode(cq), ibv_wc_read_byte_len(cq),
		ep_qpn(dev, ibv_wc_read_qp_num(cq)), (unsigned long long)flags);
	if (flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV))
		fprintf(d->out, " imm %#x", be32toh(ibv_wc_read_imm_data(cq)));
	if (ibv_wc_read_opcode(cq) & IBV_WC_RECV)
		fprintf(d->out, " src %u slid %u sl %u dlid %u",
			ep_qpn(dev, ibv_wc_read_src_qp(cq)),
			ibv_wc_read_slid(cq), ibv_wc_read_sl(cq),
			ibv_wc_read_dlid_path_bits(cq));
	fputc('\n', d->out);
}

/* one more poll, of a CQ all of whose CQEs were polled */
static void poll_empty(struct diff *d, struct ep_side *s, enum poll_mode mode)
{
	struct ibv_poll_cq_attr attr = {};
	struct ibv_wc wc[POLL_BATCH];
	int ret;

	if (mode == POLL_EX) {
		ret = ibv_start_poll(s->cqx, &attr);
		fprintf(d->out, " empty start_poll %d\n", ret);
		if (!ret)
			ibv_end_poll(s->cqx);
	} else {
		fprintf(d->out, " empty polled %d\n",
			ibv_poll_cq(s->cq, mode == POLL_ONE ? 1 : POLL_BATCH,
				    wc));
	}
}

/* polls `want` CQEs, all already written, the way this round says */
static unsigned int poll_side(struct diff *d, struct ep_side *s,
			      unsigned int want, bool expect_ok)
{
	enum poll_mode mode = d->round % (s->cqx ? NPOLL_MODES : POLL_EX);
	unsigned int got = 0;
	int n, i;

	if (mode == POLL_EX) {
		struct ibv_poll_cq_attr attr = {};

		if (!want || ibv_start_poll(s->cqx, &attr))
			return 0;
		do {
			if (expect_ok && s->cqx->status != IBV_WC_SUCCESS)
				fail(d, "a completion failed");
			print_wc_ex(d, s->cqx);
		} while (++got < want && !ibv_next_poll(s->cqx));
		ibv_end_poll(s->cqx);
		fprintf(d->out, " ex-polled %u\n", got);
	} else {
		struct ibv_wc wc[POLL_BATCH];
		int batch = mode == POLL_ONE ? 1 : d->poll_batch ?: POLL_BATCH;

		while (got < want) {
			memset(wc, 0, sizeof(wc));
			n = ibv_poll_cq(s->cq, batch, wc);
			fprintf(d->out, " polled %d\n", n);
			if (n <= 0)
				break;
			for (i = 0; i < n; i++) {
				if (expect_ok && wc[i].status != IBV_WC_SUCCESS)
					fail(d, "a completion failed");
				print_wc(d, &wc[i]);
			}
			got += n;
		}
	}
	if (expect_ok && got == want)
		poll_empty(d, s, mode);
	s->cq_ci += got;
	capture_cq_ci(d->out, &s->ccq);
	return got;
}

static bool wait_cqes(struct ep_side *s, unsigned int want)
{
	time_t end = time(NULL) + CQE_WAIT_SEC;

	while (want && !capture_cqe_ready(&s->ccq, s->cq_ci, want - 1)) {
		if (time(NULL) > end)
			return false;
		sched_yield();
	}
	return true;
}

/* waits for the CQEs expected on both sides, polls them, reposts */
void collect(struct diff *d, unsigned int send_cqes, unsigned int recv_cqes,
	     bool expect_ok)
{
	struct ep_pair *p = d->p;

	fprintf(d->out, "collect %u %u round %u\n", send_cqes, recv_cqes,
		d->round);
	if (!wait_cqes(&p->req, send_cqes) || !wait_cqes(&p->resp, recv_cqes))
		fail(d, "CQEs missing");
	if (poll_side(d, &p->req, send_cqes, expect_ok) != send_cqes ||
	    poll_side(d, &p->resp, recv_cqes, expect_ok) != recv_cqes)
		fail(d, "fewer CQEs than expected");
	if (p->srq)
		capture_srq(d->out, &p->csrq); /* the WQEs polled are free */
	d->round++;
	d->recv_posted -= recv_cqes;
	d->sent = d->signaled = d->received = 0;
}

/* a signaled marker after the WRs since the last drain, then collect */
void drain(struct diff *d)
{
	struct shape marker = { .op = IBV_WR_RDMA_WRITE,
				.flags = IBV_SEND_SIGNALED,
				.list = 1,
				.bad_at = -1 };

	if (d->p->cfg.type == IBV_QPT_UD)
		marker.op = IBV_WR_SEND;
	fprintf(d->out, "marker");
	build_wrs(d, &marker, 0);
	if (post(d, 1) != 1)
		fail(d, "the marker was refused");
	collect(d, d->signaled + 1, d->received + consumes_recv(marker.op),
		true);
	post_recvs(d);
}
