// SPDX-License-Identifier: MIT
//
// Capture of the library's log lines for tests that check what a call said:
// log_start() routes ggml's log into log_buf (cleared), log_stop() restores
// the default logger. Lines that do not fit are dropped, never truncated.
#ifndef TEST_LOG_H
#define TEST_LOG_H

#include "ggml.h"

#include <stddef.h>
#include <string.h>

static char log_buf[1 << 16];
static size_t log_len;

static inline void capture_log(enum ggml_log_level level, const char * text, void * ud) {
    (void) level;
    (void) ud;
    size_t n = strlen(text);
    if (log_len + n < sizeof(log_buf)) {
        memcpy(log_buf + log_len, text, n + 1);
        log_len += n;
    }
}

static inline void log_start(void) {
    log_len = 0;
    log_buf[0] = '\0';
    ggml_log_set(capture_log, NULL);
}

static inline void log_stop(void) {
    ggml_log_set(NULL, NULL);
}

#endif
