/* SPDX-License-Identifier: MIT */
/* Multicast groups: which UD QPs of the device are attached to which IP multicast group
 * (docs/engine.md "Multicast"). */
#ifndef UROCE_ENGINE_MCAST_H
#define UROCE_ENGINE_MCAST_H

#include "priv.h"

/* The group whose address is dst (the destination of a received datagram), or NULL when no
 * QP of the device is attached to it. */
const struct mcast_group *mcast_find(const struct uroce_dev *dev, const struct uroce_io_addr *dst);
/* Detaches every QP from every group and frees the groups: the device is going away. */
void mcast_release(struct uroce_dev *dev);

#endif
