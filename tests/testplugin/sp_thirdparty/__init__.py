"""A third-party plugin: a route in another distribution's namespace, and host hooks."""
import pluggy

from storeplatform.hookspecs import hookimpl
from storeplatform.rest import namespace
from storeplatform.store.options import OptionSpec, set_option

# Hooks of plugins that may be absent are optional: no error when their spec is missing.
optional = pluggy.HookimplMarker("storeplatform")(optionalhook=True)


@hookimpl
def storeplatform_includeme(config):
    ns = namespace(config, "store/v1")
    ping = ns.service(config, "thirdparty-ping", "/thirdparty/ping", "Answers pong (third-party route).")

    @ping.get()
    def get_ping(request):
        return {"pong": True}


@hookimpl
def storeplatform_site_options():
    return [OptionSpec("thirdparty.last_status_change", "string", "", "thirdparty", "Last order status change")]


@hookimpl
def storeplatform_order_status_changed(order, old_status, new_status):
    from sqlalchemy.orm import object_session

    session = object_session(order)
    from storeplatform.store.options import get_option

    seen = get_option(session, "thirdparty.last_status_change")
    entry = f"{order.id}:{old_status}->{new_status}"
    set_option(session, "thirdparty.last_status_change", (seen + " " + entry).strip())


@hookimpl
def storeplatform_role_capabilities():
    return {"customer": ["thirdparty_read"]}
