"""What the variant's events, venues and speakers share: a create refused as
``rest_cannot_create``, and the standard item views run with the variant's values and JSON."""
from storeplatform.api import RestError, require

from ..views import posts as standard
from .errors import forbidden_to_create

# What the schema index names as the permission of the views whose check depends on the item.
PUBLIC_OR_READ_POST = standard.PUBLIC_OR_READ_POST
EDIT_POST = standard.EDIT_POST
DELETE_POST = standard.DELETE_POST


def may_create(request):
    """``edit_posts``, refused as ``rest_cannot_create``."""
    try:
        require(request, "edit_posts")
    except RestError as exc:
        raise forbidden_to_create(exc) from None


def create(request, kind, values, serializer):
    try:
        return standard.create_item(request, kind, values, serializer)
    except RestError as exc:  # publishing without publish_posts
        raise forbidden_to_create(exc) from None


def renamed(validated, names):
    """``validated`` under the names ``posts`` uses (``names``: the variant's name -> that one)."""
    return {names.get(key, key): value for key, value in validated.items() if key != "id"}
