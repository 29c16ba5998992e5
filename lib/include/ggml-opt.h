/*
 * ggml-opt.h - training with ggml: datasets, optimizer contexts (AdamW and
 * SGD), evaluation results and the epoch/fit drivers. The API (names,
 * types, enum values, struct layouts) is upstream ggml v0.21.0's, so a
 * training program written for upstream builds against this library
 * unchanged. Implemented in lib/ggml-opt.c, lib/ggml-opt-dataset.c and
 * lib/ggml-opt-result.c; exported by libggml-base. See
 * Documentation/training.rst.
 *
 * SPDX-License-Identifier: MIT
 */
#pragma once

#include "ggml.h"
#include "ggml-backend.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ggml_opt_dataset;
struct ggml_opt_context;
struct ggml_opt_result;

typedef struct ggml_opt_dataset * ggml_opt_dataset_t;
typedef struct ggml_opt_context * ggml_opt_context_t;
typedef struct ggml_opt_result  * ggml_opt_result_t;

//
// Loss
//

// What the optimizer minimizes. MEAN and SUM reduce the model's outputs
// themselves (a model that computes its own loss); CROSS_ENTROPY and
// MEAN_SQUARED_ERROR compare the outputs with labels of the same shape.
enum ggml_opt_loss_type {
    GGML_OPT_LOSS_TYPE_MEAN,
    GGML_OPT_LOSS_TYPE_SUM,
    GGML_OPT_LOSS_TYPE_CROSS_ENTROPY,
    GGML_OPT_LOSS_TYPE_MEAN_SQUARED_ERROR,
};

//
// Dataset: ndata datapoints of ne_datapoint elements (and as many labels of
// ne_label elements, none if ne_label is 0) in host memory. Datapoints move
// in shards of ndata_shard consecutive datapoints: shuffling permutes
// shards, a batch is a whole number of shards.
//

GGML_API ggml_opt_dataset_t ggml_opt_dataset_init(
        enum ggml_type type_data,
        enum ggml_type type_label,
        int64_t        ne_datapoint,
        int64_t        ne_label,
        int64_t        ndata,
        int64_t        ndata_shard);
GGML_API void ggml_opt_dataset_free(ggml_opt_dataset_t dataset);

GGML_API int64_t              ggml_opt_dataset_ndata (ggml_opt_dataset_t dataset);
GGML_API struct ggml_tensor * ggml_opt_dataset_data  (ggml_opt_dataset_t dataset); // [ne_datapoint, ndata], host memory
GGML_API struct ggml_tensor * ggml_opt_dataset_labels(ggml_opt_dataset_t dataset); // [ne_label, ndata] or NULL

// Permutes the shards of the first idata datapoints (a multiple of the shard
// size) with opt_ctx's random generator; all of them if idata < 0.
GGML_API void ggml_opt_dataset_shuffle(ggml_opt_context_t opt_ctx, ggml_opt_dataset_t dataset, int64_t idata);

// Copies batch ibatch (in the current order) into data_batch and
// labels_batch (contiguous tensors of the dataset's types, in any backend
// buffer; labels_batch NULL exactly when the dataset has no labels). The
// batch size is ggml_nbytes(data_batch) over a datapoint's bytes.
GGML_API void ggml_opt_dataset_get_batch(
        ggml_opt_dataset_t   dataset,
        struct ggml_tensor * data_batch,
        struct ggml_tensor * labels_batch,
        int64_t              ibatch);
// The same into host memory: nb_data_batch bytes of data.
GGML_API void ggml_opt_dataset_get_batch_host(
        ggml_opt_dataset_t   dataset,
        void               * data_batch,
        size_t               nb_data_batch,
        void               * labels_batch,
        int64_t              ibatch);

//
// Optimization context
//

// Which graphs a context builds: the forward pass only, also the gradients,
// or also the optimizer step.
enum ggml_opt_build_type {
    GGML_OPT_BUILD_TYPE_FORWARD = 10,
    GGML_OPT_BUILD_TYPE_GRAD    = 20,
    GGML_OPT_BUILD_TYPE_OPT     = 30,
};

enum ggml_opt_optimizer_type {
    GGML_OPT_OPTIMIZER_TYPE_ADAMW,
    GGML_OPT_OPTIMIZER_TYPE_SGD,

    GGML_OPT_OPTIMIZER_TYPE_COUNT
};

// Hyperparameters of both optimizers; the context reads the ones of its own.
struct ggml_opt_optimizer_params {
    struct {
        float alpha; // learning rate
        float beta1; // decay of the first moment
        float beta2; // decay of the second moment
        float eps;   // added to the second moment's square root
        float wd;    // decoupled weight decay, 0 for none
    } adamw;
    struct {
        float alpha; // learning rate
        float wd;    // weight decay
    } sgd;
};

// Called before every optimizer step for that step's hyperparameters.
typedef struct ggml_opt_optimizer_params (*ggml_opt_get_optimizer_params)(void * userdata);

// Fixed defaults (AdamW: alpha 1e-3, beta1 0.9, beta2 0.999, eps 1e-8, no
// weight decay; SGD: alpha 1e-3, no weight decay); userdata is ignored.
GGML_API struct ggml_opt_optimizer_params ggml_opt_get_default_optimizer_params(void * userdata);

// *(struct ggml_opt_optimizer_params *) userdata.
GGML_API struct ggml_opt_optimizer_params ggml_opt_get_constant_optimizer_params(void * userdata);

struct ggml_opt_params {
    ggml_backend_sched_t backend_sched; // the backends the graphs run on

    // Static graphs: ctx_compute, inputs and outputs set here, the graphs
    // are built once by ggml_opt_init. Otherwise all three NULL and each
    // evaluation brings its own graph through ggml_opt_prepare_alloc.
    struct ggml_context * ctx_compute;
    struct ggml_tensor  * inputs;
    struct ggml_tensor  * outputs;

    enum ggml_opt_loss_type  loss_type;
    enum ggml_opt_build_type build_type;

    int32_t opt_period; // gradient accumulation: evaluations per optimizer step

    ggml_opt_get_optimizer_params get_opt_pars;
    void *                        get_opt_pars_ud;

    enum ggml_opt_optimizer_type optimizer; // AdamW keeps two moments per parameter
};

// Parameters with defaults: build type OPT, opt_period 1, the default
// optimizer parameters, AdamW, dynamic graphs.
GGML_API struct ggml_opt_params ggml_opt_default_params(
        ggml_backend_sched_t    backend_sched,
        enum ggml_opt_loss_type loss_type);

GGML_API ggml_opt_context_t ggml_opt_init(struct ggml_opt_params params);
GGML_API void ggml_opt_free(ggml_opt_context_t opt_ctx);

// Zeroes the accumulated gradients and sets the loss gradient to 1; with
// optimizer also zeroes the AdamW moments and restarts the step count.
GGML_API void ggml_opt_reset(ggml_opt_context_t opt_ctx, bool optimizer);

GGML_API bool ggml_opt_static_graphs(ggml_opt_context_t opt_ctx);

// Tensors of the current graphs (with dynamic graphs valid until the next
// ggml_opt_alloc). labels, pred and ncorrect exist for the loss types with
// labels; pred and ncorrect for cross-entropy only (argmax of the outputs
// and the count of rows where it is the labels' argmax).
GGML_API struct ggml_tensor * ggml_opt_inputs(  ggml_opt_context_t opt_ctx);
GGML_API struct ggml_tensor * ggml_opt_outputs( ggml_opt_context_t opt_ctx);
GGML_API struct ggml_tensor * ggml_opt_labels(  ggml_opt_context_t opt_ctx);
GGML_API struct ggml_tensor * ggml_opt_loss(    ggml_opt_context_t opt_ctx);
GGML_API struct ggml_tensor * ggml_opt_pred(    ggml_opt_context_t opt_ctx);
GGML_API struct ggml_tensor * ggml_opt_ncorrect(ggml_opt_context_t opt_ctx);

// The tensor a parameter's gradient accumulates in (NULL if none).
GGML_API struct ggml_tensor * ggml_opt_grad_acc(ggml_opt_context_t opt_ctx, struct ggml_tensor * node);

GGML_API enum ggml_opt_optimizer_type ggml_opt_context_optimizer_type(ggml_opt_context_t opt_ctx);

// "adamw", "sgd", or "undefined"
GGML_API const char * ggml_opt_optimizer_name(enum ggml_opt_optimizer_type optimizer);

//
// Results of evaluations: the loss of every batch, the predictions and the
// number of correct ones.
//

GGML_API ggml_opt_result_t ggml_opt_result_init(void);
GGML_API void ggml_opt_result_free(ggml_opt_result_t result);
GGML_API void ggml_opt_result_reset(ggml_opt_result_t result);

// unc (the standard error) may be NULL; NaN where it is undefined
GGML_API void ggml_opt_result_ndata(   ggml_opt_result_t result, int64_t * ndata);
GGML_API void ggml_opt_result_loss(    ggml_opt_result_t result, double  * loss,     double * unc);
GGML_API void ggml_opt_result_pred(    ggml_opt_result_t result, int32_t * pred);     // ndata values
GGML_API void ggml_opt_result_accuracy(ggml_opt_result_t result, double  * accuracy, double * unc);

//
// Evaluation
//

// Dynamic graphs: the graph gf (computing outputs from inputs, tensors in
// ctx_compute) for the next ggml_opt_alloc.
GGML_API void ggml_opt_prepare_alloc(
        ggml_opt_context_t    opt_ctx,
        struct ggml_context * ctx_compute,
        struct ggml_cgraph  * gf,
        struct ggml_tensor  * inputs,
        struct ggml_tensor  * outputs);

// Allocates the graph of the next evaluation: the forward pass, or with
// backward the gradients (and, at the end of an accumulation period, the
// optimizer step). Once before each ggml_opt_eval.
GGML_API void ggml_opt_alloc(ggml_opt_context_t opt_ctx, bool backward);

// Runs the allocated graph; adds the batch's loss and predictions to
// result (if not NULL).
GGML_API void ggml_opt_eval(ggml_opt_context_t opt_ctx, ggml_opt_result_t result);

//
// Drivers, built on the functions above only
//

// Called after each batch of ggml_opt_epoch.
typedef void (*ggml_opt_epoch_callback)(
        bool               train,      // training batch (else validation)
        ggml_opt_context_t opt_ctx,
        ggml_opt_dataset_t dataset,
        ggml_opt_result_t  result,     // the result of this part of the epoch
        int64_t            ibatch,     // batches done in this part
        int64_t            ibatch_max, // batches in this part
        int64_t            t_start_us);// when this part started (ggml_time_us)

// One pass over the dataset in its current order (static graphs): trains
// on the datapoints before idata_split (all if negative), evaluates on the
// rest.
GGML_API void ggml_opt_epoch(
        ggml_opt_context_t      opt_ctx,
        ggml_opt_dataset_t      dataset,
        ggml_opt_result_t       result_train,
        ggml_opt_result_t       result_eval,
        int64_t                 idata_split,
        ggml_opt_epoch_callback callback_train,
        ggml_opt_epoch_callback callback_eval);

// A callback that draws a progress line (loss, accuracy, time) on stderr.
GGML_API void ggml_opt_epoch_callback_progress_bar(
        bool               train,
        ggml_opt_context_t opt_ctx,
        ggml_opt_dataset_t dataset,
        ggml_opt_result_t  result,
        int64_t            ibatch,
        int64_t            ibatch_max,
        int64_t            t_start_us);

// Trains the model outputs(inputs) on dataset for nepoch epochs with
// nbatch_logical datapoints per optimizer step (a multiple of the physical
// batch, inputs->ne[1]), keeping the fraction val_split of the batches for
// validation. get_opt_pars receives a pointer to the epoch (int64_t,
// from 1).
GGML_API void ggml_opt_fit(
        ggml_backend_sched_t            backend_sched,
        struct ggml_context           * ctx_compute,
        struct ggml_tensor            * inputs,
        struct ggml_tensor            * outputs,
        ggml_opt_dataset_t              dataset,
        enum ggml_opt_loss_type         loss_type,
        enum ggml_opt_optimizer_type    optimizer,
        ggml_opt_get_optimizer_params   get_opt_pars,
        int64_t                         nepoch,
        int64_t                         nbatch_logical,
        float                           val_split,
        bool                            silent);

#ifdef __cplusplus
}
#endif
