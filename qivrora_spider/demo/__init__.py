"""The demo: a small multilingual shop with documented defects, and the command that audits it.

``python -m qivrora_spider.demo`` (``make demo``) serves the site and runs the audit as a user would;
``site`` builds it, and holds the answer key the end-to-end tests check the audit against.
"""
