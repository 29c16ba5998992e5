/*
 * ggml-backend-meta.c - the meta device: tensor parallelism over several
 * devices ("simple" devices) behind one device, buffer type, buffer and
 * backend (ggml_backend_meta_device(), as upstream v0.21.0 declares it).
 *
 * Every tensor of a meta buffer is a set of tensors, one per simple device
 * ("slices"), described by a split state: split along axis 0..3 (device j
 * holds ne[j] consecutive indices of that axis, the devices in order),
 * MIRRORED (every device holds all values) or PARTIAL (every device holds a
 * partial sum; a graph node only). Tensors allocated outside a graph (the
 * weights, through ggml_backend_alloc_ctx_tensors_from_buft()) take the
 * state the user's callback gives; graph tensors derive theirs from their
 * sources, op by op (meta_derive()): an op whose sources are all mirrored
 * runs whole on every device, the ops of a transformer layer also on split
 * sources (element-wise, per-row, matrix products, reshapes and views,
 * RoPE, attention, row gathers and scatters). A product whose inner
 * dimension is split gives partial sums, which are added up before the
 * next node that reads them: the graph runs in segments
 * ending at such nodes, each segment on every simple backend at once (a
 * thread per device).
 *
 * A device may get an empty slice: its part of the nodes that read one is
 * not computed, and left out of the sums.
 *
 * A split state may have segments (fused weights: Q, K, V rows split each
 * on their own); views that take whole segments of it (Q out of QKV) are
 * split by those segments' cuts.
 *
 * The partial sums are added by the first simple device's registry's
 * ggml_backend_comm_* procedures when it has them, else through host
 * memory.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-backend.h"
#include "ggml-backend-impl.h"
#include "ggml-alloc.h"
#include "ggml-impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define META_MAX GGML_BACKEND_META_MAX_DEVICES

// where a meta tensor seems to live: an address nothing is mapped at, never
// dereferenced (the data are in the slices)
#define META_FAKE_BASE ((uintptr_t) 1 << 44)

#define META_SEG 16 // segments of a split state (as upstream's nr[16])

// Along a split axis the tensor is a run of pieces: segment s repeated
// nr[s] times, each repetition cut into ne[s][j] indices for device j;
// device j's slice is its cuts of every piece, in order.
struct meta_state {
    int      axis;  // 0..3, GGML_BACKEND_SPLIT_AXIS_MIRRORED or _PARTIAL
    int      n_seg; // >= 1
    uint32_t nr[META_SEG];
    int64_t  ne[META_SEG][META_MAX];
};

struct meta_dev {
    size_t                              n;
    ggml_backend_dev_t                  devs[META_MAX];
    ggml_backend_meta_get_split_state_t get_split_state;
    void *                              ud;
    char                                name[256];
    char                                desc[512];
    char                                buft_name[256];
    struct ggml_backend_device          dev;
    struct ggml_backend_buffer_type     buft;
};

// a meta tensor's slices
struct meta_entry {
    const struct ggml_tensor * key;
    bool                       stale;         // placed again: made anew on next use
    struct meta_state          st;
    bool                       off[META_MAX]; // nothing to compute on that device (empty slices)
    int64_t                    loc_off[META_MAX]; // a view: its start in the slice of the split axis viewed
    struct ggml_tensor         slice[META_MAX];
};

struct meta_buf {
    struct meta_dev *     md;
    ggml_backend_buffer_t bufs[META_MAX];
    bool                  dense; // slices at the meta tensor's offset in full-size buffers (graphs)
    struct meta_entry **  tab;   // open addressing by tensor address
    size_t                cap, cnt;
};

struct meta_backend {
    struct meta_dev * md;
    char              name[256];
    ggml_backend_t    be[META_MAX];
    // the first simple device's registry's reductions, when it has them
    void *                               comm;
    ggml_backend_comm_allreduce_tensor_t comm_allreduce;
    ggml_backend_comm_free_t             comm_free;
};

static bool is_split(int axis) {
    return axis >= 0 && axis < GGML_MAX_DIMS;
}

// ---------------------------------------------------------------------------
// the entry table of a buffer
// ---------------------------------------------------------------------------

static size_t slot_of(const struct meta_buf * mb, const struct ggml_tensor * t) {
    uintptr_t h = (uintptr_t) t;
    h ^= h >> 17;
    h *= 0x9e3779b97f4a7c15ull;
    return (size_t) (h >> 7) & (mb->cap - 1);
}

static struct meta_entry * entry_find(const struct meta_buf * mb, const struct ggml_tensor * t) {
    if (mb->cap == 0) {
        return NULL;
    }
    for (size_t i = slot_of(mb, t);; i = (i + 1) & (mb->cap - 1)) {
        if (mb->tab[i] == NULL) {
            return NULL;
        }
        if (mb->tab[i]->key == t) {
            return mb->tab[i];
        }
    }
}

static void entry_put(struct meta_buf * mb, struct meta_entry * e) {
    if (2 * (mb->cnt + 1) > mb->cap) {
        const size_t old_cap = mb->cap;
        struct meta_entry ** old = mb->tab;
        mb->cap = old_cap ? 2 * old_cap : 64;
        mb->tab = calloc(mb->cap, sizeof(*mb->tab));
        GGML_ASSERT(mb->tab != NULL);
        mb->cnt = 0;
        for (size_t i = 0; i < old_cap; i++) {
            if (old[i]) {
                entry_put(mb, old[i]);
            }
        }
        free(old);
    }
    size_t i = slot_of(mb, e->key);
    while (mb->tab[i] != NULL && mb->tab[i]->key != e->key) {
        i = (i + 1) & (mb->cap - 1);
    }
    if (mb->tab[i] != NULL) {
        free(mb->tab[i]);
    } else {
        mb->cnt++;
    }
    mb->tab[i] = e;
}

static void entries_clear(struct meta_buf * mb) {
    for (size_t i = 0; i < mb->cap; i++) {
        free(mb->tab[i]);
    }
    free(mb->tab);
    mb->tab = NULL;
    mb->cap = mb->cnt = 0;
}

// ---------------------------------------------------------------------------
// device and buffer type
// ---------------------------------------------------------------------------

static const struct ggml_backend_device_i meta_dev_i;
static const struct ggml_backend_buffer_type_i meta_buft_i;
static const struct ggml_backend_buffer_i meta_buffer_i;
static const struct ggml_backend_i meta_backend_i;

static bool dev_is_meta(ggml_backend_dev_t dev) {
    return dev != NULL && dev->iface.get_name == meta_dev_i.get_name;
}

bool ggml_backend_buft_is_meta(ggml_backend_buffer_type_t buft) {
    return buft != NULL && buft->iface.get_name == meta_buft_i.get_name;
}

bool ggml_backend_buffer_is_meta(ggml_backend_buffer_t buf) {
    return buf != NULL && buf->iface.free_buffer == meta_buffer_i.free_buffer;
}

bool ggml_backend_is_meta(ggml_backend_t backend) {
    return backend != NULL && backend->iface.get_name == meta_backend_i.get_name;
}

static const char * meta_dev_name(ggml_backend_dev_t dev) {
    return ((struct meta_dev *) dev->context)->name;
}

static const char * meta_dev_description(ggml_backend_dev_t dev) {
    return ((struct meta_dev *) dev->context)->desc;
}

static void meta_dev_memory(ggml_backend_dev_t dev, size_t * free_mem, size_t * total) {
    const struct meta_dev * md = dev->context;
    *free_mem = *total = 0;
    for (size_t j = 0; j < md->n; j++) {
        size_t f = 0, t = 0;
        ggml_backend_dev_memory(md->devs[j], &f, &t);
        *free_mem += f;
        *total += t;
    }
}

static enum ggml_backend_dev_type meta_dev_type(ggml_backend_dev_t dev) {
    (void) dev;
    return GGML_BACKEND_DEVICE_TYPE_META;
}

static void meta_dev_props(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props) {
    const struct meta_dev * md = dev->context;
    memset(props, 0, sizeof(*props));
    props->name = md->name;
    props->description = md->desc;
    props->type = GGML_BACKEND_DEVICE_TYPE_META;
    props->device_id = NULL;
    meta_dev_memory(dev, &props->memory_free, &props->memory_total);
    // async and mmap when every simple device has them; no host buffer,
    // buffers from host pointers or events of its own
    props->caps.async = true;
    props->caps.mmap_support = true;
    for (size_t j = 0; j < md->n; j++) {
        struct ggml_backend_dev_props p;
        ggml_backend_dev_get_props(md->devs[j], &p);
        props->caps.async = props->caps.async && p.caps.async;
        props->caps.mmap_support = props->caps.mmap_support && p.caps.mmap_support;
    }
}

static ggml_backend_t meta_dev_init_backend(ggml_backend_dev_t dev, const char * params);

static ggml_backend_buffer_type_t meta_dev_buffer_type(ggml_backend_dev_t dev) {
    return &((struct meta_dev *) dev->context)->buft;
}

// the simple devices' host buffer type when they share one
static ggml_backend_buffer_type_t meta_dev_host_buffer_type(ggml_backend_dev_t dev) {
    const struct meta_dev * md = dev->context;
    ggml_backend_buffer_type_t host = NULL;
    for (size_t j = 0; j < md->n; j++) {
        ggml_backend_buffer_type_t h = ggml_backend_dev_host_buffer_type(md->devs[j]);
        if (h == NULL || (host != NULL && h != host)) {
            return NULL;
        }
        host = h;
    }
    return host;
}

static bool meta_dev_supports_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    const struct meta_dev * md = dev->context;
    for (size_t j = 0; j < md->n; j++) {
        if (!ggml_backend_dev_supports_op(md->devs[j], op)) {
            return false;
        }
    }
    return true;
}

// a meta buffer type of the same simple devices
static bool meta_dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    if (!ggml_backend_buft_is_meta(buft)) {
        return false;
    }
    const struct meta_dev * a = dev->context, * b = buft->context;
    return a->n == b->n && memcmp(a->devs, b->devs, a->n * sizeof(a->devs[0])) == 0;
}

static const struct ggml_backend_device_i meta_dev_i = {
    /* .get_name             = */ meta_dev_name,
    /* .get_description      = */ meta_dev_description,
    /* .get_memory           = */ meta_dev_memory,
    /* .get_type             = */ meta_dev_type,
    /* .get_props            = */ meta_dev_props,
    /* .init_backend         = */ meta_dev_init_backend,
    /* .get_buffer_type      = */ meta_dev_buffer_type,
    /* .get_host_buffer_type = */ meta_dev_host_buffer_type,
    /* .buffer_from_host_ptr = */ NULL,
    /* .supports_op          = */ meta_dev_supports_op,
    /* .supports_buft        = */ meta_dev_supports_buft,
    /* .offload_op           = */ NULL,
    /* .event_new            = */ NULL,
    /* .event_free           = */ NULL,
    /* .event_synchronize    = */ NULL,
};

static ggml_backend_buffer_type_t simple_buft(const struct meta_dev * md, size_t j) {
    return ggml_backend_dev_buffer_type(md->devs[j]);
}

static const char * meta_buft_name(ggml_backend_buffer_type_t buft) {
    return ((struct meta_dev *) buft->context)->buft_name;
}

static struct meta_buf * meta_buf_new(struct meta_dev * md, bool dense) {
    struct meta_buf * mb = calloc(1, sizeof(*mb));
    GGML_ASSERT(mb != NULL);
    mb->md = md;
    mb->dense = dense;
    return mb;
}

static void meta_buf_free(struct meta_buf * mb) {
    entries_clear(mb);
    for (size_t j = 0; j < mb->md->n; j++) {
        if (mb->bufs[j]) {
            ggml_backend_buffer_free(mb->bufs[j]);
        }
    }
    free(mb);
}

// a buffer for a graph: one buffer of the full size on every simple device,
// each slice at its meta tensor's offset
static ggml_backend_buffer_t meta_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    struct meta_dev * md = buft->context;
    struct meta_buf * mb = meta_buf_new(md, true);
    for (size_t j = 0; j < md->n; j++) {
        mb->bufs[j] = ggml_backend_buft_alloc_buffer(simple_buft(md, j), size);
        if (mb->bufs[j] == NULL) {
            meta_buf_free(mb);
            return NULL;
        }
    }
    return ggml_backend_buffer_init(buft, meta_buffer_i, mb, size);
}

static size_t meta_buft_alignment(ggml_backend_buffer_type_t buft) {
    const struct meta_dev * md = buft->context;
    size_t a = 1;
    for (size_t j = 0; j < md->n; j++) {
        const size_t aj = ggml_backend_buft_get_alignment(simple_buft(md, j));
        GGML_ASSERT((a % aj == 0 || aj % a == 0) && "meta: alignments of the simple devices do not nest");
        a = aj > a ? aj : a;
    }
    return a;
}

static size_t meta_buft_max_size(ggml_backend_buffer_type_t buft) {
    const struct meta_dev * md = buft->context;
    size_t m = SIZE_MAX;
    for (size_t j = 0; j < md->n; j++) {
        const size_t mj = ggml_backend_buft_get_max_size(simple_buft(md, j));
        m = mj < m ? mj : m;
    }
    return m;
}

static size_t meta_buft_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor * t) {
    const struct meta_dev * md = buft->context;
    size_t m = 0;
    for (size_t j = 0; j < md->n; j++) {
        const size_t sj = ggml_backend_buft_get_alloc_size(simple_buft(md, j), t);
        m = sj > m ? sj : m;
    }
    return m;
}

// never host memory: a meta tensor's data pointer is not its data
static bool meta_buft_is_host(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return false;
}

static const struct ggml_backend_buffer_type_i meta_buft_i = {
    /* .get_name       = */ meta_buft_name,
    /* .alloc_buffer   = */ meta_buft_alloc_buffer,
    /* .get_alignment  = */ meta_buft_alignment,
    /* .get_max_size   = */ meta_buft_max_size,
    /* .get_alloc_size = */ meta_buft_alloc_size,
    /* .is_host        = */ meta_buft_is_host,
};

static void append(char * dst, size_t cap, const char * s) {
    const size_t n = strlen(dst);
    if (n + 1 < cap) {
        snprintf(dst + n, cap - n, "%s", s);
    }
}

ggml_backend_dev_t ggml_backend_meta_device(ggml_backend_dev_t * devs, size_t n_devs,
                                            ggml_backend_meta_get_split_state_t get_split_state,
                                            void * get_split_state_ud) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static struct meta_dev ** all;
    static size_t n_all;
    GGML_ASSERT(n_devs >= 1 && n_devs <= META_MAX && devs != NULL && get_split_state != NULL);
    for (size_t j = 0; j < n_devs; j++) {
        GGML_ASSERT(devs[j] != NULL && !dev_is_meta(devs[j]) && "meta: simple devices only");
    }
    pthread_mutex_lock(&lock);
    // one device per (devices, callback, user data), living as long as the process
    for (size_t i = 0; i < n_all; i++) {
        struct meta_dev * md = all[i];
        if (md->n == n_devs && md->get_split_state == get_split_state && md->ud == get_split_state_ud &&
            memcmp(md->devs, devs, n_devs * sizeof(devs[0])) == 0) {
            pthread_mutex_unlock(&lock);
            return &md->dev;
        }
    }
    struct meta_dev * md = calloc(1, sizeof(*md));
    struct meta_dev ** grown = realloc(all, (n_all + 1) * sizeof(*all));
    GGML_ASSERT(md != NULL && grown != NULL);
    all = grown;
    all[n_all++] = md;
    md->n = n_devs;
    memcpy(md->devs, devs, n_devs * sizeof(devs[0]));
    md->get_split_state = get_split_state;
    md->ud = get_split_state_ud;
    snprintf(md->name, sizeof(md->name), "Meta(");
    snprintf(md->desc, sizeof(md->desc), "Meta(");
    snprintf(md->buft_name, sizeof(md->buft_name), "Meta(");
    for (size_t j = 0; j < n_devs; j++) {
        append(md->name, sizeof(md->name), j ? "," : "");
        append(md->desc, sizeof(md->desc), j ? "," : "");
        append(md->buft_name, sizeof(md->buft_name), j ? "," : "");
        append(md->name, sizeof(md->name), ggml_backend_dev_name(devs[j]));
        append(md->desc, sizeof(md->desc), ggml_backend_dev_description(devs[j]));
        append(md->buft_name, sizeof(md->buft_name), ggml_backend_buft_name(ggml_backend_dev_buffer_type(devs[j])));
    }
    append(md->name, sizeof(md->name), ")");
    append(md->desc, sizeof(md->desc), ")");
    append(md->buft_name, sizeof(md->buft_name), ")");
    md->dev = (struct ggml_backend_device) { meta_dev_i, NULL, md };
    md->buft = (struct ggml_backend_buffer_type) { meta_buft_i, &md->dev, md };
    pthread_mutex_unlock(&lock);
    return &md->dev;
}

// ---------------------------------------------------------------------------
// split states
// ---------------------------------------------------------------------------

#define META_FAIL(...) do { GGML_LOG_ERROR("meta: " __VA_ARGS__); return false; } while (0)

static struct meta_state mirrored(void) {
    struct meta_state s;
    memset(&s, 0, sizeof(s));
    s.axis = GGML_BACKEND_SPLIT_AXIS_MIRRORED;
    s.n_seg = 1;
    s.nr[0] = 1;
    return s;
}

// device j's length along the split axis
static int64_t local_len(const struct meta_state * s, size_t j) {
    int64_t len = 0;
    for (int k = 0; k < s->n_seg; k++) {
        len += s->ne[k][j] * s->nr[k];
    }
    return len;
}

static bool segmented(const struct meta_state * s) {
    return s->n_seg > 1 || s->nr[0] > 1;
}

// the state a reader sees: partial sums are added up before anyone reads them
static struct meta_state as_read(struct meta_state s) {
    return s.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL ? mirrored() : s;
}

static bool same_state(const struct meta_state * a, const struct meta_state * b, size_t n) {
    if (a->axis != b->axis) {
        return false;
    }
    if (!is_split(a->axis)) {
        return true;
    }
    if (a->n_seg != b->n_seg) {
        return false;
    }
    for (int k = 0; k < a->n_seg; k++) {
        if (a->nr[k] != b->nr[k] || memcmp(a->ne[k], b->ne[k], n * sizeof(a->ne[k][0])) != 0) {
            return false;
        }
    }
    return true;
}

// the slices' lengths scaled: ne_out[j] = ne_in[j] * num / den, exact
static bool scale_state(struct meta_state * s, size_t n, int64_t num, int64_t den) {
    for (int k = 0; k < s->n_seg; k++) {
        for (size_t j = 0; j < n; j++) {
            if (den == 0 || (s->ne[k][j] * num) % den != 0) {
                return false;
            }
            s->ne[k][j] = s->ne[k][j] * num / den;
        }
    }
    return true;
}

// A contiguous tensor reshaped (same elements, same order): src split
// along a into chunks c_j runs, for every index of the axes above a, as
// runs of c_j * P elements (P the product of the axes below a). The result
// is split along the axis b whose lower axes' product Q divides every run
// and whose own axis ends where a ends (product through b = ne[a] * P).
static bool reshape_state(const struct ggml_tensor * src, const struct meta_state * in, const struct ggml_tensor * dst,
                          size_t n, struct meta_state * out) {
    if (!is_split(in->axis)) {
        *out = *in;
        return true;
    }
    if (segmented(in)) {
        return false; // pieces of several segments would interleave
    }
    int64_t P = 1;
    for (int d = 0; d < in->axis; d++) {
        P *= src->ne[d];
    }
    const int64_t through = P * src->ne[in->axis];
    int64_t Q = 1;
    for (int b = 0; b < GGML_MAX_DIMS; b++) {
        if (Q * dst->ne[b] == through) {
            *out = *in;
            out->axis = b;
            return scale_state(out, n, P, Q);
        }
        Q *= dst->ne[b];
        if (Q > through) {
            break;
        }
    }
    return false;
}

// state of a tensor allocated outside graphs: the user's callback
static bool user_state(const struct meta_dev * md, const struct ggml_tensor * t, struct meta_state * out) {
    const struct ggml_backend_meta_split_state s = md->get_split_state(t, md->ud);
    *out = mirrored();
    if (s.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED || s.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL) {
        out->axis = s.axis;
        return true;
    }
    if (!is_split(s.axis)) {
        META_FAIL("tensor '%s': split axis %s is not a state\n", t->name, ggml_backend_meta_split_axis_name(s.axis));
    }
    if (s.n_segments < 1 || s.n_segments > META_SEG) {
        META_FAIL("tensor '%s': %u segments\n", t->name, s.n_segments);
    }
    out->axis = s.axis;
    out->n_seg = (int) s.n_segments;
    int64_t sum = 0;
    const int64_t gran = s.axis == 0 ? ggml_blck_size(t->type) : 1;
    for (int k = 0; k < out->n_seg; k++) {
        out->nr[k] = s.nr[k];
        if (s.nr[k] < 1) {
            META_FAIL("tensor '%s': segment %d repeats %u times\n", t->name, k, s.nr[k]);
        }
        for (size_t j = 0; j < md->n; j++) {
            const int64_t v = s.ne[k * md->n + j];
            out->ne[k][j] = v;
            if (v < 0 || v % gran != 0) {
                META_FAIL("tensor '%s': slice %zu of %lld along axis %d: not whole blocks of %s\n", t->name, j,
                          (long long) v, s.axis, ggml_type_name(t->type));
            }
            sum += v * s.nr[k];
        }
    }
    if (sum != t->ne[s.axis]) {
        META_FAIL("tensor '%s': slices add up to %lld, not %lld\n", t->name, (long long) sum, (long long) t->ne[s.axis]);
    }
    return true;
}

// all sources the same state (mirrored sources broadcasting along a split
// axis - size 1 there - allowed when bcast)
static bool generic_state(const struct ggml_tensor * t, const struct meta_state * ss, size_t n, bool bcast,
                          struct meta_state * out) {
    const struct meta_state * split = NULL;
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (t->src[i] && is_split(ss[i].axis)) {
            if (split && !same_state(split, &ss[i], n)) {
                return false;
            }
            split = &ss[i];
        }
    }
    if (split == NULL) {
        *out = mirrored();
        return true;
    }
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (t->src[i] && !is_split(ss[i].axis) && !(bcast && t->src[i]->ne[split->axis] == 1)) {
            return false;
        }
    }
    *out = *split;
    return true;
}

static bool mul_mat_state(const struct ggml_tensor * t, const struct meta_state * ss, size_t n, struct meta_state * out) {
    const int a0 = ss[0].axis, a1 = ss[1].axis;
    const struct ggml_tensor * s0 = t->src[0], * s1 = t->src[1];
    if (!is_split(a0) && !is_split(a1)) {
        *out = mirrored();
        return true;
    }
    if (a0 == 1 && !is_split(a1)) { // rows of the weights: rows of the result
        *out = ss[0];
        out->axis = 0;
        return true;
    }
    if (a1 == 1 && !is_split(a0)) { // columns of the activations
        *out = ss[1];
        return true;
    }
    if (a0 == 0 && a1 == 0 && same_state(&ss[0], &ss[1], n)) { // the inner dimension: partial sums
        *out = mirrored();
        out->axis = GGML_BACKEND_SPLIT_AXIS_PARTIAL;
        return true;
    }
    // batches (heads) split alike on both, src0 broadcast by a whole ratio
    if ((a0 == 2 || a0 == 3) && a1 == a0) {
        struct meta_state s = ss[0];
        if (scale_state(&s, n, s1->ne[a0], s0->ne[a0]) && same_state(&s, &ss[1], n)) {
            *out = ss[1];
            return true;
        }
    }
    return false;
}

// view offsets and strides of a (non-permuted) source as indices of its axes
static bool decompose(const struct ggml_tensor * src, size_t off, int64_t idx[GGML_MAX_DIMS]) {
    int order[GGML_MAX_DIMS] = { 0, 1, 2, 3 };
    for (int i = 0; i < GGML_MAX_DIMS; i++) { // by decreasing stride
        for (int k = i + 1; k < GGML_MAX_DIMS; k++) {
            if (src->nb[order[k]] > src->nb[order[i]]) {
                const int tmp = order[i];
                order[i] = order[k];
                order[k] = tmp;
            }
        }
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        const int d = order[i];
        idx[d] = 0;
        if (src->ne[d] > 1) { // an axis of one index takes no step
            idx[d] = (int64_t) (off / src->nb[d]);
            off -= (size_t) idx[d] * src->nb[d];
        }
    }
    return off == 0;
}

static size_t recompose(const struct ggml_tensor * slice, const int64_t idx[GGML_MAX_DIMS]) {
    size_t off = 0;
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        off += (size_t) idx[d] * slice->nb[d];
    }
    return off;
}

// ---------------------------------------------------------------------------
// entries: a meta tensor's state and slices
// ---------------------------------------------------------------------------

static struct meta_entry * meta_get(const struct ggml_tensor * t);

static ggml_backend_buffer_t buf_of(const struct ggml_tensor * t) {
    return t->view_src ? t->view_src->buffer : t->buffer;
}

// layout of a slice of a tensor allocated contiguously: local ne, dense nb
static void dense_layout(struct ggml_tensor * s) {
    s->nb[0] = ggml_type_size(s->type);
    s->nb[1] = s->nb[0] * (s->ne[0] / ggml_blck_size(s->type));
    for (int d = 2; d < GGML_MAX_DIMS; d++) {
        s->nb[d] = s->nb[d - 1] * s->ne[d - 1];
    }
}

static bool is_view_op(enum ggml_op op) {
    return op == GGML_OP_VIEW || op == GGML_OP_RESHAPE || op == GGML_OP_PERMUTE || op == GGML_OP_TRANSPOSE;
}

// the state of t from its sources' and the slices' shapes and views
static bool derive(struct meta_buf * mb, const struct ggml_tensor * t, struct meta_entry * e) {
    const size_t n = mb->md->n;
    struct meta_state ss[GGML_MAX_SRC];
    const struct meta_entry * se[GGML_MAX_SRC] = { 0 };
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        ss[i] = mirrored();
        if (t->src[i] == NULL || t->src[i] == t) {
            continue;
        }
        if (!ggml_backend_buffer_is_meta(buf_of(t->src[i]))) {
            META_FAIL("node '%s' (%s): source '%s' is not in a meta buffer\n", t->name, ggml_op_desc(t), t->src[i]->name);
        }
        se[i] = meta_get(t->src[i]);
        if (se[i] == NULL) {
            return false;
        }
        ss[i] = as_read(se[i]->st);
    }
    struct meta_state st = mirrored();
    bool ok = true;
    bool all_mirrored = true;
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        all_mirrored = all_mirrored && !is_split(ss[i].axis);
    }
    const struct ggml_tensor * s0 = t->src[0];
    if (t->view_src == NULL && t->op == GGML_OP_NONE) {
        st = mirrored(); // a graph input
    } else if (all_mirrored && !is_view_op(t->op) && t->op != GGML_OP_CPY && t->op != GGML_OP_SET_ROWS) {
        st = mirrored(); // any op, whole on every device
    } else {
        switch (t->op) {
            case GGML_OP_RESHAPE:
                ok = reshape_state(s0, &ss[0], t, n, &st);
                break;
            case GGML_OP_VIEW: {
                // offsets and strides are in the layout of the tensor viewed at the bottom
                const struct ggml_tensor * vs = t->view_src;
                const struct meta_entry * ve = meta_get(vs);
                const struct meta_state vst = ve ? as_read(ve->st) : mirrored();
                if (ve == NULL) {
                    ok = false;
                } else if (ggml_is_contiguous(t) && ggml_is_contiguous(s0) && t->view_offs == 0 && !segmented(&vst)) {
                    ok = reshape_state(s0, &ss[0], t, n, &st);
                } else if (!is_split(vst.axis)) {
                    st = vst;
                } else {
                    // Whole pieces of the split axis a (all of it, or whole
                    // segments), as one of the view's axes or as several
                    // (a head dimension and heads): the axes that step
                    // along a, by increasing step, must count in mixed
                    // radix (steps 1, ne, ne ne', ...) a run of whole
                    // pieces; the split goes to the outermost, in slices
                    // of the pieces' cuts / its step.
                    const int a = vst.axis;
                    int64_t off[GGML_MAX_DIMS], step[GGML_MAX_DIMS] = { 0 };
                    ok = decompose(vs, t->view_offs, off);
                    for (int d = 0; ok && d < GGML_MAX_DIMS; d++) {
                        int64_t idx[GGML_MAX_DIMS];
                        if (t->ne[d] > 1) {
                            ok = decompose(vs, t->nb[d], idx);
                            step[d] = idx[a];
                            for (int k = 0; ok && k < GGML_MAX_DIMS; k++) {
                                ok = k == a || idx[k] == 0 || idx[a] == 0;
                            }
                        }
                    }
                    int64_t covered = 1;
                    int outer = -1, n_along = 0, n_chain = 0;
                    for (int d = 0; d < GGML_MAX_DIMS; d++) {
                        n_along += step[d] != 0;
                    }
                    while (ok && n_chain < n_along) {
                        int next = -1;
                        for (int d = 0; d < GGML_MAX_DIMS; d++) {
                            if (step[d] == covered) {
                                ok = ok && next < 0;
                                next = d;
                            }
                        }
                        ok = ok && next >= 0;
                        if (ok) {
                            outer = next;
                            covered *= t->ne[next];
                            n_chain++;
                        }
                    }
                    ok = ok && outer >= 0;
                    // the pieces [off[a], off[a] + covered) covers, in order
                    int64_t pos = 0, before[META_MAX] = { 0 };
                    st = vst;
                    st.axis = outer;
                    st.n_seg = 0;
                    for (int k = 0; ok && k < vst.n_seg; k++) {
                        int64_t len = 0;
                        for (size_t j = 0; j < n; j++) {
                            len += vst.ne[k][j];
                        }
                        for (uint32_t r = 0; ok && r < vst.nr[k]; r++, pos += len) {
                            if (pos + len <= off[a]) {
                                for (size_t j = 0; j < n; j++) {
                                    before[j] += vst.ne[k][j];
                                }
                            } else if (pos >= off[a] && pos + len <= off[a] + covered) {
                                if (st.n_seg > 0 && memcmp(st.ne[st.n_seg - 1], vst.ne[k], sizeof(vst.ne[k])) == 0) {
                                    st.nr[st.n_seg - 1]++;
                                } else if (st.n_seg < META_SEG) {
                                    memcpy(st.ne[st.n_seg], vst.ne[k], sizeof(vst.ne[k]));
                                    st.nr[st.n_seg++] = 1;
                                } else {
                                    ok = false;
                                }
                            } else if (pos < off[a] + covered) {
                                ok = false; // a piece in part
                            }
                        }
                    }
                    ok = ok && st.n_seg > 0 && scale_state(&st, n, 1, step[outer]);
                    memcpy(e->loc_off, before, sizeof(before));
                }
                break;
            }
            case GGML_OP_PERMUTE:
                st = ss[0];
                if (is_split(st.axis)) {
                    st.axis = ggml_get_op_params_i32(t, st.axis);
                }
                break;
            case GGML_OP_TRANSPOSE:
                st = ss[0];
                if (st.axis == 0 || st.axis == 1) {
                    st.axis ^= 1;
                }
                break;
            case GGML_OP_CONT:
            case GGML_OP_DUP:
                ok = ggml_is_contiguous(t) && (ggml_are_same_shape(s0, t) ? (st = ss[0], true)
                                                                            : reshape_state(s0, &ss[0], t, n, &st));
                break;
            case GGML_OP_CPY: {
                // into src1, whose state rules; src0 must match it in flat order
                struct meta_state from;
                st = ss[1];
                ok = ggml_are_same_shape(s0, t->src[1]) ? (from = ss[0], true)
                                                         : reshape_state(s0, &ss[0], t->src[1], n, &from);
                ok = ok && same_state(&from, &st, n);
                break;
            }
            case GGML_OP_SET_ROWS: // rows src0 at indices src1 into src2, split along row elements (or not)
                st = ss[2];
                ok = st.axis != 1 && !is_split(ss[1].axis) && same_state(&ss[0], &ss[2], n);
                break;
            case GGML_OP_ADD: case GGML_OP_SUB: case GGML_OP_MUL: case GGML_OP_DIV: case GGML_OP_ADD1:
                ok = generic_state(t, ss, n, true, &st);
                break;
            case GGML_OP_SQR: case GGML_OP_SQRT: case GGML_OP_LOG: case GGML_OP_SIN: case GGML_OP_COS:
            case GGML_OP_SCALE: case GGML_OP_CLAMP: case GGML_OP_LEAKY_RELU: case GGML_OP_UNARY:
            case GGML_OP_FILL:
                ok = generic_state(t, ss, n, false, &st);
                break;
            case GGML_OP_GLU: // a fused GLU halves axis 0
                ok = generic_state(t, ss, n, false, &st) && !(st.axis == 0 && t->src[1] == NULL);
                break;
            case GGML_OP_NORM: case GGML_OP_RMS_NORM: case GGML_OP_L2_NORM: case GGML_OP_SUM_ROWS:
            case GGML_OP_MEAN: case GGML_OP_ARGSORT: case GGML_OP_ARGMAX: case GGML_OP_SOFT_MAX:
            case GGML_OP_CUMSUM:
                // rows whole on each device; a mask or sinks broadcast
                ok = ss[0].axis != 0 && generic_state(t, ss, n, true, &st) &&
                     (t->op != GGML_OP_ARGMAX || !is_split(st.axis) || st.axis == 1);
                if (ok && (t->op == GGML_OP_ARGMAX || t->op == GGML_OP_SUM_ROWS || t->op == GGML_OP_MEAN)) {
                    ok = st.axis != 0;
                }
                break;
            case GGML_OP_ROPE: // pairs within a row: not split along axis 0; positions whole
                st = ss[0];
                ok = st.axis != 0 && !is_split(ss[1].axis) && (t->src[2] == NULL || !is_split(ss[2].axis));
                break;
            case GGML_OP_GET_ROWS: // the row elements split, the indices whole
                st = ss[0];
                ok = (st.axis == 0 || !is_split(st.axis)) && !is_split(ss[1].axis);
                break;
            case GGML_OP_MUL_MAT:
                ok = mul_mat_state(t, ss, n, &st);
                break;
            case GGML_OP_CONCAT: {
                const int dim = ggml_get_op_params_i32(t, 0);
                ok = same_state(&ss[0], &ss[1], n) && ss[0].axis != dim;
                st = ss[0];
                break;
            }
            case GGML_OP_FLASH_ATTN_EXT: {
                // heads split alike (K/V by the GQA ratio); the result is [D, heads, queries]
                const struct ggml_tensor * q = t->src[0], * k = t->src[1];
                struct meta_state kq = ss[1];
                ok = ss[0].axis == 2 && ss[1].axis == 2 && same_state(&ss[1], &ss[2], n) &&
                     scale_state(&kq, n, q->ne[2], k->ne[2]) && same_state(&kq, &ss[0], n) &&
                     (t->src[3] == NULL || !is_split(ss[3].axis)) && (t->src[4] == NULL || ss[4].axis == 0);
                if (ok && t->src[4]) { // sinks: one per head
                    struct meta_state sk = ss[4];
                    sk.axis = 2;
                    ok = same_state(&sk, &ss[0], n);
                }
                st = ss[0];
                st.axis = 1;
                break;
            }
            default:
                ok = false;
                break;
        }
    }
    if (!ok) {
        char why[256] = "";
        for (int i = 0; i < GGML_MAX_SRC; i++) {
            if (t->src[i] && t->src[i] != t) {
                char one[64];
                snprintf(one, sizeof(one), " %s", ggml_backend_meta_split_axis_name(ss[i].axis));
                append(why, sizeof(why), one);
            }
        }
        META_FAIL("node '%s' (%s): sources split as%s are not supported\n", t->name, ggml_op_desc(t), why);
    }
    e->st = st;
    return true;
}

// the slices of t on device j, its state known
static bool make_slices(struct meta_buf * mb, const struct ggml_tensor * t, struct meta_entry * e) {
    const size_t n = mb->md->n;
    const struct meta_entry * vse = t->view_src ? meta_get(t->view_src) : NULL;
    if (t->view_src && vse == NULL) {
        return false;
    }
    for (size_t j = 0; j < n; j++) {
        struct ggml_tensor * s = &e->slice[j];
        memset(s, 0, sizeof(*s));
        s->type = t->type;
        s->op = t->op;
        s->flags = t->flags;
        memcpy(s->op_params, t->op_params, sizeof(t->op_params));
        memcpy(s->name, t->name, sizeof(s->name));
        memcpy(s->ne, t->ne, sizeof(s->ne));
        if (is_split(e->st.axis)) {
            s->ne[e->st.axis] = local_len(&e->st, j);
        }
        // an empty slice, or one of a source: nothing to compute here (a
        // partial sum over an empty slice is left out of the sum)
        e->off[j] = is_split(e->st.axis) && local_len(&e->st, j) == 0;
        for (int i = 0; i < GGML_MAX_SRC; i++) {
            if (t->src[i] == t) {
                s->src[i] = s;
            } else if (t->src[i]) {
                const struct meta_entry * se = meta_get(t->src[i]);
                s->src[i] = (struct ggml_tensor *) &se->slice[j];
                e->off[j] = e->off[j] || (is_split(se->st.axis) && local_len(&se->st, j) == 0);
            }
        }
        if (t->view_src == NULL) {
            dense_layout(s);
            s->buffer = mb->bufs[j];
            if (mb->dense) {
                s->data = (char *) ggml_backend_buffer_get_base(mb->bufs[j]) + ((uintptr_t) t->data - META_FAKE_BASE);
            }
            continue;
        }
        // a view of the source's slice
        const struct ggml_tensor * vs = &vse->slice[j];
        s->view_src = (struct ggml_tensor *) vs;
        s->buffer = vs->buffer;
        size_t offs = 0;
        const bool same_as_src = t->src[0] == t->view_src && ggml_are_same_shape(t, t->view_src) &&
                                 memcmp(t->nb, t->view_src->nb, sizeof(t->nb)) == 0 && t->view_offs == 0;
        if (same_as_src || t->op == GGML_OP_CPY || t->op == GGML_OP_SET_ROWS) {
            memcpy(s->nb, vs->nb, sizeof(s->nb)); // the source itself, written by the op
            memcpy(s->ne, vs->ne, sizeof(s->ne));
        } else if (t->op == GGML_OP_PERMUTE) {
            for (int d = 0; d < GGML_MAX_DIMS; d++) {
                const int to = ggml_get_op_params_i32(t, d);
                s->ne[to] = s->src[0]->ne[d];
                s->nb[to] = s->src[0]->nb[d];
            }
            offs = s->src[0]->view_src ? (size_t) ((char *) s->src[0]->data - (char *) vs->data) : 0;
        } else if (t->op == GGML_OP_TRANSPOSE) {
            memcpy(s->nb, s->src[0]->nb, sizeof(s->nb));
            memcpy(s->ne, s->src[0]->ne, sizeof(s->ne));
            s->ne[0] = s->src[0]->ne[1];
            s->ne[1] = s->src[0]->ne[0];
            s->nb[0] = s->src[0]->nb[1];
            s->nb[1] = s->src[0]->nb[0];
            offs = s->src[0]->view_src ? (size_t) ((char *) s->src[0]->data - (char *) vs->data) : 0;
        } else if (ggml_is_contiguous(t) && ggml_is_contiguous(t->view_src) && !segmented(&vse->st) &&
                   (!is_split(e->st.axis) || t->view_offs == 0)) {
            // a reshape: the same elements in the same order
            dense_layout(s);
            offs = t->view_offs; // whole (mirrored) tensors only, or from the start
            if (is_split(vse->st.axis) && offs != 0) {
                GGML_LOG_ERROR("meta: view '%s' at an offset into split '%s'\n", t->name, t->view_src->name);
                return false;
            }
        } else {
            // a strided view: strides and offset through the source's axes
            int64_t idx[GGML_MAX_DIMS];
            if (!decompose(t->view_src, t->view_offs, idx)) {
                GGML_LOG_ERROR("meta: view '%s': offset not on an element of '%s'\n", t->name, t->view_src->name);
                return false;
            }
            if (is_split(vse->st.axis)) {
                idx[vse->st.axis] = e->loc_off[j]; // the run's start in this device's slice
            }
            offs = recompose(vs, idx);
            for (int d = 0; d < GGML_MAX_DIMS; d++) {
                if (t->ne[d] == 1) { // never stepped: dense after the axis below
                    s->nb[d] = d == 0 ? ggml_type_size(s->type) : s->nb[d - 1] * s->ne[d - 1];
                    continue;
                }
                if (!decompose(t->view_src, t->nb[d], idx)) {
                    GGML_LOG_ERROR("meta: view '%s': stride %d not a step of '%s'\n", t->name, d, t->view_src->name);
                    return false;
                }
                s->nb[d] = recompose(vs, idx);
            }
        }
        s->view_offs = offs;
        s->data = vs->data ? (char *) vs->data + offs : NULL;
    }
    return true;
}

static struct meta_entry * entry_create(struct meta_buf * mb, const struct ggml_tensor * t) {
    struct meta_entry * e = calloc(1, sizeof(*e));
    GGML_ASSERT(e != NULL);
    e->key = t;
    // graph tensors derive their state; others (weights, caches) ask the user
    const bool graph_tensor = ggml_backend_buffer_get_usage(buf_of(t)) == GGML_BACKEND_BUFFER_USAGE_COMPUTE ||
                              t->view_src != NULL;
    bool ok = graph_tensor && (t->op != GGML_OP_NONE || t->view_src) ? derive(mb, t, e)
              : graph_tensor                                          ? (e->st = mirrored(), true)
                                                                      : user_state(mb->md, t, &e->st);
    if (ok && is_split(e->st.axis) && !ggml_is_contiguous(t) && t->view_src == NULL) {
        GGML_LOG_ERROR("meta: split tensor '%s' is not contiguous\n", t->name);
        ok = false;
    }
    ok = ok && make_slices(mb, t, e);
    if (!ok) {
        free(e);
        return NULL;
    }
    entry_put(mb, e);
    return e;
}

// the entry of a meta tensor, made on first use
static struct meta_entry * meta_get(const struct ggml_tensor * t) {
    ggml_backend_buffer_t buf = buf_of(t);
    if (!ggml_backend_buffer_is_meta(buf)) {
        GGML_LOG_ERROR("meta: tensor '%s' is not in a meta buffer\n", t->name);
        return NULL;
    }
    struct meta_buf * mb = buf->context;
    struct meta_entry * e = entry_find(mb, t);
    return e && !e->stale ? e : entry_create(mb, t);
}

// ---------------------------------------------------------------------------
// buffer
// ---------------------------------------------------------------------------

static void meta_buffer_free(ggml_backend_buffer_t buffer) {
    meta_buf_free(buffer->context);
}

static void * meta_buffer_base(ggml_backend_buffer_t buffer) {
    (void) buffer;
    return (void *) META_FAKE_BASE;
}

// (re)made when placed: a graph's tensors take the addresses of earlier ones
static enum ggml_status meta_buffer_init_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor) {
    struct meta_buf * mb = buffer->context;
    struct meta_entry * e = entry_find(mb, tensor);
    if (e != NULL) {
        e->stale = true; // replaced (and freed) when made anew
    }
    // made now when its sources are placed, else on first use
    bool ready = true;
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        const struct ggml_tensor * s = tensor->src[i];
        ready = ready && (s == NULL || s == tensor || (s->data != NULL && buf_of(s) != NULL));
    }
    if (ready && meta_get(tensor) == NULL) {
        return GGML_STATUS_FAILED;
    }
    return GGML_STATUS_SUCCESS;
}

// Bytes of t (contiguous, split along a) come in slabs: for every index of
// the axes above a, the pieces along a one after the other, each piece
// the devices' cuts in order; device j's slab is its cuts of every piece.
static size_t axis_bytes(const struct ggml_tensor * t, int a, int64_t cnt) {
    return a == 0 ? ggml_row_size(t->type, cnt) : (size_t) cnt * t->nb[a];
}

static void slab_copy(const struct ggml_tensor * t, const struct meta_entry * e, size_t n, char * data, size_t offset,
                      size_t size, bool set) {
    const int a = e->st.axis;
    const size_t full = axis_bytes(t, a, t->ne[a]);
    size_t part[META_MAX], lo[META_MAX] = { 0 }, fo = 0;
    GGML_ASSERT(ggml_is_contiguous(t) && "meta: set/get of a split tensor that is not contiguous");
    GGML_ASSERT(offset % full == 0 && size % full == 0 && "meta: set/get of a split tensor in part of a slab");
    for (size_t j = 0; j < n; j++) {
        part[j] = axis_bytes(t, a, local_len(&e->st, j));
    }
    for (int k = 0; k < e->st.n_seg; k++) {
        for (uint32_t r = 0; r < e->st.nr[k]; r++) {
            for (size_t j = 0; j < n; j++) {
                const size_t b = axis_bytes(t, a, e->st.ne[k][j]);
                struct ggml_tensor * sl = (struct ggml_tensor *) &e->slice[j];
                if (set) {
                    ggml_backend_tensor_set_2d(sl, data + fo, offset / full * part[j] + lo[j], b, size / full, part[j],
                                               full);
                } else {
                    ggml_backend_tensor_get_2d(sl, data + fo, offset / full * part[j] + lo[j], b, size / full, part[j],
                                               full);
                }
                fo += b;
                lo[j] += b;
            }
        }
    }
    GGML_ASSERT(fo == full);
}

static void meta_buffer_set_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, const void * data,
                                   size_t offset, size_t size) {
    struct meta_buf * mb = buffer->context;
    const size_t n = mb->md->n;
    const struct meta_entry * e = meta_get(tensor);
    GGML_ASSERT(e != NULL && "meta: no slices for the tensor");
    if (!is_split(e->st.axis)) {
        for (size_t j = 0; j < n; j++) {
            ggml_backend_tensor_set((struct ggml_tensor *) &e->slice[j], data, offset, size);
        }
        return;
    }
    slab_copy(tensor, e, n, (char *) data, offset, size, true);
}

static void meta_buffer_get_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor, void * data,
                                   size_t offset, size_t size) {
    struct meta_buf * mb = buffer->context;
    const struct meta_entry * e = meta_get(tensor);
    GGML_ASSERT(e != NULL && "meta: no slices for the tensor");
    if (!is_split(e->st.axis)) {
        ggml_backend_tensor_get(&e->slice[0], data, offset, size);
        return;
    }
    slab_copy(tensor, e, mb->md->n, data, offset, size, false);
}

static void meta_buffer_memset_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, uint8_t value,
                                      size_t offset, size_t size) {
    struct meta_buf * mb = buffer->context;
    const struct meta_entry * e = meta_get(tensor);
    GGML_ASSERT(e != NULL && "meta: no slices for the tensor");
    GGML_ASSERT((!is_split(e->st.axis) || (offset == 0 && size == ggml_nbytes(tensor))) &&
                "meta: memset of part of a split tensor");
    for (size_t j = 0; j < mb->md->n; j++) {
        struct ggml_tensor * s = (struct ggml_tensor *) &e->slice[j];
        ggml_backend_tensor_memset(s, value, is_split(e->st.axis) ? 0 : offset,
                                   is_split(e->st.axis) ? ggml_nbytes(s) : size);
    }
}

static void meta_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    struct meta_buf * mb = buffer->context;
    for (size_t j = 0; j < mb->md->n; j++) {
        ggml_backend_buffer_clear(mb->bufs[j], value);
    }
}

static void meta_buffer_reset(ggml_backend_buffer_t buffer) {
    struct meta_buf * mb = buffer->context;
    if (mb->dense) {
        entries_clear(mb); // a graph's tensors are placed again
    }
    for (size_t j = 0; j < mb->md->n; j++) {
        ggml_backend_buffer_reset(mb->bufs[j]);
    }
}

static const struct ggml_backend_buffer_i meta_buffer_i = {
    /* .free_buffer   = */ meta_buffer_free,
    /* .get_base      = */ meta_buffer_base,
    /* .init_tensor   = */ meta_buffer_init_tensor,
    /* .memset_tensor = */ meta_buffer_memset_tensor,
    /* .set_tensor    = */ meta_buffer_set_tensor,
    /* .get_tensor    = */ meta_buffer_get_tensor,
    /* .set_tensor_2d = */ NULL,
    /* .get_tensor_2d = */ NULL,
    /* .cpy_tensor    = */ NULL,
    /* .clear         = */ meta_buffer_clear,
    /* .reset         = */ meta_buffer_reset,
};

// The tensors of ctx in a meta buffer: each device gets a buffer with its
// slices only (the memory is divided); called by
// ggml_backend_alloc_ctx_tensors_from_buft() for a meta buffer type.
struct ggml_backend_buffer * ggml_backend_meta_alloc_ctx_tensors_from_buft(struct ggml_context * ctx,
                                                                         ggml_backend_buffer_type_t buft) {
    struct meta_dev * md = buft->context;
    struct meta_buf * mb = meta_buf_new(md, false);
    const size_t align = meta_buft_alignment(buft);
    size_t total = 0, n_new = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        if (t->data == NULL && t->view_src == NULL) {
            total += GGML_PAD(meta_buft_alloc_size(buft, t), align);
            n_new++;
        }
    }
    if (n_new == 0) {
        free(mb);
        return NULL;
    }
    ggml_backend_buffer_t buf = ggml_backend_buffer_init(buft, meta_buffer_i, mb, total);
    // the states and slices first (the user's callback), then each device's buffer
    size_t off = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        if (t->data == NULL && t->view_src == NULL) {
            t->buffer = buf;
            t->data = (void *) (META_FAKE_BASE + off);
            off += GGML_PAD(meta_buft_alloc_size(buft, t), align);
            if (meta_get(t) == NULL) {
                ggml_backend_buffer_free(buf);
                return NULL;
            }
        }
    }
    for (size_t j = 0; j < md->n; j++) {
        ggml_backend_buffer_type_t sb = simple_buft(md, j);
        const size_t aj = ggml_backend_buft_get_alignment(sb);
        size_t size = 0;
        for (size_t i = 0; i < mb->cap; i++) {
            if (mb->tab[i]) {
                size += GGML_PAD(ggml_backend_buft_get_alloc_size(sb, &mb->tab[i]->slice[j]), aj);
            }
        }
        mb->bufs[j] = ggml_backend_buft_alloc_buffer(sb, size ? size : aj);
        if (mb->bufs[j] == NULL) {
            ggml_backend_buffer_free(buf);
            return NULL;
        }
        char * base = ggml_backend_buffer_get_base(mb->bufs[j]);
        size_t o = 0;
        for (size_t i = 0; i < mb->cap; i++) {
            if (mb->tab[i]) {
                struct ggml_tensor * s = &mb->tab[i]->slice[j];
                s->buffer = NULL;
                if (ggml_backend_tensor_alloc(mb->bufs[j], s, base + o) != GGML_STATUS_SUCCESS) {
                    ggml_backend_buffer_free(buf);
                    return NULL;
                }
                o += GGML_PAD(ggml_backend_buft_get_alloc_size(sb, s), aj);
            }
        }
    }
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        if (t->view_src != NULL && t->buffer == NULL && t->view_src->buffer == buf) {
            ggml_backend_view_init(t);
        }
    }
    return buf;
}

// ---------------------------------------------------------------------------
// backend
// ---------------------------------------------------------------------------

static const char * meta_backend_name(ggml_backend_t backend) {
    return ((struct meta_backend *) backend->context)->name;
}

static void meta_backend_free(ggml_backend_t backend) {
    struct meta_backend * mbe = backend->context;
    if (mbe->comm != NULL) {
        mbe->comm_free(mbe->comm);
    }
    for (size_t j = 0; j < mbe->md->n; j++) {
        ggml_backend_free(mbe->be[j]);
    }
    free(mbe);
    free(backend);
}

static void meta_backend_synchronize(ggml_backend_t backend) {
    struct meta_backend * mbe = backend->context;
    for (size_t j = 0; j < mbe->md->n; j++) {
        ggml_backend_synchronize(mbe->be[j]);
    }
}

// every device's partial sums of e added up, the sum on every device: by
// the simple devices' own reduction when their registry has one (the parts
// of devices with nothing to add zeroed first), else through host memory
static bool all_reduce(struct meta_backend * mbe, const struct meta_entry * e) {
    const size_t n = mbe->md->n;
    const struct ggml_tensor * s0 = &e->slice[0];
    if (mbe->comm != NULL) {
        struct ggml_tensor * ts[META_MAX];
        for (size_t j = 0; j < n; j++) {
            ts[j] = (struct ggml_tensor *) &e->slice[j];
            if (e->off[j]) {
                ggml_backend_tensor_memset(ts[j], 0, 0, ggml_nbytes(ts[j]));
            }
        }
        if (mbe->comm_allreduce(mbe->comm, ts)) {
            for (size_t j = 0; j < n; j++) {
                ggml_backend_synchronize(mbe->be[j]);
            }
            return true;
        }
    }
    if (s0->type != GGML_TYPE_F32 || !ggml_is_contiguous(s0)) {
        GGML_LOG_ERROR("meta: partial sums of '%s' are not contiguous F32\n", s0->name);
        return false;
    }
    const int64_t ne = ggml_nelements(s0);
    float * sum = calloc((size_t) ne, sizeof(float));
    float * tmp = malloc((size_t) ne * sizeof(float));
    GGML_ASSERT(sum != NULL && tmp != NULL);
    for (size_t j = 0; j < n; j++) {
        if (e->off[j]) {
            continue; // its part is empty
        }
        ggml_backend_tensor_get(&e->slice[j], tmp, 0, ggml_nbytes(s0));
        for (int64_t i = 0; i < ne; i++) {
            sum[i] += tmp[i];
        }
    }
    for (size_t j = 0; j < n; j++) {
        ggml_backend_tensor_set((struct ggml_tensor *) &e->slice[j], sum, 0, ggml_nbytes(s0));
    }
    free(sum);
    free(tmp);
    return true;
}

// one device's part of a segment, on a thread of its own
struct meta_job {
    ggml_backend_t       be;
    struct ggml_cgraph * g;
    enum ggml_status     st;
};

static void * meta_job_run(void * arg) {
    struct meta_job * job = arg;
    job->st = ggml_backend_graph_compute_async(job->be, job->g);
    return NULL;
}

static enum ggml_status meta_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    struct meta_backend * mbe = backend->context;
    const size_t n = mbe->md->n;
    const int n_nodes = ggml_graph_n_nodes(cgraph);
    if (n_nodes == 0) {
        return GGML_STATUS_SUCCESS;
    }
    struct meta_entry ** es = malloc((size_t) n_nodes * sizeof(*es));
    GGML_ASSERT(es != NULL);
    for (int i = 0; i < n_nodes; i++) {
        es[i] = meta_get(ggml_graph_node(cgraph, i));
        if (es[i] == NULL) {
            free(es);
            return GGML_STATUS_FAILED;
        }
    }
    const struct ggml_init_params ip = {
        /* .mem_size   = */ n * ggml_graph_overhead_custom((size_t) n_nodes, false) + 1024,
        /* .mem_buffer = */ NULL,
        /* .no_alloc   = */ true,
    };
    struct ggml_context * ctx = ggml_init(ip);
    struct ggml_cgraph * g[META_MAX];
    for (size_t j = 0; j < n; j++) {
        g[j] = ggml_new_graph_custom(ctx, (size_t) n_nodes, false);
    }
    enum ggml_status st = GGML_STATUS_SUCCESS;
    int start = 0;
    for (int i = 0; i < n_nodes && st == GGML_STATUS_SUCCESS; i++) {
        const bool partial = es[i]->st.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL;
        if (!partial && i + 1 < n_nodes) {
            continue;
        }
        // a segment: nodes start..i on every device at once (device 0 on
        // this thread, the others on threads of their own), then the sums
        struct meta_job jobs[META_MAX];
        pthread_t tid[META_MAX];
        bool started[META_MAX] = { false };
        for (size_t j = 0; j < n; j++) {
            g[j]->n_nodes = 0;
            for (int k = start; k <= i; k++) {
                ggml_graph_add_node(g[j], &es[k]->slice[j]);
                es[k]->slice[j].flags = ggml_graph_node(cgraph, k)->flags;
                if (es[k]->off[j]) {
                    es[k]->slice[j].flags &= ~GGML_TENSOR_FLAG_COMPUTE;
                }
            }
            jobs[j] = (struct meta_job) { mbe->be[j], g[j], GGML_STATUS_SUCCESS };
        }
        for (size_t j = 1; j < n; j++) {
            started[j] = pthread_create(&tid[j], NULL, meta_job_run, &jobs[j]) == 0;
        }
        meta_job_run(&jobs[0]);
        for (size_t j = 1; j < n; j++) {
            if (started[j]) {
                pthread_join(tid[j], NULL);
            } else {
                meta_job_run(&jobs[j]); // no thread: in turn
            }
        }
        for (size_t j = 0; j < n; j++) {
            st = st == GGML_STATUS_SUCCESS ? jobs[j].st : st;
        }
        meta_backend_synchronize(backend);
        if (st == GGML_STATUS_SUCCESS && partial && !all_reduce(mbe, es[i])) {
            st = GGML_STATUS_FAILED;
        }
        start = i + 1;
    }
    ggml_free(ctx);
    free(es);
    return st;
}

static const struct ggml_backend_i meta_backend_i = {
    /* .get_name            = */ meta_backend_name,
    /* .free                = */ meta_backend_free,
    /* .set_tensor_async    = */ NULL,
    /* .get_tensor_async    = */ NULL,
    /* .set_tensor_2d_async = */ NULL,
    /* .get_tensor_2d_async = */ NULL,
    /* .cpy_tensor_async    = */ NULL,
    /* .synchronize         = */ meta_backend_synchronize,
    /* .graph_plan_create   = */ NULL,
    /* .graph_plan_free     = */ NULL,
    /* .graph_plan_update   = */ NULL,
    /* .graph_plan_compute  = */ NULL,
    /* .graph_compute       = */ meta_backend_graph_compute,
    /* .event_record        = */ NULL,
    /* .event_wait          = */ NULL,
    /* .graph_optimize      = */ NULL,
};

static ggml_guid_t meta_guid(void) {
    static ggml_guid guid = { 0x6d, 0x65, 0x74, 0x61, 0x2d, 0x67, 0x61, 0x63, 0x63, 0x65, 0x6c, 0x2d, 0x74, 0x70, 0x00, 0x01 };
    return &guid;
}

static ggml_backend_t meta_dev_init_backend(ggml_backend_dev_t dev, const char * params) {
    struct meta_dev * md = dev->context;
    struct meta_backend * mbe = calloc(1, sizeof(*mbe));
    ggml_backend_t backend = calloc(1, sizeof(*backend));
    GGML_ASSERT(mbe != NULL && backend != NULL);
    mbe->md = md;
    snprintf(mbe->name, sizeof(mbe->name), "%s", md->name);
    for (size_t j = 0; j < md->n; j++) {
        mbe->be[j] = ggml_backend_dev_init(md->devs[j], params);
        if (mbe->be[j] == NULL) {
            for (size_t k = 0; k < j; k++) {
                ggml_backend_free(mbe->be[k]);
            }
            free(mbe);
            free(backend);
            return NULL;
        }
    }
    // reductions of the first simple device's registry (upstream's
    // ggml_backend_comm_* procedures), used when all three are there
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(md->devs[0]);
    if (md->n > 1 && reg != NULL) {
        ggml_backend_comm_init_t init =
            (ggml_backend_comm_init_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_comm_init");
        mbe->comm_allreduce = (ggml_backend_comm_allreduce_tensor_t) ggml_backend_reg_get_proc_address(
            reg, "ggml_backend_comm_allreduce_tensor");
        mbe->comm_free = (ggml_backend_comm_free_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_comm_free");
        if (init != NULL && mbe->comm_allreduce != NULL && mbe->comm_free != NULL) {
            mbe->comm = init(mbe->be, md->n);
        }
    }
    *backend = (struct ggml_backend) { meta_guid(), meta_backend_i, dev, mbe };
    return backend;
}

size_t ggml_backend_meta_n_backends(ggml_backend_t meta_backend) {
    GGML_ASSERT(ggml_backend_is_meta(meta_backend));
    return ((struct meta_backend *) meta_backend->context)->md->n;
}

ggml_backend_t ggml_backend_meta_simple_backend(ggml_backend_t meta_backend, size_t index) {
    GGML_ASSERT(ggml_backend_is_meta(meta_backend));
    struct meta_backend * mbe = meta_backend->context;
    GGML_ASSERT(index < mbe->md->n);
    return mbe->be[index];
}
