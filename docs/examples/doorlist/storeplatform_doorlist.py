"""The door list: an event's attendees not yet in, for the staff at the door."""
from storeplatform.api import OptionSpec, PaginationSchema, Service, audit, hookimpl, send_mail, site_options
from storeplatform_events import api as events

doorlist = Service("events/v1", r"/doorlist/{event_id:\d+}", name="doorlist",
                   description="Attendees of an event not yet checked in (a page of them).")


@doorlist.get(permission="manage_shop", query=PaginationSchema())
def get_doorlist(request):
    event = events.event_or_404(request, request.validated["event_id"], statuses=events.LISTED)
    return [{"name": f"{a.first_name} {a.last_name}", "ticket_code": a.ticket_code, "event": event.title}
            for a in events.attendee_page(request, event_id=event.id, status=events.NOT_IN)]


@hookimpl
def storeplatform_includeme(config):
    config.add_rest_services(doorlist)


@hookimpl
def storeplatform_site_options():
    return [OptionSpec("doorlist.notify", "email", "", "doorlist", "Who hears of new events")]


@hookimpl(optionalhook=True)
def evt_rest_prepare_event(data, post, request):
    data["doorlist"] = request.rest_url("events/v1", f"/doorlist/{post.id}")
    return data


@hookimpl(optionalhook=True)
def evt_topic_announced(session, topic, object_id, info):
    if topic == "event.created":  # over REST, the admin, the CLI or demo data: in that change
        audit(session, "plugin:doorlist", "event_created", subject=str(object_id))
        if site_options(session)["doorlist.notify"]:
            send_mail(session, to=site_options(session)["doorlist.notify"], kind="doorlist.event",
                      subject=f"New event #{object_id}", text="Its door list is ready.")
