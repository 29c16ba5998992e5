/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Kernel API differences, decided by the probes of driver/compat/ (see
 * probe.sh) rather than by version numbers: Debian's 6.12 series changed
 * drm_sched's API between point releases, and Debian's 6.1 has backports
 * (struct drm_sched_init_args without submit_wq) no version number tells.
 */
#ifndef __GACCEL_COMPAT_H__
#define __GACCEL_COMPAT_H__

#include "gaccel_compat_probed.h"

/* Symbol namespaces: identifiers up to 6.12, string literals from 6.13. */
#ifdef GACCEL_HAVE_MODULE_IMPORT_NS_IDENT
#define GACCEL_MODULE_IMPORT_NS_DMA_BUF	MODULE_IMPORT_NS(DMA_BUF)
#define GACCEL_NS			GACCEL
#else
#define GACCEL_MODULE_IMPORT_NS_DMA_BUF	MODULE_IMPORT_NS("DMA_BUF")
#define GACCEL_NS			"GACCEL"
#endif

/* The lowest drm_sched priority: _LOW from 6.7 on, _MIN before. */
#ifdef GACCEL_HAVE_DRM_SCHED_PRIORITY_LOW
#define GACCEL_SCHED_PRIORITY_LOW	DRM_SCHED_PRIORITY_LOW
#else
#define GACCEL_SCHED_PRIORITY_LOW	DRM_SCHED_PRIORITY_MIN
#endif

#endif /* __GACCEL_COMPAT_H__ */
