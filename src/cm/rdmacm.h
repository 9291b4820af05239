/* SPDX-License-Identifier: MIT */
/* The rdma_cm conventions on the wire, as Linux's drivers/infiniband/core/cma.c writes them
 * for RoCE (checked against the rxe captures rxe-rdmacm-send.pcap and rxe-cm-write-read.pcap;
 * docs/cm.md "rdma_cm on the wire"). They belong to the librdmacm layer, which plays cma.c
 * on top of this CM; they are here so that a REQ built as that layer builds it can be
 * compared byte for byte with the kernel's (tests/cm/test_captures.c).
 *
 *  - Service ID: the port space << 16 | the port (rdma_get_service_id). The port spaces are
 *    IBTA Annex A11's prefix 0x01 and the IP protocol (wire/cm.h uroce_cm_ipcm_sid), the IB
 *    space aside.
 *  - The REQ's (and SIDR_REQ's) private data starts with a 36-byte header (struct cma_hdr:
 *    version 0, the IP version in the high nibble, the active side's port, the source and
 *    destination addresses in 16-byte slots, IPv4 in the last 4 bytes); the REP, RTU, REJ,
 *    DREQ and DREP carry the application's data alone.
 *  - The path is built locally (cma_resolve_iboe_route): P_Key 0xFFFF, packet life time 18
 *    unless an ACK timeout was set, the rate of the port, the traffic class from the ToS,
 *    and a flow label from the ports for RoCEv2 (cma_get_roce_udp_flow_label).
 *  - Every REQ waits 20 (4.096 us x 2^20, about 4.3 s) for an answer on both sides, is sent
 *    up to 16 times (15 retries), and an owner still deciding makes the CM answer duplicates
 *    with an MRA of 24 (CMA_CM_MRA_SETTING). UD peers use the Q_Key 0x01234567. */
#ifndef UROCE_CM_RDMACM_H
#define UROCE_CM_RDMACM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cm/cm.h"

/* enum rdma_ucm_port_space (include/uapi/rdma/rdma_user_cm.h). */
#define UROCE_RDMA_PS_IPOIB 0x0002
#define UROCE_RDMA_PS_IB 0x013F
#define UROCE_RDMA_PS_TCP 0x0106
#define UROCE_RDMA_PS_UDP 0x0111

#define UROCE_RDMA_UDP_QKEY 0x01234567u        /* RDMA_UDP_QKEY */
#define UROCE_RDMA_CM_RESPONSE_TIMEOUT 20      /* CMA_CM_RESPONSE_TIMEOUT */
#define UROCE_RDMA_MAX_CM_RETRIES 15           /* CMA_MAX_CM_RETRIES */
#define UROCE_RDMA_IBOE_PACKET_LIFETIME 18     /* CMA_IBOE_PACKET_LIFETIME */
#define UROCE_RDMA_MRA_SETTING (UROCE_CM_MRA_FLAG_DELAY | 24) /* CMA_CM_MRA_SETTING */
#define UROCE_RDMA_HDR_LEN 36                  /* sizeof(struct cma_hdr) */

static inline uint64_t uroce_rdma_service_id(uint16_t ps, uint16_t port)
{
	return (uint64_t)ps << 16 | port;
}
static inline uint16_t uroce_rdma_sid_ps(uint64_t sid) { return (uint16_t)(sid >> 16); }
static inline uint16_t uroce_rdma_sid_port(uint64_t sid) { return (uint16_t)sid; }

/* The flow label of a RoCEv2 path (cma_get_roce_udp_flow_label): an IPv6 source's own flow
 * label when it has one, else (source port x 31 + destination port) & 0xFFFFF. */
uint32_t uroce_rdma_flow_label(uint16_t sport, uint16_t dport, bool ipv6, uint32_t flowinfo);

/* The path of a RoCEv2 connection from src:sport to dst:dport, as cma_resolve_iboe_route
 * builds it: tos is the traffic class, hop_limit the route's (64 for most), mtu the IBA code
 * of the interface's MTU, ack_timeout the one set with rdma_set_option (0: none, then the
 * packet life time is 18), flowinfo an IPv6 source's flow label (0: none). */
void uroce_rdma_iboe_path(struct uroce_cm_path_rec *out, const struct uroce_io_addr *src,
			  uint16_t sport, const struct uroce_io_addr *dst, uint16_t dport,
			  uint8_t tos, uint8_t hop_limit, uint8_t mtu, uint8_t ack_timeout,
			  uint32_t flowinfo);

/* Writes the header and the user's data (cma_format_hdr) into out[0..cap) and zeroes the
 * rest: the private data of a REQ (cap UROCE_CM_REQ_PRIVATE_LEN) or SIDR_REQ. Returns the
 * length to send (36 + user_len), or UROCE_EINVAL when the addresses' IP versions differ or
 * the data does not fit. */
ssize_t uroce_rdma_hdr_encode(uint8_t *out, size_t cap, const struct uroce_io_addr *src,
			      uint16_t sport, const struct uroce_io_addr *dst, const void *user,
			      size_t user_len);
/* Reads the header of a REQ's or SIDR_REQ's private data: the active side's address and
 * port, and the address it asked for. UROCE_ETRUNC below 36 bytes, UROCE_EINVAL for a
 * version other than 0 or an IP version other than 4 or 6 (cma_save_ip_info refuses them
 * too). The user's data follows at UROCE_RDMA_HDR_LEN. */
int uroce_rdma_hdr_decode(const uint8_t *pdata, size_t len, struct uroce_io_addr *src,
			  uint16_t *sport, struct uroce_io_addr *dst);

#endif
