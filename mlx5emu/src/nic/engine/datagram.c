// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * UD datagrams, seen from outside: each one's fate in `--trace`, and the
 * counts per fate in the process's attribution file (`mlx5emu stat`):
 *
 *   datagrams pid=.. dev=mlx5_0 delivered=.. no_qp=.. qp_state=..
 *             qp_type=.. qkey=.. no_wqe=.. cq_overrun=.. too_long=..
 *             bad_wqe=.. unreachable=..
 *
 * A datagram is counted on the device it arrived at (unreachable: on the
 * sender's). Everything here runs under nic.lock.
 */
#include <stdio.h>
#include <string.h>

#include "glue.h"

static bool counts_dirty; /* changed since the attribution file */

/* "sent" on the requester's side: matched with the fate by src and psn */
void nic_ud_trace_sent(const struct nic_pkt *pkt)
{
	if (emu_cfg.trace_fd < 0)
		return;
	emu_trace(
		"ud sent src_qpn=0x%x slid=%u dlid=%u dest_qpn=0x%x psn=%u len=%u",
		pkt->src_qpn, pkt->slid, pkt->dlid, pkt->dest_qpn, pkt->psn,
		pkt->len);
}

/*
 * No receive WQE: what the application has posted (its RCV_DBR, or the
 * SRQ's) and taken, and the CQEs it has not polled, so a trace shows
 * whether it stopped reposting or stopped polling.
 */
static void rq_state(const struct nic_qp *qp, char *buf, size_t len)
{
	uint32_t ci = nic_be32_load(&qp->rcq->dbrec[0]) & 0xffffff;

	if (qp->srq)
		snprintf(buf, len, " srq_taken=%u", qp->srq->ci);
	else
		snprintf(buf, len, " rq_posted=%u rq_taken=%u",
			 nic_rq_doorbell(qp), qp->rq_ci);
	snprintf(buf + strlen(buf), len - strlen(buf), " cq_unpolled=%u",
		 (qp->rcq->prod - ci) & 0xffffff);
}

void nic_ud_report(struct nic_dev *dev, const struct nic_qp *qp,
		   const struct nic_pkt *pkt, enum nic_ud_fate fate)
{
	char rq[96] = "";

	(void)dev;
	counts_dirty = true;
	if (emu_cfg.trace_fd < 0)
		return;
	if (fate == NIC_UD_NO_WQE && qp)
		rq_state(qp, rq, sizeof(rq));
	emu_trace(
		"ud %s src_qpn=0x%x slid=%u dlid=%u dest_qpn=0x%x psn=%u len=%u%s%s%s",
		fate == NIC_UD_DELIVERED ? "delivered" : "dropped",
		pkt->src_qpn, pkt->slid, pkt->dlid, pkt->dest_qpn, pkt->psn,
		pkt->len, fate == NIC_UD_DELIVERED ? "" : " reason=",
		fate == NIC_UD_DELIVERED ? "" : nic_ud_fate_names[fate], rq);
}

bool nic_ud_counts_dirty(void)
{
	return counts_dirty;
}

void nic_ud_counts_clean(void)
{
	counts_dirty = false;
}

void nic_ud_counts_forget(void)
{
	unsigned int i;

	for (i = 0; i < EMU_MAX_DEVICES; i++)
		memset(nic.dev[i].ud, 0, sizeof(nic.dev[i].ud));
	counts_dirty = false;
}

void nic_stat_write_datagrams(FILE *f, int pid)
{
	unsigned int i, j;

	pthread_mutex_lock(&nic.lock);
	for (i = 0; i < emu_cfg.ndevices && i < EMU_MAX_DEVICES; i++) {
		const uint64_t *ud = nic.dev[i].ud;
		uint64_t total = 0;

		for (j = 0; j < NIC_UD_FATES; j++)
			total += ud[j];
		/* only devices that saw a datagram */
		if (!total)
			continue;
		fprintf(f, "datagrams pid=%d dev=%s", pid,
			nic_host->devices[i].name);
		for (j = 0; j < NIC_UD_FATES; j++)
			fprintf(f, " %s=%llu", nic_ud_fate_names[j],
				(unsigned long long)ud[j]);
		fputc('\n', f);
	}
	pthread_mutex_unlock(&nic.lock);
}
