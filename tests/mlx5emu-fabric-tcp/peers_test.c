// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The peer list of a fabric across hosts (mlx5emu/src/base/peers.c):
 * what it accepts, what it refuses with a reason, which entry this host
 * is, and how the slots are split between the hosts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "peers.h"

static struct fabric_peers peers;
static char err[256];

static void test_accepts_v4_and_v6(void **state)
{
	char text[INET6_ADDRSTRLEN];

	(void)state;
	assert_int_equal(fabric_peers_parse("10.0.0.1:7000,[fd00::2]:7100",
					    &peers, err, sizeof(err)),
			 0);
	assert_int_equal(peers.n, 2);
	assert_int_equal(peers.addr[0].sa.sa_family, AF_INET);
	assert_int_equal(fabric_addr_port(&peers.addr[0]), 7000);
	assert_int_equal(peers.addr[1].sa.sa_family, AF_INET6);
	assert_int_equal(fabric_addr_port(&peers.addr[1]), 7100);
	inet_ntop(AF_INET6, &peers.addr[1].in6.sin6_addr, text, sizeof(text));
	assert_string_equal(text, "fd00::2");
}

static void test_refuses_with_a_reason(void **state)
{
	static const char *const bad[] = {
		"",
		"10.0.0.1:7000",
		"10.0.0.1:7000,",
		"10.0.0.1,10.0.0.2",
		"10.0.0.1:0,10.0.0.2:1",
		"10.0.0.1:65300,10.0.0.2:1",
		"10.0.0.1:7x,10.0.0.2:1",
		"host-a:7000,host-b:7000",
		"fd00::1:7000,fd00::2:7000",
		"[fd00::1:7000,[fd00::2]:7000",
		"[]:7000,10.0.0.2:1",
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		if (!fabric_peers_parse(bad[i], &peers, err, sizeof(err)))
			fail_msg("'%s' was accepted", bad[i]);
		if (!err[0])
			fail_msg("'%s' was refused without a reason", bad[i]);
	}
}

static void test_at_most_max_hosts(void **state)
{
	char list[FABRIC_PEERS_MAX_LEN + 1] = "";
	size_t n = 0;
	unsigned int i;

	(void)state;
	for (i = 0; i <= FABRIC_MAX_HOSTS; i++)
		n += snprintf(list + n, sizeof(list) - n, "%s10.0.%u.1:7000",
			      i ? "," : "", i);
	assert_int_equal(fabric_peers_parse(list, &peers, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "hosts"));
	/* one fewer is fine */
	*strrchr(list, ',') = 0;
	assert_int_equal(fabric_peers_parse(list, &peers, err, sizeof(err)), 0);
	assert_int_equal(peers.n, FABRIC_MAX_HOSTS);
}

static void test_self(void **state)
{
	(void)state;
	/* loopback is this host's; TEST-NET-3 (RFC 5737) is nobody's */
	assert_int_equal(fabric_peers_parse("203.0.113.71:7000,127.0.0.1:7000",
					    &peers, err, sizeof(err)),
			 0);
	assert_int_equal(fabric_peers_find_self(&peers, NULL, err, sizeof(err)),
			 0);
	assert_int_equal(peers.self, 1);
	assert_int_equal(fabric_peers_find_self(&peers, "0", err, sizeof(err)),
			 0);
	assert_int_equal(peers.self, 0);
	assert_int_equal(fabric_peers_find_self(&peers, "2", err, sizeof(err)),
			 -1);
	assert_int_equal(
		fabric_peers_parse("203.0.113.71:7000,203.0.113.72:7000",
				   &peers, err, sizeof(err)),
		0);
	assert_int_equal(fabric_peers_find_self(&peers, NULL, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "give its index"));
}

static void test_slots_split(void **state)
{
	unsigned int s;

	(void)state;
	memset(&peers, 0, sizeof(peers));
	/* one host: every slot is its own */
	assert_int_equal(fabric_host_slots(&peers), FABRIC_SLOTS);
	assert_int_equal(fabric_slot_host(&peers, FABRIC_SLOTS - 1), 0);
	peers.n = 3;
	assert_int_equal(fabric_host_slots(&peers), FABRIC_SLOTS / 3);
	for (s = 0; s < FABRIC_SLOTS; s++) {
		unsigned int h = fabric_slot_host(&peers, s);

		if (s < 3 * (FABRIC_SLOTS / 3))
			assert_int_equal(h, s / (FABRIC_SLOTS / 3));
		else /* the rest belongs to no host */
			assert_int_equal(h, peers.n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepts_v4_and_v6),
		cmocka_unit_test(test_refuses_with_a_reason),
		cmocka_unit_test(test_at_most_max_hosts),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_slots_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
