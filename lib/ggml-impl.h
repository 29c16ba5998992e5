/*
 * ggml-impl.h - internal helpers shared by the library's translation units.
 * Not installed.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_IMPL_H
#define GGML_IMPL_H

#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

// Log through the callback set with ggml_log_set() (stderr by default).
GGML_ATTRIBUTE_FORMAT(2, 3)
void ggml_log_internal(enum ggml_log_level level, const char * format, ...);

#define GGML_LOG(...)       ggml_log_internal(GGML_LOG_LEVEL_NONE , __VA_ARGS__)
#define GGML_LOG_INFO(...)  ggml_log_internal(GGML_LOG_LEVEL_INFO , __VA_ARGS__)
#define GGML_LOG_WARN(...)  ggml_log_internal(GGML_LOG_LEVEL_WARN , __VA_ARGS__)
#define GGML_LOG_ERROR(...) ggml_log_internal(GGML_LOG_LEVEL_ERROR, __VA_ARGS__)
#define GGML_LOG_DEBUG(...) ggml_log_internal(GGML_LOG_LEVEL_DEBUG, __VA_ARGS__)
#define GGML_LOG_CONT(...)  ggml_log_internal(GGML_LOG_LEVEL_CONT , __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif // GGML_IMPL_H
