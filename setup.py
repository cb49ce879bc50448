"""For `scrapyd-deploy`, which builds the egg with `python setup.py bdist_egg`.

Without this file it writes a setup.py of its own that packages every folder with an
``__init__.py`` (tests, bench). Everything is configured in pyproject.toml: the package
(`qivrora_spider`, its settings included), its data files, and the `scrapy` entry point Scrapyd reads.
"""

from setuptools import setup

setup()
