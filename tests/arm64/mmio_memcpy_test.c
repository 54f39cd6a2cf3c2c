// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mmio_memcpy_x64() of the patched tree, built for aarch64 and run under
 * qemu-user: a constant length copies that many bytes, as a variable one
 * does. In 65.0 the macro tested __builtin_constant_p((bytecount) == 64),
 * true for any constant length, so a constant 128 copied 64 bytes (fixed
 * upstream in 65.1); BlueFlame copies of more than one block pass such
 * lengths. Plain C, no cmocka: it runs as a static aarch64 program.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <util/mmio.h>

#define GUARD 64

static uint8_t src[256 + GUARD], dst[256 + GUARD] __attribute__((aligned(64)));

static int check(const char *how, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (dst[i] != src[i]) {
			printf("FAIL: %s %zu: byte %zu not copied\n", how, len,
			       i);
			return 1;
		}
	for (; i < sizeof(dst); i++)
		if (dst[i]) {
			printf("FAIL: %s %zu: byte %zu written\n", how, len, i);
			return 1;
		}
	printf("ok: %s %zu bytes\n", how, len);
	return 0;
}

#define CONSTANT(n)                                                            \
	do {                                                                   \
		memset(dst, 0, sizeof(dst));                                   \
		mmio_memcpy_x64(dst, src, n);                                  \
		bad |= check("constant", n);                                   \
	} while (0)

int main(void)
{
	volatile size_t runtime; /* never a constant to the compiler */
	int bad = 0;
	size_t i;

	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i + 1);
	CONSTANT(64);
	CONSTANT(128);
	CONSTANT(192);
	CONSTANT(256);
	for (runtime = 64; runtime <= 256; runtime += 64) {
		memset(dst, 0, sizeof(dst));
		mmio_memcpy_x64(dst, src, runtime);
		bad |= check("variable", runtime);
	}
	return bad;
}
