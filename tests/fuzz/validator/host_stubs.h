/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* host_stubs.c: the driver's surroundings for natively run engine code. */
#ifndef HOST_STUBS_H
#define HOST_STUBS_H

extern struct gaccel_engine host_engine;
extern struct gaccel_device host_gdev;
extern struct gaccel_file host_gfile;
extern struct drm_file host_file;

/* Fill in the engine's caps and tie the file, device and engine together. */
void host_setup(void);

#endif
