/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The memory barriers of mlx5's post and poll paths, per architecture, and
 * the 64-byte BlueFlame copy. Same instructions as rdma-core's
 * udma_barrier.h uses, so the raw path costs what libmlx5's would.
 */
#ifndef BD_BARRIERS_H
#define BD_BARRIERS_H

#include <stdint.h>

#if defined(__x86_64__)
#include <emmintrin.h>
/* WQE writes before the doorbell record: stores are ordered on x86 */
#define bd_to_device_barrier() asm volatile("" ::: "memory")
#define BD_TO_DEVICE_BARRIER_IS_CODE 0
/* CQE fields after its owner bit */
#define bd_from_device_barrier() asm volatile("lfence" ::: "memory")
/* doorbell record before the WC writes; WC buffers out of the CPU */
#define bd_wc_start() asm volatile("sfence" ::: "memory")
#define bd_flush_writes() asm volatile("sfence" ::: "memory")

static inline void bd_copy64(void *dst, const void *src)
{
	__m128i *d = dst;
	const __m128i *s = src;

	_mm_store_si128(d, _mm_load_si128(s));
	_mm_store_si128(d + 1, _mm_load_si128(s + 1));
	_mm_store_si128(d + 2, _mm_load_si128(s + 2));
	_mm_store_si128(d + 3, _mm_load_si128(s + 3));
}
#elif defined(__aarch64__)
#include <arm_neon.h>
#define bd_to_device_barrier() asm volatile("dmb oshst" ::: "memory")
#define BD_TO_DEVICE_BARRIER_IS_CODE 1
#define bd_from_device_barrier() asm volatile("dmb oshld" ::: "memory")
#define bd_wc_start() asm volatile("dsb st" ::: "memory")
#define bd_flush_writes() asm volatile("dsb st" ::: "memory")

static inline void bd_copy64(void *dst, const void *src)
{
	vst4q_u64(dst, vld4q_u64(src));
}
#else
#error "ib_write_breakdown: no barriers for this architecture"
#endif

#endif
