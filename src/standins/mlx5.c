/* SPDX-License-Identifier: MIT */
/* A stand-in for libmlx5.so.1, the direct-verbs library of NVIDIA (Mellanox) ConnectX NICs
 * (rdma-core 44, providers/mlx5; <infiniband/mlx5dv.h>).
 *
 * Why it exists: Debian's perftest, UCX (libuct_ib), libfabric, pyverbs and others name
 * libmlx5.so.1 as a DT_NEEDED library or import mlx5dv_* functions by version, so the dynamic
 * loader must find a libmlx5.so.1 carrying every version node and symbol they import before
 * main() runs. Debian's own libmlx5.so.1 is also rdma-core's mlx5 provider; it imports
 * libibverbs' IBVERBS_PRIVATE_34 internals and registers itself as a driver. Beside uroce's
 * libibverbs.so.1 that would load, but for nothing: no device of uroce's is an mlx5 one. In
 * the same directory as uroce's libibverbs.so.1 (one LD_LIBRARY_PATH), this library satisfies
 * the loader instead and needs nothing itself (not even libibverbs).
 *
 * Every function Debian's libmlx5.so.1 exports is here, in the same version node
 * (mlx5.map; tests/verbs/test_abi_symbols.sh compares the two), with the signature of
 * <infiniband/mlx5dv.h>, which is included so that the compiler checks each one. Each
 * answers "not this device" the way rdma-core's libmlx5 answers for a device that is not
 * mlx5 (its mlx5_get_dv_ops() finding no mlx5 context, providers/mlx5/verbs.c):
 * mlx5dv_is_supported is false; functions returning an int return EOPNOTSUPP; functions
 * returning a pointer return NULL with errno EOPNOTSUPP; mlx5dv_devx_get_event and
 * mlx5dv_vfio_get_events_fd return -1 with errno EOPNOTSUPP; functions without a result do
 * nothing. Callers such as UCX and perftest check mlx5dv_is_supported or the vendor id
 * (uroce's is 0xFFFFFF, as rxe's) and take their generic verbs path; the functions that take
 * an mlx5 object (a DR rule, a DEVX object) can never be reached with one, since nothing
 * here creates any. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <infiniband/mlx5dv.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* The definitions match <infiniband/mlx5dv.h>'s declarations (the compiler checks it), and
 * ignore their parameters. */
#define NOT_MINE_PTR(type, name, params) type name params { errno = EOPNOTSUPP; return NULL; }
#define NOT_MINE_INT(name, params) int name params { return EOPNOTSUPP; }
#define NOT_MINE_FD(name, params) int name params { errno = EOPNOTSUPP; return -1; }
#define NOT_MINE_SSIZE(name, params) ssize_t name params { errno = EOPNOTSUPP; return -1; }
#define NOT_MINE_BOOL(name, params) bool name params { return false; }
#define NOT_MINE_VOID(name, params) void name params { }

/* MLX5_1.0 */
NOT_MINE_INT(mlx5dv_query_device, (struct ibv_context *ctx_in, struct mlx5dv_context *attrs_out))

/* MLX5_1.1 */
NOT_MINE_PTR(struct ibv_cq_ex *, mlx5dv_create_cq, (struct ibv_context *context,
	struct ibv_cq_init_attr_ex *cq_attr, struct mlx5dv_cq_init_attr *mlx5_cq_attr))

/* MLX5_1.2 */
NOT_MINE_INT(mlx5dv_init_obj, (struct mlx5dv_obj *obj, uint64_t obj_type))
NOT_MINE_INT(mlx5dv_set_context_attr, (struct ibv_context *context,
	enum mlx5dv_set_ctx_attr_type type, void *attr))

/* MLX5_1.3 */
NOT_MINE_PTR(struct ibv_qp *, mlx5dv_create_qp, (struct ibv_context *context,
	struct ibv_qp_init_attr_ex *qp_attr, struct mlx5dv_qp_init_attr *mlx5_qp_attr))
NOT_MINE_PTR(struct ibv_wq *, mlx5dv_create_wq, (struct ibv_context *context,
	struct ibv_wq_init_attr *wq_init_attr, struct mlx5dv_wq_init_attr *mlx5_wq_attr))

/* MLX5_1.4 */
NOT_MINE_INT(mlx5dv_get_clock_info, (struct ibv_context *context,
	struct mlx5dv_clock_info *clock_info))

/* MLX5_1.5 */
NOT_MINE_PTR(struct ibv_flow_action *, mlx5dv_create_flow_action_esp, (struct ibv_context *ctx,
	struct ibv_flow_action_esp_attr *esp, struct mlx5dv_flow_action_esp *mlx5_attr))

/* MLX5_1.6 */
NOT_MINE_PTR(struct ibv_flow *, mlx5dv_create_flow, (struct mlx5dv_flow_matcher *matcher,
	struct mlx5dv_flow_match_parameters *match_value, size_t num_actions,
	struct mlx5dv_flow_action_attr actions_attr[]))
NOT_MINE_PTR(struct mlx5dv_flow_matcher *, mlx5dv_create_flow_matcher, (struct ibv_context *context,
	struct mlx5dv_flow_matcher_attr *matcher_attr))
NOT_MINE_INT(mlx5dv_destroy_flow_matcher, (struct mlx5dv_flow_matcher *matcher))

/* MLX5_1.7 */
NOT_MINE_PTR(struct ibv_flow_action *, mlx5dv_create_flow_action_modify_header, (
	struct ibv_context *ctx, size_t actions_sz, uint64_t actions[],
	enum mlx5_ib_uapi_flow_table_type ft_type))
NOT_MINE_PTR(struct ibv_flow_action *, mlx5dv_create_flow_action_packet_reformat, (
	struct ibv_context *ctx, size_t data_sz, void *data,
	enum mlx5_ib_uapi_flow_action_packet_reformat_type reformat_type,
	enum mlx5_ib_uapi_flow_table_type ft_type))
NOT_MINE_PTR(struct mlx5dv_devx_uar *, mlx5dv_devx_alloc_uar, (struct ibv_context *context,
	uint32_t flags))
NOT_MINE_VOID(mlx5dv_devx_free_uar, (struct mlx5dv_devx_uar *devx_uar))
NOT_MINE_INT(mlx5dv_devx_general_cmd, (struct ibv_context *context, const void *in, size_t inlen,
	void *out, size_t outlen))
NOT_MINE_PTR(struct mlx5dv_devx_obj *, mlx5dv_devx_obj_create, (struct ibv_context *context,
	const void *in, size_t inlen, void *out, size_t outlen))
NOT_MINE_INT(mlx5dv_devx_obj_destroy, (struct mlx5dv_devx_obj *obj))
NOT_MINE_INT(mlx5dv_devx_obj_modify, (struct mlx5dv_devx_obj *obj, const void *in, size_t inlen,
	void *out, size_t outlen))
NOT_MINE_INT(mlx5dv_devx_obj_query, (struct mlx5dv_devx_obj *obj, const void *in, size_t inlen,
	void *out, size_t outlen))
NOT_MINE_INT(mlx5dv_devx_query_eqn, (struct ibv_context *context, uint32_t vector, uint32_t *eqn))
NOT_MINE_INT(mlx5dv_devx_umem_dereg, (struct mlx5dv_devx_umem *umem))
NOT_MINE_PTR(struct mlx5dv_devx_umem *, mlx5dv_devx_umem_reg, (struct ibv_context *ctx, void *addr,
	size_t size, uint32_t access))
NOT_MINE_PTR(struct ibv_context *, mlx5dv_open_device, (struct ibv_device *device,
	struct mlx5dv_context_attr *attr))

/* MLX5_1.8 */
NOT_MINE_INT(mlx5dv_devx_cq_modify, (struct ibv_cq *cq, const void *in, size_t inlen, void *out,
	size_t outlen))
NOT_MINE_INT(mlx5dv_devx_cq_query, (struct ibv_cq *cq, const void *in, size_t inlen, void *out,
	size_t outlen))
NOT_MINE_INT(mlx5dv_devx_ind_tbl_modify, (struct ibv_rwq_ind_table *ind_tbl, const void *in,
	size_t inlen, void *out, size_t outlen))
NOT_MINE_INT(mlx5dv_devx_ind_tbl_query, (struct ibv_rwq_ind_table *ind_tbl, const void *in,
	size_t inlen, void *out, size_t outlen))
NOT_MINE_INT(mlx5dv_devx_qp_modify, (struct ibv_qp *qp, const void *in, size_t inlen, void *out,
	size_t outlen))
NOT_MINE_INT(mlx5dv_devx_qp_query, (struct ibv_qp *qp, const void *in, size_t inlen, void *out,
	size_t outlen))
NOT_MINE_INT(mlx5dv_devx_srq_modify, (struct ibv_srq *srq, const void *in, size_t inlen, void *out,
	size_t outlen))
NOT_MINE_INT(mlx5dv_devx_srq_query, (struct ibv_srq *srq, const void *in, size_t inlen, void *out,
	size_t outlen))
NOT_MINE_INT(mlx5dv_devx_wq_modify, (struct ibv_wq *wq, const void *in, size_t inlen, void *out,
	size_t outlen))
NOT_MINE_INT(mlx5dv_devx_wq_query, (struct ibv_wq *wq, const void *in, size_t inlen, void *out,
	size_t outlen))
NOT_MINE_BOOL(mlx5dv_is_supported, (struct ibv_device *device))

/* MLX5_1.9 */
NOT_MINE_PTR(struct mlx5dv_devx_cmd_comp *, mlx5dv_devx_create_cmd_comp, (
	struct ibv_context *context))
NOT_MINE_VOID(mlx5dv_devx_destroy_cmd_comp, (struct mlx5dv_devx_cmd_comp *cmd_comp))
NOT_MINE_INT(mlx5dv_devx_get_async_cmd_comp, (struct mlx5dv_devx_cmd_comp *cmd_comp,
	struct mlx5_ib_uapi_devx_async_cmd_hdr *cmd_resp, size_t cmd_resp_len))
NOT_MINE_INT(mlx5dv_devx_obj_query_async, (struct mlx5dv_devx_obj *obj, const void *in,
	size_t inlen, size_t outlen, uint64_t wr_id, struct mlx5dv_devx_cmd_comp *cmd_comp))

/* MLX5_1.10 */
NOT_MINE_PTR(struct ibv_dm *, mlx5dv_alloc_dm, (struct ibv_context *context,
	struct ibv_alloc_dm_attr *dm_attr, struct mlx5dv_alloc_dm_attr *mlx5_dm_attr))
NOT_MINE_PTR(struct mlx5dv_mkey *, mlx5dv_create_mkey, (
	struct mlx5dv_mkey_init_attr *mkey_init_attr))
NOT_MINE_INT(mlx5dv_destroy_mkey, (struct mlx5dv_mkey *mkey))
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_dest_ibv_qp, (struct ibv_qp *ibqp))
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_dest_table, (
	struct mlx5dv_dr_table *table))
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_dest_vport, (
	struct mlx5dv_dr_domain *domain, uint32_t vport))
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_drop, (void))
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_flow_counter, (
	struct mlx5dv_devx_obj *devx_obj, uint32_t offset))
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_modify_header, (
	struct mlx5dv_dr_domain *domain, uint32_t flags, size_t actions_sz, __be64 actions[]))
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_packet_reformat, (
	struct mlx5dv_dr_domain *domain, uint32_t flags,
	enum mlx5_ib_uapi_flow_action_packet_reformat_type reformat_type, size_t data_sz,
	void *data))
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_tag, (uint32_t tag_value))
NOT_MINE_INT(mlx5dv_dr_action_destroy, (struct mlx5dv_dr_action *action))
NOT_MINE_PTR(struct mlx5dv_dr_domain *, mlx5dv_dr_domain_create, (struct ibv_context *ctx,
	enum mlx5dv_dr_domain_type type))
NOT_MINE_INT(mlx5dv_dr_domain_destroy, (struct mlx5dv_dr_domain *domain))
NOT_MINE_INT(mlx5dv_dr_domain_sync, (struct mlx5dv_dr_domain *domain, uint32_t flags))
NOT_MINE_PTR(struct mlx5dv_dr_matcher *, mlx5dv_dr_matcher_create, (struct mlx5dv_dr_table *table,
	uint16_t priority, uint8_t match_criteria_enable,
	struct mlx5dv_flow_match_parameters *mask))
NOT_MINE_INT(mlx5dv_dr_matcher_destroy, (struct mlx5dv_dr_matcher *matcher))
NOT_MINE_PTR(struct mlx5dv_dr_rule *, mlx5dv_dr_rule_create, (struct mlx5dv_dr_matcher *matcher,
	struct mlx5dv_flow_match_parameters *value, size_t num_actions,
	struct mlx5dv_dr_action *actions[]))
NOT_MINE_INT(mlx5dv_dr_rule_destroy, (struct mlx5dv_dr_rule *rule))
NOT_MINE_PTR(struct mlx5dv_dr_table *, mlx5dv_dr_table_create, (struct mlx5dv_dr_domain *domain,
	uint32_t level))
NOT_MINE_INT(mlx5dv_dr_table_destroy, (struct mlx5dv_dr_table *table))
NOT_MINE_PTR(struct mlx5dv_qp_ex *, mlx5dv_qp_ex_from_ibv_qp_ex, (struct ibv_qp_ex *qp))

/* MLX5_1.11 */
NOT_MINE_PTR(struct mlx5dv_devx_event_channel *, mlx5dv_devx_create_event_channel, (
	struct ibv_context *context, enum mlx5_ib_uapi_devx_create_event_channel_flags flags))
NOT_MINE_VOID(mlx5dv_devx_destroy_event_channel, (struct mlx5dv_devx_event_channel *event_channel))
NOT_MINE_SSIZE(mlx5dv_devx_get_event, (struct mlx5dv_devx_event_channel *event_channel,
	struct mlx5_ib_uapi_devx_async_event_hdr *event_data, size_t event_resp_len))
NOT_MINE_INT(mlx5dv_devx_subscribe_devx_event, (struct mlx5dv_devx_event_channel *event_channel,
	struct mlx5dv_devx_obj *obj, uint16_t events_sz, uint16_t events_num[], uint64_t cookie))
NOT_MINE_INT(mlx5dv_devx_subscribe_devx_event_fd, (struct mlx5dv_devx_event_channel *event_channel,
	int fd, struct mlx5dv_devx_obj *obj, uint16_t event_num))

/* MLX5_1.12 */
NOT_MINE_PTR(struct mlx5dv_var *, mlx5dv_alloc_var, (struct ibv_context *context, uint32_t flags))
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_flow_meter, (
	struct mlx5dv_dr_flow_meter_attr *attr))
NOT_MINE_INT(mlx5dv_dr_action_modify_flow_meter, (struct mlx5dv_dr_action *action,
	struct mlx5dv_dr_flow_meter_attr *attr, __be64 modify_field_select))
NOT_MINE_INT(mlx5dv_dump_dr_domain, (FILE *fout, struct mlx5dv_dr_domain *domain))
NOT_MINE_INT(mlx5dv_dump_dr_matcher, (FILE *fout, struct mlx5dv_dr_matcher *matcher))
NOT_MINE_INT(mlx5dv_dump_dr_rule, (FILE *fout, struct mlx5dv_dr_rule *rule))
NOT_MINE_INT(mlx5dv_dump_dr_table, (FILE *fout, struct mlx5dv_dr_table *table))
NOT_MINE_VOID(mlx5dv_free_var, (struct mlx5dv_var *dv_var))

/* MLX5_1.13 */
NOT_MINE_PTR(struct mlx5dv_pp *, mlx5dv_pp_alloc, (struct ibv_context *context,
	size_t pp_context_sz, const void *pp_context, uint32_t flags))
NOT_MINE_VOID(mlx5dv_pp_free, (struct mlx5dv_pp *pp))

/* MLX5_1.14 */
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_default_miss, (void))
NOT_MINE_VOID(mlx5dv_dr_domain_set_reclaim_device_memory, (struct mlx5dv_dr_domain *dmn,
	bool enable))
NOT_MINE_INT(mlx5dv_modify_qp_lag_port, (struct ibv_qp *qp, uint8_t port_num))
NOT_MINE_INT(mlx5dv_query_qp_lag_port, (struct ibv_qp *qp, uint8_t *port_num,
	uint8_t *active_port_num))

/* MLX5_1.15 */
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_dest_devx_tir, (
	struct mlx5dv_devx_obj *devx_obj))

/* MLX5_1.16 */
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_dest_array, (
	struct mlx5dv_dr_domain *domain, size_t num_dest,
	struct mlx5dv_dr_action_dest_attr *dests[]))
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_flow_sampler, (
	struct mlx5dv_dr_flow_sampler_attr *attr))

/* MLX5_1.17 */
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_aso, (
	struct mlx5dv_dr_domain *domain, struct mlx5dv_devx_obj *devx_obj, uint32_t offset,
	uint32_t flags, uint8_t return_reg_c))
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_pop_vlan, (void))
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_push_vlan, (
	struct mlx5dv_dr_domain *domain, __be32 vlan_hdr))
NOT_MINE_INT(mlx5dv_dr_action_modify_aso, (struct mlx5dv_dr_action *action, uint32_t offset,
	uint32_t flags, uint8_t return_reg_c))
NOT_MINE_INT(mlx5dv_modify_qp_sched_elem, (struct ibv_qp *qp,
	const struct mlx5dv_sched_leaf *requestor, const struct mlx5dv_sched_leaf *responder))
NOT_MINE_INT(mlx5dv_modify_qp_udp_sport, (struct ibv_qp *qp, uint16_t udp_sport))
NOT_MINE_PTR(struct mlx5dv_sched_leaf *, mlx5dv_sched_leaf_create, (struct ibv_context *context,
	const struct mlx5dv_sched_attr *sched_attr))
NOT_MINE_INT(mlx5dv_sched_leaf_destroy, (struct mlx5dv_sched_leaf *leaf))
NOT_MINE_INT(mlx5dv_sched_leaf_modify, (struct mlx5dv_sched_leaf *leaf,
	const struct mlx5dv_sched_attr *sched_attr))
NOT_MINE_PTR(struct mlx5dv_sched_node *, mlx5dv_sched_node_create, (struct ibv_context *context,
	const struct mlx5dv_sched_attr *sched_attr))
NOT_MINE_INT(mlx5dv_sched_node_destroy, (struct mlx5dv_sched_node *node))
NOT_MINE_INT(mlx5dv_sched_node_modify, (struct mlx5dv_sched_node *node,
	const struct mlx5dv_sched_attr *sched_attr))

/* MLX5_1.18 */
NOT_MINE_INT(mlx5dv_reserved_qpn_alloc, (struct ibv_context *ctx, uint32_t *qpn))
NOT_MINE_INT(mlx5dv_reserved_qpn_dealloc, (struct ibv_context *ctx, uint32_t qpn))

/* MLX5_1.19 */
NOT_MINE_PTR(struct mlx5dv_devx_umem *, mlx5dv_devx_umem_reg_ex, (struct ibv_context *ctx,
	struct mlx5dv_devx_umem_in *umem_in))
NOT_MINE_PTR(void *, mlx5dv_dm_map_op_addr, (struct ibv_dm *dm, uint8_t op))
NOT_MINE_INT(_mlx5dv_query_port, (struct ibv_context *context, uint32_t port_num,
	struct mlx5_ib_uapi_query_port *info, size_t info_len))

/* MLX5_1.20 */
NOT_MINE_VOID(mlx5dv_dr_domain_allow_duplicate_rules, (struct mlx5dv_dr_domain *domain, bool allow))
NOT_MINE_INT(mlx5dv_map_ah_to_qp, (struct ibv_ah *ah, uint32_t qp_num))
NOT_MINE_INT(_mlx5dv_mkey_check, (struct mlx5dv_mkey *mkey, struct mlx5dv_mkey_err *err_info,
	size_t err_info_size))
NOT_MINE_INT(mlx5dv_qp_cancel_posted_send_wrs, (struct mlx5dv_qp_ex *mqp, uint64_t wr_id))

/* MLX5_1.21 */
NOT_MINE_INT(mlx5dv_crypto_login, (struct ibv_context *context,
	struct mlx5dv_crypto_login_attr *login_attr))
NOT_MINE_INT(mlx5dv_crypto_login_query_state, (struct ibv_context *context,
	enum mlx5dv_crypto_login_state *state))
NOT_MINE_INT(mlx5dv_crypto_logout, (struct ibv_context *context))
NOT_MINE_INT(mlx5dv_dci_stream_id_reset, (struct ibv_qp *qp, uint16_t stream_id))
NOT_MINE_PTR(struct mlx5dv_dek *, mlx5dv_dek_create, (struct ibv_context *context,
	struct mlx5dv_dek_init_attr *init_attr))
NOT_MINE_INT(mlx5dv_dek_destroy, (struct mlx5dv_dek *dek))
NOT_MINE_INT(mlx5dv_dek_query, (struct mlx5dv_dek *dek, struct mlx5dv_dek_attr *attr))
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_dest_ib_port, (
	struct mlx5dv_dr_domain *domain, uint32_t ib_port))
NOT_MINE_INT(mlx5dv_dr_matcher_set_layout, (struct mlx5dv_dr_matcher *matcher,
	struct mlx5dv_dr_matcher_layout *layout))
NOT_MINE_PTR(struct ibv_device **, mlx5dv_get_vfio_device_list, (
	struct mlx5dv_vfio_context_attr *attr))
NOT_MINE_FD(mlx5dv_vfio_get_events_fd, (struct ibv_context *ibctx))
NOT_MINE_INT(mlx5dv_vfio_process_events, (struct ibv_context *context))

/* MLX5_1.22 */
NOT_MINE_INT(mlx5dv_dr_aso_other_domain_link, (struct mlx5dv_devx_obj *devx_obj,
	struct mlx5dv_dr_domain *peer_dmn, struct mlx5dv_dr_domain *dmn, uint32_t flags,
	uint8_t return_reg_c))
NOT_MINE_INT(mlx5dv_dr_aso_other_domain_unlink, (struct mlx5dv_devx_obj *devx_obj,
	struct mlx5dv_dr_domain *dmn))

/* MLX5_1.23 */
NOT_MINE_PTR(struct mlx5dv_devx_msi_vector *, mlx5dv_devx_alloc_msi_vector, (
	struct ibv_context *ibctx))
NOT_MINE_PTR(struct mlx5dv_devx_eq *, mlx5dv_devx_create_eq, (struct ibv_context *ibctx,
	const void *in, size_t inlen, void *out, size_t outlen))
NOT_MINE_INT(mlx5dv_devx_destroy_eq, (struct mlx5dv_devx_eq *eq))
NOT_MINE_INT(mlx5dv_devx_free_msi_vector, (struct mlx5dv_devx_msi_vector *msi))

/* MLX5_1.24 */
NOT_MINE_PTR(struct mlx5dv_steering_anchor *, mlx5dv_create_steering_anchor, (
	struct ibv_context *context, struct mlx5dv_steering_anchor_attr *attr))
NOT_MINE_PTR(struct mlx5dv_crypto_login_obj *, mlx5dv_crypto_login_create, (
	struct ibv_context *context, struct mlx5dv_crypto_login_attr_ex *login_attr))
NOT_MINE_INT(mlx5dv_crypto_login_destroy, (struct mlx5dv_crypto_login_obj *crypto_login))
NOT_MINE_INT(mlx5dv_crypto_login_query, (struct mlx5dv_crypto_login_obj *crypto_login,
	struct mlx5dv_crypto_login_query_attr *query_attr))
NOT_MINE_INT(mlx5dv_destroy_steering_anchor, (struct mlx5dv_steering_anchor *sa))
NOT_MINE_PTR(struct mlx5dv_dr_action *, mlx5dv_dr_action_create_dest_root_table, (
	struct mlx5dv_dr_table *table, uint16_t priority))

/* The MLX5_1.0 version of mlx5dv_init_obj (rdma-core keeps it for callers built when the
 * CQ's UAR was returned differently); it answers as the current one. */
int uv_mlx5dv_init_obj_1_0(struct mlx5dv_obj *obj, uint64_t obj_type);
int uv_mlx5dv_init_obj_1_0(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	return mlx5dv_init_obj(obj, obj_type);
}
__asm__(".symver uv_mlx5dv_init_obj_1_0, mlx5dv_init_obj@MLX5_1.0");

#pragma GCC diagnostic pop
