"""Qivrora's performance benchmark: a synthetic site, a fast server, and a side-by-side runner.

A package so that Scrapy (``STATS_CLASS``) and the smoke test can import its modules by name.
"""
