/* SPDX-License-Identifier: MIT */
#include "xdp_filter.h"

#include <arpa/inet.h>
#include <assert.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wire/eth.h"
#include "wire/ip.h"

#define PROG_NAME "uroce_rocev2"  /* at most 15 characters (BPF_OBJ_NAME_LEN) */
#define MAP_NAME "uroce_xsks"
/* Any license string loads a program that calls no GPL-only helper, and bpf_redirect_map is
 * not one. "Dual MIT/GPL" is on the kernel's list of GPL-compatible strings
 * (include/linux/license.h), so the GPL-only helpers (bpf_trace_printk, to debug) stay open
 * to the program; MIT, uroce's license, is half of it. */
#define LICENSE "Dual MIT/GPL"
#define MAX_QUEUES 1024           /* the most XSKMAP entries (nqueues) load takes */
#define VERIFIER_LOG_SIZE (64 << 10)
#define IPV4_VERSION_IHL 0x45     /* version 4, IHL 5 words: a 20-byte header, no options */
#define IPV4_MF_AND_OFFSET 0x3fff /* the More Fragments flag and the 13-bit fragment offset */

/* ---- the assembler ---- */

/* Where the program jumps: a label line in the table marks the instruction that follows it. */
enum label { NO_LABEL, IPV6, REDIRECT, PASS, NLABELS };

/* One line of the program table: an instruction, or a label. A jump names its target label;
 * assemble() turns the name into the offset the kernel wants. */
struct asm_line {
	struct bpf_insn insn;
	enum label defines;  /* a label line: no instruction, names the next one */
	enum label jumps_to; /* a jump: insn.off is set from this label */
};

/* The instructions the program needs, in the kernel's encoding (include/uapi/linux/bpf.h;
 * Documentation/bpf/standardization/instruction-set.rst). The kernel's own macros for them
 * (tools/include/linux/filter.h) are not in the uapi headers. All arithmetic is 64-bit. */
#define INSN(opcode, dst, src, offset, immediate) \
	{.insn = {.code = (opcode), .dst_reg = (dst), .src_reg = (src), .off = (offset), \
		  .imm = (immediate)}}
/* dst = *(size *)(src + offset); size BPF_B, BPF_H or BPF_W, in host byte order */
#define LOAD(size, dst, src, offset) INSN(BPF_LDX | BPF_MEM | (size), dst, src, offset, 0)
#define MOVE(dst, src) INSN(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0)    /* dst = src */
#define SET(dst, immediate) INSN(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, immediate)
#define ADD(dst, immediate) INSN(BPF_ALU64 | BPF_ADD | BPF_K, dst, 0, 0, immediate)
/* if (dst op immediate) goto label; op BPF_JEQ, BPF_JNE, BPF_JSET (dst & immediate) ... */
#define JUMP_IF(op, dst, immediate, label) \
	{.insn = {.code = BPF_JMP | (op) | BPF_K, .dst_reg = (dst), .imm = (immediate)}, \
	 .jumps_to = (label)}
/* if (dst op src) goto label; op BPF_JGT is unsigned > */
#define JUMP_IF_REG(op, dst, src, label) \
	{.insn = {.code = BPF_JMP | (op) | BPF_X, .dst_reg = (dst), .src_reg = (src)}, \
	 .jumps_to = (label)}
#define JUMP(label) {.insn = {.code = BPF_JMP | BPF_JA}, .jumps_to = (label)}
/* dst = the map whose fd is map_fd: a 16-byte instruction, so two lines; the kernel swaps
 * the fd for the map's address (BPF_PSEUDO_MAP_FD). */
#define LOAD_MAP(dst, map_fd) \
	INSN(BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_FD, 0, map_fd), \
	INSN(0, 0, 0, 0, 0) /* the upper 32 bits of the 64-bit immediate */
/* r0 = helper(r1, .., r5) */
#define CALL(helper) INSN(BPF_JMP | BPF_CALL, 0, 0, 0, helper)
#define EXIT() INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0) /* return r0 */
#define LABEL(name) {.defines = (name)}

/* Drops the label lines and sets each jump's offset, which counts instructions from the one
 * after the jump. out has room for nlines; returns the instruction count. */
static size_t assemble(const struct asm_line *lines, size_t nlines, struct bpf_insn *out)
{
	size_t label_at[NLABELS] = {0};
	size_t n = 0;

	for (size_t i = 0; i < nlines; i++) {
		if (lines[i].defines != NO_LABEL)
			label_at[lines[i].defines] = n;
		else
			n++;
	}
	n = 0;
	for (size_t i = 0; i < nlines; i++) {
		if (lines[i].defines != NO_LABEL)
			continue;
		out[n] = lines[i].insn;
		if (lines[i].jumps_to != NO_LABEL)
			out[n].off = (int16_t)((long)label_at[lines[i].jumps_to] - (long)n - 1);
		n++;
	}
	return n;
}

/* ---- the program ---- */

/* Where the program looks, in bytes from the start of the frame (untagged Ethernet, so the
 * IP header starts at 14). */
enum frame_offset {
	AT_ETHERTYPE = 12,
	/* IPv4 (RFC 791) */
	AT_IPV4_VERSION_IHL = UROCE_ETH_HLEN,
	AT_IPV4_FLAGS_FRAGMENT = UROCE_ETH_HLEN + 6,
	AT_IPV4_PROTOCOL = UROCE_ETH_HLEN + 9,
	AT_IPV4_UDP_DPORT = UROCE_ETH_HLEN + UROCE_IPV4_HLEN + 2,
	IPV4_UDP_END = UROCE_ETH_HLEN + UROCE_IPV4_HLEN + UROCE_UDP_HLEN,
	/* IPv6 (RFC 8200) */
	AT_IPV6_NEXT_HEADER = UROCE_ETH_HLEN + 6,
	AT_IPV6_UDP_DPORT = UROCE_ETH_HLEN + UROCE_IPV6_HLEN + 2,
	IPV6_UDP_END = UROCE_ETH_HLEN + UROCE_IPV6_HLEN + UROCE_UDP_HLEN,
};

/* Writes the program into prog (room for PROG_MAX instructions); returns its length.
 *
 * Registers: r1 the context (struct xdp_md) throughout, r2 data (the frame's first byte), r3
 * data_end (one past its last), r4 the end of the headers a step is about to read, r5 the
 * field read. The verifier refuses any packet read it cannot prove is below data_end, so each
 * protocol first checks that its headers, UDP's included, are all in the frame.
 *
 * Byte order: a 16-bit load reads the field's two bytes as a host-order number (swapped, on
 * little-endian x86), so the program compares it with the constant in network order, made
 * here with htons: no byte swap runs per packet. */
#define PROG_MAX 48
static size_t build_program(uint16_t port, int map_fd, uint32_t miss_action,
			    struct bpf_insn prog[PROG_MAX])
{
	const int port_be = htons(port);
	const struct asm_line lines[] = {
		/* r2 = ctx->data, r3 = ctx->data_end (u32 fields the verifier rewrites into
		 * pointer loads) */
		LOAD(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct xdp_md, data)),
		LOAD(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct xdp_md, data_end)),
		/* a whole Ethernet header, or pass */
		MOVE(BPF_REG_4, BPF_REG_2),
		ADD(BPF_REG_4, UROCE_ETH_HLEN),
		JUMP_IF_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, PASS),
		/* EtherType: IPv6 below, IPv4 next, anything else (VLAN tags too) passes */
		LOAD(BPF_H, BPF_REG_5, BPF_REG_2, AT_ETHERTYPE),
		JUMP_IF(BPF_JEQ, BPF_REG_5, htons(UROCE_ETHERTYPE_IPV6), IPV6),
		JUMP_IF(BPF_JNE, BPF_REG_5, htons(UROCE_ETHERTYPE_IPV4), PASS),

		/* IPv4: a 20-byte header and a UDP header in the frame, or pass */
		MOVE(BPF_REG_4, BPF_REG_2),
		ADD(BPF_REG_4, IPV4_UDP_END),
		JUMP_IF_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, PASS),
		/* version 4 and no options (the UDP header is then at a fixed place), or pass */
		LOAD(BPF_B, BPF_REG_5, BPF_REG_2, AT_IPV4_VERSION_IHL),
		JUMP_IF(BPF_JNE, BPF_REG_5, IPV4_VERSION_IHL, PASS),
		/* protocol UDP, or pass */
		LOAD(BPF_B, BPF_REG_5, BPF_REG_2, AT_IPV4_PROTOCOL),
		JUMP_IF(BPF_JNE, BPF_REG_5, UROCE_IPPROTO_UDP, PASS),
		/* a fragment (MF set or a nonzero offset) passes: the kernel reassembles it */
		LOAD(BPF_H, BPF_REG_5, BPF_REG_2, AT_IPV4_FLAGS_FRAGMENT),
		JUMP_IF(BPF_JSET, BPF_REG_5, htons(IPV4_MF_AND_OFFSET), PASS),
		/* UDP to the RoCEv2 port: redirect; else pass */
		LOAD(BPF_H, BPF_REG_5, BPF_REG_2, AT_IPV4_UDP_DPORT),
		JUMP_IF(BPF_JEQ, BPF_REG_5, port_be, REDIRECT),
		JUMP(PASS),

		LABEL(IPV6),
		/* IPv6: the 40-byte header and a UDP header in the frame, or pass */
		MOVE(BPF_REG_4, BPF_REG_2),
		ADD(BPF_REG_4, IPV6_UDP_END),
		JUMP_IF_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, PASS),
		/* next header UDP, or pass (extension headers, fragments included, go to the
		 * kernel) */
		LOAD(BPF_B, BPF_REG_5, BPF_REG_2, AT_IPV6_NEXT_HEADER),
		JUMP_IF(BPF_JNE, BPF_REG_5, UROCE_IPPROTO_UDP, PASS),
		/* UDP to the RoCEv2 port: redirect; else pass */
		LOAD(BPF_H, BPF_REG_5, BPF_REG_2, AT_IPV6_UDP_DPORT),
		JUMP_IF(BPF_JNE, BPF_REG_5, port_be, PASS),

		LABEL(REDIRECT),
		/* return bpf_redirect_map(&xskmap, ctx->rx_queue_index, miss_action): to the
		 * socket of the queue the frame came in on; when there is none, the helper
		 * returns its flags' lower two bits, miss_action (include/uapi/linux/bpf.h,
		 * bpf_redirect_map; since Linux 5.3, which made libbpf's old xsk.c load this
		 * very program, with XDP_PASS, as its "post-5.3" default) */
		LOAD(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct xdp_md, rx_queue_index)),
		LOAD_MAP(BPF_REG_1, map_fd),
		SET(BPF_REG_3, (int32_t)miss_action),
		CALL(BPF_FUNC_redirect_map),
		EXIT(),

		LABEL(PASS),
		/* return XDP_PASS: the kernel's stack takes the frame */
		SET(BPF_REG_0, XDP_PASS),
		EXIT(),
	};
	static_assert(sizeof(lines) / sizeof(lines[0]) <= PROG_MAX, "PROG_MAX is too small");

	return assemble(lines, sizeof(lines) / sizeof(lines[0]), prog);
}

/* ---- loading and attaching ---- */

static void print_verifier_log(const char *log)
{
	for (const char *line = log; *line != '\0';) {
		const char *end = strchrnul(line, '\n');

		fprintf(stderr, "uroce: xdp filter: %.*s\n", (int)(end - line), line);
		line = *end != '\0' ? end + 1 : end;
	}
}

/* Returns the program's fd or a negative errno. */
static int load_program(const struct bpf_insn *prog, size_t n)
{
	int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, PROG_NAME, LICENSE, prog, n, NULL);

	if (fd >= 0 || fd == -EPERM)
		return fd;
	/* Refused: load again with the verifier's log, to say why. Not the first time, which
	 * spares every load a log buffer. */
	char *log = calloc(1, VERIFIER_LOG_SIZE);
	if (log == NULL)
		return fd;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log, .log_size = VERIFIER_LOG_SIZE,
		    .log_level = 1);
	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, PROG_NAME, LICENSE, prog, n, &opts);
	if (fd < 0) {
		fprintf(stderr, "uroce: xdp filter: the kernel refused the program: %s\n",
			strerror(-fd));
		print_verifier_log(log);
	}
	free(log);
	return fd;
}

int uroce_xdp_filter_load(uint16_t port, uint32_t nqueues, uint32_t miss_action,
			  struct uroce_xdp_filter *f)
{
	struct bpf_insn prog[PROG_MAX];

	f->prog_fd = f->map_fd = f->link_fd = -1;
	if (nqueues < 1 || nqueues > MAX_QUEUES || miss_action > XDP_TX)
		return -EINVAL;
	/* key: the rx queue index; value: an AF_XDP socket's fd (on update) */
	int map_fd = bpf_map_create(BPF_MAP_TYPE_XSKMAP, MAP_NAME, sizeof(uint32_t),
				    sizeof(uint32_t), nqueues, NULL);
	if (map_fd < 0)
		return map_fd; /* libbpf 1.x returns -errno */
	int prog_fd = load_program(prog, build_program(port, map_fd, miss_action, prog));
	if (prog_fd < 0) {
		close(map_fd);
		return prog_fd;
	}
	f->map_fd = map_fd;
	f->prog_fd = prog_fd;
	return 0;
}

int uroce_xdp_filter_attach(struct uroce_xdp_filter *f, int ifindex, bool *generic)
{
	if (f->prog_fd < 0 || f->link_fd >= 0)
		return -EINVAL;
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = XDP_FLAGS_DRV_MODE);
	bool in_generic = false;
	int fd = bpf_link_create(f->prog_fd, ifindex, BPF_XDP, &opts);
	if (fd == -EOPNOTSUPP || fd == -EINVAL) {
		/* The driver has no native XDP, or not in its present setup (an MTU too large
		 * for it, say): generic mode runs the program on the skb, with any driver. */
		opts.flags = XDP_FLAGS_SKB_MODE;
		in_generic = true;
		fd = bpf_link_create(f->prog_fd, ifindex, BPF_XDP, &opts);
	}
	if (fd < 0)
		return fd;
	f->link_fd = fd;
	if (generic != NULL)
		*generic = in_generic;
	return 0;
}

void uroce_xdp_filter_close(struct uroce_xdp_filter *f)
{
	/* The link first: closing it detaches the program from the interface. */
	int *fds[] = {&f->link_fd, &f->prog_fd, &f->map_fd};

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}
