// SPDX-License-Identifier: MIT
/* The marking half of a congested switch port, for tests/interop/test_cc_live.sh (this
 * kernel has no RED qdisc): a tc egress program (clsact) on the bottleneck port keeps a
 * virtual queue that every packet joins and that drains at VQ_RATE bytes per second, a little
 * slower than the port itself (a tbf qdisc, the real queue), as deep as VQ_LIMIT bytes, and
 * marks an ECN-capable IPv4 packet CE with RED's probability on the virtual queue's depth:
 * none below KMIN bytes, rising linearly to PMAX_PPM per million at KMAX, every packet above
 * KMAX (the DCQCN paper's marking, Zhu et al., SIGCOMM 2015, section 3.1). Marking on a virtual queue that drains
 * slower than the link is HULL's phantom queue (Alizadeh et al., NSDI 2012): senders that
 * heed the marks keep the real queue near empty.
 *
 * Built at test time: clang -O2 -target bpf -DVQ_RATE=... -c cc_bottleneck.bpf.c; loaded
 * with tc filter add dev PORT egress bpf da obj cc_bottleneck.bpf.o sec tc. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <stddef.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#ifndef VQ_RATE
#define VQ_RATE 23750000ull /* bytes per second: 95 % of 200 Mbit/s */
#endif
#ifndef KMIN
#define KMIN 5000ull
#endif
#ifndef KMAX
#define KMAX 200000ull
#endif
#ifndef PMAX_PPM
#define PMAX_PPM 10000ull /* 1 % */
#endif
#ifndef VQ_LIMIT
#define VQ_LIMIT 131072ull /* bytes: a queue is as deep as its buffer, the real one's */
#endif

struct vq {
	struct bpf_spin_lock lock;
	__u64 t_ns;  /* when bytes was last brought up to date */
	__u64 bytes; /* the virtual queue's depth */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vq);
} vq SEC(".maps");

/* The depth the packet of len bytes finds, itself included. */
static __always_inline __u64 vq_join(struct vq *q, __u64 now, __u64 len)
{
	__u64 depth;

	bpf_spin_lock(&q->lock);
	__u64 idle = now - q->t_ns;
	/* a second idle empties any queue this test builds; no overflow in the product */
	__u64 drained = idle >= 1000000000ull ? q->bytes : idle * VQ_RATE / 1000000000ull;
	q->bytes = (q->bytes > drained ? q->bytes - drained : 0) + len;
	/* what a full buffer would drop does not stay in the queue (the tbf drops it) */
	if (q->bytes > VQ_LIMIT)
		q->bytes = VQ_LIMIT;
	q->t_ns = now;
	depth = q->bytes;
	bpf_spin_unlock(&q->lock);
	return depth;
}

SEC("tc")
int mark(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	__u32 key = 0;
	struct vq *q = bpf_map_lookup_elem(&vq, &key);

	if (!q || (void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	__u8 tos = ip->tos;
	__u16 old_word = *(__u16 *)ip; /* version/IHL and TOS: the checksum's 16-bit word */
	__u64 depth = vq_join(q, bpf_ktime_get_ns(), skb->len);

	if ((tos & 3) == 0 || (tos & 3) == 3 || depth <= KMIN)
		return TC_ACT_OK; /* not ECN-capable, already marked, or no queue */
	if (depth < KMAX &&
	    bpf_get_prandom_u32() % 1000000u >= PMAX_PPM * (depth - KMIN) / (KMAX - KMIN))
		return TC_ACT_OK;
	__u8 ce = tos | 3;
	__u16 new_word = old_word;
	((__u8 *)&new_word)[1] = ce;
	bpf_l3_csum_replace(skb, ETH_HLEN + offsetof(struct iphdr, check), old_word, new_word, 2);
	bpf_skb_store_bytes(skb, ETH_HLEN + offsetof(struct iphdr, tos), &ce, 1, 0);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
