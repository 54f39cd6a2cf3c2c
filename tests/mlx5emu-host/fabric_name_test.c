// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The fabric's abstract socket names (fabric/wire.h): the longest fabric
 * name the option table allows fits unclipped, and no name of one fabric
 * is the name of another's ("a" claims HW UAR 16 of device 0 where
 * "a.d0.uar" would bind slot 16).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "emu_param.h"
#include "option.h"
#include "wire.h"

static void name(struct sockaddr_un *sa, socklen_t *len, const char *fabric,
		 const char *what)
{
	*len = fabric_sockaddr(sa, 4294967295u, fabric, what);
	assert_true(*len <= sizeof(*sa));
}

static void test_longest_name_fits(void **state)
{
	const struct emu_option *o = &emu_options[EMU_OPTION_FABRIC];
	char fabric[EMU_FABRIC_NAME_MAX + 2], want[64];
	struct sockaddr_un sa;
	unsigned int v;
	socklen_t len;

	(void)state;
	memset(fabric, 'f', sizeof(fabric));
	fabric[o->max] = 0;
	assert_int_equal(emu_option_parse(o, fabric, &v, want, sizeof(want)),
			 0);
	name(&sa, &len, fabric, "d255.uar.4294967295");
	/* unclipped: it ends with what it was given */
	assert_memory_equal(
		sa.sun_path + len - offsetof(struct sockaddr_un, sun_path) -
			strlen("d255.uar.4294967295"),
		"d255.uar.4294967295", strlen("d255.uar.4294967295"));
	fabric[o->max] = 'f';
	fabric[o->max + 1] = 0;
	assert_int_equal(emu_option_parse(o, fabric, &v, want, sizeof(want)),
			 -1);
	assert_string_equal(want, "1..64 characters");
	assert_int_equal(emu_option_parse(o, "", &v, want, sizeof(want)), -1);
}

static void test_fabrics_do_not_share_names(void **state)
{
	struct sockaddr_un a, b;
	socklen_t alen, blen;

	(void)state;
	name(&a, &alen, "a", "d0.uar.16");
	name(&b, &blen, "a.d0.uar", "16");
	assert_false(alen == blen && !memcmp(&a, &b, alen));
	name(&a, &alen, "x.1", "2");
	name(&b, &blen, "x", "1.2");
	assert_false(alen == blen && !memcmp(&a, &b, alen));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_longest_name_fits),
		cmocka_unit_test(test_fabrics_do_not_share_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
