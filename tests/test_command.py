"""`qivrora` as a new user meets it: its own help, its options, its pace and its log, in a subprocess."""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from qivrora_spider import __version__
from qivrora_spider.demo.site_server import Route, SiteServer, alternate, html_page

from .test_false_green import Running, qivrora

#: Every test here runs the `qivrora` command in a process of its own, about a second of start-up each.
pytestmark = pytest.mark.slow

#: A crawl's state would make the second of two runs differ; these tests compare runs.
NO_STATE = ["-s", "QIVRORA_STATE="]
CHILDREN = 12


def small_site(site: SiteServer) -> None:
    """A home page in two languages, one missing its return link, and a few linked pages."""
    a = site.url
    cluster = alternate("en", a("/")) + alternate("de", a("/de/"))
    links = " ".join(f'<a href="/p{i}">p{i}</a>' for i in range(3))
    site.routes["/"] = Route(html_page(cluster, body=links))
    site.routes["/de/"] = Route(html_page(alternate("de", a("/de/")), lang="de"))
    for i in range(3):
        site.routes[f"/p{i}"] = Route(html_page(body="page"))


def test_help_lists_the_everyday_commands_first(tmp_path):
    run = qivrora("--help", cwd=tmp_path)
    assert run.returncode == 0 and "Scrapy" not in run.stdout.split("commands:")[0]
    listed = re.findall(r"^    (\w+) ", run.stdout, re.MULTILINE)
    assert listed == ["audit", "check", "report", "version", "explain", "checks", "scrapy"]
    assert "genspider" not in run.stdout and "startproject" not in run.stdout


def test_version_option_and_command_print_the_version(tmp_path):
    assert qivrora("--version", cwd=tmp_path).stdout == f"Qivrora {__version__}\n"
    assert qivrora("version", cwd=tmp_path).stdout == f"Qivrora {__version__}\n"


def test_audit_help_says_what_each_option_does(tmp_path):
    run = qivrora("audit", "--help", cwd=tmp_path)
    assert run.returncode == 0 and "scrapy audit" not in run.stdout
    for option in ("--report FILE", "--fixes FILE", "--fail-on LEVEL", "--fast", "-o FILE", "--append", "--max-pages N"):
        assert option in run.stdout, option
    assert "-a max_pages=VALUE" not in run.stdout, "an option says what it does, not what it maps to"


@pytest.mark.parametrize("command", [["audit", "http://127.0.0.1:9/"], ["report", "facts.jsonl"], ["check", ".", "--base", "https://example.com/"]])
def test_an_unknown_option_is_one_line_naming_it(command, tmp_path):
    run = qivrora(*command, "--report", "r.html", "--colour", "x", cwd=tmp_path)
    assert run.returncode == 2
    assert len(run.stderr.splitlines()) == 1 and "--colour" in run.stderr, run.stderr
    assert run.stderr.startswith(f"qivrora {command[0]}: ")


def test_an_unknown_command_is_one_line(tmp_path):
    run = qivrora("audti", "https://example.com/", cwd=tmp_path)
    assert run.returncode == 2 and len(run.stderr.splitlines()) == 1 and "'audti'" in run.stderr


def test_audit_writes_findings_report_fixes_and_gates(site, tmp_path):
    small_site(site)
    run = qivrora(
        "audit", site.url("/"), "-o", "f.csv", "--report", "r.html", "--fixes", "x.jsonl", "--fail-on", "error",
        *NO_STATE, cwd=tmp_path,
    )
    assert run.returncode == 1, run.stderr[-2000:]
    assert "HL201" in (tmp_path / "f.csv").read_text()
    assert (tmp_path / "r.html").stat().st_size > 0 and (tmp_path / "x.jsonl").stat().st_size > 0


def test_o_replaces_and_append_appends(site, tmp_path):
    small_site(site)
    assert qivrora("audit", site.url("/"), "-o", "f.jsonl", *NO_STATE, cwd=tmp_path).returncode == 0
    once = (tmp_path / "f.jsonl").read_text()
    assert qivrora("audit", site.url("/"), "-o", "f.jsonl", *NO_STATE, cwd=tmp_path).returncode == 0
    assert (tmp_path / "f.jsonl").read_text() == once
    assert qivrora("audit", site.url("/"), "-o", "f.jsonl", "--append", *NO_STATE, cwd=tmp_path).returncode == 0
    assert (tmp_path / "f.jsonl").read_text() == once * 2


def test_report_audits_exported_facts_and_o_replaces(site, tmp_path):
    small_site(site)
    crawled = qivrora("audit", site.url("/"), "-o", "f.jsonl", "-o", "facts.jsonl:facts", *NO_STATE, cwd=tmp_path)
    assert crawled.returncode == 0, crawled.stderr[-2000:]
    (tmp_path / "offline.jsonl").write_text("stale\n")
    run = qivrora("report", "facts.jsonl", "-o", "offline.jsonl", "--fail-on", "error", cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert (tmp_path / "offline.jsonl").read_text() == (tmp_path / "f.jsonl").read_text()


def test_check_audits_a_build_folder(tmp_path):
    folder = tmp_path / "public"
    (folder / "de").mkdir(parents=True)
    base = "https://example.com"
    (folder / "index.html").write_text(html_page(alternate("en", f"{base}/"), alternate("de", f"{base}/de/")))
    (folder / "de" / "index.html").write_text(html_page(alternate("de", f"{base}/de/"), lang="de"))
    run = qivrora("check", "public", "--base", f"{base}/", "-o", "f.csv", *NO_STATE, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "HL201" in (tmp_path / "f.csv").read_text()


def test_scrapy_commands_stay_reachable(tmp_path):
    run = qivrora("scrapy", "settings", "--get", "BOT_NAME", cwd=tmp_path)
    assert (run.returncode, run.stdout) == (0, "qivrora\n")


# --- the log ----------------------------------------------------------------------------------------


def test_the_log_is_quiet_and_ends_with_the_summary(site, tmp_path):
    small_site(site)
    run = qivrora("audit", site.url("/"), "-o", "f.csv", *NO_STATE, cwd=tmp_path)
    assert run.returncode == 0
    lines = run.stderr.rstrip().splitlines()
    assert len(lines) < 25, run.stderr
    scrapy = [line for line in lines if "[scrapy" in line and "Stored csv feed" not in line]
    assert not scrapy, "Scrapy's INFO lines only under -v, but where the findings were stored"
    summary = lines.index(next(line for line in lines if line.startswith("Qivrora audit:")))
    assert all(line.startswith("  ") or line.endswith(":") for line in lines[summary + 1:]), "the summary is last"


def test_the_summary_survives_a_warning_level(site, tmp_path):
    small_site(site)
    run = qivrora("audit", site.url("/"), "-o", "f.csv", "-L", "WARNING", *NO_STATE, cwd=tmp_path)
    assert run.stderr.startswith("Qivrora audit: 1 error, 2 warnings"), run.stderr


def test_verbose_shows_scrapy_lines(site, tmp_path):
    small_site(site)
    run = qivrora("audit", site.url("/"), "-o", "f.csv", "-v", *NO_STATE, cwd=tmp_path)
    assert "Dumping Scrapy stats" in run.stderr and "Enabled downloader middlewares" in run.stderr
    assert run.stderr.rstrip().splitlines()[-1].startswith("  "), "the summary still last"


# --- the pace -----------------------------------------------------------------------------------------


class _CountingServer(ThreadingHTTPServer):
    """Answers every path with a page after holding it a while, counting the requests it holds at once."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Held)
        self.lock = threading.Lock()
        self.held = self.most_held = 0
        self.release = threading.Event()


class _Held(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _CountingServer

    def do_GET(self) -> None:
        if self.path.startswith("/p"):
            with self.server.lock:
                self.server.held += 1
                self.server.most_held = max(self.server.most_held, self.server.held)
                if self.server.most_held >= CHILDREN // 2:
                    self.server.release.set()
            self.server.release.wait(timeout=3)  # a polite crawl never gets there: it holds 3 s each
            with self.server.lock:
                self.server.held -= 1
        links = "".join(f'<a href="/p{i}">p</a>' for i in range(CHILDREN)) if self.path == "/" else ""
        body = html_page(body=links).encode()
        self.send_response(200 if self.path != "/robots.txt" else 404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def counting_server() -> Iterator[_CountingServer]:
    server = _CountingServer()
    # Stopped at once, as SiteServer is: serve_forever looks at its flag every poll_interval.
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_a_local_server_gets_no_delay_by_default(counting_server, tmp_path):
    url = f"http://127.0.0.1:{counting_server.server_address[1]}/"
    run = qivrora("audit", url, "-o", "f.csv", *NO_STATE, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert counting_server.most_held >= CHILDREN // 2, "its pages are asked for at once, not 4 at a time"


def test_the_progress_line_says_when_the_crawl_waits_on_the_delay(counting_server, tmp_path):
    url = f"http://127.0.0.1:{counting_server.server_address[1]}/"
    counting_server.release.set()  # answer at once: only the delay holds the crawl
    run = Running(
        "audit", url, "-o", "f.csv", "-s", "DOWNLOAD_DELAY=0.5", "-s", "QIVRORA_PROGRESS_INTERVAL=0.2", *NO_STATE,
        "-a", "max_pages=2",  # a few waits show the line; a dozen pages would wait a dozen delays
        cwd=tmp_path,
    )
    assert run.finish() == 0
    assert re.search(
        r"Progress: .* queued, .*; waiting: [\d.]+ s between requests to 127\.0\.0\.1; --fast for your own server",
        run.text(),
    ), run.text()


def test_a_stalled_crawl_says_what_it_waits_for(site, tmp_path):
    site.routes["/"] = Route(html_page(body="slow"), delay=1.5)
    run = Running("audit", site.url("/"), "-o", "f.csv", "-s", "QIVRORA_PROGRESS_INTERVAL=0.3", *NO_STATE, cwd=tmp_path)
    assert run.finish() == 0
    assert re.search(
        r"nothing new for 0\.3 s: 1 requests awaiting an answer \(timeout 20 s\), 0 retried and 0 timed out so far",
        run.text(),
    ), run.text()


def test_demo_runs_the_users_command():
    from qivrora_spider.demo.__main__ import audit_command

    command = audit_command("http://127.0.0.1:1/", Path("out"))
    assert command[1:4] == ["-m", "qivrora_spider", "audit"]
    assert not any(part.startswith(("DOWNLOAD_DELAY", "AUTOTHROTTLE")) for part in command) and "--fast" not in command
