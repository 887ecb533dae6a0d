"""lemon's built-in observers (the ``lemon.observers`` entry-point group)."""
