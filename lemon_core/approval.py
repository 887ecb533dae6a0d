"""One approval vocabulary for the library: the questions lemon asks and how they are answered.

Every approval lemon asks for is an :class:`ApprovalRequest`; each kind adds what the person
approving is shown:

- :class:`WriteApproval`: a write to skills (install, update, sync, remove; next
  ``skill_manage``, drafts and blueprints), asked at a ``stage`` (:data:`WRITE_STAGES`);
- :class:`CallApproval`: a call through the MCP tool host (a tool, or one of lemon's utility
  methods); sampling (:class:`~lemon_core.mcp.runtime.sampling.SamplingApproval`) and PKCE
  logins (:class:`~lemon_core.mcp.runtime.authorize.OAuthApproval`) are calls too.

An :data:`Approver` is the callback ``approver(request) -> bool`` a caller passes; a refusal,
of any kind, is one exception, :class:`ApprovalRefused`. The library never approves silently:
without an approver a question that must be asked is refused, saying how to approve.

The skills library also takes ``approve=True`` (approved in advance, as ``--approve``) in place
of a callback: :class:`Consent` is that choice as one typed object (:meth:`Consent.of`), and it
knows what an approval given in advance never covers (a blocked bundle, a person's edits, a
change of trust: only a callback answers those).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import attrs

from lemon_core.errors import LemonError, Option, Voiced


class ApprovalRefused(LemonError):
    """An approval was denied or could not be asked; nothing was changed or called."""


@attrs.frozen
class ApprovalRequest:
    """What every approval question is: the base of each kind (test with ``isinstance``)."""


#: The stages of a write: ``fetch`` (before anything is downloaded), ``install`` (after the
#: audit passed, with everything known), ``warn`` (the audit warned: a second, explicit
#: approval), ``override`` (the audit blocked and the caller asked to override exactly this
#: bundle), ``discard`` (the write would discard files a person edited since the install) and
#: ``remove``.
WRITE_STAGES = ("fetch", "install", "warn", "override", "discard", "remove")


@attrs.frozen
class WriteApproval(ApprovalRequest):
    """A write to skills. ``keys`` and ``targets`` pair up; ``files`` are the relative paths
    to be written; ``findings`` the audit's (escape them before printing)."""

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
    #: The audit's findings (:class:`lemon_core.protocols.Finding`).
    findings: tuple[object, ...] = ()
    notes: tuple[str, ...] = ()
    bundle_hashes: tuple[str, ...] = ()
    replaces: tuple[str, ...] = ()
    #: The staged folders of ``keys`` (read-only; an update compares them with the installed).
    folders: tuple[str, ...] = ()
    #: The skills folder of ``scope``: each skill is written into a folder of its name there
    #: (``targets`` is empty at the ``fetch`` stage unless the caller named the skills).
    skills_dir: str | None = None


@attrs.frozen
class CallApproval(ApprovalRequest):
    """A call through the MCP tool host: the model-facing name, the server, the raw tool (or
    MCP method) and the argument names (not their values, which may be secrets)."""

    name: str
    server: str
    target: str
    argument_names: tuple[str, ...]


R = TypeVar("R", bound=ApprovalRequest)
#: ``approver(request) -> True`` to approve; any other answer (or an exception) refuses.
Approver = Callable[[R], bool]
#: What a write call of the skills library takes as ``approve``: True (approved in advance),
#: an approver of :class:`WriteApproval`, or None/False (nothing is approved).
Approve = bool | Callable[[WriteApproval], bool] | None

_WHAT = {"fetch": "fetching", "install": "installing", "warn": "installing a skill the audit "
         "warned about", "override": "overriding the audit's block of",
         "discard": "discarding the local edits of", "remove": "removing"}


@attrs.frozen
class Consent:
    """Who answers the write approvals of one call: a person through ``ask``, or approval
    given ``in_advance`` (``approve=True``), or nobody (both unset)."""

    ask: Callable[[WriteApproval], bool] | None = None
    in_advance: bool = False

    @classmethod
    def of(cls, approve: Approve | Consent) -> Consent:
        """The consent ``approve`` (True, a callback, None or False) stands for."""
        if isinstance(approve, Consent):
            return approve
        if callable(approve):
            return cls(ask=approve)
        return cls(in_advance=approve is True)

    @property
    def given(self) -> bool:
        """Whether anything can approve (in advance, or by asking)."""
        return self.in_advance or self.ask is not None

    def asked_only(self) -> Consent:
        """This consent without the approval given in advance: what a question that
        ``approve=True`` never answers (an override of a block) is put to."""
        return Consent(ask=self.ask)

    def approve(self) -> Approve:
        """The ``approve`` argument this consent stands for."""
        return self.ask if self.ask is not None else self.in_advance

    def require(self, request: WriteApproval) -> None:
        """Return when ``request`` is approved; raise :class:`ApprovalRefused` otherwise."""
        keys = ", ".join(request.keys) or request.identifier
        what = _WHAT.get(request.stage, request.stage)
        if self.in_advance:
            return
        if self.ask is not None:
            if self.ask(request):
                return
            raise ApprovalRefused(f"{what} {keys} was not approved; nothing was changed")
        raise ApprovalRefused(f"{what} {keys} needs approval",
                              advice=("pass ", Option("approve"), " or ",
                                      Voiced("an approval callback",
                                             "run it in a terminal to be asked")))


__all__ = ["WRITE_STAGES", "ApprovalRefused", "ApprovalRequest", "Approve", "Approver",
           "CallApproval", "Consent", "WriteApproval"]
