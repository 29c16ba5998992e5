/*
 * ggml-opt-result.c - the results of ggml-opt evaluations: one loss per
 * evaluated batch, the predictions, the count of correct ones, and the
 * statistics read from them (mean or total loss with its standard error,
 * accuracy with its binomial standard error).
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-opt-impl.h"

#include "ggml.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

ggml_opt_result_t ggml_opt_result_init(void) {
    ggml_opt_result_t r = calloc(1, sizeof(*r));
    GGML_ASSERT(r != NULL);
    r->opt_period = -1;
    return r;
}

void ggml_opt_result_free(ggml_opt_result_t result) {
    if (result == NULL) {
        return;
    }
    free(result->loss);
    free(result->pred);
    free(result);
}

void ggml_opt_result_reset(ggml_opt_result_t result) {
    result->ndata    = 0;
    result->n_loss   = 0;
    result->n_pred   = 0;
    result->ncorrect = 0;
}

// room for n more elements of size elem in *buf (capacity *cap, *len used)
static void *result_reserve(void * buf, int64_t * cap, int64_t len, int64_t n, size_t elem) {
    GGML_ASSERT(n >= 0 && len <= INT64_MAX - n);
    if (len + n <= *cap) {
        return buf;
    }
    int64_t c = *cap > 0 ? *cap : 16;
    while (c < len + n) {
        GGML_ASSERT(c <= INT64_MAX / 2);
        c *= 2;
    }
    GGML_ASSERT((uint64_t) c <= SIZE_MAX / elem);
    void * p = realloc(buf, (size_t) c * elem);
    GGML_ASSERT(p != NULL && "out of memory for the optimization result");
    *cap = c;
    return p;
}

void ggml_opt_result_add_batch(ggml_opt_result_t result, float loss, const int32_t * pred, int64_t ndata) {
    result->loss = result_reserve(result->loss, &result->cap_loss, result->n_loss, 1, sizeof(float));
    result->loss[result->n_loss++] = loss;
    if (pred != NULL && ndata > 0) {
        result->pred = result_reserve(result->pred, &result->cap_pred, result->n_pred, ndata, sizeof(int32_t));
        memcpy(result->pred + result->n_pred, pred, (size_t) ndata * sizeof(int32_t));
        result->n_pred += ndata;
    }
    result->ndata += ndata;
}

void ggml_opt_result_ndata(ggml_opt_result_t result, int64_t * ndata) {
    *ndata = result->ndata;
}

void ggml_opt_result_loss(ggml_opt_result_t result, double * loss, double * unc) {
    const int64_t n = result->n_loss;
    if (n == 0) {
        *loss = 0.0;
        if (unc != NULL) {
            *unc = NAN;
        }
        return;
    }

    // Per-datapoint losses (mean, MSE, cross-entropy) were divided by the
    // accumulation period so that the accumulated gradient is the batch
    // mean's; undo that to report each batch's own mean.
    const double k = result->loss_per_datapoint ? (double) result->opt_period : 1.0;
    double sum = 0.0;
    for (int64_t i = 0; i < n; i++) {
        sum += k * result->loss[i];
    }
    const double mean = sum / (double) n;
    *loss = result->loss_per_datapoint ? mean : sum;

    if (unc == NULL) {
        return;
    }
    if (n < 2) {
        *unc = NAN;
        return;
    }
    double ss = 0.0;
    for (int64_t i = 0; i < n; i++) {
        const double d = k * result->loss[i] - mean;
        ss += d * d;
    }
    const double var = ss / (double) (n - 1); // sample variance of a batch's loss
    // per datapoint: the standard error of the mean batch loss; summed
    // losses: a batch loss's standard deviation (as upstream reports it)
    *unc = result->loss_per_datapoint ? sqrt(var / (double) n) : sqrt(var);
}

void ggml_opt_result_pred(ggml_opt_result_t result, int32_t * pred) {
    if (result->n_pred > 0) {
        memcpy(pred, result->pred, (size_t) result->n_pred * sizeof(int32_t));
    }
}

void ggml_opt_result_accuracy(ggml_opt_result_t result, double * accuracy, double * unc) {
    const bool defined = result->ncorrect >= 0 && result->ndata > 0;
    *accuracy = defined ? (double) result->ncorrect / (double) result->ndata : NAN;
    if (unc == NULL) {
        return;
    }
    *unc = defined && result->ndata >= 2 ?
        sqrt(*accuracy * (1.0 - *accuracy) / (double) (result->ndata - 1)) : NAN;
}
