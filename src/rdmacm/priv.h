/* SPDX-License-Identifier: MIT */
/* uroce's librdmacm.so.1: the layouts its role files share (docs/rdmacm.md).
 *
 * The library plays three parts that Linux splits between the kernel and user space: the
 * IB CM (src/cm, one per device, driven from the port's progress thread through the bridge
 * of src/verbs/bridge.h), the kernel's rdma_cm (drivers/infiniband/core/cma.c: ids, port
 * spaces, the translation of CM events into rdma_cm events) and rdma-core's user-space
 * librdmacm (librdmacm/cma.c: event channels, QP state changes with ibv_modify_qp).
 *
 * Locks, in the only order they may nest:
 *   1. a device's attach_mu (around bridge->attach, and the first listener's calls into a
 *      CM that no port runs yet: cma_dev_listen; never taken by a callback);
 *   2. the port lock (bridge->lock): every other call into a device's CM, and the callbacks;
 *   3. cma_mu (the device list, the port table) - taken alone or under the port lock;
 *   4. a channel's mu (its event queue) and an id's mu (its event accounting).
 * A thread that holds 3 or 4 never takes 1 or 2; callbacks never call ibv_*. */
#ifndef UROCE_RDMACM_PRIV_H
#define UROCE_RDMACM_PRIV_H

#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <stdbool.h>
#include <stdint.h>

#include "cm/cm.h"
#include "cm/rdmacm.h"
#include "verbs/bridge.h"

#define CMA_MAX_DEVS 8
#define CMA_MAX_GIDS 64
#define CMA_PDATA_MAX UROCE_CM_RTU_PRIVATE_LEN /* the longest private data of any message */

/* enum rdma_cm_state of Linux's cma.c, as far as this library needs one. */
enum cma_state {
	CMA_IDLE,
	CMA_ADDR_BOUND,
	CMA_ADDR_RESOLVED,
	CMA_ROUTE_RESOLVED,
	CMA_LISTEN,
	CMA_CONNECT,    /* REQ or SIDR_REQ sent or received, until the connection is up */
	CMA_ESTABLISHED,
	CMA_DISCONNECT, /* the peer's DREQ came, or this side disconnected */
};

struct cma_gid {
	struct uroce_io_addr addr;
	int ifindex;
};

struct cma_dev {
	struct ibv_device *ibdev;
	struct ibv_context *verbs;
	const struct uv_bridge *bridge;
	struct ibv_pd *pd;               /* the default PD of its ids (librdmacm's too) */
	pthread_mutex_t attach_mu;
	struct uv_bridge_port *port;     /* NULL until attached */
	int attach_err;
	struct uroce_cm *cm;
	struct uv_mad_service svc;
	uint64_t guid;
	uint8_t max_init_depth, max_resp_res;
	uint8_t mtu;                     /* IBA code of the port's active MTU */
	int ngids;
	struct cma_gid gid[CMA_MAX_GIDS];
	/* At exit (device.c): the CM's queue was found empty by the port (drained) after the
	 * last ids were destroyed (kicked). Both under the port lock. */
	uint64_t kicked, drained;
};

struct cma_event;

struct cma_channel {
	struct rdma_event_channel ch;    /* first: the application's pointer */
	pthread_mutex_t mu;
	struct cma_event *head, **tail;  /* readable (eventfd 1) while not empty */
	unsigned waiters;                /* threads inside rdma_get_cm_event */
	bool dead;                       /* destroyed (freed later: channel.c, bury; never
	                                  * when some thread waited in it) */
	pthread_t destroyer;             /* the thread that destroyed it */
};

struct cma_mc {
	struct cma_mc *next;
	struct sockaddr_storage addr;
	union ibv_gid mgid;
	void *context;
	uint32_t join_flags;
	bool attached;
};

struct cma_id {
	struct rdma_cm_id id;            /* first: the application's pointer */
	struct cma_dev *dev;             /* NULL for a wildcard id that is not yet connected */
	enum cma_state state;
	struct uroce_cm_id *cm_id;       /* the connection's (or SIDR's) CM id */
	struct uroce_cm_id *listen_cm[CMA_MAX_DEVS]; /* a listener's, per device */
	pthread_mutex_t mu;              /* reported, completed */
	pthread_cond_t cond;
	unsigned reported, completed;    /* events handed out and acknowledged */
	bool sync;                       /* created without a channel: calls wait for events */
	bool port_held;                  /* its port is in the port table */
	bool reuseaddr, afonly, connect_error;
	uint8_t tos, ack_timeout;
	int backlog;
	uint8_t initiator_depth, responder_resources;
	uint32_t seq_num;                /* the PSN this side's QP expects first (cma.c seq_num) */
	int sgid_index;
	struct uroce_cm_path_rec path;
	struct ibv_sa_path_rec path_rec;
	void *connect;                   /* rdma_create_ep's ai_connect, sent with rdma_connect */
	size_t connect_len;
	struct ibv_qp_init_attr *qp_init_attr; /* a passive endpoint's, for rdma_get_request */
	struct cma_mc *mc;
	struct cma_id *parent;           /* a connection request's listener, until it is handed up */
	struct cma_id *next_all, **prev_all; /* every id of the process (cma_mu) */
};

/* What rdma_get_cm_event does with an event after taking it, in the application's thread. */
enum cma_post {
	CMA_POST_NONE,
	CMA_POST_CONN_RESP, /* REP: QP to RTR and RTS, then the RTU (ucma_process_conn_resp) */
	CMA_POST_REJECTED,  /* the QP to ERR */
	CMA_POST_JOIN,      /* attach the QP to the group */
};

struct cma_event {
	struct rdma_cm_event ev;         /* first: the application's pointer */
	struct cma_event *next;
	struct cma_id *owner;            /* whose events_reported it counts in */
	struct cma_mc *mc;
	enum cma_post post;
	uint8_t pdata[CMA_PDATA_MAX];
};

/* ---- device.c ---- */
extern pthread_mutex_t cma_mu;
/* The uroce devices (discovered once): 0, or -1 and errno (ENODEV: none). */
int cma_init(void);
int cma_ndevs(void);
struct cma_dev *cma_dev_at(int i);
/* The device with addr among its GIDs (its GID index in *index), or NULL. */
struct cma_dev *cma_dev_of_addr(const struct uroce_io_addr *addr, int *index);
/* Attaches the device's MAD service and allocates its PD, in an application thread: 0, or
 * -1 and errno. */
int cma_dev_open(struct cma_dev *dev);
/* A CM id of c listening on sid in the device's CM, the device opened first if it is not
 * (before its port takes a MAD): 0 and the id in *out, or a positive errno; *opened false
 * when the device could not be opened. */
/* With the port lock held (cma_dev_lock): the port no longer steers sid's REQs here. */
void cma_dev_unlisten(struct cma_dev *dev, uint64_t sid);
int cma_dev_listen(struct cma_dev *dev, struct cma_id *c, uint64_t sid, struct uroce_cm_id **out,
		   bool *opened);
/* The port lock, and its release with a drain of the CM's events and a kick. */
void cma_dev_lock(struct cma_dev *dev);
void cma_dev_unlock(struct cma_dev *dev);
uint64_t cma_dev_now(struct cma_dev *dev);
/* Translates every event the CM has queued (port lock held; now: the port's clock). */
void cma_dev_drain(struct cma_dev *dev, uint64_t now);

/* ---- event.c: CM events into rdma_cm events (port lock held) ---- */
void cma_handle_cm_event(struct cma_dev *dev, const struct uroce_cm_event *ev, uint64_t now);
/* RDMA_CM_EVENT_* for a CM event on an id in state st, and its status; -1: none. */
int cma_event_type(const struct uroce_cm_event *ev, enum cma_state st, int *status);
void cma_fill_ah(const struct cma_id *c, const struct uroce_cm_path_rec *p,
		 struct ibv_ah_attr *ah);

/* ---- channel.c ---- */
struct cma_event *cma_event_new(struct cma_id *owner, enum rdma_cm_event_type type, int status);
void cma_enqueue(struct cma_event *e);
/* Takes the id's events (and, for a listener, its requests) off its channel: the requests'
 * new ids are returned in *children to be destroyed. Port lock held when the id has a dev. */
void cma_unqueue(struct cma_id *c, struct cma_id **children, int *nchildren, int max);
struct cma_channel *cma_channel_of(const struct cma_id *c);
/* Takes a group's events (not yet handed out) off the id's channel. */
void cma_unqueue_mc(struct cma_id *c, const struct cma_mc *mc);
void cma_complete(struct cma_id *c);
/* For an id without a channel of its own (created with none): waits for its event. */
int cma_sync_wait(struct cma_id *c);

/* ---- id.c ---- */
struct cma_id *cma_id_alloc(struct rdma_event_channel *ch, void *context,
			    enum rdma_port_space ps, enum ibv_qp_type qpt);
void cma_id_free(struct cma_id *c);
void cma_id_set_dev(struct cma_id *c, struct cma_dev *dev, int gid_index);
void cma_id_fill_path_rec(struct cma_id *c);
int cma_bind(struct cma_id *c, const struct sockaddr *addr);
int cma_ps_ok(enum rdma_port_space ps);

/* ---- ports.c: the port spaces of this process ---- */
/* Reserves port (host order; 0: a free one, returned) of ps: 0 or -EADDRINUSE. A port held
 * with reuse set may be taken again by another id with reuse set, as Linux allows
 * (cma_check_port) when neither listens. */
int cma_port_get(uint16_t ps, uint16_t *port, bool reuse, const void *owner);
void cma_port_put(uint16_t ps, uint16_t port, const void *owner);
/* Marks the owner's port as listening (no more sharing): 0 or -EADDRINUSE. */
int cma_port_listen(uint16_t ps, uint16_t port, const void *owner);
void cma_ports_seed(uint32_t seed);

/* ---- addr.c ---- */
/* The source address the kernel's routes choose for dst, among one device's GIDs: 0, or a
 * negative errno (-ENETUNREACH: no route or no uroce address on its way). */
int cma_route_source(const struct uroce_io_addr *dst, struct uroce_io_addr *src,
		     uint8_t *hop_limit);

/* ---- conn.c ---- */
int cma_init_qp_attr(struct cma_id *c, struct ibv_qp_attr *a, int *mask);
int cma_modify_qp_err(struct cma_id *c);
int cma_process_conn_resp(struct cma_id *c);

/* ---- helpers (device.c) ---- */
void cma_addr_from_sa(struct uroce_io_addr *a, uint16_t *port, const struct sockaddr *sa);
void cma_sa_from_addr(struct sockaddr_storage *ss, const struct uroce_io_addr *a, uint16_t port);
int cma_errno(int uroce_err); /* a UROCE_E* code as a positive errno */
uint32_t cma_random(void);
int cma_ret(int err);         /* 0, or errno = err and -1 */
void cma_id_link(struct cma_id *c);
void cma_id_unlink(struct cma_id *c);

static inline struct cma_id *cma_id_of(struct rdma_cm_id *id)
{
	return (struct cma_id *)id;
}

#endif
