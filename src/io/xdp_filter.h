/* SPDX-License-Identifier: MIT */
/* The XDP program of the AF_XDP backend (xdp.c): it redirects RoCEv2 packets (UDP to the
 * RoCEv2 port, over IPv4 without options or fragments, or IPv6 without extension headers,
 * untagged Ethernet) to the AF_XDP socket bound to the receiving queue, and passes everything
 * else (ARP, neighbour discovery, the application's TCP) to the kernel.
 *
 * The program is hand-assembled (xdp_filter.c), so building uroce needs no BPF toolchain; only
 * libbpf, for the bpf() calls. */
#ifndef UROCE_IO_XDP_FILTER_H
#define UROCE_IO_XDP_FILTER_H

#include <stdbool.h>
#include <stdint.h>

struct uroce_xdp_filter {
	int prog_fd;  /* -1 when not loaded */
	int map_fd;   /* the XSKMAP: rx queue index -> AF_XDP socket; -1 when not loaded */
	int link_fd;  /* the bpf_link that attaches it; -1 when not attached */
};

/* Loads the program and an XSKMAP of nqueues entries (1..1024). port: the UDP destination
 * port to catch, host order. miss_action (an enum xdp_action of <linux/bpf.h>, XDP_ABORTED ..
 * XDP_TX): what a caught packet gets when no socket is in the map for its queue
 * (bpf_redirect_map's fallback): XDP_PASS in use; tests give XDP_DROP to tell the two paths
 * apart. Sets every field of *f, to -1 on failure, so uroce_xdp_filter_close is safe after
 * either outcome. Returns 0 or a negative errno (-EPERM without CAP_BPF and CAP_NET_ADMIN,
 * for which CAP_SYS_ADMIN stands in; -EINVAL for arguments out of range). */
int uroce_xdp_filter_load(uint16_t port, uint32_t nqueues, uint32_t miss_action,
			  struct uroce_xdp_filter *f);

/* Attaches the loaded program to ifindex through a bpf_link (BPF_XDP), so that it goes away
 * with the process (with the last copy of link_fd: a forked child keeps it attached): native
 * (driver) mode when the driver has it, else generic mode; *generic (when not NULL) tells
 * which was used. Returns 0 or a negative errno (-EBUSY/-EEXIST: another XDP program is
 * attached; -EINVAL: not loaded, or already attached). */
int uroce_xdp_filter_attach(struct uroce_xdp_filter *f, int ifindex, bool *generic);

/* Closes whatever is open and sets the fields to -1: detaches the program first, then lets go
 * of it and of the map. Safe on a filter whose fields are all -1 (never loaded, or a failed
 * load), on a partly set up one and twice. */
void uroce_xdp_filter_close(struct uroce_xdp_filter *f);

#endif
