// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * ggml-opt with the gaccel device: a small MLP trained with cross-entropy
 * through the scheduler, GACCEL0 first and the CPU last (the weights in
 * CPU memory, marked as weights so that their products go to the device),
 * with AdamW and with SGD. The loss must fall, the device must run part of
 * every training graph, and the losses and weights must be the CPU
 * alone's within float rounding.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-gaccel.h"
#include "ggml-opt.h"

enum { NIN = 8, NHID = 32, NCLASS = 4, NDATA = 256, BATCH = 32, EPOCHS = 6 };
#define NW (NIN * NHID + NHID + NHID * NCLASS + NCLASS)

static uint64_t rng;

static double urand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static double nrand(void)
{
	return sqrt(-2.0 * log(urand() + 1e-300)) * cos(2.0 * M_PI * urand());
}

struct run {
	double loss[EPOCHS];
	double accuracy;
	float w[NW];
	int max_splits;  /* of the training graph */
	ggml_backend_t mm_backend; /* where the first product ran */
};

/*
 * One backward evaluation with a dynamic graph, whose tensors are the ones
 * built here (a static graph is allocated as a copy): where the scheduler
 * put the first layer's product.
 */
static void where_mm(ggml_backend_sched_t sched, struct ggml_tensor **p, ggml_opt_dataset_t ds,
		     ggml_backend_t *backend)
{
	struct ggml_init_params cp = { GGML_DEFAULT_GRAPH_SIZE * ggml_tensor_overhead() +
				       3 * ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, true),
				       NULL, true };
	struct ggml_context *cc = ggml_init(cp);
	struct ggml_opt_params op = ggml_opt_default_params(sched, GGML_OPT_LOSS_TYPE_CROSS_ENTROPY);
	struct ggml_tensor *in, *mm, *out;
	struct ggml_cgraph *gf;
	ggml_opt_context_t oc;

	op.build_type = GGML_OPT_BUILD_TYPE_GRAD;
	oc = ggml_opt_init(op);
	in = ggml_new_tensor_2d(cc, GGML_TYPE_F32, NIN, BATCH);
	mm = ggml_mul_mat(cc, p[0], in);
	out = ggml_add(cc, ggml_mul_mat(cc, p[2], ggml_relu(cc, ggml_add(cc, mm, p[1]))), p[3]);
	gf = ggml_new_graph_custom(cc, GGML_DEFAULT_GRAPH_SIZE, true);
	ggml_build_forward_expand(gf, out);
	ggml_opt_prepare_alloc(oc, cc, gf, in, out);
	ggml_opt_alloc(oc, true);
	*backend = ggml_backend_sched_get_tensor_backend(sched, mm);
	ggml_opt_dataset_get_batch(ds, in, ggml_opt_labels(oc), 0);
	ggml_opt_eval(oc, NULL);
	ggml_opt_free(oc);
	ggml_free(cc);
}

static struct ggml_opt_optimizer_params pars(void *ud)
{
	struct ggml_opt_optimizer_params p = ggml_opt_get_default_optimizer_params(ud);

	p.adamw.alpha = 0.01f;
	p.sgd.alpha = 0.2f;
	return p;
}

/* Trains on @n backends (the CPU last); 0 on success. */
static int train(ggml_backend_t *backends, int n, enum ggml_opt_optimizer_type type, struct run *r)
{
	ggml_backend_t cpu = backends[n - 1];
	ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, n, GGML_DEFAULT_GRAPH_SIZE,
							    false, true);
	struct ggml_init_params sp = { 8 * ggml_tensor_overhead(), NULL, true };
	struct ggml_init_params cp = { GGML_DEFAULT_GRAPH_SIZE * ggml_tensor_overhead() +
				       3 * ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, true),
				       NULL, true };
	struct ggml_context *cs = ggml_init(sp), *cc = ggml_init(cp);
	struct ggml_tensor *x, *p[4], *out;
	ggml_backend_buffer_t buf;
	ggml_opt_dataset_t ds;
	struct ggml_opt_params op;
	ggml_opt_context_t oc;
	ggml_opt_result_t rt, rv;
	float *d, *l, *w;

	x = ggml_new_tensor_2d(cs, GGML_TYPE_F32, NIN, BATCH);
	p[0] = ggml_new_tensor_2d(cs, GGML_TYPE_F32, NIN, NHID);
	p[1] = ggml_new_tensor_1d(cs, GGML_TYPE_F32, NHID);
	p[2] = ggml_new_tensor_2d(cs, GGML_TYPE_F32, NHID, NCLASS);
	p[3] = ggml_new_tensor_1d(cs, GGML_TYPE_F32, NCLASS);
	for (int i = 0; i < 4; i++)
		ggml_set_param(p[i]);
	buf = ggml_backend_alloc_ctx_tensors(cs, cpu);
	if (!buf)
		return -1;
	ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
	rng = 0x5eed;
	for (int i = 0; i < 4; i++) {
		w = ggml_get_data_f32(p[i]);
		for (int64_t j = 0; j < ggml_nelements(p[i]); j++)
			w[j] = (float)(0.4 * nrand());
	}
	out = ggml_add(cc, ggml_mul_mat(cc, p[2],
			ggml_relu(cc, ggml_add(cc, ggml_mul_mat(cc, p[0], x), p[1]))), p[3]);

	/* NCLASS blobs around the corners of a hypercube */
	ds = ggml_opt_dataset_init(GGML_TYPE_F32, GGML_TYPE_F32, NIN, NCLASS, NDATA, 1);
	d = ggml_get_data_f32(ggml_opt_dataset_data(ds));
	l = ggml_get_data_f32(ggml_opt_dataset_labels(ds));
	for (int i = 0; i < NDATA; i++) {
		for (int k = 0; k < NIN; k++)
			d[i * NIN + k] = (float)((((i % NCLASS) >> (k % 2)) & 1 ? 1.5 : -1.5) + 0.6 * nrand());
		for (int k = 0; k < NCLASS; k++)
			l[i * NCLASS + k] = k == i % NCLASS;
	}

	op = ggml_opt_default_params(sched, GGML_OPT_LOSS_TYPE_CROSS_ENTROPY);
	op.ctx_compute = cc;
	op.inputs = x;
	op.outputs = out;
	op.optimizer = type;
	op.get_opt_pars = pars;
	oc = ggml_opt_init(op);
	rt = ggml_opt_result_init();
	rv = ggml_opt_result_init();
	ggml_opt_dataset_shuffle(oc, ds, -1);
	r->max_splits = 0;
	for (int e = 0; e < EPOCHS; e++) {
		ggml_opt_result_reset(rt);
		ggml_opt_result_reset(rv);
		/* the first batch by hand, to see how the graph was split */
		ggml_opt_alloc(oc, true);
		if (ggml_backend_sched_get_n_splits(sched) > r->max_splits)
			r->max_splits = ggml_backend_sched_get_n_splits(sched);
		ggml_opt_dataset_get_batch(ds, x, ggml_opt_labels(oc), 0);
		ggml_opt_eval(oc, rt);
		ggml_opt_epoch(oc, ds, rt, rv, NDATA * 3 / 4, NULL, NULL);
		ggml_opt_result_loss(rt, &r->loss[e], NULL);
	}
	ggml_opt_result_accuracy(rv, &r->accuracy, NULL);
	where_mm(sched, p, ds, &r->mm_backend);
	w = r->w;
	for (int i = 0; i < 4; i++) {
		ggml_backend_tensor_get(p[i], w, 0, ggml_nbytes(p[i]));
		w += ggml_nelements(p[i]);
	}

	ggml_opt_result_free(rt);
	ggml_opt_result_free(rv);
	ggml_opt_free(oc);
	ggml_opt_dataset_free(ds);
	ggml_backend_buffer_free(buf);
	ggml_free(cs);
	ggml_free(cc);
	ggml_backend_sched_free(sched);
	return 0;
}

static void check_type(struct __test_metadata *_metadata, enum ggml_opt_optimizer_type type)
{
	ggml_backend_reg_t reg = ggml_backend_gaccel_reg();
	ggml_backend_t both[2], cpu_only[1];
	struct run ref, got;
	double dw = 0, scale = 1e-6;

	ASSERT_LT(0, ggml_backend_reg_dev_count(reg));
	both[0] = ggml_backend_dev_init(ggml_backend_reg_dev_get(reg, 0), NULL);
	both[1] = ggml_backend_cpu_init();
	cpu_only[0] = ggml_backend_cpu_init();
	ASSERT_NE(NULL, both[0]);

	ASSERT_EQ(0, train(cpu_only, 1, type, &ref));
	ASSERT_EQ(0, train(both, 2, type, &got));
	for (int i = 0; i < NW; i++) {
		scale = fmax(scale, fabs(ref.w[i]));
		dw = fmax(dw, fabs(ref.w[i] - got.w[i]));
	}
	TH_LOG("%s: loss %.4f -> %.4f (CPU alone %.4f -> %.4f), accuracy %.3f, %d splits, weights %.2g apart",
	       ggml_opt_optimizer_name(type), got.loss[0], got.loss[EPOCHS - 1], ref.loss[0],
	       ref.loss[EPOCHS - 1], got.accuracy, got.max_splits, dw / scale);
	EXPECT_LT(got.loss[EPOCHS - 1], 0.5 * got.loss[0]);
	EXPECT_GT(got.accuracy, 0.8);
	/* the device ran part of the training graph, the CPU the rest */
	EXPECT_GT(got.max_splits, 1);
	EXPECT_TRUE(got.mm_backend == both[0]) {
		TH_LOG("the first product ran on %s", got.mm_backend ? ggml_backend_name(got.mm_backend) : "?");
	}
	for (int e = 0; e < EPOCHS; e++) {
		EXPECT_LT(fabs(got.loss[e] - ref.loss[e]), 1e-4 * ref.loss[e]) {
			TH_LOG("epoch %d: loss %.6f, CPU alone %.6f", e, got.loss[e], ref.loss[e]);
		}
	}
	EXPECT_LT(dw / scale, 1e-4);

	ggml_backend_free(both[0]);
	ggml_backend_free(both[1]);
	ggml_backend_free(cpu_only[0]);
}

TEST(adamw_through_the_scheduler_with_gaccel_matches_the_cpu)
{
	check_type(_metadata, GGML_OPT_OPTIMIZER_TYPE_ADAMW);
}

TEST(sgd_through_the_scheduler_with_gaccel_matches_the_cpu)
{
	check_type(_metadata, GGML_OPT_OPTIMIZER_TYPE_SGD);
}

GACCEL_TEST_HARNESS_MAIN
