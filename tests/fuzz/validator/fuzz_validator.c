// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Coverage-guided fuzzer (libFuzzer) of GRAPH_CREATE's validation, built in
 * userspace from the driver's own sources (driver/gaccel_graph.c,
 * driver/gaccel_ref_node.c, driver/gaccel_ref_fpu.c, through the shims of
 * shim/), under AddressSanitizer and UBSan. `make fuzz-validator`.
 *
 * Each input (format: fuzz_input.h) is a program handed to the real
 * gaccel_ioctl_graph_create() with the reference engine's real caps. For
 * every graph it accepts, the harness checks what the engine relies on,
 * computed here independently (128-bit arithmetic, its own dtype table):
 *
 *  - every tensor's last byte lies inside its slot, its offset and strides
 *    are aligned for its dtype, it has at most 2^48 elements;
 *  - the per-slot alignment and written flags agree with the tensors and
 *    nodes; the scratch size is what the engine asks for its nodes;
 *  - the engine's own contract check (gaccel_ref_node_prepare()) accepts
 *    every node validation accepted;
 *
 * and, when the graph is small enough, runs it through the engine's
 * kernels on slots allocated at exactly their declared sizes and filled
 * with the input's trailing bytes (row indices included): ASan turns any
 * byte read or written outside a slot or the scratch into a crash. A
 * violated invariant abort()s, so a validator bug becomes a crash file,
 * which becomes a regression case in tests/fuzz/validator/regress/.
 */
#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_graph.h"
#include "gaccel_limits.h"
#include "gaccel_ref.h"

#include "fuzz_input.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);

/* Largest slot and total the harness runs kernels on, and most work. */
#define RUN_MAX_SLOT	(1u << 20)
#define RUN_MAX_TOTAL	(4u << 20)
#define RUN_MAX_WORK	(1ull << 20)

static int debug;

void kshim_dbg(const char *fmt, ...)
{
	struct va_format *vaf;
	va_list ap;
	u32 node;

	if (!debug)
		return;
	va_start(ap, fmt);
	if (strstr(fmt, "%pV")) {
		/* gaccel_graph.c's vfail(): a node index, then its message. */
		node = va_arg(ap, u32);
		vaf = va_arg(ap, struct va_format *);
		fprintf(stderr, "GRAPH_CREATE: node %u: ", node);
		vfprintf(stderr, vaf->fmt, *vaf->va);
		fputc('\n', stderr);
	} else {
		vfprintf(stderr, fmt, ap);
	}
	va_end(ap);
}

/*
 * gaccel_limits.c is not built here: the validator may charge a file's
 * usage, which the harness always allows.
 */
int gaccel_charge(struct drm_device *drm, struct gaccel_usage *usage,
		  enum gaccel_res res, u64 amount)
{
	(void)drm;
	(void)usage;
	(void)res;
	(void)amount;
	return 0;
}

void gaccel_uncharge(struct gaccel_usage *usage, enum gaccel_res res, u64 amount)
{
	(void)usage;
	(void)res;
	(void)amount;
}

struct gaccel_usage *gaccel_usage_create(const struct cred *cred)
{
	(void)cred;
	return NULL;
}

struct gaccel_usage *gaccel_usage_get(struct gaccel_usage *usage)
{
	return usage;
}

void gaccel_usage_put(struct gaccel_usage *usage)
{
	(void)usage;
}

u64 gaccel_limit(enum gaccel_res res)
{
	(void)res;
	return U64_MAX;
}

static struct gaccel_engine engine;
static struct gaccel_device gdev;
static struct gaccel_file gfile;
static struct drm_file file;
static bool have_avx2;

#define FAIL(...) do { \
	fprintf(stderr, "fuzz_validator: invariant broken: " __VA_ARGS__); \
	fputc('\n', stderr); \
	abort(); \
} while (0)

/* The dtypes of the uAPI, written down here again: block, bytes, align. */
struct dt {
	unsigned int block, bytes, align;
};

static const struct dt *dtype(u32 t)
{
	static const struct dt f32 = { 1, 4, 4 }, f16 = { 1, 2, 2 }, q4 = { 32, 18, 2 },
			       q8 = { 32, 34, 2 }, i32 = { 1, 4, 4 }, i64 = { 1, 8, 8 };

	switch (t) {
	case DRM_GACCEL_DTYPE_F32:
		return &f32;
	case DRM_GACCEL_DTYPE_F16:
	case DRM_GACCEL_DTYPE_BF16:
		return &f16;
	case DRM_GACCEL_DTYPE_Q4_0:
		return &q4;
	case DRM_GACCEL_DTYPE_Q8_0:
		return &q8;
	case DRM_GACCEL_DTYPE_I32:
		return &i32;
	case DRM_GACCEL_DTYPE_I64:
		return &i64;
	}
	return NULL;
}

typedef unsigned __int128 u128;

/* Per slot, one past the last byte any of its tensors reaches. */
static u64 slot_end[FUZZ_MAX_SLOTS];

static void check_tensor(const struct gaccel_graph *g, u32 i, u32 *align)
{
	const struct drm_gaccel_tensor *t = &g->tensors[i];
	const struct dt *dt = dtype(t->dtype);
	u128 end, nel = 1;

	if (t->slot >= g->num_slots)
		FAIL("tensor %u: slot %u of %u", i, t->slot, g->num_slots);
	if (!dt)
		FAIL("tensor %u: dtype %u", i, t->dtype);
	if (t->ne[0] % dt->block || (dt->block > 1 && t->nb[0] != dt->bytes))
		FAIL("tensor %u: block layout", i);
	if (t->offset % dt->align)
		FAIL("tensor %u: offset %llu misaligned", i, t->offset);
	end = (u128)t->offset + dt->bytes;
	for (int d = 0; d < 4; d++) {
		u64 n = d ? t->ne[d] : t->ne[0] / dt->block;

		if (!t->ne[d] || !n)
			FAIL("tensor %u: ne[%d] = %llu", i, d, t->ne[d]);
		if (t->nb[d] % dt->align)
			FAIL("tensor %u: nb[%d] misaligned", i, d);
		end += (u128)(n - 1) * t->nb[d];
		nel *= t->ne[d];
	}
	if (end > g->slot_size[t->slot])
		FAIL("tensor %u: ends at %llu:%llu, past slot %u of %llu bytes", i,
		     (u64)(end >> 64), (u64)end, t->slot, g->slot_size[t->slot]);
	if (nel > ((u128)1 << 48))
		FAIL("tensor %u: %llu:%llu elements", i, (u64)(nel >> 64), (u64)nel);
	if (dt->align > align[t->slot])
		align[t->slot] = dt->align;
	if (end > slot_end[t->slot])
		slot_end[t->slot] = (u64)end;
}

/*
 * Copy of @g whose tensors start at offset 0 of slots at @base, for the
 * engine's contract check, which computes addresses without touching them.
 */
static void contract(const struct gaccel_graph *g, void *base)
{
	struct gaccel_graph c = *g;
	struct drm_gaccel_tensor *t = malloc(g->num_tensors * sizeof(*t));
	void **slots = malloc(g->num_slots * sizeof(void *));
	u64 scratch = 0;

	if (!t || !slots)
		abort();
	memcpy(t, g->tensors, g->num_tensors * sizeof(*t));
	for (u32 i = 0; i < g->num_tensors; i++)
		t[i].offset = 0;
	for (u32 i = 0; i < g->num_slots; i++)
		slots[i] = base;
	c.tensors = t;
	for (u32 i = 0; i < g->num_nodes; i++) {
		/* The scratch the graph asked for, as the engine sizes it. */
		struct gaccel_ref_node rn = {
			.scratch = base,
			.scratch_size = g->scratch_size ? (g->scratch_size + 63) / 64 * 64 : 0,
		};
		u64 units, cost;
		int ret = gaccel_ref_node_prepare(&rn, &c, &g->nodes[i], slots, &units, &cost);

		if (ret)
			FAIL("node %u (op %u): validated, but the engine refuses it (%d)",
			     i, g->nodes[i].op, ret);
		if (!g->slot_written[g->tensors[g->nodes[i].dst].slot])
			FAIL("node %u: its dst's slot is not marked written", i);
		scratch = max(scratch, gaccel_ref_node_scratch(g, &g->nodes[i]));
	}
	if (scratch != g->scratch_size)
		FAIL("scratch %llu, nodes need %llu", g->scratch_size, scratch);
	if (scratch > (1u << 19))
		FAIL("scratch %llu per worker", scratch);
	free(t);
	free(slots);
}

static void check_graph(const struct gaccel_graph *g)
{
	u32 align[FUZZ_MAX_SLOTS];
	static char base[64];

	for (u32 s = 0; s < g->num_slots; s++) {
		align[s] = 1;
		slot_end[s] = 0;
	}
	for (u32 i = 0; i < g->num_tensors; i++)
		check_tensor(g, i, align);
	for (u32 s = 0; s < g->num_slots; s++) {
		bool written = false;

		if (g->slot_align[s] != align[s])
			FAIL("slot %u: alignment %u, its tensors need %u", s,
			     g->slot_align[s], align[s]);
		for (u32 i = 0; i < g->num_nodes; i++)
			written |= g->tensors[g->nodes[i].dst].slot == s;
		if (written != g->slot_written[s])
			FAIL("slot %u: written flag %d", s, g->slot_written[s]);
	}
	contract(g, base);
}

/*
 * Run @g as the engine would, one participant: each node cut into units,
 * chunks of units, each chunk in as many sections as it takes. Each slot
 * is allocated up to the last byte its tensors reach (check_graph()
 * computed it, no more than the slot's declared size), the scratch at its
 * exact size: ASan reports any byte a kernel touches past them. Returns
 * the job's result.
 */
static int run_graph(const struct gaccel_graph *g, const uint8_t *fill, size_t nfill,
		     bool avx2)
{
	void *slots[FUZZ_MAX_SLOTS] = { 0 };
	u64 total = 0, stride = 0;
	u128 work = 0;
	void *scratch = NULL;
	int ret = 0;

	for (u32 s = 0; s < g->num_slots; s++) {
		if (g->slot_size[s] > RUN_MAX_SLOT)
			return 1;
		total += g->slot_size[s];
	}
	if (total > RUN_MAX_TOTAL)
		return 1;
	for (u32 s = 0; s < g->num_slots; s++) {
		u8 *p = malloc(slot_end[s] ? slot_end[s] : 1);

		if (!p)
			abort();
		for (u64 b = 0; b < slot_end[s]; b++)
			p[b] = nfill ? fill[(b + 7 * s) % nfill] : 0;
		slots[s] = p;
	}
	if (g->scratch_size) {
		stride = (g->scratch_size + 63) / 64 * 64;
		scratch = malloc(stride);
	}
	/* Work of the whole job, to keep each input quick. */
	for (u32 i = 0; i < g->num_nodes && !ret; i++) {
		struct gaccel_ref_node rn = { .scratch = scratch, .scratch_size = stride,
					      .avx2 = avx2 };
		u64 units, cost;

		ret = gaccel_ref_node_prepare(&rn, g, &g->nodes[i], slots, &units, &cost);
		work += (u128)units * (cost ? cost : 1);
	}
	if (ret)
		FAIL("the engine refuses a node of the job (%d)", ret);
	for (u32 i = 0; i < g->num_nodes && !ret && work <= RUN_MAX_WORK; i++) {
		struct gaccel_ref_node rn = { .scratch = scratch, .scratch_size = stride,
					      .avx2 = avx2 };
		u64 units, cost, per;

		gaccel_ref_node_prepare(&rn, g, &g->nodes[i], slots, &units, &cost);
		per = max_t(u64, 1, GACCEL_REF_CHUNK / max_t(u64, cost, 1));
		for (u64 u = 0; u < units && !ret; u += per) {
			struct gaccel_ref_pos pos = { .unit = u, .end = min(u + per, units) };

			do
				ret = gaccel_ref_fpu_run(&rn, &pos);
			while (ret == 1);
		}
	}
	for (u32 s = 0; s < g->num_slots; s++)
		free(slots[s]);
	free(scratch);
	return ret;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	unsigned int eax, ebx, ecx, edx;

	(void)argc;
	(void)argv;
	debug = getenv("GACCEL_FUZZ_DEBUG") != NULL;
	gaccel_ref_caps(&engine.caps);
	engine.caps.mem_size = 1ull << 34;
	engine.caps.max_bo_size = 1ull << 34;
	gdev.engine = &engine;
	gfile.gdev = &gdev;
	xa_init_flags(&gfile.graphs, XA_FLAGS_ALLOC1);
	file.driver_priv = &gfile;
	__builtin_cpu_init();
	/* As the engine: AVX2, FMA and F16C (CPUID 1, ECX bit 29). */
	have_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
		    __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29));
	return 0;
}

/* The next @n bytes of the input as one array element of @elem bytes. */
static const uint8_t *take(const uint8_t **p, size_t *left, size_t n)
{
	const uint8_t *q = *p;

	if (*left < n)
		return NULL;
	*p += n;
	*left -= n;
	return q;
}

/* --- structure-aware mutation ---------------------------------------------- */

static uint64_t mut_rng;

static uint64_t rnd(void)
{
	mut_rng ^= mut_rng << 13;
	mut_rng ^= mut_rng >> 7;
	mut_rng ^= mut_rng << 17;
	return mut_rng;
}

/*
 * A value for a 64-bit field where the validator's arithmetic turns:
 * powers of two and their neighbours, the limits, the field's neighbours,
 * and a count that makes the product with @other (the stride of the same
 * dimension, or the count for a stride) just wrap 64 bits.
 */
static uint64_t interesting(uint64_t cur, uint64_t other)
{
	uint64_t p = 1ull << (rnd() % 64);

	switch (rnd() % 8) {
	case 0:
		return p;
	case 1:
		return p + 1;
	case 2:
		return p - 1;
	case 3:
		return other ? UINT64_MAX / other + 1 + rnd() % 3 : p;
	case 4:
		return cur + 1 - rnd() % 3;
	case 5:
		return (uint64_t[]){ 1ull << 40, (1ull << 40) + 1, 1ull << 48, (1ull << 24) + 1,
				     1ull << 18, (1ull << 18) + 32, UINT64_MAX, 0 }[rnd() % 8];
	case 6:
		return cur * 2;
	default:
		return rnd() % 256;
	}
}

/*
 * Most of the time, set one field of one slot, tensor or node to a value
 * chosen as above (counts, strides, offsets, slot sizes) or to a small
 * one (dtypes, slots, ops, tensor indices, params); otherwise leave it to
 * libFuzzer's byte-level mutations.
 */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	const size_t hs = sizeof(struct fuzz_head);
	struct fuzz_head *h = (void *)data;
	size_t ss, ts, nsz, at, nt, nn, ns;
	uint64_t v, other;

	mut_rng = seed * 0x9e3779b97f4a7c15ull + 1;
	if (size < hs || rnd() % 3 == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	ns = h->ns % (FUZZ_MAX_SLOTS + 1);
	nt = h->nt % (FUZZ_MAX_TENSORS + 1);
	nn = h->nn % (FUZZ_MAX_NODES + 1);
	ss = sizeof(struct drm_gaccel_slot) + (h->flags & FUZZ_WIDE_SLOTS ? 8 : 0);
	ts = sizeof(struct drm_gaccel_tensor) + (h->flags & FUZZ_WIDE_TENSORS ? 8 : 0);
	nsz = sizeof(struct drm_gaccel_node) + (h->flags & FUZZ_WIDE_NODES ? 8 : 0);
	if (size < hs + ns * ss + nt * ts + nn * nsz || !(ns + nt + nn))
		return LLVMFuzzerMutate(data, size, max_size);

	switch (rnd() % 3) {
	case 0:
		if (ns) {
			at = hs + (rnd() % ns) * ss;
			memcpy(&v, data + at, 8);
			v = interesting(v, 0);
			memcpy(data + at, &v, 8);
			return size;
		}
		/* fall through */
	case 1:
		if (nt && rnd() % 4 == 0) {
			/*
			 * One count changed in every tensor that shares it:
			 * operands whose shapes must agree keep agreeing.
			 */
			struct drm_gaccel_tensor t;
			int d = rnd() % 4;
			uint64_t old;

			memcpy(&t, data + hs + ns * ss + (rnd() % nt) * ts, sizeof(t));
			old = t.ne[d];
			v = rnd() % 2 ? 1 + rnd() % 64 : interesting(old, t.nb[d]);
			for (size_t i = 0; i < nt; i++) {
				at = hs + ns * ss + i * ts;
				memcpy(&t, data + at, sizeof(t));
				if (t.ne[d] == old) {
					t.ne[d] = v;
					memcpy(data + at, &t, sizeof(t));
				}
			}
			return size;
		}
		if (nt) {
			struct drm_gaccel_tensor t;
			int d = rnd() % 4;

			at = hs + ns * ss + (rnd() % nt) * ts;
			memcpy(&t, data + at, sizeof(t));
			switch (rnd() % 8) {
			case 0:
				t.ne[d] = interesting(t.ne[d], t.nb[d]);
				break;
			case 7: {
				/* A count and a stride, both in range, whose product wraps. */
				int k = 24 + rnd() % 17;

				t.nb[d] = 1ull << k;
				t.ne[d] = (1ull << (64 - k)) + 1 + rnd() % 2;
				if (!d && (t.dtype == DRM_GACCEL_DTYPE_Q8_0 ||
					   t.dtype == DRM_GACCEL_DTYPE_Q4_0))
					t.ne[d] *= 32;
				break;
			}
			case 5:
				/* Small counts, odd ones included. */
				t.ne[d] = 1 + rnd() % 64;
				break;
			case 6: {
				/* Another tensor's shape (and strides): operands agree. */
				struct drm_gaccel_tensor o;

				memcpy(&o, data + hs + ns * ss + (rnd() % nt) * ts, sizeof(o));
				memcpy(t.ne, o.ne, sizeof(t.ne));
				if (rnd() % 2)
					memcpy(t.nb, o.nb, sizeof(t.nb));
				break;
			}
			case 1:
				t.nb[d] = interesting(t.nb[d], t.ne[d]);
				break;
			case 2:
				t.offset = interesting(t.offset, 0);
				break;
			case 3:
				t.slot = rnd() % (ns + 1);
				break;
			default:
				t.dtype = rnd() % 8;
				break;
			}
			memcpy(data + at, &t, sizeof(t));
			return size;
		}
		/* fall through */
	default:
		if (nn) {
			struct drm_gaccel_node n;

			at = hs + ns * ss + nt * ts + (rnd() % nn) * nsz;
			memcpy(&n, data + at, sizeof(n));
			switch (rnd() % 4) {
			case 0:
				n.op = rnd() % 17;
				break;
			case 1:
				n.dst = rnd() % (nt + 1);
				break;
			case 2:
				n.src[rnd() % 4] = rnd() % 4 ? rnd() % (nt + 1) : DRM_GACCEL_NO_TENSOR;
				break;
			default:
				other = rnd() % DRM_GACCEL_MAX_PARAMS;
				n.params[other] = (int32_t)interesting((uint32_t)n.params[other], 0);
				break;
			}
			memcpy(data + at, &n, sizeof(n));
			return size;
		}
	}
	return LLVMFuzzerMutate(data, size, max_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct drm_gaccel_graph_create args = { 0 };
	struct drm_gaccel_graph_destroy destroy = { 0 };
	const struct fuzz_head *h = (const void *)data;
	size_t left = size, ss, ts, nsz;
	const uint8_t *p = data, *slots, *tensors, *nodes;
	struct gaccel_graph *g;
	uint32_t ns, nt, nn;
	int ret;

	if (!take(&p, &left, sizeof(*h)))
		return 0;
	ns = h->ns % (FUZZ_MAX_SLOTS + 1);
	nt = h->nt % (FUZZ_MAX_TENSORS + 1);
	nn = h->nn % (FUZZ_MAX_NODES + 1);
	ss = sizeof(struct drm_gaccel_slot) + (h->flags & FUZZ_WIDE_SLOTS ? 8 : 0);
	ts = sizeof(struct drm_gaccel_tensor) + (h->flags & FUZZ_WIDE_TENSORS ? 8 : 0);
	nsz = sizeof(struct drm_gaccel_node) + (h->flags & FUZZ_WIDE_NODES ? 8 : 0);
	slots = take(&p, &left, ns * ss);
	tensors = take(&p, &left, nt * ts);
	nodes = take(&p, &left, nn * nsz);
	if (!slots || !tensors || !nodes)
		return 0;

	args.slots = (struct drm_gaccel_array){ (uint32_t)ss, ns, (uintptr_t)slots };
	args.tensors = (struct drm_gaccel_array){ (uint32_t)ts, nt, (uintptr_t)tensors };
	args.nodes = (struct drm_gaccel_array){ (uint32_t)nsz, nn, (uintptr_t)nodes };
	ret = gaccel_ioctl_graph_create(&gdev.drm, &args, &file);
	if (ret) {
		if (ret != -EINVAL && ret != -E2BIG && ret != -ENOMEM)
			FAIL("GRAPH_CREATE returned %d", ret);
		return 0;
	}
	if (!args.handle)
		FAIL("GRAPH_CREATE gave handle 0");
	g = gaccel_graph_lookup(&gfile, args.handle);
	if (!g)
		FAIL("handle %u has no graph", args.handle);
	check_graph(g);
	if (!(h->flags & FUZZ_NO_RUN))
		run_graph(g, p, left, have_avx2 && (h->flags & FUZZ_AVX2));
	gaccel_graph_put(g);

	destroy.handle = args.handle;
	if (gaccel_ioctl_graph_destroy(&gdev.drm, &destroy, &file))
		FAIL("GRAPH_DESTROY failed");
	return 0;
}
