#!/bin/bash
# What became of every UD datagram in an mlx5emu --trace file (all the
# processes of a run may append to one file): each "ud sent" line must
# have exactly one fate line ("ud delivered" or "ud dropped reason=..")
# with the same source QPN and PSN, and the datagrams one QP sends to
# another must be delivered in the order they were sent. A datagram sent
# after its destination process began to destroy its QPs may have no fate
# (the process no longer reads the fabric); it is counted as "late".
#
#   ud_trace_check.sh TRACE
#
# Prints the counts per fate and every datagram that was lost without a
# fate, had two, or arrived out of order; exit status 1 if there is one.
set -euo pipefail
[ $# -eq 1 ] || {
	echo "usage: $0 TRACE" >&2
	exit 2
}
awk '
function field(name,   i) {
	for (i = 1; i <= NF; i++)
		if (index($i, name "=") == 1)
			return substr($i, length(name) + 2)
	return ""
}
# "0x1010f" -> 65807 (mawk has no strtonum)
function hex(s,   i, n) {
	n = 0
	s = tolower(substr(s, 3))
	for (i = 1; i <= length(s); i++)
		n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n
}
# "mlx5emu[PID]:" -> PID
function pid_of(tag) {
	return substr(tag, 9, length(tag) - 10)
}
# a process that destroys a QP, from that line on
/ write DESTROY_QP / && !(pid_of($1) in destroying) {
	destroying[pid_of($1)] = NR
}
$2 != "ud" { next }
{
	key = field("src_qpn") " " field("psn")
	if ($3 == "sent") {
		sent[key]++
		sent_at[key] = NR
		dest[key] = field("dest_qpn")
		# the top bits of a QPN are the fabric slot of its process
		slot_pid[int(hex(field("src_qpn")) / 65536)] = pid_of($1)
		next
	}
	fate = $3 == "delivered" ? "delivered" : field("reason")
	fates[key]++
	count[fate]++
	if (fate != "delivered")
		next
	pair = field("src_qpn") ">" field("dest_qpn")
	psn = field("psn") + 0
	# PSNs are 24 bits: a step of more than half the space is backwards
	step = 1
	if (pair in last)
		step = (psn - last[pair] + 16777216) % 16777216
	if (step == 0 || step >= 8388608) {
		printf "reordered: %s psn %d after %d\n", pair, psn, last[pair]
		bad++
	}
	last[pair] = psn
}
END {
	for (key in sent) {
		to = slot_pid[int(hex(dest[key]) / 65536)]
		if (!(key in fates) && to in destroying &&
		    destroying[to] < sent_at[key]) {
			# as on hardware: its QP was gone or going
			count["late"]++
		} else if (!(key in fates)) {
			printf "lost without a fate: src_qpn psn %s\n", key
			bad++
		} else if (fates[key] > 1) {
			printf "%d fates: src_qpn psn %s\n", fates[key], key
			bad++
		}
		if (sent[key] > 1) {
			printf "sent %d times: src_qpn psn %s\n", sent[key], key
			bad++
		}
	}
	for (key in fates)
		if (!(key in sent)) {
			printf "a fate but never sent: src_qpn psn %s\n", key
			bad++
		}
	for (fate in count)
		printf "%s %d\n", fate, count[fate]
	exit bad > 0
}' "$1"
