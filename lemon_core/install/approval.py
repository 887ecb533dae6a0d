"""Approvals: the library never approves silently.

``approve`` is True (approved in advance, as ``--approve``), a callback
``approve(request) -> bool`` (the CLI asks on the terminal), or None/False (nothing is
approved: the step is refused with a message saying how to approve). Stages: ``fetch`` (before
anything is downloaded), ``install`` (after the audit passed, with everything known),
``warn`` (the audit warned: a second, explicit approval, asked even where approvals are
otherwise skipped), ``override`` (the audit blocked and the caller asked to override exactly
this bundle), ``discard`` (replacing an installed skill would discard files a person edited
since the install: asked by name, never approved by ``approve=True`` alone) and ``remove``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from lemon_core.errors import LemonError, Option, Voiced

STAGES = ("fetch", "install", "warn", "override", "discard", "remove")


class ApprovalRefused(LemonError):
    """An approval was denied or could not be asked; nothing was changed."""


@attrs.frozen
class ApprovalRequest:
    """What the person approving is shown. ``keys`` and ``targets`` pair up; ``files`` are
    the relative paths to be installed; ``findings`` the audit's (escaped by the CLI)."""

    stage: str
    identifier: str
    source: str
    trust: str
    scope: str
    keys: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    canonical_id: str | None = None
    revision: str | None = None
    files: tuple[str, ...] = ()
    verdict: str | None = None
    findings: tuple[Any, ...] = ()
    notes: tuple[str, ...] = ()
    bundle_hashes: tuple[str, ...] = ()
    replaces: tuple[str, ...] = ()
    #: The staged folders of ``keys`` (read-only; an update compares them with the installed).
    folders: tuple[str, ...] = ()
    #: The skills folder of ``scope``: each skill installs into a folder of its name there
    #: (``targets`` is empty at the ``fetch`` stage unless the caller named the skills).
    skills_dir: str | None = None


Approver = bool | Callable[[ApprovalRequest], bool] | None

_WHAT = {"fetch": "fetching", "install": "installing", "warn": "installing a skill the audit "
         "warned about", "override": "overriding the audit's block of", "discard": "discarding the local edits of",
         "remove": "removing"}


def require(approve: Approver, request: ApprovalRequest) -> None:
    """Return when ``request`` is approved; raise :class:`ApprovalRefused` otherwise."""
    keys = ", ".join(request.keys) or request.identifier
    if approve is True:
        return
    if callable(approve):
        if approve(request):
            return
        raise ApprovalRefused(f"{_WHAT[request.stage]} {keys} was not approved; nothing was "
                              f"changed")
    raise ApprovalRefused(f"{_WHAT[request.stage]} {keys} needs approval",
                          advice=("pass ", Option("approve"), " or ",
                                  Voiced("an approval callback", "run it in a terminal to be "
                                         "asked")))


__all__ = ["STAGES", "ApprovalRefused", "ApprovalRequest", "Approver", "require"]
