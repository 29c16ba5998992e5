/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* The compat probes answer nothing in userspace: no kernel API differs. */
