/*
 * ggml-util.c - version, status strings, logging, abort, GUIDs and time.
 *
 * SPDX-License-Identifier: MIT
 */
#define _POSIX_C_SOURCE 200809L

#include "ggml-impl.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef GGML_VERSION
#define GGML_VERSION "0.0.0"
#endif
#ifndef GGML_COMMIT
#define GGML_COMMIT "unknown"
#endif

const char * ggml_version(void) { return GGML_VERSION; }
const char * ggml_commit(void)  { return GGML_COMMIT; }

const char * ggml_status_to_string(enum ggml_status status) {
    switch (status) {
        case GGML_STATUS_ALLOC_FAILED: return "GGML status: error (failed to allocate memory)";
        case GGML_STATUS_FAILED:       return "GGML status: error (operation failed)";
        case GGML_STATUS_SUCCESS:      return "GGML status: success";
        case GGML_STATUS_ABORTED:      return "GGML status: warning (operation aborted)";
    }
    return "GGML status: unknown";
}

// ---------------------------------------------------------------------------
// logging
// ---------------------------------------------------------------------------

// The default logger prints INFO and above; GGML_LOG_LEVEL (debug, info,
// warn, error, none) moves the threshold. DEBUG lines (the scheduler logs
// one per re-reservation) would otherwise bury a program's own output.
static int log_threshold_from_env(void) {
    static const struct { const char * name; enum ggml_log_level level; } names[] = {
        { "debug", GGML_LOG_LEVEL_DEBUG }, { "info", GGML_LOG_LEVEL_INFO },
        { "warn", GGML_LOG_LEVEL_WARN },   { "error", GGML_LOG_LEVEL_ERROR },
        { "none", GGML_LOG_LEVEL_CONT + 1 },
    };
    const char * env = getenv("GGML_LOG_LEVEL");
    if (env == NULL || *env == '\0') {
        return GGML_LOG_LEVEL_INFO;
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(env, names[i].name) == 0) {
            return (int) names[i].level;
        }
    }
    fprintf(stderr, "ggml: GGML_LOG_LEVEL=%s not understood (debug, info, warn, error, none); using info\n", env);
    return GGML_LOG_LEVEL_INFO;
}

static _Atomic int g_log_threshold = -1;
static _Thread_local bool g_log_last_shown = true; // what CONT lines follow

static void log_to_stderr(enum ggml_log_level level, const char * text, void * user_data) {
    (void) user_data;
    int threshold = atomic_load_explicit(&g_log_threshold, memory_order_relaxed);
    if (threshold < 0) {
        threshold = log_threshold_from_env();
        atomic_store_explicit(&g_log_threshold, threshold, memory_order_relaxed);
    }
    if (level != GGML_LOG_LEVEL_CONT) {
        // NONE is plain output asked for (ggml_graph_print and the like)
        g_log_last_shown = level == GGML_LOG_LEVEL_NONE || (int) level >= threshold;
    }
    if (!g_log_last_shown) {
        return;
    }
    fputs(text, stderr);
    fflush(stderr);
}

void ggml_log_reset_threshold_internal(void) {
    atomic_store(&g_log_threshold, -1);
}

static ggml_log_callback g_log_callback  = log_to_stderr;
static void *            g_log_user_data = NULL;

void ggml_log_get(ggml_log_callback * log_callback, void ** user_data) {
    *log_callback = g_log_callback;
    *user_data    = g_log_user_data;
}

void ggml_log_set(ggml_log_callback log_callback, void * user_data) {
    g_log_callback  = log_callback ? log_callback : log_to_stderr;
    g_log_user_data = user_data;
}

void ggml_log_internal(enum ggml_log_level level, const char * format, ...) {
    char    buf[256];
    va_list args;

    va_start(args, format);
    int len = vsnprintf(buf, sizeof(buf), format, args);
    va_end(args);
    if (len < 0) {
        return;
    }
    if ((size_t) len < sizeof(buf)) {
        g_log_callback(level, buf, g_log_user_data);
        return;
    }
    char * big = malloc((size_t) len + 1);
    if (!big) {
        g_log_callback(level, buf, g_log_user_data); // truncated beats nothing
        return;
    }
    va_start(args, format);
    vsnprintf(big, (size_t) len + 1, format, args);
    va_end(args);
    g_log_callback(level, big, g_log_user_data);
    free(big);
}

// ---------------------------------------------------------------------------
// abort
// ---------------------------------------------------------------------------

static ggml_abort_callback_t g_abort_callback = NULL;

ggml_abort_callback_t ggml_set_abort_callback(ggml_abort_callback_t callback) {
    ggml_abort_callback_t old = g_abort_callback;
    g_abort_callback = callback;
    return old;
}

void ggml_abort(const char * file, int line, const char * fmt, ...) {
    char    message[2048];
    int     off = snprintf(message, sizeof(message), "%s:%d: ", file, line);
    va_list args;

    if (off < 0 || (size_t) off >= sizeof(message)) {
        off = 0;
    }
    va_start(args, fmt);
    vsnprintf(message + off, sizeof(message) - (size_t) off, fmt, args);
    va_end(args);

    if (g_abort_callback) {
        g_abort_callback(message);
    } else {
        fprintf(stderr, "%s\n", message);
        fflush(stderr);
    }
    abort();
}

// ---------------------------------------------------------------------------
// GUIDs, files
// ---------------------------------------------------------------------------

bool ggml_guid_matches(ggml_guid_t guid_a, ggml_guid_t guid_b) {
    return memcmp(guid_a, guid_b, sizeof(ggml_guid)) == 0;
}

FILE * ggml_fopen(const char * fname, const char * mode) {
    return fopen(fname, mode);
}

// ---------------------------------------------------------------------------
// time
// ---------------------------------------------------------------------------

static int64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// Nothing to set up: CLOCK_MONOTONIC needs no calibration.
void ggml_time_init(void) {
}

int64_t ggml_time_ms(void) { return monotonic_ns() / 1000000; }
int64_t ggml_time_us(void) { return monotonic_ns() / 1000; }

int64_t ggml_cycles(void) {
    return (int64_t) clock();
}

int64_t ggml_cycles_per_ms(void) {
    return CLOCKS_PER_SEC / 1000;
}
