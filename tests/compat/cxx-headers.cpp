// SPDX-License-Identifier: MIT
//
// C++ compatibility of the public headers: a C++17 program (as llama.cpp
// and most ggml users are) includes every installed header, fills in the
// interface tables of ggml-backend-impl.h the way an out-of-tree backend
// does, and calls the API. Built by tests/check/70-cxx-headers.t with
// -Wall -Wextra -Werror (-Wpedantic too), then linked and run.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-backend-impl.h"
#include "ggml-cpu.h"
#include "gguf.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace {

// an out-of-tree backend's buffer type, written as C++ code writes it
const char * my_buft_name(ggml_backend_buffer_type_t) { return "CXX"; }
size_t my_buft_alignment(ggml_backend_buffer_type_t) { return 32; }
ggml_backend_buffer_t my_buft_alloc(ggml_backend_buffer_type_t, size_t size) {
    return ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), size);
}

const ggml_backend_buffer_type_i my_buft_i = {
    /* .get_name       = */ my_buft_name,
    /* .alloc_buffer   = */ my_buft_alloc,
    /* .get_alignment  = */ my_buft_alignment,
    /* .get_max_size   = */ nullptr,
    /* .get_alloc_size = */ nullptr,
    /* .is_host        = */ nullptr,
};

struct sched_deleter {
    void operator()(ggml_backend_sched * s) const { ggml_backend_sched_free(s); }
};
struct backend_deleter {
    void operator()(ggml_backend * b) const { ggml_backend_free(b); }
};
struct ctx_deleter {
    void operator()(ggml_context * c) const { ggml_free(c); }
};
struct buffer_deleter {
    void operator()(ggml_backend_buffer * b) const { ggml_backend_buffer_free(b); }
};

} // namespace

int main() {
    static_assert(GGML_BACKEND_DEVICE_TYPE_GPU_UMA == GGML_BACKEND_DEVICE_TYPE_IGPU, "alias");
    static_assert(sizeof(ggml_backend_dev_caps) == 5, "caps");
    static_assert(GGML_BACKEND_API_VERSION == 2, "api");

    ggml_backend_buffer_type my_buft = { my_buft_i, nullptr, nullptr };
    if (std::strcmp(ggml_backend_buft_name(&my_buft), "CXX") != 0 ||
        ggml_backend_buft_get_max_size(&my_buft) != SIZE_MAX) {
        return 1;
    }

    std::unique_ptr<ggml_backend, backend_deleter> cpu(ggml_backend_cpu_init());
    if (!cpu || !ggml_backend_is_cpu(cpu.get())) {
        return 1;
    }
    ggml_backend_cpu_set_n_threads(cpu.get(), 2);

    ggml_init_params params = { ggml_tensor_overhead() * 8 + ggml_graph_overhead(), nullptr, true };
    std::unique_ptr<ggml_context, ctx_deleter> ctx(ggml_init(params));
    ggml_tensor * a = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 3, 2);
    ggml_tensor * b = ggml_new_tensor_2d(ctx.get(), GGML_TYPE_F32, 3, 4);
    ggml_tensor * c = ggml_mul_mat(ctx.get(), a, b); // 2 x 4
    ggml_cgraph * gf = ggml_new_graph(ctx.get());
    ggml_build_forward_expand(gf, c);
    std::unique_ptr<ggml_backend_buffer, buffer_deleter> buf(ggml_backend_alloc_ctx_tensors(ctx.get(), cpu.get()));

    std::vector<float> va = { 1, 2, 3, 4, 5, 6 };
    std::vector<float> vb(12, 1.0f);
    ggml_backend_tensor_set(a, va.data(), 0, va.size() * sizeof(float));
    ggml_backend_tensor_set(b, vb.data(), 0, vb.size() * sizeof(float));

    ggml_backend_t backends[] = { cpu.get() };
    std::unique_ptr<ggml_backend_sched, sched_deleter> sched(
        ggml_backend_sched_new(backends, nullptr, 1, GGML_DEFAULT_GRAPH_SIZE, false, true));
    if (ggml_backend_sched_graph_compute(sched.get(), gf) != GGML_STATUS_SUCCESS) {
        return 1;
    }
    std::vector<float> out(8);
    ggml_backend_tensor_get(c, out.data(), 0, out.size() * sizeof(float));
    // rows of a: (1,2,3) and (4,5,6) against all-ones columns: 6 and 15
    for (int j = 0; j < 4; j++) {
        if (out[2 * j] != 6.0f || out[2 * j + 1] != 15.0f) {
            std::fprintf(stderr, "wrong result %g %g\n", out[2 * j], out[2 * j + 1]);
            return 1;
        }
    }
    // gguf from C++: the result as a GGUF key/value pair and back
    std::unique_ptr<gguf_context, void (*)(gguf_context *)> gg(gguf_init_empty(), gguf_free);
    gguf_set_arr_data(gg.get(), "result", GGUF_TYPE_FLOAT32, out.data(), out.size());
    std::vector<uint8_t> meta(gguf_get_meta_size(gg.get()));
    gguf_get_meta_data(gg.get(), meta.data());
    gguf_init_params gp = { true, nullptr };
    std::unique_ptr<gguf_context, void (*)(gguf_context *)> back(
        gguf_init_from_buffer(meta.data(), meta.size(), gp), gguf_free);
    if (!back || gguf_get_arr_n(back.get(), 0) != 8 ||
        static_cast<const float *>(gguf_get_arr_data(back.get(), 0))[1] != 15.0f) {
        std::fprintf(stderr, "gguf round trip failed\n");
        return 1;
    }
    ggml_backend_dev_props props;
    ggml_backend_dev_get_props(ggml_backend_get_device(cpu.get()), &props);
    std::printf("C++17 ok: %s (%s), result %g %g\n", props.name, ggml_type_name(GGML_TYPE_F32), out[0], out[1]);
    return 0;
}
