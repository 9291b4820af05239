/* SPDX-License-Identifier: MIT */
/* Writes the fuzz seed corpora from the real captures: one file per distinct kind of packet
 * (encapsulation, IP version, opcode, ACK/NAK type, management QP, ECN mark), the shortest
 * instance of each kind, so that the seeds stay small and every decoder path the captures
 * exercise has a seed. Run through fuzz/make-corpus.sh:
 *
 *   fuzz_make_corpus CAPTURES_DIR CORPUS_DIR
 *
 * Targets and what their seeds hold:
 *   rocev2_frame  Ethernet frames from the pcap files (RoCEv2 and the odd ARP frame)
 *   rocev1_frame  GRH + transport + ICRC: the GRH packets of the native capture as they are
 *                 (RoCE v1 uses the LNH 3 ICRC rule), and RoCEv2 packets converted (IPv4 or
 *                 IPv6 header turned into a GRH, ICRC recomputed)
 *   ib_packet     native IB packets, LRH through VCRC
 *   erf           raw ERF records from .erf files, plus one run of several records
 *   mad           the payloads of QP0/QP1 packets (MADs) and of IPoIB packets
 *   dump          runs of consecutive frames of each pcap capture, in fuzz_dump.c's record
 *                 format, frames cut at DUMP_SNAP bytes
 * Files named synth-* are built here for kinds no capture holds (VLAN tags, IP options, rare
 * opcodes, raw native packets, other ERF types). */
#include <dirent.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/error.h"
#include "wire/build.h"
#include "wire/bytes.h"
#include "wire/crc.h"
#include "wire/erf.h"
#include "wire/icrc.h"
#include "wire/packet.h"

#define MAX_SEEDS 64     /* per target: a few dozen at most */
#define MAX_KEY 96
#define ERF_RUN_RECORDS 6 /* records in the multi-record seed */
#define GRH_NXTHDR_IBA 0x1B
#define DUMP_RUN 6        /* frames per fuzz_dump seed */
#define DUMP_SNAP 300     /* bytes kept of each of them; the rest counts as snapped */
#define DUMP_REC_HDR 5
#define DUMP_MAX_FRAMES 4096

struct seed {
	char key[MAX_KEY];
	uint8_t *data;
	size_t len;
};

struct target {
	const char *name;
	struct seed seeds[MAX_SEEDS];
	size_t n;
	size_t dropped; /* kinds past MAX_SEEDS */
};

enum { T_ROCEV2, T_ROCEV1, T_IB, T_ERF, T_MAD, T_DUMP, T_COUNT };

static struct target targets[T_COUNT] = {
	[T_ROCEV2] = {.name = "rocev2_frame"},
	[T_ROCEV1] = {.name = "rocev1_frame"},
	[T_IB] = {.name = "ib_packet"},
	[T_ERF] = {.name = "erf"},
	[T_MAD] = {.name = "mad"},
	[T_DUMP] = {.name = "dump"},
};

/* Prefixes the keys of the seeds built here rather than taken from a capture. */
static const char *key_prefix = "";

/* Keeps the shortest input per key. */
static void add_seed(struct target *t, const char *key, const uint8_t *data, size_t len)
{
	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(t->seeds[i].key, key))
			continue;
		if (len < t->seeds[i].len) {
			uint8_t *d = realloc(t->seeds[i].data, len ? len : 1);
			if (!d)
				abort();
			memcpy(d, data, len);
			t->seeds[i].data = d;
			t->seeds[i].len = len;
		}
		return;
	}
	if (t->n == MAX_SEEDS) {
		t->dropped++;
		return;
	}
	struct seed *s = &t->seeds[t->n++];
	snprintf(s->key, sizeof(s->key), "%s", key);
	s->data = malloc(len ? len : 1);
	if (!s->data)
		abort();
	memcpy(s->data, data, len);
	s->len = len;
}

/* "rc_send_first", from the opcode table's "RC_SEND_FIRST". */
static void lower_name(char *out, size_t cap, const char *name)
{
	size_t i = 0;
	for (; name[i] && i + 1 < cap; i++)
		out[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
	out[i] = 0;
}

/* The kind of a dissected packet, used as the seed's file name. */
static void kind_key(const struct uroce_pkt *pkt, char *key, size_t cap)
{
	char op[48] = "noop", ack[16] = "", where[24];

	switch (pkt->encap) {
	case UROCE_ENCAP_ROCEV2:
		snprintf(where, sizeof(where), "v2-%s%s", pkt->layers & UROCE_L_IPV4 ? "ipv4" : "ipv6",
			 pkt->layers & UROCE_L_VLAN ? "-vlan" : "");
		break;
	case UROCE_ENCAP_ROCEV1:
		snprintf(where, sizeof(where), "v1");
		break;
	case UROCE_ENCAP_IB:
		snprintf(where, sizeof(where), "ib-lnh%u", pkt->lrh.lnh);
		break;
	default:
		snprintf(key, cap, "%sother-%04x", key_prefix, pkt->eth.ethertype);
		return;
	}
	if (pkt->op && pkt->op->name)
		lower_name(op, sizeof(op), pkt->op->name);
	if (pkt->layers & UROCE_L_RAW)
		snprintf(op, sizeof(op), "raw-%04x", pkt->raw_ethertype);
	if ((pkt->layers & UROCE_L_EXT) && (pkt->ext.present & UROCE_EH_AETH)) {
		uint8_t syn = pkt->ext.aeth.syndrome;
		switch (uroce_aeth_type(syn)) {
		case UROCE_AETH_ACK:
			break;
		case UROCE_AETH_RNR_NAK:
			snprintf(ack, sizeof(ack), "-rnr");
			break;
		default:
			snprintf(ack, sizeof(ack), "-nak%u", uroce_aeth_value(syn));
			break;
		}
	}
	bool ce = (pkt->layers & UROCE_L_IPV4) ? (pkt->ip4.tos & 3) == 3
		  : (pkt->layers & UROCE_L_IPV6) ? (pkt->ip6.tclass & 3) == 3 : false;
	/* What the payload carries: a MAD (class, method, attribute), or IPoIB (EtherType). */
	char what[40] = "";
	const uint8_t *pl = pkt->frame + pkt->payload_off;
	if ((pkt->layers & UROCE_L_ICRC) && pkt->bth.destqp <= 1 && pkt->payload_len >= 24)
		snprintf(what, sizeof(what), "-mad%02x-%02x-%04x", pl[1], pl[3], get_be16(pl + 16));
	else if ((pkt->layers & UROCE_L_BTH) && pkt->bth.destqp <= 1)
		snprintf(what, sizeof(what), "-qp01");
	else if ((pkt->layers & UROCE_L_ICRC) && pkt->encap == UROCE_ENCAP_IB &&
		 pkt->op->kind == UROCE_OPK_SEND && pkt->payload_len >= 4)
		snprintf(what, sizeof(what), "-ipoib%04x", get_be16(pl));
	snprintf(key, cap, "%s%s-%s%s%s%s", key_prefix, where, op, ack, what, ce ? "-ce" : "");
}

/* RoCEv2 -> RoCE v1: the IP header becomes a GRH (an IPv4 address as an IPv4-mapped GID,
 * the TOS as traffic class, the TTL as hop limit), the UDP header goes, the transport stays,
 * and the ICRC is recomputed with the RoCE v1 rule. */
static void add_as_rocev1(const struct uroce_pkt *pkt, const char *key)
{
	size_t body = pkt->icrc_off - pkt->bth_off;
	size_t len = UROCE_GRH_LEN + body + UROCE_ICRC_LEN;
	uint8_t *buf = calloc(1, len);
	struct uroce_grh grh = {.ipver = 6, .nxthdr = GRH_NXTHDR_IBA,
				.paylen = (uint16_t)(body + UROCE_ICRC_LEN)};
	uint32_t crc;

	if (!buf)
		abort();
	if (pkt->layers & UROCE_L_IPV4) {
		grh.tclass = pkt->ip4.tos;
		grh.hoplmt = pkt->ip4.ttl;
		grh.sgid[10] = grh.sgid[11] = grh.dgid[10] = grh.dgid[11] = 0xFF;
		memcpy(grh.sgid + 12, pkt->ip4.src, 4);
		memcpy(grh.dgid + 12, pkt->ip4.dst, 4);
	} else {
		grh.tclass = pkt->ip6.tclass;
		grh.flowlabel = pkt->ip6.flowlabel;
		grh.hoplmt = pkt->ip6.hoplimit;
		memcpy(grh.sgid, pkt->ip6.src, 16);
		memcpy(grh.dgid, pkt->ip6.dst, 16);
	}
	uroce_grh_encode(&grh, buf, UROCE_GRH_LEN);
	memcpy(buf + UROCE_GRH_LEN, pkt->frame + pkt->bth_off, body);
	if (uroce_icrc(UROCE_ICRC_ROCEV1, buf, UROCE_GRH_LEN, UROCE_GRH_LEN + body, &crc) == 0) {
		put_le32(buf + UROCE_GRH_LEN + body, crc);
		char k[MAX_KEY];
		snprintf(k, sizeof(k), "from-%s", key);
		add_seed(&targets[T_ROCEV1], k, buf, len);
	}
	free(buf);
}

/* One frame of any capture: which targets it seeds. */
static void take_frame(enum uroce_link link, const uint8_t *data, size_t len)
{
	struct uroce_pkt pkt;
	char key[MAX_KEY];

	uroce_pkt_dissect(&pkt, link, data, len);
	kind_key(&pkt, key, sizeof(key));
	if (pkt.err) {
		/* Real captures should dissect cleanly; a snapped frame is still a fine seed. */
		char k[MAX_KEY + 16];
		snprintf(k, sizeof(k), "%s-%s", key, pkt.err == UROCE_ETRUNC ? "snapped" : "error");
		snprintf(key, sizeof(key), "%s", k);
	}
	if (link == UROCE_LINK_ETHERNET)
		add_seed(&targets[T_ROCEV2], key, data, len);
	if (link == UROCE_LINK_IB)
		add_seed(&targets[T_IB], key, data, len);
	if (pkt.err || !(pkt.layers & UROCE_L_ICRC))
		return;
	if (uroce_pkt_icrc_check(&pkt, NULL) != UROCE_CRC_OK)
		return;

	if (pkt.encap == UROCE_ENCAP_ROCEV2)
		add_as_rocev1(&pkt, key);
	if (pkt.encap == UROCE_ENCAP_IB && pkt.lrh.lnh == UROCE_LNH_IBA_GLOBAL) {
		size_t body = pkt.icrc_off + UROCE_ICRC_LEN - UROCE_LRH_LEN;
		add_seed(&targets[T_ROCEV1], key, data + UROCE_LRH_LEN, body);
		/* The same as an Ethernet frame, so that the Ethernet target starts with a
		 * seed on the EtherType 0x8915 path too. */
		uint8_t *f = malloc(UROCE_ETH_HLEN + body);
		char k[MAX_KEY];
		if (!f)
			abort();
		memset(f, 0x02, 12);
		put_be16(f + 12, UROCE_ROCEV1_ETHERTYPE);
		memcpy(f + UROCE_ETH_HLEN, data + UROCE_LRH_LEN, body);
		snprintf(k, sizeof(k), "v1-from-%s", key);
		add_seed(&targets[T_ROCEV2], k, f, UROCE_ETH_HLEN + body);
		free(f);
	}

	/* Management datagrams go to QP0 (SMI) and QP1 (GSI); IPoIB rides on SENDs to any
	 * other QP. */
	const uint8_t *payload = data + pkt.payload_off;
	if (pkt.bth.destqp <= 1 && pkt.payload_len >= 24) {
		/* MAD common header: base version, class, class version, method; attribute ID at
		 * byte 16. */
		char k[MAX_KEY];
		snprintf(k, sizeof(k), "mad-class%02x-method%02x-attr%04x%s", payload[1], payload[3],
			 get_be16(payload + 16),
			 (pkt.op->flags & UROCE_OPF_ONLY) == UROCE_OPF_ONLY ? "" : "-segment");
		add_seed(&targets[T_MAD], k, payload, pkt.payload_len);
	} else if (pkt.encap == UROCE_ENCAP_IB && pkt.op->kind == UROCE_OPK_SEND &&
		   pkt.payload_len >= 4) {
		/* IPoIB datagram mode (UD) and connected mode (RC): a 4-byte header with the
		 * EtherType first. */
		char k[MAX_KEY];
		snprintf(k, sizeof(k), "ipoib-%s-%04x",
			 uroce_transport_name(uroce_opcode_transport(pkt.bth.opcode)),
			 get_be16(payload));
		add_seed(&targets[T_MAD], k, payload, pkt.payload_len);
	}
}

/* Plausible values for every extended header the opcode carries. */
static void fill_ext(struct uroce_ext *ext, uint8_t opcode, size_t payload_len)
{
	memset(ext, 0, sizeof(*ext));
	ext->present = uroce_opcode_info(opcode)->headers;
	ext->rdeth.eecnxt = 5;
	ext->deth.qkey = 0x80010000;
	ext->deth.srcqp = 0x12;
	ext->xrceth.xrcsrq = 7;
	ext->feth.sel = 1;
	ext->feth.plt = 1;
	ext->reth.va = 0x7F0000001000ull;
	ext->reth.rkey = 0x1234;
	ext->reth.dmalen = (uint32_t)payload_len;
	ext->atomiceth.va = 0x7F0000002000ull;
	ext->atomiceth.rkey = 0x1234;
	ext->atomiceth.swap = 0x1122334455667788ull;
	ext->atomiceth.cmp = 1;
	ext->aeth.syndrome = UROCE_AETH_CREDIT_INVALID;
	ext->aeth.msn = 1;
	ext->atomicacketh.orig = 0x42;
	ext->immdt = 0xC0FFEE;
	ext->ieth = 0x1234;
}

/* A RoCEv2 Ethernet frame with `vlans` tags (0: none, 1: 802.1Q, 2: 802.1ad + 802.1Q). */
static size_t build_v2(uint8_t *out, size_t cap, uint8_t opcode, bool ipv6, unsigned vlans,
		       size_t payload_len)
{
	struct uroce_eth eth = {.dst = {0x02, 0, 0, 0, 0, 1}, .src = {0x02, 0, 0, 0, 0, 2}};
	struct uroce_rocev2_net net = {.ipv6 = ipv6, .tclass = 0x02 /* ECT(0) */, .hop_limit = 64,
				       .sport = 0xC123};
	struct uroce_bth bth = {.opcode = opcode, .pkey = 0xFFFF, .destqp = 0x11, .psn = 0x123456,
				.ackreq = true};
	struct uroce_ext ext;
	uint8_t payload[64];

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + 1);
	if (payload_len > sizeof(payload))
		abort();
	if (ipv6) {
		net.src[0] = net.dst[0] = 0xFD;
		net.src[15] = 1;
		net.dst[15] = 2;
		net.flowlabel = 0x12345;
	} else {
		memcpy(net.src, (const uint8_t[]){192, 168, 1, 1}, 4);
		memcpy(net.dst, (const uint8_t[]){192, 168, 1, 2}, 4);
	}
	if (vlans == 2) {
		eth.vlan[eth.n_vlans++] = (struct uroce_vlan){.tpid = UROCE_ETHERTYPE_QINQ, .vid = 100};
	}
	if (vlans >= 1) {
		eth.vlan[eth.n_vlans++] = (struct uroce_vlan){.tpid = UROCE_ETHERTYPE_VLAN, .pcp = 3,
							      .vid = 5};
	}
	fill_ext(&ext, opcode, payload_len);
	ssize_t n = uroce_rocev2_build(out, cap, &eth, &net, &bth, &ext, payload, payload_len);
	if (n < 0) {
		fprintf(stderr, "build opcode 0x%02x: %s\n", opcode, uroce_strerror((int)n));
		abort();
	}
	return (size_t)n;
}

/* Inserts `extra` bytes of IPv4 options or of IPv6 extension header after the fixed IP header
 * of an untagged frame, fixing the lengths, the IPv4 checksum and the ICRC. */
static size_t grow_ip_header(uint8_t *f, size_t len, bool ipv6)
{
	uint8_t *ip = f + UROCE_ETH_HLEN;
	size_t fixed = ipv6 ? UROCE_IPV6_HLEN : UROCE_IPV4_HLEN, extra = ipv6 ? 8 : 4;
	uint32_t crc;

	memmove(ip + fixed + extra, ip + fixed, len - UROCE_ETH_HLEN - fixed);
	if (ipv6) {
		/* Hop-by-Hop Options: next header UDP, length 0 (8 bytes), one PadN option. */
		static const uint8_t hbh[8] = {UROCE_IPPROTO_UDP, 0, 1, 4, 0, 0, 0, 0};
		memcpy(ip + fixed, hbh, sizeof(hbh));
		ip[6] = 0;
		put_be16(ip + 4, (uint16_t)(get_be16(ip + 4) + extra));
	} else {
		static const uint8_t nops[4] = {1, 1, 1, 0}; /* NOP, NOP, NOP, End of list */
		memcpy(ip + fixed, nops, sizeof(nops));
		ip[0] = 0x46;
		put_be16(ip + 2, (uint16_t)(get_be16(ip + 2) + extra));
		put_be16(ip + 10, 0);
		put_be16(ip + 10, uroce_ipv4_checksum(ip, fixed + extra));
	}
	len += extra;
	size_t icrc_at = len - UROCE_ICRC_LEN - UROCE_ETH_HLEN;
	if (uroce_icrc(ipv6 ? UROCE_ICRC_ROCEV2_IPV6 : UROCE_ICRC_ROCEV2_IPV4, ip,
		       fixed + extra + UROCE_UDP_HLEN, icrc_at, &crc) < 0)
		abort();
	put_le32(ip + icrc_at, crc);
	return len;
}

/* A native IB packet: LRH, then body[0..body_len), then the VCRC. With an IBA transport
 * (LNH 2), the body ends with room for the ICRC, which is computed here. */
static size_t build_native(uint8_t *out, uint8_t lnh, const uint8_t *body, size_t body_len)
{
	struct uroce_lrh lrh = {.vl = 0, .sl = 0, .lnh = lnh, .dlid = 0x0003, .slid = 0x0001,
				.pktlen = (uint16_t)((UROCE_LRH_LEN + body_len) / 4)};
	size_t len = UROCE_LRH_LEN + body_len;
	uint32_t crc;

	uroce_lrh_encode(&lrh, out, UROCE_LRH_LEN);
	memcpy(out + UROCE_LRH_LEN, body, body_len);
	if (lnh == UROCE_LNH_IBA_LOCAL) {
		if (uroce_icrc(UROCE_ICRC_IB_LOCAL, out, UROCE_LRH_LEN, len - UROCE_ICRC_LEN, &crc) < 0)
			abort();
		put_le32(out + len - UROCE_ICRC_LEN, crc);
	}
	put_le16(out + len, uroce_vcrc16(out, len));
	return len + UROCE_VCRC_LEN;
}

/* Kinds the captures lack: VLAN tags, IPv4 options, an IPv6 extension header, the rarer
 * transports and opcodes, raw native packets, ERF records of other types and with extension
 * headers. They come from the project's own encoders, so they only say what the code believes;
 * the captures remain the independent reference. */
static void add_synthetic(void)
{
	static const struct {
		uint8_t opcode;
		bool ipv6;
		uint8_t vlans;
		uint8_t payload;
	} v2[] = {
		{UROCE_OP_XRC_SEND_ONLY, false, 2, 12},
		{UROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE, false, 1, 9},
		{UROCE_OP_RC_FETCH_ADD, true, 0, 0},
		{UROCE_OP_RC_FLUSH, false, 0, 0},
		{UROCE_OP_RC_ATOMIC_WRITE, false, 0, UROCE_ATOMIC_WRITE_LEN},
		{UROCE_OP_RC_SEND_ONLY_WITH_INVALIDATE, false, 0, 3},
		{UROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, true, 0, 16},
		{UROCE_OP_RD_SEND_ONLY, false, 0, 5},
		{UROCE_OP_UC_SEND_FIRST, false, 0, 64},
		{UROCE_OP_RD_RDMA_READ_RESPONSE_FIRST, false, 0, 32},
	};
	uint8_t f[512];
	size_t len;

	key_prefix = "synth-";
	for (size_t i = 0; i < sizeof(v2) / sizeof(v2[0]); i++) {
		len = build_v2(f, sizeof(f), v2[i].opcode, v2[i].ipv6, v2[i].vlans, v2[i].payload);
		take_frame(UROCE_LINK_ETHERNET, f, len);
	}
	/* IPv4 options and an IPv6 Hop-by-Hop header: the ICRC covers them as they are. */
	len = build_v2(f, sizeof(f) - 8, UROCE_OP_RC_SEND_ONLY, false, 0, 20);
	len = grow_ip_header(f, len, false);
	add_seed(&targets[T_ROCEV2], "synth-v2-ipv4-options-rc_send_only", f, len);
	len = build_v2(f, sizeof(f) - 8, UROCE_OP_RC_SEND_ONLY, true, 0, 20);
	len = grow_ip_header(f, len, true);
	add_seed(&targets[T_ROCEV2], "synth-v2-ipv6-hopbyhop-rc_send_only", f, len);

	/* Native: LNH 0 (RWH + raw IPv4), LNH 1 (raw IPv6), LNH 2 RDMA WRITE ONLY. */
	uint8_t body[128] = {0};
	put_be16(body + 2, UROCE_ETHERTYPE_IPV4);
	body[4] = 0x45;
	len = build_native(f, UROCE_LNH_RAW, body, 4 + 20);
	add_seed(&targets[T_IB], "synth-ib-lnh0-raw-0800", f, len);
	memset(body, 0, sizeof(body));
	body[0] = 0x60;
	len = build_native(f, UROCE_LNH_IP_NONIBA, body, 40 + 8);
	add_seed(&targets[T_IB], "synth-ib-lnh1-raw-86dd", f, len);
	{
		struct uroce_bth bth = {.opcode = UROCE_OP_RC_RDMA_WRITE_ONLY, .pkey = 0xFFFF,
					.destqp = 0x48, .psn = 7, .ackreq = true};
		struct uroce_ext ext;
		fill_ext(&ext, bth.opcode, 8);
		size_t off = (size_t)uroce_bth_encode(&bth, body, sizeof(body));
		off += (size_t)uroce_ext_encode(&ext, body + off, sizeof(body) - off);
		memset(body + off, 0xAB, 8);
		off += 8 + UROCE_ICRC_LEN;
		len = build_native(f, UROCE_LNH_IBA_LOCAL, body, off);
		add_seed(&targets[T_IB], "synth-ib-lnh2-rc_rdma_write_only", f, len);
	}

	/* ERF: an Ethernet record (type 2) holding a RoCEv2 frame, the same with one extension
	 * header, and a record of a type the decoder leaves alone. */
	uint8_t rec[600];
	struct uroce_erf erf = {.ts = 0x4A2F6D5812345678ull, .type = UROCE_ERF_TYPE_ETH,
				.flags = UROCE_ERF_FLAG_VLEN};
	len = build_v2(f, sizeof(f), UROCE_OP_RC_RDMA_WRITE_FIRST, false, 0, 64);
	erf.wlen = (uint16_t)(len + 4); /* + the Ethernet FCS the card saw */
	ssize_t n = uroce_erf_encode(&erf, f, len, rec, sizeof(rec));
	if (n < 0)
		abort();
	add_seed(&targets[T_ERF], "synth-type2-eth-rocev2", rec, (size_t)n);
	/* One extension header (type 1 bit 7 clear: the last one) after the fixed header. */
	memmove(rec + UROCE_ERF_HDR_LEN + UROCE_ERF_EXT_LEN, rec + UROCE_ERF_HDR_LEN,
		(size_t)n - UROCE_ERF_HDR_LEN);
	memset(rec + UROCE_ERF_HDR_LEN, 0, UROCE_ERF_EXT_LEN);
	rec[UROCE_ERF_HDR_LEN] = 0x01;
	rec[8] |= UROCE_ERF_TYPE_EXT;
	put_be16(rec + 10, (uint16_t)(n + UROCE_ERF_EXT_LEN));
	add_seed(&targets[T_ERF], "synth-type2-ext-rocev2", rec, (size_t)n + UROCE_ERF_EXT_LEN);
	memset(rec, 0, 32);
	rec[8] = 1; /* HDLC/PoS: not decoded */
	put_be16(rec + 10, 32);
	put_be16(rec + 14, 16);
	add_seed(&targets[T_ERF], "synth-type1-unsupported", rec, 32);
	key_prefix = "";
}

/* The frames of the capture being read, for the fuzz_dump seeds. */
struct kept_frame {
	uint8_t link;     /* fuzz_dump's link code */
	uint8_t data[DUMP_SNAP];
	uint16_t caplen;
	uint32_t wirelen;
	uint64_t ts_us;
	bool nak;         /* an AETH NAK or RNR NAK: a window around it shows a recovery */
};

static struct kept_frame kept[DUMP_MAX_FRAMES];
static size_t n_kept;

static void keep_frame(enum uroce_link link, const uint8_t *data, size_t len, uint64_t ts_us)
{
	struct kept_frame *k;
	struct uroce_pkt pkt;

	if (n_kept == DUMP_MAX_FRAMES)
		return;
	k = &kept[n_kept++];
	k->link = link == UROCE_LINK_IB ? 1 : link == UROCE_LINK_IP ? 2 : 0;
	k->caplen = (uint16_t)(len < DUMP_SNAP ? len : DUMP_SNAP);
	k->wirelen = (uint32_t)len;
	memcpy(k->data, data, k->caplen);
	k->ts_us = ts_us;
	uroce_pkt_dissect(&pkt, link, data, len);
	k->nak = (pkt.layers & UROCE_L_EXT) && (pkt.ext.present & UROCE_EH_AETH) &&
		 uroce_aeth_type(pkt.ext.aeth.syndrome) != UROCE_AETH_ACK;
}

/* Seeds for fuzz_dump from one capture: runs of DUMP_RUN frames from its start, its middle
 * and just before its first NAK. */
static void dump_seeds(const char *capture)
{
	size_t starts[3] = {0, n_kept / 2, SIZE_MAX}, len;
	uint8_t buf[DUMP_RUN * (DUMP_REC_HDR + DUMP_SNAP)];
	char base[64], key[MAX_KEY];
	const char *slash = strrchr(capture, '/');

	snprintf(base, sizeof(base), "%s", slash ? slash + 1 : capture);
	if (strchr(base, '.'))
		*strchr(base, '.') = 0;
	for (size_t i = 0; i < n_kept; i++) {
		if (kept[i].nak) {
			starts[2] = i > 2 ? i - 2 : 0;
			break;
		}
	}
	for (size_t w = 0; w < 3; w++) {
		size_t s = starts[w];
		if (s == SIZE_MAX || s >= n_kept || (w && s == starts[0]) || (w == 2 && s == starts[1]))
			continue;
		len = 0;
		for (size_t i = s; i < s + DUMP_RUN && i < n_kept; i++) {
			const struct kept_frame *k = &kept[i];
			uint64_t dt = i > s && k->ts_us > kept[i - 1].ts_us ? k->ts_us - kept[i - 1].ts_us : 0;
			buf[len] = (uint8_t)(k->link | (dt > 31 ? 31 : dt) << 3);
			put_be16(buf + len + 1, k->caplen);
			put_be16(buf + len + 3, (uint16_t)(k->wirelen - k->caplen));
			memcpy(buf + len + DUMP_REC_HDR, k->data, k->caplen);
			len += DUMP_REC_HDR + k->caplen;
		}
		snprintf(key, sizeof(key), "%s-%s", base, w == 0 ? "start" : w == 1 ? "middle" : "nak");
		add_seed(&targets[T_DUMP], key, buf, len);
	}
	n_kept = 0;
}

static int read_pcap(const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, errbuf);
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc;

	if (!pc) {
		fprintf(stderr, "%s: %s\n", path, errbuf);
		return -1;
	}
	int dlt = pcap_datalink(pc);
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		uint64_t ts_us = (uint64_t)h->ts.tv_sec * 1000000u + (uint64_t)h->ts.tv_usec;
		if (dlt == DLT_EN10MB) {
			take_frame(UROCE_LINK_ETHERNET, data, h->caplen);
			keep_frame(UROCE_LINK_ETHERNET, data, h->caplen, ts_us);
		} else if (dlt == DLT_ERF) {
			struct uroce_erf rec;
			if (uroce_erf_decode_snap(&rec, data, h->caplen) < 0)
				continue;
			enum uroce_link link = rec.link == UROCE_ERF_LINK_IB ? UROCE_LINK_IB
					       : UROCE_LINK_ETHERNET;
			if (rec.link == UROCE_ERF_LINK_UNSUPPORTED)
				continue;
			take_frame(link, data + rec.payload_off, rec.payload_len);
			keep_frame(link, data + rec.payload_off, rec.payload_len, ts_us);
		}
	}
	pcap_close(pc);
	dump_seeds(path);
	return 0;
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			uint8_t *b = realloc(buf, cap);
			if (!b)
				abort();
			buf = b;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		if (!got)
			break;
		n += got;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* A raw ERF file: records back to back. */
static int read_erf(const char *path)
{
	size_t len, off = 0, idx = 0;
	uint8_t *buf = read_file(path, &len);
	ssize_t n;

	if (!buf) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	for (; off < len; off += (size_t)n, idx++) {
		struct uroce_erf rec;
		struct uroce_pkt pkt;
		char key[MAX_KEY];

		if ((n = uroce_erf_decode(&rec, buf + off, len - off)) < 0)
			break;
		if (rec.link == UROCE_ERF_LINK_IB) {
			uroce_pkt_dissect(&pkt, UROCE_LINK_IB, buf + off + rec.payload_off,
					  rec.payload_len);
			kind_key(&pkt, key, sizeof(key));
		} else {
			snprintf(key, sizeof(key), "type%u", rec.type);
		}
		add_seed(&targets[T_ERF], key, buf + off, (size_t)n);
		if (idx + 1 == ERF_RUN_RECORDS)
			add_seed(&targets[T_ERF], "run-of-records", buf, off + (size_t)n);
	}
	free(buf);
	return 0;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

static int write_target(const char *dir, const struct target *t)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, t->name);
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		perror(path);
		return -1;
	}
	for (size_t i = 0; i < t->n; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", dir, t->name, t->seeds[i].key);
		FILE *f = fopen(path, "wb");
		if (!f || fwrite(t->seeds[i].data, 1, t->seeds[i].len, f) != t->seeds[i].len ||
		    fclose(f)) {
			perror(path);
			return -1;
		}
	}
	printf("%-14s %3zu seeds", t->name, t->n);
	if (t->dropped)
		printf(" (%zu more kinds dropped: raise MAX_SEEDS?)", t->dropped);
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct dirent **names;
	int n, err = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s CAPTURES_DIR CORPUS_DIR\n", argv[0]);
		return 2;
	}
	/* Sorted, so that the same captures always give the same seeds. */
	n = scandir(argv[1], &names, NULL, alphasort);
	if (n < 0) {
		perror(argv[1]);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", argv[1], names[i]->d_name);
		if (has_suffix(path, ".pcap") || has_suffix(path, ".pcapng"))
			err |= read_pcap(path);
		else if (has_suffix(path, ".erf"))
			err |= read_erf(path);
		free(names[i]);
	}
	free(names);
	add_synthetic();
	for (int t = 0; t < T_COUNT; t++)
		err |= write_target(argv[2], &targets[t]);
	return err ? 1 : 0;
}
