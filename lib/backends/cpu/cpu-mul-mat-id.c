/*
 * cpu-mul-mat-id.c - the CPU kernel of MUL_MAT_ID (the expert matrices of a
 * mixture-of-experts layer, each token's activations multiplied by the
 * experts it was routed to).
 *
 * as [K, N, E] (any type with a row conversion to F32, rows contiguous),
 * b [K, n_b, T] (F32/F16/BF16), ids [n_used, T] I32, dst F32 [N, n_used, T]:
 * dst[:, e, t] = as[:, :, ids[e, t]] x b[:, e % n_b, t].
 *
 * Each thread first buckets the (e, t) pairs by expert (a counting sort, in
 * its scratch, the same on every thread), then takes blocks of MMID_ROWS
 * rows of an expert in turn: the rows are converted to F32 once and dotted
 * with the activations of every pair routed to that expert.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "kernels/gk-fp16.h"

#define MMID_ROWS 16

static bool act_in_place(const struct ggml_tensor * b) {
    return b->type == GGML_TYPE_F32 && b->nb[0] == sizeof(float);
}

// scratch layout (per thread): MMID_ROWS weight rows, one activation row,
// then int32 counts [E + 1] and pairs [n_used * T]
static size_t floats_part(const struct ggml_tensor * node) {
    const int64_t K = node->src[0]->ne[0];
    return (size_t) (MMID_ROWS + 1) * (size_t) GGML_PAD(K, 16);
}

size_t ggml_cpu_mul_mat_id_work_per_thread(const struct ggml_tensor * node) {
    const int64_t E = node->src[0]->ne[2];
    const int64_t n_ids = node->src[2]->ne[0] * node->src[2]->ne[1];
    return floats_part(node) * sizeof(float) + (size_t) (E + 1 + n_ids) * sizeof(int32_t);
}

bool ggml_cpu_mul_mat_id_supported(const struct ggml_tensor * node) {
    const struct ggml_tensor * as = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    const struct ggml_tensor * ids = node->src[2];
    const bool b_ok = b->type == GGML_TYPE_F32 || b->type == GGML_TYPE_F16 || b->type == GGML_TYPE_BF16;
    return node->type == GGML_TYPE_F32 && ids->type == GGML_TYPE_I32 && b_ok && ggml_cpu_type_to_f32_ok(as->type) &&
           ggml_is_contiguous_rows(as) && as->ne[0] % ggml_blck_size(as->type) == 0;
}

void ggml_cpu_mul_mat_id(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * as = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const struct ggml_tensor * ids = dst->src[2];
    const int64_t K = as->ne[0], N = as->ne[1], E = as->ne[2];
    const int64_t n_used = ids->ne[0], T = ids->ne[1], n_b = b->ne[1];
    const int64_t ldw = GGML_PAD(K, 16);

    float * wrows = ggml_cpu_thread_scratch(params, dst);
    float * act = wrows + MMID_ROWS * ldw;
    int32_t * start = (int32_t *) (wrows + floats_part(dst));
    int32_t * pairs = start + E + 1;

    // bucket the pairs (e, t), coded e + t * n_used, by expert
    for (int64_t x = 0; x <= E; x++) {
        start[x] = 0;
    }
    for (int64_t t = 0; t < T; t++) {
        for (int64_t e = 0; e < n_used; e++) {
            const int32_t x = *(const int32_t *) ((const char *) ids->data + e * ids->nb[0] + t * ids->nb[1]);
            GGML_ASSERT(x >= 0 && x < E && "mul_mat_id: expert id out of range");
            start[x + 1]++;
        }
    }
    for (int64_t x = 0; x < E; x++) {
        start[x + 1] += start[x];
    }
    for (int64_t t = 0; t < T; t++) {
        for (int64_t e = 0; e < n_used; e++) {
            const int32_t x = *(const int32_t *) ((const char *) ids->data + e * ids->nb[0] + t * ids->nb[1]);
            pairs[start[x]++] = (int32_t) (e + t * n_used);
        }
    }
    for (int64_t x = E; x > 0; x--) {
        start[x] = start[x - 1]; // back to bucket starts
    }
    start[0] = 0;

    const int64_t nblk = (N + MMID_ROWS - 1) / MMID_ROWS;
    for (int64_t w = params->ith; w < E * nblk; w += params->nth) {
        const int64_t x = w / nblk, n0 = (w % nblk) * MMID_ROWS;
        const int64_t n1 = n0 + MMID_ROWS < N ? n0 + MMID_ROWS : N;
        if (start[x] == start[x + 1]) {
            continue;
        }
        for (int64_t n = n0; n < n1; n++) {
            const char * row = (const char *) as->data + n * as->nb[1] + x * as->nb[2];
            ggml_cpu_row_to_f32(as->type, row, wrows + (n - n0) * ldw, K, params->ref);
        }
        for (int32_t p = start[x]; p < start[x + 1]; p++) {
            const int64_t e = pairs[p] % n_used, t = pairs[p] / n_used;
            const char * bp = (const char *) b->data + (e % n_b) * b->nb[1] + t * b->nb[2];
            const float * a;
            if (act_in_place(b)) {
                a = (const float *) bp;
            } else {
                for (int64_t k = 0; k < K; k++) {
                    const char * q = bp + k * b->nb[0];
                    act[k] = b->type == GGML_TYPE_F32  ? *(const float *) q :
                             b->type == GGML_TYPE_F16  ? gk_fp16_to_fp32(*(const uint16_t *) q) :
                                                         gk_bf16_to_fp32(*(const uint16_t *) q);
                }
                a = act;
            }
            char * out = (char *) dst->data + e * dst->nb[1] + t * dst->nb[2];
            for (int64_t n = n0; n < n1; n++) {
                *(float *) (out + n * dst->nb[0]) = ggml_cpu_dot_f32(K, wrows + (n - n0) * ldw, a, params->ref);
            }
        }
    }
}
