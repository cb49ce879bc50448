"""`qivrora`: Scrapy's command line bound to Qivrora's settings, from any folder.

`scrapy` finds a project's settings through the ``scrapy.cfg`` of the working folder or one above
it. An installed Qivrora has no such file, and the folder a user audits from may hold one of another
project. So `qivrora` names its settings itself, and a ``scrapy.cfg`` has no say in them;
``SCRAPY_SETTINGS_MODULE``, when set, still chooses the module (the distributed profile,
``qivrora_spider.settings.distributed``, or a module of one's own that starts with ``from
qivrora_spider.settings import *``). Relative paths stay relative to the working folder.
"""

from __future__ import annotations

import os

from scrapy.cmdline import execute

#: The settings `qivrora` runs with unless SCRAPY_SETTINGS_MODULE names others.
SETTINGS_MODULE = "qivrora_spider.settings"


def main() -> None:
    """The console script: `qivrora crawl hreflang ...`, `qivrora hreflang-report ...`, `qivrora audit`."""
    os.environ.setdefault("SCRAPY_SETTINGS_MODULE", SETTINGS_MODULE)
    execute()
