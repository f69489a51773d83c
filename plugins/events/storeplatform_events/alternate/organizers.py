"""Organizers of the alternate variant: the standard routes, but a refused create is
``rest_cannot_create`` (the item routes are the standard service, see ``__init__``)."""
from storeplatform.api import Service

from ..posts import ORGANIZER
from ..schemas import OrganizerBody, OrganizerListQuery
from ..views import posts as standard
from .items import create, may_create

organizers = Service("events/v1", "/organizers", name="organizers",
                     description="Organizers (published ones are public).")


@organizers.get(query=OrganizerListQuery())
def list_organizers(request):
    return standard.list_items(request, ORGANIZER)


@organizers.post(permission=may_create, permission_description="edit_posts", body=OrganizerBody())
def create_organizer(request):
    return create(request, ORGANIZER, request.validated, standard.item_json)
