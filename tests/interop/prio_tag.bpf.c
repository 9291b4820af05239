// SPDX-License-Identifier: MIT
/* What a NIC does with a packet's priority when it sends priority-tagged frames, for
 * tests/interop/test_cnp_prio.sh (this kernel has no VLAN devices, CONFIG_VLAN_8021Q): a tc
 * egress program (clsact) on a veth gives every frame an 802.1Q tag of VLAN 0 whose PCP is the
 * packet's priority (skb->priority, which SO_PRIORITY sets; 0 when above 7), as a VLAN
 * device's egress-qos-map of p:p would. A VLAN 0 tag is a priority tag (802.1Q): the
 * receiving kernel removes it and takes the frame, with no VLAN device.
 *
 * Built at test time: clang -O2 -target bpf -c prio_tag.bpf.c; loaded with
 * tc filter add dev DEV egress bpf da obj prio_tag.bpf.o sec tc. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

SEC("tc")
int prio_tag(struct __sk_buff *skb)
{
	__u32 prio = skb->priority <= 7 ? skb->priority : 0;

	if (skb->vlan_present)
		return TC_ACT_OK;
	bpf_skb_vlan_push(skb, bpf_htons(ETH_P_8021Q), (__u16)(prio << 13));
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
