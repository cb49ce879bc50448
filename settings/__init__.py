"""The checkout's settings module (``scrapy.cfg``: ``[settings] default = settings``).

The defaults live in the package, ``qivrora_spider/settings/__init__.py``, so that an installed
Qivrora carries them without putting a top-level ``settings`` package into site-packages. This
module only re-exports them for the checkout's ``scrapy`` command.
"""

from qivrora_spider.settings import *  # noqa: F403
