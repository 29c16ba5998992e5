// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Tensors shared between gaccel and a Mesa Vulkan driver through dma-bufs,
 * run in the test VM with lavapipe (tests/check/65-vulkan.t).
 *
 * A gaccel job computes B = 2 A and signals a syncobj; its fence, exported
 * as a sync_file, is what the Vulkan side waits for before it reads B. The
 * Vulkan device imports B and C (gaccel buffer objects exported as
 * dma-bufs) with VK_EXT_external_memory_dma_buf, copies B into C and
 * fills the tail of C, and a second gaccel job reads C once the Vulkan
 * fence has signalled: D = C + A. Every byte crosses the API boundary
 * without a copy of its own; D is checked on the CPU.
 *
 * lavapipe (Mesa 25.0) imports dma-bufs but has no external semaphores or
 * fences by fd, so the waits at the boundary are on the CPU: poll() on the
 * sync_file, vkWaitForFences(). A driver with
 * VK_KHR_external_semaphore_fd would import the sync_file as a semaphore
 * instead (Documentation/gaccel-uapi.rst, "Sharing buffers with a GPU").
 */
#include <poll.h>
#include <vulkan/vulkan.h>

#include "kselftest_harness.h"
#include "gaccel_test.h"

/*
 * Floats of each tensor, per variant: 16 KiB objects are shmem, 4 MiB ones
 * on huge kernel pages (driver/gaccel_vmem.c); both must share alike.
 */
static int N;
#define TAIL	256	/* floats of C filled by Vulkan, not copied */
#define FILL	0x40400000u	/* 3.0f */

struct vk {
	VkInstance inst;
	VkPhysicalDevice phys;
	VkDevice dev;
	VkQueue queue;
	uint32_t family;
	PFN_vkGetMemoryFdPropertiesKHR get_fd_props;
	char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
};

static bool has_ext(VkPhysicalDevice p, const char *name)
{
	VkExtensionProperties *e;
	uint32_t n = 0;
	bool found = false;

	if (vkEnumerateDeviceExtensionProperties(p, NULL, &n, NULL) != VK_SUCCESS)
		return false;
	e = calloc(n ? n : 1, sizeof(*e));
	if (e && vkEnumerateDeviceExtensionProperties(p, NULL, &n, e) == VK_SUCCESS)
		for (uint32_t i = 0; i < n; i++)
			found |= !strcmp(e[i].extensionName, name);
	free(e);
	return found;
}

/* A device with dma-buf import, or a reason in @why. */
static int vk_open(struct vk *v, const char **why)
{
	static const char *exts[] = { VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
				      VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME };
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
				  .pApplicationName = "gaccel vulkan_interop_test",
				  .apiVersion = VK_API_VERSION_1_1 };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
				     .pApplicationInfo = &app };
	VkPhysicalDevice devs[8];
	uint32_t n = 8;
	float prio = 1.0f;

	memset(v, 0, sizeof(*v));
	if (vkCreateInstance(&ici, NULL, &v->inst) != VK_SUCCESS) {
		*why = "no Vulkan instance (no driver?)";
		return -1;
	}
	if (vkEnumeratePhysicalDevices(v->inst, &n, devs) < 0 || !n) {
		*why = "no Vulkan device";
		return -1;
	}
	for (uint32_t i = 0; i < n && !v->phys; i++)
		if (has_ext(devs[i], VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME) &&
		    has_ext(devs[i], VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
			v->phys = devs[i];
	if (!v->phys) {
		*why = "no Vulkan device imports dma-bufs (VK_EXT_external_memory_dma_buf)";
		return -1;
	}
	{
		VkPhysicalDeviceProperties pr;
		VkQueueFamilyProperties qf[16];
		uint32_t nq = 16;

		vkGetPhysicalDeviceProperties(v->phys, &pr);
		snprintf(v->name, sizeof(v->name), "%s", pr.deviceName);
		vkGetPhysicalDeviceQueueFamilyProperties(v->phys, &nq, qf);
		v->family = UINT32_MAX;
		for (uint32_t i = 0; i < nq && v->family == UINT32_MAX; i++)
			if (qf[i].queueFlags & (VK_QUEUE_TRANSFER_BIT | VK_QUEUE_COMPUTE_BIT |
						VK_QUEUE_GRAPHICS_BIT))
				v->family = i;
		if (v->family == UINT32_MAX) {
			*why = "no queue that copies";
			return -1;
		}
	}
	{
		VkDeviceQueueCreateInfo q = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
					      .queueFamilyIndex = v->family, .queueCount = 1,
					      .pQueuePriorities = &prio };
		VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
					   .queueCreateInfoCount = 1, .pQueueCreateInfos = &q,
					   .enabledExtensionCount = 2, .ppEnabledExtensionNames = exts };

		if (vkCreateDevice(v->phys, &dci, NULL, &v->dev) != VK_SUCCESS) {
			*why = "vkCreateDevice failed";
			return -1;
		}
	}
	vkGetDeviceQueue(v->dev, v->family, 0, &v->queue);
	v->get_fd_props = (PFN_vkGetMemoryFdPropertiesKHR)
		vkGetDeviceProcAddr(v->dev, "vkGetMemoryFdPropertiesKHR");
	if (!v->get_fd_props) {
		*why = "no vkGetMemoryFdPropertiesKHR";
		return -1;
	}
	return 0;
}

static void vk_close(struct vk *v)
{
	if (v->dev)
		vkDestroyDevice(v->dev, NULL);
	if (v->inst)
		vkDestroyInstance(v->inst, NULL);
}

/*
 * A VkBuffer over a dma-buf: Vulkan takes ownership of @fd when the import
 * succeeds (the caller passes a duplicate).
 */
static int vk_import(struct vk *v, int fd, VkDeviceSize size, VkBuffer *buf, VkDeviceMemory *mem)
{
	VkExternalMemoryBufferCreateInfo ext = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
		.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT };
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .pNext = &ext,
				   .size = size,
				   .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
					    VK_BUFFER_USAGE_TRANSFER_DST_BIT,
				   .sharingMode = VK_SHARING_MODE_EXCLUSIVE };
	VkMemoryFdPropertiesKHR fdp = { .sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR };
	VkImportMemoryFdInfoKHR imp = { .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
					.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
					.fd = fd };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &imp };
	VkMemoryRequirements req;
	uint32_t bits;

	if (vkCreateBuffer(v->dev, &bci, NULL, buf) != VK_SUCCESS)
		return -1;
	if (v->get_fd_props(v->dev, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, fd, &fdp) !=
	    VK_SUCCESS)
		return -2;
	vkGetBufferMemoryRequirements(v->dev, *buf, &req);
	bits = req.memoryTypeBits & fdp.memoryTypeBits;
	if (!bits)
		return -3;
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = (uint32_t)__builtin_ctz(bits);
	if (vkAllocateMemory(v->dev, &mai, NULL, mem) != VK_SUCCESS)
		return -4;
	if (vkBindBufferMemory(v->dev, *buf, *mem, 0) != VK_SUCCESS)
		return -5;
	return 0;
}

/* C = B over [0, N - TAIL), FILL over the tail; wait for it on the CPU. */
static int vk_copy(struct vk *v, VkBuffer b, VkBuffer c)
{
	VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
					.queueFamilyIndex = v->family };
	VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
					    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
					    .commandBufferCount = 1 };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
					.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkBufferCopy region = { .size = (N - TAIL) * sizeof(float) };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1 };
	VkCommandPool pool;
	VkCommandBuffer cmd;
	VkFence fence;
	int ret = -1;

	if (vkCreateCommandPool(v->dev, &pci, NULL, &pool) != VK_SUCCESS)
		return -1;
	cai.commandPool = pool;
	if (vkAllocateCommandBuffers(v->dev, &cai, &cmd) == VK_SUCCESS &&
	    vkCreateFence(v->dev, &fci, NULL, &fence) == VK_SUCCESS) {
		vkBeginCommandBuffer(cmd, &bi);
		vkCmdCopyBuffer(cmd, b, c, 1, &region);
		vkCmdFillBuffer(cmd, c, (N - TAIL) * sizeof(float), TAIL * sizeof(float), FILL);
		vkEndCommandBuffer(cmd);
		si.pCommandBuffers = &cmd;
		if (vkQueueSubmit(v->queue, 1, &si, fence) == VK_SUCCESS &&
		    vkWaitForFences(v->dev, 1, &fence, VK_TRUE, 60ull * 1000000000ull) == VK_SUCCESS)
			ret = 0;
		vkDestroyFence(v->dev, fence, NULL);
	}
	vkDestroyCommandPool(v->dev, pool, NULL);
	return ret;
}

/* One elementwise job: dst = op(s0[, s1]) over N floats, signalling @sync. */
static int job(int fd, uint32_t queue, uint32_t op, uint32_t s0, uint32_t s1, uint32_t dst,
	       uint32_t sync)
{
	struct drm_gaccel_slot slots[3] = { { .size = N * 4 }, { .size = N * 4 }, { .size = N * 4 } };
	struct drm_gaccel_tensor t[3] = {
		gaccel_tensor(0, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
		gaccel_tensor(1, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
		gaccel_tensor(2, DRM_GACCEL_DTYPE_F32, 0, N, 1, 1, 1),
	};
	struct drm_gaccel_node node = gaccel_node(op, 2, 0, op == DRM_GACCEL_OP_ADD ? 1 : GACCEL_NONE,
						  GACCEL_NONE);
	struct drm_gaccel_binding b[3] = {
		{ .slot = 0, .handle = s0 }, { .slot = 1, .handle = s1 }, { .slot = 2, .handle = dst },
	};
	struct drm_gaccel_sync s = { .flags = DRM_GACCEL_SYNC_SIGNAL, .handle = sync };
	uint32_t g;
	int ret;

	if (op == DRM_GACCEL_OP_SCALE)
		node.params[0] = gaccel_fbits(2.0f);
	ret = gaccel_graph_create(fd, slots, 3, t, 3, &node, 1, &g);
	if (ret)
		return ret;
	ret = gaccel_submit1(fd, queue, g, b, 3, &s, 1);
	gaccel_graph_destroy(fd, g);
	return ret;
}

FIXTURE(vk) {
	int fd;
	uint32_t queue, a, b, c, d, sync, sync2;
	float *pa, *pd;
	struct vk v;
	bool have_vk;
};

FIXTURE_VARIANT(vk) {
	int floats;
};

FIXTURE_VARIANT_ADD(vk, shmem) {
	.floats = 4096,
};

FIXTURE_VARIANT_ADD(vk, huge) {
	.floats = 1 << 20,
};

FIXTURE_SETUP(vk)
{
	const char *why = NULL;

	N = variant->floats;
	self->fd = gaccel_open_device();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, gaccel_queue_create(self->fd, &self->queue));
	ASSERT_EQ(0, gaccel_bo_create(self->fd, N * 4, 0, &self->a));
	ASSERT_EQ(0, gaccel_bo_create(self->fd, N * 4, 0, &self->b));
	ASSERT_EQ(0, gaccel_bo_create(self->fd, N * 4, 0, &self->c));
	ASSERT_EQ(0, gaccel_bo_create(self->fd, N * 4, 0, &self->d));
	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &self->sync));
	ASSERT_EQ(0, gaccel_syncobj_create(self->fd, &self->sync2));
	self->pa = gaccel_bo_mmap(self->fd, self->a, PROT_READ | PROT_WRITE);
	self->pd = gaccel_bo_mmap(self->fd, self->d, PROT_READ);
	ASSERT_NE(MAP_FAILED, self->pa);
	ASSERT_NE(MAP_FAILED, self->pd);
	self->have_vk = vk_open(&self->v, &why) == 0;
	if (!self->have_vk)
		TH_LOG("Vulkan: %s", why);
	/* make check sets it: a missing driver is a failure there, not a skip */
	if (getenv("GACCEL_VK_REQUIRED"))
		ASSERT_TRUE(self->have_vk);
}

FIXTURE_TEARDOWN(vk)
{
	vk_close(&self->v);
	close(self->fd);
}

TEST_F(vk, gaccel_vulkan_gaccel_through_dma_bufs)
{
	struct drm_syncobj_handle h = { .handle = self->sync,
					.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
					.fd = -1 };
	VkBuffer vb = VK_NULL_HANDLE, vc = VK_NULL_HANDLE;
	VkDeviceMemory mb = VK_NULL_HANDLE, mc = VK_NULL_HANDLE;
	struct pollfd pfd;
	int fb, fc, bad = 0;

	if (!self->have_vk)
		SKIP(return, "no Vulkan device that imports dma-bufs");
	TH_LOG("Vulkan device: %s", self->v.name);
	for (int i = 0; i < N; i++)
		self->pa[i] = (float)(i % 1000) - 500.0f;

	/* gaccel: B = 2 A, its fence out as a sync_file, waited for. */
	ASSERT_EQ(0, job(self->fd, self->queue, DRM_GACCEL_OP_SCALE, self->a, self->a, self->b,
			 self->sync));
	ASSERT_EQ(0, gaccel_ioctl(self->fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h));
	pfd = (struct pollfd){ .fd = h.fd, .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, 60000 * gaccel_test_timeout_scale()));
	close(h.fd);

	/* Vulkan: import B and C, C = B plus a filled tail. */
	fb = gaccel_prime_export(self->fd, self->b);
	fc = gaccel_prime_export(self->fd, self->c);
	ASSERT_LE(0, fb);
	ASSERT_LE(0, fc);
	ASSERT_EQ(0, vk_import(&self->v, fb, N * 4, &vb, &mb));
	ASSERT_EQ(0, vk_import(&self->v, fc, N * 4, &vc, &mc));
	ASSERT_EQ(0, vk_copy(&self->v, vb, vc));

	/* gaccel again: D = C + A, from what Vulkan wrote. */
	ASSERT_EQ(0, job(self->fd, self->queue, DRM_GACCEL_OP_ADD, self->c, self->a, self->d,
			 self->sync2));
	ASSERT_EQ(0, gaccel_syncobj_wait(self->fd, self->sync2, 0,
					 60000000000ll * gaccel_test_timeout_scale()));
	for (int i = 0; i < N; i++) {
		float want = i < N - TAIL ? 3.0f * self->pa[i] : 3.0f + self->pa[i];

		if (self->pd[i] != want && bad++ < 5)
			TH_LOG("D[%d] = %g, want %g", i, self->pd[i], want);
	}
	EXPECT_EQ(0, bad);

	vkDestroyBuffer(self->v.dev, vb, NULL);
	vkDestroyBuffer(self->v.dev, vc, NULL);
	vkFreeMemory(self->v.dev, mb, NULL);
	vkFreeMemory(self->v.dev, mc, NULL);
}

GACCEL_TEST_HARNESS_MAIN
