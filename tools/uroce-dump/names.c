/* SPDX-License-Identifier: MIT */
#include "names.h"

#include <stdio.h>

#include "outbuf.h"
#include "wire/eth.h"
#include "wire/ib.h"
#include "wire/opcode.h"

#define N_OF(t) (sizeof(t) / sizeof((t)[0]))

const char *dump_name_find(const struct dump_name *table, size_t n, uint32_t value)
{
	for (size_t i = 0; i < n; i++)
		if (table[i].value == value)
			return table[i].name;
	return NULL;
}

static const struct dump_name ethertypes[] = {
	{UROCE_ETHERTYPE_IPV4, "IPv4"},
	{UROCE_ETHERTYPE_ARP, "ARP"},
	{UROCE_ETHERTYPE_IPV6, "IPv6"},
	{UROCE_ETHERTYPE_VLAN, "802.1Q"},
	{UROCE_ETHERTYPE_QINQ, "802.1ad"},
	{UROCE_ROCEV1_ETHERTYPE, "RoCE v1"},
	{0x8035, "RARP"},
	{0x8808, "Ethernet flow control"},
	{0x88CC, "LLDP"},
	{0x8906, "FCoE"},
	{0x88F7, "PTP"},
	{0x8847, "MPLS"},
	{0x88E5, "MACsec"},
};

const char *dump_ethertype_name(uint16_t type)
{
	return dump_name_find(ethertypes, N_OF(ethertypes), type);
}

static const struct dump_name ipprotos[] = {
	{1, "ICMP"}, {2, "IGMP"}, {6, "TCP"}, {17, "UDP"}, {41, "IPv6"}, {47, "GRE"},
	{50, "ESP"}, {58, "ICMPv6"}, {89, "OSPF"}, {132, "SCTP"},
};

const char *dump_ipproto_name(uint8_t proto)
{
	return dump_name_find(ipprotos, N_OF(ipprotos), proto);
}

const char *dump_ecn_name(uint8_t ecn)
{
	static const char *const names[4] = {"Not-ECT", "ECT(1)", "ECT(0)", "CE"};
	return names[ecn & 3];
}

const char *dump_lnh_name(uint8_t lnh)
{
	/* IBA 7.7.1, Table 9 */
	static const char *const names[4] = {
		[UROCE_LNH_RAW] = "raw (RWH follows)",
		[UROCE_LNH_IP_NONIBA] = "raw IPv6",
		[UROCE_LNH_IBA_LOCAL] = "IBA local (BTH follows)",
		[UROCE_LNH_IBA_GLOBAL] = "IBA global (GRH follows)",
	};
	return names[lnh & 3];
}

const char *dump_aeth_type_name(uint8_t type)
{
	static const char *const names[4] = {
		[UROCE_AETH_ACK] = "ACK",
		[UROCE_AETH_RNR_NAK] = "RNR NAK",
		[UROCE_AETH_RESERVED] = "reserved",
		[UROCE_AETH_NAK] = "NAK",
	};
	return names[type & 3];
}

const char *dump_rnr_text(uint8_t timer, char *buf, size_t len)
{
	uint32_t us = uroce_rnr_timer_us(timer);

	snprintf(buf, len, "%u.%02u ms", (unsigned)(us / 1000), (unsigned)(us % 1000 / 10));
	return buf;
}

/* The words of an opcode's text: its transport ("RC") and operation ("RDMA_WRITE_ONLY"); no
 * transport for the CNP, whose transport and operation have the same name, said once. False
 * when the opcode is not valid. */
static bool opcode_words(uint8_t opcode, const char **transport, const char **operation)
{
	const struct uroce_opcode_info *op = uroce_opcode_info(opcode);

	if (!op->name)
		return false;
	*transport = op->kind == UROCE_OPK_CNP ? NULL
					       : uroce_transport_name(uroce_opcode_transport(opcode));
	*operation = op->op_name;
	return true;
}

const char *dump_opcode_text(uint8_t opcode, char *buf, size_t len)
{
	const char *tp, *op;

	if (!opcode_words(opcode, &tp, &op))
		return NULL;
	if (tp)
		snprintf(buf, len, "%s %s", tp, op);
	else
		snprintf(buf, len, "%s", op);
	return buf;
}

bool dump_opcode_put(struct outbuf *ob, uint8_t opcode)
{
	const char *tp, *op;

	if (!opcode_words(opcode, &tp, &op))
		return false;
	if (tp) {
		ob_char(ob, ' ');
		ob_str(ob, tp);
	}
	ob_char(ob, ' ');
	ob_str(ob, op);
	return true;
}
