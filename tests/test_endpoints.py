"""A crawl opens no endpoint: Scrapy's remote control and telnet console stay off unless asked for."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import pytest_twisted
from scrapy import signals

from qivrora_spider.demo.site_server import Route, SiteServer, html_page

from .conftest import crawl

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/net/tcp").exists(), reason="reads the process's sockets from Linux's /proc"
)

#: The `st` column of /proc/net/tcp for a listening socket.
TCP_LISTEN = "0A"


def listening_ports() -> set[int]:
    """The TCP ports this process listens on. /proc/net/tcp lists the sockets of every process in the
    network namespace (a CI runner's too), so only those among this process's open files count."""
    own: set[str] = set()
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # closed since it was listed
            own.add(os.readlink(f"/proc/self/fd/{fd}"))
    ports: set[int] = set()
    for table in (Path("/proc/self/net/tcp"), Path("/proc/self/net/tcp6")):
        if not table.exists():  # IPv6 off
            continue
        for line in table.read_text().splitlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == TCP_LISTEN and f"socket:[{inode}]" in own:
                ports.add(int(local.rsplit(":", 1)[1], 16))
    return ports


def files_under(folder: Path) -> dict[str, bytes]:
    """What the files under a folder hold, read now: the remote control removes its job file at the end."""
    files = (path for path in folder.rglob("*") if path.is_file())
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in files}


@pytest.fixture
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's state folder, where the remote control writes its job file (with its token) by default:
    a temporary one, so that no test writes into the real profile."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    return tmp_path


#: What a look at the process mid-crawl sees: the ports it listens on, the files in the state folder.
Sight = tuple[set[int], dict[str, bytes]]


async def crawl_and_look(
    site: SiteServer, state_home: Path, settings: dict[str, object] | None = None
) -> list[Sight]:
    """Crawl the site, looking at the process at each response."""
    site.routes["/"] = Route(html_page())
    sights: list[Sight] = []

    def look() -> None:
        sights.append((listening_ports(), files_under(state_home)))

    await crawl(settings, handlers={signals.response_received: look}, start=site.url("/"))
    assert sights, "no response came to look at the process from"
    return sights


@pytest_twisted.ensureDeferred
async def test_a_default_crawl_listens_on_no_port_and_writes_no_job_file(
    site: SiteServer, state_home: Path
) -> None:
    before = listening_ports()
    assert urlsplit(site.base).port in before, "the test's own site server is seen listening"

    for ports, job_files in await crawl_and_look(site, state_home):
        assert ports == before
        assert job_files == {}


@pytest_twisted.ensureDeferred
async def test_remote_control_enabled_opens_one_port_named_in_its_job_file(
    site: SiteServer, state_home: Path
) -> None:
    before = listening_ports()

    for ports, job_files in await crawl_and_look(site, state_home, {"REMOTE_CONTROL_ENABLED": True}):
        opened = ports - before
        assert len(opened) == 1
        [(name, job_file)] = job_files.items()
        assert name.startswith("scrapy/job_files/")
        assert json.loads(job_file)["port"] in opened
    assert files_under(state_home) == {}, "the job file is removed when the crawl ends"
