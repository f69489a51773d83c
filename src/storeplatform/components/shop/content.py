"""The content base for plugins: posts with statuses and trash, terms, local dates."""
import re
import unicodedata

from sqlalchemy import delete, select
from sqlalchemy.orm.attributes import set_committed_value

from .models import Post, PostTerm, Term

POST_STATUSES = ("publish", "draft", "pending", "private", "trash")


def slugify(text):
    text = unicodedata.normalize("NFKD", text or "").encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:180] or "item"


def unique_slug(session, post_type, wanted, exclude_id=None):
    """``wanted`` slugified, with -2, -3 ... appended while another post of the type has it."""
    base = slugify(wanted)
    stmt = select(Post.slug).where(Post.post_type == post_type, Post.slug.like(base + "%"))
    if exclude_id is not None:
        stmt = stmt.where(Post.id != exclude_id)
    taken = set(session.execute(stmt).scalars())
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    return slug


def trash_post(post):
    if post.status != "trash":
        post.trashed_status = post.status
        post.status = "trash"


def delete_post(session, post):
    """Delete ``post`` for good with its term links. The links go in one statement (every row,
    also of a collection never loaded), and the session is told that the post's ``terms`` are
    none now: its flush would otherwise delete the links of a loaded collection again, expect
    each row and find none (StaleDataError, a 500 on every forced delete of a post with terms)."""
    session.execute(delete(PostTerm).where(PostTerm.post_id == post.id))
    set_committed_value(post, "terms", [])
    session.delete(post)
    session.flush()


def set_post_terms(session, post, taxonomy, term_ids):
    """Replace the post's terms of ``taxonomy`` by ``term_ids`` (all must exist)."""
    terms = list(session.execute(select(Term).where(Term.taxonomy == taxonomy, Term.id.in_(term_ids))).scalars())
    missing = set(term_ids) - {t.id for t in terms}
    if missing:
        raise ValueError(f"unknown {taxonomy} term(s): {', '.join(map(str, sorted(missing)))}")
    keep = [t for t in post.terms if t.taxonomy != taxonomy]
    post.terms = keep + sorted(terms, key=lambda t: t.id)


def local_datetime(value, tz):
    """``YYYY-MM-DDTHH:MM:SS`` in the site time zone, no offset (as classic CMS dates)."""
    return value.astimezone(tz).strftime("%Y-%m-%dT%H:%M:%S") if value is not None else None
