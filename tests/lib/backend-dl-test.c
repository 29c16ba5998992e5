// SPDX-License-Identifier: MIT
//
// backend-dl-test.c: a backend library for test-registry, built as
// libggml-test.so (and variants) by mk/lib.mk. It is self-contained: it only
// fills the interface tables of ggml-backend-impl.h and calls nothing of
// libggml-backend, so it loads into any test program.
//
//   TEST_API_VERSION  the api_version it reports (default: the right one)
//   TEST_SCORE        the score it reports (default 1; 0 = unsupported)
//   TEST_VARIANT      its device description

#define GGML_BACKEND_DL
#include "ggml-backend-impl.h"

#include <stdlib.h>

#ifndef TEST_API_VERSION
#define TEST_API_VERSION GGML_BACKEND_API_VERSION
#endif
#ifndef TEST_SCORE
#define TEST_SCORE 1
#endif
#ifndef TEST_VARIANT
#define TEST_VARIANT "default"
#endif

static const char * dl_dev_get_name(ggml_backend_dev_t dev) {
    (void) dev;
    return "TESTDL";
}

static const char * dl_dev_get_description(ggml_backend_dev_t dev) {
    (void) dev;
    return TEST_VARIANT;
}

static void dl_dev_get_memory(ggml_backend_dev_t dev, size_t * free_mem, size_t * total) {
    (void) dev;
    *free_mem = 1024;
    *total = 1024;
}

static enum ggml_backend_dev_type dl_dev_get_type(ggml_backend_dev_t dev) {
    (void) dev;
    return GGML_BACKEND_DEVICE_TYPE_ACCEL;
}

static void dl_dev_get_props(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props) {
    props->name = dl_dev_get_name(dev);
    props->description = dl_dev_get_description(dev);
    props->type = dl_dev_get_type(dev);
    props->memory_free = 1024;
    props->memory_total = 1024;
}

static const char * dl_backend_get_name(ggml_backend_t backend) {
    (void) backend;
    return "TESTDL";
}

static void dl_backend_free(ggml_backend_t backend) {
    free(backend);
}

static enum ggml_status dl_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    (void) backend;
    (void) cgraph;
    return GGML_STATUS_FAILED;
}

static ggml_backend_t dl_dev_init_backend(ggml_backend_dev_t dev, const char * params) {
    (void) params;
    ggml_backend_t backend = (ggml_backend_t) calloc(1, sizeof(*backend));
    if (backend == NULL) {
        return NULL;
    }
    static ggml_guid guid = { 'd', 'l', 't', 'e', 's', 't' };
    backend->guid = &guid;
    backend->iface.get_name = dl_backend_get_name;
    backend->iface.free = dl_backend_free;
    backend->iface.graph_compute = dl_backend_graph_compute;
    backend->device = dev;
    return backend;
}

static ggml_backend_buffer_type_t dl_dev_get_buffer_type(ggml_backend_dev_t dev) {
    (void) dev;
    return NULL;
}

static bool dl_dev_supports_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    (void) dev;
    (void) op;
    return false;
}

static bool dl_dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    (void) dev;
    (void) buft;
    return false;
}

static struct ggml_backend_reg dl_reg;

static struct ggml_backend_device dl_device = {
    /* .iface   = */ {
        /* .get_name             = */ dl_dev_get_name,
        /* .get_description      = */ dl_dev_get_description,
        /* .get_memory           = */ dl_dev_get_memory,
        /* .get_type             = */ dl_dev_get_type,
        /* .get_props            = */ dl_dev_get_props,
        /* .init_backend         = */ dl_dev_init_backend,
        /* .get_buffer_type      = */ dl_dev_get_buffer_type,
        /* .get_host_buffer_type = */ NULL,
        /* .buffer_from_host_ptr = */ NULL,
        /* .supports_op          = */ dl_dev_supports_op,
        /* .supports_buft        = */ dl_dev_supports_buft,
        /* .offload_op           = */ NULL,
        /* .event_new            = */ NULL,
        /* .event_free           = */ NULL,
        /* .event_synchronize    = */ NULL,
    },
    /* .reg     = */ &dl_reg,
    /* .context = */ NULL,
};

static const char * dl_reg_get_name(ggml_backend_reg_t reg) {
    (void) reg;
    return "test";
}

static size_t dl_reg_get_device_count(ggml_backend_reg_t reg) {
    (void) reg;
    return 1;
}

static ggml_backend_dev_t dl_reg_get_device(ggml_backend_reg_t reg, size_t index) {
    (void) reg;
    (void) index;
    return &dl_device;
}

static struct ggml_backend_reg dl_reg = {
    /* .api_version = */ TEST_API_VERSION,
    /* .iface       = */ {
        /* .get_name         = */ dl_reg_get_name,
        /* .get_device_count = */ dl_reg_get_device_count,
        /* .get_device       = */ dl_reg_get_device,
        /* .get_proc_address = */ NULL,
    },
    /* .context     = */ NULL,
};

static ggml_backend_reg_t dl_test_reg(void) {
    return &dl_reg;
}

static int dl_test_score(void) {
    return TEST_SCORE;
}

GGML_BACKEND_DL_IMPL(dl_test_reg)
GGML_BACKEND_DL_SCORE_IMPL(dl_test_score)
