"""Auditing skill bundles: read a bundle once, run every registered auditor
(``lemon.auditors``), combine findings into a verdict under the published policy, cache verdicts
by bundle hash, and apply exact-bundle overrides.
"""
