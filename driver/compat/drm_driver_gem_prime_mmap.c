// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * struct drm_driver still has .gem_prime_mmap, without which the core's
 * dma-buf mmap fails with ENOSYS (before 6.6).
 */
#include <linux/module.h>
#include <drm/drm_drv.h>
#include <drm/drm_prime.h>

const struct drm_driver gaccel_probe_drv = {
	.gem_prime_mmap = drm_gem_prime_mmap,
};
MODULE_LICENSE("Dual MIT/GPL");
