// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * gaccel-info: open each gaccel device and print what QUERY returns, or
 * write a Container Device Interface (CDI) spec for the gaccel nodes.
 *
 * usage: gaccel-info [/dev/accel/accelN...]
 *        gaccel-info --cdi
 *        gaccel-info --help
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <xf86drm.h>

#include "drm/gaccel_accel.h"

static int xioctl(int fd, unsigned long req, void *arg);

static void print_count(const char *label, uint64_t v)
{
	if (v == UINT64_MAX)
		printf("  %-24s none\n", label);
	else
		printf("  %-24s %llu\n", label, (unsigned long long)v);
}

static void print_bytes(const char *label, uint64_t v)
{
	if (v == UINT64_MAX)
		printf("  %-24s none\n", label);
	else
		printf("  %-24s %.1f MiB\n", label, v / 1048576.0);
}

/*
 * The limits of one client (QUERY LIMITS, uAPI 0.2): the module
 * parameters in force, as this file sees them. Older drivers lack it.
 */
static void print_limits(int fd)
{
	struct drm_gaccel_query q = { .type = DRM_GACCEL_QUERY_LIMITS };
	struct drm_gaccel_limits l;

	if (xioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q) || !q.size)
		return;
	memset(&l, 0, sizeof(l));
	q.size = sizeof(l);
	q.pointer = (uintptr_t)&l;
	if (xioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q))
		return;
	printf("  limits of this file (module parameters; \"none\": unlimited):\n");
	print_count("buffer objects", l.max_bos);
	print_bytes("buffer object memory", l.max_bo_bytes);
	print_count("graphs", l.max_graphs);
	print_bytes("graph memory", l.max_graph_bytes);
	print_count("queues", l.max_queues);
	print_count("jobs in flight", l.max_jobs);
	print_count("jobs per queue", l.max_queue_jobs);
	print_count("jobs per SUBMIT", l.max_submit_jobs);
	print_count("syncobjs per job", l.max_job_syncs);
	print_bytes("scratch per job", l.max_scratch_bytes);
	printf("  %-24s %llu ms\n", "job timeout", (unsigned long long)l.job_timeout_ms);
	printf("  limits of this user, over all its files:\n");
	print_count("buffer objects", l.max_user_bos);
	print_bytes("buffer object memory", l.max_user_bo_bytes);
	print_count("graphs", l.max_user_graphs);
	print_bytes("graph memory", l.max_user_graph_bytes);
	print_count("queues", l.max_user_queues);
	print_count("jobs in flight", l.max_user_jobs);
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret == -1 ? -errno : 0;
}

static const char *engine_kind(uint32_t k)
{
	switch (k) {
	case DRM_GACCEL_ENGINE_SOFTWARE: return "software (reference engine)";
	case DRM_GACCEL_ENGINE_HARDWARE: return "hardware";
	default: return "unknown";
	}
}

static const char *mem_kind(uint32_t k)
{
	switch (k) {
	case DRM_GACCEL_MEM_HOST: return "host (shared with the CPU)";
	case DRM_GACCEL_MEM_DEVICE: return "device";
	default: return "unknown";
	}
}

static void print_size(const char *label, uint64_t bytes)
{
	printf("  %-18s %llu bytes (%.1f MiB)\n", label,
	       (unsigned long long)bytes, bytes / (1024.0 * 1024.0));
}

/* The node's group, from /etc/group itself (no NSS: the tool is static). */
static void group_name(gid_t gid, char *name, size_t size)
{
	struct group *gr;
	FILE *f;

	snprintf(name, size, "%u", (unsigned int)gid);
	f = fopen("/etc/group", "re");
	if (!f)
		return;
	while ((gr = fgetgrent(f))) {
		if (gr->gr_gid == gid) {
			snprintf(name, size, "%s", gr->gr_name);
			break;
		}
	}
	fclose(f);
}

static void cannot_open(const char *path, int err)
{
	char group[64];
	struct stat st;

	if ((err == EACCES || err == EPERM) && !stat(path, &st)) {
		group_name(st.st_gid, group, sizeof(group));
		fprintf(stderr,
			"gaccel-info: %s: %s (mode %03o, group %s: add the user to group %s, or log in at the machine's seat)\n",
			path, strerror(err), (unsigned int)(st.st_mode & 0777), group, group);
		return;
	}
	fprintf(stderr, "gaccel-info: %s: %s\n", path, strerror(err));
}

/*
 * The driver's name, version and description (libdrm's drmGetVersion()),
 * if the driver is gaccel; NULL otherwise. drmFreeVersion() frees it.
 */
static drmVersionPtr gaccel_version(int fd)
{
	drmVersionPtr v = drmGetVersion(fd);

	if (v && (!v->name || strcmp(v->name, "gaccel"))) {
		drmFreeVersion(v);
		v = NULL;
	}
	return v;
}

static int show(const char *path)
{
	struct drm_gaccel_device_info info;
	struct drm_gaccel_query q;
	drmVersionPtr v;
	int fd, ret;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		cannot_open(path, errno);
		return 1;
	}
	v = gaccel_version(fd);
	if (!v) {
		drmVersionPtr other = drmGetVersion(fd);

		fprintf(stderr, "gaccel-info: %s: not a gaccel device (%s)\n",
			path, other && other->name ? other->name : "no DRM version");
		drmFreeVersion(other);
		close(fd);
		return 1;
	}

	/* Ask for the size first, as a client built against an older or
	 * newer header would.
	 */
	memset(&q, 0, sizeof(q));
	q.type = DRM_GACCEL_QUERY_DEVICE_INFO;
	ret = xioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q);
	if (!ret) {
		memset(&info, 0, sizeof(info));
		q.size = sizeof(info);
		q.pointer = (uintptr_t)&info;
		ret = xioctl(fd, DRM_IOCTL_GACCEL_QUERY, &q);
	}
	if (ret) {
		drmFreeVersion(v);
		close(fd);
		fprintf(stderr, "gaccel-info: %s: QUERY failed: %s\n", path, strerror(-ret));
		return 1;
	}

	printf("%s: %s %d.%d.%d (%s)\n", path, v->name, v->version_major,
	       v->version_minor, v->version_patchlevel, v->desc ? v->desc : "");
	drmFreeVersion(v);
	printf("  %-18s %u.%u\n", "uAPI version", info.uapi_major, info.uapi_minor);
	printf("  %-18s %.32s\n", "engine", info.engine_name);
	printf("  %-18s %s\n", "engine kind", engine_kind(info.engine_kind));
	printf("  %-18s %u\n", "workers", info.num_workers);
	printf("  %-18s %s\n", "memory", mem_kind(info.mem_kind));
	print_size("memory size", info.mem_size);
	print_size("max BO size", info.max_bo_size);
	printf("  %-18s %u bytes\n", "BO alignment", info.bo_alignment);
	printf("  %-18s %u\n", "max tensor rank", info.max_rank);
	printf("  %-18s %u\n", "max graph nodes", info.max_graph_nodes);
	printf("  %-18s %u\n", "max graph tensors", info.max_graph_tensors);
	printf("  %-18s %u\n", "max bindings", info.max_bindings);
	print_limits(fd);
	close(fd);
	return 0;
}

/*
 * Whether /dev/accel/<node> is driven by gaccel: asked of the driver when
 * the node opens, else read from sysfs (a CDI spec is usually written by
 * root, but need not be).
 */
static int node_is_gaccel(const char *path, const char *node)
{
	char link[PATH_MAX], target[PATH_MAX];
	drmVersionPtr v;
	const char *base;
	ssize_t n;
	int fd, yes;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		v = gaccel_version(fd);
		yes = v != NULL;
		drmFreeVersion(v);
		close(fd);
		return yes;
	}
	snprintf(link, sizeof(link), "/sys/class/%s/%s/device/driver",
		 strncmp(node, "renderD", 7) ? "accel" : "drm", node);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = 0;
	base = strrchr(target, '/');
	return !strcmp(base ? base + 1 : target, "gaccel");
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One deviceNodes entry; returns nonzero when @path is not a char device. */
static int cdi_node(const char *path, int first)
{
	struct stat st;

	if (stat(path, &st) || !S_ISCHR(st.st_mode)) {
		fprintf(stderr, "gaccel-info: %s: not a character device\n", path);
		return 1;
	}
	printf("%s\n          {\n"
	       "            \"path\": \"%s\",\n"
	       "            \"type\": \"c\",\n"
	       "            \"major\": %u,\n"
	       "            \"minor\": %u,\n"
	       "            \"permissions\": \"rw\",\n"
	       "            \"gid\": %u\n"
	       "          }",
	       first ? "" : ",", path, major(st.st_rdev), minor(st.st_rdev),
	       (unsigned int)st.st_gid);
	return 0;
}

/*
 * A CDI spec (cdiVersion 0.5.0, kind gaccel/accel): one device per gaccel
 * node, named by its number ("0" for accel0), and "all". Container runtimes
 * reading /etc/cdi or /var/run/cdi then take --device gaccel/accel=0.
 */
static int write_cdi(void)
{
	char path[300], *names[256];
	int n = 0, rc = 0;
	struct dirent *de;
	DIR *dir;

	dir = opendir("/dev/accel");
	if (!dir) {
		fprintf(stderr, "gaccel-info: /dev/accel: %s (is gaccel.ko loaded?)\n",
			strerror(errno));
		return 1;
	}
	while ((de = readdir(dir)) && n < 256) {
		const char *num = de->d_name + 5;

		if (strncmp(de->d_name, "accel", 5) || !*num ||
		    strspn(num, "0123456789") != strlen(num))
			continue;
		snprintf(path, sizeof(path), "/dev/accel/%s", de->d_name);
		if (!node_is_gaccel(path, de->d_name))
			continue;
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			rc = 1;
			break;
		}
		n++;
	}
	closedir(dir);
	if (!n && !rc)
		fprintf(stderr, "gaccel-info: no gaccel device in /dev/accel\n");
	if (!n || rc)
		goto out;
	qsort(names, n, sizeof(names[0]), cmp_names);

	printf("{\n  \"cdiVersion\": \"0.5.0\",\n  \"kind\": \"gaccel/accel\",\n  \"devices\": [");
	for (int d = 0; d <= n && !rc; d++) {
		/* d < n: the node names[d] alone; d == n: "all". */
		printf("%s\n    {\n      \"name\": \"%s\",\n"
		       "      \"containerEdits\": {\n        \"deviceNodes\": [",
		       d ? "," : "", d < n ? names[d] + 5 : "all");
		for (int i = d < n ? d : 0; i < (d < n ? d + 1 : n) && !rc; i++) {
			snprintf(path, sizeof(path), "/dev/accel/%s", names[i]);
			rc = cdi_node(path, d < n || i == 0);
		}
		printf("\n        ]\n      }\n    }");
	}
	printf("\n  ]\n}\n");
out:
	for (int i = 0; i < n; i++)
		free(names[i]);
	return !n || rc;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gaccel-info [/dev/accel/accelN...]\n"
		"       gaccel-info --cdi\n"
		"\n"
		"Without arguments, prints what each gaccel device in /dev/accel reports\n"
		"(driver and uAPI version, engine, memory, limits of one graph, of this\n"
		"file and of this user).\n"
		"\n"
		"  --cdi    write a Container Device Interface spec (kind gaccel/accel, one\n"
		"           device per node named by its number, and \"all\") to stdout,\n"
		"           e.g. gaccel-info --cdi > /etc/cdi/gaccel.json; then\n"
		"           podman run --device gaccel/accel=0 ...\n"
		"  --help   this text\n");
}

int main(int argc, char **argv)
{
	struct dirent *de;
	char path[300];
	int found = 0, rc = 0;
	DIR *dir;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--cdi"))
		return write_cdi();
	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			if (argv[i][0] == '-') {
				fprintf(stderr, "gaccel-info: unknown option %s\n", argv[i]);
				usage(stderr);
				return 2;
			}
			rc |= show(argv[i]);
		}
		return rc;
	}

	/*
	 * Accel nodes, and render nodes of gaccel: the driver's node on
	 * kernels without the accel subsystem (Debian's arm64, before 6.2).
	 */
	dir = opendir("/dev/accel");
	while (dir && (de = readdir(dir))) {
		if (strncmp(de->d_name, "accel", 5))
			continue;
		snprintf(path, sizeof(path), "/dev/accel/%s", de->d_name);
		rc |= show(path);
		found++;
	}
	if (dir)
		closedir(dir);
	dir = opendir("/dev/dri");
	while (dir && (de = readdir(dir))) {
		if (strncmp(de->d_name, "renderD", 7))
			continue;
		snprintf(path, sizeof(path), "/dev/dri/%s", de->d_name);
		if (!node_is_gaccel(path, de->d_name))
			continue;
		rc |= show(path);
		found++;
	}
	if (dir)
		closedir(dir);
	if (!found) {
		fprintf(stderr, "gaccel-info: no gaccel device in /dev/accel or /dev/dri (is gaccel.ko loaded?)\n");
		return 1;
	}
	return rc;
}
