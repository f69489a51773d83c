"""Conditional requests (RFC 9110, section 13): the precondition header fields read as the RFC
writes them and compared as it says. If-None-Match compares weakly, If-Match strongly; ``*``
stands for any current answer. A field that is not what the RFC allows is no error: malformed
entity tags match no tag (If-Match then fails, If-None-Match holds: the safe side of each), a
malformed date is ignored (13.1.4). This module imports nothing of the host.

The host's tags are strong and opaque (``storeplatform.core.cache`` makes them): here a tag is
its opaque part, the text between the quotes.
"""
from datetime import timezone
from email.utils import parsedate_to_datetime

ANY = "*"


def entity_tags(field):
    """``ANY`` for ``*``; else the (weak, opaque) pairs of a list of entity tags, or None when
    the field is not one."""
    value = field.strip(" \t")
    if value == ANY:
        return ANY
    tags = []
    position, end = 0, len(value)
    while True:
        while position < end and value[position] in " \t,":  # empty list elements are allowed
            position += 1
        if position == end:
            return tuple(tags) or None
        weak = value.startswith("W/", position)
        if weak:
            position += 2
        if position == end or value[position] != '"':
            return None
        close = value.find('"', position + 1)
        if close < 0:
            return None
        opaque = value[position + 1:close]
        if any(c < "!" or c == "\x7f" for c in opaque):
            return None
        tags.append((weak, opaque))
        position = close + 1
        while position < end and value[position] in " \t":
            position += 1
        if position < end and value[position] != ",":
            return None


def if_match_holds(field, tag, exists):
    """Whether an If-Match field holds for the current answer (its tag, None when it has none;
    ``exists``: whether there is a current answer at all): strong comparison."""
    tags = entity_tags(field)
    if tags is ANY:
        return exists
    if tags is None or tag is None:
        return False
    return any(not weak and opaque == tag for weak, opaque in tags)


def if_none_match_holds(field, tag, exists):
    """Whether an If-None-Match field holds (the request goes on): weak comparison. When it
    does not, a GET answers 304 and a write 412."""
    if tag is not None and field == f'"{tag}"':  # the usual revalidation: one tag, ours
        return False
    tags = entity_tags(field)
    if tags is ANY:
        return not exists
    if tags is None or tag is None:
        return True
    return not any(opaque == tag for _, opaque in tags)


def http_date(field):
    """The instant an HTTP-date field names (aware, UTC), or None when it names none."""
    try:
        value = parsedate_to_datetime(field)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if value is None:
        return None
    if value.tzinfo is None:  # "-0000" and the obsolete forms: UTC, as HTTP-dates are
        value = value.replace(tzinfo=timezone.utc)
    return value
