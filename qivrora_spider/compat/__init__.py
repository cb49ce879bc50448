"""Every reliance on another library's internals, one module per library, each with what it relies
on, the versions it is tested with, the test that fails by name when the upstream changes, and the
condition for removing it."""
