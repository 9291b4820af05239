/* SPDX-License-Identifier: MIT */
/* Devices, contexts and the queries: the device list, open/close, device/port/GID/P_Key
 * attributes (asynchronous events are async.c's). One device per process, "uroce0": a RoCEv2
 * port whose GID table is the host's addresses (netif.c), or only UROCE_IP's. Port attributes follow
 * Linux rxe (facts.md section 3 and 5): state ACTIVE, link layer Ethernet, vendor 0xFFFFFF
 * part 0, so that perftest takes its generic path. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/echo.h"
#include "common/error.h"
#include "priv.h"

#undef ibv_query_port

/* Limits we report beyond the engine's (rxe's values, rxe_param.h, where they mean something
 * here too). */
#define UV_MAX_MR_SIZE (1ull << 40)
#define UV_PAGE_SIZE_CAP 0xfffff000u
#define UV_MAX_MSG_SZ 0x80000000u /* 2^31: the engine's message limit */
#define UV_VENDOR_ID 0xffffff     /* as rxe: no vendor-specific paths in perftest */

static struct uv_device the_device;
static int the_device_err;
static pthread_once_t device_once = PTHREAD_ONCE_INIT;

/* UROCE_XDP=<interface>[:<queue>] or UROCE_PACKET=<interface> (uroce.7): a raw Ethernet
 * backend on that interface; keeps the GIDs on it only. */
static int raw_choose(struct uv_device *d)
{
	const char *xdp = getenv("UROCE_XDP"), *packet = getenv("UROCE_PACKET");
	const char *var = xdp && *xdp ? "UROCE_XDP" : "UROCE_PACKET";
	const char *spec = xdp && *xdp ? xdp : packet;
	const char *colon;
	struct uroce_echo e;
	size_t len, kept = 0;
	char *end;

	if (!spec || !*spec)
		return 0;
	if (xdp && *xdp && packet && *packet) {
		fprintf(stderr, "uroce: UROCE_XDP and UROCE_PACKET are both set: choose one backend\n");
		return UROCE_EINVAL;
	}
	uroce_echo(&e, spec, (size_t)-1);
	colon = var[6] == 'X' ? strchr(spec, ':') : NULL; /* a queue: AF_XDP's only */
	len = colon ? (size_t)(colon - spec) : strlen(spec);
	if (!len || len >= sizeof(d->raw_if)) {
		fprintf(stderr, "uroce: %s=%s: not an interface name\n", var, e.s);
		return UROCE_EINVAL;
	}
	memcpy(d->raw_if, spec, len);
	d->raw_if[len] = 0;
	if (colon) {
		errno = 0;
		unsigned long q = strtoul(colon + 1, &end, 10);
		if (errno || end == colon + 1 || *end || q >= 1024) {
			fprintf(stderr, "uroce: %s=%s: the queue is not a number below 1024\n", var,
				e.s);
			return UROCE_EINVAL;
		}
		d->raw_queue = (uint32_t)q;
	}
	for (size_t i = 0; i < d->ngids; i++)
		if (!strcmp(d->gid[i].ifname, d->raw_if))
			d->gid[kept++] = d->gid[i];
	d->ngids = kept;
	if (!kept) {
		fprintf(stderr, "uroce: %s=%s: no usable address on %s%s\n", var, e.s, d->raw_if,
			getenv("UROCE_IP") ? " matches UROCE_IP" : "");
		return UROCE_ENOENT;
	}
	d->raw_ifindex = d->gid[0].ifindex;
	d->backend = var[6] == 'X' ? UV_BACKEND_XDP : UV_BACKEND_PACKET;
	return 0;
}

static void device_init(void)
{
	struct uv_device *d = &the_device;
	const char *only = getenv("UROCE_IP");
	struct uroce_echo e;
	int err;

	err = uroce_netif_scan(only && *only ? only : NULL, d->gid, UV_MAX_GIDS, &d->ngids);
	if (err || !d->ngids) {
		the_device_err = err ? err : UROCE_EINVAL;
		if (only && *only)
			fprintf(stderr, "uroce: UROCE_IP=%s: %s\n", uroce_echo(&e, only, (size_t)-1),
				err == UROCE_EINVAL ? "not an IPv4 or IPv6 address"
						    : "not an address of this host");
		return;
	}
	if ((err = raw_choose(d))) {
		the_device_err = err;
		return;
	}
	/* One port for every address: its MTU must fit the smallest interface among them. */
	d->active_mtu = UROCE_MTU_4096;
	for (size_t i = 0; i < d->ngids; i++) {
		enum uroce_mtu m = uroce_netif_active_mtu(d->gid[i].mtu);
		if (m < d->active_mtu)
			d->active_mtu = m;
	}
	d->ibv.node_type = IBV_NODE_CA;
	d->bridge = &uv_bridge;
	d->ibv.transport_type = IBV_TRANSPORT_IB;
	snprintf(d->ibv.name, sizeof(d->ibv.name), "%s", UV_DEV_NAME);
	snprintf(d->ibv.dev_name, sizeof(d->ibv.dev_name), "uverbs-%s", UV_DEV_NAME);
	snprintf(d->ibv.dev_path, sizeof(d->ibv.dev_path), "/sys/class/infiniband_verbs/uverbs-%s",
		 UV_DEV_NAME);
	snprintf(d->ibv.ibdev_path, sizeof(d->ibv.ibdev_path), "/sys/class/infiniband/%s",
		 UV_DEV_NAME);

	/* Node GUID: the EUI-64 of the first address's interface MAC, as rxe derives it
	 * (rxe.c rxe_init_device_param: addrconf_addr_eui48); lo has no MAC, so a locally
	 * administered value made from the address keeps two processes on 127.0.0.x apart. */
	uint8_t g[8];
	const struct uroce_netif_addr *a = &d->gid[0];
	static const uint8_t zero[6];
	if (memcmp(a->mac, zero, 6)) {
		g[0] = a->mac[0] ^ 2, g[1] = a->mac[1], g[2] = a->mac[2], g[3] = 0xff;
		g[4] = 0xfe, g[5] = a->mac[3], g[6] = a->mac[4], g[7] = a->mac[5];
	} else {
		const uint8_t *ip = a->addr.ip + (a->addr.ipv6 ? 12 : 0);
		g[0] = 0x02, g[1] = 'u', g[2] = 'r', g[3] = 0xff, g[4] = 0xfe;
		g[5] = ip[1], g[6] = ip[2], g[7] = ip[3];
	}
	memcpy(&d->guid, g, 8);
}

struct uv_device *uv_device_get(void)
{
	pthread_once(&device_once, device_init);
	return the_device_err ? NULL : &the_device;
}

int uv_errno(int err)
{
	switch (err) {
	case 0: return 0;
	case UROCE_ENOMEM: case UROCE_EFULL: return ENOMEM;
	case UROCE_EBUSY: return EBUSY;
	case UROCE_EIO: return EIO;
	default: return EINVAL;
	}
}

/* ---- Device list ---- */

struct ibv_device **ibv_get_device_list(int *num)
{
	struct uv_device *d = uv_device_get();
	struct ibv_device **list = calloc(2, sizeof(*list));

	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	if (d)
		list[0] = &d->ibv;
	if (num)
		*num = d ? 1 : 0;
	return list;
}

void ibv_free_device_list(struct ibv_device **list) { free(list); }

const char *ibv_get_device_name(struct ibv_device *device) { return device->name; }

__be64 ibv_get_device_guid(struct ibv_device *device)
{
	return ((struct uv_device *)device)->guid;
}

int ibv_get_device_index(struct ibv_device *device)
{
	(void)device;
	return 0;
}

/* ---- Contexts ---- */

static int query_port_full(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr,
			   size_t len);
static int query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *in,
			   struct ibv_device_attr_ex *attr, size_t len);

/* A kernel device's context holds the descriptor of its uverbs file, through which the
 * library sends commands. uroce sends none, but programs duplicate cmd_fd and hand it over
 * to share a context (ibv_import_device(3)); with -1 they failed in dup(2), before the
 * verb could answer. So the context holds a real descriptor that carries nothing: an
 * empty memfd named after the device and sealed (read gives end of file, write EPERM,
 * ioctl ENOTTY), which ibv_import_device refuses with EOPNOTSUPP. -1 with errno. */
static int cmd_fd_open(const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd >= 0 &&
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct uv_device *d = uv_device_get();
	struct uv_context *c;
	struct ibv_context *ctx;
	int cmd_fd, err;

	if (!d || device != &d->ibv) {
		errno = ENODEV;
		return NULL;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		errno = ENOMEM;
		return NULL;
	}
	if ((cmd_fd = cmd_fd_open(device->name)) < 0) {
		free(c);
		return NULL;
	}
	if ((err = uv_async_init(c))) {
		close(cmd_fd);
		free(c);
		errno = err;
		return NULL;
	}
	if ((err = uv_port_open(d, &c->port))) {
		uv_async_fini(c);
		close(cmd_fd);
		free(c);
		errno = err;
		return NULL;
	}
	ctx = &c->vctx.context;
	ctx->device = device;
	ctx->cmd_fd = cmd_fd;
	ctx->num_comp_vectors = 1;
	pthread_mutex_init(&ctx->mutex, NULL);
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	ctx->ops.poll_cq = uv_poll_cq;
	ctx->ops.req_notify_cq = uv_req_notify_cq;
	ctx->ops.post_send = uv_post_send;
	ctx->ops.post_recv = uv_post_recv;
	ctx->ops.post_srq_recv = uv_post_srq_recv;
	c->vctx.sz = sizeof(c->vctx);
	c->vctx.query_port = query_port_full;
	c->vctx.query_device_ex = query_device_ex;
	c->vctx.create_qp_ex = uv_create_qp_ex;
	c->vctx.modify_qp_rate_limit = uv_modify_qp_rate_limit;
	c->vctx.alloc_parent_domain = uv_alloc_parent_domain;

	pthread_mutex_lock(&c->port->lock);
	c->next = c->port->contexts;
	c->port->contexts = c;
	pthread_mutex_unlock(&c->port->lock);
	return ctx;
}

/* ibv_import_device(3) takes the command file descriptor of a context opened elsewhere (a
 * dup of its cmd_fd) and shares the kernel objects behind it. uroce's objects live in the
 * process that made them, behind no kernel file (cmd_fd carries nothing: cmd_fd_open), so
 * there is nothing to import: NULL with EOPNOTSUPP, whatever the descriptor. */
struct ibv_context *ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	errno = EOPNOTSUPP;
	return NULL;
}

int ibv_close_device(struct ibv_context *ctx)
{
	struct uv_context *c = to_uv_context(ctx), **pp;
	struct uv_port *port = c->port;

	pthread_mutex_lock(&port->lock);
	for (pp = &port->contexts; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	pthread_mutex_unlock(&port->lock);
	uv_port_close(port);
	close(ctx->cmd_fd);
	uv_async_fini(c);
	pthread_mutex_destroy(&ctx->mutex);
	free(c);
	return 0;
}

/* ---- Queries ---- */

/* The engine says UINT32_MAX for "no limit"; the verbs fields are ints. */
static int clamp_int(uint64_t v) { return v > INT32_MAX ? INT32_MAX : (int)v; }

int ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *a)
{
	struct uv_port *port = port_of(ctx);
	struct uroce_dev_attr e;

	pthread_mutex_lock(&port->lock);
	uroce_dev_query(port->eng, &e);
	pthread_mutex_unlock(&port->lock);

	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "uroce %s", UROCE_VERSION);
	a->node_guid = port->dev->guid;
	a->sys_image_guid = port->dev->guid;
	a->max_mr_size = UV_MAX_MR_SIZE;
	a->page_size_cap = UV_PAGE_SIZE_CAP;
	a->vendor_id = UV_VENDOR_ID;
	a->vendor_part_id = 0;
	a->hw_ver = 0;
	a->max_qp = clamp_int(e.max_qp);
	a->max_qp_wr = clamp_int(e.max_qp_wr);
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN |
			      IBV_DEVICE_PORT_ACTIVE_EVENT | IBV_DEVICE_SYS_IMAGE_GUID;
	a->max_sge = clamp_int(e.max_sge);
	a->max_sge_rd = clamp_int(e.max_sge);
	a->max_cq = clamp_int(e.max_cq);
	a->max_cqe = clamp_int(e.max_cqe);
	a->max_mr = clamp_int(e.max_mr);
	a->max_pd = clamp_int(e.max_pd);
	a->max_ah = INT32_MAX; /* the engine sets no limit on address handles */
	a->max_qp_rd_atom = clamp_int(e.max_qp_rd_atom);
	a->max_qp_init_rd_atom = clamp_int(e.max_qp_init_rd_atom);
	a->max_res_rd_atom = clamp_int((uint64_t)e.max_qp_rd_atom * e.max_qp);
	a->atomic_cap = IBV_ATOMIC_HCA;
	a->max_srq = clamp_int(e.max_srq);
	a->max_srq_wr = clamp_int(e.max_srq_wr);
	a->max_srq_sge = clamp_int(e.max_sge);
	a->max_mcast_grp = clamp_int(e.max_mcast_grp);
	a->max_mcast_qp_attach = clamp_int(e.max_mcast_qp_attach);
	a->max_total_mcast_qp_attach = clamp_int(e.max_total_mcast_qp_attach);
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15; /* rxe's RXE_LOCAL_CA_ACK_DELAY */
	a->phys_port_cnt = 1;
	return 0;
}

/* Linux's IB_UVERBS_DEVICE_ATOMIC_WRITE (include/uapi/rdma/ib_user_verbs.h, Linux 6.2, which
 * rxe sets): the device executes ATOMIC WRITE. The kernel passes its device_cap_flags_ex to
 * ibv_query_device_ex as they are; rdma-core 44's verbs.h has no name for the bit yet, and its
 * ibv_devinfo -v prints it as "Unknown flags: 0x10000000000". */
#define UV_DEVICE_ATOMIC_WRITE (1ULL << 40)

/* The extended attributes say what the basic ones say (device_cap_flags_ex holds the same
 * flags and ATOMIC WRITE, phys_port_cnt_ex the same port count), and packet pacing
 * (ibv_modify_qp_rate_limit: RC, UC and UD QPs, 1 kbit/s to 100 Gbit/s); everything else is
 * a capability uroce does not have (ODP, timestamps, TSO, RSS, tag matching, device memory,
 * PCI atomics): zero. */
static int query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *in,
			   struct ibv_device_attr_ex *attr, size_t len)
{
	struct ibv_device_attr_ex a;
	int err;

	if (in && in->comp_mask)
		return uv_fail(EINVAL);
	memset(&a, 0, sizeof(a));
	if ((err = ibv_query_device(ctx, &a.orig_attr)))
		return err;
	a.device_cap_flags_ex = (uint32_t)a.orig_attr.device_cap_flags | UV_DEVICE_ATOMIC_WRITE;
	a.phys_port_cnt_ex = a.orig_attr.phys_port_cnt;
	a.packet_pacing_caps.qp_rate_limit_min = 1;
	a.packet_pacing_caps.qp_rate_limit_max = 100000000;
	a.packet_pacing_caps.supported_qpts = 1u << IBV_QPT_RC | 1u << IBV_QPT_UC | 1u << IBV_QPT_UD;
	memcpy(attr, &a, len < sizeof(a) ? len : sizeof(a));
	return 0;
}

static int query_port_full(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr,
			   size_t len)
{
	struct uv_device *d = port_of(ctx)->dev;
	struct ibv_port_attr a;

	if (port != 1)
		return uv_fail(EINVAL);
	memset(&a, 0, sizeof(a));
	a.state = IBV_PORT_ACTIVE;
	a.max_mtu = IBV_MTU_4096;
	a.active_mtu = (enum ibv_mtu)d->active_mtu;
	a.gid_tbl_len = UV_MAX_GIDS;
	a.port_cap_flags = IBV_PORT_CM_SUP | IBV_PORT_IP_BASED_GIDS;
	a.max_msg_sz = UV_MAX_MSG_SZ;
	a.pkey_tbl_len = 1;
	a.max_vl_num = 1;
	a.active_width = 1;  /* 1X */
	a.active_speed = 32; /* EDR, as rxe reports for a fast link */
	a.phys_state = 5;    /* LinkUp (IBA 14.2.5.6) */
	a.link_layer = IBV_LINK_LAYER_ETHERNET;
	memcpy(attr, &a, len < sizeof(a) ? len : sizeof(a));
	return 0;
}

/* The exported symbol gets the old, shorter structure (without port_cap_flags2): writing the
 * whole current one would overrun old callers' stacks (facts.md section 5). */
int ibv_query_port(struct ibv_context *ctx, uint8_t port, struct _compat_ibv_port_attr *attr)
{
	return query_port_full(ctx, port, (struct ibv_port_attr *)attr,
			       offsetof(struct ibv_port_attr, port_cap_flags2));
}

static void gid_of(const struct uroce_io_addr *a, union ibv_gid *gid)
{
	uroce_netif_addr_to_gid(a, gid->raw);
}

int ibv_query_gid(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid)
{
	struct uv_device *d = port_of(ctx)->dev;

	if (port != 1 || index < 0 || index >= UV_MAX_GIDS) {
		errno = EINVAL;
		return -1;
	}
	if ((size_t)index < d->ngids)
		gid_of(&d->gid[index].addr, gid);
	else
		memset(gid, 0, sizeof(*gid)); /* an empty entry reads as zero */
	return 0;
}

int _ibv_query_gid_ex(struct ibv_context *ctx, uint32_t port, uint32_t index,
		      struct ibv_gid_entry *entry, uint32_t flags, size_t size)
{
	struct uv_device *d = port_of(ctx)->dev;
	struct ibv_gid_entry e;

	if (flags || port != 1 || size < sizeof(e))
		return uv_fail(EINVAL);
	if (index >= d->ngids)
		return uv_fail(index < UV_MAX_GIDS ? ENODATA : EINVAL);
	memset(&e, 0, sizeof(e));
	gid_of(&d->gid[index].addr, &e.gid);
	e.gid_index = index;
	e.port_num = 1;
	e.gid_type = IBV_GID_TYPE_ROCE_V2;
	e.ndev_ifindex = d->gid[index].ifindex;
	memcpy(entry, &e, sizeof(e));
	return 0;
}

ssize_t _ibv_query_gid_table(struct ibv_context *ctx, struct ibv_gid_entry *entries,
			     size_t max, uint32_t flags, size_t size)
{
	struct uv_device *d = port_of(ctx)->dev;
	size_t i;

	if (flags || size < sizeof(*entries) || max < d->ngids)
		return -uv_fail(EINVAL);
	for (i = 0; i < d->ngids; i++)
		_ibv_query_gid_ex(ctx, 1, (uint32_t)i,
				  (struct ibv_gid_entry *)((char *)entries + i * size), 0, size);
	return (ssize_t)d->ngids;
}

int ibv_query_gid_type(struct ibv_context *ctx, uint8_t port, unsigned int index,
		       enum uv_gid_type_sysfs *type);
int ibv_query_gid_type(struct ibv_context *ctx, uint8_t port, unsigned int index,
		       enum uv_gid_type_sysfs *type)
{
	struct uv_device *d = port_of(ctx)->dev;

	if (port != 1 || index >= d->ngids) {
		errno = EINVAL;
		return -1;
	}
	*type = UV_GID_TYPE_SYSFS_ROCE_V2;
	return 0;
}

/* One partition: the default P_Key 0xFFFF (IBA 10.9.1.2), the only one RoCE ports carry. */
int ibv_query_pkey(struct ibv_context *ctx, uint8_t port, int index, __be16 *pkey)
{
	(void)ctx;
	if (port != 1 || index != 0) {
		errno = EINVAL;
		return -1;
	}
	*pkey = htons(0xffff);
	return 0;
}

int ibv_get_pkey_index(struct ibv_context *ctx, uint8_t port, __be16 pkey)
{
	(void)ctx;
	if (port != 1 || (ntohs(pkey) & 0x7fff) != 0x7fff) {
		errno = port != 1 ? EINVAL : ENOENT;
		return -1;
	}
	return 0;
}

/* ---- Address vectors ---- */

void uv_ah_attr_to_engine(const struct ibv_ah_attr *in, struct uroce_ah_attr *out)
{
	memset(out, 0, sizeof(*out));
	uroce_netif_addr_from_gid(in->grh.dgid.raw, &out->dgid);
	out->sgid_index = in->grh.sgid_index;
	out->traffic_class = in->grh.traffic_class;
	out->hop_limit = in->grh.hop_limit;
	/* The GRH and IPv6 flow label is 20 bits; ibv_ah_attr's field is 32. The kernel takes any
	 * value and the NICs keep the low 20 bits (mlx5 stores flow_label | sgid_index << 20 |
	 * 1 << 30 and reads back & 0xfffff), and UCX relies on it: for RoCE it sets flow_label
	 * to ~path_index (ib_iface.c, uct_ib_iface_fill_ah_attr_from_gid_lid). */
	out->flow_label = in->grh.flow_label & 0xFFFFF;
	out->port_num = in->port_num ? in->port_num : 1;
}

void uv_ah_attr_from_engine(const struct uroce_ah_attr *in, struct ibv_ah_attr *out)
{
	memset(out, 0, sizeof(*out));
	gid_of(&in->dgid, &out->grh.dgid);
	out->grh.sgid_index = in->sgid_index;
	out->grh.traffic_class = in->traffic_class;
	out->grh.hop_limit = in->hop_limit;
	out->grh.flow_label = in->flow_label;
	out->is_global = 1;
	out->port_num = in->port_num;
}

/* The next hop's Ethernet address and VLAN for a RoCE address vector (rdma-core 44 exports
 * it for providers, libibverbs/verbs.c; no man page): the route from the source GID's
 * interface to the destination GID and the kernel's neighbour table (netif.c,
 * uroce_netif_l2). Waits for the kernel to resolve a neighbour for up to rdma-core's
 * NEIGH_GET_DEFAULT_TIMEOUT_MS, 3 s. Returns 0, or a negative errno as rdma-core does:
 * -EINVAL for a source GID index the table does not have, -EHOSTUNREACH when the
 * destination cannot be resolved through that interface, -ENOMEM. */
#define UV_L2_WAIT_MS 3000
#define UV_L2_POLL_MS 10

int ibv_resolve_eth_l2_from_gid(struct ibv_context *ctx, struct ibv_ah_attr *attr,
				uint8_t eth_mac[6], uint16_t *vid);
int ibv_resolve_eth_l2_from_gid(struct ibv_context *ctx, struct ibv_ah_attr *attr,
				uint8_t eth_mac[6], uint16_t *vid)
{
	struct uv_device *d = port_of(ctx)->dev;
	struct uroce_io_addr dst;
	uint8_t mac[6];
	uint16_t v;
	int err;

	if (attr->port_num != 1 || attr->grh.sgid_index >= d->ngids)
		return -uv_fail(EINVAL);
	uroce_netif_addr_from_gid(attr->grh.dgid.raw, &dst);
	for (int waited = 0;; waited += UV_L2_POLL_MS) {
		err = uroce_netif_l2(d->gid[attr->grh.sgid_index].ifindex, &dst, mac, &v);
		if (err != UROCE_EAGAIN || waited >= UV_L2_WAIT_MS)
			break;
		usleep(UV_L2_POLL_MS * 1000);
	}
	if (err)
		return -uv_fail(err == UROCE_ENOMEM ? ENOMEM : EHOSTUNREACH);
	memcpy(eth_mac, mac, 6);
	if (vid)
		*vid = v;
	return 0;
}

