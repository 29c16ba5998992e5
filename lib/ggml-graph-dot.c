/*
 * ggml-graph-dot.c - ggml_graph_dump_dot(): a graph as a Graphviz file.
 *
 * One box per node (name, op, type, shape; parameters and outputs
 * highlighted, nodes without GGML_TENSOR_FLAG_COMPUTE dashed) and per leaf,
 * one edge per source labelled with the source slot. With a second graph
 * gb (e.g. a backward graph holding cgraph), cgraph's nodes that also
 * appear in gb get their gradient's name.
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-impl.h"

#include <stdio.h>

static void dot_label(FILE * f, const struct ggml_tensor * t) {
    // names may hold quotes or angle brackets: keep what a record label accepts
    for (const char * p = t->name; *p; p++) {
        if (*p == '"' || *p == '\\' || *p == '{' || *p == '}' || *p == '|' || *p == '<' || *p == '>') {
            fputc('_', f);
        } else {
            fputc(*p, f);
        }
    }
}

static void dot_tensor(FILE * f, const struct ggml_cgraph * gb, const struct ggml_tensor * t, bool leaf) {
    const char * color = (t->flags & GGML_TENSOR_FLAG_PARAM) ? "yellow" :
                         (t->flags & GGML_TENSOR_FLAG_OUTPUT) ? "lightblue" : leaf ? "pink" : "white";
    fprintf(f, "  \"%p\" [style=\"filled%s\"; fillcolor=%s; shape=record; label=\"", (const void *) t,
            !leaf && !(t->flags & GGML_TENSOR_FLAG_COMPUTE) ? ",dashed" : "", color);
    dot_label(f, t);
    fprintf(f, " (%s)|%s|[%lld, %lld, %lld, %lld]", ggml_type_name(t->type), leaf ? "leaf" : ggml_op_desc(t),
            (long long) t->ne[0], (long long) t->ne[1], (long long) t->ne[2], (long long) t->ne[3]);
    if (gb != NULL && gb->grads != NULL) {
        const struct ggml_tensor * g = ggml_graph_get_grad(gb, t);
        if (g != NULL) {
            fprintf(f, "|grad: ");
            dot_label(f, g);
        }
    }
    fprintf(f, "\"; ]\n");
}

void ggml_graph_dump_dot(const struct ggml_cgraph * gb, const struct ggml_cgraph * cgraph, const char * filename) {
    FILE * f = fopen(filename, "w");
    if (f == NULL) {
        GGML_LOG_ERROR("%s: cannot open %s for writing\n", __func__, filename);
        return;
    }
    fprintf(f, "digraph G {\n  newrank = true;\n  rankdir = TB;\n");
    for (int i = 0; i < cgraph->n_nodes; i++) {
        dot_tensor(f, gb, cgraph->nodes[i], false);
    }
    for (int i = 0; i < cgraph->n_leafs; i++) {
        dot_tensor(f, gb, cgraph->leafs[i], true);
    }
    for (int i = 0; i < cgraph->n_nodes; i++) {
        const struct ggml_tensor * t = cgraph->nodes[i];
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            if (t->src[s] != NULL) {
                fprintf(f, "  \"%p\" -> \"%p\" [ label = \"%d\"; ]\n", (const void *) t->src[s], (const void *) t, s);
            }
        }
    }
    fprintf(f, "}\n");
    if (fclose(f) != 0) {
        GGML_LOG_ERROR("%s: writing %s failed\n", __func__, filename);
        return;
    }
    GGML_LOG_INFO("%s: dot -Tpng %s -o %s.png && open %s.png\n", __func__, filename, filename, filename);
}
