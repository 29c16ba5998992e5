// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* vm_flags_set()/vm_flags_clear(): vm_flags is read-only (6.3+). */
#include <linux/module.h>
#include <linux/mm.h>

void gaccel_probe_fn(struct vm_area_struct *vma);
void gaccel_probe_fn(struct vm_area_struct *vma)
{
	vm_flags_clear(vma, VM_MAYWRITE);
}
MODULE_LICENSE("Dual MIT/GPL");
