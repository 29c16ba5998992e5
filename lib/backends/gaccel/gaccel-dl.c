/*
 * gaccel-dl.c - the entry points of libggml-gaccel.so as a backend module
 * (GGML_BACKEND_DL), as upstream ggml's loader and gaccel's look them up:
 * ggml_backend_init() returns the registration (api_version
 * GGML_BACKEND_API_VERSION), ggml_backend_score() is 1. The score does not
 * depend on a device being present: the registration enumerates the
 * /dev/accel nodes of gaccel devices, zero or more, when first asked.
 *
 * Built only into the shared library (mk/shlib.mk), never into the static
 * archive, where the CPU backend's entry points would clash with these.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-backend-impl.h"
#include "ggml-gaccel.h"

static int gaccel_backend_score(void) {
    return 1;
}

GGML_BACKEND_DL_IMPL(ggml_backend_gaccel_reg)
GGML_BACKEND_DL_SCORE_IMPL(gaccel_backend_score)
