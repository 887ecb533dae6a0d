"""Installing skills: the pipeline (resolve, fetch, stage, audit, approve, activate), staging and
safe-tree checks, the bundle hash, lockfile writes, and update/check/remove/sync.

Sources themselves are plugins (``lemon.sources``); this package only drives them.
"""
