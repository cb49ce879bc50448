"""Sphinx configuration of Qivrora's docs site (``make docs``; Read the Docs reads .readthedocs.yaml).

The check pages and the settings reference are generated at build time from the package
(``_ext/qivrora_docs.py``), so the docs cannot drift from the code.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS.parent), str(DOCS / "_ext")]

from qivrora_spider import __version__  # noqa: E402  (after the path that finds a checkout)

project = "Qivrora"
author = "the Qivrora maintainers"
copyright = "the Qivrora maintainers, MIT licence"
version = release = __version__

extensions = ["myst_parser", "qivrora_docs"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "_generated"]
# Headings up to ### get anchors, so that pages link to sections: [exit statuses](exit-statuses.md#ctrl-c).
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]
# A reference to a page, section or document that does not exist is a warning, and -W makes it an error.
nitpicky = True

html_theme = "furo"
html_title = f"Qivrora {release}"
html_static_path = ["_static"]
html_favicon = "_static/favicon.svg"
