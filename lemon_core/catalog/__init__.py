"""The catalog: where skills are, which copy wins, and a snapshot that is cheap to keep fresh.

- :mod:`~lemon_core.catalog.roots`: the skill roots, in precedence order.
- :mod:`~lemon_core.catalog.walk`: the layout rule and the bounded walk below each root.
- :mod:`~lemon_core.catalog.keys`: which folder names can be keys; lookalike keys.
- :mod:`~lemon_core.catalog.snapshot`: the snapshot of every discovered skill and its identity
  check (what to stat to notice a change).
- :mod:`~lemon_core.catalog.cache`: the snapshot persisted between processes (trusted for
  nothing: sealed with a MAC, rebuilt cold when it does not verify).
- :mod:`~lemon_core.catalog.cache_folder`: the private cache folder and the sealing key.
- :mod:`~lemon_core.catalog.serialize`: manifests and entries to and from plain data.
"""
