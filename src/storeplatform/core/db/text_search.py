"""Searching text columns for what a person typed: case-insensitive, the LIKE wildcards taken as
the characters they are, the same on both backends. REST's lists and the admin's search with it."""
from sqlalchemy import func


def text_contains(column, search):
    """``column`` holds ``search``, case-insensitively, its ``%``, ``_`` and ``\\`` taken as
    they are (the same on both backends: SQLite's lower() is Python's there)."""
    return func.lower(column).like(contains_pattern(search), escape="\\")


def contains_pattern(search):
    """The LIKE pattern (escape ``\\``) of a text that holds ``search`` lower-cased."""
    escaped = search.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"
