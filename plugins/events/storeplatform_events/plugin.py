"""Hook implementations of the events plugin (the entry point)."""
from pathlib import Path

from storeplatform.hookspecs import hookimpl


@hookimpl
def storeplatform_migration_locations():
    return [str(Path(__file__).resolve().parent / "migrations" / "versions")]
