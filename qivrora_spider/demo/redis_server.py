"""A redis-server of one's own on 127.0.0.1, for the distributed tests and benchmark: nothing saved,
nothing shared with another Redis on the machine."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from redis import Redis
from redis.exceptions import RedisError


class RedisMissing(RuntimeError):
    """Debian's redis-server package is not installed."""


@contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """Start redis-server on a free port with `folder` as its directory; yields its URL."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise RedisMissing("redis-server not found: apt-get install -y redis-server")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
         "--dir", str(folder)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}"
    try:
        client, deadline = Redis.from_url(url), time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except RedisError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
