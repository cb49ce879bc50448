"""``python -m qivrora_spider``: the `qivrora` command, from a checkout that installs no console script."""

from __future__ import annotations

from .cli import main

main()
