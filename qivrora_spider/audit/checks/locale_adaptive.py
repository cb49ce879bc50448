"""HL801: pages that change by the visitor's language (``-a locale_probe=1``, or a build folder's rules).

Googlebot crawls mostly from US addresses and sends no Accept-Language; so does the crawl. The probe
asked each HTML page that carries annotations once more, with the Accept-Language of another value of
its cluster (``extract.locale_probe``). A page that answers that visitor otherwise (a redirect, other
annotations, another canonical, main text in another language) shows search engines one version.
A build folder says so in its `_redirects`: a rule with a Language= or Country= condition that covers
the page (a ``LocaleRule`` fact) is the same defect, with no probe.
"""

from __future__ import annotations

from typing import Iterator

from ...extract.host_rules import REDIRECT_STATUSES
from ...extract.hreflang_values import canonical_hreflang, parse_language_tag
from ...extract.text_language import dominant_language
from ...facts import Annotation, LocaleProbe, LocaleRule, Page
from ..core.context import AuditContext, is_usable
from ..core.registry import Hit, check
from ..core.wording import answers, code, name_list
from ..core.written import X_DEFAULT


def _annotated(annotations: list[Annotation]) -> set[tuple[str, str]]:
    """(value, URL) of the annotations search engines take."""
    return {(canonical_hreflang(a.hreflang), a.url) for a in annotations if is_usable(a)}  # type: ignore[misc]


def _changes(page: Page, probe: LocaleProbe) -> list[str]:
    """What the probe's answer changed, as a message says each."""
    changes = []
    if probe.status != page.status or probe.location != page.location:
        where = f" to {probe.location}" if probe.location else ""
        changes.append(f"it {answers(probe.status or 0)}{where}" if probe.status else "it did not answer alike")
        return changes  # nothing else of a redirect or an error page is a page to compare
    served = [a for a in page.annotations if a.source in ("html", "header")]
    before, after = _annotated(served), _annotated(probe.annotations)
    if before != after:
        gone = sorted(f"{value} {url}" for value, url in before - after)
        added = sorted(f"{value} {url}" for value, url in after - before)
        said = [f"without {name_list(gone)}" if gone else "", f"with {name_list(added)}" if added else ""]
        changes.append("it served other annotations (" + ", ".join(part for part in said if part) + ")")
    canonical = {c.url or c.href for c in page.canonicals}
    probed = {c.url or c.href for c in probe.canonicals}
    if canonical != probed:
        changes.append(f"it named another canonical ({name_list(sorted(probed)) or 'none'})")
    read, probed_read = dominant_language(page.text_blocks), probe.main_text_language
    if read and probed_read and parse_language_tag(read) != parse_language_tag(probed_read):
        changes.append(f"its main text read as {code(probed_read)}, not {code(read)}")
    return changes


def _rule_answer(rule: LocaleRule) -> str:
    """What the rule answers its visitors, as a message says it."""
    if rule.status == 200:
        return f"serves the content of {rule.target or 'its target'} at this URL"
    where = f" to {rule.target}" if rule.target and rule.status in REDIRECT_STATUSES else ""
    return f"{answers(rule.status)}{where}"


def _rule_language(rule: LocaleRule) -> str:
    """The hreflang field: the one language the rule names, else empty (a country is no language)."""
    languages = [c.partition("=")[2] for c in rule.conditions if c.startswith("Language=")]
    return languages[0] if len(languages) == 1 and "," not in languages[0] else ""


@check(
    "HL801",
    "locale-adaptive-page",
    "warning",
    why="""
Googlebot crawls mostly from US addresses and without an `Accept-Language` header. A page that changes
by the visitor's language (redirects, other annotations, another canonical, other text) shows search
engines one version only, so the others are never indexed; Google advises separate URLs with hreflang
instead ("How Google crawls locale-adaptive pages"). Probing is opt-in (`-a locale_probe=1`): each HTML
page that carries annotations is requested once more with the `Accept-Language` of another value of its
cluster, the one case where a crawl requests a URL twice; it counts in `max_pages`. A
`Vary: Accept-Language` with no difference is no finding; `x-default` targets are not judged (a
redirecting `x-default` is HL408). In a build folder (`-a site=`), a `_redirects` rule with a
`Language=` or `Country=` condition that covers such a page is the same defect, reported with no probe;
`Role=` and `Cookie=` rules gate a page on who is signed in, not on the language, and are not judged.
""",
    example="""
`https://example.com/en/` lists `fr` `https://example.com/fr/`. Requested with `Accept-Language: fr`
it answers `302 Found` to `https://example.com/fr/`: Googlebot, which sends no language, never sees
that French readers cannot read the English page.
""",
    fix="""
Serve every visitor the same page at each URL, and let hreflang send each reader to theirs; a banner
suggesting the visitor's language is fine, a redirect or other content is not.
""",
    failing="""
$ curl -sI -H 'Accept-Language: fr' https://example.com/en/
HTTP/1.1 302 Found
Location: https://example.com/fr/
""",
    fixed="""
$ curl -sI -H 'Accept-Language: fr' https://example.com/en/
HTTP/1.1 200 OK
Link: <https://example.com/fr/>; rel="alternate"; hreflang="fr"
""",
    precedence="""
`x-default` targets are not probed: a redirecting `x-default` is HL408. A `Vary: Accept-Language`
with no difference is no finding.
""",
    since="0.2.0",
)
def locale_adaptive_page(ctx: AuditContext) -> Iterator[Hit]:
    if not ctx.store.probes and not ctx.store.locale_rules:
        return
    x_defaults = {url for declared in ctx.graph.succ.values() for url, values in declared.items() if X_DEFAULT in values}

    def judged(url: str) -> Page | None:
        """The page, where it is an HTML member of a cluster that is no `x-default` target."""
        page = ctx.page(url)
        if page is None or page.status != 200 or url not in ctx.cluster_of or url in x_defaults:
            return None
        return page

    for url, rule in sorted(ctx.store.locale_rules.items()):
        if judged(url) is None:
            continue
        yield Hit(
            url,
            f"The `_redirects` rule at {rule.where} (`{' '.join(rule.rule.split())}`) {_rule_answer(rule)} "
            f"for visitors with `{' '.join(rule.conditions)}`: search engines, which send no language, "
            "see one version only. Serve every visitor the same page at this URL and let hreflang send "
            "each reader to theirs.",
            target=(rule.target or "") if rule.status in REDIRECT_STATUSES else "",
            hreflang=_rule_language(rule),
        )
    for url, probe in sorted(ctx.store.probes.items()):
        page = judged(url)
        if probe.error or page is None:
            continue
        changes = _changes(page, probe)
        if not changes:
            continue
        vary = " (it answers `Vary: Accept-Language`)" if probe.vary else ""
        yield Hit(
            url,
            f"Requested again with `Accept-Language: {probe.accept_language}`{vary}, "
            f"{'; '.join(changes)}: search engines, which send no language, see one version only. Serve "
            "every visitor the same page at this URL and let hreflang send each reader to theirs.",
            target=probe.location or "",
            hreflang=probe.accept_language,
        )
