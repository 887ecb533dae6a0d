"""``lemon skill lint``: lemon's contributor rules and the open Agent Skills standard.

- :mod:`~lemon_core.lint.runner`: lint skill folders, SKILL.md files and folders of skills.
- :mod:`~lemon_core.lint.standard`: the standard exactly as its reference validator applies it.
"""
