"""Installed like a tool: the wheel in a fresh virtualenv outside the checkout, `qivrora` in an empty folder.

The wheel is built from a copy of the checkout with the checkout's own setuptools (no build isolation,
no index). The virtualenv gets the wheel only; its dependencies come from the checkout's virtualenv,
whose site-packages a .pth file adds, and pip installs with no index: a dependency range that the
pinned set (requirements.txt) does not satisfy fails the install instead of downloading something else.
No network, about 20 seconds, most of them the two crawls.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from qivrora_spider import __version__

from .conftest import copy_checkout
from .fixture_sites import multilingual_site
from .test_cli import scrapy

pytestmark = pytest.mark.slow  # builds a wheel and a virtualenv

FAST = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "DOWNLOAD_DELAY=0"]


class Installed:
    """A virtualenv holding the built wheel; runs its `qivrora` in a folder of its own."""

    def __init__(self, home: Path, wheel: Path) -> None:
        self.home, self.wheel = home, wheel
        self.bin = home / "bin"
        self.site_packages = Path(
            sysconfig.get_path("purelib", vars={"base": str(home), "platbase": str(home)})
        )
        # Not the test run's: conftest names the checkout's `settings`, which this install must not need.
        self.environment = {
            name: value for name, value in os.environ.items() if name not in ("SCRAPY_SETTINGS_MODULE", "PYTHONPATH")
        }

    def run(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            args, cwd=cwd, env=self.environment, capture_output=True, text=True, timeout=240
        )

    def qivrora(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return self.run(str(self.bin / "qivrora"), *args, cwd=cwd)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    build = tmp_path_factory.mktemp("build")
    source = copy_checkout(build / "source")
    subprocess.run(
        [sys.executable, "-m", "pip", "--isolated", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "-w", str(build / "dist"), str(source)],
        check=True, capture_output=True, timeout=240,
    )
    (wheel,) = (build / "dist").glob("qivrora-*.whl")
    environment = Installed(tmp_path_factory.mktemp("venv"), wheel)
    venv.create(environment.home, with_pip=False)
    environment.site_packages.joinpath("checkout-dependencies.pth").write_text(
        f"import site; site.addsitedir({sysconfig.get_path('purelib')!r})\n"
    )
    install = environment.run(
        # --isolated: no find-links or index from the machine's pip configuration either.
        str(environment.bin / "python"), "-m", "pip", "--isolated", "install", "--no-index", "--no-cache-dir", str(wheel),
        cwd=build,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    return environment


def test_the_wheel_holds_qivrora_spider_and_no_top_level_settings(installed):
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = wheel.namelist()
        top = {name.split("/")[0] for name in names}
        entry_points = wheel.read(f"qivrora-{__version__}.dist-info/entry_points.txt").decode()
    assert top == {"qivrora_spider", f"qivrora-{__version__}.dist-info"}
    assert "qivrora_spider/report/templates/report.html.j2" in names, "package data"
    assert "qivrora = qivrora_spider.cli:main" in entry_points
    assert "settings = qivrora_spider.settings" in entry_points

    installed_top = {path.name for path in installed.site_packages.iterdir()}
    assert "qivrora_spider" in installed_top and "settings" not in installed_top
    assert (installed.site_packages / "qivrora_spider/report/templates/report.html.j2").exists()


def test_qivrora_crawl_in_an_empty_folder_finds_what_the_checkout_finds(installed, site, other_site, tmp_path):
    multilingual_site(site, other_site)
    start = f"start={site.url('/')}"
    folder = tmp_path / "anywhere"
    folder.mkdir()
    where = installed.run(str(installed.bin / "python"), "-c", "import qivrora_spider; print(qivrora_spider.__file__)", cwd=folder)
    assert where.stdout.startswith(str(installed.site_packages)), "the installed package, not the checkout"

    # Relative paths, the crawl state's default included, are relative to the working folder.
    run = installed.qivrora(
        "crawl", "hreflang", "-a", start, "-O", "findings.csv", "-O", "facts.jsonl:facts", "-O", "findings.xml",
        "-s", "QIVRORA_REPORT=report.html", *FAST, cwd=folder,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert (folder / ".qivrora" / "state.sqlite").exists() and (folder / "report.html").stat().st_size > 0
    assert b"<testsuites" in (folder / "findings.xml").read_bytes()

    checkout = tmp_path / "checkout.csv"
    state = f"QIVRORA_STATE={tmp_path / 'checkout-state.sqlite'}"
    assert scrapy("crawl", "hreflang", "-a", start, "-O", str(checkout), "-s", state, *FAST).returncode == 0
    assert (folder / "findings.csv").read_bytes() == checkout.read_bytes()
    assert len(checkout.read_text().splitlines()) > 1

    report = installed.qivrora("hreflang-report", "facts.jsonl", "-O", "offline.csv", cwd=folder)
    assert report.returncode == 0, report.stderr
    offline = tmp_path / "checkout-offline.csv"
    assert scrapy("hreflang-report", str(folder / "facts.jsonl"), "-O", str(offline)).returncode == 0
    assert (folder / "offline.csv").read_bytes() == offline.read_bytes()


def test_qivrora_has_one_version_and_ignores_a_scrapy_cfg_of_another_project(installed, tmp_path):
    (tmp_path / "scrapy.cfg").write_text("[settings]\ndefault = another_project.settings\n")
    assert installed.qivrora("version", cwd=tmp_path).stdout == f"Qivrora {__version__}\n"
    metadata = installed.run(
        str(installed.bin / "python"), "-c", "import importlib.metadata as m; print(m.version('qivrora'))", cwd=tmp_path
    )
    assert metadata.stdout.strip() == __version__
    user_agent = installed.qivrora("settings", "--get", "USER_AGENT", cwd=tmp_path).stdout
    assert user_agent.startswith(f"Qivrora/{__version__} (")
    bad = installed.qivrora("crawl", "hreflang", "-a", "max_pages=ten", "-a", "start=https://example.com/", cwd=tmp_path)
    assert (bad.returncode, bad.stderr) == (2, "qivrora: max_pages: 'ten' is not a whole number\n")
