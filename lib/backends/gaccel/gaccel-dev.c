/*
 * gaccel-dev.c - finding gaccel nodes, and the thin ioctl layer.
 *
 * libdrm enumerates only /dev/dri, so devices are found by scanning
 * /dev/accel (and /dev/dri's render nodes, for kernels without the accel
 * subsystem) and asking each node's driver name with drmGetVersion().
 *
 * The DRM core operations (version, GEM close, syncobjs) are libdrm's
 * calls; gaccel's own ioctls go through drmIoctl() with the structs of
 * uapi/drm/gaccel_accel.h. libdrm returns -1 with errno set or -errno,
 * depending on the call: every wrapper here returns 0 or -errno.
 *
 * SPDX-License-Identifier: MIT
 */
#include "gaccel-impl.h"
#include "ggml-impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>

// 0, or -errno of the call that just failed with ret (-1 and errno, or -errno).
static int drm_result(int ret) {
    if (ret == 0) {
        return 0;
    }
    return errno > 0 ? -errno : (ret < 0 ? ret : -EIO);
}

// drmIoctl() retries EAGAIN as well as EINTR, which SUBMIT's caller must
// see (the queue is full: it waits for a job and tries again); hence
// ioctl() itself here.
int gaccel_ioctl_once(int fd, unsigned long request, void * arg) {
    int ret;
    do {
        ret = ioctl(fd, request, arg);
    } while (ret == -1 && errno == EINTR);
    return ret == -1 ? -errno : 0;
}

int gaccel_ioctl(int fd, unsigned long request, void * arg) {
    errno = 0;
    return drm_result(drmIoctl(fd, request, arg));
}

// ---------------------------------------------------------------------------
// discovery
// ---------------------------------------------------------------------------

static int query(int fd, uint32_t type, void * buf, uint32_t * size) {
    struct drm_gaccel_query q = { .type = type, .size = *size, .pointer = (uintptr_t) buf };
    int ret = gaccel_ioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q);
    *size = q.size;
    return ret;
}

// The op table; an older driver without QUERY_OPS leaves it empty, and the
// backend then offloads nothing.
static void query_ops(struct gaccel_device * gdev) {
    uint32_t size = 0;
    if (query(gdev->fd, DRM_GACCEL_QUERY_OPS, NULL, &size) != 0 ||
        size < sizeof(struct drm_gaccel_query_ops)) {
        return;
    }
    uint8_t * buf = calloc(1, size);
    if (!buf) {
        return;
    }
    if (query(gdev->fd, DRM_GACCEL_QUERY_OPS, buf, &size) == 0) {
        struct drm_gaccel_query_ops hdr;
        memcpy(&hdr, buf, sizeof(hdr));
        if (hdr.entry_size >= sizeof(struct drm_gaccel_op_info) &&
            (uint64_t) hdr.count * hdr.entry_size <= size - sizeof(hdr)) {
            gdev->ops = calloc(hdr.count ? hdr.count : 1, sizeof(*gdev->ops));
            if (gdev->ops) {
                for (uint32_t i = 0; i < hdr.count; i++) {
                    memcpy(&gdev->ops[i], buf + sizeof(hdr) + (size_t) i * hdr.entry_size,
                           sizeof(*gdev->ops));
                }
                gdev->n_ops = hdr.count;
            }
        }
    }
    free(buf);
}

// Whether the node's driver is gaccel.
static bool is_gaccel(int fd) {
    drmVersionPtr v = drmGetVersion(fd);
    bool ours = v != NULL && v->name != NULL && strcmp(v->name, "gaccel") == 0;
    drmFreeVersion(v);
    return ours;
}

static int open_gaccel(const char * path, struct gaccel_device * gdev) {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        return -errno;
    }
    if (!is_gaccel(fd)) {
        close(fd);
        return -ENODEV;
    }

    memset(gdev, 0, sizeof(*gdev));
    uint32_t size = sizeof(gdev->info);
    int ret = query(fd, DRM_GACCEL_QUERY_DEVICE_INFO, &gdev->info, &size);
    if (ret != 0) {
        GGML_LOG_WARN("gaccel: %s: QUERY DEVICE_INFO failed: %s\n", path, strerror(-ret));
        close(fd);
        return ret;
    }
    // Before 1.0 a minor version may change what an older one meant (0.2
    // renumbered the dtypes): it must match; from 1.0 on, newer minors only
    // add.
    if (gdev->info.uapi_major != DRM_GACCEL_UAPI_VERSION_MAJOR ||
        (DRM_GACCEL_UAPI_VERSION_MAJOR == 0 ? gdev->info.uapi_minor != DRM_GACCEL_UAPI_VERSION_MINOR
                                            : gdev->info.uapi_minor < DRM_GACCEL_UAPI_VERSION_MINOR)) {
        GGML_LOG_WARN("gaccel: %s: driver uAPI %u.%u, this library speaks %u.%u; skipped\n", path,
                      gdev->info.uapi_major, gdev->info.uapi_minor, DRM_GACCEL_UAPI_VERSION_MAJOR,
                      DRM_GACCEL_UAPI_VERSION_MINOR);
        close(fd);
        return -EPROTO;
    }
    gdev->fd = fd;
    snprintf(gdev->path, sizeof(gdev->path), "%s", path);
    query_ops(gdev);
    return 0;
}

// Names a node's group from /etc/group itself: fgetgrent() needs no NSS
// module, so this works in static programs and minimal containers too.
static void group_name(gid_t gid, char * name, size_t size) {
    snprintf(name, size, "%u", (unsigned) gid);
    FILE * f = fopen("/etc/group", "re");
    if (!f) {
        return;
    }
    struct group * gr;
    while ((gr = fgetgrent(f)) != NULL) {
        if (gr->gr_gid == gid) {
            snprintf(name, size, "%s", gr->gr_name);
            break;
        }
    }
    fclose(f);
}

// Why a node could not be opened, and for permissions what to do about it:
// the node belongs to a group (render, by udev/70-gaccel.rules) and to the
// user logged in at the seat (uaccess).
static void warn_cannot_use(const char * path, int err) {
    struct stat st;
    if ((err == -EACCES || err == -EPERM) && stat(path, &st) == 0) {
        char group[64];
        group_name(st.st_gid, group, sizeof(group));
        GGML_LOG_WARN("gaccel: cannot use %s: %s (the node is mode %03o, group %s: add the user "
                      "to group %s, or log in at the machine's seat)\n",
                      path, strerror(-err), (unsigned) (st.st_mode & 0777), group, group);
        return;
    }
    GGML_LOG_WARN("gaccel: cannot use %s: %s\n", path, strerror(-err));
}

// The minor number of a node named <prefix><N>, or -1.
static int node_minor(const char * name, const char * prefix) {
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0 || name[n] < '0' || name[n] > '9') {
        return -1;
    }
    return atoi(name + n);
}

static int cmp_int(const void * a, const void * b) {
    return *(const int *) a - *(const int *) b;
}

// The minors of a directory's nodes named <prefix><N>, sorted.
static int scan_dir(const char * path, const char * prefix, int * minors, int max) {
    int n = 0;
    DIR * dir = opendir(path);
    if (!dir) {
        return 0;
    }
    struct dirent * de;
    while ((de = readdir(dir)) && n < max) {
        int m = node_minor(de->d_name, prefix);
        if (m >= 0) {
            minors[n++] = m;
        }
    }
    closedir(dir);
    qsort(minors, (size_t) n, sizeof(int), cmp_int);
    return n;
}

// Whose render node renderD<minor> is, by sysfs: 1 gaccel's, 0 another
// driver's (a GPU's: not opened), -1 unknown (no sysfs, as in containers:
// the node is opened and asked).
static int render_node_driver(int minor) {
    char link[96], target[256];
    snprintf(link, sizeof(link), "/sys/class/drm/renderD%d/device/driver", minor);
    ssize_t n = readlink(link, target, sizeof(target) - 1);
    if (n <= 0) {
        return -1;
    }
    target[n] = 0;
    const char * base = strrchr(target, '/');
    return strcmp(base ? base + 1 : target, "gaccel") == 0;
}

// The nodes: /dev/accel/accel<N>, and where the kernel has no accel
// subsystem (kernels before 6.2, Debian's arm64 kernels) the driver's render
// nodes /dev/dri/renderD<N> (same uAPI).
int gaccel_scan_devices(struct gaccel_device ** out) {
    // GGML_GACCEL_DEVICE=/dev/accel/accelN (or a render node) limits the
    // backend to one node.
    const char * only = getenv("GGML_GACCEL_DEVICE");
    int accel[64], render[64];
    int n_accel = 0, n_render = 0;

    *out = NULL;
    if (!only) {
        n_accel = scan_dir("/dev/accel", "accel", accel, 64);
        n_render = scan_dir("/dev/dri", "renderD", render, 64);
    }

    int n_paths = only ? 1 : n_accel + n_render;
    struct gaccel_device * devs = calloc(n_paths ? (size_t) n_paths : 1, sizeof(*devs));
    if (!devs) {
        return -ENOMEM;
    }
    int n = 0;
    for (int i = 0; i < n_paths; i++) {
        char path[64];
        int ours = 1; // the node is gaccel's, or may be: warn if unusable
        if (only) {
            snprintf(path, sizeof(path), "%s", only);
        } else if (i < n_accel) {
            snprintf(path, sizeof(path), "/dev/accel/accel%d", accel[i]);
        } else {
            ours = render_node_driver(render[i - n_accel]);
            if (ours == 0) {
                continue;
            }
            snprintf(path, sizeof(path), "/dev/dri/renderD%d", render[i - n_accel]);
        }
        int ret = open_gaccel(path, &devs[n]);
        if (ret == 0) {
            devs[n].index = n;
            n++;
        } else if (ret != -ENODEV && ours == 1) {
            // a render node sysfs could not place may be a GPU's: quiet
            warn_cannot_use(path, ret);
        }
    }
    if (n == 0) {
        free(devs);
        return 0;
    }
    *out = devs;
    return n;
}

// ---------------------------------------------------------------------------
// buffer objects
// ---------------------------------------------------------------------------

int gaccel_bo_create(int fd, uint64_t size, uint32_t * handle, uint64_t * real_size) {
    struct drm_gaccel_bo_create args = { .size = size };
    int ret = gaccel_ioctl(fd, DRM_IOCTL_GACCEL_BO_CREATE, &args);
    if (ret == 0) {
        *handle    = args.handle;
        *real_size = args.size;
    }
    return ret;
}

int gaccel_bo_create_userptr(int fd, uint64_t ptr, uint64_t size, bool read_only, uint32_t * handle) {
    struct drm_gaccel_bo_create_userptr args = {
        .pointer = ptr,
        .size    = size,
        .flags   = read_only ? DRM_GACCEL_BO_READ_ONLY : 0,
    };
    int ret = gaccel_ioctl(fd, DRM_IOCTL_GACCEL_BO_CREATE_USERPTR, &args);
    if (ret == 0) {
        *handle = args.handle;
    }
    return ret;
}

int gaccel_bo_mmap_offset(int fd, uint32_t handle, uint64_t * offset) {
    struct drm_gaccel_bo_info args = { .handle = handle };
    int ret = gaccel_ioctl(fd, DRM_IOCTL_GACCEL_BO_INFO, &args);
    if (ret == 0) {
        *offset = args.mmap_offset;
    }
    return ret;
}

int gaccel_bo_wait(int fd, uint32_t handle) {
    struct drm_gaccel_bo_wait args = { .handle = handle, .timeout_ns = INT64_MAX };
    return gaccel_ioctl(fd, DRM_IOCTL_GACCEL_BO_WAIT, &args);
}

void gaccel_gem_close(int fd, uint32_t handle) {
    errno = 0;
    int ret = drm_result(drmCloseBufferHandle(fd, handle));
    if (ret != 0) {
        GGML_LOG_ERROR("gaccel: GEM_CLOSE %u: %s\n", handle, strerror(-ret));
    }
}

// ---------------------------------------------------------------------------
// syncobjs
// ---------------------------------------------------------------------------

int gaccel_syncobj_create(int fd, bool signaled, uint32_t * handle) {
    errno = 0;
    return drm_result(drmSyncobjCreate(fd, signaled ? DRM_SYNCOBJ_CREATE_SIGNALED : 0, handle));
}

void gaccel_syncobj_destroy(int fd, uint32_t handle) {
    drmSyncobjDestroy(fd, handle);
}

// Until the point (0: the binary fence) is signaled, waiting for a fence to
// be attached first (a job submitted by another thread).
int gaccel_syncobj_wait(int fd, uint32_t handle, uint64_t point) {
    errno = 0;
    return drm_result(drmSyncobjTimelineWait(fd, &handle, &point, 1, INT64_MAX,
                                             DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL));
}

int gaccel_syncobj_signal(int fd, uint32_t handle) {
    errno = 0;
    return drm_result(drmSyncobjSignal(fd, &handle, 1));
}

int gaccel_syncobj_transfer(int fd, uint32_t dst, uint32_t src, uint64_t src_point) {
    errno = 0;
    return drm_result(drmSyncobjTransfer(fd, dst, 0, src, src_point, 0));
}
