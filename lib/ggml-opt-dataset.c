/*
 * ggml-opt-dataset.c - datasets of ggml-opt: datapoints and labels in host
 * memory (a CPU buffer), moved in shards. The shard order is a
 * permutation; shuffling permutes it (Fisher-Yates with the optimization
 * context's generator) and batches are read through it.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-opt-impl.h"

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-impl.h"

#include <stdlib.h>
#include <string.h>

struct ggml_opt_dataset {
    struct ggml_context * ctx;
    ggml_backend_buffer_t buf;
    struct ggml_tensor  * data;    // [ne_datapoint, ndata]
    struct ggml_tensor  * labels;  // [ne_label, ndata] or NULL

    int64_t ndata;
    int64_t ndata_shard;
    size_t  shard_bytes_data;      // bytes of one shard of data
    size_t  shard_bytes_labels;    // of labels (0 without labels)

    int64_t   nshards;
    int64_t * order;               // shard order, a permutation of [0, nshards)
};

ggml_opt_dataset_t ggml_opt_dataset_init(
        enum ggml_type type_data,
        enum ggml_type type_label,
        int64_t        ne_datapoint,
        int64_t        ne_label,
        int64_t        ndata,
        int64_t        ndata_shard) {
    GGML_ASSERT(ne_datapoint > 0);
    GGML_ASSERT(ne_label >= 0);
    GGML_ASSERT(ndata > 0);
    GGML_ASSERT(ndata_shard > 0);
    GGML_ASSERT(type_data >= 0 && type_data < GGML_TYPE_COUNT);
    GGML_ASSERT(ne_label == 0 || (type_label >= 0 && type_label < GGML_TYPE_COUNT));
    GGML_ASSERT(ne_datapoint <= INT64_MAX / ndata && ne_label <= INT64_MAX / ndata);

    ggml_opt_dataset_t ds = calloc(1, sizeof(*ds));
    GGML_ASSERT(ds != NULL);
    ds->ndata       = ndata;
    ds->ndata_shard = ndata_shard;

    const struct ggml_init_params params = {
        .mem_size   = 2 * ggml_tensor_overhead(),
        .mem_buffer = NULL,
        .no_alloc   = true,
    };
    ds->ctx = ggml_init(params);
    GGML_ASSERT(ds->ctx != NULL);

    ds->data = ggml_new_tensor_2d(ds->ctx, type_data, ne_datapoint, ndata);
    ggml_set_name(ds->data, "opt_dataset_data");
    ds->shard_bytes_data = ds->data->nb[1] * (size_t) ndata_shard;
    if (ne_label > 0) {
        ds->labels = ggml_new_tensor_2d(ds->ctx, type_label, ne_label, ndata);
        ggml_set_name(ds->labels, "opt_dataset_labels");
        ds->shard_bytes_labels = ds->labels->nb[1] * (size_t) ndata_shard;
    }

    ds->buf = ggml_backend_alloc_ctx_tensors_from_buft(ds->ctx, ggml_backend_cpu_buffer_type());
    GGML_ASSERT(ds->buf != NULL && "out of memory for the dataset");

    // a trailing partial shard is never part of a batch
    ds->nshards = ndata / ndata_shard;
    ds->order = malloc((size_t) (ds->nshards > 0 ? ds->nshards : 1) * sizeof(*ds->order));
    GGML_ASSERT(ds->order != NULL);
    for (int64_t i = 0; i < ds->nshards; i++) {
        ds->order[i] = i;
    }
    return ds;
}

void ggml_opt_dataset_free(ggml_opt_dataset_t dataset) {
    if (dataset == NULL) {
        return;
    }
    ggml_backend_buffer_free(dataset->buf);
    ggml_free(dataset->ctx);
    free(dataset->order);
    free(dataset);
}

int64_t ggml_opt_dataset_ndata(ggml_opt_dataset_t dataset) {
    return dataset->ndata;
}

struct ggml_tensor * ggml_opt_dataset_data(ggml_opt_dataset_t dataset) {
    return dataset->data;
}

struct ggml_tensor * ggml_opt_dataset_labels(ggml_opt_dataset_t dataset) {
    return dataset->labels;
}

void ggml_opt_dataset_shuffle(ggml_opt_context_t opt_ctx, ggml_opt_dataset_t dataset, int64_t idata) {
    GGML_ASSERT(opt_ctx != NULL);
    GGML_ASSERT(idata <= dataset->ndata);

    int64_t n = dataset->nshards;
    if (idata >= 0) {
        GGML_ASSERT(idata % dataset->ndata_shard == 0 && "shuffle a whole number of shards");
        n = idata / dataset->ndata_shard;
    }
    for (int64_t i = n - 1; i > 0; i--) {
        const int64_t j = (int64_t) ggml_opt_rng_below(opt_ctx, (uint64_t) i + 1);
        const int64_t t = dataset->order[i];
        dataset->order[i] = dataset->order[j];
        dataset->order[j] = t;
    }
}

// shards per batch of nb_data bytes; checks that batch ibatch exists
static int64_t dataset_batch_shards(ggml_opt_dataset_t dataset, size_t nb_data, int64_t ibatch) {
    GGML_ASSERT(nb_data > 0 && nb_data % dataset->shard_bytes_data == 0 &&
                "a batch must hold a whole number of shards");
    const int64_t shards = (int64_t) (nb_data / dataset->shard_bytes_data);
    GGML_ASSERT(ibatch >= 0 && shards <= dataset->nshards);
    GGML_ASSERT(ibatch < dataset->nshards / shards && "batch beyond the end of the dataset");
    return shards;
}

void ggml_opt_dataset_get_batch(ggml_opt_dataset_t dataset, struct ggml_tensor * data_batch,
                                struct ggml_tensor * labels_batch, int64_t ibatch) {
    GGML_ASSERT(data_batch != NULL && ggml_is_contiguous(data_batch));
    GGML_ASSERT(data_batch->type == dataset->data->type);
    GGML_ASSERT((labels_batch == NULL) == (dataset->labels == NULL));
    GGML_ASSERT(labels_batch == NULL || (ggml_is_contiguous(labels_batch) &&
                                         labels_batch->type == dataset->labels->type));

    const int64_t shards = dataset_batch_shards(dataset, ggml_nbytes(data_batch), ibatch);
    if (labels_batch != NULL) {
        GGML_ASSERT(ggml_nbytes(labels_batch) == (size_t) shards * dataset->shard_bytes_labels &&
                    "labels_batch must hold as many labels as data_batch datapoints");
    }

    const char * data   = dataset->data->data;
    const char * labels = labels_batch != NULL ? dataset->labels->data : NULL;
    for (int64_t k = 0; k < shards; k++) {
        const int64_t shard = dataset->order[ibatch * shards + k];
        ggml_backend_tensor_set(data_batch, data + shard * dataset->shard_bytes_data,
                                k * dataset->shard_bytes_data, dataset->shard_bytes_data);
        if (labels != NULL) {
            ggml_backend_tensor_set(labels_batch, labels + shard * dataset->shard_bytes_labels,
                                    k * dataset->shard_bytes_labels, dataset->shard_bytes_labels);
        }
    }
}

void ggml_opt_dataset_get_batch_host(ggml_opt_dataset_t dataset, void * data_batch, size_t nb_data_batch,
                                     void * labels_batch, int64_t ibatch) {
    GGML_ASSERT(data_batch != NULL);
    GGML_ASSERT((labels_batch == NULL) == (dataset->labels == NULL));

    const int64_t shards = dataset_batch_shards(dataset, nb_data_batch, ibatch);
    const char * data   = dataset->data->data;
    const char * labels = labels_batch != NULL ? dataset->labels->data : NULL;
    for (int64_t k = 0; k < shards; k++) {
        const int64_t shard = dataset->order[ibatch * shards + k];
        memcpy((char *) data_batch + k * dataset->shard_bytes_data,
               data + shard * dataset->shard_bytes_data, dataset->shard_bytes_data);
        if (labels != NULL) {
            memcpy((char *) labels_batch + k * dataset->shard_bytes_labels,
                   labels + shard * dataset->shard_bytes_labels, dataset->shard_bytes_labels);
        }
    }
}
