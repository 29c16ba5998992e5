/*
 * ggml-opt-impl.h - what the translation units of ggml-opt share: the
 * evaluation result (filled by ggml_opt_eval, read by the accessors) and
 * the context's random generator (used by ggml_opt_dataset_shuffle).
 * Not installed.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGML_OPT_IMPL_H
#define GGML_OPT_IMPL_H

#include "ggml-opt.h"

#include <stdint.h>

struct ggml_opt_result {
    int64_t   ndata;      // datapoints evaluated
    float   * loss;       // one loss per evaluation (physical batch)
    int64_t   n_loss;
    int64_t   cap_loss;
    int32_t * pred;       // one prediction per datapoint (cross-entropy)
    int64_t   n_pred;
    int64_t   cap_pred;
    int64_t   ncorrect;   // -1: the loss has no notion of correct

    int32_t opt_period;          // of the context that filled it
    bool    loss_per_datapoint;  // losses were scaled by 1/opt_period
};

// Appends one evaluation: its loss and ndata predictions (pred may be NULL).
void ggml_opt_result_add_batch(ggml_opt_result_t result, float loss, const int32_t * pred, int64_t ndata);

// A uniformly distributed integer in [0, n) from the context's generator.
uint64_t ggml_opt_rng_below(ggml_opt_context_t opt_ctx, uint64_t n);

#endif // GGML_OPT_IMPL_H
