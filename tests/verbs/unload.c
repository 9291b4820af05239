/* SPDX-License-Identifier: MIT */
/* A program that dlclose()s libibverbs.so.1 with a device still open (libfabric's verbs
 * provider does, when Open MPI unloads its ofi component in MPI_Finalize): the progress
 * thread that the first QP started still runs, so the library must stay mapped; when it was
 * unmapped, the thread's next wake-up jumped into freed pages and killed the process.
 *
 * Built on its own (tests/CMakeLists.txt): it loads the drop-in library with dlopen, by the
 * path given at build time, and links nothing of uroce's. After dlclose the library must
 * still be loaded (dlopen RTLD_NOLOAD finds it), and a datagram to its port, which wakes
 * the thread, must not end the process. */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <infiniband/verbs.h>

#define TEST_IP "127.0.8.1"

typedef struct ibv_device **(*get_list_fn)(int *);
typedef void (*free_list_fn)(struct ibv_device **);
typedef struct ibv_context *(*open_fn)(struct ibv_device *);
typedef struct ibv_pd *(*alloc_pd_fn)(struct ibv_context *);
typedef struct ibv_cq *(*create_cq_fn)(struct ibv_context *, int, void *,
				       struct ibv_comp_channel *, int);
typedef struct ibv_qp *(*create_qp_fn)(struct ibv_pd *, struct ibv_qp_init_attr *);

static void *sym(void *lib, const char *name)
{
	void *p = dlsym(lib, name);

	if (!p)
		fail_msg("%s: %s", name, dlerror());
	return p;
}

static void test_dlclose_with_open_device(void **state)
{
	void *lib = dlopen(UROCE_LIBIBVERBS, RTLD_NOW | RTLD_LOCAL);
	struct ibv_qp_init_attr qa;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(4791)};
	uint8_t junk[64] = {0};
	int n, s;

	(void)state;
	if (!lib)
		fail_msg("dlopen %s: %s", UROCE_LIBIBVERBS, dlerror());
	setenv("UROCE_IP", TEST_IP, 1);
	list = ((get_list_fn)sym(lib, "ibv_get_device_list"))(&n);
	assert_non_null(list);
	assert_int_equal(n, 1);
	assert_non_null(ctx = ((open_fn)sym(lib, "ibv_open_device"))(list[0]));
	((free_list_fn)sym(lib, "ibv_free_device_list"))(list);
	assert_non_null(pd = ((alloc_pd_fn)sym(lib, "ibv_alloc_pd"))(ctx));
	assert_non_null(cq = ((create_cq_fn)sym(lib, "ibv_create_cq"))(ctx, 16, NULL, NULL, 0));
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_UD;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	/* The first QP starts the progress thread and binds port 4791 of TEST_IP. */
	assert_non_null(((create_qp_fn)sym(lib, "ibv_create_qp"))(pd, &qa));

	assert_int_equal(dlclose(lib), 0);
	assert_non_null(lib = dlopen(UROCE_LIBIBVERBS, RTLD_NOW | RTLD_NOLOAD));
	assert_int_equal(dlclose(lib), 0);

	/* Wake the thread: a datagram it reads and drops (not RoCEv2), then a round trip of
	 * our own through the same loopback, after which the thread has had its wake-up. */
	assert_int_equal(inet_pton(AF_INET, TEST_IP, &to.sin_addr), 1);
	assert_true((s = socket(AF_INET, SOCK_DGRAM, 0)) >= 0);
	for (int i = 0; i < 100; i++)
		assert_int_equal(sendto(s, junk, sizeof(junk), 0, (struct sockaddr *)&to,
					sizeof(to)), (ssize_t)sizeof(junk));
	close(s);
	usleep(100000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dlclose_with_open_device),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
