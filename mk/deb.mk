# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# make deb: the Debian packages of debian/ (gaccel-dkms, libggml-gaccel0,
# libggml-gaccel-dev, gaccel-tools), built by dpkg-buildpackage from a copy
# of the tree in $(DEB_DIR)/src - dpkg-buildpackage writes its results
# beside the source directory, which must not be the parent of the
# checkout - then checked by lintian, which must report no error and no
# warning (debian/*.lintian-overrides say why for each override). The
# results are in $(DEB_DIR): the .debs, the .dsc and source tarball, the
# .changes and .buildinfo, and lintian.log.
#
# The copy is what git tracks plus what it does not ignore (work not yet
# committed included); outside a git checkout, the tree without $(BUILD).

DEB_DIR       := $(BUILD)/deb
DEB_SRC       := $(DEB_DIR)/src/gaccel-$(VERSION)
DEB_ARCH      := $(shell dpkg-architecture -qDEB_HOST_ARCH 2>/dev/null)
DEB_CHANGES   := $(DEB_DIR)/gaccel_$(VERSION)_$(DEB_ARCH).changes
DEB_PARALLEL  ?= $(or $(patsubst -j%,%,$(filter -j%,$(MAKEFLAGS))),1)

.PHONY: deb
deb:
	@command -v dpkg-buildpackage >/dev/null && command -v dh_dkms >/dev/null && command -v lintian >/dev/null || \
		{ echo "make deb needs dpkg-dev, debhelper, dh-dkms and lintian: run 'make deps'" >&2; exit 1; }
	@rm -rf $(DEB_DIR) && mkdir -p $(DEB_SRC)
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | \
			tar --null -T - --ignore-failed-read -c 2>/dev/null; \
	else \
		tar -c --exclude=./$(BUILD) --exclude-vcs .; \
	fi | tar -x -C $(DEB_SRC)
	@echo "  DEB     $(DEB_DIR) (dpkg-buildpackage, log in $(DEB_DIR)/build.log)"
	@cd $(DEB_SRC) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD -u O -u DESTDIR -u PREFIX -u LIBDIR \
		-u INCLUDEDIR -u BINDIR -u MANDIR -u UDEVDIR -u SRCDIR -u MODULESLOADDIR \
		DEB_BUILD_OPTIONS="parallel=$(DEB_PARALLEL)" \
		dpkg-buildpackage -us -uc >$(ABS_BUILD)/deb/build.log 2>&1 || \
		{ tail -40 $(ABS_BUILD)/deb/build.log >&2; exit 1; }
	@mv $(DEB_DIR)/src/*.deb $(DEB_DIR)/src/*.dsc $(DEB_DIR)/src/*.tar.* $(DEB_DIR)/src/*.changes \
		$(DEB_DIR)/src/*.buildinfo $(DEB_DIR)/
	@rm -rf $(DEB_DIR)/src
	@echo "  LINTIAN $(DEB_CHANGES)"
	@lintian --fail-on error,warning --tag-display-limit 0 $(DEB_CHANGES) >$(DEB_DIR)/lintian.log 2>&1; \
		rc=$$?; cat $(DEB_DIR)/lintian.log; exit $$rc
	@ls $(DEB_DIR)/*.deb
