"""The manifest: parse and validate one SKILL.md (Skill Manifest v1 and v2).

The public entry points are in :mod:`lemon_core.manifest.load` (``load_manifest``,
``parse_manifest``). A SKILL.md goes through two steps, each with a fast and a full path:

=====================  ==========================================  ===============================
step                   full path (always correct, every rule)      fast path (the common case)
=====================  ==========================================  ===============================
text -> data           :mod:`~lemon_core.manifest.parse_full`       :mod:`~lemon_core.manifest.parse_fast`
                       (bounded YAML/TOML: depth, aliases, size,   (libyaml events composed
                       duplicate keys, the ``: `` repair)          straight into plain data)
data -> SkillManifest  :mod:`~lemon_core.manifest.build_full`       :mod:`~lemon_core.manifest.build_fast`
                       (every field rule and its diagnostic)       (plain text and short lists,
                                                                   a few type checks)
=====================  ==========================================  ===============================

Why both exist: discovery parses every SKILL.md of every root on a cold ``lemon skill list``,
and the full paths spend most of their time on generality that most real manifests never need.
Each fast path recognises only input whose full-path result it can reproduce exactly, and hands
anything else (a wrong type, an alias, a long or unsafe value, an unknown nested key) to the full
path; tests/manifest/test_manifest_fastpath.py checks the two agree on every input it makes.

The other modules: :mod:`~lemon_core.manifest.frontmatter` splits the file into frontmatter and
body within fixed bounds; :mod:`~lemon_core.manifest.checks` holds the small checks both build
paths share.
"""
