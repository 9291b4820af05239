/* SPDX-License-Identifier: MIT */
/* Multicast: rdma_join_multicast(_ex), rdma_leave_multicast. RoCEv2 multicast is IP
 * multicast (no Subnet Administrator to join): Linux's cma_iboe_join_multicast reports the
 * join at once, with the group's GID (an IPv4 group IPv4-mapped, cma_iboe_set_mgid), the
 * Q_Key RDMA_UDP_QKEY and QPN 0xFFFFFF; librdmacm then attaches the id's QP to the group
 * (ucma_process_join), which uroce's ibv_attach_mcast turns into an IGMP/MLD join. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

static socklen_t sa_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

static int join(struct cma_id *c, struct sockaddr *addr, uint32_t flags, void *context)
{
	struct uroce_io_addr group;
	struct uroce_cm_path_rec path;
	struct cma_event *e;
	struct cma_mc *mc;

	if (!addr || (addr->sa_family != AF_INET && addr->sa_family != AF_INET6))
		return cma_ret(EINVAL);
	if (!c->dev || (c->state != CMA_ADDR_BOUND && c->state != CMA_ADDR_RESOLVED &&
			c->state != CMA_ROUTE_RESOLVED))
		return cma_ret(EINVAL);
	if (flags != RDMA_MC_JOIN_FLAG_FULLMEMBER && flags != RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER)
		return cma_ret(EINVAL);
	cma_addr_from_sa(&group, NULL, addr);
	if (!uroce_io_addr_is_multicast(&group))
		return cma_ret(EINVAL);
	mc = calloc(1, sizeof(*mc));
	e = cma_event_new(c, RDMA_CM_EVENT_MULTICAST_JOIN, 0);
	if (!mc || !e) {
		free(mc);
		free(e);
		return cma_ret(ENOMEM);
	}
	memcpy(&mc->addr, addr, sa_len(addr));
	uroce_cm_gid_from_addr(mc->mgid.raw, &group);
	mc->context = context;
	mc->join_flags = flags;
	mc->next = c->mc;
	c->mc = mc;
	/* The group's address vector: a GRH to the group, from this id's GID. */
	memset(&path, 0, sizeof(path));
	path.local = c->dev->gid[c->sgid_index].addr;
	path.remote = group;
	path.hop_limit = UROCE_CM_DEFAULT_HOP_LIMIT;
	path.traffic_class = c->tos;
	cma_fill_ah(c, &path, &e->ev.param.ud.ah_attr);
	e->ev.param.ud.qp_num = 0xFFFFFF;
	e->ev.param.ud.qkey = RDMA_UDP_QKEY;
	e->ev.param.ud.private_data = context;
	e->mc = mc;
	e->post = CMA_POST_JOIN;
	cma_enqueue(e);
	return 0;
}

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr, void *context)
{
	return join(cma_id_of(id), addr, RDMA_MC_JOIN_FLAG_FULLMEMBER, context);
}

int rdma_join_multicast_ex(struct rdma_cm_id *id, struct rdma_cm_join_mc_attr_ex *mc_join_attr,
			   void *context)
{
	if (!mc_join_attr ||
	    mc_join_attr->comp_mask & ~(uint32_t)(RDMA_CM_JOIN_MC_ATTR_ADDRESS |
						  RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS) ||
	    !(mc_join_attr->comp_mask & RDMA_CM_JOIN_MC_ATTR_ADDRESS) ||
	    !(mc_join_attr->comp_mask & RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS))
		return cma_ret(EINVAL);
	return join(cma_id_of(id), mc_join_attr->addr, mc_join_attr->join_flags, context);
}

int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct cma_id *c = cma_id_of(id);
	struct cma_mc **pp, *mc;

	if (!addr)
		return cma_ret(EINVAL);
	for (pp = &c->mc; (mc = *pp); pp = &mc->next)
		if (!memcmp(&mc->addr, addr, sa_len(addr)))
			break;
	if (!mc)
		return cma_ret(EADDRNOTAVAIL);
	if (id->qp && mc->attached)
		ibv_detach_mcast(id->qp, &mc->mgid, 0);
	/* A join event not yet taken goes; one handed out must be acknowledged before the
	 * group is freed (librdmacm's rdma_leave_multicast waits the same way). */
	cma_unqueue_mc(c, mc);
	pthread_mutex_lock(&c->mu);
	while (c->completed < c->reported)
		pthread_cond_wait(&c->cond, &c->mu);
	pthread_mutex_unlock(&c->mu);
	*pp = mc->next;
	free(mc);
	return 0;
}
