"""The variant's routes of one kind of item (events, venues, organizers, speakers), built once per
kind: the standard item views (``views/posts.py``) run with the values the variant validated
under its own names, its JSON and its 404, and a refused create answered as
``rest_cannot_create``."""
from storeplatform.api import InvalidParams, RestError, Service, make_partial, require

from ..schemas import DeleteQuery
from ..views import posts as standard
from . import renames
from .errors import forbidden_to_create


def may_create(request):
    """``edit_posts``, refused as ``rest_cannot_create``."""
    try:
        require(request, "edit_posts")
    except RestError as exc:
        raise forbidden_to_create(exc) from None


def in_variant_names(renamed):
    """Runs a view's domain work with the domain's InvalidParams (``end_date``, ``venue_id``...)
    reported under the variant's names."""
    def run(work, *args):
        try:
            return work(*args)
        except InvalidParams as exc:
            raise InvalidParams(renamed.to_variant(exc.params)) from None

    return run


def item_services(kind, body, serializer, listing, renamed=renames.SAME, bind=None, not_found=None,
                  descriptions=None):
    """The collection and item services of ``kind``: ``listing`` is the list view and its options,
    ``body`` the body schema class, ``serializer`` the JSON (called as ``views.posts.item_json``
    is), ``bind`` the body's bindings, ``not_found`` the 404 of a kind the standard does not
    serve, ``descriptions`` the services' (default the standard services')."""
    if descriptions is None:
        descriptions = (getattr(standard, kind.collection).description, getattr(standard, kind.name).description)
    collection = Service("events/v1", f"/{kind.collection}", name=kind.collection, description=descriptions[0])
    item = Service("events/v1", rf"/{kind.collection}/{{id:\d+}}", name=kind.name, description=descriptions[1])
    in_names = in_variant_names(renamed)
    bound = {"bind": bind} if bind is not None else {}
    list_view, list_options = listing
    collection.add_view("GET", list_view, **list_options)

    def create(request):
        try:
            return in_names(standard.create_item, request, kind, renamed.to_standard(request.validated), serializer)
        except RestError as exc:  # publishing without publish_posts
            raise forbidden_to_create(exc) from None

    def get(request):
        return standard.get_item(request, kind, serializer, not_found)

    def update(request):
        return in_names(standard.update_item, request, kind, renamed.to_standard(request.validated), serializer,
                        not_found)

    def delete(request):
        return standard.delete_item(request, kind, serializer, not_found)

    for view in (create, get, update, delete):
        view.__name__ = view.__qualname__ = f"{view.__name__}_{kind.name}"
    collection.add_view("POST", create, permission=may_create, permission_description="edit_posts", body=body(),
                        **bound)
    item.add_view("GET", get, permission_description=standard.PUBLIC_OR_READ_POST)
    item.add_view("PUT", update, permission="edit_posts", body=make_partial(body()),
                  permission_description=standard.EDIT_POST, **bound)
    item.add_view("DELETE", delete, permission="delete_posts", query=DeleteQuery(),
                  permission_description=standard.DELETE_POST)
    return collection, item
