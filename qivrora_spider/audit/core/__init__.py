"""The audit's core: what every check reads (the context, the site index, the cluster graphs), the
registry the checks enter themselves in, and the helpers they share. It imports no check."""
