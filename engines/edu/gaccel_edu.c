// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * gaccel engine for QEMU's "edu" PCI device (1234:11e8), in a module of its
 * own, registered through gaccel's engine API as a vendor's would be.
 *
 * The device has one DMA controller that copies between bus addresses and a
 * 4 KiB buffer inside the device (at 0x40000 in its DMA address space) and
 * raises an interrupt (MSI here) when a transfer is done. The engine runs
 * CPY by DMA alone: every chunk goes from the source buffer object into the
 * device buffer and from there to the destination object, at the bus
 * addresses gaccel mapped the objects to for this device (through the
 * IOMMU when there is one, through bounce buffers when the device cannot
 * reach the memory). The CPU never touches the data.
 *
 * Completion: by the DMA interrupt (MSI, INTx on kernels without MSI) or,
 * with poll=1, by gaccel's poller reading the command register. A job runs
 * on an ordered workqueue (the device has one DMA channel): it starts a
 * transfer, sleeps until the interrupt (or the poll) says it is over, and
 * starts the next, checking for cancellation in between. A transfer cannot
 * be stopped once started, so a cancel takes effect after the current one
 * (the device takes about 100 ms of virtual time per transfer). Reset waits
 * for the device to be idle, acknowledges what it raised and checks that it
 * still answers.
 *
 * Register map: QEMU's docs/specs/edu.rst.
 */

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/iopoll.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/random.h>
#include <linux/workqueue.h>

#include <drm/gaccel_accel.h>

#include "gaccel_engine.h"

#define EDU_REG_ID		0x00
#define EDU_REG_ALIVE		0x04
#define EDU_REG_IRQ_STATUS	0x24
#define EDU_REG_IRQ_ACK		0x64
#define EDU_REG_DMA_SRC		0x80
#define EDU_REG_DMA_DST		0x88
#define EDU_REG_DMA_COUNT	0x90
#define EDU_REG_DMA_CMD		0x98

#define EDU_ID_MAGIC		0xed
#define EDU_DMA_START		BIT(0)
#define EDU_DMA_TO_RAM		BIT(1)
#define EDU_DMA_IRQ		BIT(2)
#define EDU_IRQ_DMA		0x100

/*
 * The device's buffer, in its own DMA address space, and the most a
 * transfer moves: QEMU 7.2 (Debian 12's) aborts the whole VM on a transfer
 * that reaches the buffer's last byte (an off-by-one in its range check),
 * so transfers use the first half.
 */
#define EDU_BUF_ADDR		0x40000
#define EDU_BUF_SIZE		4096
#define EDU_XFER_MAX		(EDU_BUF_SIZE / 2)

/* The device addresses 28 bits (its dma_mask property's default). */
#define EDU_DMA_BITS		28

/* A transfer takes 100 ms of virtual time; one that takes 2 s is lost. */
#define EDU_XFER_TIMEOUT_MS	2000

/* Largest buffer object: the device's address space is 256 MiB. */
#define EDU_MAX_BO		(64ULL << 20)

static bool edu_poll;
module_param_named(poll, edu_poll, bool, 0444);
MODULE_PARM_DESC(poll,
		 "Complete transfers by gaccel's poller instead of the DMA interrupt (default false)");

/**
 * struct gaccel_edu - one edu device.
 * @pdev: the PCI function.
 * @regs: its BAR 0.
 * @engine: its gaccel registration.
 * @wq: runs jobs, one at a time.
 * @xfer_done: completed when the transfer in flight is over.
 * @busy: a transfer is in flight (the poller's business).
 * @broken: the device stopped answering; jobs fail with -EIO until a reset
 *	finds it well again.
 * @jobs: jobs run.
 * @failed: jobs that failed.
 * @cancelled: jobs cancelled.
 * @busy_ns: time spent in jobs.
 * @bytes: bytes copied by DMA.
 * @resets: resets.
 * @xfers: DMA transfers.
 * @irqs: DMA interrupts taken.
 */
struct gaccel_edu {
	struct pci_dev *pdev;
	void __iomem *regs;
	struct gaccel_engine *engine;
	struct workqueue_struct *wq;
	struct completion xfer_done;
	atomic_t busy;
	bool broken;
	atomic64_t jobs;
	atomic64_t failed;
	atomic64_t cancelled;
	atomic64_t busy_ns;
	atomic64_t bytes;
	atomic64_t resets;
	atomic64_t xfers;
	atomic64_t irqs;
};

static struct gaccel_edu *to_edu(struct gaccel_engine *engine)
{
	return gaccel_engine_priv(engine);
}

/* ------------------------------------------------------------------------ */
/* The device                                                                */

static irqreturn_t gaccel_edu_irq(int irq, void *arg)
{
	struct gaccel_edu *edu = arg;
	u32 status = readl(edu->regs + EDU_REG_IRQ_STATUS);

	if (!status)
		return IRQ_NONE;
	writel(status, edu->regs + EDU_REG_IRQ_ACK);
	if (status & EDU_IRQ_DMA) {
		atomic64_inc(&edu->irqs);
		if (atomic_cmpxchg(&edu->busy, 1, 0) == 1)
			complete(&edu->xfer_done);
	}
	return IRQ_HANDLED;
}

/* gaccel's poller: the command register's start bit clears when done. */
static void gaccel_edu_poll(struct gaccel_engine *engine)
{
	struct gaccel_edu *edu = to_edu(engine);

	if (atomic_read(&edu->busy) &&
	    !(readl(edu->regs + EDU_REG_DMA_CMD) & EDU_DMA_START) &&
	    atomic_cmpxchg(&edu->busy, 1, 0) == 1)
		complete(&edu->xfer_done);
}

/*
 * One transfer of @count bytes (at most the device buffer) between bus
 * address @bus and the device buffer, then wait for it. Returns 0 or -EIO
 * when the device did not finish in time.
 */
static int gaccel_edu_xfer(struct gaccel_edu *edu, dma_addr_t bus, u32 count,
			   bool to_ram)
{
	u32 cmd = EDU_DMA_START | (to_ram ? EDU_DMA_TO_RAM : 0) |
		  (edu_poll ? 0 : EDU_DMA_IRQ);

	reinit_completion(&edu->xfer_done);
	writeq(to_ram ? EDU_BUF_ADDR : bus, edu->regs + EDU_REG_DMA_SRC);
	writeq(to_ram ? bus : EDU_BUF_ADDR, edu->regs + EDU_REG_DMA_DST);
	writeq(count, edu->regs + EDU_REG_DMA_COUNT);
	atomic_set(&edu->busy, 1);
	writel(cmd, edu->regs + EDU_REG_DMA_CMD);
	atomic64_inc(&edu->xfers);
	if (!wait_for_completion_timeout(&edu->xfer_done,
					 msecs_to_jiffies(EDU_XFER_TIMEOUT_MS))) {
		atomic_set(&edu->busy, 0);
		dev_err(&edu->pdev->dev, "DMA transfer of %u bytes did not finish\n",
			count);
		return -EIO;
	}
	return 0;
}

/* Whether the device answers as an edu: identification and liveness. */
static bool gaccel_edu_alive(struct gaccel_edu *edu)
{
	u32 probe = (u32)get_random_u32();

	if ((readl(edu->regs + EDU_REG_ID) & 0xff) != EDU_ID_MAGIC)
		return false;
	writel(probe, edu->regs + EDU_REG_ALIVE);
	return readl(edu->regs + EDU_REG_ALIVE) == ~probe;
}

/* ------------------------------------------------------------------------ */
/* Graphs: CPY of contiguous tensors of one dtype                            */

static u32 gaccel_edu_elem_size(u32 dtype)
{
	switch (dtype) {
	case DRM_GACCEL_DTYPE_F32:
		return 4;
	case DRM_GACCEL_DTYPE_F16:
	case DRM_GACCEL_DTYPE_BF16:
		return 2;
	default:
		return 0;
	}
}

/* Bytes of @t if its elements lie back to back, else 0. */
static u64 gaccel_edu_contiguous(const struct drm_gaccel_tensor *t)
{
	u64 stride = gaccel_edu_elem_size(t->dtype);
	int i;

	if (!stride)
		return 0;
	for (i = 0; i < 4; i++) {
		if (t->ne[i] > 1 && t->nb[i] != stride)
			return 0;
		/* Validation bounded ne and nb: no overflow. */
		stride *= t->ne[i];
	}
	return stride;
}

/*
 * DMA copies bytes: the engine runs a CPY that is a byte copy, the same
 * dtype on both sides, both tensors contiguous, and no partial overlap (a
 * chunk is read whole before it is written).
 */
static int gaccel_edu_node_check(struct gaccel_engine *engine,
				 const struct gaccel_graph *graph,
				 const struct drm_gaccel_node *node)
{
	const struct drm_gaccel_tensor *src = gaccel_graph_src(graph, node, 0);
	const struct drm_gaccel_tensor *dst = &graph->tensors[node->dst];
	struct device *dev = &to_edu(engine)->pdev->dev;
	u64 n;

	if (!src || src->dtype != dst->dtype) {
		dev_dbg(dev, "CPY: converts between dtypes, DMA only copies\n");
		return -EINVAL;
	}
	n = gaccel_edu_contiguous(src);
	if (!n || n != gaccel_edu_contiguous(dst)) {
		dev_dbg(dev, "CPY: strided or differently sized tensors\n");
		return -EINVAL;
	}
	if (src->slot == dst->slot && src->offset != dst->offset &&
	    src->offset < dst->offset + n && dst->offset < src->offset + n) {
		dev_dbg(dev, "CPY: source and destination overlap in part\n");
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Jobs                                                                      */

/* One CPY: chunks as long as the device buffer and both mappings allow. */
static int gaccel_edu_cpy(struct gaccel_edu *edu, struct gaccel_engine_job *ejob,
			  const struct drm_gaccel_node *node)
{
	const struct gaccel_graph *g = ejob->graph;
	const struct drm_gaccel_tensor *src = gaccel_graph_src(g, node, 0);
	const struct drm_gaccel_tensor *dst = &g->tensors[node->dst];
	u64 n = gaccel_edu_contiguous(src), pos;
	struct gaccel_dma_cursor sc, dc;
	int ret;

	/* Validation and node_check proved it; a job must not trust less. */
	if (!n || n != gaccel_edu_contiguous(dst) ||
	    ejob->dma[dst->slot].dir != DMA_BIDIRECTIONAL)
		return -EINVAL;
	gaccel_dma_cursor_init(&sc, &ejob->dma[src->slot]);
	gaccel_dma_cursor_init(&dc, &ejob->dma[dst->slot]);
	for (pos = 0; pos < n;) {
		dma_addr_t sa, da;
		u64 len = min_t(u64, n - pos, EDU_XFER_MAX), l;

		if (READ_ONCE(ejob->cancel))
			return -ECANCELED;
		l = gaccel_dma_cursor_seek(&sc, src->offset + pos, &sa);
		len = min(len, l);
		l = gaccel_dma_cursor_seek(&dc, dst->offset + pos, &da);
		len = min(len, l);
		if (!len)
			return -EINVAL;
		ret = gaccel_edu_xfer(edu, sa, len, false);
		if (!ret && READ_ONCE(ejob->cancel))
			ret = -ECANCELED;
		if (!ret)
			ret = gaccel_edu_xfer(edu, da, len, true);
		if (ret)
			return ret;
		atomic64_add(len, &edu->bytes);
		pos += len;
	}
	return 0;
}

static void gaccel_edu_reset(struct gaccel_engine *engine);

static void gaccel_edu_work(struct work_struct *work)
{
	struct gaccel_engine_job *ejob =
		container_of(work, struct gaccel_engine_job, work);
	struct gaccel_edu *edu = to_edu(ejob->engine);
	const struct gaccel_graph *g = ejob->graph;
	bool cookie = dma_fence_begin_signalling();
	ktime_t start = ktime_get();
	int ret = READ_ONCE(edu->broken) ? -EIO : 0;
	u32 i;

	for (i = 0; !ret && i < g->num_nodes; i++)
		ret = gaccel_edu_cpy(edu, ejob, &g->nodes[i]);
	/* A lost transfer: the job fails; the device gets a reset now. */
	if (ret == -EIO)
		gaccel_edu_reset(ejob->engine);

	atomic64_inc(&edu->jobs);
	atomic64_add(ktime_to_ns(ktime_sub(ktime_get(), start)), &edu->busy_ns);
	if (ret == -ECANCELED)
		atomic64_inc(&edu->cancelled);
	else if (ret)
		atomic64_inc(&edu->failed);
	ejob->done(ejob, ret);
	dma_fence_end_signalling(cookie);
}

static void gaccel_edu_run(struct gaccel_engine *engine,
			   struct gaccel_engine_job *ejob)
{
	ejob->engine = engine;
	INIT_WORK(&ejob->work, gaccel_edu_work);
	queue_work(to_edu(engine)->wq, &ejob->work);
}

/* Seen before the next transfer starts. */
static void gaccel_edu_cancel(struct gaccel_engine *engine,
			      struct gaccel_engine_job *ejob)
{
	WRITE_ONCE(ejob->cancel, true);
}

/*
 * After a cancelled job: a transfer cannot be aborted, so wait until the
 * device is idle, clear what it raised and check that it answers.
 */
static void gaccel_edu_reset(struct gaccel_engine *engine)
{
	struct gaccel_edu *edu = to_edu(engine);
	u32 cmd, status;
	int ret;

	atomic64_inc(&edu->resets);
	ret = readl_poll_timeout(edu->regs + EDU_REG_DMA_CMD, cmd,
				 !(cmd & EDU_DMA_START), 1000,
				 EDU_XFER_TIMEOUT_MS * 1000);
	status = readl(edu->regs + EDU_REG_IRQ_STATUS);
	if (status)
		writel(status, edu->regs + EDU_REG_IRQ_ACK);
	atomic_set(&edu->busy, 0);
	WRITE_ONCE(edu->broken, ret || !gaccel_edu_alive(edu));
	if (READ_ONCE(edu->broken))
		dev_err(&edu->pdev->dev, "reset: the device does not answer\n");
}

static void gaccel_edu_stats(struct gaccel_engine *engine,
			     struct gaccel_engine_stats *stats)
{
	struct gaccel_edu *edu = to_edu(engine);

	stats->jobs = atomic64_read(&edu->jobs);
	stats->failed = atomic64_read(&edu->failed);
	stats->cancelled = atomic64_read(&edu->cancelled);
	stats->busy_ns = atomic64_read(&edu->busy_ns);
	stats->bytes = atomic64_read(&edu->bytes);
	stats->resets = atomic64_read(&edu->resets);
}

static const struct gaccel_engine_ops gaccel_edu_ops = {
	.node_check = gaccel_edu_node_check,
	.run = gaccel_edu_run,
	.poll = gaccel_edu_poll,
	.cancel = gaccel_edu_cancel,
	.reset = gaccel_edu_reset,
	.stats = gaccel_edu_stats,
};

#define EDU_COPYABLE	(BIT_ULL(DRM_GACCEL_DTYPE_F32) | \
			 BIT_ULL(DRM_GACCEL_DTYPE_F16) | \
			 BIT_ULL(DRM_GACCEL_DTYPE_BF16))

static const struct gaccel_op_caps gaccel_edu_op_caps[] = {
	{ DRM_GACCEL_OP_CPY, 4, EDU_COPYABLE, 0, EDU_COPYABLE },
};

/* ------------------------------------------------------------------------ */
/* PCI                                                                       */

static int gaccel_edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct gaccel_engine_desc desc = {
		.caps = {
			.name = "gaccel-edu",
			.kind = DRM_GACCEL_ENGINE_HARDWARE,
			.mem_kind = DRM_GACCEL_MEM_HOST,
			.mem_size = 1ULL << EDU_DMA_BITS,
			.max_bo_size = EDU_MAX_BO,
			.max_rank = 4,
			.max_graph_nodes = 64,
			.max_graph_tensors = 128,
			.max_bindings = 16,
			.num_workers = 1,
			.ops = gaccel_edu_op_caps,
			.num_ops = ARRAY_SIZE(gaccel_edu_op_caps),
			.dtypes = EDU_COPYABLE,
		},
		.ops = &gaccel_edu_ops,
		.mem = GACCEL_ENGINE_MEM_DMA,
		.completion = edu_poll ? GACCEL_ENGINE_COMPLETE_POLL :
					 GACCEL_ENGINE_COMPLETE_IRQ,
		.poll_us = 2000,
	};
	struct gaccel_edu *edu;
	int ret;

	edu = devm_kzalloc(&pdev->dev, sizeof(*edu), GFP_KERNEL);
	if (!edu)
		return -ENOMEM;
	edu->pdev = pdev;
	init_completion(&edu->xfer_done);

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(0), KBUILD_MODNAME);
	if (ret)
		return ret;
	edu->regs = pcim_iomap_table(pdev)[0];
	if (!gaccel_edu_alive(edu)) {
		dev_err(&pdev->dev, "not an edu device, or not answering\n");
		return -ENODEV;
	}
	pci_set_master(pdev);
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(EDU_DMA_BITS));
	if (ret)
		return ret;

	/* MSI, or the shared INTx line on kernels built without MSI. */
	ret = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSI | PCI_IRQ_INTX);
	if (ret < 0)
		return ret;
	ret = devm_request_irq(&pdev->dev, pci_irq_vector(pdev, 0),
			       gaccel_edu_irq, pdev->msi_enabled ? 0 : IRQF_SHARED,
			       KBUILD_MODNAME, edu);
	if (ret)
		goto err_vectors;

	edu->wq = alloc_ordered_workqueue("gaccel-edu", WQ_MEM_RECLAIM);
	if (!edu->wq) {
		ret = -ENOMEM;
		goto err_irq;
	}
	desc.priv = edu;
	edu->engine = gaccel_engine_register(&pdev->dev, &desc);
	if (IS_ERR(edu->engine)) {
		ret = PTR_ERR(edu->engine);
		goto err_wq;
	}
	pci_set_drvdata(pdev, edu);
	dev_info(&pdev->dev, "gaccel engine on /dev/accel/accel%d, %s completion\n",
		 gaccel_engine_minor(edu->engine),
		 edu_poll ? "polled" : pdev->msi_enabled ? "MSI" : "INTx");
	return 0;

err_wq:
	destroy_workqueue(edu->wq);
err_irq:
	devm_free_irq(&pdev->dev, pci_irq_vector(pdev, 0), edu);
err_vectors:
	pci_free_irq_vectors(pdev);
	return ret;
}

/*
 * Unregistering cancels the job in flight and waits for its done(); the
 * worker may still be returning from it, which destroying the workqueue
 * waits for. Then nothing touches the device.
 */
static void gaccel_edu_remove(struct pci_dev *pdev)
{
	struct gaccel_edu *edu = pci_get_drvdata(pdev);

	gaccel_engine_unregister(edu->engine);
	destroy_workqueue(edu->wq);
	devm_free_irq(&pdev->dev, pci_irq_vector(pdev, 0), edu);
	pci_free_irq_vectors(pdev);
}

static const struct pci_device_id gaccel_edu_ids[] = {
	{ PCI_DEVICE(0x1234, 0x11e8) },
	{ }
};
MODULE_DEVICE_TABLE(pci, gaccel_edu_ids);

static struct pci_driver gaccel_edu_driver = {
	.name = KBUILD_MODNAME,
	.id_table = gaccel_edu_ids,
	.probe = gaccel_edu_probe,
	.remove = gaccel_edu_remove,
};
module_pci_driver(gaccel_edu_driver);

MODULE_DESCRIPTION("gaccel engine for QEMU's edu device: CPY by DMA");
MODULE_LICENSE("Dual MIT/GPL");
GACCEL_ENGINE_IMPORT_NS;
