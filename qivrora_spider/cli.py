"""`qivrora`: Qivrora's own command line, with Scrapy's behind it.

The everyday commands (`audit`, `check`, `report`, `version`) have their own help, in which every
option says what it does; each is turned into the Scrapy command that runs it (``commands/``), so a
short form and its full form run the same crawl through the same checks. argparse, not click or
typer: the commands are few and flat, argparse already reads Scrapy's own options, and a dependency
would add nothing the help needs.

Scrapy's commands stay reachable as `qivrora scrapy COMMAND ...` (and, as before this command line,
`qivrora crawl ...`, `qivrora hreflang-report ...` and `qivrora settings ...`).

`scrapy` finds a project's settings through the ``scrapy.cfg`` of the working folder or one above
it. An installed Qivrora has no such file, and the folder a user audits from may hold one of another
project. So `qivrora` names its settings itself, and a ``scrapy.cfg`` has no say in them;
``SCRAPY_SETTINGS_MODULE``, when set, still chooses the module (the distributed profile,
``qivrora_spider.settings.distributed``, or a module of one's own that starts with ``from
qivrora_spider.settings import *``). Relative paths stay relative to the working folder.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn

from scrapy.cmdline import execute

from . import __version__
from .compat.cpython import quick_exit
from .findings import SEVERITY_RANK
from .spiders.arguments import KNOWN

#: The settings `qivrora` runs with unless SCRAPY_SETTINGS_MODULE names others.
SETTINGS_MODULE = "qivrora_spider.settings"

#: Scrapy's commands that `qivrora NAME` still runs directly, as it did before its own commands.
SCRAPY_DIRECT = ("crawl", "hreflang-report", "settings")

#: `--fast`: no delay and more requests at a time to every host; for one's own or a local server.
FAST = {"AUTOTHROTTLE_ENABLED": "False", "DOWNLOAD_DELAY": "0", "CONCURRENT_REQUESTS_PER_DOMAIN": "16"}

#: What each spider argument does, for `qivrora audit --help`.
ARGUMENT_HELP = {
    "urls": "audit exactly the URLs listed in FILE (one a line) and their alternates, following no links",
    "max_pages": "stop following links after N pages (the URLs left out are reported as not examined)",
    "max_depth": "follow links at most N clicks from a start (0: the starts and their alternates)",
    "hosts": "also crawl these hosts in full (comma-separated), besides the start hosts",
    "site": "audit a build folder instead of the network (with --base)",
    "base": "with --site: the URL where the folder is deployed",
    "live": "with --site: 1 fetches URLs outside --base from the network",
    "pretty": "with --site: 0 serves /page only from page/index.html, not page.html",
    "render": "1: also render HTML pages in headless Chromium (the render extra)",
    "locale_probe": "1: request each annotated page once more with another language's Accept-Language (HL801)",
}
assert set(ARGUMENT_HELP) == set(KNOWN) - {"start"}, "every spider argument has its option"

DESCRIPTION = "Audit a site's hreflang annotations and sitemaps: each finding with its page, check and fix."

EPILOG = """\
Scrapy's commands run with Qivrora's settings: qivrora scrapy crawl hreflang -a start=URL -O findings.csv
`qivrora COMMAND --help` says what each option does."""

EPILOG_AUDIT = """\
examples:
  qivrora audit https://example.com/ -o findings.csv --report report.html
  qivrora audit https://example.com/sitemap.xml -o hreflang.xml --fail-on error     (a CI gate)
  qivrora audit http://127.0.0.1:8000/ -o findings.csv     (your own server: no delay by default)

exit status: 0 clean (or findings below --fail-on), 1 findings at or above --fail-on, 2 wrong
arguments, 3 could not audit (no usable start, an outage), 130 interrupted (Ctrl-C).
Public hosts get a polite pace (0.25 s between requests, adapted by AutoThrottle); loopback and
private addresses and build folders none; --fast drops it everywhere."""


def _setting(name: str, value: object) -> list[str]:
    return ["-s", f"{name}={value}"]


def _outputs(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "-o", "--output", metavar="FILE", action="append", default=[],
        help=f"write {what} to FILE, replacing it; the format from its extension (.csv, .jsonl, .json, "
        ".xml for JUnit) or FILE:FORMAT (facts.jsonl:facts exports the facts); repeatable",
    )
    parser.add_argument("--append", action="store_true", help="append to the -o files instead of replacing them")
    parser.add_argument("--report", metavar="FILE", help="write the HTML report (fix first, clusters, findings) to FILE")
    parser.add_argument("--fixes", metavar="FILE", help="write the annotations each cluster should carry, one JSON line each")
    parser.add_argument(
        "--fail-on", metavar="LEVEL",
        help=f"exit with status 1 when a finding is at or above LEVEL ({', '.join(SEVERITY_RANK)}); "
        "SEGMENT:LEVEL (de:error) looks at one segment only",
    )
    parser.add_argument(
        "--segment", metavar="NAME=PATTERN", action="append", default=[],
        help="count a part of the site apart in the summary, the report and JUnit (de=/de/, de=de., "
        "de=.de, or a glob with *); repeatable; default: the locale segments learned from the clusters",
    )
    parser.add_argument(
        "-s", "--set", metavar="NAME=VALUE", action="append", default=[], dest="settings",
        help="set a Scrapy or Qivrora setting (the docs' Settings page); repeatable",
    )


def _logging(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-v", "--verbose", action="store_true", help="log everything, Scrapy's lines too (-L DEBUG)")
    parser.add_argument(
        "-L", "--loglevel", metavar="LEVEL",
        help="log at LEVEL (DEBUG, INFO, WARNING, ERROR); the summary is printed last whatever the level",
    )
    parser.add_argument("--logfile", metavar="FILE", help="write the log to FILE instead of stderr")


class _Parser(argparse.ArgumentParser):
    """A wrong argument is one line that names it, and exit status 2, as every other usage error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The command line, and each command's own parser by name."""
    parser = _Parser(
        prog="qivrora", description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"Qivrora {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, title="commands")

    audit = commands.add_parser(
        "audit", help="audit a live site, a sitemap or a list of URLs", epilog=EPILOG_AUDIT,
        description="Audit a site: crawl it from its starts, check every hreflang annotation and sitemap "
        "entry, and write the findings.", formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    audit.add_argument(
        "start", nargs="*", metavar="URL",
        help="where to start: a page, a sitemap (plain, gzip or index), a robots.txt, or a sitemap file",
    )
    _outputs(audit, "the findings")
    audit.add_argument("--fast", action="store_true", help="no delay, 16 requests at a time per host: for your own server")
    for name, text in ARGUMENT_HELP.items():
        metavar = {"urls": "FILE", "site": "FOLDER", "base": "URL", "hosts": "HOST,...", "max_pages": "N",
                   "max_depth": "N"}.get(name, "1|0")
        audit.add_argument("--" + name.replace("_", "-"), dest=f"argument_{name}", metavar=metavar, help=text)
    audit.add_argument("-a", dest="spider_arguments", metavar="NAME=VALUE", action="append", default=[],
                       help="a spider argument in Scrapy's form (-a max_pages=100)")
    _logging(audit)

    check = commands.add_parser(
        "check", help="audit a build folder before it is deployed",
        description="Audit a static build folder as if deployed at --base: no request leaves the machine.",
    )
    check.add_argument("folder", metavar="FOLDER", help="the build folder (public/, _site/, dist/ ...)")
    check.add_argument(
        "start", nargs="*", metavar="URL",
        help="where to start, if not at --base: a page or sitemap under --base (https://example.com/en/)",
    )
    check.add_argument("--base", required=True, metavar="URL", help="the URL where the folder is deployed")
    _outputs(check, "the findings")
    _logging(check)

    report = commands.add_parser(
        "report", help="audit facts exported by earlier crawls (-o facts.jsonl:facts), without crawling",
        description="Audit the facts one or many crawls exported, merged and de-duplicated; no request is sent.",
    )
    report.add_argument("facts", nargs="*", metavar="FACTS.jsonl", help="facts files (-o facts.jsonl:facts)")
    report.add_argument("--redis", metavar="URL", help="audit the facts a distributed crawl keeps in this Redis")
    report.add_argument("--key", help="with --redis: the crawl key (QIVRORA_CRAWL_KEY), if Redis holds several")
    _outputs(report, "the findings")

    version = commands.add_parser("version", help="print Qivrora's version", description="Print Qivrora's version.")
    version.add_argument("-v", "--verbose", action="store_true", help="also Scrapy's, its libraries' and the platform's")

    explain = commands.add_parser(
        "explain", help="a check's page: why it matters, a failing example, the fix",
        description="Print a check's page of the docs: why it matters, a failing example and its fix.",
    )
    explain.add_argument("check", metavar="CHECK", help="its id or name: HL201 or missing-return-link")
    commands.add_parser(
        "checks", help="list the check catalogue: id, name, severity, status",
        description="List every check: id, name, default severity, and whether it is stable or preview.",
    )

    commands.add_parser(
        "scrapy", help="run a Scrapy command with Qivrora's settings", add_help=False,
        description="Run a Scrapy command with Qivrora's settings: qivrora scrapy crawl hreflang ...",
    )
    return parser, commands.choices


def _common(options: argparse.Namespace, outputs: list[str]) -> list[str]:
    """The options every everyday command turns into Scrapy's: ``outputs``, report, fixes, gate, settings."""
    argv = list(outputs)
    if options.report:
        argv += _setting("QIVRORA_REPORT", options.report)
    if options.fixes:
        argv += _setting("QIVRORA_FIXES", options.fixes)
    if options.fail_on:
        argv += _setting("QIVRORA_FAIL_ON", options.fail_on)
    if options.segment:
        argv += _setting("QIVRORA_SEGMENTS", ",".join(options.segment))
    for setting in options.settings:
        argv += ["-s", setting]
    return argv


def _log_options(options: argparse.Namespace) -> list[str]:
    argv = ["-L", "DEBUG"] if options.verbose else ["-L", options.loglevel] if options.loglevel else []
    return argv + (["--logfile", options.logfile] if options.logfile else [])


def scrapy_argv(argv: list[str]) -> list[str]:
    """The Scrapy command line that runs `qivrora` with ``argv``; argparse exits (status 2, one line
    naming the option) on an option it does not know."""
    if argv and argv[0] == "scrapy":
        return argv[1:]
    if argv and argv[0] in SCRAPY_DIRECT:
        return argv
    parser, commands = _parser()
    options, unknown = parser.parse_known_args(argv)
    if unknown:
        commands[options.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    if options.command == "version":
        return ["version", *(["-v"] if options.verbose else [])]
    if options.command == "explain":
        return ["explain", options.check]
    if options.command == "checks":
        return ["checks"]
    if options.command == "report":
        # hreflang-report's -o appends and its -O replaces, as `crawl`'s do.
        outputs = [arg for file in options.output for arg in ("-o" if options.append else "-O", file)]
        return ["hreflang-report", *options.facts, *_redis(options), *_common(options, outputs)]
    # The audit command's -o replaces; --append makes them all append.
    outputs = [arg for file in options.output for arg in ("-o", file)] + (["--append"] if options.append else [])
    if options.command == "check":
        spider = ["-a", f"site={options.folder}", "-a", f"base={options.base}"]
        spider += ["-a", f"start={','.join(options.start)}"] if options.start else []
        return ["audit", *spider, *_common(options, outputs), *_log_options(options)]
    spider = [f"start={','.join(options.start)}"] if options.start else []
    spider += [
        f"{name}={getattr(options, f'argument_{name}')}"
        for name in ARGUMENT_HELP
        if getattr(options, f"argument_{name}") is not None
    ]
    fast = [arg for name, value in FAST.items() for arg in _setting(name, value)] if options.fast else []
    spider_options = [arg for pair in [*spider, *options.spider_arguments] for arg in ("-a", pair)]
    return ["audit", *spider_options, *_common(options, outputs), *fast, *_log_options(options)]


def _redis(options: argparse.Namespace) -> list[str]:
    return [*(["--redis", options.redis] if options.redis else []), *(["--key", options.key] if options.key else [])]


def main(argv: list[str] | None = None) -> None:
    """The console script. Run as the process's own command (no ``argv``), it ends the process once
    the command is done and its files and logs are closed, without the interpreter's teardown
    (``compat.cpython.quick_exit``)."""
    os.environ.setdefault("SCRAPY_SETTINGS_MODULE", SETTINGS_MODULE)
    arguments = sys.argv[1:] if argv is None else argv
    try:
        execute(["qivrora", *scrapy_argv(arguments)])
    except SystemExit as exit:
        if argv is not None:
            raise
        quick_exit(exit.code)
