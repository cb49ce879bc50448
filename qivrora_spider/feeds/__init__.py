"""Findings and facts written as Scrapy feeds: the exporters, and storage that never leaves half a file."""
