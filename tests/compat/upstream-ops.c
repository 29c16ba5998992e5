// SPDX-License-Identifier: MIT
//
// A program written against upstream ggml v0.21.0's public API, using what
// libllama uses on every model's path: a mixture-of-experts block
// (ggml_argsort_top_k, ggml_top_k, ggml_mul_mat_id, ggml_add_id, ggml_softplus,
// ggml_fill), attention with sinks (ggml_soft_max_add_sinks,
// ggml_flash_attn_ext_add_sinks), ggml_build_forward_select, op hints,
// ggml_backend_tensor_copy from a const source, and a meta device
// (ggml_backend_meta_device: tensor parallelism) over two CPU backends. Each result is checked
// against plain loops here; it prints one line per check and exits non-zero
// on a mismatch. tests/check/82-upstream-ops.t builds it with
// -Wall -Wextra -Werror and runs it.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K_DIM  8  // hidden size
#define N_OUT  4  // expert output size
#define N_EXP  4  // experts
#define N_USED 2  // experts per token
#define N_TOK  3  // tokens

static int failures;

static void check(const char * what, double got, double want, double tol) {
    const int ok = fabs(got - want) <= tol * (1.0 + fabs(want));
    if (!ok) {
        printf("FAIL %s: got %.6f, want %.6f\n", what, got, want);
        failures++;
    }
}

static float frand(unsigned * s) {
    *s = *s * 1103515245u + 12345u;
    return (float) ((*s >> 8) & 0xffff) / 65536.0f * 2.0f - 1.0f;
}

static void fill_rand(struct ggml_tensor * t, unsigned * s) {
    float * d = (float *) t->data;
    for (int64_t i = 0; i < ggml_nelements(t); i++) {
        d[i] = frand(s);
    }
}

static void moe(struct ggml_context * ctx) {
    unsigned seed = 7;
    struct ggml_tensor * x      = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K_DIM, N_TOK);
    struct ggml_tensor * router = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K_DIM, N_EXP);
    struct ggml_tensor * ups    = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, K_DIM, N_OUT, N_EXP);
    struct ggml_tensor * bias   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, N_OUT, N_EXP);
    fill_rand(x, &seed);
    fill_rand(router, &seed);
    fill_rand(ups, &seed);
    fill_rand(bias, &seed);

    struct ggml_tensor * logits = ggml_mul_mat(ctx, router, x);         // [N_EXP, N_TOK]
    ggml_mul_mat_set_hint(logits, GGML_HINT_NONE);
    struct ggml_tensor * sel    = ggml_argsort_top_k(ctx, logits, N_USED); // [N_USED, N_TOK]
    struct ggml_tensor * sel2   = ggml_top_k(ctx, logits, N_USED);
    struct ggml_tensor * xb     = ggml_reshape_3d(ctx, x, K_DIM, 1, N_TOK);
    struct ggml_tensor * up     = ggml_mul_mat_id(ctx, ups, xb, sel);    // [N_OUT, N_USED, N_TOK]
    up = ggml_add_id(ctx, up, bias, sel);
    struct ggml_tensor * act    = ggml_softplus(ctx, up);
    struct ggml_tensor * ones   = ggml_fill(ctx, ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 5), 1.5f);

    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, act);
    ggml_build_forward_expand(gf, sel2);
    ggml_build_forward_expand(gf, ones);
    if (ggml_graph_compute_with_ctx(ctx, gf, 2) != GGML_STATUS_SUCCESS) {
        printf("FAIL moe: compute\n");
        failures++;
        return;
    }

    const float * xd = (const float *) x->data;
    for (int t = 0; t < N_TOK; t++) {
        // the router's logits and the two best experts
        float lg[N_EXP];
        for (int e = 0; e < N_EXP; e++) {
            lg[e] = 0;
            for (int k = 0; k < K_DIM; k++) {
                lg[e] += ((const float *) router->data)[e * K_DIM + k] * xd[t * K_DIM + k];
            }
        }
        int best[N_USED];
        for (int u = 0; u < N_USED; u++) {
            best[u] = -1;
            for (int e = 0; e < N_EXP; e++) {
                int taken = 0;
                for (int v = 0; v < u; v++) {
                    taken |= best[v] == e;
                }
                if (!taken && (best[u] < 0 || lg[e] > lg[best[u]])) {
                    best[u] = e;
                }
            }
        }
        const int32_t * s  = (const int32_t *) ((const char *) sel->data + t * sel->nb[1]);
        const int32_t * s2 = (const int32_t *) ((const char *) sel2->data + t * sel2->nb[1]);
        for (int u = 0; u < N_USED; u++) {
            check("argsort_top_k", s[u], best[u], 0);
            // top_k promises the set, not the order
            check("top_k", s2[u] == best[0] || s2[u] == best[1], 1, 0);
        }
        for (int u = 0; u < N_USED; u++) {
            for (int n = 0; n < N_OUT; n++) {
                double v = ((const float *) bias->data)[best[u] * N_OUT + n];
                for (int k = 0; k < K_DIM; k++) {
                    v += ((const float *) ups->data)[(best[u] * N_OUT + n) * K_DIM + k] * xd[t * K_DIM + k];
                }
                const double want = log1p(exp(v));
                check("mul_mat_id + add_id + softplus",
                      ((const float *) act->data)[(t * N_USED + u) * N_OUT + n], want, 1e-5);
            }
        }
    }
    for (int i = 0; i < 5; i++) {
        check("fill", ((const float *) ones->data)[i], 1.5, 0);
    }
    printf("moe: done\n");
}

static void attention_sinks(struct ggml_context * ctx) {
    unsigned seed = 11;
    const int D = 16, NQ = 2, NKV = 5, H = 2;
    struct ggml_tensor * q = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, D, NQ, H);
    struct ggml_tensor * k = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, D, NKV, H);
    struct ggml_tensor * v = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, D, NKV, H);
    struct ggml_tensor * sinks = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, H);
    fill_rand(q, &seed);
    fill_rand(k, &seed);
    fill_rand(v, &seed);
    ((float *) sinks->data)[0] = 0.5f;
    ((float *) sinks->data)[1] = -1.0f;
    const float scale = 1.0f / sqrtf((float) D);

    // the unfused form: softmax(k q^T) with sinks, then v
    struct ggml_tensor * kq = ggml_mul_mat(ctx, k, q); // [NKV, NQ, H]
    struct ggml_tensor * p  = ggml_soft_max_ext(ctx, kq, NULL, scale, 0.0f);
    ggml_soft_max_add_sinks(p, sinks);
    struct ggml_tensor * vt = ggml_cont(ctx, ggml_transpose(ctx, v)); // [NKV, D, H]
    struct ggml_tensor * o1 = ggml_mul_mat(ctx, vt, p);              // [D, NQ, H]
    // the fused form
    struct ggml_tensor * o2 = ggml_flash_attn_ext(ctx, q, k, v, NULL, scale, 0.0f, 0.0f); // [D, H, NQ]
    ggml_flash_attn_ext_add_sinks(o2, sinks);

    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, o1);
    ggml_build_forward_expand(gf, o2);
    if (ggml_graph_compute_with_ctx(ctx, gf, 2) != GGML_STATUS_SUCCESS) {
        printf("FAIL attention: compute\n");
        failures++;
        return;
    }
    for (int h = 0; h < H; h++) {
        for (int i = 0; i < NQ; i++) {
            double sc[8], mx = ((const float *) sinks->data)[h], sum = 0;
            for (int j = 0; j < NKV; j++) {
                sc[j] = 0;
                for (int d = 0; d < D; d++) {
                    sc[j] += ((const float *) q->data)[(h * NQ + i) * D + d] * ((const float *) k->data)[(h * NKV + j) * D + d];
                }
                sc[j] *= scale;
                mx = sc[j] > mx ? sc[j] : mx;
            }
            for (int j = 0; j < NKV; j++) {
                sc[j] = exp(sc[j] - mx);
                sum += sc[j];
            }
            sum += exp(((const float *) sinks->data)[h] - mx);
            for (int d = 0; d < D; d++) {
                double want = 0;
                for (int j = 0; j < NKV; j++) {
                    want += sc[j] / sum * ((const float *) v->data)[(h * NKV + j) * D + d];
                }
                check("soft_max sinks", ((const float *) o1->data)[(h * NQ + i) * D + d], want, 1e-5);
                check("flash_attn_ext sinks", ((const float *) o2->data)[(i * H + h) * D + d], want, 1e-5);
            }
        }
    }
    printf("attention: done\n");
}

// backend mode: inputs picked with ggml_build_forward_select, a const copy source
static void backend_select(void) {
    ggml_backend_t be = ggml_backend_cpu_init();
    struct ggml_init_params ip = { 16 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    struct ggml_tensor * table = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 6);
    struct ggml_tensor * ids   = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 2);
    struct ggml_tensor * embd  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 2);
    struct ggml_tensor * copy  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 2);
    ggml_set_input(ids);
    ggml_set_input(embd);
    struct ggml_tensor * cand[2] = { ggml_get_rows(ctx, table, ids), embd };
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    struct ggml_tensor * inp = ggml_build_forward_select(gf, cand, 2, 1);
    struct ggml_tensor * out = ggml_scale(ctx, inp, 2.0f);
    ggml_set_output(out);
    ggml_build_forward_expand(gf, out);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, be);

    float tab[24], e[8];
    for (int i = 0; i < 24; i++) {
        tab[i] = (float) i;
    }
    for (int i = 0; i < 8; i++) {
        e[i] = 0.25f * (float) i;
    }
    const int32_t bad_ids[2] = { 1000, -5 }; // not selected: must not be read
    ggml_backend_tensor_set(table, tab, 0, sizeof(tab));
    ggml_backend_tensor_set(ids, bad_ids, 0, sizeof(bad_ids));
    ggml_backend_tensor_set(embd, e, 0, sizeof(e));
    if (ggml_backend_graph_compute(be, gf) != GGML_STATUS_SUCCESS) {
        printf("FAIL select: compute\n");
        failures++;
    } else {
        const struct ggml_tensor * src = out;
        ggml_backend_tensor_copy(src, copy);
        float r[8];
        ggml_backend_tensor_get(copy, r, 0, sizeof(r));
        for (int i = 0; i < 8; i++) {
            check("build_forward_select", r[i], 2.0 * e[i], 0);
        }
    }
    printf("select: done (rope types %d %d)\n", GGML_ROPE_TYPE_NORMAL, GGML_ROPE_TYPE_IMROPE);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(be);
}

// a feed-forward block with its up rows and down columns split over two
// devices (as llama.cpp's tensor split mode), through the scheduler
static struct ggml_backend_meta_split_state split_by_name(const struct ggml_tensor * t, void * ud) {
    struct ggml_backend_meta_split_state s;
    memset(&s, 0, sizeof(s));
    s.axis = GGML_BACKEND_SPLIT_AXIS_MIRRORED;
    s.nr[0] = 1;
    s.n_segments = 1;
    if (strcmp(t->name, "w_up") == 0 || strcmp(t->name, "w_down") == 0) {
        s.axis = strcmp(t->name, "w_up") == 0 ? GGML_BACKEND_SPLIT_AXIS_1 : GGML_BACKEND_SPLIT_AXIS_0;
        s.ne[0] = 4; // of 10
        s.ne[1] = 6;
    }
    (*(int *) ud)++;
    return s;
}

static void meta_split(void) {
    int calls = 0;
    ggml_backend_dev_t cpu_dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    ggml_backend_dev_t devs[2] = { cpu_dev, cpu_dev };
    ggml_backend_dev_t meta_dev = ggml_backend_meta_device(devs, 2, split_by_name, &calls);
    ggml_backend_t meta = ggml_backend_dev_init(meta_dev, NULL);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    if (meta == NULL || ggml_backend_dev_type(meta_dev) != GGML_BACKEND_DEVICE_TYPE_META) {
        printf("FAIL meta: no meta backend\n");
        failures++;
        return;
    }
    struct ggml_init_params wp = { 4 * ggml_tensor_overhead(), NULL, true };
    struct ggml_context * cw = ggml_init(wp);
    struct ggml_tensor * w_up = ggml_new_tensor_2d(cw, GGML_TYPE_F32, K_DIM, 10);
    struct ggml_tensor * w_down = ggml_new_tensor_2d(cw, GGML_TYPE_F32, 10, K_DIM);
    ggml_set_name(w_up, "w_up");
    ggml_set_name(w_down, "w_down");
    ggml_backend_buffer_t wbuf = ggml_backend_alloc_ctx_tensors_from_buft(cw, ggml_backend_dev_buffer_type(meta_dev));
    ggml_backend_buffer_set_usage(wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    float up[K_DIM * 10], down[10 * K_DIM], x[K_DIM * N_TOK], y[K_DIM * N_TOK];
    unsigned seed = 7;
    for (int i = 0; i < K_DIM * 10; i++) {
        up[i] = frand(&seed);
        down[i] = frand(&seed);
    }
    for (int i = 0; i < K_DIM * N_TOK; i++) {
        x[i] = frand(&seed);
    }
    ggml_backend_tensor_set(w_up, up, 0, sizeof(up));
    ggml_backend_tensor_set(w_down, down, 0, sizeof(down));

    struct ggml_init_params gp = { 16 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * cg = ggml_init(gp);
    struct ggml_tensor * in = ggml_new_tensor_2d(cg, GGML_TYPE_F32, K_DIM, N_TOK);
    ggml_set_input(in);
    struct ggml_tensor * out = ggml_mul_mat(cg, w_down, ggml_relu(cg, ggml_mul_mat(cg, w_up, in)));
    ggml_set_output(out);
    struct ggml_cgraph * gf = ggml_new_graph(cg);
    ggml_build_forward_expand(gf, out);
    ggml_backend_t backends[2] = { meta, cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, GGML_DEFAULT_GRAPH_SIZE, false, true);
    if (!ggml_backend_sched_alloc_graph(sched, gf)) {
        printf("FAIL meta: alloc\n");
        failures++;
    } else {
        ggml_backend_tensor_set(in, x, 0, sizeof(x));
        if (ggml_backend_sched_graph_compute(sched, gf) != GGML_STATUS_SUCCESS) {
            printf("FAIL meta: compute\n");
            failures++;
        } else {
            ggml_backend_tensor_get(out, y, 0, sizeof(y));
            for (int t = 0; t < N_TOK; t++) {
                for (int o = 0; o < K_DIM; o++) {
                    double acc = 0;
                    for (int h = 0; h < 10; h++) {
                        double u = 0;
                        for (int k = 0; k < K_DIM; k++) {
                            u += (double) up[h * K_DIM + k] * x[t * K_DIM + k];
                        }
                        acc += (u > 0 ? u : 0) * down[o * 10 + h];
                    }
                    check("meta split FFN", y[t * K_DIM + o], acc, 1e-4);
                }
            }
        }
    }
    printf("meta: done (%s, %d split states asked)\n", ggml_backend_dev_name(meta_dev), calls);
    ggml_backend_sched_free(sched);
    ggml_free(cg);
    ggml_backend_buffer_free(wbuf);
    ggml_free(cw);
    ggml_backend_free(cpu);
    ggml_backend_free(meta);
}

int main(void) {
    struct ggml_init_params ip = { 16 * 1024 * 1024, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    moe(ctx);
    attention_sinks(ctx);
    ggml_free(ctx);
    backend_select();
    meta_split();
    if (failures) {
        printf("%d checks failed\n", failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}
