"""The `_redirects` and `_headers` files of a static build, read as Netlify and Cloudflare Pages read them.

Pure: text in, rules out, and a rule answers whether it applies to a path and query. A folder must
be audited as the host will serve it, so the grammar is the hosts' own (their documentation, 2026):

- ``_redirects``: one rule a line, ``FROM [QUERY...] TO [STATUS[!]] [CONDITION...]``; ``#`` starts a
  comment. FROM is a path (or an absolute URL, for one host) with ``:name`` placeholders for one
  segment and a final ``*`` for the rest; QUERY tokens are ``key=value``, ``key=:name`` or ``key``;
  TO may use ``:name`` and ``:splat`` and may be on another host; STATUS is 301 when missing, 200
  serves TO's content at FROM, 404 and 410 serve it with that status, ``!`` forces the rule over an
  existing file. The first rule that matches applies.
- Conditions on the visitor (``Country=``, ``Language=``, ``Role=``, ``Cookie=``) cannot be met by
  a folder: such a rule is kept aside (``skipped``) so the run can say which lines it left out. Those
  whose conditions are all on the visitor's language or country answer search engines, which meet
  none, otherwise than those visitors (HL801): ``RuleFile.by_locale`` names the ones a request meets.
- ``_headers``: a path pattern line, then indented ``Name: value`` lines; every block whose pattern
  matches adds its headers, and ``! Name`` (Cloudflare) removes a header an earlier block added.

A line the hosts would refuse too is a ``problem`` (``file:line: what is wrong``) and left out; the
other lines still apply. Nothing here raises on the content of a file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping
from urllib.parse import parse_qsl, urlsplit

__all__ = ["HeaderRule", "RedirectRule", "RuleFile", "parse_headers", "parse_redirects"]

#: Statuses a `_redirects` rule may give: rewrites, redirects, and the pages of a gone URL.
RULE_STATUSES = frozenset({200, 301, 302, 303, 307, 308, 404, 410})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
#: Netlify's default; Cloudflare Pages' is 302 (docs/modes.md, "Host rules").
DEFAULT_STATUS = 301
#: Conditions that depend on who asks; a build folder has no visitor to meet them.
VISITOR_CONDITIONS = ("Country", "Language", "Role", "Cookie")
#: Of those, the ones on the visitor's locale. Role= and Cookie= gate a page on who is signed in or
#: opted in, which search engines never are: no other language version hides behind them.
LOCALE_CONDITIONS = ("Country", "Language")
#: Cloudflare refuses a rule longer than this.
MAX_LINE = 1000

_PLACEHOLDER = re.compile(r":([A-Za-z_][A-Za-z0-9_]*)")
_STATUS = re.compile(r"(\d{3})(!?)")


@dataclass(frozen=True, slots=True)
class _Pattern:
    """A path pattern: literal segments, ``:name`` segments, and an optional final ``*``."""

    host: str | None  # "scheme://netloc" of an absolute FROM, else any host the folder serves
    segments: tuple[str, ...]
    splat: bool

    def match(self, origin: str, path: str) -> dict[str, str] | None:
        """The values bound by the placeholders (``splat`` for ``*``), or None if `path` does not match.

        A trailing slash does not matter, as on both hosts: ``/blog`` matches ``/blog/``.
        """
        if self.host is not None and self.host != origin:
            return None
        parts = path.split("/")[1:]
        if parts and parts[-1] == "" and not (self.splat and len(parts) > len(self.segments)):
            parts = parts[:-1]
        if len(parts) < len(self.segments) or (not self.splat and len(parts) != len(self.segments)):
            return None
        bound: dict[str, str] = {}
        for pattern, part in zip(self.segments, parts):
            if pattern.startswith(":"):
                if not part:
                    return None
                bound[pattern[1:]] = part
            elif pattern != part:
                return None
        if self.splat:
            bound["splat"] = "/".join(parts[len(self.segments) :])
        return bound


def _pattern(text: str) -> tuple[_Pattern | None, str | None]:
    """A FROM or `_headers` path, or why the hosts would refuse it."""
    host = None
    if "://" in text:
        parts = urlsplit(text)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return None, f"{text!r} is neither a path nor an http(s) URL"
        host, text = f"{parts.scheme}://{parts.netloc.lower()}", parts.path or "/"
    if not text.startswith("/"):
        return None, f"{text!r} must start with `/`"
    segments = text.split("/")[1:]
    if segments and segments[-1] == "":
        segments = segments[:-1]
    splat = bool(segments) and segments[-1] == "*"
    if splat:
        segments = segments[:-1]
    if any("*" in segment for segment in segments):
        return None, f"{text!r}: `*` may only stand as the last segment"
    return _Pattern(host, tuple(segments), splat), None


@dataclass(frozen=True, slots=True)
class RedirectRule:
    """One `_redirects` line."""

    where: str  # "file:line", for messages
    line: int  # its line: where rules of both kinds match a request, the first applies
    text: str  # the line as written
    source: _Pattern
    query: tuple[tuple[str, str | None], ...]  # key and required value (":name" binds it), None: present
    target: str
    status: int
    force: bool
    conditions: tuple[str, ...] = ()

    @property
    def is_redirect(self) -> bool:
        return self.status in REDIRECT_STATUSES

    @property
    def by_locale(self) -> bool:
        """Its conditions are all on the visitor's language or country."""
        keys = [condition.partition("=")[0] for condition in self.conditions]
        return bool(keys) and all(key in LOCALE_CONDITIONS for key in keys)

    def apply(self, origin: str, path: str, query: str) -> str | None:
        """TO with its placeholders filled, if the rule matches this request; else None."""
        bound = self.source.match(origin, path)
        if bound is None:
            return None
        if self.query:
            given = dict(parse_qsl(query, keep_blank_values=True))
            for key, wanted in self.query:
                if key not in given:
                    return None
                if wanted is not None and wanted.startswith(":"):
                    bound[wanted[1:]] = given[key]
                elif wanted is not None and given[key] != wanted:
                    return None
        return _fill(self.target, bound)


def _fill(template: str, bound: Mapping[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: bound.get(m.group(1), m.group(0)), template)


@dataclass(frozen=True, slots=True)
class HeaderRule:
    """One `_headers` block: a path pattern and the headers it adds (or, with ``!``, removes)."""

    where: str
    pattern: _Pattern
    headers: tuple[tuple[str, str], ...]
    removed: tuple[str, ...] = ()


@dataclass(slots=True)
class RuleFile:
    """What a rule file holds: the rules that apply, the lines left out and why."""

    redirects: list[RedirectRule] = field(default_factory=list)
    headers: list[HeaderRule] = field(default_factory=list)
    #: Rules with a visitor condition, not applied (a later check may judge them).
    skipped: list[RedirectRule] = field(default_factory=list)
    #: "file:line: what is wrong", one per line the hosts would refuse.
    problems: list[str] = field(default_factory=list)

    def redirect(self, origin: str, path: str, query: str) -> tuple[RedirectRule, str] | None:
        """The first rule that matches, and its TO filled in."""
        for rule in self.redirects:
            target = rule.apply(origin, path, query)
            if target is not None:
                return rule, target
        return None

    def by_locale(self, origin: str, path: str, query: str) -> list[tuple[RedirectRule, str]]:
        """The rules with only Language= or Country= conditions that match this request, and their TO
        filled in, in file order: those above the first rule for every visitor that matches, which
        answers the visitors of the ones below as it answers everyone."""
        first = self.redirect(origin, path, query)
        found = []
        for rule in self.skipped:
            if first is not None and rule.line > first[0].line:
                break
            target = rule.apply(origin, path, query) if rule.by_locale else None
            if target is not None:
                found.append((rule, target))
        return found

    def headers_for(self, origin: str, path: str) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        for rule in self.headers:
            bound = rule.pattern.match(origin, path)
            if bound is None:
                continue
            found = [(name, value) for name, value in found if name.lower() not in rule.removed]
            found += [(name, _fill(value, bound)) for name, value in rule.headers]
        return found


def _lines(text: str, name: str) -> list[tuple[str, int, str]]:
    """(file:line, its number, line) of the lines that are neither blank nor comments."""
    return [
        (f"{name}:{number}", number, line)
        for number, line in enumerate(text.splitlines(), 1)
        if line.strip() and not line.lstrip().startswith("#")
    ]


def _redirect_rule(where: str, number: int, line: str) -> tuple[RedirectRule | None, str | None]:
    """The rule of one line, or what is wrong with it."""
    if len(line) > MAX_LINE:
        return None, f"longer than {MAX_LINE:,} characters"
    if "\ufffd" in line:
        return None, "not UTF-8"
    tokens = line.split()
    source, problem = _pattern(tokens[0])
    if source is None:
        return None, problem
    rest = tokens[1:]
    query: list[tuple[str, str | None]] = []
    while rest and not rest[0].startswith("/") and "://" not in rest[0]:
        key, equals, value = rest.pop(0).partition("=")
        if key in VISITOR_CONDITIONS or not key:
            return None, f"{key or '='!r} where the target should be: write `FROM [QUERY] TO [STATUS]`"
        query.append((key, value if equals else None))
    if not rest:
        return None, "no target: write `FROM [QUERY] TO [STATUS]`"
    target, rest = rest[0], rest[1:]
    status, force = DEFAULT_STATUS, False
    if rest and _STATUS.fullmatch(rest[0]):
        code, bang = _STATUS.fullmatch(rest.pop(0)).groups()  # type: ignore[union-attr]
        status, force = int(code), bool(bang)
    elif rest and rest[0] == "!":
        rest.pop(0)
        force = True
    if status not in RULE_STATUSES:
        return None, f"status {status} is not one the hosts accept ({', '.join(map(str, sorted(RULE_STATUSES)))})"
    conditions: list[str] = []
    for token in rest:
        key, equals, _ = token.partition("=")
        if not equals or key not in VISITOR_CONDITIONS:
            return None, f"{token!r} is neither a status nor a condition ({', '.join(VISITOR_CONDITIONS)})"
        conditions.append(token)
    known = {"splat"} if source.splat else set()
    known |= {segment[1:] for segment in source.segments if segment.startswith(":")}
    known |= {value[1:] for _, value in query if value and value.startswith(":")}
    unbound = [name for name in _PLACEHOLDER.findall(target) if name not in known]
    if unbound:
        return None, f"`:{unbound[0]}` in the target is bound by nothing in the source"
    rule = RedirectRule(
        where, number, line.strip(), source, tuple(query), target, status, force, tuple(conditions)
    )
    return rule, None


def parse_redirects(text: str, name: str = "_redirects") -> RuleFile:
    rules = RuleFile()
    for where, number, line in _lines(text, name):
        rule, problem = _redirect_rule(where, number, line)
        if rule is None:
            rules.problems.append(f"{where}: {problem}; line left out")
        elif rule.conditions:
            rules.skipped.append(rule)
        else:
            rules.redirects.append(rule)
    return rules


def parse_headers(text: str, name: str = "_headers") -> RuleFile:
    rules = RuleFile()
    block: tuple[str, _Pattern | None, list[tuple[str, str]], list[str]] | None = None

    def close() -> None:
        if block is not None and block[1] is not None:
            rules.headers.append(HeaderRule(block[0], block[1], tuple(block[2]), tuple(block[3])))

    for where, _, line in _lines(text, name):
        if not line[0].isspace():
            close()
            pattern, problem = _pattern(line.strip())
            if pattern is None:
                rules.problems.append(f"{where}: {problem}; its block is left out")
            block = (where, pattern, [], [])
            continue
        entry = line.strip()
        if block is None:
            rules.problems.append(f"{where}: a header before any path; write a path, then indented `Name: value` lines")
        elif entry.startswith("!"):
            block[3].append(entry[1:].strip().lower())
        else:
            header, colon, value = entry.partition(":")
            if not colon or not header.strip() or " " in header.strip():
                rules.problems.append(f"{where}: {entry!r} is not `Name: value`; line left out")
            else:
                block[2].append((header.strip(), value.strip()))
    close()
    return rules
