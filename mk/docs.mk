# SPDX-License-Identifier: MIT
#
# make docs: Documentation/ as HTML ($(BUILD)/docs/html) and the manual
# pages of Documentation/man ($(BUILD)/docs/man: the tools in section 1,
# the driver in 4, the library in 7), with Debian's Sphinx, warnings as
# errors (tests/check/85-docs.t builds both in make check). make install
# installs the manual pages into MANDIR.

SPHINXBUILD ?= /usr/bin/sphinx-build
MANDIR      ?= $(PREFIX)/share/man
DOCS_OUT    := $(BUILD)/docs
DOC_SRCS    := $(wildcard Documentation/*.rst Documentation/man/*.rst) Documentation/conf.py dkms.conf

$(DOCS_OUT)/%/.stamp: $(DOC_SRCS)
	@rm -rf $(@D) && mkdir -p $(@D)
	$(if $(V),,@echo "  DOC [$*] $(@D)";)$(SPHINXBUILD) -q -W --keep-going -b $* \
		-d $(DOCS_OUT)/doctrees-$* Documentation $(@D)
	@touch $@

.PHONY: docs man install-man
docs: $(DOCS_OUT)/html/.stamp $(DOCS_OUT)/man/.stamp
man: $(DOCS_OUT)/man/.stamp

install-man: $(DOCS_OUT)/man/.stamp
	for s in 1 4 7; do \
		install -d $(DESTDIR)$(MANDIR)/man$$s && \
		install -m 644 $(DOCS_OUT)/man/*.$$s $(DESTDIR)$(MANDIR)/man$$s/ || exit 1; \
	done

install: install-man
