/* SPDX-License-Identifier: MIT */
/* The verbs layer (design.md "verbs is glue"): every ibv_* object is a struct that embeds the
 * libibverbs structure the application sees (first member, so the pointer converts both
 * ways) and holds the engine object it stands for.
 *
 * Threads: the engine is not thread-safe, so a device's engine belongs to its progress thread
 * (thread.c) and to whichever application thread holds the port lock for a moment to post
 * or create. Completion queues are the exception: the engine's CQ is a single-producer
 * single-consumer ring, so ibv_poll_cq reads it without the port lock. */
#ifndef UROCE_VERBS_PRIV_H
#define UROCE_VERBS_PRIV_H

#include <errno.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "bridge.h"
#include "engine/engine.h"
#include "io/impair.h"
#include "netif.h"

#define UV_DEV_NAME "uroce0"
#define UV_MAX_GIDS UROCE_MAX_GIDS
#define UV_BATCH 64 /* packets per recvmmsg / sendmmsg */

/* ibv_query_gid_type()'s answer (rdma-core's driver.h, enum ibv_gid_type_sysfs, which the
 * public headers do not ship). */
enum uv_gid_type_sysfs { UV_GID_TYPE_SYSFS_ROCE_V1 = 0, UV_GID_TYPE_SYSFS_ROCE_V2 = 1 };

/* The one device of a process: the host's addresses (or UROCE_IP's) as a RoCEv2 port. */
enum uv_backend {
	UV_BACKEND_UDP,
	UV_BACKEND_XDP,
	UV_BACKEND_PACKET,
};

struct uv_device {
	struct ibv_device ibv;
	/* NULL, where rdma-core's struct verbs_device keeps the provider's ops right after the
	 * ibv_device (driver.h): a real provider library loaded beside this one (libmlx5's
	 * mlx5dv_*, libefa's efadv_*) compares that pointer with its own to tell its devices,
	 * and so finds that this one is not. */
	const void *verbs_ops;
	/* uroce's librdmacm finds the port's QP1 through it (bridge.h, gsi.c). */
	const struct uv_bridge *bridge;
	struct uroce_netif_addr gid[UV_MAX_GIDS];
	size_t ngids;
	enum uroce_mtu active_mtu;
	uint64_t guid; /* network order, as ibv_get_device_guid returns it */
	/* UROCE_XDP=<interface>[:<queue>] or UROCE_PACKET=<interface>: packets go through an
	 * AF_XDP socket (io/xdp.h) or a packet socket (io/packet.h) on that interface instead
	 * of UDP sockets, and the GIDs are its addresses only (docs/backends.md). */
	enum uv_backend backend;
	char raw_if[16];
	uint32_t raw_ifindex, raw_queue;
};

_Static_assert(offsetof(struct uv_device, ibv) == offsetof(struct uv_device_head, ibv),
	       "bridge.h: a uroce device begins as struct uv_device_head");
_Static_assert(offsetof(struct uv_device, verbs_ops) ==
		       offsetof(struct uv_device_head, verbs_ops),
	       "bridge.h: verbs_ops follows the ibv_device");
_Static_assert(offsetof(struct uv_device, bridge) == offsetof(struct uv_device_head, bridge),
	       "bridge.h: the bridge follows verbs_ops");

/* What runs the engine: shared by every context opened on the device in this process, since
 * a UDP port can be bound once per address. The socket backend and the progress thread start
 * with the first QP (or a MAD service's attach, gsi.c), so that querying the device
 * (ibv_devinfo) binds nothing. */
struct uv_port {
	struct uv_device *dev;
	pthread_mutex_t lock; /* the engine and everything below */
	struct uroce_dev *eng;
	struct uroce_io *io;  /* NULL until started */
	/* The process's slot among the user's processes sharing the addresses (UDP backend,
	 * docs/multiprocess.md), or NULL (AF_XDP, UROCE_SHARE=0, no runtime directory). */
	struct uroce_share *share;
	struct uroce_impair_cfg impair;
	bool impaired;
	pthread_mutex_t round_lock; /* one engine round at a time (port.c) */
	pthread_t thread;
	_Atomic bool running;
	int doorbell;          /* an eventfd: the thread sleeps in ppoll on it and the backend's fd */
	_Atomic bool stop;
	_Atomic bool sleeping;  /* the thread is (about to be) asleep in sleep_until */
	_Atomic bool napping;   /* the thread naps while an application polls (thread.c) */
	/* Work was posted, or the engine changed, since a round last wrote packets: the next
	 * round writes, and a sleeping thread is woken for it (uv_port_posted). */
	_Atomic bool posted;
	unsigned refs;          /* open contexts */
	bool inherited;         /* the parent's, in a child of fork (port.c port_after_fork) */
	struct uv_cq *armed;    /* CQs with a notification request, linked by next_armed */
	struct uv_context *contexts; /* for asynchronous events */
	uint32_t spin_us;       /* how long the thread polls after the last activity */
	struct uv_bufs *bufs;   /* packet buffers of a round (round_lock) */
	uint64_t deadline;      /* the engine's next deadline (both locks to write) */
	_Atomic uint64_t app_polled; /* when an application thread last ran a round */
	struct uv_bridge_port *gsi;  /* QP1 and its MAD service, NULL when none (gsi.c) */
	struct uv_mad_counters mad_counters; /* QP1's, across attaches (port lock) */
	struct uv_stat *stat;   /* the statistics page (stat.c), from the start (port lock) */
};

/* A context's asynchronous events, oldest first (async.c). */
#define UV_ASYNC_QUEUE 256
struct uv_async {
	pthread_mutex_t lock;
	struct ibv_async_event q[UV_ASYNC_QUEUE];
	unsigned head, count;
	int wfd; /* the other end of async_fd: a byte per queued event */
};

struct uv_context {
	struct verbs_context vctx; /* ends with the ibv_context: must be first */
	struct uv_port *port;
	struct uv_async async;
	struct uv_context *next;   /* in port->contexts */
};

/* A protection domain, or a parent domain (ibv_alloc_parent_domain(3)): a second handle on
 * a protection domain's engine PD, so that the two are interchangeable everywhere, whose
 * QPs and SRQs take their rings from its allocators (mem, through pd_mem_alloc). */
struct uv_pd {
	struct ibv_pd ibv;
	struct uroce_pd *eng;
	struct uv_pd *protection;  /* a parent domain's protection domain, else NULL */
	unsigned parents;          /* a protection domain's parent domains (port lock) */
	unsigned users;            /* a parent domain's QPs and SRQs (port lock) */
	struct uroce_mem mem;      /* a parent domain's allocators (alloc NULL: none) */
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size, size_t alignment,
		       uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr, uint64_t resource_type);
	void *pd_context;
};

struct uv_mr {
	struct ibv_mr ibv;
	struct uroce_mr *eng;
	uint64_t iova;   /* the address the network sees addr at */
	unsigned access; /* the engine's access bits (enum uroce_access) */
};

struct uv_ah {
	struct ibv_ah ibv;
	struct uroce_ah *eng;
};

struct uv_comp_channel {
	struct ibv_comp_channel ibv; /* fd: read end of a pipe carrying struct uv_cq pointers */
	int wfd;
	/* A CQ destroyed while events for it still sat unread in the pipe stays here as a stub
	 * until those events are read (and dropped, as the kernel drops them) or the channel
	 * is destroyed, so that no pointer in the pipe dangles. */
	pthread_mutex_t lock; /* events_read, destroyed and the stubs of its CQs */
	struct uv_cq *stubs;
};

struct uv_cq {
	struct ibv_cq ibv;
	struct uroce_cq *eng;
	pthread_mutex_t poll_lock; /* pollers take turns: the ring has one consumer */
	/* Notification (ibv_req_notify_cq): armed_at is the engine's pushed count when armed;
	 * the progress thread fires once the count moves past it. Under the port lock. */
	bool armed;
	uint32_t armed_at;
	struct uv_cq *next_armed;
	unsigned events_sent;      /* completion events written to the channel (port lock) */
	unsigned events_read;      /* events ibv_get_cq_event took from the channel (its lock) */
	bool destroyed;            /* ibv_destroy_cq ran: its unread events are dropped */
	struct uv_cq *next_stub;   /* in the channel's stubs once destroyed with events unread */
	unsigned async_reported;   /* asynchronous events handed out about it (async.c) */
};

struct uv_srq {
	struct ibv_srq ibv;
	struct uroce_srq *eng;
	pthread_mutex_t post_lock; /* posters take turns; the engine takes no lock (qp.c) */
	unsigned async_reported;   /* asynchronous events handed out about it (async.c) */
};

/* The ibv_qp_ex interface (ibv_wr_*): requests are gathered between wr_start and
 * wr_complete and posted together. */
struct uv_qp {
	struct ibv_qp_ex ex;      /* begins with the ibv_qp */
	struct uroce_qp *eng;
	pthread_mutex_t send_lock, recv_lock; /* posters of a queue take turns (qp.c) */
	uint32_t max_inline;
	struct uroce_send_wr *wr; /* the batch being built: cap entries */
	struct uroce_sge *sge;    /* UROCE_MAX_SGE per entry */
	uint8_t *inline_buf;      /* max_inline bytes per entry */
	uint8_t (*atomic_wr)[8];  /* an ATOMIC WRITE's value per entry (wr_atomic_write) */
	uint32_t nwr, cap;
	int wr_err;               /* the first error while building; wr_complete returns it */
	unsigned async_reported;  /* asynchronous events handed out about it (async.c) */
};

static inline struct uv_context *to_uv_context(struct ibv_context *c)
{
	return (struct uv_context *)((char *)c - offsetof(struct uv_context, vctx.context));
}
static inline struct uv_port *port_of(struct ibv_context *c) { return to_uv_context(c)->port; }
static inline struct uv_qp *to_uv_qp(struct ibv_qp *qp) { return (struct uv_qp *)qp; }
static inline struct uv_cq *to_uv_cq(struct ibv_cq *cq) { return (struct uv_cq *)cq; }

/* Returns err after storing a nonzero one in errno: the verbs that return an errno value
 * set errno as well, as rdma-core's do (their kernel commands fail through system calls), so
 * that a program that prints errno (qperf, perror) gives the reason. */
static inline int uv_fail(int err)
{
	if (err)
		errno = err;
	return err;
}

/* device.c */
struct uv_device *uv_device_get(void);
/* The errno of an engine error code. */
int uv_errno(int uroce_err);
void uv_ah_attr_to_engine(const struct ibv_ah_attr *in, struct uroce_ah_attr *out);
void uv_ah_attr_from_engine(const struct uroce_ah_attr *in, struct ibv_ah_attr *out);

/* port.c */
int uv_port_open(struct uv_device *dev, struct uv_port **out);
void uv_port_close(struct uv_port *port);
/* Starts the socket backend and the progress thread if they are not running (port lock
 * held). Returns 0 or an errno. */
int uv_port_start(struct uv_port *port);
/* After the application changed the engine under the port lock: delivers what that produced
 * (completion events, asynchronous events) and wakes the progress thread if it sleeps.
 * Releases the lock. */
void uv_port_unlock_kick(struct uv_port *port);
/* Runs deliveries (notifications, async events) with the port lock held. */
void uv_port_deliver(struct uv_port *port);
/* One round (round_lock held): sends what was posted, receives a batch, runs the engine on
 * it and sends its answers. Returns the number of packets moved. */
size_t uv_port_round(struct uv_port *port);

/* gsi.c: QP1 and its MAD service, in the port's rounds (the port lock held). */
extern const struct uv_bridge uv_bridge;
/* Takes QP1's completions, hands the MADs received to the service, runs its timer when due
 * and posts the MADs it has to send. Returns how many MADs moved. */
size_t uv_gsi_round(struct uv_port *port, uint64_t now);
/* The service's next deadline (UROCE_NEVER without one). */
uint64_t uv_gsi_deadline(struct uv_port *port);
/* QP1 has completions the next round must take. */
bool uv_gsi_pending(struct uv_port *port);
/* The port closes with a service still attached: releases QP1 without callbacks. */
void uv_gsi_close(struct uv_port *port);

/* async.c: a context's asynchronous events. init makes async_fd (0 or an errno value). */
int uv_async_init(struct uv_context *c);
void uv_async_fini(struct uv_context *c);
/* Queues an event for the context (the progress thread, the port lock held). */
void uv_async_push(struct uv_context *c, const struct ibv_async_event *ev);
/* An object of ctx is being destroyed, and the engine has dropped its events: drops those
 * still queued, and returns how many the program was handed (*reported, read under the
 * queue's lock), which the destroy waits to see acknowledged. */
unsigned uv_async_forget(struct ibv_context *ctx, const void *element, const unsigned *reported);
/* Waits until *acked (an object's acknowledged count, under m) reaches reported. */
void uv_async_wait_acked(pthread_mutex_t *m, pthread_cond_t *cond, const uint32_t *acked,
			 unsigned reported);
/* Writes and sends what posts and pollers' rounds left to send (ACKs of the last messages
 * received, mostly), before a QP changes state or goes, and before the port closes. */
void uv_port_flush(struct uv_port *port);
/* Runs one engine round on the calling thread if no other thread runs one: true when
 * packets moved. For pollers of an empty CQ, which pass it. */
bool uv_port_poll(struct uv_port *port);

/* thread.c: the progress thread. */
/* Starts it and its doorbell (the port lock held, the backend open): 0 or an errno. */
int uv_thread_start(struct uv_port *port);
/* Stops it and closes its doorbell (the last context closing). */
void uv_thread_stop(struct uv_port *port);
/* Writes the doorbell: ends the thread's sleep or its nap. */
void uv_port_ring(struct uv_port *port);
/* After the application posted work (without the port lock: the engine's queues are
 * single-producer single-consumer rings): the next round takes it in, and the progress
 * thread wakes if it sleeps. */
void uv_port_posted(struct uv_port *port);
/* Ends the progress thread's nap (thread.c, nap), if it naps: for an application that is
 * about to wait for an event rather than poll. */
void uv_port_end_nap(struct uv_port *port);

/* stat.c: the statistics page (docs/stat.md). */
/* Creates the page (uv_port_start, before the thread: the port lock held). Failing to make
 * the file leaves the port without one; UROCE_STATS=1 still reports. */
void uv_stat_open(struct uv_port *port);
/* The runtime directory (docs/stat.md), made if missing; -1 when there is none we can trust. */
int uv_runtime_dir(char *dir, size_t len);
/* The end of a round's engine work (round_lock and the port lock held): copies the counters
 * and QPs into the page when due. moved: the round did something. */
void uv_stat_round(struct uv_port *port, uint64_t now, bool moved);
/* The application changed the engine (a QP made, modified...): the next due round copies. */
void uv_stat_changed(struct uv_port *port);
/* When the next copy is due, or UROCE_NEVER. */
uint64_t uv_stat_deadline(const struct uv_port *port);
/* Prints the report if UROCE_STATS=1 and removes the page (no round can run: the thread
 * stopped, or round_lock and the port lock held). exiting: the process ends and the thread
 * may still run rounds afterwards, so the port keeps its (empty) struct uv_stat. */
void uv_stat_close(struct uv_port *port, bool exiting);

/* pd.c */
struct ibv_pd *uv_alloc_parent_domain(struct ibv_context *ctx,
				      struct ibv_parent_domain_init_attr *attr);
/* The rings of a QP or SRQ made with pd: its allocators (NULL: none), and, under the port
 * lock, one more (or one less, use false) user of a parent domain. */
const struct uroce_mem *uv_pd_mem(struct ibv_pd *pd);
void uv_pd_use(struct ibv_pd *pd, bool use);

/* cq.c */
void uv_cq_fire(struct uv_cq *cq);
/* Takes (lock true) or gives back the poll locks of qp's CQs, in address order, so that the
 * caller is their only consumer; before the port lock, which no poller holds while it
 * waits for a poll lock. */
void uv_qp_cqs_lock(struct ibv_qp *qp, bool lock);
/* uroce_cq_drop_qp on the QP's CQs, under uv_qp_cqs_lock and the port lock; a notification
 * request waiting for a new completion keeps waiting for one. */
void uv_qp_cqs_drop(struct ibv_qp *qp);
int uv_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int uv_req_notify_cq(struct ibv_cq *cq, int solicited_only);

/* qp.c */
int uv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
int uv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);
int uv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);
struct ibv_qp *uv_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr);
int uv_modify_qp_rate_limit(struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *attr);
/* Posts a chain of engine requests on the QP (the ibv_wr_* batch): 0 or an errno. */
int uv_send_chain(struct uv_qp *qp, const struct uroce_send_wr *wr);

/* qp_ex.c */
/* cap: the QP's actual capabilities. */
int uv_qp_ex_init(struct uv_qp *qp, uint64_t send_ops_flags, const struct uroce_qp_cap *cap);
void uv_qp_ex_free(struct uv_qp *qp);

#endif
