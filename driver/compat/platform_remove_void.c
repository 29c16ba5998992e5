// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* platform_driver.remove returns void (6.11+). */
#include <linux/module.h>
#include <linux/platform_device.h>

static void gaccel_probe_remove(struct platform_device *pdev)
{
}

struct platform_driver gaccel_probe_drv = {
	.remove = gaccel_probe_remove,
};
MODULE_LICENSE("Dual MIT/GPL");
