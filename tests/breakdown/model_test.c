// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The models of ib_write_breakdown fed with Table 1 of "Breaking Band" give
 * the paper's own figures, each within 0.1%.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model.h"
#include "pcie.h"

static void assert_within(double got, double want, double rel)
{
	if (fabs(got - want) > rel * want)
		fail_msg("got %.4f, want %.4f (within %.2f%%)", got, want,
			 rel * 100);
}

static void llp_injection(void **state)
{
	struct bd_model m;

	(void)state;
	bd_model_defaults(&m);
	assert_within(bd_llp_post(&m), 175.42, 1e-3);
	assert_within(bd_llp_injection(&m), 295.73, 1e-3);
}

static void full_injection(void **state)
{
	struct bd_model m;

	(void)state;
	bd_model_defaults(&m);
	assert_within(bd_full_injection(&m), 264.97, 1e-3);
}

static void llp_latency(void **state)
{
	struct bd_model m;

	(void)state;
	bd_model_defaults(&m);
	assert_within(bd_network(&m), 382.81, 1e-3);
	assert_within(bd_llp_latency(&m), 1135.8, 1e-3);
}

static void end_to_end(void **state)
{
	struct bd_model m;

	(void)state;
	bd_model_defaults(&m);
	assert_within(bd_end_to_end(&m), 1387.02, 1e-3);
}

/* gen_completion = 2 (PCIe + Network) + RC-to-MEM(64B); p >= that/LLP_post */
static void completion_bound(void **state)
{
	struct bd_model m;
	double gen = 2 * (137.49 + 382.81) + 240.96;

	(void)state;
	bd_model_defaults(&m);
	assert_int_equal(m.src[BD_RC_TO_MEM_64], BD_SRC_ASSUMED);
	assert_within(bd_gen_completion(&m), gen, 1e-9);
	assert_within(bd_p_lower_bound(&m), gen / 175.42, 1e-9);
	assert_within(bd_mmsgs(bd_llp_injection(&m)), 1e3 / 295.73, 1e-3);
}

/* an override replaces the default and is labelled as an option */
static void override(void **state)
{
	struct bd_model m;
	int c = bd_comp_lookup("pcie");

	(void)state;
	bd_model_defaults(&m);
	assert_int_equal(c, BD_PCIE);
	assert_int_equal(bd_comp_lookup("no-such-component"), -1);
	bd_model_set(&m, c, 100, BD_SRC_OPTION);
	assert_string_equal(bd_source_name(m.src[c]), "option");
	assert_within(bd_llp_latency(&m), 1135.8 - 2 * 37.49, 1e-9);
	assert_within(bd_llp_injection(&m), 295.73, 1e-3);
}

/*
 * The PCIe model by hand: an inline 8-byte write rung with BlueFlame is
 * one 64-byte write TLP (88), the 8 bytes written at the responder (32)
 * and, signaled, one CQE (88); a list of 16 behind one doorbell is 32
 * for the ring, 16 BBs in two 512-byte reads (48) answered by sixteen
 * 64-byte completions (16 * 84), per message.
 */
static void pcie_bytes(void **state)
{
	struct bd_pcie_counts bf = { .bf_blocks = 1,
				     .payload_written = 8,
				     .cqes = 1 };
	struct bd_pcie_counts list = { .db = 1.0 / 16,
				       .fetched_bytes = 64,
				       .payload_written = 8 };
	struct bd_pcie_bytes b;
	struct bd_pcie p;

	(void)state;
	bd_pcie_defaults(&p);
	assert_int_equal(p.src[BD_PCIE_MAX_PAYLOAD], BD_SRC_ASSUMED);
	bd_pcie_model(&p, &bf, &b);
	assert_within(b.mmio, 88, 1e-9);
	assert_within(b.wqe + 1, 1, 1e-9);
	assert_within(b.total, 88 + 32 + 88, 1e-9);
	bd_pcie_model(&p, &list, &b);
	assert_within(b.mmio, 32.0 / 16, 1e-9);
	assert_within(b.wqe, (2 * 24 + 16 * 84) / 16.0, 1e-9);
	assert_within(b.total, b.mmio + b.wqe + 32, 1e-9);
	/* a larger read request halves the requests */
	p.v[BD_PCIE_MAX_READ_REQ] = 1024;
	bd_pcie_model(&p, &list, &b);
	assert_within(b.wqe, (24 + 16 * 84) / 16.0, 1e-9);
	assert_int_equal(bd_pcie_lookup("pcie-mrrs"), BD_PCIE_MAX_READ_REQ);
	assert_int_equal(bd_pcie_lookup("nope"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(llp_injection),
		cmocka_unit_test(full_injection),
		cmocka_unit_test(llp_latency),
		cmocka_unit_test(end_to_end),
		cmocka_unit_test(completion_bound),
		cmocka_unit_test(override),
		cmocka_unit_test(pcie_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
