"""The check families, one module each. A family imports only the core, never another family, so
that a check is read, changed or removed in one file. Importing this package registers them all."""

from . import (  # noqa: F401
    canonical,
    cluster_languages,
    clusters,
    coverage,
    crawl,
    language,
    locale_adaptive,
    lastmod,
    markup,
    pages,
    rendering,
    sitemap_orphans,
    sitemaps,
    sources,
    targets,
    values,
)
