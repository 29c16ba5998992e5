/*
 * cpu-repack.c - the CPU device's extra buffer type "CPU_REPACK"
 * (ggml_backend_dev_get_extra_bufts): host memory in which Q8_0, Q4_0,
 * Q4_K and Q6_K weights are stored with 16 rows interleaved
 * (kernels/gk-repack.h), the layout the int8 GEMM/GEMV kernels read in
 * place (cpu-mul-mat.c). Tensors of other types are stored as they are.
 *
 * The layout of a tensor follows from its type and shape alone: each 2-D
 * slice is ne1 / 16 groups of 16 rows, then the remaining rows plain; a
 * group takes the bytes of its 16 plain rows, so sizes, strides and the
 * offsets of the remaining rows are those of the plain layout. set_tensor
 * repacks (a range that covers part of a group: that group is unpacked,
 * updated and packed again), get_tensor unpacks, for tensors and views.
 * The buffer is not "host" (ggml_backend_buft_is_host() is false): its
 * bytes are not in the standard layout, so nothing but the CPU device's
 * MUL_MAT may read them directly.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-backend-impl.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"
#include "kernels/gk-repack.h"

#include <stdlib.h>
#include <string.h>

#define RP_ALIGN 64

static struct ggml_backend_buffer_type g_rp_buft;

static bool rp_type(enum ggml_type t) {
    return t == GGML_TYPE_Q8_0 || t == GGML_TYPE_Q4_0 || t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q6_K;
}

static const struct ggml_tensor * rp_base(const struct ggml_tensor * t) {
    return t->view_src ? t->view_src : t;
}

bool ggml_cpu_is_repacked(const struct ggml_tensor * t) {
    const struct ggml_tensor * base = rp_base(t);
    return base->buffer != NULL && base->buffer->buft == &g_rp_buft &&
           rp_type(base->type) && ggml_is_contiguous(base);
}

int64_t ggml_cpu_repack_mm_rows(const struct ggml_tensor * t) {
    const struct ggml_tensor * base = rp_base(t);
    if (t->type != base->type || t->nb[0] != base->nb[0] || t->nb[1] != base->nb[1]) {
        return -1;
    }
    if ((t->ne[2] > 1 && t->nb[2] != base->nb[2]) || (t->ne[3] > 1 && t->nb[3] != base->nb[3])) {
        return -1;
    }
    const size_t offs = (size_t) ((const char *) t->data - (const char *) base->data);
    const size_t in_slice = offs % base->nb[2];
    const size_t gbytes = (size_t) GK_RP_ROWS * base->nb[1];
    if (in_slice % gbytes != 0) {
        return -1;
    }
    const int64_t r0 = (int64_t) (in_slice / base->nb[1]);
    if (r0 + t->ne[1] > base->ne[1]) {
        return -1;
    }
    const int64_t grouped = base->ne[1] / GK_RP_ROWS * GK_RP_ROWS - r0;
    return grouped < 0 ? 0 : grouped < t->ne[1] ? grouped : t->ne[1];
}

// ---------------------------------------------------------------------------
// layout conversion of byte ranges of a tensor
// ---------------------------------------------------------------------------

// The packers give the same bytes on every ISA; the SIMD ones run at a
// copy's speed (the portable ones at 0.2-0.5 GB/s).
static void grp_pack(enum ggml_type t, const void * src, size_t bx, int64_t nblk, void * dst) {
#if defined(__x86_64__)
    if (ggml_cpu_fast_x86() && (uintptr_t) dst % 32 == 0) {
        switch (t) {
            case GGML_TYPE_Q8_0: gk_repack_q8_0_avx2_nt(src, bx, nblk, dst); break;
            case GGML_TYPE_Q4_0: gk_repack_q4_0_avx2_nt(src, bx, nblk, dst); break;
            case GGML_TYPE_Q4_K: gk_repack_q4_K_avx2_nt(src, bx, GK_RP_ROWS, nblk, dst); break;
            default: gk_repack_q6_K_avx2_nt(src, bx, GK_RP_ROWS, nblk, dst); break;
        }
        return;
    }
    if (ggml_cpu_fast_x86()) {
        switch (t) {
            case GGML_TYPE_Q8_0: gk_repack_q8_0_avx2(src, bx, nblk, dst); break;
            case GGML_TYPE_Q4_0: gk_repack_q4_0_avx2(src, bx, nblk, dst); break;
            case GGML_TYPE_Q4_K: gk_repack_q4_K_avx2(src, bx, GK_RP_ROWS, nblk, dst); break;
            default: gk_repack_q6_K_avx2(src, bx, GK_RP_ROWS, nblk, dst); break;
        }
        return;
    }
#elif defined(__aarch64__)
    if (ggml_cpu_isa()->neon) {
        switch (t) {
            case GGML_TYPE_Q8_0: gk_repack_q8_0_neon(src, bx, nblk, dst); break;
            case GGML_TYPE_Q4_0: gk_repack_q4_0_neon(src, bx, nblk, dst); break;
            case GGML_TYPE_Q4_K: gk_repack_q4_K_neon(src, bx, GK_RP_ROWS, nblk, dst); break;
            default: gk_repack_q6_K_neon(src, bx, GK_RP_ROWS, nblk, dst); break;
        }
        return;
    }
#endif
    switch (t) {
        case GGML_TYPE_Q8_0: gk_repack_q8_0(src, bx, nblk, dst); break;
        case GGML_TYPE_Q4_0: gk_repack_q4_0(src, bx, nblk, dst); break;
        case GGML_TYPE_Q4_K: gk_repack_q4_K(src, bx, GK_RP_ROWS, nblk, dst); break;
        default: gk_repack_q6_K(src, bx, GK_RP_ROWS, nblk, dst); break;
    }
}

static void grp_unpack(enum ggml_type t, const void * src, int64_t nblk, void * dst, size_t bx) {
    switch (t) {
        case GGML_TYPE_Q8_0: gk_unrepack_q8_0(src, nblk, dst, bx); break;
        case GGML_TYPE_Q4_0: gk_unrepack_q4_0(src, nblk, dst, bx); break;
        case GGML_TYPE_Q4_K: gk_unrepack_q4_K(src, nblk, dst, bx); break;
        default: gk_unrepack_q6_K(src, nblk, dst, bx); break;
    }
}

// Bytes [off, off + size) of base in the plain layout, from (set) or into
// (get) user memory; a unit is a group of 16 rows or a plain row.
static bool rp_access(const struct ggml_tensor * base, bool set, void * user, size_t off, size_t size) {
    char * mem = (char *) base->data;
    const size_t rs = base->nb[1];
    const size_t slice = base->nb[2];
    const int64_t nblk = base->ne[0] / ggml_blck_size(base->type);
    const size_t grouped = (size_t) (base->ne[1] / GK_RP_ROWS) * GK_RP_ROWS * rs;
    const size_t gbytes = (size_t) GK_RP_ROWS * rs;
    char * tmp = NULL;
    size_t pos = off;
    const size_t end = off + size;
    while (pos < end) {
        const size_t s0 = pos / slice * slice;
        const size_t in = pos - s0;
        size_t u0, u1;
        const bool grp = in < grouped;
        if (grp) {
            u0 = s0 + in / gbytes * gbytes;
            u1 = u0 + gbytes;
        } else {
            u0 = s0 + in / rs * rs;
            u1 = u0 + rs;
        }
        const size_t a = pos, b = end < u1 ? end : u1;
        char * u = (char *) user + (a - off);
        if (!grp) {
            if (set) {
                memcpy(mem + a, u, b - a);
            } else {
                memcpy(u, mem + a, b - a);
            }
        } else if (a == u0 && b == u1) {
            if (set) {
                grp_pack(base->type, u, rs, nblk, mem + u0);
            } else {
                grp_unpack(base->type, mem + u0, nblk, u, rs);
            }
        } else {
            if (tmp == NULL) {
                tmp = malloc(gbytes);
                if (tmp == NULL) {
                    GGML_LOG_ERROR("%s: out of memory\n", __func__);
                    return false;
                }
            }
            grp_unpack(base->type, mem + u0, nblk, tmp, rs);
            if (set) {
                memcpy(tmp + (a - u0), u, b - a);
                grp_pack(base->type, tmp, rs, nblk, mem + u0);
            } else {
                memcpy(u, tmp + (a - u0), b - a);
            }
        }
        pos = b;
    }
    free(tmp);
    return true;
}

// ---------------------------------------------------------------------------
// buffer
// ---------------------------------------------------------------------------

// The memory is a CPU buffer's (the context): from 2 MiB on whole
// transparent huge pages, as the plain weights have them. With 4 KiB pages
// the single stream a group is read in crosses a page every 4 KiB, where
// the hardware prefetchers stop, and decode ran at 0.6-0.7x of the plain
// layout's speed (4096 x 14336 Q4_0, one thread).
static void rp_free_buffer(ggml_backend_buffer_t buffer) {
    ggml_backend_buffer_free((ggml_backend_buffer_t) buffer->context);
}

static void * rp_get_base(ggml_backend_buffer_t buffer) {
    return ggml_backend_buffer_get_base((ggml_backend_buffer_t) buffer->context);
}

static void rp_set_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, const void * data, size_t offset,
                          size_t size) {
    (void) buffer;
    const struct ggml_tensor * base = rp_base(tensor);
    if (!rp_type(base->type) || !ggml_is_contiguous(base)) {
        memcpy((char *) tensor->data + offset, data, size);
        return;
    }
    const size_t off = (size_t) ((const char *) tensor->data - (const char *) base->data) + offset;
    if (!rp_access(base, true, (void *) data, off, size)) {
        GGML_ABORT("%s: cannot repack %s", __func__, tensor->name);
    }
}

static void rp_get_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor, void * data, size_t offset,
                          size_t size) {
    (void) buffer;
    const struct ggml_tensor * base = rp_base(tensor);
    if (!rp_type(base->type) || !ggml_is_contiguous(base)) {
        memcpy(data, (const char *) tensor->data + offset, size);
        return;
    }
    const size_t off = (size_t) ((const char *) tensor->data - (const char *) base->data) + offset;
    if (!rp_access(base, false, data, off, size)) {
        GGML_ABORT("%s: cannot unpack %s", __func__, tensor->name);
    }
}

static void rp_memset_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, uint8_t value, size_t offset,
                             size_t size) {
    const struct ggml_tensor * base = rp_base(tensor);
    if (!rp_type(base->type) || !ggml_is_contiguous(base)) {
        memset((char *) tensor->data + offset, value, size);
        return;
    }
    void * tmp = malloc(size);
    if (tmp == NULL) {
        GGML_ABORT("%s: out of memory", __func__);
    }
    memset(tmp, value, size);
    rp_set_tensor(buffer, tensor, tmp, offset, size);
    free(tmp);
}

static void rp_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    memset(rp_get_base(buffer), value, buffer->size);
}

static const struct ggml_backend_buffer_i rp_buffer_i = {
    /* .free_buffer   = */ rp_free_buffer,
    /* .get_base      = */ rp_get_base,
    /* .init_tensor   = */ NULL,
    /* .memset_tensor = */ rp_memset_tensor,
    /* .set_tensor    = */ rp_set_tensor,
    /* .get_tensor    = */ rp_get_tensor,
    /* .set_tensor_2d = */ NULL,
    /* .get_tensor_2d = */ NULL,
    /* .cpy_tensor    = */ NULL,
    /* .clear         = */ rp_clear,
    /* .reset         = */ NULL,
};

// ---------------------------------------------------------------------------
// buffer type
// ---------------------------------------------------------------------------

static const char * rp_buft_name(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return "CPU_REPACK";
}

static ggml_backend_buffer_t rp_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    ggml_backend_buffer_t mem = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), size ? size : RP_ALIGN);
    if (mem == NULL) {
        GGML_LOG_ERROR("%s: cannot allocate %zu bytes\n", __func__, size);
        return NULL;
    }
    ggml_backend_buffer_t buf = ggml_backend_buffer_init(buft, rp_buffer_i, mem, size);
    if (buf == NULL) {
        ggml_backend_buffer_free(mem);
    }
    return buf;
}

static size_t rp_get_alignment(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return RP_ALIGN;
}

static bool rp_is_host(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return false;
}

ggml_backend_dev_t ggml_backend_cpu_device_for_buft(void);

static struct ggml_backend_buffer_type g_rp_buft = {
    /* .iface   = */ {
        /* .get_name       = */ rp_buft_name,
        /* .alloc_buffer   = */ rp_alloc_buffer,
        /* .get_alignment  = */ rp_get_alignment,
        /* .get_max_size   = */ NULL,
        /* .get_alloc_size = */ NULL,
        /* .is_host        = */ rp_is_host,
    },
    /* .device  = */ NULL, // set on first use, as the other CPU buffer types
    /* .context = */ NULL,
};

ggml_backend_buffer_type_t ggml_backend_cpu_repack_buffer_type(void) {
    if (g_rp_buft.device == NULL) {
        g_rp_buft.device = ggml_backend_cpu_device_for_buft();
    }
    return &g_rp_buft;
}

bool ggml_cpu_repack_fast(void) {
#if defined(__x86_64__)
    return ggml_cpu_fast_x86();
#elif defined(__aarch64__)
    return ggml_cpu_isa()->neon && ggml_cpu_isa()->use_dotprod;
#else
    return false;
#endif
}

bool ggml_cpu_repack_type_fast(enum ggml_type type) {
    switch (type) {
        case GGML_TYPE_Q8_0:
        case GGML_TYPE_Q4_0:
        case GGML_TYPE_Q4_K:
            return ggml_cpu_repack_fast();
        case GGML_TYPE_Q6_K:
#if defined(__x86_64__)
            // x86: with AVX512-VNNI only. AVX2 alone decodes plain Q6_K
            // faster (layer, 26 Nov 2026: 1.78 vs 2.84 ms on one thread,
            // 1.19 vs 1.62 on two), so the device keeps them out of
            // CPU_REPACK there. VNNI decoded plain faster too (1.59 vs
            // 1.68, 1.08 vs 1.21) until the one-column kernel became
            // 512-bit and read four groups at once (27 Nov, layer e 4096 f
            // 14336: repacked 7.7 vs plain 7.9-8.6 ms on one thread, 4.3 vs
            // 5.0 on two; 2 and 8 columns 2.2-3.0 times as fast repacked,
            // prefill even)
            return ggml_cpu_repack_fast() && ggml_cpu_isa()->use_vnni256;
#else
            return ggml_cpu_repack_fast();
#endif
        default:
            return false;
    }
}
