// SPDX-License-Identifier: MIT
//
// test-api-surface: every function of the seeds' checklist (000, all
// sections), the ggml.h / ggml-cpu.h names of issue 4 and every other
// function the public headers declare has its address taken here, so a
// declared but missing symbol fails the link of this program. The enum
// values, struct layouts and the API version that the seeds and upstream
// ggml v0.21.0 pin down are checked at compile time and again at run time
// (so a failure names the field).

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-backend-impl.h"
#include "ggml-cpu.h"
#include "gguf.h"

#include <stddef.h>
#include <string.h>

#include "test-harness.h"

typedef void (*any_fn)(void);

struct api_fn {
    const char * name;
    any_fn       fn;
};

#define F(fn) { #fn, (any_fn) (fn) }

static const struct api_fn api_fns[] = {
    // seed 000: Buffer Types
    F(ggml_backend_buft_name),
    F(ggml_backend_buft_alloc_buffer),
    F(ggml_backend_buft_get_alignment),
    F(ggml_backend_buft_get_max_size),
    F(ggml_backend_buft_get_alloc_size),
    F(ggml_backend_buft_is_host),
    F(ggml_backend_buft_get_device),
    // seed 000: Buffers
    F(ggml_backend_buffer_name),
    F(ggml_backend_buffer_free),
    F(ggml_backend_buffer_get_base),
    F(ggml_backend_buffer_get_size),
    F(ggml_backend_buffer_init_tensor),
    F(ggml_backend_buffer_get_alignment),
    F(ggml_backend_buffer_get_max_size),
    F(ggml_backend_buffer_get_alloc_size),
    F(ggml_backend_buffer_clear),
    F(ggml_backend_buffer_is_host),
    F(ggml_backend_buffer_set_usage),
    F(ggml_backend_buffer_get_usage),
    F(ggml_backend_buffer_get_type),
    F(ggml_backend_buffer_reset),
    F(ggml_backend_tensor_copy),
    F(ggml_backend_tensor_copy_async),
    // seed 000: Backend Operations
    F(ggml_backend_guid),
    F(ggml_backend_name),
    F(ggml_backend_free),
    F(ggml_backend_get_default_buffer_type),
    F(ggml_backend_alloc_buffer),
    F(ggml_backend_get_alignment),
    F(ggml_backend_get_max_size),
    F(ggml_backend_tensor_set),
    F(ggml_backend_tensor_get),
    F(ggml_backend_tensor_set_async),
    F(ggml_backend_tensor_get_async),
    F(ggml_backend_tensor_memset),
    F(ggml_backend_synchronize),
    F(ggml_backend_graph_compute),
    F(ggml_backend_graph_compute_async),
    F(ggml_backend_graph_plan_create),
    F(ggml_backend_graph_plan_free),
    F(ggml_backend_graph_plan_compute),
    F(ggml_backend_supports_op),
    F(ggml_backend_supports_buft),
    F(ggml_backend_offload_op),
    F(ggml_backend_get_device),
    // seed 000: Events
    F(ggml_backend_event_new),
    F(ggml_backend_event_free),
    F(ggml_backend_event_record),
    F(ggml_backend_event_synchronize),
    F(ggml_backend_event_wait),
    // seed 000: Devices
    F(ggml_backend_dev_name),
    F(ggml_backend_dev_description),
    F(ggml_backend_dev_memory),
    F(ggml_backend_dev_type),
    F(ggml_backend_dev_get_props),
    F(ggml_backend_dev_backend_reg),
    F(ggml_backend_dev_init),
    F(ggml_backend_dev_buffer_type),
    F(ggml_backend_dev_host_buffer_type),
    F(ggml_backend_dev_buffer_from_host_ptr),
    F(ggml_backend_dev_supports_op),
    F(ggml_backend_dev_supports_buft),
    F(ggml_backend_dev_offload_op),
    // seed 000: Backend Registry
    F(ggml_backend_reg_name),
    F(ggml_backend_reg_dev_count),
    F(ggml_backend_reg_dev_get),
    F(ggml_backend_reg_get_proc_address),
    F(ggml_backend_register),
    F(ggml_backend_device_register),
    F(ggml_backend_reg_count),
    F(ggml_backend_reg_get),
    F(ggml_backend_reg_by_name),
    F(ggml_backend_dev_count),
    F(ggml_backend_dev_get),
    F(ggml_backend_dev_by_name),
    F(ggml_backend_dev_by_type),
    F(ggml_backend_init_by_name),
    F(ggml_backend_init_by_type),
    F(ggml_backend_init_best),
    F(ggml_backend_load),
    F(ggml_backend_unload),
    F(ggml_backend_load_all),
    F(ggml_backend_load_all_from_path),
    // seed 000: Scheduler
    F(ggml_backend_sched_new),
    F(ggml_backend_sched_free),
    F(ggml_backend_sched_reserve),
    F(ggml_backend_sched_reserve_size),
    F(ggml_backend_sched_get_n_backends),
    F(ggml_backend_sched_get_backend),
    F(ggml_backend_sched_get_n_splits),
    F(ggml_backend_sched_get_n_copies),
    F(ggml_backend_sched_get_buffer_type),
    F(ggml_backend_sched_get_buffer_size),
    F(ggml_backend_sched_set_tensor_backend),
    F(ggml_backend_sched_get_tensor_backend),
    F(ggml_backend_sched_split_graph),
    F(ggml_backend_sched_alloc_graph),
    F(ggml_backend_sched_graph_compute),
    F(ggml_backend_sched_graph_compute_async),
    F(ggml_backend_sched_synchronize),
    F(ggml_backend_sched_reset),
    F(ggml_backend_sched_set_eval_callback),
    // seed 000: Memory Allocation
    F(ggml_tallocr_new),
    F(ggml_tallocr_alloc),
    F(ggml_gallocr_new),
    F(ggml_gallocr_new_n),
    F(ggml_gallocr_free),
    F(ggml_gallocr_reserve),
    F(ggml_gallocr_reserve_n),
    F(ggml_gallocr_reserve_n_size),
    F(ggml_gallocr_alloc_graph),
    F(ggml_gallocr_get_buffer_size),
    F(ggml_backend_alloc_ctx_tensors_from_buft_size),
    F(ggml_backend_alloc_ctx_tensors_from_buft),
    F(ggml_backend_alloc_ctx_tensors),
    F(ggml_backend_tensor_alloc),
    F(ggml_backend_view_init),
    // seed 000: CPU Backend
    F(ggml_backend_cpu_init),
    F(ggml_backend_is_cpu),
    F(ggml_backend_cpu_set_n_threads),
    F(ggml_backend_cpu_set_threadpool),
    F(ggml_backend_cpu_set_abort_callback),
    F(ggml_backend_cpu_set_use_ref),
    F(ggml_backend_cpu_buffer_type),
    F(ggml_backend_cpu_buffer_from_ptr),
    F(ggml_backend_cpu_reg),
    F(ggml_backend_cpu_repack_buffer_type),
    F(ggml_graph_plan),
    F(ggml_graph_compute),
    F(ggml_graph_compute_with_ctx),
    F(ggml_threadpool_params_default),
    F(ggml_threadpool_params_init),
    F(ggml_threadpool_params_match),
    F(ggml_threadpool_new),
    F(ggml_threadpool_free),
    F(ggml_threadpool_get_n_threads),
    F(ggml_threadpool_pause),
    F(ggml_threadpool_resume),
    F(ggml_numa_init),
    F(ggml_is_numa),
    F(ggml_cpu_init),
    F(ggml_cpu_has_sse3),
    F(ggml_cpu_has_ssse3),
    F(ggml_cpu_has_avx),
    F(ggml_cpu_has_avx_vnni),
    F(ggml_cpu_has_avx2),
    F(ggml_cpu_has_bmi2),
    F(ggml_cpu_has_f16c),
    F(ggml_cpu_has_fma),
    F(ggml_cpu_has_avx512),
    F(ggml_cpu_has_avx512_vbmi),
    F(ggml_cpu_has_avx512_vnni),
    F(ggml_cpu_has_avx512_bf16),
    F(ggml_cpu_has_amx_int8),
    F(ggml_cpu_has_neon),
    F(ggml_cpu_has_arm_fma),
    F(ggml_cpu_has_fp16_va),
    F(ggml_cpu_has_dotprod),
    F(ggml_cpu_has_matmul_int8),
    F(ggml_cpu_has_sve),
    F(ggml_cpu_get_sve_cnt),
    F(ggml_cpu_has_sme),
    F(ggml_cpu_has_riscv_v),
    F(ggml_cpu_get_rvv_vlen),
    F(ggml_cpu_has_vsx),
    F(ggml_cpu_has_vxe),
    F(ggml_cpu_has_wasm_simd),
    F(ggml_cpu_has_llamafile),
    F(ggml_get_type_traits_cpu),
    // seed 000: Utilities & Float Conversions
    F(ggml_version),
    F(ggml_commit),
    F(ggml_status_to_string),
    F(ggml_time_init),
    F(ggml_time_ms),
    F(ggml_time_us),
    F(ggml_cycles),
    F(ggml_cycles_per_ms),
    F(ggml_log_get),
    F(ggml_log_set),
    F(ggml_set_abort_callback),
    F(ggml_guid_matches),
    F(ggml_print_object),
    F(ggml_print_objects),
    F(ggml_fopen),
    F(ggml_fp16_to_fp32),
    F(ggml_fp32_to_fp16),
    F(ggml_fp16_to_fp32_row),
    F(ggml_fp32_to_fp16_row),
    F(ggml_fp32_to_bf16),
    F(ggml_bf16_to_fp32),
    F(ggml_bf16_to_fp32_row),
    F(ggml_fp32_to_bf16_row),
    F(ggml_fp32_to_bf16_row_ref),
    F(ggml_cpu_fp32_to_fp32),
    F(ggml_cpu_fp32_to_i32),
    F(ggml_cpu_fp32_to_fp16),
    F(ggml_cpu_fp16_to_fp32),
    F(ggml_cpu_fp32_to_bf16),
    F(ggml_cpu_bf16_to_fp32),
    // issue 4: ggml.h / ggml-cpu.h names
    F(ggml_abort),
    F(ggml_abs),
    F(ggml_abs_inplace),
    F(ggml_add),
    F(ggml_add1),
    F(ggml_add1_inplace),
    F(ggml_add_inplace),
    F(ggml_arange),
    F(ggml_are_same_shape),
    F(ggml_argmax),
    F(ggml_argsort),
    F(ggml_blck_size),
    F(ggml_build_forward_expand),
    F(ggml_clamp),
    F(ggml_concat),
    F(ggml_cont),
    F(ggml_cont_1d),
    F(ggml_cont_2d),
    F(ggml_cont_3d),
    F(ggml_cont_4d),
    F(ggml_cos),
    F(ggml_cos_inplace),
    F(ggml_cpy),
    F(ggml_diag_mask_inf),
    F(ggml_diag_mask_inf_inplace),
    F(ggml_div),
    F(ggml_div_inplace),
    F(ggml_dup),
    F(ggml_dup_inplace),
    F(ggml_dup_tensor),
    F(ggml_element_size),
    F(ggml_elu),
    F(ggml_elu_inplace),
    F(ggml_exp),
    F(ggml_exp_inplace),
    F(ggml_flash_attn_ext),
    F(ggml_format_name),
    F(ggml_free),
    F(ggml_geglu),
    F(ggml_geglu_split),
    F(ggml_geglu_swapped),
    F(ggml_gelu),
    F(ggml_gelu_inplace),
    F(ggml_gelu_quick),
    F(ggml_gelu_quick_inplace),
    F(ggml_get_data),
    F(ggml_get_data_f32),
    F(ggml_get_first_tensor),
    F(ggml_get_glu_op),
    F(ggml_get_max_tensor_size),
    F(ggml_get_mem_buffer),
    F(ggml_get_mem_size),
    F(ggml_get_name),
    F(ggml_get_next_tensor),
    F(ggml_get_no_alloc),
    F(ggml_get_rows),
    F(ggml_get_tensor),
    F(ggml_get_type_traits),
    F(ggml_get_unary_op),
    F(ggml_glu),
    F(ggml_glu_op_name),
    F(ggml_glu_split),
    F(ggml_graph_add_node),
    F(ggml_graph_clear),
    F(ggml_graph_cpy),
    F(ggml_graph_get_tensor),
    F(ggml_graph_n_nodes),
    F(ggml_graph_node),
    F(ggml_graph_nodes),
    F(ggml_graph_overhead),
    F(ggml_graph_overhead_custom),
    F(ggml_graph_print),
    F(ggml_graph_reset),
    F(ggml_graph_size),
    F(ggml_hardsigmoid),
    F(ggml_hardswish),
    F(ggml_init),
    F(ggml_is_3d),
    F(ggml_is_contiguous),
    F(ggml_is_contiguous_0),
    F(ggml_is_contiguous_1),
    F(ggml_is_contiguous_2),
    F(ggml_is_empty),
    F(ggml_is_matrix),
    F(ggml_is_permuted),
    F(ggml_is_quantized),
    F(ggml_is_scalar),
    F(ggml_is_transposed),
    F(ggml_is_vector),
    F(ggml_log),
    F(ggml_log_inplace),
    F(ggml_mean),
    F(ggml_mul),
    F(ggml_mul_inplace),
    F(ggml_mul_mat),
    F(ggml_mul_mat_set_prec),
    F(ggml_n_dims),
    F(ggml_nbytes),
    F(ggml_nbytes_pad),
    F(ggml_neg),
    F(ggml_neg_inplace),
    F(ggml_nelements),
    F(ggml_new_graph),
    F(ggml_new_graph_custom),
    F(ggml_new_tensor),
    F(ggml_new_tensor_1d),
    F(ggml_new_tensor_2d),
    F(ggml_new_tensor_3d),
    F(ggml_new_tensor_4d),
    F(ggml_norm),
    F(ggml_norm_inplace),
    F(ggml_nrows),
    F(ggml_op_desc),
    F(ggml_op_name),
    F(ggml_op_symbol),
    F(ggml_pad),
    F(ggml_permute),
    F(ggml_quantize_chunk),
    F(ggml_quantize_free),
    F(ggml_quantize_init),
    F(ggml_quantize_requires_imatrix),
    F(ggml_reglu),
    F(ggml_reglu_split),
    F(ggml_reglu_swapped),
    F(ggml_relu),
    F(ggml_relu_inplace),
    F(ggml_repeat),
    F(ggml_reset),
    F(ggml_reshape),
    F(ggml_reshape_1d),
    F(ggml_reshape_2d),
    F(ggml_reshape_3d),
    F(ggml_reshape_4d),
    F(ggml_rms_norm),
    F(ggml_rms_norm_inplace),
    F(ggml_rope),
    F(ggml_rope_ext),
    F(ggml_rope_ext_inplace),
    F(ggml_rope_inplace),
    F(ggml_row_size),
    F(ggml_scale),
    F(ggml_scale_bias),
    F(ggml_scale_bias_inplace),
    F(ggml_scale_inplace),
    F(ggml_set_input),
    F(ggml_set_name),
    F(ggml_set_no_alloc),
    F(ggml_set_output),
    F(ggml_set_param),
    F(ggml_set_rows),
    F(ggml_sgn),
    F(ggml_sgn_inplace),
    F(ggml_sigmoid),
    F(ggml_sigmoid_inplace),
    F(ggml_silu),
    F(ggml_silu_inplace),
    F(ggml_sin),
    F(ggml_sin_inplace),
    F(ggml_soft_max),
    F(ggml_soft_max_ext),
    F(ggml_soft_max_inplace),
    F(ggml_sqr),
    F(ggml_sqr_inplace),
    F(ggml_sqrt),
    F(ggml_sqrt_inplace),
    F(ggml_step),
    F(ggml_step_inplace),
    F(ggml_sub),
    F(ggml_sub_inplace),
    F(ggml_sum),
    F(ggml_sum_rows),
    F(ggml_swiglu),
    F(ggml_swiglu_split),
    F(ggml_swiglu_swapped),
    F(ggml_tanh),
    F(ggml_tanh_inplace),
    F(ggml_tensor_overhead),
    F(ggml_transpose),
    F(ggml_type_name),
    F(ggml_type_size),
    F(ggml_unary),
    F(ggml_unary_inplace),
    F(ggml_unary_op_name),
    F(ggml_used_mem),
    F(ggml_validate_row_data),
    F(ggml_view_1d),
    F(ggml_view_2d),
    F(ggml_view_3d),
    F(ggml_view_4d),
    F(ggml_view_tensor),
    // every other function declared in ggml.h
    F(ggml_is_contiguously_allocated),
    F(ggml_is_contiguous_channels),
    F(ggml_is_contiguous_rows),
    F(ggml_are_same_stride),
    F(ggml_can_repeat),
    F(ggml_new_buffer),
    F(ggml_unravel_index),
    F(ggml_set_loss),
    F(ggml_repeat_4d),
    F(ggml_cast),
    F(ggml_soft_max_ext_inplace),
    F(ggml_pad_ext),
    F(ggml_flash_attn_ext_set_prec),
    F(ggml_flash_attn_ext_get_prec),
    F(ggml_graph_dup),
    F(ggml_graph_get_grad),
    F(ggml_graph_get_grad_acc),
    // the backward pass and training
    F(ggml_build_backward_expand),
    F(ggml_repeat_back),
    F(ggml_silu_back),
    F(ggml_rms_norm_back),
    F(ggml_get_rows_back),
    F(ggml_soft_max_ext_back),
    F(ggml_soft_max_ext_back_inplace),
    F(ggml_rope_ext_back),
    F(ggml_rope_multi_back),
    F(ggml_im2col_back),
    F(ggml_pool_2d_back),
    F(ggml_flash_attn_back),
    F(ggml_cross_entropy_loss),
    F(ggml_cross_entropy_loss_back),
    F(ggml_opt_step_adamw),
    F(ggml_opt_step_sgd),
    F(ggml_ftype_to_ggml_type),
    // every other function declared in ggml-backend.h
    F(ggml_backend_tensor_set_2d_async),
    F(ggml_backend_tensor_get_2d_async),
    F(ggml_backend_tensor_set_2d),
    F(ggml_backend_tensor_get_2d),
    F(ggml_backend_graph_copy),
    F(ggml_backend_graph_copy_free),
    F(ggml_backend_compare_graph_backend),
    // every other function declared in ggml-backend-impl.h
    F(ggml_backend_buffer_init),
    F(ggml_backend_buffer_copy_tensor),
    F(ggml_backend_multi_buffer_alloc_buffer),
    F(ggml_backend_buffer_is_multi_buffer),
    F(ggml_backend_multi_buffer_set_usage),
    // gguf.h: every function (upstream v0.21.0 declares these 61)
    F(gguf_init_empty),
    F(gguf_init_from_file_ptr),
    F(gguf_init_from_file),
    F(gguf_init_from_buffer),
    F(gguf_init_from_callback),
    F(gguf_free),
    F(gguf_type_name),
    F(gguf_get_version),
    F(gguf_get_alignment),
    F(gguf_get_data_offset),
    F(gguf_get_n_kv),
    F(gguf_find_key),
    F(gguf_get_key),
    F(gguf_get_kv_type),
    F(gguf_get_arr_type),
    F(gguf_get_val_u8),
    F(gguf_get_val_i8),
    F(gguf_get_val_u16),
    F(gguf_get_val_i16),
    F(gguf_get_val_u32),
    F(gguf_get_val_i32),
    F(gguf_get_val_f32),
    F(gguf_get_val_u64),
    F(gguf_get_val_i64),
    F(gguf_get_val_f64),
    F(gguf_get_val_bool),
    F(gguf_get_val_str),
    F(gguf_get_val_data),
    F(gguf_get_arr_n),
    F(gguf_get_arr_data),
    F(gguf_get_arr_str),
    F(gguf_get_n_tensors),
    F(gguf_find_tensor),
    F(gguf_get_tensor_offset),
    F(gguf_get_tensor_name),
    F(gguf_get_tensor_ne),
    F(gguf_get_tensor_type),
    F(gguf_get_tensor_size),
    F(gguf_remove_key),
    F(gguf_set_val_u8),
    F(gguf_set_val_i8),
    F(gguf_set_val_u16),
    F(gguf_set_val_i16),
    F(gguf_set_val_u32),
    F(gguf_set_val_i32),
    F(gguf_set_val_f32),
    F(gguf_set_val_u64),
    F(gguf_set_val_i64),
    F(gguf_set_val_f64),
    F(gguf_set_val_bool),
    F(gguf_set_val_str),
    F(gguf_set_arr_data),
    F(gguf_set_arr_str),
    F(gguf_set_kv),
    F(gguf_add_tensor),
    F(gguf_set_tensor_type),
    F(gguf_set_tensor_data),
    F(gguf_write_to_file_ptr),
    F(gguf_write_to_file),
    F(gguf_get_meta_size),
    F(gguf_get_meta_data),
    // upstream ggml-cpu.h scalar accessors and ggml.h ggml_set_zero (older programs use them)
    F(ggml_new_i32),
    F(ggml_new_f32),
    F(ggml_set_i32),
    F(ggml_set_f32),
    F(ggml_get_i32_1d),
    F(ggml_set_i32_1d),
    F(ggml_get_i32_nd),
    F(ggml_set_i32_nd),
    F(ggml_get_f32_1d),
    F(ggml_set_f32_1d),
    F(ggml_get_f32_nd),
    F(ggml_set_f32_nd),
    F(ggml_set_zero),
};

#define N_API_FNS (sizeof(api_fns) / sizeof(api_fns[0]))

TEST(every_function_is_defined) {
    // the link already proved it; the addresses must also be distinct
    // entry points (no two names silently bound to one stub by a macro)
    EXPECT_GE(N_API_FNS, 400);
    for (size_t i = 0; i < N_API_FNS; i++) {
        EXPECT_NE(NULL, api_fns[i].fn) TH_LOG("%s", api_fns[i].name);
        for (size_t j = i + 1; j < N_API_FNS; j++) {
            EXPECT_STRNE(api_fns[i].name, api_fns[j].name);
        }
    }
}

// ---- enum values ------------------------------------------------------------

_Static_assert(GGML_BACKEND_API_VERSION == 2, "api version");
_Static_assert(GGML_BACKEND_DEVICE_TYPE_CPU   == 0, "dev type");
_Static_assert(GGML_BACKEND_DEVICE_TYPE_GPU   == 1, "dev type");
_Static_assert(GGML_BACKEND_DEVICE_TYPE_IGPU  == 2, "dev type");
_Static_assert(GGML_BACKEND_DEVICE_TYPE_ACCEL == 3, "dev type");
_Static_assert(GGML_BACKEND_DEVICE_TYPE_META  == 4, "dev type");
_Static_assert(GGML_BACKEND_DEVICE_TYPE_GPU_UMA == GGML_BACKEND_DEVICE_TYPE_IGPU, "GPU_UMA is the seeds' name for IGPU");
_Static_assert(GGML_BACKEND_BUFFER_USAGE_ANY     == 0, "usage");
_Static_assert(GGML_BACKEND_BUFFER_USAGE_WEIGHTS == 1, "usage");
_Static_assert(GGML_BACKEND_BUFFER_USAGE_COMPUTE == 2, "usage");
_Static_assert(GGML_STATUS_ALLOC_FAILED == -2, "status");
_Static_assert(GGML_STATUS_FAILED       == -1, "status");
_Static_assert(GGML_STATUS_SUCCESS      ==  0, "status");
_Static_assert(GGML_STATUS_ABORTED      ==  1, "status");

_Static_assert(GGUF_TYPE_UINT8 == 0 && GGUF_TYPE_BOOL == 7 && GGUF_TYPE_STRING == 8 && GGUF_TYPE_ARRAY == 9 &&
               GGUF_TYPE_FLOAT64 == 12 && GGUF_TYPE_COUNT == 13, "gguf_type");
_Static_assert(GGUF_VERSION == 3 && GGUF_DEFAULT_ALIGNMENT == 32, "gguf constants");
_Static_assert(offsetof(struct gguf_init_params, no_alloc) == 0 &&
               offsetof(struct gguf_init_params, ctx) == sizeof(void *), "gguf_init_params");

TEST(enum_values) {
    EXPECT_EQ(2, GGML_BACKEND_API_VERSION);
    EXPECT_EQ(0, GGML_BACKEND_DEVICE_TYPE_CPU);
    EXPECT_EQ(1, GGML_BACKEND_DEVICE_TYPE_GPU);
    EXPECT_EQ(2, GGML_BACKEND_DEVICE_TYPE_IGPU);
    EXPECT_EQ(2, GGML_BACKEND_DEVICE_TYPE_GPU_UMA);
    EXPECT_EQ(3, GGML_BACKEND_DEVICE_TYPE_ACCEL);
    EXPECT_EQ(4, GGML_BACKEND_DEVICE_TYPE_META);
    EXPECT_EQ(0, GGML_BACKEND_BUFFER_USAGE_ANY);
    EXPECT_EQ(1, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    EXPECT_EQ(2, GGML_BACKEND_BUFFER_USAGE_COMPUTE);
    EXPECT_EQ(-2, GGML_STATUS_ALLOC_FAILED);
    EXPECT_EQ(-1, GGML_STATUS_FAILED);
    EXPECT_EQ(0, GGML_STATUS_SUCCESS);
    EXPECT_EQ(1, GGML_STATUS_ABORTED);
    EXPECT_EQ(1, GGML_TENSOR_FLAG_INPUT);
    EXPECT_EQ(2, GGML_TENSOR_FLAG_OUTPUT);
    EXPECT_EQ(4, GGML_TENSOR_FLAG_PARAM);
    EXPECT_EQ(8, GGML_TENSOR_FLAG_LOSS);
    EXPECT_EQ(16, GGML_TENSOR_FLAG_COMPUTE);
    EXPECT_EQ(4, GGML_MAX_DIMS);
    EXPECT_EQ(10, GGML_MAX_SRC);
    EXPECT_EQ(64, GGML_MAX_OP_PARAMS);
    EXPECT_EQ(64, GGML_MAX_NAME);
    EXPECT_EQ(2048, GGML_DEFAULT_GRAPH_SIZE);
    EXPECT_EQ(4, GGML_DEFAULT_N_THREADS);
    EXPECT_EQ(0, GGML_NUMA_STRATEGY_DISABLED);
    EXPECT_EQ(4, GGML_NUMA_STRATEGY_MIRROR);
    // the status strings exist for every status
    EXPECT_NE(NULL, ggml_status_to_string(GGML_STATUS_ALLOC_FAILED));
    EXPECT_NE(NULL, ggml_status_to_string(GGML_STATUS_ABORTED));
}

// ---- struct layouts (member order, LP64) ---------------------------------------

#define P (sizeof(void *))

TEST(tensor_layout) {
    if (P != 8) {
        SKIP(return, "offsets are for 64-bit targets");
    }
    EXPECT_EQ(336, sizeof(struct ggml_tensor));
    EXPECT_EQ(0,   offsetof(struct ggml_tensor, type));
    EXPECT_EQ(8,   offsetof(struct ggml_tensor, buffer));
    EXPECT_EQ(16,  offsetof(struct ggml_tensor, ne));
    EXPECT_EQ(48,  offsetof(struct ggml_tensor, nb));
    EXPECT_EQ(80,  offsetof(struct ggml_tensor, op));
    EXPECT_EQ(84,  offsetof(struct ggml_tensor, op_params));
    EXPECT_EQ(148, offsetof(struct ggml_tensor, flags));
    EXPECT_EQ(152, offsetof(struct ggml_tensor, src));
    EXPECT_EQ(232, offsetof(struct ggml_tensor, view_src));
    EXPECT_EQ(240, offsetof(struct ggml_tensor, view_offs));
    EXPECT_EQ(248, offsetof(struct ggml_tensor, data));
    EXPECT_EQ(256, offsetof(struct ggml_tensor, name));
    EXPECT_EQ(320, offsetof(struct ggml_tensor, extra));
    EXPECT_EQ(328, offsetof(struct ggml_tensor, padding));
}

TEST(dev_caps_and_props_layout) {
    // caps: async, host_buffer, buffer_from_host_ptr, events, mmap_support
    EXPECT_EQ(0, offsetof(struct ggml_backend_dev_caps, async));
    EXPECT_EQ(1, offsetof(struct ggml_backend_dev_caps, host_buffer));
    EXPECT_EQ(2, offsetof(struct ggml_backend_dev_caps, buffer_from_host_ptr));
    EXPECT_EQ(3, offsetof(struct ggml_backend_dev_caps, events));
    EXPECT_EQ(4, offsetof(struct ggml_backend_dev_caps, mmap_support));
    EXPECT_EQ(5, sizeof(struct ggml_backend_dev_caps));
    // props: name, description, memory_free, memory_total, type, device_id, caps
    EXPECT_EQ(0,     offsetof(struct ggml_backend_dev_props, name));
    EXPECT_EQ(P,     offsetof(struct ggml_backend_dev_props, description));
    EXPECT_EQ(2 * P, offsetof(struct ggml_backend_dev_props, memory_free));
    EXPECT_EQ(3 * P, offsetof(struct ggml_backend_dev_props, memory_total));
    EXPECT_EQ(4 * P, offsetof(struct ggml_backend_dev_props, type));
    EXPECT_EQ(5 * P, offsetof(struct ggml_backend_dev_props, device_id));
    EXPECT_EQ(6 * P, offsetof(struct ggml_backend_dev_props, caps));
}

TEST(public_struct_layouts) {
    EXPECT_EQ(0,     offsetof(struct ggml_tallocr, buffer));
    EXPECT_EQ(P,     offsetof(struct ggml_tallocr, base));
    EXPECT_EQ(2 * P, offsetof(struct ggml_tallocr, alignment));
    EXPECT_EQ(3 * P, offsetof(struct ggml_tallocr, offset));
    EXPECT_EQ(0,     offsetof(struct ggml_backend_graph_copy, buffer));
    EXPECT_EQ(P,     offsetof(struct ggml_backend_graph_copy, ctx_allocated));
    EXPECT_EQ(2 * P, offsetof(struct ggml_backend_graph_copy, ctx_unallocated));
    EXPECT_EQ(3 * P, offsetof(struct ggml_backend_graph_copy, graph));
    EXPECT_EQ(0,     offsetof(struct ggml_init_params, mem_size));
    EXPECT_EQ(P,     offsetof(struct ggml_init_params, mem_buffer));
    EXPECT_EQ(2 * P, offsetof(struct ggml_init_params, no_alloc));
    EXPECT_EQ(0,     offsetof(struct ggml_cplan, work_size));
    EXPECT_EQ(P,     offsetof(struct ggml_cplan, work_data));
    EXPECT_EQ(2 * P, offsetof(struct ggml_cplan, n_threads));
    EXPECT_EQ(3 * P, offsetof(struct ggml_cplan, threadpool));
    EXPECT_EQ(4 * P, offsetof(struct ggml_cplan, abort_callback));
    EXPECT_EQ(5 * P, offsetof(struct ggml_cplan, abort_callback_data));
    EXPECT_EQ(6 * P, offsetof(struct ggml_cplan, use_ref));
    EXPECT_EQ(0,     offsetof(struct ggml_backend_feature, name));
    EXPECT_EQ(P,     offsetof(struct ggml_backend_feature, value));
}

// the interface tables of seed 001, member by member
#define SLOT(type, member, i) EXPECT_EQ((i) * P, offsetof(struct type, member)) TH_LOG(#type "." #member)

TEST(interface_tables_member_order) {
    SLOT(ggml_backend_buffer_type_i, get_name, 0);
    SLOT(ggml_backend_buffer_type_i, alloc_buffer, 1);
    SLOT(ggml_backend_buffer_type_i, get_alignment, 2);
    SLOT(ggml_backend_buffer_type_i, get_max_size, 3);
    SLOT(ggml_backend_buffer_type_i, get_alloc_size, 4);
    SLOT(ggml_backend_buffer_type_i, is_host, 5);
    EXPECT_EQ(6 * P, sizeof(struct ggml_backend_buffer_type_i));
    SLOT(ggml_backend_buffer_type, iface, 0);
    SLOT(ggml_backend_buffer_type, device, 6);
    SLOT(ggml_backend_buffer_type, context, 7);

    SLOT(ggml_backend_buffer_i, free_buffer, 0);
    SLOT(ggml_backend_buffer_i, get_base, 1);
    SLOT(ggml_backend_buffer_i, init_tensor, 2);
    SLOT(ggml_backend_buffer_i, memset_tensor, 3);
    SLOT(ggml_backend_buffer_i, set_tensor, 4);
    SLOT(ggml_backend_buffer_i, get_tensor, 5);
    SLOT(ggml_backend_buffer_i, set_tensor_2d, 6);
    SLOT(ggml_backend_buffer_i, get_tensor_2d, 7);
    SLOT(ggml_backend_buffer_i, cpy_tensor, 8);
    SLOT(ggml_backend_buffer_i, clear, 9);
    SLOT(ggml_backend_buffer_i, reset, 10);
    EXPECT_EQ(11 * P, sizeof(struct ggml_backend_buffer_i));
    SLOT(ggml_backend_buffer, iface, 0);
    SLOT(ggml_backend_buffer, buft, 11);
    SLOT(ggml_backend_buffer, context, 12);
    SLOT(ggml_backend_buffer, size, 13);
    SLOT(ggml_backend_buffer, usage, 14);

    SLOT(ggml_backend_i, get_name, 0);
    SLOT(ggml_backend_i, free, 1);
    SLOT(ggml_backend_i, set_tensor_async, 2);
    SLOT(ggml_backend_i, get_tensor_async, 3);
    SLOT(ggml_backend_i, set_tensor_2d_async, 4);
    SLOT(ggml_backend_i, get_tensor_2d_async, 5);
    SLOT(ggml_backend_i, cpy_tensor_async, 6);
    SLOT(ggml_backend_i, synchronize, 7);
    SLOT(ggml_backend_i, graph_plan_create, 8);
    SLOT(ggml_backend_i, graph_plan_free, 9);
    SLOT(ggml_backend_i, graph_plan_update, 10);
    SLOT(ggml_backend_i, graph_plan_compute, 11);
    SLOT(ggml_backend_i, graph_compute, 12);
    SLOT(ggml_backend_i, event_record, 13);
    SLOT(ggml_backend_i, event_wait, 14);
    SLOT(ggml_backend_i, graph_optimize, 15);
    EXPECT_EQ(16 * P, sizeof(struct ggml_backend_i));
    SLOT(ggml_backend, guid, 0);
    SLOT(ggml_backend, iface, 1);
    SLOT(ggml_backend, device, 17);
    SLOT(ggml_backend, context, 18);
    SLOT(ggml_backend_event, device, 0);
    SLOT(ggml_backend_event, context, 1);

    SLOT(ggml_backend_device_i, get_name, 0);
    SLOT(ggml_backend_device_i, get_description, 1);
    SLOT(ggml_backend_device_i, get_memory, 2);
    SLOT(ggml_backend_device_i, get_type, 3);
    SLOT(ggml_backend_device_i, get_props, 4);
    SLOT(ggml_backend_device_i, init_backend, 5);
    SLOT(ggml_backend_device_i, get_buffer_type, 6);
    SLOT(ggml_backend_device_i, get_host_buffer_type, 7);
    SLOT(ggml_backend_device_i, buffer_from_host_ptr, 8);
    SLOT(ggml_backend_device_i, supports_op, 9);
    SLOT(ggml_backend_device_i, supports_buft, 10);
    SLOT(ggml_backend_device_i, offload_op, 11);
    SLOT(ggml_backend_device_i, event_new, 12);
    SLOT(ggml_backend_device_i, event_free, 13);
    SLOT(ggml_backend_device_i, event_synchronize, 14);
    EXPECT_EQ(15 * P, sizeof(struct ggml_backend_device_i));
    SLOT(ggml_backend_device, iface, 0);
    SLOT(ggml_backend_device, reg, 15);
    SLOT(ggml_backend_device, context, 16);

    SLOT(ggml_backend_reg_i, get_name, 0);
    SLOT(ggml_backend_reg_i, get_device_count, 1);
    SLOT(ggml_backend_reg_i, get_device, 2);
    SLOT(ggml_backend_reg_i, get_proc_address, 3);
    EXPECT_EQ(4 * P, sizeof(struct ggml_backend_reg_i));
    SLOT(ggml_backend_reg, api_version, 0);
    SLOT(ggml_backend_reg, iface, 1);
    SLOT(ggml_backend_reg, context, 5);
}

// the plug-in entry point types
TEST(plugin_entry_point_types) {
    ggml_backend_init_t init = ggml_backend_cpu_reg;
    ggml_backend_reg_t reg = init();
    ASSERT_NE(NULL, reg);
    EXPECT_EQ(GGML_BACKEND_API_VERSION, reg->api_version);
    ggml_backend_score_t score = NULL;
    EXPECT_EQ(NULL, score);
    // the proc-address typedefs name the CPU backend's functions
    ggml_backend_set_n_threads_t set_n_threads =
        (ggml_backend_set_n_threads_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads");
    EXPECT_EQ((any_fn) ggml_backend_cpu_set_n_threads, (any_fn) set_n_threads);
    ggml_backend_get_features_t get_features =
        (ggml_backend_get_features_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_get_features");
    ASSERT_NE(NULL, get_features);
    struct ggml_backend_feature * f = get_features(reg);
    ASSERT_NE(NULL, f);
    while (f->name) {
        EXPECT_NE(NULL, f->value);
        f++;
    }
    EXPECT_EQ(NULL, ggml_backend_reg_get_proc_address(reg, "no_such_function"));

    // the other proc addresses upstream's CPU backend answers are its public functions
    static const struct api_fn procs[] = {
        { "ggml_backend_set_abort_callback", (any_fn) ggml_backend_cpu_set_abort_callback },
        { "ggml_backend_cpu_set_use_ref",    (any_fn) ggml_backend_cpu_set_use_ref },
        { "ggml_backend_cpu_numa_init",      (any_fn) ggml_numa_init },
        { "ggml_backend_cpu_is_numa",        (any_fn) ggml_is_numa },
        { "ggml_threadpool_new",             (any_fn) ggml_threadpool_new },
        { "ggml_threadpool_free",            (any_fn) ggml_threadpool_free },
        { "ggml_backend_cpu_set_threadpool", (any_fn) ggml_backend_cpu_set_threadpool },
    };
    for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
        any_fn fn = (any_fn) ggml_backend_reg_get_proc_address(reg, procs[i].name);
        EXPECT_EQ(procs[i].fn, fn) TH_LOG("%s", procs[i].name);
    }
}

TEST_HARNESS_MAIN
