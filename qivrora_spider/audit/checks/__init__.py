"""The check families, one module each. A family imports only the core, never another family, so
that a check is read, changed or removed in one file. Importing this package registers them all."""

from . import canonical, clusters, language, markup, pages, rendering, sitemaps, sources, targets, values  # noqa: F401
