/* SPDX-License-Identifier: MIT */
/* Input: the UDP payload of a datagram that reached a member of a shared address's group
 * (src/io/share.c uroce_share_rx): a probe, a MAD to QP1, another member's datagram, or any
 * bytes. The harness is one real member, alone in the group of 127.0.0.1 and a port of its
 * own, with its CM attached and a listener on one Service ID (LLVMFuzzerInitialize):
 *   - nothing is read past the input (an exact-size heap buffer under ASan);
 *   - the verdict is "mine" exactly when the destination QP's slot is this member's, the
 *     multicast slot 255, or QP1's (this member holds the address's only CM): every other
 *     slot has no member, and is counted as such, never forwarded;
 *   - a probe is answered only with the round's cookie, so no input moves the member. */
#include "fuzz_check.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <netinet/in.h>

#include "io/share.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

static struct uroce_share *share;
static struct uroce_share_group *group;
static char dir[] = "/tmp/uroce-fuzz-share.XXXXXX";

/* At exit: the member leaves, and its slot file and group page go with the directory. */
static void cleanup(void)
{
	DIR *d;
	struct dirent *e;

	uroce_share_leave(group);
	uroce_share_close(share);
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			(void)unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct uroce_io_addr lo = {.ip = {127, 0, 0, 1}};
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7F000001)};
	(void)argc;
	(void)argv;

	if (!mkdtemp(dir) || uroce_share_open(dir, &share)) {
		fprintf(stderr, "fuzz_share: no runtime directory\n");
		exit(1);
	}
	for (uint16_t port = (uint16_t)(40000 + getpid() % 20000);; port++) {
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
		sa.sin_port = htons(port);
		if (fd >= 0 && !uroce_share_join(share, fd, (struct sockaddr *)&sa, sizeof(sa), &lo,
						 port, &group))
			break;
		close(fd);
	}
	atexit(cleanup);
	uroce_share_cm(group, true);
	FUZZ_CHECK(uroce_share_listen(group, 0x0000000001060000ull | 4242, true) == 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uroce_share_meta meta = {.src = {.ip = {127, 0, 0, 1}}, .dst = {.ip = {127, 0, 0, 1}},
					.sport = 0xC000, .ttl = 64};
	const struct uroce_share_counters *c = uroce_share_counters(share);
	uint64_t forwarded = c->share_forwarded, probes = c->share_probes;
	enum uroce_share_rx v = uroce_share_rx(group, data, size, &meta);

	FUZZ_CHECK(v == UROCE_SHARE_RX_MINE || v == UROCE_SHARE_RX_TAKEN);
	FUZZ_CHECK(c->share_forwarded == forwarded);
	FUZZ_CHECK(c->share_probes == probes);
	if (size >= 12) {
		unsigned slot = data[5];
		bool mine = slot == uroce_share_slot(share) || slot == 0;
		FUZZ_CHECK(mine ? v == UROCE_SHARE_RX_MINE : slot == 255 || v == UROCE_SHARE_RX_TAKEN);
	}
	return 0;
}
