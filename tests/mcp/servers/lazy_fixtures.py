"""Writing skills folders for the lazy server's tests."""

from __future__ import annotations

from pathlib import Path


def skill(parent: Path, folder: str, *, name: str | None = None,
          description: str = "A test skill.", frontmatter: str | None = None,
          body: str = "# Body\n") -> Path:
    """``parent/folder/SKILL.md`` (name defaults to the folder); returns the folder."""
    path = parent / folder
    path.mkdir(parents=True, exist_ok=True)
    if frontmatter is None:
        frontmatter = f"name: {name or folder}\ndescription: {description}\n"
    (path / "SKILL.md").write_text(f"---\n{frontmatter}---\n\n{body}", encoding="utf-8")
    return path
