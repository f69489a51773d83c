"""Hook implementations of the pricecalc plugin (the entry point)."""
from pathlib import Path

from storeplatform.api import hookimpl

from . import models  # noqa: F401  (the tables join the shared metadata for migrations)


@hookimpl
def storeplatform_migration_locations():
    return [str(Path(__file__).resolve().parent / "migrations" / "versions")]


@hookimpl
def storeplatform_includeme(config):
    from . import errors, views
    from .pricing import MeasurementError, MissingMeasurements

    config.add_rest_namespace(
        views.NAMESPACE, unauthenticated_code=errors.UNAUTHORIZED.code, forbidden_code=errors.FORBIDDEN.code,
        description="Measurement price calculator: prices from measurements, calculator settings, units.")
    config.add_rest_services(views)
    config.add_error_translation(MissingMeasurements, errors.missing_measurements)
    config.add_error_translation(MeasurementError, errors.invalid_measurement)


@hookimpl
def storeplatform_demo_data(session):
    from .demo import load_demo

    load_demo(session)
