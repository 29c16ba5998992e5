/*
 * ggml-gaccel.h - the gaccel backend: ggml devices for /dev/accel/accelN
 * nodes driven by gaccel.ko.
 *
 * Each gaccel node is a device of type IGPU (host-memory engines) or GPU
 * (device-memory engines). Its buffers are buffer objects mapped into the
 * process; ggml_backend_dev_buffer_from_host_ptr() wraps existing memory
 * (e.g. an mmapped weights file) without copying it. Graph splits the
 * engine can run are compiled once into kernel-validated programs and run
 * with one SUBMIT ioctl each; events are DRM syncobjs.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_GACCEL_H
#define GGML_GACCEL_H

#include "ggml.h"
#include "ggml-backend.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GGML_GACCEL_NAME "GACCEL"

// The registry entry; it finds the devices on first use.
GGML_API ggml_backend_reg_t ggml_backend_gaccel_reg(void);

// A backend (stream) on the device-th gaccel device, or NULL.
GGML_API ggml_backend_t ggml_backend_gaccel_init(size_t device);

GGML_API bool ggml_backend_is_gaccel(ggml_backend_t backend);

#ifdef __cplusplus
}
#endif

#endif // GGML_GACCEL_H
