# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# Sphinx configuration of gaccel's documentation: `make docs` builds the
# HTML pages and the manual pages of the tools, the driver and the library
# (Debian's python3-sphinx; warnings are errors).
import os
import re

project = 'gaccel'
master_doc = 'index'

# The version is dkms.conf's, like the module's and the library's.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'dkms.conf')) as f:
    version = re.search(r'^PACKAGE_VERSION="?([^"\n]+)"?', f.read(), re.M).group(1)
release = version

exclude_patterns = []
html_show_sourcelink = False

man_pages = [
    ('man/gaccel-info', 'gaccel-info',
     'show gaccel devices and write a CDI spec for containers', [], 1),
    ('man/gaccel-demo', 'gaccel-demo',
     'run a small model on the gaccel device beside the CPU', [], 1),
    ('man/gaccel-bench', 'gaccel-bench',
     'measure the gaccel device against the CPU', [], 1),
    ('man/gaccel', 'gaccel',
     'DRM accel driver for ggml compute graphs', [], 4),
    ('man/ggml-backend', 'ggml-backend',
     'C implementation of the ggml-backend API', [], 7),
]
man_show_urls = False
man_make_section_directory = False
