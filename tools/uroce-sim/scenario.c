/* SPDX-License-Identifier: MIT */
#include "scenario.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "io/sim.h"

#define BATCH 32
#define WINDOW_WRS 16    /* WRITEs a running sender keeps posted: more than the RC window
			  * (128 packets), little enough that a sender that stops drains soon */
#define REFILL_NS 20000  /* how often the senders' queues are topped up */
/* Converged: over the last CONV_WINDOW_NS, the running flows' Jain's index at least
 * CONV_JAIN and their sum within CONV_TOL of the bottleneck (neither idle nor overrunning it).
 * Measured: per-millisecond shares under DCQCN swing by 30 %, two milliseconds smooth it. */
#define CONV_WINDOW_NS 2000000
#define CONV_JAIN 0.95
#define CONV_TOL 0.10
#define RING_PKTS 8192
#define PKT_MAX (UROCE_MAX_DATAGRAM)

void scenario_defaults(struct scenario *s)
{
	memset(s, 0, sizeof(*s));
	s->senders = 2;
	s->cc.algo = UROCE_CC_DCQCN;
	s->link_bps = 25000000000ull;
	s->bottleneck_bps = 10000000000ull;
	s->latency_ns = 1000;
	s->queue_bytes = 16000000;
	s->ce_kmin = 20000;
	s->ce_kmax = 100000;
	s->ce_pmax = 0.5;
	s->duration_ns = 60000000;
	s->sample_ns = 100000;
	s->msg_bytes = 65536;
	s->ack_timeout = 14;
	s->core_bps = 100000000000ull;
	s->spines = 4;
	s->dscp = 26;
	s->seed = 1;
}

/* ---- the scenario's keys ---- */

static bool num(const char *v, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	return !errno && end != v && !*end && *out >= lo && *out <= hi;
}

/* A comma list of numbers times unit into out[]; false when malformed or longer than max. */
static bool num_list(const char *v, double unit, uint64_t *out, uint32_t max)
{
	char buf[1024];
	uint32_t n = 0;

	if (strlen(v) >= sizeof(buf))
		return false;
	strcpy(buf, v);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		double x;
		if (n == max || !num(t, 0, 1e9, &x))
			return false;
		out[n++] = (uint64_t)(x * unit);
	}
	return n > 0;
}

bool scenario_set(struct scenario *s, const char *key, const char *value, char *why,
		  size_t whylen)
{
	double v, a, b, c;

	if (!strcmp(key, "cc")) {
		char msg[256];
		if (uroce_cc_parse(value, &s->cc, msg, sizeof(msg))) {
			snprintf(why, whylen, "cc: %s", msg);
			return false;
		}
		return true;
	}
	if (!strcmp(key, "topology")) {
		static const char *const names[] = {
			[SCENARIO_DUMBBELL] = "dumbbell",
			[SCENARIO_PARKING_LOT] = "parking_lot",
			[SCENARIO_LEAF_SPINE] = "leaf_spine",
		};
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(value, names[i])) {
				s->topology = (enum scenario_topology)i;
				return true;
			}
		snprintf(why, whylen, "topology: dumbbell, parking_lot or leaf_spine");
		return false;
	}
	if (!strcmp(key, "red")) {
		if (sscanf(value, "%lf,%lf,%lf", &a, &b, &c) != 3 || a < 0 || b <= a || c < 0 ||
		    c > 1) {
			snprintf(why, whylen, "red: KMIN_KB,KMAX_KB,PMAX with KMIN < KMAX, PMAX in [0, 1]");
			return false;
		}
		s->ce_kmin = (uint64_t)(a * 1000);
		s->ce_kmax = (uint64_t)(b * 1000);
		s->ce_pmax = c;
		return true;
	}
	if (!strcmp(key, "pfc")) {
		if (sscanf(value, "%lf,%lf", &a, &b) != 2 || b < 0 || a <= b || a > 1e6) {
			snprintf(why, whylen, "pfc: XOFF_KB,XON_KB with XON < XOFF");
			return false;
		}
		s->pfc_xoff = (uint64_t)(a * 1000);
		s->pfc_xon = (uint64_t)(b * 1000);
		return true;
	}
	if (!strcmp(key, "starts_ms") || !strcmp(key, "stops_ms")) {
		uint64_t *list = !strcmp(key, "starts_ms") ? s->start_ns : s->stop_ns;
		if (!num_list(value, 1e6, list, SCENARIO_MAX_FLOWS)) {
			snprintf(why, whylen, "%s: a comma list of times in ms, one per sender", key);
			return false;
		}
		return true;
	}
	if (!strcmp(key, "sizes_kb")) {
		if (!num_list(value, 1e3, s->size_bytes, SCENARIO_MAX_FLOWS)) {
			snprintf(why, whylen, "sizes_kb: a comma list of sizes in KB, one per sender");
			return false;
		}
		return true;
	}
	static const struct {
		const char *key;
		double lo, hi, unit;
		size_t off;
		bool u32;
	} keys[] = {
		{"senders", 1, SCENARIO_MAX_FLOWS, 1, offsetof(struct scenario, senders), true},
		{"link_gbps", 0.001, 400, 1e9, offsetof(struct scenario, link_bps), false},
		{"bottleneck_gbps", 0.001, 400, 1e9, offsetof(struct scenario, bottleneck_bps), false},
		{"latency_us", 0, 10000, 1e3, offsetof(struct scenario, latency_ns), false},
		{"queue_kb", 1, 1e6, 1e3, offsetof(struct scenario, queue_bytes), false},
		{"threshold_kb", 0, 1e6, 1e3, offsetof(struct scenario, ce_threshold), false},
		{"duration_ms", 0.01, 1e5, 1e6, offsetof(struct scenario, duration_ns), false},
		{"sample_us", 1, 1e6, 1e3, offsetof(struct scenario, sample_ns), false},
		{"msg_kb", 0.001, 1024, 1e3, offsetof(struct scenario, msg_bytes), true},
		{"timeout", 1, 31, 1, offsetof(struct scenario, ack_timeout), true},
		{"victim", 0, 1, 1, offsetof(struct scenario, victim), true},
		{"core_gbps", 0.001, 400, 1e9, offsetof(struct scenario, core_bps), false},
		{"spines", 1, SCENARIO_MAX_SPINES, 1, offsetof(struct scenario, spines), true},
		{"dscp", 0, 63, 1, offsetof(struct scenario, dscp), true},
		{"pfc_quanta", 1, 65535, 1, offsetof(struct scenario, pfc_quanta), true},
		{"seed", 0, 1e15, 1, offsetof(struct scenario, seed), false},
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strcmp(key, keys[i].key))
			continue;
		if (!num(value, keys[i].lo, keys[i].hi, &v)) {
			snprintf(why, whylen, "%s: a number from %g to %g", key, keys[i].lo, keys[i].hi);
			return false;
		}
		char *f = (char *)s + keys[i].off;
		if (keys[i].u32) {
			uint32_t x = (uint32_t)(v * keys[i].unit);
			memcpy(f, &x, sizeof(x));
		} else {
			uint64_t x = (uint64_t)(v * keys[i].unit);
			memcpy(f, &x, sizeof(x));
		}
		if (!strcmp(key, "threshold_kb"))
			s->ce_kmax = 0; /* step marking instead of RED */
		return true;
	}
	snprintf(why, whylen, "unknown key %.64s (uroce-sim --help lists them)", key);
	return false;
}

bool scenario_check(const struct scenario *s, char *why, size_t whylen)
{
	const char *bad = NULL;

	if (s->senders < 1 || s->senders > SCENARIO_MAX_FLOWS)
		bad = "senders: 1 to 64";
	else if (!s->sample_ns || !s->msg_bytes)
		bad = "sample_us and msg_kb must not be 0";
	else if (s->victim && s->topology != SCENARIO_DUMBBELL)
		bad = "victim=1 is a dumbbell's (topology=dumbbell)";
	else if (s->victim && s->senders == SCENARIO_MAX_FLOWS)
		bad = "victim=1: at most 63 senders beside the victim flow";
	else if (s->topology == SCENARIO_PARKING_LOT && s->senders < 2)
		bad = "a parking lot needs 2 senders or more";
	else if (s->topology == SCENARIO_LEAF_SPINE && (s->spines < 1 || s->spines > SCENARIO_MAX_SPINES))
		bad = "spines: 1 to 16";
	if (bad && why)
		snprintf(why, whylen, "%s", bad);
	return !bad;
}

bool scenario_load(struct scenario *s, const char *path, char *why, size_t whylen)
{
	FILE *f = fopen(path, "r");
	char line[1024], msg[256];
	unsigned n = 0;

	if (!f) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return false;
	}
	while (fgets(line, sizeof(line), f)) {
		n++;
		char *p = line, *eq, *end;
		if ((end = strchr(p, '#')))
			*end = 0;
		p += strspn(p, " \t\r\n");
		if (!*p)
			continue;
		if (!(eq = strchr(p, '='))) {
			snprintf(why, whylen, "%s:%u: not key = value", path, n);
			fclose(f);
			return false;
		}
		*eq = 0;
		char *k = p, *v = eq + 1;
		for (end = eq; end > k && strchr(" \t", end[-1]); end--)
			end[-1] = 0;
		v += strspn(v, " \t");
		for (end = v + strlen(v); end > v && strchr(" \t\r\n", end[-1]); end--)
			end[-1] = 0;
		if (!scenario_set(s, k, v, msg, sizeof(msg))) {
			snprintf(why, whylen, "%s:%u: %s", path, n, msg);
			fclose(f);
			return false;
		}
	}
	fclose(f);
	return true;
}

/* ---- the run ---- */

struct node {
	struct uroce_dev *dev;
	struct uroce_pd *pd;
	struct uroce_cq *cq;
	struct uroce_io *io;
	struct uroce_io_addr addr;
};

/* The hosts ("nodes", each an engine) and the flows between them, by topology:
 * - dumbbell: nodes 0..n-1 are the senders, node n the receiver; with the victim flow, node
 *   n + 1 its sender and node n + 2 its receiver. Flow f < n goes from node f to node n, flow
 *   n (the victim) from node n + 1 to node n + 2.
 * - parking lot and leaf-spine: flow f goes from node 2f to node 2f + 1. */
#define MAX_NODES (2 * SCENARIO_MAX_FLOWS + 2)
#define MAX_SWITCHES (SCENARIO_MAX_FLOWS + 2)
#define MAX_WATCH SCENARIO_MAX_FLOWS

struct run {
	const struct scenario *s;
	struct uroce_sim *sim;
	uint32_t n;                       /* senders */
	uint32_t nflows, nnodes;
	struct node node[MAX_NODES];
	uint32_t src_node[SCENARIO_MAX_FLOWS + 1], dst_node[SCENARIO_MAX_FLOWS + 1];
	uint32_t at[MAX_NODES];           /* the switch (index in sw[]) each node hangs off */
	int sw[MAX_SWITCHES];             /* the switches' endpoints */
	uint32_t nsw;
	int up[MAX_NODES];                /* node i's link to its switch */
	int watch[MAX_WATCH];             /* the congested links: queue, utilisation, drops */
	uint32_t nwatch;
	uint64_t watch_bps;               /* their capacity (all alike) */
	struct uroce_qp *qp[SCENARIO_MAX_FLOWS + 1][2];
	struct uroce_mr *src_mr[SCENARIO_MAX_FLOWS + 1], *dst_mr[SCENARIO_MAX_FLOWS + 1];
	uint8_t *src[SCENARIO_MAX_FLOWS + 1], *dst[SCENARIO_MAX_FLOWS + 1];
	uint32_t outstanding[SCENARIO_MAX_FLOWS + 1];
	uint64_t posted[SCENARIO_MAX_FLOWS + 1]; /* bytes of the WRITEs posted */
	/* per event (scenario_result): the end of the last sample that strayed, and whether
	 * the event's latest sample did */
	uint64_t ev_last_bad[2 * SCENARIO_MAX_FLOWS + 1];
	bool ev_bad_last[2 * SCENARIO_MAX_FLOWS + 1];
	/* each sender's bytes sent at the last win_n sample ends (a ring), for the averages
	 * over CONV_WINDOW_NS */
	uint64_t *win;
	uint32_t win_n, win_at;
	struct uroce_io_pkt pkts[BATCH];
	uint8_t *buf;
	uint64_t half;                    /* the second half's start */
	struct scenario_result *r;
};

static struct uroce_io_addr addr_of(uint32_t i)
{
	struct uroce_io_addr a = {.ipv6 = false};
	a.ip[0] = 10;
	a.ip[1] = 77;
	a.ip[2] = (uint8_t)(i >> 8);
	a.ip[3] = (uint8_t)(i + 1);
	return a;
}

static void batch_reset(struct run *w)
{
	for (int k = 0; k < BATCH; k++) {
		w->pkts[k].data = w->buf + (size_t)k * PKT_MAX;
		w->pkts[k].cap = PKT_MAX;
	}
}

/* One engine: receive what arrived, fire the timers, send what it has. */
static void pump_node(struct run *w, struct node *nd, uint64_t now)
{
	int got;
	do {
		batch_reset(w);
		got = uroce_io_recv(nd->io, w->pkts, BATCH);
		for (int k = 0; k < got; k++)
			uroce_dev_recv(nd->dev, &w->pkts[k], now);
	} while (got == BATCH);
	uroce_dev_on_timer(nd->dev, now);
	for (;;) {
		struct uroce_txbatch tx = {.pkts = w->pkts, .max = BATCH};
		batch_reset(w);
		size_t n = uroce_dev_write(nd->dev, &tx, now);
		if (!n)
			break;
		(void)uroce_io_send(nd->io, w->pkts, n);
	}
	uroce_dev_publish(nd->dev);
}

/* The fullest watched queue now, bytes. */
static uint64_t watched_queue(const struct run *w)
{
	uint64_t q = 0;

	for (uint32_t i = 0; i < w->nwatch; i++) {
		uint64_t b = uroce_sim_link_queue_bytes(w->sim, w->watch[i]);
		if (b > q)
			q = b;
	}
	return q;
}

/* Runs fabric and engines until `until`, watching the congested queues. */
static void run_until(struct run *w, uint64_t until)
{
	for (;;) {
		uint64_t now = uroce_sim_now(w->sim), t;
		uint64_t q = watched_queue(w);
		if (now >= w->half && q > w->r->queue_peak)
			w->r->queue_peak = q;
		for (uint32_t i = 0; i < w->nnodes; i++)
			pump_node(w, &w->node[i], now);
		t = uroce_sim_next_event_time(w->sim);
		for (uint32_t i = 0; i < w->nnodes; i++) {
			uint64_t d = uroce_dev_next_deadline(w->node[i].dev);
			if (d < t)
				t = d;
		}
		if (t == UROCE_SIM_NEVER || t > until) {
			uroce_sim_run_until(w->sim, until);
			return;
		}
		uroce_sim_run_until(w->sim, t);
	}
}

static int node_new(struct run *w, uint32_t i)
{
	struct node *nd = &w->node[i];
	struct uroce_dev_cfg cfg = {.ngids = 1, .cc = w->s->cc, .max_qp = SCENARIO_MAX_FLOWS + 1};
	int err;

	nd->addr = addr_of(i);
	cfg.gid[0] = nd->addr;
	if ((err = uroce_sim_add_endpoint(w->sim, &nd->addr, RING_PKTS)) < 0)
		return err;
	nd->io = uroce_sim_io(w->sim, err);
	if ((err = uroce_dev_new(&cfg, &nd->dev)) || (err = uroce_pd_alloc(nd->dev, &nd->pd)) ||
	    (err = uroce_cq_create(nd->dev, 2 * WINDOW_WRS, &nd->cq)))
		return err;
	return 0;
}

/* RESET -> RTS, connected to peer_qpn at `to`, with the local ACK timeout t and DSCP dscp. */
static int qp_up(struct uroce_qp *qp, const struct uroce_io_addr *to, uint32_t peer_qpn,
		 uint32_t t, uint32_t dscp)
{
	struct uroce_qp_attr a = {.qp_state = UROCE_QPS_INIT, .port_num = 1,
				  .qp_access_flags = UROCE_ACCESS_REMOTE_WRITE};
	int err;

	if ((err = uroce_qp_modify(qp, &a, UROCE_QPA_STATE | UROCE_QPA_PKEY_INDEX |
						   UROCE_QPA_PORT | UROCE_QPA_ACCESS_FLAGS)))
		return err;
	a.qp_state = UROCE_QPS_RTR;
	a.path_mtu = UROCE_MTU_4096;
	a.dest_qp_num = peer_qpn;
	a.ah_attr.dgid = *to;
	a.ah_attr.port_num = 1;
	a.ah_attr.hop_limit = 64;
	a.ah_attr.traffic_class = (uint8_t)(dscp << 2);
	if ((err = uroce_qp_modify(qp, &a, UROCE_QPA_STATE | UROCE_QPA_AV | UROCE_QPA_PATH_MTU |
						   UROCE_QPA_DEST_QPN | UROCE_QPA_RQ_PSN |
						   UROCE_QPA_MAX_DEST_RD_ATOMIC |
						   UROCE_QPA_MIN_RNR_TIMER)))
		return err;
	a.qp_state = UROCE_QPS_RTS;
	a.timeout = (uint8_t)t;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	return uroce_qp_modify(qp, &a, UROCE_QPA_STATE | UROCE_QPA_SQ_PSN | UROCE_QPA_TIMEOUT |
					       UROCE_QPA_RETRY_CNT | UROCE_QPA_RNR_RETRY |
					       UROCE_QPA_MAX_QP_RD_ATOMIC);
}

/* A switch: its endpoint joins w->sw. */
static int switch_new(struct run *w)
{
	struct uroce_io_addr a = addr_of(1000 + w->nsw);
	int ep = uroce_sim_add_endpoint(w->sim, &a, 1), err;

	if (ep < 0)
		return ep;
	if ((err = uroce_sim_set_switch(w->sim, ep)))
		return err;
	w->sw[w->nsw++] = ep;
	return 0;
}

/* The links from -> to and back, with the same configuration; their indices in fwd, back. */
static int link_pair(struct run *w, int from, int to, const struct uroce_sim_link_cfg *cfg,
		     int *fwd, int *back)
{
	if ((*fwd = uroce_sim_connect(w->sim, from, to, cfg)) < 0)
		return *fwd;
	if ((*back = uroce_sim_connect(w->sim, to, from, cfg)) < 0)
		return *back;
	return 0;
}

/* The switches, where each node hangs off, and the links between switches with their
 * routes. sw_link is a congestible link into a switch: the bottleneck's queue, marking and
 * PFC; its bandwidth is set here. */
static int topology_build(struct run *w, struct uroce_sim_link_cfg sw_link,
			  const struct uroce_sim_link_cfg *core_pfc)
{
	const struct scenario *s = w->s;
	int err, fwd, back;

	switch (s->topology) {
	case SCENARIO_DUMBBELL:
		if ((err = switch_new(w)))
			return err;
		for (uint32_t i = 0; i < w->nnodes; i++)
			w->at[i] = 0;
		if (!s->victim)
			return 0;
		/* the second switch, and the core link both ways as each switch's default
		 * route; the receivers sit behind it */
		struct uroce_sim_link_cfg core = *core_pfc;
		core.bandwidth_bps = s->core_bps;
		if ((err = switch_new(w)) ||
		    (err = link_pair(w, w->sw[0], w->sw[1], &core, &fwd, &back)) ||
		    (err = uroce_sim_add_route(w->sim, w->sw[0], NULL, fwd)) ||
		    (err = uroce_sim_add_route(w->sim, w->sw[1], NULL, back)))
			return err;
		w->at[w->n] = w->at[w->n + 2] = 1;
		return 0;
	case SCENARIO_PARKING_LOT:
		/* switches 0..n-1 in a chain: flow 0 from switch 0 to switch n-1 over every link,
		 * flow f > 0 from switch f-1 to switch f over link f-1 only */
		sw_link.bandwidth_bps = s->bottleneck_bps;
		w->watch_bps = s->bottleneck_bps;
		for (uint32_t j = 0; j < w->n; j++)
			if ((err = switch_new(w)))
				return err;
		w->at[0] = 0;
		w->at[1] = w->n - 1;
		for (uint32_t f = 1; f < w->n; f++) {
			w->at[2 * f] = f - 1;
			w->at[2 * f + 1] = f;
		}
		for (uint32_t j = 0; j + 1 < w->n; j++) {
			if ((err = link_pair(w, w->sw[j], w->sw[j + 1], &sw_link, &fwd, &back)))
				return err;
			w->watch[w->nwatch++] = fwd;
			/* every node beyond switch j + 1 (or before j) is reached over this pair */
			for (uint32_t i = 0; i < w->nnodes; i++) {
				if (w->at[i] > j &&
				    (err = uroce_sim_add_route(w->sim, w->sw[j], &w->node[i].addr, fwd)))
					return err;
				if (w->at[i] <= j && (err = uroce_sim_add_route(
							      w->sim, w->sw[j + 1], &w->node[i].addr, back)))
					return err;
			}
		}
		return 0;
	case SCENARIO_LEAF_SPINE:
		/* leaves 0 (the senders) and 1 (the receivers), spines 2..: each leaf's uplinks
		 * are its default routes, an ECMP group; each spine routes a node to its leaf */
		sw_link.bandwidth_bps = s->core_bps;
		w->watch_bps = s->core_bps;
		for (uint32_t j = 0; j < 2 + s->spines; j++)
			if ((err = switch_new(w)))
				return err;
		for (uint32_t i = 0; i < w->nnodes; i++)
			w->at[i] = i & 1;
		for (uint32_t sp = 2; sp < 2 + s->spines; sp++)
			for (uint32_t leaf = 0; leaf < 2; leaf++) {
				if ((err = link_pair(w, w->sw[leaf], w->sw[sp], &sw_link, &fwd, &back)) ||
				    (err = uroce_sim_add_route(w->sim, w->sw[leaf], NULL, fwd)))
					return err;
				if (!leaf)
					w->watch[w->nwatch++] = fwd;
				for (uint32_t i = leaf; i < w->nnodes; i += 2)
					if ((err = uroce_sim_add_route(w->sim, w->sw[sp],
								       &w->node[i].addr, back)))
						return err;
			}
		return 0;
	}
	return UROCE_EINVAL;
}

static int setup(struct run *w)
{
	const struct scenario *s = w->s;
	/* buffers for a full congested queue (several, beyond the dumbbell) and the windows */
	uint64_t pool = s->queue_bytes / 4096 * (s->topology == SCENARIO_DUMBBELL ? 1 : 4) +
			512ull * s->senders + 4096;
	struct uroce_sim_cfg scfg = {.pool_pkts = pool > 1000000 ? 1000000 : (uint32_t)pool,
				     .max_pkt = PKT_MAX};
	struct uroce_sim_link_cfg up = {.latency_ns = s->latency_ns, .bandwidth_bps = s->link_bps},
				  bl = {.latency_ns = s->latency_ns,
					.bandwidth_bps = s->bottleneck_bps,
					.queue_bytes = s->queue_bytes,
					.ce_threshold = s->ce_threshold, .ce_kmin = s->ce_kmin,
					.ce_kmax = s->ce_kmax, .ce_pmax = s->ce_pmax};
	struct uroce_sim_link_cfg in = up; /* into a switch: PFC, when asked */
	int err;

	/* PFC on the flows' class only (DSCP / 8; CNPs, class 6, stay lossy, as in NVIDIA's
	 * lossless RoCE setups) */
	in.pfc_xoff = bl.pfc_xoff = s->pfc_xoff;
	in.pfc_xon = bl.pfc_xon = s->pfc_xon;
	in.pfc_classes = bl.pfc_classes = (uint8_t)(1u << (s->dscp >> 3));
	in.pfc_quanta = bl.pfc_quanta = (uint16_t)s->pfc_quanta;

	if (!(w->buf = malloc((size_t)BATCH * PKT_MAX)) ||
	    !(w->sim = uroce_sim_new(s->seed, &scfg)))
		return UROCE_ENOMEM;
	for (uint32_t i = 0; i < w->nnodes; i++)
		if ((err = node_new(w, i)))
			return err;
	if ((err = topology_build(w, bl, &in)))
		return err;
	for (uint32_t i = 0; i < w->nnodes; i++) {
		int sw = w->sw[w->at[i]];
		/* the dumbbell's receiver hangs off the bottleneck */
		bool bottleneck = s->topology == SCENARIO_DUMBBELL && i == w->n;
		if ((w->up[i] = uroce_sim_connect(w->sim, (int)i, sw, &in)) < 0)
			return w->up[i];
		if ((err = uroce_sim_add_route(w->sim, (int)i, NULL, w->up[i])))
			return err;
		int down = uroce_sim_connect(w->sim, sw, (int)i, bottleneck ? &bl : &up);
		if (down < 0)
			return down;
		if (bottleneck) {
			w->watch[w->nwatch++] = down;
			w->watch_bps = s->bottleneck_bps;
		}
	}
	for (uint32_t i = 0; i < w->nflows; i++) {
		struct node *tx = &w->node[w->src_node[i]], *rx = &w->node[w->dst_node[i]];
		struct uroce_qp_init_attr qa = {.qp_type = UROCE_QPT_RC,
						.cap = {.max_send_wr = WINDOW_WRS, .max_recv_wr = 1,
							.max_send_sge = 1, .max_recv_sge = 1}};
		qa.send_cq = qa.recv_cq = tx->cq;
		if ((err = uroce_qp_create(tx->pd, &qa, &w->qp[i][0])))
			return err;
		qa.send_cq = qa.recv_cq = rx->cq;
		if ((err = uroce_qp_create(rx->pd, &qa, &w->qp[i][1])) ||
		    (err = qp_up(w->qp[i][0], &rx->addr, uroce_qp_num(w->qp[i][1]),
				 s->ack_timeout, s->dscp)) ||
		    (err = qp_up(w->qp[i][1], &tx->addr, uroce_qp_num(w->qp[i][0]),
				 s->ack_timeout, s->dscp)))
			return err;
		if (!(w->src[i] = calloc(1, s->msg_bytes)) || !(w->dst[i] = calloc(1, s->msg_bytes)))
			return UROCE_ENOMEM;
		if ((err = uroce_mr_reg(tx->pd, w->src[i], s->msg_bytes,
					(uint64_t)(uintptr_t)w->src[i], UROCE_ACCESS_LOCAL_WRITE,
					&w->src_mr[i])) ||
		    (err = uroce_mr_reg(rx->pd, w->dst[i], s->msg_bytes, (uint64_t)(uintptr_t)w->dst[i],
					UROCE_ACCESS_LOCAL_WRITE | UROCE_ACCESS_REMOTE_WRITE,
					&w->dst_mr[i])))
			return err;
	}
	return 0;
}

/* The CNPs every node has sent. */
static uint64_t cnps_sent(const struct run *w)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < w->nnodes; i++)
		n += uroce_dev_counters(w->node[i].dev)->np_cnp_sent;
	return n;
}

/* The bytes flow f's sender has put on its link into the switch. */
static uint64_t sent_bytes(const struct run *w, uint32_t f)
{
	return uroce_sim_link_counters(w->sim, w->up[w->src_node[f]])->delivered_bytes;
}

static bool running(const struct scenario *s, uint32_t i, uint64_t t)
{
	return i < SCENARIO_MAX_FLOWS && t >= s->start_ns[i] && (!s->stop_ns[i] || t < s->stop_ns[i]);
}

/* Whether flow i has posted all it has to send (a flow with a size). */
static bool posted_all(const struct run *w, uint32_t i)
{
	return i < SCENARIO_MAX_FLOWS && w->s->size_bytes[i] && w->posted[i] >= w->s->size_bytes[i];
}

/* ---- the time series and convergence ---- */

/* One CSV row at t: the fullest congested queue, the CNPs so far, each flow's throughput
 * over the sample and its congestion control's rate, the PFC pauses so far, and each
 * congested link's queue when there are several. */
/* The PFC PAUSEs so far over every link (only links into a switch have any), and (paused_ns,
 * may be NULL) the time they held their transmitters. */
static uint64_t pfc_totals(const struct run *w, uint64_t *paused_ns)
{
	const union uroce_sim_counters *c;
	uint64_t pauses = 0;

	for (int l = 0; (c = uroce_sim_link_counters(w->sim, l)); l++) {
		pauses += c->pfc_pauses;
		if (paused_ns)
			*paused_ns += c->pfc_paused_ns;
	}
	return pauses;
}

static void row_write(const struct run *w, FILE *csv, uint64_t t, const double *gbps)
{

	fprintf(csv, "%.1f,%" PRIu64 ",%" PRIu64, (double)t / 1e3, watched_queue(w), cnps_sent(w));
	for (uint32_t i = 0; i < w->nflows; i++)
		fprintf(csv, ",%.4f", gbps[i]);
	for (uint32_t i = 0; i < w->nflows; i++) {
		uint64_t rate = uroce_qp_cc_rate(w->qp[i][0]);
		if (rate == UINT64_MAX)
			fputc(',', csv);
		else
			fprintf(csv, ",%.4f", (double)rate / 1e9);
	}
	fprintf(csv, ",%" PRIu64, pfc_totals(w, NULL));
	for (uint32_t k = 0; w->nwatch > 1 && k < w->nwatch; k++)
		fprintf(csv, ",%" PRIu64, uroce_sim_link_queue_bytes(w->sim, w->watch[k]));
	fputc('\n', csv);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The events whose convergence is measured (scenario_result): on a dumbbell without the
 * victim, t = 0 and each time a sender starts or stops within the run. */
static void events_find(struct run *w)
{
	const struct scenario *s = w->s;
	struct scenario_result *r = w->r;
	uint64_t *ev = r->event_ns;
	uint32_t n = 0;

	if (s->topology != SCENARIO_DUMBBELL || s->victim || CONV_WINDOW_NS % s->sample_ns)
		return;
	w->win_n = (uint32_t)(CONV_WINDOW_NS / s->sample_ns) + 1; /* window's two ends */
	if (!(w->win = calloc((size_t)w->win_n * w->n, sizeof(*w->win))))
		return;
	ev[n++] = 0;
	for (uint32_t i = 0; i < w->n; i++) {
		if (s->start_ns[i] && s->start_ns[i] < s->duration_ns)
			ev[n++] = s->start_ns[i];
		if (s->stop_ns[i] && s->stop_ns[i] < s->duration_ns)
			ev[n++] = s->stop_ns[i];
	}
	qsort(ev, n, sizeof(*ev), cmp_u64);
	r->nevents = 0;
	for (uint32_t k = 0; k < n; k++)
		if (!r->nevents || ev[k] != ev[r->nevents - 1])
			ev[r->nevents++] = ev[k];
}

/* At the end `to` of a sample: whether the running flows' throughputs over the last
 * CONV_WINDOW_NS were not yet converged (CONV_JAIN, CONV_TOL), for the event that window
 * follows. A window across an event belongs to no event. */
static void events_track(struct run *w, uint64_t to)
{
	const struct scenario_result *r = w->r;
	uint64_t from = to >= CONV_WINDOW_NS ? to - CONV_WINDOW_NS : 0, *now, *then;
	uint32_t k = 0, running_n = 0;
	bool bad = false;

	if (!r->nevents)
		return;
	now = w->win + (size_t)(w->win_at % w->win_n) * w->n;
	for (uint32_t i = 0; i < w->n; i++)
		now[i] = sent_bytes(w, i);
	w->win_at++;
	if (w->win_at <= w->win_n) /* not a whole window yet */
		return;
	then = w->win + (size_t)(w->win_at % w->win_n) * w->n; /* win_n samples ago */
	while (k + 1 < r->nevents && r->event_ns[k + 1] <= from)
		k++;
	if (from < r->event_ns[k] || (k + 1 < r->nevents && r->event_ns[k + 1] < to))
		return;
	double sum = 0, sq = 0, link = (double)w->s->bottleneck_bps / 1e9;
	for (uint32_t i = 0; i < w->n; i++) {
		double gbps = (double)(now[i] - then[i]) * 8 / (double)(to - from);
		if (!running(w->s, i, from) || posted_all(w, i))
			continue;
		running_n++;
		sum += gbps;
		sq += gbps * gbps;
	}
	if (running_n)
		bad = sum * sum < CONV_JAIN * running_n * sq || sum < link * (1 - CONV_TOL) ||
		      sum > link * (1 + CONV_TOL);
	if (bad)
		w->ev_last_bad[k] = to;
	w->ev_bad_last[k] = bad;
}

/* Completions counted; running senders topped up to WINDOW_WRS posted WRITEs. */
static void refill(struct run *w, uint64_t t)
{
	struct uroce_wc wc[64];
	int got;

	for (uint32_t i = 0; i < w->nflows; i++) {
		while ((got = uroce_cq_poll(w->node[w->src_node[i]].cq, wc, 64)) > 0)
			for (int k = 0; k < got; k++) {
				uint32_t f = (uint32_t)wc[k].wr_id;
				w->r->completions++;
				w->r->errors += wc[k].status != UROCE_WC_SUCCESS;
				if (!--w->outstanding[f] && posted_all(w, f) && !w->r->fct_ns[f])
					w->r->fct_ns[f] = t - w->s->start_ns[f];
			}
		if (!running(w->s, i, t))
			continue;
		while (w->outstanding[i] < WINDOW_WRS && !posted_all(w, i)) {
			uint64_t len = w->s->msg_bytes;
			if (i < SCENARIO_MAX_FLOWS && w->s->size_bytes[i] &&
			    w->s->size_bytes[i] - w->posted[i] < len)
				len = w->s->size_bytes[i] - w->posted[i];
			struct uroce_sge sge = {.addr = (uint64_t)(uintptr_t)w->src[i],
						.length = (uint32_t)len,
						.lkey = uroce_mr_lkey(w->src_mr[i])};
			struct uroce_send_wr wr = {.wr_id = i, .sg_list = &sge, .num_sge = 1,
						   .opcode = UROCE_WR_RDMA_WRITE,
						   .send_flags = UROCE_SEND_SIGNALED};
			const struct uroce_send_wr *bad;
			wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)w->dst[i];
			wr.wr.rdma.rkey = uroce_mr_rkey(w->dst_mr[i]);
			if (uroce_post_send(w->qp[i][0], &wr, &bad))
				break;
			w->outstanding[i]++;
			w->posted[i] += len;
		}
	}
}

static void teardown(struct run *w)
{
	for (uint32_t i = 0; i < w->nnodes; i++)
		uroce_dev_free(w->node[i].dev); /* its QPs, MRs, CQs, PD with it */
	for (uint32_t i = 0; i < w->nflows; i++) {
		free(w->src[i]);
		free(w->dst[i]);
	}
	uroce_sim_free(w->sim);
	free(w->buf);
	free(w->win);
}

int scenario_run(const struct scenario *s, FILE *csv, bool progress, struct scenario_result *r)
{
	struct run *w = calloc(1, sizeof(*w));
	uint64_t prev[SCENARIO_MAX_FLOWS + 1] = {0}, half_bytes[SCENARIO_MAX_FLOWS + 1] = {0};
	uint64_t watch_half[MAX_WATCH] = {0};
	double q_sum = 0;
	uint64_t q_n = 0;
	int err;

	if (!w)
		return UROCE_ENOMEM;
	memset(r, 0, sizeof(*r));
	w->s = s;
	w->r = r;
	w->n = s->senders;
	w->half = s->duration_ns / 2;
	if (!scenario_check(s, NULL, 0)) {
		free(w);
		return UROCE_EINVAL;
	}
	if (s->topology == SCENARIO_DUMBBELL) {
		w->nflows = s->senders + !!s->victim;
		w->nnodes = s->senders + 1 + 2 * !!s->victim;
		for (uint32_t i = 0; i < w->n; i++) {
			w->src_node[i] = i;
			w->dst_node[i] = w->n;
		}
		if (s->victim) {
			w->src_node[w->n] = w->n + 1;
			w->dst_node[w->n] = w->n + 2;
		}
	} else {
		w->nflows = s->senders;
		w->nnodes = 2 * s->senders;
		for (uint32_t i = 0; i < w->n; i++) {
			w->src_node[i] = 2 * i;
			w->dst_node[i] = 2 * i + 1;
		}
	}
	if ((err = setup(w))) {
		teardown(w);
		free(w);
		return err;
	}
	if (csv) {
		fprintf(csv, "time_us,queue_bytes,cnps");
		for (int cc = 0; cc < 2; cc++) {
			for (uint32_t i = 0; i < w->n; i++)
				fprintf(csv, ",flow%u_%sgbps", i + 1, cc ? "cc_" : "");
			if (w->nflows > w->n)
				fprintf(csv, ",victim_%sgbps", cc ? "cc_" : "");
		}
		fprintf(csv, ",pfc_pauses");
		for (uint32_t k = 0; w->nwatch > 1 && k < w->nwatch; k++)
			fprintf(csv, ",link%u_queue_bytes", k + 1);
		fputc('\n', csv);
	}
	events_find(w);
	unsigned shown = 0;
	uint64_t row_start = 0;
	for (uint64_t t = 0; t < s->duration_ns;) {
		refill(w, t);
		uint64_t next = t + REFILL_NS;
		uint64_t row_end = row_start + s->sample_ns;
		if (next > row_end)
			next = row_end;
		if (next > s->duration_ns)
			next = s->duration_ns;
		if (t < w->half && next >= w->half) {
			run_until(w, w->half);
			for (uint32_t i = 0; i < w->nflows; i++)
				half_bytes[i] = sent_bytes(w, i);
			for (uint32_t k = 0; k < w->nwatch; k++)
				watch_half[k] = uroce_sim_link_counters(w->sim, w->watch[k])
							->delivered_bytes;
		}
		run_until(w, next);
		t = next;
		if (t > w->half) { /* the queue's mean: sampled every REFILL_NS at most */
			q_sum += (double)watched_queue(w);
			q_n++;
		}
		if (t < row_end && t < s->duration_ns)
			continue;
		double gbps[SCENARIO_MAX_FLOWS + 1];
		for (uint32_t i = 0; i < w->nflows; i++) {
			uint64_t b = sent_bytes(w, i);
			gbps[i] = (double)(b - prev[i]) * 8 / (double)(t - row_start);
			prev[i] = b;
		}
		events_track(w, t);
		if (csv)
			row_write(w, csv, t, gbps);
		row_start = t;
		if (progress && t * 10 / s->duration_ns > shown) {
			shown = (unsigned)(t * 10 / s->duration_ns);
			fprintf(stderr, "uroce-sim: %u %% (%.1f of %.1f ms)\n", shown * 10,
				(double)t / 1e6, (double)s->duration_ns / 1e6);
		}
	}
	refill(w, s->duration_ns);
	/* no window strayed: converged within the first, the window's length */
	for (uint32_t k = 0; k < r->nevents; k++)
		r->converged_ns[k] = w->ev_bad_last[k]	  ? -1
				     : w->ev_last_bad[k] ? (int64_t)(w->ev_last_bad[k] - r->event_ns[k])
							 : CONV_WINDOW_NS;

	/* The second half: every sender that ran all of it counts in the fairness index. */
	double sum = 0, sq = 0, secs = (double)(s->duration_ns - w->half) / 1e9;
	uint32_t counted = 0;
	for (uint32_t i = 0; i < w->nflows; i++) {
		double gbps = (double)(sent_bytes(w, i) - half_bytes[i]) * 8 / secs / 1e9;
		r->resent += uroce_qp_counters(w->qp[i][0])->retransmitted_pkts;
		if (i == w->n) { /* the victim: not in the incast's fairness */
			r->victim_gbps = gbps;
			continue;
		}
		r->gbps[i] = gbps;
		if (s->start_ns[i] <= w->half && (!s->stop_ns[i] || s->stop_ns[i] >= s->duration_ns)) {
			sum += r->gbps[i];
			sq += r->gbps[i] * r->gbps[i];
			counted++;
		}
	}
	r->jain = sq > 0 ? sum * sum / (counted * sq) : 0;
	/* the congested links: their use over the second half, drops, marks, peak queue */
	double used = 0;
	for (uint32_t k = 0; k < w->nwatch; k++) {
		const union uroce_sim_counters *c = uroce_sim_link_counters(w->sim, w->watch[k]);
		double gbps = (double)(c->delivered_bytes - watch_half[k]) * 8 / secs / 1e9;
		r->link_gbps[k] = gbps;
		used += gbps;
		r->drops += c->drop_queue;
		r->ce_marks += c->ce_marked;
		if (c->queue_peak_bytes > r->queue_peak_all)
			r->queue_peak_all = c->queue_peak_bytes;
	}
	r->nlinks = w->nwatch;
	r->queue_mean = q_n ? q_sum / (double)q_n : 0;
	r->utilisation = used * 1e9 / ((double)w->nwatch * (double)w->watch_bps);
	r->pauses = pfc_totals(w, &r->paused_ns);
	r->cnps = cnps_sent(w);
	teardown(w);
	free(w);
	return 0;
}
