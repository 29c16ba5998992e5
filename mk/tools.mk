# SPDX-License-Identifier: MIT
#
# Example programs of libggml-backend (tools/simple-*.c), linked with the
# static library; `make tools` builds them with the gaccel tools.

SIMPLE_TOOL_SRCS := $(wildcard tools/simple-*.c)
SIMPLE_TOOLS     := $(patsubst tools/%.c,$(BUILD)/tools/%,$(SIMPLE_TOOL_SRCS))

$(BUILD)/tools/simple-%: tools/simple-%.c $(lib_STATIC)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC [tool] $<";)$(CC) $(LIB_CSTD) $(LIB_WARN) -O2 -g $(LIB_CPPFLAGS) -o $@ $< $(lib_STATIC) $(LIB_LDLIBS)

.PHONY: simple-tools
simple-tools: $(SIMPLE_TOOLS)
tools: $(SIMPLE_TOOLS)

# make train-example: tools/simple-train trains a small model with ggml-opt
# on generated data and prints the loss per epoch (ARGS="sgd 30" to pick).
.PHONY: train-example
train-example: $(BUILD)/tools/simple-train
	$(BUILD)/tools/simple-train $(ARGS)
