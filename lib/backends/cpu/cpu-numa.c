/*
 * cpu-numa.c - NUMA nodes, read from /sys/devices/system/node.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "cpu-impl.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int g_numa_nodes = 0;   // nodes found by ggml_numa_init (0: not initialised)
static enum ggml_numa_strategy g_numa_strategy = GGML_NUMA_STRATEGY_DISABLED;

static int count_nodes(void) {
    DIR * d = opendir("/sys/devices/system/node");
    if (d == NULL) {
        return 1;
    }
    int n = 0;
    struct dirent * e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "node", 4) == 0 && e->d_name[4] >= '0' && e->d_name[4] <= '9') {
            n++;
        }
    }
    closedir(d);
    return n > 0 ? n : 1;
}

void ggml_numa_init(enum ggml_numa_strategy numa) {
    if (g_numa_nodes > 0) {
        GGML_LOG_DEBUG("%s: NUMA already initialized\n", __func__);
        return;
    }
    g_numa_strategy = numa;
    g_numa_nodes    = count_nodes();
    GGML_LOG_DEBUG("%s: %d NUMA node(s), strategy %d\n", __func__, g_numa_nodes, (int) numa);
}

bool ggml_is_numa(void) {
    return g_numa_nodes > 1;
}

int ggml_cpu_numa_n_nodes(void) {
    return g_numa_nodes > 0 ? g_numa_nodes : count_nodes();
}
