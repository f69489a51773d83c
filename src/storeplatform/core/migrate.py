"""Alembic: one version branch per distribution, the host's first."""
import os

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

from .db.counts import emit_count_triggers
from .db.generation_triggers import emit_generation_triggers
from .db.meta import Base


def alembic_config(registry, connection=None):
    cfg = Config()
    cfg.set_main_option("script_location", "storeplatform:migrations")
    cfg.set_main_option("path_separator", "os")
    locations = []
    for group in registry["plugins"].hook.storeplatform_migration_locations():
        locations.extend(group or ())
    cfg.set_main_option("version_locations", os.pathsep.join(locations))
    cfg.attributes["registry"] = registry
    cfg.attributes["connection"] = connection
    return cfg


def upgrade(registry):
    """Upgrade the host and every enabled plugin to their heads.

    On SQLite, foreign keys are off while migrating (table rebuilds drop and rename tables that
    others refer to) and checked before they are on again.
    """
    engine = registry["db.engine"]
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            # Outside any transaction: SQLite ignores this pragma inside one.
            connection.connection.driver_connection.execute("PRAGMA foreign_keys=OFF")
        try:
            with connection.begin():
                command.upgrade(alembic_config(registry, connection), "heads")
                # The generations and counts the models declare, as triggers (after the tables they name).
                emit_generation_triggers(connection)
                emit_count_triggers(connection)
                if sqlite:
                    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                    if broken:
                        raise RuntimeError(f"the migration left rows with broken references: {broken[:5]}")
        finally:
            if sqlite:
                connection.connection.driver_connection.execute("PRAGMA foreign_keys=ON")


def tables_of(package):
    """The tables whose models live in ``package`` (a distribution's top-level package)."""
    names = set()
    for mapper in Base.registry.mappers:
        module = mapper.class_.__module__
        if module == package or module.startswith(package + "."):
            names.add(mapper.local_table.name)
    for table in Base.metadata.tables.values():
        if table.info.get("package") == package:
            names.add(table.name)
    return names


def make_revision(registry, package, message, version_path, branch_label=None, depends_on=None):
    """Autogenerate a revision of ``package``'s tables (a developer's tool, see README)."""
    engine = registry["db.engine"]
    with engine.begin() as connection:
        cfg = alembic_config(registry, connection)
        cfg.attributes["tables"] = tables_of(package)
        head = f"{branch_label}@head" if branch_label and _branch_exists(cfg, branch_label) else "base"
        kwargs = {}
        if head == "base":
            kwargs = {"branch_label": branch_label, "depends_on": depends_on}
        return command.revision(cfg, message=message, autogenerate=True, head=head, version_path=version_path,
                                **kwargs)


def _branch_exists(cfg, label):
    script = ScriptDirectory.from_config(cfg)
    try:
        script.get_revision(f"{label}@head")
        return True
    except Exception:
        return False
