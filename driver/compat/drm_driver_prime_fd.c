// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * struct drm_driver still has the PRIME handle/fd hooks, which the core
 * needs set to export or import at all before 6.6.
 */
#include <linux/module.h>
#include <drm/drm_drv.h>
#include <drm/drm_prime.h>

const struct drm_driver gaccel_probe_drv = {
	.prime_handle_to_fd = drm_gem_prime_handle_to_fd,
	.prime_fd_to_handle = drm_gem_prime_fd_to_handle,
};
MODULE_LICENSE("Dual MIT/GPL");
