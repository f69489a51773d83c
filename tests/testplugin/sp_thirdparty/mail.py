"""A third-party plugin shaping mail through the plugin API (registered by the mail tests): it
attaches a file to the messages of its kind, marks every message with a header, and sends one
message in the transaction of a REST request."""
import colander

from storeplatform.api import Attachment, Service, StrictBoolean, hookimpl, render_mail, send_mail

NOTE = Attachment("note.txt", b"attached by the thirdparty plugin\n", "text/plain")

notify = Service("store/v1", "/thirdparty/notify", name="thirdparty-notify",
                 description="Records a message to the address given (and fails after it when asked).")


class NotifyBody(colander.MappingSchema):
    to = colander.SchemaNode(colander.String())
    fail = colander.SchemaNode(StrictBoolean(), missing=False)


@notify.post(body=NotifyBody())
def post_notify(request):
    text, html = render_mail(request.db, "test", {"site_title": "Third party"})
    message_id = send_mail(request.db, to=request.validated["to"], subject="Notified", text=text, html=html,
                           kind="thirdparty.notify")
    if request.validated["fail"]:
        raise RuntimeError("failed after the message was recorded: nothing may be sent")
    return {"id": message_id}


@hookimpl
def storeplatform_includeme(config):
    config.add_rest_services(notify)


@hookimpl
def storeplatform_mail_attachments(session, kind, context):
    if kind == "thirdparty.notify" or context.get("attach"):
        return [NOTE]
    return None


@hookimpl
def storeplatform_mail_message(message, kind):
    message["X-Thirdparty"] = kind
    return None
