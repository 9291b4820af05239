/* SPDX-License-Identifier: MIT */
/* The bridge from uroce's libibverbs.so.1 to uroce's librdmacm.so.1: how the connection
 * manager, which lives in librdmacm (src/rdmacm, with the CM of src/cm), reaches the port's
 * QP1 and its progress thread, which live in libibverbs (src/verbs).
 *
 * On Linux, librdmacm talks to the kernel's rdma_cm through /dev/infiniband/rdma_cm, and the
 * kernel's CM owns QP1. Here the port (src/verbs/port.c, gsi.c) owns QP1 and runs one "MAD
 * service" in its progress loop: the service's callbacks run in the port's round, under the
 * port lock, like the engine's own work. The bridge adds no exported symbol to
 * libibverbs.so.1 (whose exports are exactly Debian's): it is found through the device, in the
 * pointer that follows rdma-core's provider-ops slot (struct uv_device_head below), and
 * checked by its magic, version and size, so that uroce's librdmacm refuses any other
 * libibverbs cleanly.
 *
 * Locks: the port lock comes first. The service's callbacks run with it held and may take
 * the service's own locks; a thread that holds a service lock must never take the port lock.
 * Callbacks must not call verbs (ibv_*), which take the port lock themselves. */
#ifndef UROCE_VERBS_BRIDGE_H
#define UROCE_VERBS_BRIDGE_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cm/cm.h" /* struct uroce_cm_mad: one MAD to or from QP1, with its addresses */

#define UV_BRIDGE_MAGIC 0x45474449524255ull /* "UBRIDGE" */
#define UV_BRIDGE_VERSION 2

/* What a MAD service gives the port. All four run in the port's round with the port lock
 * held; now is the port's clock (CLOCK_MONOTONIC nanoseconds). */
struct uv_mad_service {
	void *arg;
	/* A MAD that QP1 received (a UD SEND with the GSI Q_Key, 256 bytes after the DETH). */
	void (*recv)(void *arg, const struct uroce_cm_mad *mad, uint64_t now);
	/* Called every round once now has reached next_deadline's answer. */
	void (*on_timer)(void *arg, uint64_t now);
	/* The next MAD to send from QP1: 1 and *out filled, 0 when none. The port sends it
	 * from QP1 of out->local to QP1 of out->peer, Q_Key 0x80010000, P_Key 0xFFFF, with the
	 * traffic class, hop limit and flow label given. */
	int (*next_mad)(void *arg, struct uroce_cm_mad *out);
	/* The earliest time on_timer must run (UROCE_CM_NEVER: none). */
	uint64_t (*next_deadline)(void *arg);
};

struct uv_bridge_port; /* the port, as the service sees it */

/* What the port's QP1 counts (uv_bridge.counters). Bad MADs are the service's to count (the
 * CM's drop_* counters); a MAD to QP1 while no service is attached finds no QP1 and is the
 * engine's drop_unknown_qp. */
#define UV_MAD_COUNTERS(X)                                                                      \
	X(mads_rx, "MADs QP1 received and handed to the service")                               \
	X(mads_tx, "MADs of the service QP1 sent")                                              \
	X(mads_rx_not_mad, "receives of QP1 not 256 bytes long (too long ones complete in error)") \
	X(mads_tx_dropped, "MADs of the service not sent: no such local address, or no memory")  \
	X(mads_no_buffer, "MADs to QP1 dropped: no receive buffer posted (drop_no_recv_wqe)")

struct uv_mad_counters {
#define UV_MAD_COUNTER_FIELD(name, desc) uint64_t name;
	UV_MAD_COUNTERS(UV_MAD_COUNTER_FIELD)
#undef UV_MAD_COUNTER_FIELD
};

struct uv_bridge {
	uint64_t magic;   /* UV_BRIDGE_MAGIC */
	uint32_t version; /* UV_BRIDGE_VERSION */
	uint32_t size;    /* sizeof(struct uv_bridge) */
	/* Starts the port of ctx's device if it is not running (binds its addresses, creates
	 * QP1) and makes svc its MAD service. One service per port: EBUSY when another is
	 * attached; errno-style positive codes (the bind failures of a QP's first use). */
	int (*attach)(struct ibv_context *ctx, const struct uv_mad_service *svc,
		      struct uv_bridge_port **out);
	/* No more callbacks after it returns (it waits for a round in progress). */
	void (*detach)(struct uv_bridge_port *port);
	/* The port lock, for an application thread that calls into the service's state
	 * (the CM is not thread-safe: the port's round and these calls take turns). */
	void (*lock)(struct uv_bridge_port *port);
	/* Unlocks, and has the port run a round soon: MADs queued meanwhile are sent and
	 * next_deadline is asked again. */
	void (*unlock_kick)(struct uv_bridge_port *port);
	uint64_t (*now)(struct uv_bridge_port *port);
	/* QP1's counters since the port's first attach (takes the port lock). */
	void (*counters)(struct uv_bridge_port *port, struct uv_mad_counters *out);
	/* The process's slot among the user's processes that share the device's addresses
	 * (docs/multiprocess.md), the top byte of the CM's comm IDs; 0: not shared. */
	unsigned (*slot)(struct ibv_context *ctx);
	/* With the port lock held: REQs and SIDR REQs for Service ID sid reach this process
	 * (on true) or no longer. 0, EADDRINUSE (another process listens on it at one of the
	 * addresses) or ENOMEM. */
	int (*listen)(struct uv_bridge_port *port, uint64_t sid, bool on);
};

/* The start of every uroce ibv_device (src/verbs/priv.h struct uv_device begins so; checked
 * there with static assertions). */
struct uv_device_head {
	struct ibv_device ibv;
	const void *verbs_ops;          /* NULL (see struct uv_device) */
	const struct uv_bridge *bridge; /* uroce's bridge */
};

/* The bridge of a device, or NULL when it is not a uroce device of this version. */
static inline const struct uv_bridge *uv_bridge_of(struct ibv_device *dev)
{
	const struct uv_bridge *b;

	if (!dev || dev->node_type != IBV_NODE_CA || dev->transport_type != IBV_TRANSPORT_IB)
		return NULL;
	if (((const struct uv_device_head *)dev)->verbs_ops)
		return NULL; /* an rdma-core provider's device */
	b = ((const struct uv_device_head *)dev)->bridge;
	if (!b || b->magic != UV_BRIDGE_MAGIC || b->version != UV_BRIDGE_VERSION ||
	    b->size < sizeof(*b))
		return NULL;
	return b;
}

#endif
