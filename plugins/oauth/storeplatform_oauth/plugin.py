"""Hook implementations of the oauth plugin (the entry point)."""
from pathlib import Path

from storeplatform.api import hookimpl

from . import models  # noqa: F401  (the table joins the shared metadata for migrations)
from .request_params import carries_oauth
from .verify import oauth_identity


@hookimpl
def storeplatform_migration_locations():
    return [str(Path(__file__).resolve().parent / "migrations" / "versions")]


@hookimpl
def storeplatform_authenticate(request):
    """An OAuth request is checked completely (a wrong one is 401); any other is left to the
    other methods."""
    if not carries_oauth(request):
        return None
    return oauth_identity(request)
