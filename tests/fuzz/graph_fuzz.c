// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * graph_fuzz: seeded random programs for GRAPH_CREATE and random jobs for
 * SUBMIT, run inside the test VM (`make fuzz`).
 *
 * Each iteration builds a graph that looks valid (ops with operands shaped
 * by the op rules of Documentation/gaccel-uapi.rst), then often breaks it:
 * wrong dtypes, shapes, strides, offsets past slots, ne * nb overflows,
 * huge counts, odd array strides with zero or non-zero tails, bad pointers,
 * random op parameters, non-zero flags and pads. Accepted graphs are
 * submitted on random objects (right-sized, too small, userptr, read-only
 * userptr bound to written slots, bad offsets and handles), with random
 * syncs, then waited for with a timeout; graphs, objects and whole files
 * are sometimes dropped while jobs are in flight.
 *
 * Pass: every ioctl returns 0 or an errno its documentation allows, no
 * wait runs past its deadline, and (checked by the VM runner) the kernel
 * logs no oops, WARNING, lockdep or KASAN report. Prints TAP: 1..1.
 *
 * usage: graph_fuzz [-s seed] [-t seconds] [-n iterations] [-i iteration] [-v]
 *   -i N   run only iteration N of the seed (to reproduce one case)
 * Environment: GACCEL_FUZZ_SEED, GACCEL_FUZZ_SECONDS (defaults: time, 60).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "gaccel_test.h"

#define MAXS 8
#define MAXT 16
#define MAXN 6
#define MAX_SLOT_BYTES (8u << 20)
#define WAIT_NS 40000000000ll	/* job_timeout_ms is 10 s by default */

enum { F32 = DRM_GACCEL_DTYPE_F32, F16 = DRM_GACCEL_DTYPE_F16, Q4_0 = DRM_GACCEL_DTYPE_Q4_0,
       Q8_0 = DRM_GACCEL_DTYPE_Q8_0, I32 = DRM_GACCEL_DTYPE_I32, BF16 = DRM_GACCEL_DTYPE_BF16 };

/* --- random numbers --------------------------------------------------------- */

static uint64_t rs;

static uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t r64(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static uint32_t rn(uint32_t n)	/* 0 .. n-1 */
{
	return n ? (uint32_t)(r64() % n) : 0;
}

static int chance(int percent)
{
	return (int)rn(100) < percent;
}

static float rf(void)
{
	return (float)((r64() >> 40) & 0xffffff) / 8388608.0f - 1.0f;
}

static uint64_t interesting64(void)
{
	static const uint64_t v[] = {
		0, 1, 2, 3, 4, 31, 32, 33, 63, 64, 4095, 4096, 4097,
		0x7fffffffull, 0x80000000ull, 0xffffffffull, 0x100000000ull,
		1ull << 40, 1ull << 62, 0x7fffffffffffffffull, 0x8000000000000000ull,
		0xffffffffffffffffull, 0xfffffffffffff000ull, 0xffffffffffffffc0ull,
	};

	return chance(80) ? v[rn(sizeof(v) / sizeof(v[0]))] : r64() >> rn(64);
}

static uint32_t interesting32(void)
{
	static const uint32_t v[] = {
		0, 1, 2, 3, 7, 8, 15, 16, 17, 30, 31, 255, 256, 0x7fffffff, 0x80000000,
		0xfffffffe, 0xffffffff,
	};

	return chance(80) ? v[rn(sizeof(v) / sizeof(v[0]))] : (uint32_t)r64();
}

/* --- statistics ---------------------------------------------------------------- */

enum ioc { I_GRAPH, I_SUBMIT, I_WAIT, I_OTHER, I_JOB, I_COUNT };
static const char *const ioc_name[I_COUNT] = { "GRAPH_CREATE", "SUBMIT", "wait", "other",
					       "job errors" };
static unsigned long hist[I_COUNT][136];
static unsigned long unexpected, graphs_ok, graphs_refused, submits_ok, submits_refused;
static unsigned long jobs_failed, failed_total, reopens, iterations;
static int verbose;
static uint64_t cur_iter;

static void record(enum ioc which, int ret, const int *allowed, const char *what)
{
	int e = ret < 0 ? -ret : 0;

	hist[which][e < 135 ? e : 135]++;
	if (!ret)
		return;
	for (; *allowed; allowed++)
		if (*allowed == e)
			return;
	unexpected++;
	printf("# iteration %" PRIu64 ": %s returned %d (%s), not an allowed error\n",
	       cur_iter, what, ret, strerror(e));
}

static const int graph_errs[] = { EINVAL, E2BIG, EFAULT, ENOMEM, 0 };
static const int submit_errs[] = { EINVAL, ENOENT, EACCES, ECANCELED, E2BIG, EFAULT, ENOMEM, 0 };
static const int wait_errs[] = { 0 };	/* every job ends before WAIT_NS */
/* The same, when the jobs or syncs array was broken: the syncobj may have no fence. */
static const int wait_nofence_errs[] = { EINVAL, 0 };
static const int bo_errs[] = { EINVAL, ENOMEM, EFAULT, 0 };
/* Errors of jobs (queue last_error): bad indices, engine failures, timeouts. */
static const int job_errs[] = { EINVAL, EIO, ETIMEDOUT, ECANCELED, 0 };

/* --- programs -------------------------------------------------------------------- */

struct prog {
	struct drm_gaccel_slot s[MAXS];
	struct drm_gaccel_tensor t[MAXT];
	struct drm_gaccel_node n[MAXN];
	uint32_t ns, nt, nn;
};

static uint64_t bsize(uint32_t dt)
{
	return dt == Q8_0 || dt == Q4_0 ? 32 : 1;
}

static uint64_t tbytes(const struct drm_gaccel_tensor *t)
{
	uint64_t last = 0;

	for (int i = 0; i < 4; i++)
		last += (t->ne[i] / (i ? 1 : bsize(t->dtype)) - 1) * t->nb[i];
	return last + t->nb[0];
}

/* A contiguous tensor, in a new slot or after the tensors of an old one. */
static uint32_t tensor(struct prog *p, uint32_t dt, uint64_t ne0, uint64_t ne1, uint64_t ne2,
		       uint64_t ne3)
{
	struct drm_gaccel_tensor *t;
	uint32_t slot, i;

	if (p->nt >= MAXT)
		return rn(p->nt);
	if (p->ns && (p->ns >= MAXS || chance(20))) {
		slot = rn(p->ns);
	} else {
		slot = p->ns++;
		p->s[slot] = (struct drm_gaccel_slot){ 0 };
	}
	i = p->nt++;
	t = &p->t[i];
	*t = gaccel_tensor(slot, dt, (p->s[slot].size + 63) & ~63ull, ne0, ne1, ne2, ne3);
	/* Sometimes dims 0 and 1 stored transposed (plain dtypes): same bytes. */
	if (bsize(dt) == 1 && ne1 > 1 && chance(5)) {
		t->nb[1] = t->nb[0];
		t->nb[0] = t->nb[1] * ne1;
	}
	p->s[slot].size = t->offset + tbytes(t) + (chance(20) ? rn(256) : 0);
	return i;
}

static uint64_t dim(void)
{
	static const uint64_t d[] = { 1, 1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 33, 64 };

	return d[rn(sizeof(d) / sizeof(d[0]))];
}

static uint32_t float_dtype(void)
{
	static const uint32_t d[] = { F32, F32, F32, F16, BF16 };

	return d[rn(5)];
}

static void node(struct prog *p)
{
	struct drm_gaccel_node *n;
	uint32_t op = 1 + rn(GACCEL_TEST_NUM_OPS - 1), s0, s1 = GACCEL_NONE, s2 = GACCEL_NONE, d;
	uint64_t a = dim(), b = dim(), c = chance(70) ? 1 : dim(), e = chance(85) ? 1 : dim();

	if (p->nn >= MAXN)
		return;
	switch (op) {
	case DRM_GACCEL_OP_MUL_MAT: {
		static const uint32_t wd[] = { F32, F16, BF16, Q8_0, Q4_0 };
		uint32_t w = wd[rn(5)];
		uint64_t k = bsize(w) > 1 || chance(50) ? 32 * (1 + rn(4)) : dim();
		uint64_t m = dim(), nn = dim(), a2 = chance(70) ? 1 : 2, b2 = a2 * (chance(70) ? 1 : 2);

		s0 = tensor(p, w, k, m, a2, 1);
		s1 = tensor(p, F32, k, nn, b2, 1);
		d = tensor(p, F32, m, nn, b2, 1);
		break;
	}
	case DRM_GACCEL_OP_ADD:
	case DRM_GACCEL_OP_MUL:
		s0 = tensor(p, F32, a, b, c, e);
		s1 = tensor(p, F32, chance(50) ? a : 1, chance(50) ? b : 1, chance(50) ? c : 1, e);
		d = chance(20) ? s0 : tensor(p, F32, a, b, c, e);
		break;
	case DRM_GACCEL_OP_SOFT_MAX:
		s0 = tensor(p, F32, a, b, c, e);
		if (chance(50))
			s1 = tensor(p, chance(50) ? F32 : F16, a, b + rn(3), 1, 1);
		d = tensor(p, F32, a, b, c, e);
		break;
	case DRM_GACCEL_OP_ROPE: {
		uint64_t hd = 2 * (1 + rn(16)), toks = dim();

		s0 = tensor(p, F32, hd, b, toks, 1);
		s1 = tensor(p, I32, toks, 1, 1, 1);
		if (chance(20))
			s2 = tensor(p, F32, hd / 2, 1, 1, 1);
		d = tensor(p, F32, hd, b, toks, 1);
		break;
	}
	case DRM_GACCEL_OP_GET_ROWS: {
		uint32_t sd = chance(90) ? float_dtype() : Q8_0;
		uint64_t ne0 = sd == Q8_0 ? 32 * (1 + rn(3)) : a, idx = dim();

		s0 = tensor(p, sd, ne0, b, c, 1);
		s1 = tensor(p, I32, idx, c, 1, 1);
		d = tensor(p, F32, ne0, idx, c, 1);
		break;
	}
	case DRM_GACCEL_OP_SET_ROWS: {
		uint64_t idx = dim();

		s0 = tensor(p, F32, a, idx, 1, 1);
		s1 = tensor(p, I32, idx, 1, 1, 1);
		d = tensor(p, float_dtype(), a, b, 1, 1);
		break;
	}
	case DRM_GACCEL_OP_CPY:
		s0 = tensor(p, float_dtype(), a, b, c, e);
		d = chance(50) ? tensor(p, float_dtype(), a * b, c, e, 1) :
				 tensor(p, float_dtype(), a, b, c, e);
		break;
	case DRM_GACCEL_OP_SWIGLU:
	case DRM_GACCEL_OP_GEGLU:
		if (chance(50)) {
			s0 = tensor(p, F32, 2 * a, b, c, 1);
		} else {
			s0 = tensor(p, F32, a, b, c, 1);
			s1 = tensor(p, F32, a, b, c, 1);
		}
		d = tensor(p, F32, a, b, c, 1);
		break;
	default:	/* SCALE, RMS_NORM, NORM, SILU, GELU */
		s0 = tensor(p, F32, a, b, c, e);
		d = chance(20) ? s0 : tensor(p, F32, a, b, c, e);
		break;
	}
	/* Sometimes chain: read the destination of an earlier node. */
	if (p->nn && chance(15)) {
		uint32_t prev = p->n[p->nn - 1].dst;

		if (p->t[prev].dtype == p->t[s0].dtype &&
		    !memcmp(p->t[prev].ne, p->t[s0].ne, sizeof(p->t[s0].ne)))
			s0 = prev;
	}
	n = &p->n[p->nn++];
	*n = gaccel_node(op, d, s0, s1, s2);
	switch (op) {
	case DRM_GACCEL_OP_SCALE:
		n->params[0] = gaccel_fbits(rf() * 4);
		n->params[1] = gaccel_fbits(rf());
		break;
	case DRM_GACCEL_OP_RMS_NORM:
	case DRM_GACCEL_OP_NORM:
		n->params[0] = gaccel_fbits(1e-5f);
		break;
	case DRM_GACCEL_OP_SOFT_MAX:
		n->params[0] = gaccel_fbits(0.125f);
		break;
	case DRM_GACCEL_OP_ROPE:
		n->params[1] = (int32_t)(2 * (1 + rn((uint32_t)p->t[s0].ne[0] / 2)));
		n->params[2] = chance(50) ? 0 : 2;
		n->params[4] = 4096;
		n->params[5] = gaccel_fbits(10000.0f);
		n->params[6] = gaccel_fbits(1.0f);
		n->params[7] = gaccel_fbits(chance(80) ? 0.0f : 1.0f);
		n->params[8] = gaccel_fbits(1.0f);
		n->params[9] = gaccel_fbits(32.0f);
		n->params[10] = gaccel_fbits(1.0f);
		break;
	default:
		break;
	}
}

/* Break one thing of the program. */
static void mutate(struct prog *p)
{
	struct drm_gaccel_tensor *t = &p->t[rn(p->nt)];
	struct drm_gaccel_node *n = &p->n[rn(p->nn)];
	struct drm_gaccel_slot *s = &p->s[rn(p->ns)];

	switch (rn(14)) {
	case 0: t->dtype = chance(50) ? rn(40) : interesting32(); break;
	case 1: t->ne[rn(4)] = interesting64(); break;
	case 2: t->nb[rn(4)] = interesting64(); break;
	case 3: t->offset = chance(50) ? p->s[t->slot % MAXS].size - rn(8) + rn(8) : interesting64(); break;
	case 4: t->slot = chance(50) ? p->ns + rn(2) : interesting32(); break;
	case 5: {	/* ne * nb that overflows 64 bits */
		int i = 1 + rn(3);

		t->ne[i] = 1ull << (33 + rn(31));
		t->nb[i] = 1ull << (31 + rn(33));
		break;
	}
	case 6: n->op = chance(50) ? rn(GACCEL_TEST_NUM_OPS + 4) : interesting32(); break;
	case 7: n->src[rn(4)] = chance(50) ? p->nt + rn(2) : interesting32(); break;
	case 8: n->dst = chance(50) ? p->nt : interesting32(); break;
	case 9: n->params[rn(16)] = (int32_t)interesting32(); break;
	case 10: if (chance(50)) n->flags = 1u << rn(32); else n->pad = interesting32(); break;
	case 11: s->size = chance(50) ? s->size - 1 - rn(64) : interesting64(); break;
	case 12: if (chance(50)) s->flags = 1u << rn(32); else s->pad = 1 + rn(100); break;
	default:	/* a node reading a tensor of another node's shape */
		n->src[rn(2)] = rn(p->nt);
		break;
	}
}

/* --- arrays in user memory --------------------------------------------------------- */

/* Room for arrays, with a PROT_NONE page right after it. */
static uint8_t *arena;
static size_t arena_size = 1 << 20;

struct arr {
	struct drm_gaccel_array a;
	size_t used;
};

/* Returns 1 if the array was broken or its stride changed. */
static int pack(struct drm_gaccel_array *a, size_t *used, const void *elems, uint32_t esz,
		uint32_t count, int mangle)
{
	uint32_t stride = esz;
	int tail = 0, changed = 0;
	uint8_t *dst;

	if (mangle && chance(30)) {
		switch (rn(5)) {
		case 0: stride = esz + 8 * (1 + rn(4)); break;		/* zero tail */
		case 1: stride = esz + 8 * (1 + rn(4)); tail = 1; break;	/* non-zero tail */
		case 2: stride = esz - 1 - rn(esz - 1); break;		/* too small */
		case 3: stride = esz + 1 + rn(7); break;		/* unaligned */
		default: stride = chance(50) ? 0 : interesting32(); break;
		}
		changed = 1;
	}
	if ((uint64_t)stride * count > arena_size / 4 || stride < 1) {
		a->stride = stride;
		a->count = count;
		a->pointer = (uintptr_t)arena;
		return 1;
	}
	dst = arena + *used;
	memset(dst, 0, (size_t)stride * count);
	for (uint32_t i = 0; i < count; i++) {
		memcpy(dst + (size_t)i * stride, (const uint8_t *)elems + (size_t)i * esz,
		       stride < esz ? stride : esz);
		if (tail && stride > esz)
			dst[(size_t)i * stride + esz + rn(stride - esz)] = 1 + rn(255);
	}
	a->stride = stride;
	a->count = count;
	a->pointer = (uintptr_t)dst;
	*used += ((size_t)stride * count + 63) & ~(size_t)63;

	if (mangle && chance(4)) {
		switch (rn(5)) {
		case 0: a->count = interesting32(); break;
		case 1: a->pointer = 0; break;
		case 2: a->pointer = 8; break;
		case 3:	/* the last element runs into the PROT_NONE page */
			a->pointer = (uintptr_t)(arena + arena_size - (size_t)stride * count + 1 + rn(stride));
			break;
		default: a->count = 0; break;
		}
		changed = 1;
	}
	return changed;
}

/* --- one iteration -------------------------------------------------------------------- */

struct bo {
	uint32_t handle;
	void *map;
	size_t map_size;
	int userptr;
};

static int fd;
static uint32_t queue;

static void new_queue(void)
{
	int ret = gaccel_queue_create(fd, &queue);

	if (ret) {
		printf("# QUEUE_CREATE: %d\n", ret);
		unexpected++;
	}
}

static void fill(void *map, size_t size, const struct prog *p, uint32_t slot)
{
	float *f = map;

	if (chance(15)) {
		uint8_t *b = map;

		for (size_t i = 0; i < size; i++)
			b[i] = (uint8_t)r64();
	} else {
		for (size_t i = 0; i < size / 4; i++)
			f[i] = rf();
	}
	/* Indices mostly in range (GET_ROWS and SET_ROWS check them at run time). */
	for (uint32_t i = 0; i < p->nt; i++) {
		const struct drm_gaccel_tensor *t = &p->t[i];

		if (t->slot != slot || t->dtype != I32 || t->offset >= size)
			continue;
		for (uint64_t j = 0; j < t->ne[0] && t->offset + 4 * j + 4 <= size; j++)
			((int32_t *)((uint8_t *)map + t->offset))[j] =
				chance(95) ? (int32_t)rn(8) : (int32_t)interesting32();
	}
}

/* An object for slot @i; returns its binding. */
static void make_bo(const struct prog *p, uint32_t i, struct bo *bo, struct drm_gaccel_binding *b,
		    int clean)
{
	uint64_t need = p->s[i].size ? p->s[i].size : 1;
	uint64_t size = need;
	int ret, kind = clean ? 40 + rn(60) : rn(100);

	memset(bo, 0, sizeof(*bo));
	*b = (struct drm_gaccel_binding){ .slot = i };
	if (need > MAX_SLOT_BYTES) {
		size = 4096;
		kind = 0;
	} else if (kind < 10) {
		size = need > 1 ? need / 2 : 1;		/* too small */
	} else if (kind < 20) {
		size = need + 4096 * rn(3);
		b->offset = chance(50) ? size - need + rn(2) * 64 : interesting64();
		b->size = chance(50) ? 0 : interesting64();
	}
	if (kind >= 20 && kind < 40) {
		/* userptr, read-only half of the time (refused for written slots) */
		size_t len = (size + 4095) & ~4095ull;
		uint32_t flags = chance(50) ? DRM_GACCEL_BO_READ_ONLY : 0;

		bo->map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (bo->map == MAP_FAILED) {
			bo->map = NULL;
			b->handle = 0;
			return;
		}
		bo->map_size = len;
		fill(bo->map, len, p, i);
		ret = gaccel_userptr(fd, bo->map, len, flags, &bo->handle);
		record(I_OTHER, ret, bo_errs, "BO_CREATE_USERPTR");
		bo->userptr = 1;
		b->handle = ret ? 0x7fff0000 : bo->handle;
		return;
	}
	ret = gaccel_bo_create(fd, size, 0, &bo->handle);
	record(I_OTHER, ret, bo_errs, "BO_CREATE");
	if (ret) {
		b->handle = 0x7fff0001;
		return;
	}
	b->handle = !clean && chance(3) ? bo->handle + 1000 : bo->handle;
	bo->map_size = (size + 4095) & ~4095ull;
	bo->map = gaccel_bo_mmap(fd, bo->handle, PROT_READ | PROT_WRITE);
	if (bo->map == MAP_FAILED) {
		bo->map = NULL;
		return;
	}
	fill(bo->map, size, p, i);
}

static void drop_bo(struct bo *bo)
{
	if (bo->handle)
		record(I_OTHER, gaccel_gem_close(fd, bo->handle), bo_errs, "GEM_CLOSE");
	if (bo->map)
		munmap(bo->map, bo->map_size);
	bo->handle = 0;
	bo->map = NULL;
}

static void submit_graph(const struct prog *p, uint32_t graph)
{
	struct drm_gaccel_binding b[MAXS + 2];
	struct bo bos[MAXS];
	struct drm_gaccel_sync syncs[3];
	struct drm_gaccel_job jobs[2];
	struct drm_gaccel_submit sub = { .queue = queue };
	uint32_t nb = p->ns, nsync = 1, so = 0, so2 = 0;
	size_t used = arena_size / 2;	/* the program used the first half */
	int ret, njobs = chance(15) ? 2 : 1, syncs_broken = 0, clean = chance(50);

	memset(bos, 0, sizeof(bos));
	if (clean && chance(25)) {
		/*
		 * One object for every slot, as ggml's allocator does: slots one
		 * after another, or (a third of the time) all at offset 0, so
		 * that written and read slots alias.
		 */
		int overlap = chance(33);
		uint64_t off = 0, total = 0;

		for (uint32_t i = 0; i < p->ns; i++) {
			uint64_t sz = (p->s[i].size + 255) & ~255ull;

			total = overlap ? (sz > total ? sz : total) : total + sz;
		}
		if (total && total <= MAX_SLOT_BYTES) {
			struct drm_gaccel_slot one = { .size = total };
			struct prog whole = { .ns = 1 };

			whole.s[0] = one;
			make_bo(&whole, 0, &bos[0], &b[0], 1);
			for (uint32_t i = 0; i < p->ns; i++) {
				b[i] = (struct drm_gaccel_binding){ .slot = i, .handle = b[0].handle,
								    .offset = overlap ? 0 : off };
				off += (p->s[i].size + 255) & ~255ull;
			}
			goto bound;
		}
	}
	for (uint32_t i = 0; i < p->ns; i++)
		make_bo(p, i, &bos[i], &b[i], clean);
bound:
	/* Binding-table breakage. */
	if (clean) {
		/* the bindings stay right */
	} else if (chance(5) && nb) {
		nb--;			/* a slot left unbound */
	} else if (chance(5)) {
		b[nb] = b[rn(nb)];	/* a slot bound twice */
		nb++;
	} else if (chance(3)) {
		b[rn(nb)].slot = interesting32();
	} else if (chance(3)) {
		b[rn(nb)].flags = 1;
	}
	record(I_OTHER, gaccel_syncobj_create(fd, &so), bo_errs, "SYNCOBJ_CREATE");
	syncs[0] = (struct drm_gaccel_sync){ .flags = DRM_GACCEL_SYNC_SIGNAL, .handle = so };
	if (chance(10)) {
		/* Wait on a syncobj already signalled, or (-EINVAL) without a fence. */
		struct drm_syncobj_create c = { .flags = clean || chance(50) ?
						DRM_SYNCOBJ_CREATE_SIGNALED : 0 };

		record(I_OTHER, gaccel_ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &c), bo_errs, "SYNCOBJ_CREATE");
		so2 = c.handle;
		syncs[nsync++] = (struct drm_gaccel_sync){ .handle = so2 };
	}
	if (!clean && chance(5))
		syncs[nsync++] = (struct drm_gaccel_sync){ .flags = (uint32_t)interesting32(),
							   .handle = so, .point = interesting64() };
	for (int j = 0; j < njobs; j++) {
		jobs[j] = (struct drm_gaccel_job){ .graph = graph };
		pack(&jobs[j].bindings, &used, b, sizeof(b[0]), nb, !clean);
		syncs_broken |= pack(&jobs[j].syncs, &used, syncs, sizeof(syncs[0]), nsync, !clean);
		if (!clean && chance(2))
			jobs[j].flags = 1;
		if (!clean && chance(2))
			jobs[j].graph = interesting32();
	}
	syncs_broken |= pack(&sub.jobs, &used, jobs, sizeof(jobs[0]), njobs, !clean);
	if (!clean && chance(2))
		sub.flags = 1;
	if (!clean && chance(2))
		sub.queue = interesting32();
	ret = gaccel_ioctl(fd, DRM_IOCTL_GACCEL_SUBMIT, &sub);
	record(I_SUBMIT, ret, submit_errs, "SUBMIT");
	if (ret) {
		submits_refused++;
	} else {
		submits_ok++;
		/* Drop things while the job may still run. */
		if (chance(20))
			record(I_OTHER, gaccel_graph_destroy(fd, graph), bo_errs, "GRAPH_DESTROY");
		if (chance(15))
			for (uint32_t i = 0; i < p->ns; i++)
				drop_bo(&bos[i]);
		/* Unmapping a userptr range leaves its pages pinned by the object. */
		for (uint32_t i = 0; i < p->ns; i++)
			if (bos[i].userptr && bos[i].map && chance(30)) {
				munmap(bos[i].map, bos[i].map_size);
				bos[i].map = NULL;
			}
		if (chance(10) && p->ns && bos[0].handle) {
			ret = gaccel_bo_wait(fd, bos[0].handle, WAIT_NS);
			record(I_WAIT, ret, wait_errs, "BO_WAIT");
		}
		ret = gaccel_syncobj_wait(fd, so, 0, WAIT_NS);
		record(I_WAIT, ret, syncs_broken ? wait_nofence_errs : wait_errs, "SYNCOBJ_WAIT");
	}
	{
		struct drm_gaccel_queue_get_state st;

		ret = gaccel_queue_state(fd, queue, &st);
		record(I_OTHER, ret, bo_errs, "QUEUE_GET_STATE");
		if (!ret && st.failed > jobs_failed)
			record(I_JOB, st.last_error, job_errs, "a job (queue last_error)");
		if (!ret)
			jobs_failed = st.failed;
		if (!ret && st.state & DRM_GACCEL_QUEUE_STATE_TIMEDOUT) {
			failed_total += jobs_failed;
			jobs_failed = 0;
			gaccel_queue_destroy(fd, queue);
			new_queue();
		}
	}
	for (uint32_t i = 0; i < p->ns; i++)
		drop_bo(&bos[i]);
	{
		struct drm_syncobj_destroy d = { .handle = so };

		gaccel_ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
		if (so2) {
			d.handle = so2;
			gaccel_ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
		}
	}
}

static void iteration(uint64_t seed, uint64_t i)
{
	struct prog p;
	struct drm_gaccel_graph_create gc = { 0 };
	size_t used = 0;
	int ret, nmut;

	cur_iter = i;
	rs = splitmix(seed ^ splitmix(i)) | 1;
	memset(&p, 0, sizeof(p));
	for (int k = 1 + rn(MAXN); k > 0; k--)
		node(&p);
	nmut = chance(45) ? 0 : 1 + rn(3);
	for (int k = 0; k < nmut; k++)
		mutate(&p);
	pack(&gc.slots, &used, p.s, sizeof(p.s[0]), p.ns, nmut > 0);
	pack(&gc.tensors, &used, p.t, sizeof(p.t[0]), p.nt, nmut > 0);
	pack(&gc.nodes, &used, p.n, sizeof(p.n[0]), p.nn, nmut > 0);
	if (nmut && chance(3))
		gc.flags = 1u << rn(32);
	ret = gaccel_ioctl(fd, DRM_IOCTL_GACCEL_GRAPH_CREATE, &gc);
	record(I_GRAPH, ret, graph_errs, "GRAPH_CREATE");
	if (verbose) {
		printf("# iteration %" PRIu64 ": %u slots %u tensors %u nodes, %d mutations: %d; ops",
		       i, p.ns, p.nt, p.nn, nmut, ret);
		for (uint32_t k = 0; k < p.nn; k++)
			printf(" %u", p.n[k].op);
		printf("\n");
	}
	if (ret) {
		graphs_refused++;
		return;
	}
	graphs_ok++;
	if (p.ns <= MAXS)
		submit_graph(&p, gc.handle);
	/* Destroyed twice sometimes: the second is -ENOENT (or -EINVAL). */
	gaccel_graph_destroy(fd, gc.handle);
}

static const char *ename(int e)
{
	switch (e) {
	case 0: return "ok";
	case EINVAL: return "EINVAL";
	case E2BIG: return "E2BIG";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	case ENOENT: return "ENOENT";
	case EACCES: return "EACCES";
	case ECANCELED: return "ECANCELED";
	case ETIME: return "ETIME";
	case EIO: return "EIO";
	case ETIMEDOUT: return "ETIMEDOUT";
	default: return NULL;
	}
}

int main(int argc, char **argv)
{
	const char *env;
	uint64_t seed = (uint64_t)time(NULL), only = UINT64_MAX, max_iter = UINT64_MAX;
	double seconds = 60, t0;
	struct timespec ts;
	int opt;

	if ((env = getenv("GACCEL_FUZZ_SEED")) && *env)
		seed = strtoull(env, NULL, 0);
	if ((env = getenv("GACCEL_FUZZ_SECONDS")) && *env)
		seconds = atof(env);
	while ((opt = getopt(argc, argv, "s:t:n:i:v")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 't': seconds = atof(optarg); break;
		case 'n': max_iter = strtoull(optarg, NULL, 0); break;
		case 'i': only = strtoull(optarg, NULL, 0); break;
		case 'v': verbose = 1; break;
		default:
			fprintf(stderr, "usage: graph_fuzz [-s seed] [-t seconds] [-n iterations] [-i iteration] [-v]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..1\n# graph_fuzz seed %" PRIu64 ", %.0f s\n", seed, seconds);

	arena = mmap(NULL, arena_size + 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED || mprotect(arena + arena_size, 4096, PROT_NONE)) {
		printf("not ok 1 - graph_fuzz: no memory\n");
		return 1;
	}
	fd = gaccel_open_device();
	if (fd < 0) {
		printf("not ok 1 - graph_fuzz: no gaccel device (%d)\n", fd);
		return 1;
	}
	new_queue();

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec + ts.tv_nsec * 1e-9;
	for (uint64_t i = only == UINT64_MAX ? 0 : only; i < max_iter; i++) {
		iteration(seed, i);
		iterations++;
		if (only != UINT64_MAX)
			break;
		/* Now and then the whole file goes, jobs in flight or not. */
		if (i % 97 == 96) {
			failed_total += jobs_failed;
			jobs_failed = 0;
			close(fd);
			fd = gaccel_open_device();
			if (fd < 0) {
				printf("# reopen failed: %d\n", fd);
				unexpected++;
				break;
			}
			new_queue();
			reopens++;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (ts.tv_sec + ts.tv_nsec * 1e-9 - t0 > seconds)
			break;
	}
	failed_total += jobs_failed;

	for (int w = 0; w < I_COUNT; w++) {
		char line[1024];
		size_t len = 0;

		for (int e = 0; e < 136; e++) {
			const char *n = ename(e);

			if (!hist[w][e])
				continue;
			if (n)
				len += snprintf(line + len, sizeof(line) - len, " %s=%lu", n, hist[w][e]);
			else
				len += snprintf(line + len, sizeof(line) - len, " errno%d=%lu", e, hist[w][e]);
			if (len >= sizeof(line))
				break;
		}
		if (len)
			printf("# %-13s%s\n", ioc_name[w], line);
	}
	printf("# iterations %lu: graphs accepted %lu, refused %lu; submits accepted %lu, refused %lu;"
	       " jobs failed at run time %lu; files reopened %lu\n", iterations, graphs_ok,
	       graphs_refused, submits_ok, submits_refused, failed_total, reopens);
	printf("%s 1 - graph_fuzz seed=%" PRIu64 " iterations=%lu accepted=%lu refused=%lu unexpected=%lu\n",
	       unexpected ? "not ok" : "ok", seed, iterations, graphs_ok, graphs_refused, unexpected);
	close(fd);
	return unexpected ? 1 : 0;
}
