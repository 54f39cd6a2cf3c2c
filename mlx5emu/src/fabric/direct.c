// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * One-sided operations without the responder's CPU: an RC WRITE, READ or
 * atomic to a process of this host is executed by the requester's NIC,
 * straight in the responder's memory (process_vm_writev/readv), as a
 * ConnectX executes it without the responding process. The responder may
 * be busy, descheduled or stopped in a debugger.
 *
 * Each process publishes what its responder checks in a memfd of its own
 * ("mlx5emu.onesided"): per device, its QPs (state, type, PD, access
 * flags, connected peer, the next PSN it accepts) and its MRs (key, PD,
 * access, range and where the range lies in its memory). A peer finds the
 * memfd in /proc/<pid>/fd, the pid being that of the listening socket of
 * the slot (SO_PEERCRED), and maps it. Opening it and process_vm_* both
 * need ptrace permission over the responder: another uid gets nothing,
 * and under Yama's ptrace_scope=1 the responder must allow it with
 * prctl(PR_SET_PTRACER). Where it is refused the requester says so once
 * and takes today's path: the request goes to the responder's NIC.
 *
 * Only what succeeds is executed here. A request the records refuse (a
 * key, access, bounds, PD, state or PSN check fails, or the MR or QP is
 * not in the records) goes to the responder's NIC, which answers it with
 * the same error, the responder's error CQE and async event, as before.
 * WRITE with immediate and SEND consume a receive WQE and always go
 * there, and so does everything of a QP while it waits for an answer
 * from there: the responder executes in PSN order. A direct request
 * advances the QP's published PSN, which the responder's NIC takes up
 * before it serves the next request of that QP (fabric_direct_respond).
 *
 * One robust process-shared mutex per process guards its records: taken
 * by the peers for a request's check and copy (trylock: a busy one goes
 * the NIC's way), by its control path when an MR goes (so no peer writes
 * into memory after ibv_dereg_mr returned) and by its own NIC around an
 * atomic it executes: atomics of its NIC and of every direct requester
 * on its memory are atomic with respect to each other, as HCA atomics
 * are (IBV_ATOMIC_HCA), not with respect to the CPU. The owner waits at
 * most DIRECT_WAIT_MS for it: a peer stopped while it held it must not
 * stop this process (the stopped peer cannot move meanwhile).
 *
 * Under fault injection nothing is published and nothing goes direct:
 * packets are lost and answers dropped where they are today. Across
 * hosts (TCP) the responder's NIC executes everything, as before.
 * MLX5EMU_ONESIDED=0 turns it off.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "fabric_loc.h"
#include "base/trace.h"

#define DIRECT_MAGIC 0x52444d45 /* "EMDR" */
#define DIRECT_VERSION 1
#define DIRECT_NAME "mlx5emu.onesided"
#define DIRECT_QPS 0x10000 /* by qpn & 0xffff: all QPNs of a slot */
#define DIRECT_MRS 0x10000 /* by mkey index: others go the NIC's way */
#define DIRECT_HDR_SIZE 4096
#define DIRECT_WAIT_MS 100 /* the longest the owner waits for a peer */

struct direct_qp {
	uint32_t qpn; /* 0: none */
	uint32_t dest_qpn;
	uint32_t pdn;
	uint32_t access;
	uint32_t resp_psn; /* the next PSN the QP accepts */
	uint16_t lid[EMU_MAX_PORTS]; /* its device's */
	uint8_t state; /* enum nic_qp_state */
	uint8_t type;
	/* what peers moved, for the owner's `mlx5emu stat`, taken there */
	uint64_t dma_read, dma_write;
};

struct direct_mr {
	uint32_t rkey; /* 0: none */
	uint32_t pdn;
	uint32_t access;
	uint32_t pad;
	uint64_t iova, length, va;
};

struct direct_dev {
	struct direct_qp qp[DIRECT_QPS];
	struct direct_mr mr[DIRECT_MRS];
};

struct direct_hdr {
	uint32_t magic; /* stored last */
	uint32_t version;
	int32_t pid;
	uint32_t uid;
	uint32_t ndev;
	uint32_t pad;
	uint64_t self; /* where the owner maps it: the peers' probe */
	uint32_t counted; /* peers counted traffic the owner has not taken */
	pthread_mutex_t lock;
};

_Static_assert(sizeof(struct direct_hdr) <= DIRECT_HDR_SIZE, "header");

static size_t records_len(unsigned int ndev)
{
	return DIRECT_HDR_SIZE + (size_t)ndev * sizeof(struct direct_dev);
}

static struct direct_dev *records_dev(struct direct_hdr *h, unsigned int dev)
{
	return (struct direct_dev *)((uint8_t *)h + DIRECT_HDR_SIZE) + dev;
}

/* ---- this process's records ---- */

static struct {
	pthread_mutex_t mutex; /* creation */
	bool tried;
	int fd;
	struct direct_hdr *hdr;
	size_t len;
} self = { PTHREAD_MUTEX_INITIALIZER, false, -1, NULL, 0 };

/* a peer's side: a busy lock sends the request the NIC's way */
static int records_try(struct direct_hdr *h)
{
	int r = pthread_mutex_trylock(&h->lock);

	/* its holder died: the records are as consistent as its stores */
	if (r == EOWNERDEAD)
		r = pthread_mutex_consistent(&h->lock);
	return r;
}

/*
 * The owner's side: a peer holds the lock for one request's check and
 * copy, unless it was stopped (SIGSTOP, a debugger) just then. A stopped
 * peer must not hold up this process's verbs and NIC: after
 * DIRECT_WAIT_MS go on without the lock (false), as the peer cannot move
 * while it stays stopped.
 */
static bool records_hold(struct direct_hdr *h)
{
	struct timespec ts;
	int r;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += DIRECT_WAIT_MS * 1000000L;
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	r = pthread_mutex_timedlock(&h->lock, &ts);
	if (r == EOWNERDEAD)
		r = pthread_mutex_consistent(&h->lock);
	if (r)
		emu_trace("fabric: one-sided records: a peer holds them (%s)",
			  strerror(r));
	return !r;
}

static void records_release(struct direct_hdr *h, bool held)
{
	if (held)
		pthread_mutex_unlock(&h->lock);
}

static void records_create(void)
{
	size_t len = records_len(emu_cfg.ndevices);
	pthread_mutexattr_t attr;
	struct direct_hdr *h;
	int fd;

	/* fault injection decides every packet's fate where it is today */
	if (!emu_cfg.onesided || emu_cfg.fault.on)
		return;
	fd = memfd_create(DIRECT_NAME, MFD_CLOEXEC);
	if (fd < 0)
		return;
	if (ftruncate(fd, len)) {
		emu_libc.close(fd);
		return;
	}
	h = emu_libc.mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED) {
		emu_libc.close(fd);
		return;
	}
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&h->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	h->version = DIRECT_VERSION;
	h->pid = getpid();
	h->uid = getuid();
	h->ndev = emu_cfg.ndevices;
	h->self = (uintptr_t)h;
	__atomic_store_n(&h->magic, DIRECT_MAGIC, __ATOMIC_RELEASE);
	self.fd = fd;
	self.len = len;
	__atomic_store_n(&self.hdr, h, __ATOMIC_RELEASE);
}

/* the records, created at the first publication; NULL: none offered */
static struct direct_hdr *records(void)
{
	struct direct_hdr *h = __atomic_load_n(&self.hdr, __ATOMIC_ACQUIRE);

	if (h || __atomic_load_n(&self.tried, __ATOMIC_ACQUIRE))
		return h;
	pthread_mutex_lock(&self.mutex);
	if (!self.tried) {
		records_create();
		__atomic_store_n(&self.tried, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&self.mutex);
	return self.hdr;
}

/*
 * The NIC starts (at the first CQ or QP, so before a peer can know a QPN
 * of ours): a peer that finds no records then is offered none.
 */
void fabric_direct_init(void)
{
	records();
}

static struct direct_qp *self_qp(unsigned int dev, uint32_t qpn)
{
	struct direct_hdr *h = records();

	if (!h || dev >= h->ndev)
		return NULL;
	return &records_dev(h, dev)->qp[qpn & (DIRECT_QPS - 1)];
}

void fabric_direct_qp(unsigned int dev, const struct nic_qp *qp,
		      const uint16_t *lid, unsigned int nports, bool new_psn)
{
	struct direct_qp *r = self_qp(dev, qp->qpn);
	unsigned int p;
	bool held;

	if (!r)
		return;
	held = records_hold(self.hdr);
	r->dest_qpn = qp->dest_qpn;
	r->pdn = qp->pdn;
	r->access = qp->access;
	/* else peers may have advanced it past what the NIC last saw */
	if (new_psn || r->qpn != qp->qpn)
		r->resp_psn = qp->resp_psn;
	for (p = 0; p < EMU_MAX_PORTS; p++)
		r->lid[p] = p < nports ? lid[p] : 0;
	r->type = qp->type;
	r->state = qp->state;
	if (r->qpn != qp->qpn)
		r->dma_read = r->dma_write = 0;
	r->qpn = qp->qpn;
	records_release(self.hdr, held);
}

void fabric_direct_qp_counts(unsigned int dev, const struct nic_qp *qp,
			     uint64_t *dma_read, uint64_t *dma_write)
{
	struct direct_hdr *h = __atomic_load_n(&self.hdr, __ATOMIC_ACQUIRE);
	struct direct_qp *r;

	*dma_read = *dma_write = 0;
	if (!h || dev >= h->ndev)
		return;
	r = &records_dev(h, dev)->qp[qp->qpn & (DIRECT_QPS - 1)];
	if (r->qpn != qp->qpn)
		return;
	*dma_read = __atomic_exchange_n(&r->dma_read, 0, __ATOMIC_RELAXED);
	*dma_write = __atomic_exchange_n(&r->dma_write, 0, __ATOMIC_RELAXED);
}

bool fabric_direct_counted(bool clear)
{
	struct direct_hdr *h = __atomic_load_n(&self.hdr, __ATOMIC_ACQUIRE);

	if (!h)
		return false;
	if (clear)
		return __atomic_exchange_n(&h->counted, 0, __ATOMIC_RELAXED);
	return __atomic_load_n(&h->counted, __ATOMIC_RELAXED);
}

/* the NIC moved it to ERR: one store, whatever lock is held */
void fabric_direct_qp_state(unsigned int dev, const struct nic_qp *qp,
			    enum nic_qp_state state)
{
	struct direct_qp *r = self_qp(dev, qp->qpn);

	if (r && r->qpn == qp->qpn)
		__atomic_store_n(&r->state, state, __ATOMIC_RELEASE);
}

void fabric_direct_qp_gone(unsigned int dev, const struct nic_qp *qp)
{
	struct direct_qp *r = self_qp(dev, qp->qpn);
	bool held;

	if (!r || r->qpn != qp->qpn)
		return;
	held = records_hold(self.hdr);
	memset(r, 0, sizeof(*r));
	records_release(self.hdr, held);
}

/* mr NULL: the MR of that key is gone */
static void publish_mr(unsigned int dev, uint32_t key, const struct nic_mr *mr)
{
	struct direct_hdr *h = records();
	struct direct_mr *r;
	bool held;

	if (!h || dev >= h->ndev || (key >> 8) >= DIRECT_MRS)
		return;
	r = &records_dev(h, dev)->mr[key >> 8];
	/* a peer's request under way ends before the MR may go */
	held = records_hold(h);
	if (mr) {
		r->rkey = mr->rkey;
		r->pdn = mr->pdn;
		r->access = mr->access;
		r->iova = mr->iova;
		r->length = mr->length;
		r->va = (uintptr_t)mr->va;
	} else if (r->rkey == key) {
		memset(r, 0, sizeof(*r));
	}
	records_release(h, held);
}

void fabric_direct_mr(unsigned int dev, const struct nic_mr *mr)
{
	publish_mr(dev, mr->rkey, mr);
}

void fabric_direct_mr_gone(unsigned int dev, uint32_t key)
{
	publish_mr(dev, key, NULL);
}

/*
 * The responder's NIC serves a request from another process: the PSN
 * direct requests advanced first, and atomics under the records' lock.
 */
enum nic_ack fabric_direct_respond(struct nic_qp *qp, const struct nic_pkt *pkt)
{
	const struct nic_opcode *op = nic_opcode(pkt->opcode);
	struct direct_hdr *h = __atomic_load_n(&self.hdr, __ATOMIC_ACQUIRE);
	bool atomic = op && (op->flags & NIC_OPF_ATOMIC);
	struct direct_qp *r = NULL;
	bool held = false;
	enum nic_ack ack;

	if (!h)
		return nic_respond(qp, pkt);
	if (qp->dev->index < h->ndev)
		r = &records_dev(h, qp->dev->index)
			     ->qp[qp->qpn & (DIRECT_QPS - 1)];
	if (r && r->qpn != qp->qpn)
		r = NULL;
	if (r && nic_qp_transport(qp)->reliable)
		qp->resp_psn = __atomic_load_n(&r->resp_psn, __ATOMIC_ACQUIRE);
	if (atomic)
		held = records_hold(h);
	ack = nic_respond(qp, pkt);
	records_release(h, held);
	if (r && nic_qp_transport(qp)->reliable)
		__atomic_store_n(&r->resp_psn, qp->resp_psn, __ATOMIC_RELEASE);
	return ack;
}

/* ---- the requester's side: its peers' records ---- */

struct direct_peer {
	pid_t pid; /* 0: not looked at since the slot was (re)taken */
	struct direct_hdr *hdr; /* NULL: refused, or nothing offered */
	size_t len;
};

static struct direct_peer peers[FABRIC_MAX_SLOTS];
static bool said_refused;

static void say_refused(pid_t pid, const char *what, int err)
{
	emu_trace("fabric: one-sided to pid %d by its NIC: %s: %s", pid, what,
		  strerror(err));
	if (said_refused)
		return;
	said_refused = true;
	fprintf(stderr,
		"mlx5emu: one-sided operations to pid %d need its CPU: %s: %s "
		"(ptrace permission over it: same uid, and under Yama "
		"ptrace_scope=1 its prctl(PR_SET_PTRACER); see mlx5emu(1))\n",
		pid, what, strerror(err));
}

static void peer_detach(struct direct_peer *p)
{
	if (p->hdr)
		emu_libc.munmap(p->hdr, p->len);
	p->hdr = NULL;
	p->pid = 0;
}

void fabric_direct_forget(int slot)
{
	if (slot >= 0 && slot < FABRIC_MAX_SLOTS)
		peer_detach(&peers[slot]);
}

/* the peer's records memfd, opened through /proc/<pid>/fd; -errno */
static int peer_records_fd(pid_t pid)
{
	char dir[64], path[352], link[128];
	struct dirent *de;
	int fd = -ENOENT;
	ssize_t n;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = emu_libc.opendir(dir);
	if (!d)
		return -errno;
	while (fd == -ENOENT && (de = readdir(d))) {
		n = emu_libc.readlinkat(dirfd(d), de->d_name, link,
					sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (strncmp(link, "/memfd:" DIRECT_NAME " ",
			    sizeof("/memfd:" DIRECT_NAME))) /* " (deleted)" */
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fd = emu_libc.openat(AT_FDCWD, path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
	}
	closedir(d);
	return fd;
}

/* the records hold up: this pid's, this uid's, and its memory says so */
static int peer_verify(struct direct_peer *p, struct stat *st)
{
	struct direct_hdr *h = p->hdr;
	uint32_t magic = 0;
	struct iovec l = { &magic, sizeof(magic) };
	struct iovec r;

	if ((size_t)st->st_size < DIRECT_HDR_SIZE ||
	    __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != DIRECT_MAGIC ||
	    h->version != DIRECT_VERSION || h->pid != p->pid ||
	    h->uid != getuid() || h->ndev > EMU_MAX_DEVICES ||
	    records_len(h->ndev) > (size_t)st->st_size)
		return -EINVAL;
	/* the probe: the permission process_vm_* needs, and the identity */
	r.iov_base = (void *)(uintptr_t)h->self;
	r.iov_len = sizeof(magic);
	if (process_vm_readv(p->pid, &l, 1, &r, 1, 0) != sizeof(magic))
		return -errno;
	return magic == DIRECT_MAGIC ? 0 : -EINVAL;
}

static void peer_attach(struct direct_peer *p, pid_t pid)
{
	struct stat st;
	int fd, err;

	p->pid = pid;
	fd = peer_records_fd(pid);
	if (fd == -ENOENT)
		return; /* it offers none (off, or fault injection) */
	if (fd < 0) {
		say_refused(pid, "its records", -fd);
		return;
	}
	if (emu_libc.fstat(fd, &st) || (size_t)st.st_size < DIRECT_HDR_SIZE) {
		emu_libc.close(fd);
		return;
	}
	p->len = st.st_size;
	p->hdr = emu_libc.mmap(NULL, p->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			       fd, 0);
	emu_libc.close(fd);
	if (p->hdr == MAP_FAILED) {
		p->hdr = NULL;
		return;
	}
	err = peer_verify(p, &st);
	if (err) {
		if (err == -EPERM || err == -EACCES)
			say_refused(pid, "process_vm_readv", -err);
		emu_libc.munmap(p->hdr, p->len);
		p->hdr = NULL;
	}
}

static struct direct_peer *peer_get(int slot)
{
	struct direct_peer *p = &peers[slot];
	pid_t pid;

	if (!p->pid) {
		pid = fabric_peer_pid(slot);
		if (pid <= 0)
			return NULL; /* nobody there: the NIC path says so */
		peer_attach(p, pid);
	}
	return p->hdr ? p : NULL;
}

/* the WQEs of qp the responder's NIC has not answered yet */
static bool req_pending(const struct nic_qp *qp)
{
	uint32_t i;

	for (i = qp->fl_head; i != qp->fl_tail; i++)
		if (qp->fl[i % NIC_WINDOW].ack != NIC_ACK)
			return true;
	return false;
}

static bool mr_in_range(const struct direct_mr *mr, uint64_t addr, uint32_t len)
{
	return addr >= mr->iova && addr - mr->iova <= mr->length &&
	       len <= mr->length - (addr - mr->iova);
}

/*
 * The responder's checks (responder.c: resp_admit(), nic_mr_remote()) on
 * its records; false sends the request its NIC's way. *va: the target.
 */
static struct direct_qp *direct_check(struct direct_hdr *h,
				      const struct nic_qp *qp,
				      const struct nic_pkt *pkt,
				      const struct nic_opcode *op, uint64_t *va)
{
	const struct direct_mr *mr;
	struct direct_qp *r = NULL;
	unsigned int d, i;

	for (d = 0; !r && d < h->ndev; d++) {
		r = &records_dev(h, d)->qp[pkt->dest_qpn & (DIRECT_QPS - 1)];
		for (i = 0; i < EMU_MAX_PORTS && r->lid[i] != pkt->dlid; i++)
			;
		if (r->qpn != pkt->dest_qpn || i == EMU_MAX_PORTS)
			r = NULL;
	}
	if (!r || r->type != qp->type || r->dest_qpn != qp->qpn ||
	    (r->state != NIC_QPS_RTR && r->state != NIC_QPS_RTS) ||
	    r->resp_psn != pkt->psn || !(op->transports & (1u << r->type)))
		return NULL;
	*va = 0;
	if (!pkt->len) /* IBA 9.4.3: a zero-length RDMA checks no key */
		return (op->flags & NIC_OPF_ATOMIC) ? NULL : r;
	if ((r->access & op->remote_access) != op->remote_access ||
	    (pkt->rkey >> 8) >= DIRECT_MRS)
		return NULL;
	mr = &records_dev(h, d - 1)->mr[pkt->rkey >> 8];
	if (mr->rkey != pkt->rkey || mr->pdn != r->pdn ||
	    (mr->access & op->remote_access) != op->remote_access ||
	    !mr_in_range(mr, pkt->raddr, pkt->len))
		return NULL;
	if ((op->flags & NIC_OPF_ATOMIC) && (pkt->len != 8 || (pkt->raddr & 7)))
		return NULL;
	*va = mr->va + (pkt->raddr - mr->iova);
	return r;
}

static uint32_t to_iovec(struct iovec *v, const struct nic_iov *s, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		v[i].iov_base = s[i].base;
		v[i].iov_len = s[i].len;
	}
	return n;
}

/* 8 bytes read, changed and written back, under the records' lock */
static ssize_t direct_atomic(pid_t pid, const struct nic_pkt *pkt, uint64_t va)
{
	uint64_t old, val;
	struct iovec l = { &old, 8 }, r = { (void *)(uintptr_t)va, 8 };
	struct nic_iov res = { (uint8_t *)&old, 8 };
	ssize_t n;

	if (process_vm_readv(pid, &l, 1, &r, 1, 0) != 8)
		return -1;
	if (pkt->opcode == MLX5_OPCODE_ATOMIC_CS)
		val = old == pkt->compare ? pkt->swap_add : old;
	else
		val = old + pkt->swap_add;
	l.iov_base = &val;
	n = val == old ? 8 : process_vm_writev(pid, &l, 1, &r, 1, 0);
	if (n == 8)
		nic_iov_copy(pkt->dst, pkt->ndst, &res, 1, 8);
	return n == 8 ? (ssize_t)pkt->len : -1;
}

/*
 * Move the data: 1 done, 0 not (all) done (the NIC's way does it again),
 * -EPERM refused.
 */
static int direct_move(struct direct_peer *p, const struct nic_pkt *pkt,
		       const struct nic_opcode *op, uint64_t va)
{
	struct iovec l[NIC_MAX_SGE], r = { (void *)(uintptr_t)va, pkt->len };
	ssize_t n;

	if (!pkt->len)
		return 1;
	if (op->flags & NIC_OPF_ATOMIC)
		n = direct_atomic(p->pid, pkt, va);
	else if (op->flags & NIC_OPF_READ)
		n = process_vm_readv(
			p->pid, l, to_iovec(l, pkt->dst, pkt->ndst), &r, 1, 0);
	else
		n = process_vm_writev(
			p->pid, l, to_iovec(l, pkt->src, pkt->nsrc), &r, 1, 0);
	if (n == (ssize_t)pkt->len)
		return 1;
	return n < 0 && errno == EPERM ? -EPERM : 0;
}

/* the PSN taken, and the responder's counts (responder.c's) */
static void direct_done(struct direct_hdr *h, struct direct_qp *r,
			const struct nic_pkt *pkt, const struct nic_opcode *op)
{
	__atomic_store_n(&r->resp_psn, (pkt->psn + 1) & NIC_PSN_MASK,
			 __ATOMIC_RELEASE);
	if (op->flags & (NIC_OPF_READ | NIC_OPF_ATOMIC))
		__atomic_fetch_add(&r->dma_read, pkt->len, __ATOMIC_RELAXED);
	if (!(op->flags & NIC_OPF_READ) || (op->flags & NIC_OPF_ATOMIC))
		__atomic_fetch_add(&r->dma_write, pkt->len, __ATOMIC_RELAXED);
	__atomic_store_n(&h->counted, 1, __ATOMIC_RELAXED);
}

bool fabric_direct_xmit(int slot, struct nic_qp *qp, const struct nic_pkt *pkt)
{
	const struct nic_opcode *op = nic_opcode(pkt->opcode);
	struct direct_peer *p;
	struct direct_qp *r;
	uint64_t va;
	int done = 0;

	if (!emu_cfg.onesided || qp->dev->faults || qp->type != NIC_QPT_RC ||
	    !op || !(op->flags & NIC_OPF_RADDR) || (op->flags & NIC_OPF_RECV) ||
	    slot < 0 || slot >= FABRIC_MAX_SLOTS || fabric_tcp_remote(slot) ||
	    req_pending(qp))
		return false;
	p = peer_get(slot);
	if (!p || records_try(p->hdr))
		return false;
	r = direct_check(p->hdr, qp, pkt, op, &va);
	if (r)
		done = direct_move(p, pkt, op, va);
	if (done > 0)
		direct_done(p->hdr, r, pkt, op);
	pthread_mutex_unlock(&p->hdr->lock);
	if (done == -EPERM) {
		say_refused(p->pid, "process_vm_writev", EPERM);
		peer_detach(p);
		p->pid = -1; /* refused until the slot is taken again */
	}
	return done > 0;
}

/* in a fork() child: the parent's records are the parent's */
void fabric_direct_atfork_child(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	int i;

	if (self.hdr)
		emu_libc.munmap(self.hdr, self.len);
	if (self.fd >= 0)
		emu_libc.close(self.fd);
	self.mutex = m;
	self.tried = false;
	self.fd = -1;
	self.hdr = NULL;
	for (i = 0; i < FABRIC_MAX_SLOTS; i++)
		peer_detach(&peers[i]);
}
