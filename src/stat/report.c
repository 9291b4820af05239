/* SPDX-License-Identifier: MIT */
/* The statistics report, as a table and as JSON (report.h). */
#include <arpa/inet.h>
#include <inttypes.h>
#include <string.h>

#include "engine/engine.h"
#include "report.h"

static const char *const qp_types[] = {
	[UROCE_QPT_GSI] = "GSI", [UROCE_QPT_RC] = "RC", [UROCE_QPT_UC] = "UC", [UROCE_QPT_UD] = "UD",
};

static const char *type_name(uint32_t t)
{
	return t < sizeof(qp_types) / sizeof(qp_types[0]) && qp_types[t] ? qp_types[t] : "?";
}

static const char *state_name(uint32_t s)
{
	const char *n = uroce_qp_state_name((enum uroce_qp_state)s);

	return n ? n : "?";
}

static void peer_str(const struct uroce_stat_qp *q, char *buf, size_t len)
{
	static const uint8_t zero[16];

	if (!memcmp(q->peer, zero, q->peer_ipv6 ? 16 : 4))
		snprintf(buf, len, "-");
	else if (!inet_ntop(q->peer_ipv6 ? AF_INET6 : AF_INET, q->peer, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

/* Per second between two samples; 0 without an earlier one or time between them. A counter
 * that went down (a new device in a reused pid) counts from zero. */
static double rate(uint64_t now, uint64_t then, const struct uroce_stat_snapshot *s,
		   const struct uroce_stat_snapshot *prev)
{
	if (!prev || s->dyn.time_ns <= prev->dyn.time_ns)
		return 0;
	return (double)(now >= then ? now - then : now) * 1e9 /
	       (double)(s->dyn.time_ns - prev->dyn.time_ns);
}

/* The QP of prev with the same number, or NULL. */
static const struct uroce_stat_qp *prev_qp(const struct uroce_stat_snapshot *prev, uint32_t qpn)
{
	for (uint32_t i = 0; prev && i < prev->dyn.nqps; i++)
		if (prev->dyn.qps[i].qpn == qpn)
			return &prev->dyn.qps[i];
	return NULL;
}

/* indent: 4 for the device's, 6 for a QP's under its line */
static void print_counter(FILE *f, int indent, const char *name, uint64_t v, bool rates, double r)
{
	if (rates)
		fprintf(f, "%*s%-32s %16" PRIu64 " %14.1f/s\n", indent, "", name, v, r);
	else
		fprintf(f, "%*s%-32s %16" PRIu64 "\n", indent, "", name, v);
}

void uroce_stat_print_table(FILE *f, const struct uroce_stat_snapshot *s,
			    const struct uroce_stat_snapshot *prev, bool all)
{
	const struct uroce_stat_page *h = &s->hdr;
	char peer[INET6_ADDRSTRLEN];

	fprintf(f, "pid %" PRIu64 " (%s) %s backend %s addrs %s%s%s\n", h->pid, h->comm, h->device,
		h->backend, h->addrs, *h->impair ? " impair " : "", h->impair);
	fprintf(f, "  counters:\n");
	for (uint32_t i = 0; i < h->ncounters; i++)
		if (all || s->dyn.counters[i])
			print_counter(f, 4, h->counter_names[i], s->dyn.counters[i], prev != NULL,
				      rate(s->dyn.counters[i], prev ? prev->dyn.counters[i] : 0, s,
					   prev));
	fprintf(f, "  qps: %" PRIu32 "%s\n", s->dyn.qps_total,
		s->dyn.qps_total > s->dyn.nqps ? " (table full: the first shown)" : "");
	if (s->dyn.nqps)
		fprintf(f, "    %8s %-4s %-5s %-15s %8s %8s %8s %8s %6s %6s %8s\n", "qpn", "type",
			"state", "peer", "dest_qpn", "sq_psn", "una", "epsn", "sq_wr", "rq_wr",
			"pace");
	for (uint32_t i = 0; i < s->dyn.nqps; i++) {
		const struct uroce_stat_qp *q = &s->dyn.qps[i], *pq = prev_qp(prev, q->qpn);

		peer_str(q, peer, sizeof(peer));
		char pace[16] = "-"; /* unpaced */
		if (q->pace_kbps)
			snprintf(pace, sizeof(pace), "%.3gM", q->pace_kbps / 1000.0);
		fprintf(f, "    %8" PRIu32 " %-4s %-5s %-15s %8" PRIu32 " %8" PRIu32 " %8" PRIu32
			   " %8" PRIu32 " %6" PRIu32 " %6" PRIu32 " %8s\n",
			q->qpn, type_name(q->type), state_name(q->state), peer, q->dest_qpn,
			q->sq_psn, q->una, q->epsn, q->send_outstanding, q->recv_posted, pace);
		for (uint32_t c = 0; c < h->nqp_counters; c++)
			if (all || q->cnt[c])
				print_counter(f, 6, h->qp_counter_names[c], q->cnt[c], prev != NULL,
					      rate(q->cnt[c], pq ? pq->cnt[c] : 0, s, pq ? prev : NULL));
	}
}

/* Strings of the page are names and addresses, but a writer could put anything there. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_counters(FILE *f, const char (*names)[UROCE_STAT_NAME_MAX], uint32_t n,
			  const uint64_t *v)
{
	fputc('{', f);
	for (uint32_t i = 0; i < n; i++) {
		fputs(i ? "," : "", f);
		json_str(f, names[i]);
		fprintf(f, ":%" PRIu64, v[i]);
	}
	fputc('}', f);
}

static void json_rates(FILE *f, const char (*names)[UROCE_STAT_NAME_MAX], uint32_t n,
		       const uint64_t *v, const uint64_t *pv, const struct uroce_stat_snapshot *s,
		       const struct uroce_stat_snapshot *prev)
{
	fputc('{', f);
	for (uint32_t i = 0; i < n; i++) {
		fputs(i ? "," : "", f);
		json_str(f, names[i]);
		fprintf(f, ":%.3f", rate(v[i], pv[i], s, prev));
	}
	fputc('}', f);
}

void uroce_stat_print_json(FILE *f, const struct uroce_stat_snapshot *s,
			   const struct uroce_stat_snapshot *prev)
{
	const struct uroce_stat_page *h = &s->hdr;
	char peer[INET6_ADDRSTRLEN];

	fprintf(f, "{\"pid\":%" PRIu64 ",\"comm\":", h->pid);
	json_str(f, h->comm);
	fputs(",\"device\":", f);
	json_str(f, h->device);
	fputs(",\"backend\":", f);
	json_str(f, h->backend);
	fputs(",\"addrs\":", f);
	json_str(f, h->addrs);
	fputs(",\"impair\":", f);
	json_str(f, h->impair);
	fprintf(f, ",\"time_ns\":%" PRIu64 ",\"publishes\":%" PRIu64 ",\"counters\":",
		s->dyn.time_ns, s->dyn.publishes);
	json_counters(f, h->counter_names, h->ncounters, s->dyn.counters);
	if (prev) {
		fputs(",\"rates\":", f);
		json_rates(f, h->counter_names, h->ncounters, s->dyn.counters, prev->dyn.counters,
			   s, prev);
	}
	fprintf(f, ",\"qps_total\":%" PRIu32 ",\"qps\":[", s->dyn.qps_total);
	for (uint32_t i = 0; i < s->dyn.nqps; i++) {
		const struct uroce_stat_qp *q = &s->dyn.qps[i], *pq = prev_qp(prev, q->qpn);

		peer_str(q, peer, sizeof(peer));
		fprintf(f, "%s{\"qpn\":%" PRIu32 ",\"type\":\"%s\",\"state\":\"%s\",\"peer\":\"%s\","
			   "\"dest_qpn\":%" PRIu32 ",\"sq_psn\":%" PRIu32 ",\"una\":%" PRIu32
			   ",\"epsn\":%" PRIu32 ",\"send_outstanding\":%" PRIu32
			   ",\"recv_posted\":%" PRIu32 ",\"pace_kbps\":%" PRIu32 ",\"counters\":",
			i ? "," : "", q->qpn, type_name(q->type), state_name(q->state), peer,
			q->dest_qpn, q->sq_psn, q->una, q->epsn, q->send_outstanding, q->recv_posted,
			q->pace_kbps);
		json_counters(f, h->qp_counter_names, h->nqp_counters, q->cnt);
		if (pq) {
			fputs(",\"rates\":", f);
			json_rates(f, h->qp_counter_names, h->nqp_counters, q->cnt, pq->cnt, s, prev);
		}
		fputc('}', f);
	}
	fputs("]}", f);
}
