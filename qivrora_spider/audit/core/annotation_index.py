"""The audit's index of annotations: which of them search engines take into the clusters."""

from __future__ import annotations

from ...extract.hreflang_values import canonical_hreflang
from ...extract.urls import HrefKind, classify_href
from ...facts import Annotation

#: The href kinds search engines take (HL102 warns about the second, which still works).
_TAKEN = (HrefKind.ABSOLUTE, HrefKind.PROTOCOL_RELATIVE)


def is_usable(annotation: Annotation) -> bool:
    """Would a search engine take this annotation into the cluster?"""
    url = annotation.url
    if url is None or not annotation.in_head:
        return False
    # An href written as the normalised URL is absolute; classifying it would only cost time.
    if annotation.href != url and classify_href(annotation.href) not in _TAKEN:
        return False
    return canonical_hreflang(annotation.hreflang) is not None
