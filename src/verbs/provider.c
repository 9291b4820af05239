/* SPDX-License-Identifier: MIT */
/* IBVERBS_PRIVATE_34: the interface between rdma-core's libibverbs and its provider
 * libraries (rdma-core 44, libibverbs/driver.h), with rdma-core's signatures. Debian's
 * libibverbs.so.1 exports it, provider libraries (libmlx5.so.1, libefa.so.1, the
 * libibverbs/lib*-rdmav34.so drivers) and a few tools link it, so it exists here too.
 *
 * uroce is its own provider and has no kernel device, so of this interface only what works
 * without one does something:
 * - A provider that registers itself (its constructor calls verbs_register_driver_34, as
 *   a provider library loaded by mistake or by a program that links libmlx5 would) is
 *   accepted and ignored: uroce's device list holds uroce's device only, and no context is
 *   ever made by a provider (_verbs_init_and_alloc_context fails), so none of its code
 *   runs. verbs_set_ops and verbs_uninit_context act only on such a context: nothing to do.
 * - The kernel commands (ibv_cmd_*, execute_ioctl) have no kernel device to go to (uroce's
 *   cmd_fd carries nothing, device.c): they fail with EOPNOTSUPP, returned and in errno
 *   (ibv_cmd_poll_cq returns -1), what rdma-core reports for a command the kernel lacks.
 * - What needs no kernel does what rdma-core's does: verbs_open_device opens a device,
 *   verbs_init_cq initialises a CQ, __ioctl_final_num_attrs counts, __verbs_log logs,
 *   ibv_read_ibdev_sysfs_file reads (nothing: uroce has no sysfs device), and
 *   verbs_allow_disassociate_destroy reflects RDMAV_ALLOW_DISASSOC_DESTROY.
 * ibv_query_gid_type, also in this node, is in device.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "priv.h"

/* rdma-core's own structures that cross this interface only by pointer (kern-abi.h,
 * driver.h, cmd_ioctl.h): never dereferenced here, except ibv_command_buffer below. */
struct ibv_alloc_mw;
struct ibv_alloc_pd;
struct ibv_create_cq;
struct ibv_create_cq_ex;
struct ibv_create_qp;
struct ibv_create_qp_ex;
struct ibv_create_srq;
struct ibv_create_wq;
struct ibv_create_xsrq;
struct ibv_get_context;
struct ibv_modify_cq;
struct ibv_modify_qp;
struct ibv_modify_qp_ex;
struct ibv_modify_srq;
struct ibv_modify_wq;
struct ibv_open_qp;
struct ibv_open_xrcd;
struct ibv_query_port;
struct ibv_query_qp;
struct ibv_query_srq;
struct ibv_reg_mr;
struct ibv_rereg_mr;
struct ibv_resize_cq;
struct verbs_context_ops;
struct verbs_counters;
struct verbs_cq;
struct verbs_device_ops;
struct verbs_dm;
struct verbs_flow_action;
struct verbs_mr;
struct verbs_qp;
struct verbs_srq;
struct verbs_sysfs_dev;
struct verbs_xrcd;

/* A command buffer as rdma-core 44 lays it out (libibverbs/cmd_ioctl.h): a chain of buffers,
 * each an ioctl header followed by the attributes filled so far (up to next_attr). */
struct ibv_command_buffer {
	struct ibv_command_buffer *next;
	struct ib_uverbs_attr *next_attr;
	struct ib_uverbs_attr *last_attr;
	uint8_t uhw_in_idx;
	uint8_t uhw_out_idx;
	uint8_t uhw_in_headroom_dwords;
	uint8_t uhw_out_headroom_dwords;
	uint8_t buffer_error : 1;
	uint8_t fallback_require_ex : 1;
	uint8_t fallback_ioctl_only : 1;
	struct ib_uverbs_ioctl_hdr hdr;
};

/* ---- Kernel commands: no kernel device to send them to ---- */

static int no_kernel(void)
{
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

/* Each command is declared and defined with rdma-core's parameters, which it ignores. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define CMD(name, params)                                                                     \
	int name params;                                                                      \
	int name params { return no_kernel(); }
/* ibv_cmd_poll_cq returns the number of completions, or -1. */
#define CMD_COUNT(name, params)                                                               \
	int name params;                                                                      \
	int name params { return no_kernel() ? -1 : 0; }

CMD(ibv_cmd_get_context, (struct verbs_context *context, struct ibv_get_context *cmd,
	size_t cmd_size, struct ib_uverbs_get_context_resp *resp, size_t resp_size))
CMD(ibv_cmd_query_context, (struct ibv_context *ctx, struct ibv_command_buffer *driver))
CMD(ibv_cmd_create_flow_action_esp, (struct ibv_context *ctx, struct ibv_flow_action_esp_attr *attr,
	struct verbs_flow_action *flow_action, struct ibv_command_buffer *driver))
CMD(ibv_cmd_modify_flow_action_esp, (struct verbs_flow_action *flow_action,
	struct ibv_flow_action_esp_attr *attr, struct ibv_command_buffer *driver))
CMD(ibv_cmd_query_device_any, (struct ibv_context *context,
	const struct ibv_query_device_ex_input *input, struct ibv_device_attr_ex *attr,
	size_t attr_size, struct ib_uverbs_ex_query_device_resp *resp, size_t *resp_size))
CMD(ibv_cmd_query_port, (struct ibv_context *context, uint8_t port_num,
	struct ibv_port_attr *port_attr, struct ibv_query_port *cmd, size_t cmd_size))
CMD(ibv_cmd_alloc_pd, (struct ibv_context *context, struct ibv_pd *pd, struct ibv_alloc_pd *cmd,
	size_t cmd_size, struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size))
CMD(ibv_cmd_dealloc_pd, (struct ibv_pd *pd))
CMD(ibv_cmd_open_xrcd, (struct ibv_context *context, struct verbs_xrcd *xrcd, int vxrcd_size,
	struct ibv_xrcd_init_attr *attr, struct ibv_open_xrcd *cmd, size_t cmd_size,
	struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size))
CMD(ibv_cmd_close_xrcd, (struct verbs_xrcd *xrcd))
CMD(ibv_cmd_reg_mr, (struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va, int access,
	struct verbs_mr *vmr, struct ibv_reg_mr *cmd, size_t cmd_size,
	struct ib_uverbs_reg_mr_resp *resp, size_t resp_size))
CMD(ibv_cmd_rereg_mr, (struct verbs_mr *vmr, uint32_t flags, void *addr, size_t length,
	uint64_t hca_va, int access, struct ibv_pd *pd, struct ibv_rereg_mr *cmd, size_t cmd_sz,
	struct ib_uverbs_rereg_mr_resp *resp, size_t resp_sz))
CMD(ibv_cmd_dereg_mr, (struct verbs_mr *vmr))
CMD(ibv_cmd_query_mr, (struct ibv_pd *pd, struct verbs_mr *vmr, uint32_t mr_handle))
CMD(ibv_cmd_advise_mr, (struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
	struct ibv_sge *sg_list, uint32_t num_sge))
CMD(ibv_cmd_reg_dmabuf_mr, (struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova,
	int fd, int access, struct verbs_mr *vmr))
CMD(ibv_cmd_alloc_mw, (struct ibv_pd *pd, enum ibv_mw_type type, struct ibv_mw *mw,
	struct ibv_alloc_mw *cmd, size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
	size_t resp_size))
CMD(ibv_cmd_dealloc_mw, (struct ibv_mw *mw))
CMD(ibv_cmd_create_cq, (struct ibv_context *context, int cqe, struct ibv_comp_channel *channel,
	int comp_vector, struct ibv_cq *cq, struct ibv_create_cq *cmd, size_t cmd_size,
	struct ib_uverbs_create_cq_resp *resp, size_t resp_size))
CMD(ibv_cmd_create_cq_ex, (struct ibv_context *context, const struct ibv_cq_init_attr_ex *cq_attr,
	struct verbs_cq *cq, struct ibv_create_cq_ex *cmd, size_t cmd_size,
	struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size, uint32_t cmd_flags))
CMD_COUNT(ibv_cmd_poll_cq, (struct ibv_cq *cq, int ne, struct ibv_wc *wc))
CMD(ibv_cmd_req_notify_cq, (struct ibv_cq *cq, int solicited_only))
CMD(ibv_cmd_resize_cq, (struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd, size_t cmd_size,
	struct ib_uverbs_resize_cq_resp *resp, size_t resp_size))
CMD(ibv_cmd_destroy_cq, (struct ibv_cq *cq))
CMD(ibv_cmd_modify_cq, (struct ibv_cq *cq, struct ibv_modify_cq_attr *attr,
	struct ibv_modify_cq *cmd, size_t cmd_size))
CMD(ibv_cmd_create_srq, (struct ibv_pd *pd, struct ibv_srq *srq, struct ibv_srq_init_attr *attr,
	struct ibv_create_srq *cmd, size_t cmd_size, struct ib_uverbs_create_srq_resp *resp,
	size_t resp_size))
CMD(ibv_cmd_create_srq_ex, (struct ibv_context *context, struct verbs_srq *srq,
	struct ibv_srq_init_attr_ex *attr_ex, struct ibv_create_xsrq *cmd, size_t cmd_size,
	struct ib_uverbs_create_srq_resp *resp, size_t resp_size))
CMD(ibv_cmd_modify_srq, (struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask,
	struct ibv_modify_srq *cmd, size_t cmd_size))
CMD(ibv_cmd_query_srq, (struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
	struct ibv_query_srq *cmd, size_t cmd_size))
CMD(ibv_cmd_destroy_srq, (struct ibv_srq *srq))
CMD(ibv_cmd_create_qp, (struct ibv_pd *pd, struct ibv_qp *qp, struct ibv_qp_init_attr *attr,
	struct ibv_create_qp *cmd, size_t cmd_size, struct ib_uverbs_create_qp_resp *resp,
	size_t resp_size))
CMD(ibv_cmd_create_qp_ex, (struct ibv_context *context, struct verbs_qp *qp,
	struct ibv_qp_init_attr_ex *attr_ex, struct ibv_create_qp *cmd, size_t cmd_size,
	struct ib_uverbs_create_qp_resp *resp, size_t resp_size))
CMD(ibv_cmd_create_qp_ex2, (struct ibv_context *context, struct verbs_qp *qp,
	struct ibv_qp_init_attr_ex *qp_attr, struct ibv_create_qp_ex *cmd, size_t cmd_size,
	struct ib_uverbs_ex_create_qp_resp *resp, size_t resp_size))
CMD(ibv_cmd_open_qp, (struct ibv_context *context, struct verbs_qp *qp, int vqp_sz,
	struct ibv_qp_open_attr *attr, struct ibv_open_qp *cmd, size_t cmd_size,
	struct ib_uverbs_create_qp_resp *resp, size_t resp_size))
CMD(ibv_cmd_query_qp, (struct ibv_qp *qp, struct ibv_qp_attr *qp_attr, int attr_mask,
	struct ibv_qp_init_attr *qp_init_attr, struct ibv_query_qp *cmd, size_t cmd_size))
CMD(ibv_cmd_modify_qp, (struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
	struct ibv_modify_qp *cmd, size_t cmd_size))
CMD(ibv_cmd_modify_qp_ex, (struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
	struct ibv_modify_qp_ex *cmd, size_t cmd_size, struct ib_uverbs_ex_modify_qp_resp *resp,
	size_t resp_size))
CMD(ibv_cmd_destroy_qp, (struct ibv_qp *qp))
CMD(ibv_cmd_post_send, (struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr))
CMD(ibv_cmd_post_recv, (struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr))
CMD(ibv_cmd_post_srq_recv, (struct ibv_srq *srq, struct ibv_recv_wr *wr,
	struct ibv_recv_wr **bad_wr))
CMD(ibv_cmd_create_ah, (struct ibv_pd *pd, struct ibv_ah *ah, struct ibv_ah_attr *attr,
	struct ib_uverbs_create_ah_resp *resp, size_t resp_size))
CMD(ibv_cmd_destroy_ah, (struct ibv_ah *ah))
CMD(ibv_cmd_attach_mcast, (struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid))
CMD(ibv_cmd_detach_mcast, (struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid))
CMD(ibv_cmd_create_flow, (struct ibv_qp *qp, struct ibv_flow *flow_id,
	struct ibv_flow_attr *flow_attr, void *ucmd, size_t ucmd_size))
CMD(ibv_cmd_destroy_flow, (struct ibv_flow *flow_id))
CMD(ibv_cmd_create_wq, (struct ibv_context *context, struct ibv_wq_init_attr *wq_init_attr,
	struct ibv_wq *wq, struct ibv_create_wq *cmd, size_t cmd_size,
	struct ib_uverbs_ex_create_wq_resp *resp, size_t resp_size))
CMD(ibv_cmd_destroy_flow_action, (struct verbs_flow_action *action))
CMD(ibv_cmd_modify_wq, (struct ibv_wq *wq, struct ibv_wq_attr *attr, struct ibv_modify_wq *cmd,
	size_t cmd_size))
CMD(ibv_cmd_destroy_wq, (struct ibv_wq *wq))
CMD(ibv_cmd_create_rwq_ind_table, (struct ibv_context *context,
	struct ibv_rwq_ind_table_init_attr *init_attr, struct ibv_rwq_ind_table *rwq_ind_table,
	struct ib_uverbs_ex_create_rwq_ind_table_resp *resp, size_t resp_size))
CMD(ibv_cmd_destroy_rwq_ind_table, (struct ibv_rwq_ind_table *rwq_ind_table))
CMD(ibv_cmd_create_counters, (struct ibv_context *context, struct ibv_counters_init_attr *init_attr,
	struct verbs_counters *vcounters, struct ibv_command_buffer *link))
CMD(ibv_cmd_destroy_counters, (struct verbs_counters *vcounters))
CMD(ibv_cmd_read_counters, (struct verbs_counters *vcounters, uint64_t *counters_value,
	uint32_t ncounters, uint32_t flags, struct ibv_command_buffer *link))
CMD(ibv_cmd_alloc_dm, (struct ibv_context *ctx, const struct ibv_alloc_dm_attr *dm_attr,
	struct verbs_dm *dm, struct ibv_command_buffer *link))
CMD(ibv_cmd_free_dm, (struct verbs_dm *dm))
CMD(ibv_cmd_reg_dm_mr, (struct ibv_pd *pd, struct verbs_dm *dm, uint64_t offset, size_t length,
	unsigned int access, struct verbs_mr *vmr, struct ibv_command_buffer *link))
CMD(execute_ioctl, (struct ibv_context *context, struct ibv_command_buffer *cmd))
#pragma GCC diagnostic pop

/* The number of attributes a command carries once its linked buffers are merged (rdma-core's
 * cmd_ioctl.c): the caller's own plus those filled in every buffer of the chain. */
unsigned int __ioctl_final_num_attrs(unsigned int num_attrs, struct ibv_command_buffer *link);
unsigned int __ioctl_final_num_attrs(unsigned int num_attrs, struct ibv_command_buffer *link)
{
	for (; link; link = link->next)
		num_attrs += (unsigned int)(link->next_attr - link->hdr.attrs);
	return num_attrs;
}

/* ---- Providers ---- */

void verbs_register_driver_34(const struct verbs_device_ops *ops);
void verbs_register_driver_34(const struct verbs_device_ops *ops)
{
	(void)ops; /* accepted and ignored: see the top of this file */
}

/* libibverbs 1.1's registration, kept by rdma-core as a no-op for old libfabric usnic
 * providers (compat-1_0.c): a version without a default, ibv_register_driver@IBVERBS_1.1. */
typedef struct ibv_device *(*uv_driver_init_1_1)(const char *sysfs_path, int abi_version);
void uv_register_driver_1_1(const char *name, uv_driver_init_1_1 init);
void uv_register_driver_1_1(const char *name, uv_driver_init_1_1 init)
{
	(void)name, (void)init;
}
__asm__(".symver uv_register_driver_1_1, ibv_register_driver@IBVERBS_1.1");

void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd, size_t alloc_size,
				    struct verbs_context *context_offset, uint32_t driver_id);
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd, size_t alloc_size,
				    struct verbs_context *context_offset, uint32_t driver_id)
{
	(void)device, (void)cmd_fd, (void)alloc_size, (void)context_offset, (void)driver_id;
	errno = EOPNOTSUPP;
	return NULL;
}

void verbs_set_ops(struct verbs_context *vctx, const struct verbs_context_ops *ops);
void verbs_set_ops(struct verbs_context *vctx, const struct verbs_context_ops *ops)
{
	(void)vctx, (void)ops; /* only for a provider's context, which never exists here */
}

void verbs_uninit_context(struct verbs_context *context);
void verbs_uninit_context(struct verbs_context *context)
{
	(void)context; /* as verbs_set_ops */
}

/* rdma-core opens the device's command file and hands private_data to the provider's
 * alloc_context; uroce's device has neither, and rxe ignores private_data too. */
struct ibv_context *verbs_open_device(struct ibv_device *device, void *private_data);
struct ibv_context *verbs_open_device(struct ibv_device *device, void *private_data)
{
	(void)private_data;
	return ibv_open_device(device);
}

/* rdma-core's libibverbs/device.c: the generic part of a new CQ. */
void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel, void *cq_context);
void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel, void *cq_context)
{
	cq->context = context;
	cq->channel = channel;
	if (channel) {
		pthread_mutex_lock(&context->mutex);
		channel->refcnt++;
		pthread_mutex_unlock(&context->mutex);
	}
	cq->cq_context = cq_context;
	cq->comp_events_completed = 0;
	cq->async_events_completed = 0;
	pthread_mutex_init(&cq->mutex, NULL);
	pthread_cond_init(&cq->cond, NULL);
}

/* Only a provider creates the sysfs device this reads from; uroce has none, so no pointer
 * names one: -1 with EINVAL, what rdma-core answers for a device without one (NULL). */
int ibv_read_ibdev_sysfs_file(char *buf, size_t size, struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...) __attribute__((format(printf, 4, 5)));
int ibv_read_ibdev_sysfs_file(char *buf, size_t size, struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...)
{
	(void)buf, (void)size, (void)sysfs_dev, (void)fnfmt;
	errno = EINVAL;
	return -1;
}

/* ---- Logging and settings, as rdma-core 44's libibverbs/init.c ---- */

/* Set at load time from RDMAV_ALLOW_DISASSOC_DESTROY (or MLX4_DEVICE_FATAL_CLEANUP, its
 * older mlx4 name), set and not "0"; providers read it. */
bool verbs_allow_disassociate_destroy;

/* VERBS_LOG_LEVEL (a number: 1 errors, 2 warnings, 3 information, 4 debug) selects the
 * messages, VERBS_LOG_FILE where they are appended; without a file nothing is logged (a
 * release build of rdma-core does the same). */
static uint32_t log_level;
static FILE *log_fp;

static bool env_set(const char *name)
{
	const char *v = getenv(name);

	return v && strcmp(v, "0") != 0;
}

__attribute__((constructor)) static void provider_settings_init(void)
{
	const char *level = getenv("VERBS_LOG_LEVEL");
	const char *file = getenv("VERBS_LOG_FILE");

	verbs_allow_disassociate_destroy = env_set("RDMAV_ALLOW_DISASSOC_DESTROY") ||
					   env_set("MLX4_DEVICE_FATAL_CLEANUP");
	if (level && file) {
		log_level = (uint32_t)strtoul(level, NULL, 0);
		log_fp = fopen(file, "ae");
	}
}

void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt, ...)
{
	va_list args;
	int saved = errno;

	(void)ctx;
	if (!log_fp || level > log_level)
		return;
	va_start(args, fmt);
	vfprintf(log_fp, fmt, args);
	va_end(args);
	fflush(log_fp);
	errno = saved;
}
