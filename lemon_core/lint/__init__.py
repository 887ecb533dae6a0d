"""``lemon skill lint``: lemon's contributor rules and the open Agent Skills standard.

- :mod:`~lemon_core.lint.runner`: lint skill folders, SKILL.md files and folders of skills.
- :mod:`~lemon_core.lint.standard`: the standard exactly as its reference validator applies it.
- :mod:`~lemon_core.lint.standard_messages`: its verdicts in lemon's words, with rule ids.
- :mod:`~lemon_core.lint.fix`: ``--fix``, what can be rewritten safely in a SKILL.md.
- :mod:`~lemon_core.lint.issue`: the issue record they share.
"""
