"""A third-party plugin: a route in another distribution's namespace, and host hooks."""
from storeplatform.api import OptionSpec, Service, hookimpl, plugin_enabled, set_option, site_options

# Hooks of plugins that may be absent are optional: no error when their spec is missing.
optional = hookimpl(optionalhook=True)

ping = Service("store/v1", "/thirdparty/ping", name="thirdparty-ping", description="Answers pong (third-party route).")
# A route in the events namespace, added only when the events plugin is enabled.
speakers = Service("events/v1", "/speakers", name="thirdparty-speakers", description="Speakers (third-party route).")


@ping.get()
def get_ping(request):
    return {"pong": True}


@speakers.get()
def get_speakers(request):
    return [{"id": 1, "name": "Ada Lovelace"}, {"id": 2, "name": "Grace Hopper"}]


@hookimpl
def storeplatform_includeme(config):
    config.add_rest_services(ping)
    # The alternate variant of events/v1 serves speakers of its own.
    if plugin_enabled(config.registry, "events") and \
            config.registry.settings.get("events.api_variant", "standard") != "alternate":
        config.add_rest_services(speakers)


@hookimpl
def storeplatform_site_options():
    return [OptionSpec("thirdparty.last_status_change", "string", "", "thirdparty", "Last order status change")]


@hookimpl
def storeplatform_order_status_changed(order, old_status, new_status):
    from sqlalchemy.orm import object_session

    session = object_session(order)
    seen = site_options(session)["thirdparty.last_status_change"]
    entry = f"{order.id}:{old_status}->{new_status}"
    # A string option holds 255 characters: the oldest changes make room for the latest.
    value = (seen + " " + entry).strip()
    while len(value) > 255:
        value = value.split(" ", 1)[1]
    set_option(session, "thirdparty.last_status_change", value)


@hookimpl
def storeplatform_role_capabilities():
    return {"customer": ["thirdparty_read"]}


# --- hooks of the events plugin (optional: this plugin loads without events) ------------------

EVT_LOG_ENV = "SP_THIRDPARTY_EVT_LOG"


def _record(name, object_id):
    """Append ``name id`` to the file named by $SP_THIRDPARTY_EVT_LOG (tests count action
    calls with it, across threads and processes such as the CLI)."""
    import os

    path = os.environ.get(EVT_LOG_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"{name} {object_id}\n")


@optional
def evt_rest_prepare_event(data, post, request):
    data["thirdparty_badge"] = f"badge-{post.id}"
    return data


@optional
def evt_rest_event_created(post_id, request):
    _record("evt_rest_event_created", post_id)


@optional
def evt_rest_event_updated(post_id, request):
    _record("evt_rest_event_updated", post_id)


@optional
def evt_rest_event_deleted(post_id, force):
    _record("evt_rest_event_deleted", f"{post_id} force={force}")


@optional
def evt_rest_venue_created(post_id, request):
    _record("evt_rest_venue_created", post_id)


@optional
def evt_rest_venue_updated(post_id, request):
    _record("evt_rest_venue_updated", post_id)


@optional
def evt_rest_venue_deleted(post_id, force):
    _record("evt_rest_venue_deleted", f"{post_id} force={force}")


@optional
def evt_rest_organizer_created(post_id, request):
    _record("evt_rest_organizer_created", post_id)


@optional
def evt_rest_organizer_updated(post_id, request):
    _record("evt_rest_organizer_updated", post_id)


@optional
def evt_rest_organizer_deleted(post_id, force):
    _record("evt_rest_organizer_deleted", f"{post_id} force={force}")


@optional
def evt_rest_attendee_updated(attendee_id, request):
    _record("evt_rest_attendee_updated", attendee_id)


@optional
def evt_attendee_checked_in(attendee_id, attendee):
    _record("evt_attendee_checked_in", f"{attendee_id} {attendee['ticket_code']}")


@optional
def evt_attendee_checked_out(attendee_id, attendee):
    _record("evt_attendee_checked_out", f"{attendee_id} {attendee['ticket_code']}")
