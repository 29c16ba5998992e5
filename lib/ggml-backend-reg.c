/*
 * ggml-backend-reg.c - the backend registry: the built-in backends (CPU
 * last), devices, lookup by name and type, and dynamic loading of backend
 * libraries (libggml-<name>.so, libggml-<name>-<variant>.so).
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-backend-impl.h"
#include "ggml-impl.h"
#include "ggml-cpu.h"

// Built-in backends besides the CPU are compiled in with GGML_USE_<NAME>
// (LIB_CPPFLAGS in mk/lib.mk).
#ifdef GGML_USE_GACCEL
#    include "ggml-gaccel.h"
#    define GGML_REG_HAVE_GACCEL 1
#endif

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_REGS    64
#define MAX_DEVICES 256

struct reg_entry {
    ggml_backend_reg_t reg;
    void *             handle; // dlopen handle, NULL for built-in backends
};

static struct {
    struct reg_entry   regs[MAX_REGS];
    size_t             n_regs;
    ggml_backend_dev_t devices[MAX_DEVICES];
    size_t             n_devices;
    bool               initialized;
} registry;

static pthread_mutex_t registry_mutex = PTHREAD_MUTEX_INITIALIZER;

static void register_locked(ggml_backend_reg_t reg, void * handle);

static void registry_init_locked(void) {
    if (registry.initialized) {
        return;
    }
    registry.initialized = true;
    // built-in backends, in priority order; the CPU is always last
#ifdef GGML_REG_HAVE_GACCEL
    register_locked(ggml_backend_gaccel_reg(), NULL);
#endif
    register_locked(ggml_backend_cpu_reg(), NULL);
}

static void registry_init(void) {
    pthread_mutex_lock(&registry_mutex);
    registry_init_locked();
    pthread_mutex_unlock(&registry_mutex);
}

static void device_register_locked(ggml_backend_dev_t device) {
    for (size_t i = 0; i < registry.n_devices; i++) {
        if (registry.devices[i] == device) {
            return; // already known
        }
    }
    if (registry.n_devices == MAX_DEVICES) {
        GGML_LOG_ERROR("%s: too many devices (%d)\n", __func__, MAX_DEVICES);
        return;
    }
    registry.devices[registry.n_devices++] = device;
}

static void register_locked(ggml_backend_reg_t reg, void * handle) {
    if (reg == NULL) {
        return;
    }
    for (size_t i = 0; i < registry.n_regs; i++) {
        if (registry.regs[i].reg == reg) {
            return;
        }
    }
    if (registry.n_regs == MAX_REGS) {
        GGML_LOG_ERROR("%s: too many backends (%d)\n", __func__, MAX_REGS);
        return;
    }
    registry.regs[registry.n_regs].reg    = reg;
    registry.regs[registry.n_regs].handle = handle;
    registry.n_regs++;
    for (size_t i = 0; i < ggml_backend_reg_dev_count(reg); i++) {
        device_register_locked(ggml_backend_reg_dev_get(reg, i));
    }
}

void ggml_backend_register(ggml_backend_reg_t reg) {
    GGML_ASSERT(reg);
    pthread_mutex_lock(&registry_mutex);
    registry_init_locked();
    register_locked(reg, NULL);
    pthread_mutex_unlock(&registry_mutex);
}

void ggml_backend_device_register(ggml_backend_dev_t device) {
    GGML_ASSERT(device);
    pthread_mutex_lock(&registry_mutex);
    registry_init_locked();
    device_register_locked(device);
    pthread_mutex_unlock(&registry_mutex);
}

size_t ggml_backend_reg_count(void) {
    registry_init();
    return registry.n_regs;
}

ggml_backend_reg_t ggml_backend_reg_get(size_t index) {
    registry_init();
    if (index >= registry.n_regs) {
        GGML_LOG_ERROR("%s: index %zu out of range (%zu backends)\n", __func__, index, registry.n_regs);
        return NULL;
    }
    return registry.regs[index].reg;
}

ggml_backend_reg_t ggml_backend_reg_by_name(const char * name) {
    if (name == NULL) {
        return NULL;
    }
    registry_init();
    for (size_t i = 0; i < registry.n_regs; i++) {
        if (strcasecmp(ggml_backend_reg_name(registry.regs[i].reg), name) == 0) {
            return registry.regs[i].reg;
        }
    }
    return NULL;
}

size_t ggml_backend_dev_count(void) {
    registry_init();
    return registry.n_devices;
}

ggml_backend_dev_t ggml_backend_dev_get(size_t index) {
    registry_init();
    if (index >= registry.n_devices) {
        GGML_LOG_ERROR("%s: index %zu out of range (%zu devices)\n", __func__, index, registry.n_devices);
        return NULL;
    }
    return registry.devices[index];
}

ggml_backend_dev_t ggml_backend_dev_by_name(const char * name) {
    if (name == NULL) {
        return NULL;
    }
    registry_init();
    for (size_t i = 0; i < registry.n_devices; i++) {
        if (strcasecmp(ggml_backend_dev_name(registry.devices[i]), name) == 0) {
            return registry.devices[i];
        }
    }
    return NULL;
}

ggml_backend_dev_t ggml_backend_dev_by_type(enum ggml_backend_dev_type type) {
    registry_init();
    for (size_t i = 0; i < registry.n_devices; i++) {
        if (ggml_backend_dev_type(registry.devices[i]) == type) {
            return registry.devices[i];
        }
    }
    return NULL;
}

ggml_backend_t ggml_backend_init_by_name(const char * name, const char * params) {
    if (name == NULL) {
        GGML_LOG_ERROR("%s: NULL name\n", __func__);
        return NULL;
    }
    // "name:params"
    char buf[256];
    const char * colon = strchr(name, ':');
    if (colon != NULL) {
        size_t n = (size_t) (colon - name);
        if (n >= sizeof(buf)) {
            GGML_LOG_ERROR("%s: device name too long\n", __func__);
            return NULL;
        }
        memcpy(buf, name, n);
        buf[n] = '\0';
        if (params == NULL || *params == '\0') {
            params = colon + 1;
        }
        name = buf;
    }
    ggml_backend_dev_t dev = ggml_backend_dev_by_name(name);
    if (dev == NULL) {
        // a backend name with one device ("CPU") names that device too
        ggml_backend_reg_t reg = ggml_backend_reg_by_name(name);
        if (reg != NULL && ggml_backend_reg_dev_count(reg) > 0) {
            dev = ggml_backend_reg_dev_get(reg, 0);
        }
    }
    if (dev == NULL) {
        GGML_LOG_ERROR("%s: no device named '%s'\n", __func__, name);
        return NULL;
    }
    return ggml_backend_dev_init(dev, params);
}

ggml_backend_t ggml_backend_init_by_type(enum ggml_backend_dev_type type, const char * params) {
    ggml_backend_dev_t dev = ggml_backend_dev_by_type(type);
    if (dev == NULL) {
        return NULL;
    }
    return ggml_backend_dev_init(dev, params);
}

ggml_backend_t ggml_backend_init_best(void) {
    ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_GPU);
    if (dev == NULL) {
        dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_IGPU);
    }
    if (dev == NULL) {
        dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    }
    if (dev == NULL) {
        return NULL;
    }
    return ggml_backend_dev_init(dev, NULL);
}

//
// dynamic loading
//

// the score of a library: 0 when it cannot run here, 1 when it says nothing
static int library_score(void * handle) {
    ggml_backend_score_t score_fn = (ggml_backend_score_t) dlsym(handle, "ggml_backend_score");
    if (score_fn == NULL) {
        return 1;
    }
    return score_fn();
}

static ggml_backend_reg_t load_impl(const char * path, bool silent) {
    void * handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        if (!silent) {
            GGML_LOG_ERROR("%s: failed to load %s: %s\n", __func__, path, dlerror());
        }
        return NULL;
    }

    if (library_score(handle) == 0) {
        GGML_LOG_INFO("%s: backend %s is not supported on this system (score 0)\n", __func__, path);
        dlclose(handle);
        return NULL;
    }

    ggml_backend_init_t init_fn = (ggml_backend_init_t) dlsym(handle, "ggml_backend_init");
    if (init_fn == NULL) {
        GGML_LOG_ERROR("%s: %s is not a backend library (no ggml_backend_init)\n", __func__, path);
        dlclose(handle);
        return NULL;
    }

    ggml_backend_reg_t reg = init_fn();
    if (reg == NULL) {
        GGML_LOG_ERROR("%s: failed to initialize backend from %s\n", __func__, path);
        dlclose(handle);
        return NULL;
    }
    if (reg->api_version != GGML_BACKEND_API_VERSION) {
        GGML_LOG_ERROR("%s: backend %s has an incompatible API version %d (this library needs %d); not loaded\n",
                       __func__, path, reg->api_version, GGML_BACKEND_API_VERSION);
        dlclose(handle);
        return NULL;
    }

    pthread_mutex_lock(&registry_mutex);
    registry_init_locked();
    for (size_t i = 0; i < registry.n_regs; i++) {
        if (registry.regs[i].reg == reg) {
            // loaded twice: dlopen counted a reference, give it back
            pthread_mutex_unlock(&registry_mutex);
            dlclose(handle);
            return reg;
        }
    }
    register_locked(reg, handle);
    pthread_mutex_unlock(&registry_mutex);

    GGML_LOG_INFO("%s: loaded %s backend from %s\n", __func__, ggml_backend_reg_name(reg), path);
    return reg;
}

ggml_backend_reg_t ggml_backend_load(const char * path) {
    if (path == NULL) {
        GGML_LOG_ERROR("%s: NULL path\n", __func__);
        return NULL;
    }
    return load_impl(path, false);
}

void ggml_backend_unload(ggml_backend_reg_t reg) {
    if (reg == NULL) {
        return;
    }
    pthread_mutex_lock(&registry_mutex);
    size_t idx = SIZE_MAX;
    for (size_t i = 0; i < registry.n_regs; i++) {
        if (registry.regs[i].reg == reg) {
            idx = i;
            break;
        }
    }
    if (idx == SIZE_MAX) {
        pthread_mutex_unlock(&registry_mutex);
        GGML_LOG_ERROR("%s: backend not registered\n", __func__);
        return;
    }
    // drop its devices
    size_t n = 0;
    for (size_t i = 0; i < registry.n_devices; i++) {
        if (ggml_backend_dev_backend_reg(registry.devices[i]) != reg) {
            registry.devices[n++] = registry.devices[i];
        }
    }
    registry.n_devices = n;

    void * handle = registry.regs[idx].handle;
    memmove(&registry.regs[idx], &registry.regs[idx + 1], (registry.n_regs - idx - 1) * sizeof(registry.regs[0]));
    registry.n_regs--;
    pthread_mutex_unlock(&registry_mutex);

    if (handle != NULL) {
        dlclose(handle);
    }
}

// directory part of path into out ("" when none)
static void dir_of(const char * path, char * out, size_t out_size) {
    snprintf(out, out_size, "%s", path);
    char * slash = strrchr(out, '/');
    if (slash) {
        *slash = '\0';
    } else {
        out[0] = '\0';
    }
}

struct candidate {
    char  name[64];
    char  path[PATH_MAX];
    int   score;
    dev_t dev;
    ino_t ino;
};

// The files a directory scan never opens: the libraries of this ggml itself
// (an installed libggml-cpu.so may be a link to a library already loaded,
// a backend's directory may hold links to libggml.so) and those already
// seen under another name.
struct scan_state {
    struct candidate * cands;
    size_t             n_cands;
    struct stat        self[2]; // libggml (this file's library), libggml-base
    int                n_self;
    struct stat *      seen;
    size_t             n_seen;
};

// The name of a backend library "libggml-<name>[-<variant>].so", or its
// soname link "libggml-<name>.so.<N>", into name.
static bool library_name(const char * file, char * name, size_t name_size) {
    const char * prefix = "libggml-";
    size_t plen = strlen(prefix);
    if (strncmp(file, prefix, plen) != 0) {
        return false;
    }
    const char * start = file + plen;
    const char * so = strstr(start, ".so");
    if (so == NULL || so == start) {
        return false;
    }
    if (so[3] == '.') {
        // only one number after ".so": the soname link, not the real file
        const char * p = so + 4;
        if (*p == '\0' || strspn(p, "0123456789") != strlen(p)) {
            return false;
        }
    } else if (so[3] != '\0') {
        return false;
    }
    const char * end = so;
    const char * dash = memchr(start, '-', (size_t) (end - start));
    if (dash) {
        end = dash;
    }
    size_t n = (size_t) (end - start);
    if (n == 0 || n >= name_size) {
        return false;
    }
    memcpy(name, start, n);
    name[n] = '\0';
    // the core libraries are not backends
    if (strcmp(name, "backend") == 0 || strcmp(name, "base") == 0) {
        return false;
    }
    return true;
}

static bool same_file(const struct stat * a, const struct stat * b) {
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

// false when the file is one of this ggml's own libraries or already seen
static bool first_sight(struct scan_state * st, const char * path) {
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        return false;
    }
    for (int i = 0; i < st->n_self; i++) {
        if (same_file(&sb, &st->self[i])) {
            GGML_LOG_DEBUG("%s: %s is this ggml's own library, skipped\n", __func__, path);
            return false;
        }
    }
    for (size_t i = 0; i < st->n_seen; i++) {
        if (same_file(&sb, &st->seen[i])) {
            return false;
        }
    }
    struct stat * ns = (struct stat *) realloc(st->seen, (st->n_seen + 1) * sizeof(*ns));
    if (ns == NULL) {
        return false;
    }
    st->seen = ns;
    st->seen[st->n_seen++] = sb;
    return true;
}

static void scan_dir(const char * dir, struct scan_state * st) {
    DIR * d = opendir(dir[0] ? dir : ".");
    if (d == NULL) {
        return;
    }
    struct dirent * de;
    while ((de = readdir(d)) != NULL) {
        char name[64];
        if (!library_name(de->d_name, name, sizeof(name))) {
            continue;
        }
        // a backend already registered (the built-in CPU backend) is not
        // opened again under its file name
        if (ggml_backend_reg_by_name(name) != NULL) {
            continue;
        }
        char path[PATH_MAX];
        int len = snprintf(path, sizeof(path), "%s/%s", dir[0] ? dir : ".", de->d_name);
        if (len < 0 || (size_t) len >= sizeof(path)) {
            continue;
        }
        if (!first_sight(st, path)) {
            continue;
        }
        void * handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            GGML_LOG_DEBUG("%s: cannot open %s: %s\n", __func__, path, dlerror());
            continue;
        }
        bool is_backend = dlsym(handle, "ggml_backend_init") != NULL;
        int score = is_backend ? library_score(handle) : 0;
        dlclose(handle);
        if (!is_backend) {
            continue;
        }
        if (score <= 0) {
            GGML_LOG_INFO("%s: %s is not supported on this system (score 0)\n", __func__, path);
            continue;
        }
        // keep the best library of each name
        size_t i;
        for (i = 0; i < st->n_cands; i++) {
            if (strcmp(st->cands[i].name, name) == 0) {
                break;
            }
        }
        if (i == st->n_cands) {
            struct candidate * nc = (struct candidate *) realloc(st->cands, (st->n_cands + 1) * sizeof(*nc));
            if (nc == NULL) {
                break;
            }
            st->cands = nc;
            memset(&st->cands[i], 0, sizeof(st->cands[i]));
            snprintf(st->cands[i].name, sizeof(st->cands[i].name), "%s", name);
            st->n_cands++;
        } else if (st->cands[i].score >= score) {
            continue;
        }
        snprintf(st->cands[i].path, sizeof(st->cands[i].path), "%s", path);
        st->cands[i].score = score;
    }
    closedir(d);
}

// the file of the shared object that holds addr, when it is one
static void add_self(struct scan_state * st, void * addr, char * dir, size_t dir_size) {
    Dl_info info;
    if (dir) {
        dir[0] = '\0';
    }
    if (!dladdr(addr, &info) || info.dli_fname == NULL || info.dli_fname[0] == '\0') {
        return;
    }
    if (stat(info.dli_fname, &st->self[st->n_self]) == 0) {
        st->n_self++;
    }
    if (dir) {
        dir_of(info.dli_fname, dir, dir_size);
    }
}

// Where ggml_backend_load_all() looks, in this order:
//   $GGML_BACKEND_DIR     a directory (gaccel's addition)
//   the directory of libggml.so itself (dladdr): an installed tree, moved
//                         or not, finds the modules installed beside it
//   the executable's directory, as upstream's loader does
// then $GGML_BACKEND_PATH, one library file, as upstream's loader does.
// The current directory is not searched.
void ggml_backend_load_all_from_path(const char * dir_path) {
    struct scan_state st;
    memset(&st, 0, sizeof(st));
    char self_dir[PATH_MAX];
    add_self(&st, (void *) ggml_backend_load_all_from_path, self_dir, sizeof(self_dir));
    add_self(&st, (void *) ggml_backend_reg_name, NULL, 0);

    if (dir_path != NULL) {
        scan_dir(dir_path, &st);
    } else {
        const char * env_dir = getenv("GGML_BACKEND_DIR");
        if (env_dir && *env_dir) {
            scan_dir(env_dir, &st);
        }
        // a directory seen twice (the executable beside libggml.so, or
        // linked statically) adds nothing: its files are seen already
        if (self_dir[0] != '\0') {
            scan_dir(self_dir, &st);
        }
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (n > 0) {
            exe[n] = '\0';
            char dir[PATH_MAX];
            dir_of(exe, dir, sizeof(dir));
            scan_dir(dir, &st);
        }
    }

    for (size_t i = 0; i < st.n_cands; i++) {
        if (ggml_backend_reg_by_name(st.cands[i].name) != NULL) {
            GGML_LOG_DEBUG("%s: %s already registered, %s skipped\n", __func__, st.cands[i].name, st.cands[i].path);
            continue;
        }
        load_impl(st.cands[i].path, false);
    }
    free(st.cands);
    free(st.seen);

    // an out-of-tree backend named explicitly
    const char * backend_path = getenv("GGML_BACKEND_PATH");
    if (backend_path && *backend_path) {
        ggml_backend_load(backend_path);
    }
}

void ggml_backend_load_all(void) {
    ggml_backend_load_all_from_path(NULL);
}
