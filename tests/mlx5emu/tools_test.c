// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The staged ibv_devices and ibv_devinfo -v see the emulated mlx5_0 with
 * sane attributes and an active port (run under `mlx5emu run`).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static char *run(const char *cmd)
{
	size_t cap = 1 << 16, len = 0, n;
	char *out = malloc(cap);
	FILE *f = popen(cmd, "r");

	assert_non_null(out);
	assert_non_null(f);
	while ((n = fread(out + len, 1, cap - 1 - len, f)) > 0)
		len += n;
	out[len] = 0;
	assert_int_equal(pclose(f), 0);
	return out;
}

static unsigned int env_uint(const char *name, unsigned int def)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : def;
}

static unsigned int count(const char *hay, const char *needle)
{
	unsigned int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

static void ibv_devices_lists_mlx5_0(void **state)
{
	char *out = run(STAGE_BIN "/ibv_devices");

	(void)state;
	assert_non_null(strstr(out, "mlx5_0"));
	assert_non_null(strstr(out, "0002c90300e5a000"));
	assert_int_equal(count(out, "mlx5_"), env_uint("MLX5EMU_DEVICES", 1));
	free(out);
}

/* --model, --devices and --ports as the launcher passed them */
static void ibv_devinfo_topology(void **state)
{
	const char *model = getenv("MLX5EMU_MODEL");
	unsigned int ndev = env_uint("MLX5EMU_DEVICES", 1);
	unsigned int nports = env_uint("MLX5EMU_PORTS", 1);
	char *out = run(STAGE_BIN "/ibv_devinfo 2>&1");
	const char *part = "vendor_part_id:\t\t\t4119";
	char want[64];

	(void)state;
	if (model && !strcmp(model, "cx4"))
		part = "vendor_part_id:\t\t\t4115";
	else if (model && !strcmp(model, "cx6"))
		part = "vendor_part_id:\t\t\t4123";
	assert_int_equal(count(out, "hca_id:"), ndev);
	assert_int_equal(count(out, part), ndev);
	snprintf(want, sizeof(want), "phys_port_cnt:\t\t\t%u", nports);
	assert_int_equal(count(out, want), ndev);
	assert_int_equal(count(out, "PORT_ACTIVE"), ndev * nports);
	free(out);
}

static void ibv_devinfo_verbose(void **state)
{
	char *out = run(STAGE_BIN "/ibv_devinfo -v 2>&1");
	static const char *const want[] = {
		"hca_id:\tmlx5_0",
		"transport:\t\t\tInfiniBand (0)",
		"vendor_id:\t\t\t0x02c9",
		"max_qp:\t\t\t\t65280", /* the QPN slot of a process */
		"atomic_cap:\t\t\tATOMIC_HCA (1)",
		"state:\t\t\tPORT_ACTIVE (4)",
		"active_mtu:\t\t4096 (5)",
		"link_layer:\t\tInfiniBand",
		"GID[  0]:",
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (!strstr(out, want[i]))
			fail_msg("'%s' missing in:\n%s", want[i], out);
	}
	assert_null(strstr(out, "Failed"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ibv_devices_lists_mlx5_0),
		cmocka_unit_test(ibv_devinfo_verbose),
		cmocka_unit_test(ibv_devinfo_topology),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
