/* SPDX-License-Identifier: MIT */
/* Received datagrams: header validation and dispatch to the QP's responder (requests) or
 * completer (responses), the role of rxe_recv.c. Every packet that goes no further is
 * counted under the drop_* counter that names the reason (design.md "Errors"). */
#include <string.h>

#include "cc.h"
#include "completer.h"
#include "mcast.h"
#include "priv.h"
#include "qp.h"
#include "responder.h"
#include "wire/ip.h"
#include "wire/mad.h"
#include "wire/packet.h"

/* The packet's destination IP address. */
static struct uroce_io_addr pkt_dst(const struct uroce_pkt *pkt)
{
	struct uroce_io_addr a = {.ipv6 = pkt->layers & UROCE_L_IPV6};

	memcpy(a.ip, a.ipv6 ? pkt->ip6.dst : pkt->ip4.dst, a.ipv6 ? 16 : 4);
	return a;
}

static bool is_local(const struct uroce_dev *dev, const struct uroce_io_addr *dst)
{
	for (uint32_t i = 0; i < dev->cfg.ngids; i++)
		if (uroce_io_addr_equal(&dev->cfg.gid[i], dst))
			return true;
	return false;
}

/* RC and UC take packets only from the peer of their address vector (facts.md section 3:
 * rxe checks the same). */
static bool from_peer(const struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	bool v6 = pkt->layers & UROCE_L_IPV6;
	const struct uroce_io_addr *peer = &qp->attr.ah_attr.dgid;

	return peer->ipv6 == v6 && !memcmp(peer->ip, v6 ? pkt->ip6.src : pkt->ip4.src, v6 ? 16 : 4);
}

/* The QP type that uses each transport (the GSI is a UD QP). */
static bool transport_matches(enum uroce_qp_type type, uint8_t opcode)
{
	enum uroce_transport tp = uroce_opcode_transport(opcode);
	return (type == UROCE_QPT_RC && tp == UROCE_TP_RC) ||
	       (type == UROCE_QPT_UC && tp == UROCE_TP_UC) ||
	       (type_is_datagram(type) && tp == UROCE_TP_UD);
}

static struct uroce_qp *qp_lookup(struct uroce_dev *dev, uint32_t qpn)
{
	struct uroce_qp *qp;

	if (qpn == GSI_QPN)
		return dev->gsi;
	if (qpn < dev->qpn_lo || qpn > dev->qpn_hi)
		return NULL;
	qp = dev->qps[qp_slot(dev, qpn)];
	return qp && qp->qpn == qpn ? qp : NULL;
}

/* Why a datagram the dissector read whole is not RoCEv2. */
static enum uroce_counter not_rocev2(const struct uroce_pkt *pkt)
{
	/* Annex A17 CA17-20 sets the UDP destination port to IANA's 4791; CA17-24 drops what
	 * does not follow A17.3.2: another port is another protocol. */
	if (pkt->layers & UROCE_L_UDP && pkt->udp.dport != UROCE_ROCEV2_UDP_PORT)
		return UROCE_CNT_drop_udp_port;
	/* CA17-7 / CA17-8 (DF set, fragment offset 0), dropped by CA17-24: a fragment carries
	 * no whole RoCEv2 packet. */
	if (pkt->layers & UROCE_L_IPV4 && (pkt->ip4.frag_off || pkt->ip4.flags & 1))
		return UROCE_CNT_drop_ip_header;
	return UROCE_CNT_drop_malformed;
}

/* The pad rules (docs/engine.md "Pad and length rules"). An InfiniBand packet is whole 4-byte
 * words: LRH.PktLen counts words (the VCRC of every native IB capture uroce checks sits at
 * PktLen x 4), and the BTH's PadCnt (IBA 9.2) is the 0..3 bytes that round the payload up to
 * them, (-payload) & 3. RoCEv2 has no LRH but carries the same transport packet, so its UDP
 * length must give whole words too; every header from the BTH to the ICRC being a multiple
 * of 4 bytes, that is payload + PadCnt being one. An opcode without payload (ACK, READ
 * request, atomic and its acknowledgement, CNP) has nothing to pad: PadCnt 0. Breaking
 * either is malformed framing, like a bad LRH.PktLen, dropped in silence (Linux rxe checks
 * neither; datenlord/blue-rdma's InputPktHandle.bsv also drops a pad with no payload).
 * FIRST and MIDDLE carry exactly the MTU, whole words, so a pad there is a wrong length
 * for the message's position: the responder's and completer's length rules, not these.
 * `err` is the dissector's result: it stops after the extended headers, them decoded, when
 * PadCnt is larger than what follows them (packet.h). */
static bool bad_pad(const struct uroce_pkt *pkt, int err)
{
	if (err < 0)
		return pkt->err_layer == UROCE_L_EXT && pkt->layers & UROCE_L_EXT;
	if (pkt->bth.padcnt && !(pkt->op->flags & UROCE_OPF_PAYLOAD))
		return true;
	return (pkt->payload_len + pkt->bth.padcnt) & 3;
}

/* The header checks of IBA 9.6 (transport header validation) that come before the QP's
 * own: RoCEv2 framing (UDP port, IP header: Annex A17 CA17-24 drops packets whose IP and UDP
 * fields break A17.3.1 / A17.3.2), ICRC (CA17-22), destination (A17.4.4.2), TVer, P_Key,
 * the special QPs, QP, transport. The UDP checksum is never looked at: A17.3.2.4 says
 * senders should leave it 0, and CA17-22 (d) masks it out of the ICRC. */
static enum uroce_counter validate(struct uroce_dev *dev, const struct uroce_io_pkt *io,
				   struct uroce_pkt *pkt, struct uroce_qp **qpp,
				   const struct mcast_group **groupp)
{
	const uint32_t need = UROCE_L_BTH | UROCE_L_EXT | UROCE_L_ICRC;
	const struct mcast_group *group = NULL;
	struct uroce_io_addr dst;
	struct uroce_qp *qp;
	int err;

	if (io->flags & UROCE_IO_PKT_TRUNC)
		return UROCE_CNT_drop_trunc;
	err = uroce_pkt_dissect(pkt, UROCE_LINK_IP, io->data, io->len);
	if (err < 0 && !bad_pad(pkt, err))
		return UROCE_CNT_drop_malformed;
	if (pkt->encap != UROCE_ENCAP_ROCEV2)
		return not_rocev2(pkt);
	/* With the other framing checks, before the ICRC, as rxe checks its lengths. */
	if (bad_pad(pkt, err))
		return UROCE_CNT_drop_bad_pad;
	if ((pkt->layers & need) != need)
		return UROCE_CNT_drop_malformed;
	/* RoCEv2 peers send a 20-byte IPv4 header and no IPv6 extension headers (facts.md
	 * section 1), and the UD network-header area has room for nothing else. */
	if ((pkt->layers & UROCE_L_IPV4 && pkt->ip4.has_options) ||
	    (pkt->layers & UROCE_L_IPV6 && pkt->ip6.has_ext))
		return UROCE_CNT_drop_icrc_unchecked;
	/* The IPv4 header checksum (RFC 791), which the ICRC does not cover (it masks the field
	 * so that routers may change the TTL). */
	if (pkt->layers & UROCE_L_IPV4 && uroce_ipv4_checksum(pkt->frame + pkt->l3_off, 20))
		return UROCE_CNT_drop_ip_header;
	switch (io->flags & UROCE_IO_PKT_ICRC_OK ? UROCE_CRC_OK : uroce_pkt_icrc_check(pkt, NULL)) {
	case UROCE_CRC_OK:
		break;
	case UROCE_CRC_BAD:
		return UROCE_CNT_drop_bad_icrc;
	default:
		return UROCE_CNT_drop_icrc_unchecked;
	}
	/* One of the device's GIDs, or a multicast group a QP of the device is attached to
	 * (the datagrams of a group reach the device once it joined it on its network). */
	dst = pkt_dst(pkt);
	if (!is_local(dev, &dst) && !(group = mcast_find(dev, &dst)))
		return UROCE_CNT_drop_not_local;
	if (pkt->bth.tver != 0)
		return UROCE_CNT_drop_bad_tver;
	/* The default partition, full or limited membership (IBA 10.9.3). */
	if ((pkt->bth.pkey & 0x7FFF) != 0x7FFF)
		return UROCE_CNT_drop_bad_pkey;
	/* Annex A17 CA17-33: RoCEv2 has no subnet management, so nothing goes to QP0. */
	if (pkt->bth.destqp == 0)
		return UROCE_CNT_drop_qp0;
	/* A multicast packet carries the multicast QPN 0xFFFFFF, and only a multicast packet
	 * does (Linux rxe fans out a packet to QPN 0xFFFFFF to the group of its destination
	 * address, and finds no group for a unicast one). The group's QPs are UD QPs, so only
	 * the UD opcodes go on; each QP's own checks come with its copy (mcast_rx). */
	if ((group != NULL) != (pkt->bth.destqp == MCAST_QPN))
		return UROCE_CNT_drop_mcast_qpn;
	if (group) {
		*groupp = group;
		if (uroce_opcode_transport(pkt->bth.opcode) != UROCE_TP_UD)
			return UROCE_CNT_drop_wrong_transport;
		return UROCE_NCOUNTERS;
	}
	/* QP1, the GSI, takes only datagrams with the well-known GSI Q_Key (IBA 13.5.1.1; rxe's
	 * check_keys expects GSI_QKEY for QPN 1 whatever the QP's own). Its P_Key may be any of
	 * the port's table (rxe looks the whole table up for QPN 1), which here is the one
	 * default partition checked above, index 0. Counted before the QP is looked up, so
	 * that a wrong key is named as such also when the device has no GSI QP. */
	if (pkt->bth.destqp == GSI_QPN &&
	    (!(pkt->ext.present & UROCE_EH_DETH) || pkt->ext.deth.qkey != UROCE_GSI_QKEY))
		return UROCE_CNT_drop_gsi_qkey;
	if (!(qp = qp_lookup(dev, pkt->bth.destqp)))
		return UROCE_CNT_drop_unknown_qp;
	*qpp = qp;
	/* A CNP (Annex A17.9.3) names the QP whose packets were marked, of any transport; a
	 * connected QP takes it from its peer only, as everything else. */
	if (uroce_opcode_transport(pkt->bth.opcode) == UROCE_TP_CNP)
		return !type_is_datagram(qp->type) && !from_peer(qp, pkt) ? UROCE_CNT_drop_wrong_src
									  : UROCE_NCOUNTERS;
	if (!transport_matches(qp->type, pkt->bth.opcode))
		return UROCE_CNT_drop_wrong_transport;
	if (!qp_can_receive(qp))
		return UROCE_CNT_drop_qp_state;
	if (!type_is_datagram(qp->type) && !from_peer(qp, pkt))
		return UROCE_CNT_drop_wrong_src;
	return UROCE_NCOUNTERS;
}

/* Hands an accepted packet to its QP's responder (requests) or completer (responses). */
static void qp_rx(struct uroce_qp *qp, const struct uroce_pkt *pkt, uint64_t now)
{
	/* IBA 11.6.3.1: the first packet a QP receives in RTR establishes communication. */
	if (qp_state(qp) == UROCE_QPS_RTR && !qp->comm_est) {
		qp->comm_est = true;
		dev_event(qp->dev, UROCE_EVENT_COMM_EST, qp);
	}
	if (pkt->op->flags & UROCE_OPF_REQ)
		resp_rx(qp, pkt, now);
	else
		comp_rx(qp, pkt, now);
}

/* A datagram to a multicast group: every QP attached to the group gets a copy, in attach
 * order, that its state and (in the UD responder) its Q_Key accept, as Linux rxe's
 * rxe_rcv_mcast_pkt does; a copy one QP refuses is counted on that QP and does not keep the
 * others from theirs. The device counts the datagram once in rcvd_pkts, each QP its copy. */
static void mcast_rx(struct uroce_dev *dev, const struct mcast_group *group,
		     const struct uroce_pkt *pkt, uint64_t now)
{
	eng_count(dev, NULL, UROCE_CNT_rcvd_pkts);
	for (uint32_t i = 0; i < group->nqps; i++) {
		struct uroce_qp *qp = group->qps[i];

		if (!qp_can_receive(qp)) {
			eng_count(dev, qp, UROCE_CNT_drop_qp_state);
			continue;
		}
		qp->cnt.rcvd_pkts++;
		qp_rx(qp, pkt, now);
	}
}

void uroce_dev_recv(struct uroce_dev *dev, const struct uroce_io_pkt *io, uint64_t now)
{
	const struct mcast_group *group = NULL;
	struct uroce_qp *qp = NULL;
	struct uroce_pkt pkt;
	enum uroce_counter drop = validate(dev, io, &pkt, &qp, &group);

	if (drop != UROCE_NCOUNTERS) {
		eng_count(dev, qp, drop);
		return;
	}
	if (group) {
		mcast_rx(dev, group, &pkt, now);
		return;
	}
	eng_count(dev, qp, UROCE_CNT_rcvd_pkts);
	if (uroce_opcode_transport(pkt.bth.opcode) == UROCE_TP_CNP) {
		cc_cnp_rcvd(qp, now);
		return;
	}
	cc_np_marked(qp, &pkt, now);
	qp_rx(qp, &pkt, now);
}
