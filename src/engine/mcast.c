/* SPDX-License-Identifier: MIT */
/* Multicast groups (ibv_attach_mcast(3); IBA 11.3.1 and 11.3.2 "Attach/Detach QP to/from
 * multicast group", as Linux rxe's rxe_mcast.c cites them: not verified). On a RoCEv2 port a
 * multicast group is an IP multicast group and its MGID the group's address, IPv4-mapped or
 * IPv6; the MLID is unused (Annex A17.5.6). The engine keeps, per group, the QPs attached to
 * it, in the order they were attached; the caller joins the group on its network when the
 * first QP attaches and leaves it when the last one detaches (the return values say when),
 * so that its datagrams reach recv.c, which hands every attached QP a copy. */
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "mcast.h"

static uint32_t group_index(const struct uroce_dev *dev, const struct uroce_io_addr *addr)
{
	uint32_t i = 0;

	while (i < dev->nmcg && !uroce_io_addr_equal(&dev->mcg[i]->addr, addr))
		i++;
	return i;
}

const struct mcast_group *mcast_find(const struct uroce_dev *dev, const struct uroce_io_addr *dst)
{
	uint32_t i = uroce_io_addr_is_multicast(dst) ? group_index(dev, dst) : dev->nmcg;
	return i < dev->nmcg ? dev->mcg[i] : NULL;
}

/* Only UD QPs join groups (ibv_attach_mcast(3); the kernel's ib_attach_mcast refuses other
 * types, and a GSI QP, with EINVAL), and only to a multicast address. */
static bool can_attach(const struct uroce_qp *qp, const struct uroce_io_addr *group)
{
	return qp->type == UROCE_QPT_UD && uroce_io_addr_is_multicast(group);
}

int uroce_mcast_attach(struct uroce_qp *qp, const struct uroce_io_addr *group)
{
	struct uroce_dev *dev = qp->dev;
	struct mcast_group *g;
	uint32_t i;

	if (!can_attach(qp, group))
		return UROCE_EINVAL;
	i = group_index(dev, group);
	if (i < dev->nmcg) {
		g = dev->mcg[i];
		/* Attached twice, the QP still gets one copy (ibv_attach_mcast(3)): the second
		 * attach succeeds and changes nothing, as the kernel's uverbs does. */
		for (uint32_t k = 0; k < g->nqps; k++)
			if (g->qps[k] == qp)
				return 0;
		if (g->nqps == UROCE_MAX_MCAST_QP_ATTACH)
			return UROCE_ENOMEM;
		g->qps[g->nqps++] = qp;
		qp->mcast_groups++;
		return 0;
	}
	if (dev->nmcg == UROCE_MAX_MCAST_GRP || !(g = calloc(1, sizeof(*g))))
		return UROCE_ENOMEM;
	/* Only the address's own bytes: an IPv4 group compares equal to a packet's whatever the
	 * caller left in the unused twelve. */
	g->addr.ipv6 = group->ipv6;
	memcpy(g->addr.ip, group->ip, group->ipv6 ? 16 : 4);
	g->qps[g->nqps++] = qp;
	dev->mcg[dev->nmcg++] = g;
	qp->mcast_groups++;
	return 1;
}

int uroce_mcast_detach(struct uroce_qp *qp, const struct uroce_io_addr *group)
{
	struct uroce_dev *dev = qp->dev;
	struct mcast_group *g;
	uint32_t i, k;

	if (!can_attach(qp, group))
		return UROCE_EINVAL;
	i = group_index(dev, group);
	if (i == dev->nmcg)
		return UROCE_EINVAL; /* no such group: rxe and the kernel's uverbs say EINVAL */
	g = dev->mcg[i];
	for (k = 0; k < g->nqps && g->qps[k] != qp; k++)
		;
	if (k == g->nqps)
		return UROCE_EINVAL; /* the group, but not this QP */
	/* Kept in attach order, so that copies go out in an order the caller can predict. */
	memmove(&g->qps[k], &g->qps[k + 1], (g->nqps - k - 1) * sizeof(g->qps[0]));
	g->nqps--;
	qp->mcast_groups--;
	if (g->nqps)
		return 0;
	free(g);
	memmove(&dev->mcg[i], &dev->mcg[i + 1], (dev->nmcg - i - 1) * sizeof(dev->mcg[0]));
	dev->nmcg--;
	return 1;
}

void mcast_release(struct uroce_dev *dev)
{
	for (uint32_t i = 0; i < dev->nmcg; i++) {
		for (uint32_t k = 0; k < dev->mcg[i]->nqps; k++)
			dev->mcg[i]->qps[k]->mcast_groups--;
		free(dev->mcg[i]);
	}
	dev->nmcg = 0;
}
