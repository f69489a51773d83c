"""The standard services, served by the alternate variant with its generic error codes: the
same path, schemas and view functions, each view (and permission callable) wrapped so that a
``RestError`` of the standard catalogue leaves with its generic code."""
import functools

from storeplatform.api import RestError, Service

from .errors import generic


def _translating(function):
    @functools.wraps(function)
    def call(request):
        try:
            return function(request)
        except RestError as exc:
            raise generic(exc) from None

    return call


def with_generic_errors(service):
    """A copy of the standard ``service`` for the alternate variant."""
    copy = Service(service.namespace, service.path, name=service.name.split(":", 1)[1],
                   description=service.description)
    for method, view, options in service.views:
        options = dict(options)
        if callable(options.get("permission")):
            options["permission"] = _translating(options["permission"])
        copy.add_view(method, _translating(view), **options)
    return copy


def options_of(service, method):
    """The options (permission, schemas...) of a standard service's view, for the variant's own
    view of the same route."""
    return next(dict(options) for view_method, _view, options in service.views if view_method == method)
