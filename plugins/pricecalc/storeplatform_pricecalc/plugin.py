"""Hook implementations of the pricecalc plugin (the entry point)."""
from pathlib import Path

from storeplatform.hookspecs import hookimpl

from . import models  # noqa: F401  (the tables join the shared metadata for migrations)


@hookimpl
def storeplatform_migration_locations():
    return [str(Path(__file__).resolve().parent / "migrations" / "versions")]


@hookimpl
def storeplatform_includeme(config):
    from .views import includeme

    includeme(config)


@hookimpl
def storeplatform_demo_data(session):
    from .demo import load_demo

    load_demo(session)
