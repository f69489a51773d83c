"""Alembic environment: the connection and the registry come from storeplatform.core.migrate."""
from alembic import context

from storeplatform.core.db.meta import Base
import storeplatform.components.shop.models  # noqa: F401  (the host's tables: the shop's)
import storeplatform.core.models  # noqa: F401  (and the kernel's)

config = context.config
# Plugin models are on the same metadata: their packages were imported when registered.
tables = config.attributes.get("tables")


def include_object(obj, name, type_, reflected, compare_to):
    if tables is None:
        return True
    table = obj if type_ == "table" else getattr(obj, "table", None)
    return table is None or table.name in tables


connection = config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, include_object=include_object,
                  render_as_batch=connection.dialect.name == "sqlite", compare_type=True)
with context.begin_transaction():
    context.run_migrations()
