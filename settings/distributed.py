"""The checkout's name of the distributed profile: ``SCRAPY_SETTINGS_MODULE=settings.distributed``.

The profile lives in the package, ``qivrora_spider/settings/distributed.py``; this re-exports it.
"""

from qivrora_spider.settings.distributed import *  # noqa: F403
