// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * What the engine benchmarks (section_bench, tools/engine-mm-bench) need of
 * the driver around gaccel_graph.c and the reference engine's node code
 * when they run natively: no accounting, no limits, debug output only with
 * GACCEL_FUZZ_DEBUG set, and one device, file and engine to create graphs
 * on.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gaccel_drv.h"
#include "gaccel_engine.h"
#include "gaccel_graph.h"
#include "gaccel_limits.h"
#include "gaccel_ref.h"

#include "host_stubs.h"

struct gaccel_engine host_engine;
struct gaccel_device host_gdev;
struct gaccel_file host_gfile;
struct drm_file host_file;

void kshim_dbg(const char *fmt, ...)
{
	va_list ap;

	if (!getenv("GACCEL_FUZZ_DEBUG"))
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

int gaccel_charge(struct drm_device *drm, struct gaccel_usage *usage,
		  enum gaccel_res res, u64 amount)
{
	(void)drm;
	(void)usage;
	(void)res;
	(void)amount;
	return 0;
}

void gaccel_uncharge(struct gaccel_usage *usage, enum gaccel_res res, u64 amount)
{
	(void)usage;
	(void)res;
	(void)amount;
}

struct gaccel_usage *gaccel_usage_get(struct gaccel_usage *usage)
{
	return usage;
}

void gaccel_usage_put(struct gaccel_usage *usage)
{
	(void)usage;
}

void host_setup(void)
{
	gaccel_ref_caps(&host_engine.caps);
	host_gdev.engine = &host_engine;
	host_gfile.gdev = &host_gdev;
	xa_init_flags(&host_gfile.graphs, XA_FLAGS_ALLOC1);
	host_file.driver_priv = &host_gfile;
}
