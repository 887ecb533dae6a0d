"""Words that name the same thing: a small, general table of abbreviations and everyday
synonyms, so a request in a user's words meets a description in the skill's own.

Each group is a set of single words that stand for one another (``k8s``/``kubernetes``,
``cv``/``resume``, ``screenshot``/``capture``); a query word of a group also matches the others,
at a lower weight (see :mod:`lemon_core.search.index`). The table is written from common usage,
never from any benchmark's queries; keep it short and unambiguous: a word with several senses
(``graph``, ``token``) belongs in none.
"""

from __future__ import annotations

from functools import lru_cache

from lemon_core.search.tokens import words

_GROUPS = """
k8s kubernetes
db database
repo repository
js javascript
ts typescript
py python
postgres postgresql
mongo mongodb
cv resume
ram memory
tts speech voice aloud
stt transcribe transcription dictation
screenshot capture
email mail inbox
todo task
doc docs documentation
auth authentication login signin
flowchart diagram
slide presentation deck
spreadsheet excel xlsx
chart plot
photo image picture
weather forecast
music song
summarize summary tldr
debug troubleshoot
docker container
currency forex
tweet twitter
yt youtube
gh github
gpu cuda
news headline
"""

#: ``ram`` means memory, but an agent's ``memory`` is not its ``ram``: one way only.
_ONE_WAY = {"ram"}


@lru_cache(maxsize=1)
def _table() -> dict[str, tuple[str, ...]]:
    table: dict[str, list[str]] = {}
    for line in _GROUPS.strip().splitlines():
        group = list(dict.fromkeys(w for item in line.split() for w in words(item)))
        for word in group:
            others = [o for o in group if o != word]
            for other in others:
                if other in _ONE_WAY:
                    continue
                table.setdefault(word, []).append(other)
    return {word: tuple(others) for word, others in table.items()}


def related(word: str) -> tuple[str, ...]:
    """The words that name what ``word`` (an indexed word form) names, best first."""
    return _table().get(word, ())


__all__ = ["related"]
