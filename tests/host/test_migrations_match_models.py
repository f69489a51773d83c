"""The migrations of the host and every plugin build exactly the tables the models declare: a
column added to a model without its migration (or the other way round) fails here, on both
backends, before it fails on a site that was migrated."""
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine

import importlib

from storeplatform.core.db.meta import Base
from storeplatform.core.plugins import available_plugins


def _import_every_model():
    importlib.import_module("storeplatform.components.shop.models")
    importlib.import_module("storeplatform.core.models")
    importlib.import_module("storeplatform.components.audit.models")
    for name, entry_point in available_plugins().items():
        if name == "broken":  # the test plugin whose import fails on purpose (conftest skips it too)
            continue
        package = entry_point.value.split(".")[0]
        entry_point.load()
        try:
            importlib.import_module(f"{package}.models")
        except ModuleNotFoundError as error:
            if error.name != f"{package}.models":
                raise


def _made_on(dialect):
    """Compare what is made on ``dialect``: not an index declared for another database only
    (``Index(...).ddl_if(dialect=...)``, such as a trigram index of PostgreSQL's)."""
    def include(obj, name, type_, reflected, compare_to):
        only = getattr(obj, "_ddl_if", None) if type_ == "index" and not reflected else None
        return only is None or only.dialect in (None, dialect)
    return include


def test_migrated_schema_is_the_models(database):
    _import_every_model()
    assert {"login_attempts", "audit_log", "evt_events", "invoicing_documents", "pricecalc_calculators"} <= set(
        Base.metadata.tables)
    engine = create_engine(database.url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": False,
                                                                   "include_object": _made_on(connection.dialect.name)})
            differences = [d for d in compare_metadata(context, Base.metadata)
                           if d[0] != "remove_table"]  # tables without a model: alembic's own
    finally:
        engine.dispose()
    assert differences == []
