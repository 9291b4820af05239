/* SPDX-License-Identifier: MIT */
/* The CM fuzz target's seed generator: `fuzz_cm_seeds DIR` writes fuzz/corpus/cm
 * (fuzz/make-corpus.sh runs it). Each seed is a script in fuzz_cm.h's format; after writing
 * it, the generator runs it on the target's own CMs and checks that it reached its case (an
 * event taken, a counter moved), so that a seed that stops reaching its case after a change
 * fails here, not silently. Seeds: a clean connection closed from either side (IPv4, IPv6);
 * one on a bad network (losses, duplicates, swaps, a changed MAD, time); a rejected one; an
 * MRA; COMM_EST; each timeout (REQ, REP, DREQ, SIDR_REQ); SIDR; destroy in REQ_SENT,
 * REQ_RCVD and ESTABLISHED; a stale connection; a made MAD of every attribute naming a live
 * connection; MADs with bad headers; overlapping listeners. */
#include "fuzz_cm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/bytes.h"

#define FLAG6 0x40
#define FLAG7 0x80
#define RETRIES_T18 (7 << 5 | 15 << 1) /* FC_CONNECT arg: timeouts 18, 15 retries */
#define RETRIES_T4 (0 << 5 | 2 << 1)   /* timeouts 4 (65 us), 2 retries */

static const char *g_dir;
static uint8_t g_buf[4096];
static size_t g_len;
static int g_seeds;

static void b(uint8_t x) { g_buf[g_len++] = x; }
static void op(enum fc_op o, int node, uint8_t flags) { b((uint8_t)(o | node << 4 | flags)); }

static void api(int node, enum fc_call c, int slot, int arg, int peer)
{
	op(FC_API, node, 0);
	b((uint8_t)c);
	b((uint8_t)slot);
	b((uint8_t)arg);
	b((uint8_t)peer);
}

static void api_flags(int node, enum fc_call c, int slot, int arg, int peer, uint8_t flags)
{
	op(FC_API, node, flags);
	b((uint8_t)c);
	b((uint8_t)slot);
	b((uint8_t)arg);
	b((uint8_t)peer);
}

static void settle(void) { op(FC_SETTLE, 0, 0); }
static void events(int node, bool answer) { op(FC_EVENTS, node, answer ? FLAG6 : 0); }
static void deliver(int n)
{
	op(FC_DELIVER, 0, 0);
	b((uint8_t)n);
}
static void time_step(int k)
{
	op(FC_TIME, 0, 0);
	b((uint8_t)k);
}

/* A made MAD for `node`: attr index into the target's table, body bytes. */
static void inject(int node, int attr, uint8_t flags, const uint8_t *body, size_t len)
{
	op(FC_INJECT, node, flags);
	b((uint8_t)attr);
	b((uint8_t)len);
	for (size_t k = 0; k < len; k++)
		b(body[k]);
}

/* Runs the script, checks that it reached its case, writes it. */
static void seed(const char *name, bool reached)
{
	char path[4096];
	FILE *f;

	if (!reached) {
		fprintf(stderr, "seed %s does not reach its case; what it did:\n", name);
		for (int i = 0; i < FC_NODES; i++) {
			const union uroce_cm_counters *c = uroce_cm_counters(fc_cm(i));
			for (int k = 0; k < UROCE_CM_NCOUNTERS; k++)
				if (c->v[k])
					fprintf(stderr, "  node %d %s %llu\n", i,
						uroce_cm_counter_name((enum uroce_cm_counter)k),
						(unsigned long long)c->v[k]);
			for (int e = 0; e < UROCE_CM_NEVENTS; e++)
				if (fc_events(i, (enum uroce_cm_event_type)e))
					fprintf(stderr, "  node %d %s x%d\n", i,
						uroce_cm_event_name((enum uroce_cm_event_type)e),
						fc_events(i, (enum uroce_cm_event_type)e));
		}
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s", g_dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(g_buf, 1, g_len, f) != g_len || fclose(f)) {
		fprintf(stderr, "%s: cannot write\n", path);
		exit(1);
	}
	fc_finish();
	g_len = 0;
	g_seeds++;
}

static uint64_t counter(int node, enum uroce_cm_counter c)
{
	return uroce_cm_counters(fc_cm(node))->v[c];
}

/* The connection from node 0 (slot 2) to node 1, established (node 1's ID lands in its
 * slot 2: 0 and 1 hold the listeners). */
static void connect01(int arg)
{
	api(0, FC_CONNECT, 2, arg, 1);
	settle();
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	g_dir = argv[1];

	connect01(RETRIES_T18);
	api(0, FC_DREQ, 2, 0, 0);
	settle();
	time_step(21);
	settle();
	fc_run(g_buf, g_len);
	seed("connect-close-active", fc_events(1, UROCE_CM_EV_RTU_RECEIVED) == 1 &&
					     fc_events(1, UROCE_CM_EV_DREQ_RECEIVED) == 1 &&
					     fc_events(0, UROCE_CM_EV_TIMEWAIT_EXIT) == 1);

	connect01(RETRIES_T18 | 1);
	api(1, FC_DREQ, 2, 10, 0);
	settle();
	fc_run(g_buf, g_len);
	seed("connect-ipv6-close-passive", fc_events(0, UROCE_CM_EV_DREQ_RECEIVED) == 1 &&
						   fc_events(1, UROCE_CM_EV_DREP_RECEIVED) == 1);

	/* A bad network: the REQ lost, its resend duplicated, the REP changed, swaps. */
	api(0, FC_CONNECT, 2, RETRIES_T4, 1);
	api(2, FC_CONNECT, 3, RETRIES_T4, 1);
	op(FC_DROP, 0, 0);
	op(FC_SWAP, 0, 0);
	time_step(5);
	op(FC_DUP, 0, 0);
	deliver(2);
	events(1, true);
	op(FC_MUTATE, 0, 0);
	b(1);
	b(24 + 20);
	b(0x01);
	time_step(5);
	settle();
	time_step(12); /* past node 0's REQ timeout: 2 x 4.096 us x 2^10 + 4.096 us x 2^4 */
	settle();
	fc_run(g_buf, g_len);
	seed("lossy", counter(0, UROCE_CM_CNT_tx_retries) > 0 &&
			      counter(1, UROCE_CM_CNT_tx_retries) > 0 &&
			      counter(1, UROCE_CM_CNT_dup_req) > 0 &&
			      fc_events(0, UROCE_CM_EV_REP_RECEIVED) == 1);

	api(0, FC_CONNECT, 2, RETRIES_T18, 1);
	deliver(1);
	events(1, false);
	api_flags(1, FC_REJ, 2, 28, 0, FLAG6);
	deliver(1);
	events(0, true);
	fc_run(g_buf, g_len);
	seed("reject", fc_events(0, UROCE_CM_EV_REJ_RECEIVED) == 1);

	api(0, FC_CONNECT, 2, RETRIES_T4, 1);
	deliver(1);
	events(1, false);
	api(1, FC_MRA, 2, 12, 0);
	deliver(1);
	events(0, true);
	time_step(13);
	api(1, FC_ACCEPT, 2, 1, 0);
	settle();
	fc_run(g_buf, g_len);
	seed("mra", fc_events(0, UROCE_CM_EV_MRA_RECEIVED) == 1 &&
			    fc_events(0, UROCE_CM_EV_REP_RECEIVED) == 1);

	api(0, FC_CONNECT, 2, RETRIES_T18, 1);
	deliver(1);
	events(1, true);
	api(1, FC_ESTABLISH, 2, 0, 0);
	events(1, false);
	fc_run(g_buf, g_len);
	seed("comm-est", fc_events(1, UROCE_CM_EV_USER_ESTABLISHED) == 1);

	op(FC_DOWN, 1, 0);
	api(0, FC_CONNECT, 2, RETRIES_T4, 1);
	for (int k = 0; k < 4; k++)
		time_step(13); /* 33 ms: a REQ timeout of the connect is 8.45 ms */
	events(0, false);
	fc_run(g_buf, g_len);
	seed("req-timeout", fc_events(0, UROCE_CM_EV_REQ_ERROR) == 1);

	api(0, FC_CONNECT, 2, RETRIES_T4, 1);
	deliver(1);
	events(1, true);
	op(FC_DOWN, 0, 0);
	for (int k = 0; k < 4; k++)
		time_step(5);
	events(1, false);
	fc_run(g_buf, g_len);
	seed("rep-timeout", fc_events(1, UROCE_CM_EV_REP_ERROR) == 1);

	connect01(RETRIES_T4);
	op(FC_DOWN, 1, 0);
	api(0, FC_DREQ, 2, 0, 0);
	for (int k = 0; k < 4; k++)
		time_step(13);
	events(0, false);
	fc_run(g_buf, g_len);
	seed("dreq-timeout", fc_events(0, UROCE_CM_EV_DREQ_ERROR) == 1);

	api(0, FC_SIDR_REQ, 2, 0x52, 1);
	settle();
	fc_run(g_buf, g_len);
	seed("sidr", fc_events(0, UROCE_CM_EV_SIDR_REP_RECEIVED) == 1 &&
			     fc_events(1, UROCE_CM_EV_SIDR_REQ_RECEIVED) == 1);

	op(FC_DOWN, 2, 0);
	api(0, FC_SIDR_REQ, 2, 0x42, 2);
	for (int k = 0; k < 4; k++)
		time_step(5);
	events(0, false);
	fc_run(g_buf, g_len);
	seed("sidr-timeout", fc_events(0, UROCE_CM_EV_SIDR_REQ_ERROR) == 1);

	api(0, FC_CONNECT, 2, RETRIES_T18, 1);
	deliver(1);
	api(0, FC_DESTROY, 2, 0, 0);
	deliver(1);
	events(1, false);
	fc_run(g_buf, g_len);
	seed("destroy-req-sent", fc_events(1, UROCE_CM_EV_REJ_RECEIVED) == 1);

	api(0, FC_CONNECT, 2, RETRIES_T18, 1);
	deliver(1);
	events(1, false);
	api(1, FC_DESTROY, 2, 0, 0);
	deliver(1);
	events(0, false);
	fc_run(g_buf, g_len);
	seed("destroy-req-rcvd", fc_events(0, UROCE_CM_EV_REJ_RECEIVED) == 1);

	connect01(RETRIES_T18);
	api(0, FC_DESTROY, 2, 0, 0);
	settle();
	fc_run(g_buf, g_len);
	seed("destroy-established", fc_events(1, UROCE_CM_EV_DREQ_RECEIVED) == 1);

	/* A REQ from node 0's CA and QP (0x1000), sent again from elsewhere: stale. */
	uint8_t req[64] = {0};
	connect01(RETRIES_T18);
	put_be32(req, 0x99);
	put_be64(req + 8, FC_SID_TCP);
	put_be64(req + 16, 0x505400FFFE181001ull);
	put_be24(req + 32, 0x1000);
	req[50] = 0x30;
	inject(1, 0, 0, req, sizeof(req));
	settle();
	fc_run(g_buf, g_len);
	seed("stale", counter(1, UROCE_CM_CNT_rej_stale_sent) == 1 &&
			      fc_events(0, UROCE_CM_EV_DREQ_RECEIVED) == 1);

	/* A REP naming a QP already connected here (node 1's first, 0x1000 of CA ...1002):
	 * stale, REJ for the REP and a DREQ for the old connection. */
	uint8_t rep[40] = {0};
	connect01(RETRIES_T18);
	api(0, FC_CONNECT, 3, RETRIES_T18, 1);
	rep[8] = 3; /* the slot whose comm IDs the REP gets */
	put_be24(rep + 12, 0x2000);
	put_be64(rep + 28, 0x505400FFFE181002ull);
	inject(0, 3, FLAG6, rep, sizeof(rep));
	events(0, false);
	fc_run(g_buf, g_len);
	seed("stale-rep", counter(0, UROCE_CM_CNT_rej_stale_sent) == 1 &&
				  fc_events(0, UROCE_CM_EV_REP_RECEIVED) == 1);

	/* Node 1 out of IDs: ten connections from node 0 fill it, node 2's is dropped. */
	for (int k = 2; k < FC_SLOTS; k++)
		api(0, FC_CONNECT, k, RETRIES_T18, 1);
	api(2, FC_CONNECT, 2, RETRIES_T18, 1);
	deliver(11);
	fc_run(g_buf, g_len);
	seed("no-ids", counter(1, UROCE_CM_CNT_drop_no_resources) >= 1);

	/* Made MADs of every attribute, naming the connection in node 1's slot 2. */
	static const char *const attr_names[] = {"req", "mra", "rej", "rep", "rtu", "dreq",
						 "drep", "sidr-req", "sidr-rep", "lap", "apr",
						 "classportinfo", "unassigned", "vendor"};
	for (int a = 0; a < 14; a++) {
		uint8_t body[16] = {0};
		char name[64];
		connect01(RETRIES_T18);
		body[8] = 2; /* the slot */
		inject(1, a, FLAG6, body, sizeof(body));
		settle();
		fc_run(g_buf, g_len);
		snprintf(name, sizeof(name), "inject-%s", attr_names[a]);
		/* Delivered on top of the REQ and the RTU. */
		seed(name, counter(1, UROCE_CM_CNT_rx_mads) == 3);
	}

	/* Bad headers: raw MADs of each kind of fault. */
	static const uint8_t hdrs[][4] = {{2, 7, 2, 3}, {1, 3, 2, 3}, {1, 7, 1, 3}, {1, 7, 2, 0x83}};
	for (int h = 0; h < 4; h++) {
		uint8_t raw[18] = {0};
		char name[64];
		memcpy(raw, hdrs[h], 4);
		raw[17] = 0x10;
		inject(1, 0, FLAG7, raw, sizeof(raw));
		fc_run(g_buf, g_len);
		snprintf(name, sizeof(name), "bad-header-%d", h);
		seed(name, counter(1, UROCE_CM_CNT_rx_handled) == 0 &&
				   counter(1, UROCE_CM_CNT_rx_mads) == 1);
	}

	api(2, FC_LISTEN, 4, 2, 0);
	api(2, FC_LISTEN, 5, 0x33, 0);
	api(0, FC_CONNECT, 2, RETRIES_T18, 2);
	settle();
	fc_run(g_buf, g_len);
	seed("listen", fc_slot(2, 4) && uroce_cm_id_state(fc_slot(2, 4)) == UROCE_CM_IDLE &&
			       uroce_cm_id_state(fc_slot(2, 5)) == UROCE_CM_LISTEN &&
			       fc_events(0, UROCE_CM_EV_REP_RECEIVED) == 1);

	printf("%d seeds written to %s\n", g_seeds, g_dir);
	return 0;
}
