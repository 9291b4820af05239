/* SPDX-License-Identifier: MIT */
/* --capture: libpcap on `lo` in a thread of the client process, writing a pcap file that
 * uroce-dump explains afterwards. The filter keeps RoCEv2 (UDP 4791) between the demo's two
 * addresses only, so that other programs on lo (the test suite) stay out of the file.
 *
 * The throughput phase moves hundreds of megabytes: its packets are written cut to their
 * headers (the wire length stays in the record, as with a snap length), which is all the
 * per-QP analysis needs. The phase is delimited by the kernel's capture timestamps, not by
 * when the thread happens to read a packet. */
#include <errno.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "demo.h"

#define CAP_SNAPLEN 65535
#define CAP_BUFFER (64 << 20)      /* kernel ring: the thread may fall behind for a while */
#define CAP_TIMEOUT_MS 20

struct demo_capture {
	pcap_t *pc;
	pcap_dumper_t *out;
	pthread_t thread;
	bool running;
	_Atomic bool stop;
	/* [cut_from, cut_until) in CLOCK_REALTIME nanoseconds, the capture timestamps' clock */
	_Atomic int64_t cut_from, cut_until;
	uint64_t written;
};

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct demo_capture *demo_capture_open(const char *file, const char *ip_a, const char *ip_b,
				       char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "", filter[160];
	struct bpf_program prog;
	struct demo_capture *c = calloc(1, sizeof(*c));
	int rc;

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	atomic_store(&c->cut_from, INT64_MAX);
	atomic_store(&c->cut_until, INT64_MAX);
	if (!(c->pc = pcap_create("lo", perr))) {
		snprintf(err, errlen, "capture on lo: %s", perr);
		free(c);
		return NULL;
	}
	pcap_set_snaplen(c->pc, CAP_SNAPLEN);
	pcap_set_timeout(c->pc, CAP_TIMEOUT_MS);
	pcap_set_buffer_size(c->pc, CAP_BUFFER);
	/* Nanoseconds: the flows report measures latencies of a few microseconds. */
	pcap_set_tstamp_precision(c->pc, PCAP_TSTAMP_PRECISION_NANO);
	rc = pcap_activate(c->pc);
	if (rc < 0) {
		snprintf(err, errlen, "capture on lo: %s%s", pcap_geterr(c->pc),
			 rc == PCAP_ERROR_PERM_DENIED ? " (capturing needs root or CAP_NET_RAW)"
						      : "");
		goto fail;
	}
	snprintf(filter, sizeof(filter), "udp port 4791 and host %s and host %s", ip_a, ip_b);
	if (pcap_compile(c->pc, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(err, errlen, "filter '%s': %s", filter, pcap_geterr(c->pc));
		goto fail;
	}
	rc = pcap_setfilter(c->pc, &prog);
	pcap_freecode(&prog);
	if (rc < 0) {
		snprintf(err, errlen, "filter '%s': %s", filter, pcap_geterr(c->pc));
		goto fail;
	}
	if (pcap_setnonblock(c->pc, 1, perr) < 0) {
		snprintf(err, errlen, "capture on lo: %s", perr);
		goto fail;
	}
	if (!(c->out = pcap_dump_open(c->pc, file))) {
		snprintf(err, errlen, "%s", pcap_geterr(c->pc));
		goto fail;
	}
	return c;
fail:
	pcap_close(c->pc);
	free(c);
	return NULL;
}

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct demo_capture *c = (struct demo_capture *)user;
	struct pcap_pkthdr hh = *h;
	/* With nanosecond precision, libpcap hands tv_usec nanoseconds. */
	int64_t t = (int64_t)h->ts.tv_sec * 1000000000 + h->ts.tv_usec;

	if (t >= atomic_load(&c->cut_from) && t < atomic_load(&c->cut_until) &&
	    hh.caplen > DEMO_CAPTURE_HEADERS)
		hh.caplen = DEMO_CAPTURE_HEADERS;
	pcap_dump((u_char *)c->out, &hh, bytes);
	c->written++;
}

static void *capture_main(void *arg)
{
	struct demo_capture *c = arg;
	struct pollfd pfd = {.fd = pcap_get_selectable_fd(c->pc), .events = POLLIN};

	/* Our own poll with a timeout: a blocking pcap_dispatch on Linux (TPACKET_V3) may wait
	 * forever when no packet comes, and then the thread could never be stopped. */
	while (!atomic_load(&c->stop)) {
		if (poll(&pfd, 1, CAP_TIMEOUT_MS) < 0 && errno != EINTR)
			break;
		if (pcap_dispatch(c->pc, -1, on_packet, (u_char *)c) < 0)
			break;
	}
	/* What the kernel still holds, until it is empty. */
	while (pcap_dispatch(c->pc, -1, on_packet, (u_char *)c) > 0)
		;
	return NULL;
}

int demo_capture_start(struct demo_capture *c)
{
	int err = pthread_create(&c->thread, NULL, capture_main, c);

	c->running = !err;
	return err;
}

void demo_capture_headers_only(struct demo_capture *c)
{
	atomic_store(&c->cut_until, INT64_MAX);
	atomic_store(&c->cut_from, realtime_ns());
}

void demo_capture_whole(struct demo_capture *c) { atomic_store(&c->cut_until, realtime_ns()); }

void demo_capture_stop(struct demo_capture *c, uint64_t *written, uint64_t *dropped)
{
	struct pcap_stat st;

	atomic_store(&c->stop, true);
	if (c->running)
		pthread_join(c->thread, NULL);
	*dropped = pcap_stats(c->pc, &st) == 0 ? st.ps_drop : 0;
	*written = c->written;
	pcap_dump_close(c->out);
	pcap_close(c->pc);
	free(c);
}
