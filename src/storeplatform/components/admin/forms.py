"""Reading what a browser sent: form fields as text, refused as a whole (400 page) when it is not
valid UTF-8 or holds NUL characters, which no database column could store."""
from urllib.parse import parse_qsl

from pyramid.httpexceptions import HTTPBadRequest

MAX_FIELD = 100_000
MAX_FIELDS = 1000


def form_values(request):
    """The form's fields as ``{name: text}`` (the last value of a repeated name: a checkbox
    after its hidden ``false``)."""
    cached = request.__dict__.get("_admin_form")
    if cached is not None:
        return cached
    items = _items(request) if request.method not in ("GET", "HEAD") else []
    values = {}
    for name, value in items:
        if not isinstance(value, str):  # a file field: no admin form takes files
            raise HTTPBadRequest(f"The field {name!r} must be text.")
        if "\x00" in value or "\x00" in name:
            raise HTTPBadRequest("The form must not contain NUL characters.")
        if len(value) > MAX_FIELD:
            raise HTTPBadRequest(f"The field {name!r} is longer than {MAX_FIELD} characters.")
        values[name] = value
    request.__dict__["_admin_form"] = values
    return values


def _items(request):
    """The (name, value) pairs of the body, decoded strictly: WebOb would replace bytes that are
    not UTF-8 with U+FFFD and let the damaged text be saved."""
    if request.content_type == "application/x-www-form-urlencoded" or not request.body:
        try:
            return parse_qsl(request.body.decode("utf-8"), keep_blank_values=True, encoding="utf-8",
                             errors="strict", max_num_fields=MAX_FIELDS)
        except UnicodeDecodeError:
            raise HTTPBadRequest("The form is not valid UTF-8 text.")
        except ValueError:
            raise HTTPBadRequest(f"The form has more than {MAX_FIELDS} fields.")
    if request.content_type == "multipart/form-data":
        items = list(request.POST.items())
        if any("\ufffd" in name or (isinstance(value, str) and "\ufffd" in value) for name, value in items):
            raise HTTPBadRequest("The form is not valid UTF-8 text.")
        return items
    raise HTTPBadRequest("Send the form as application/x-www-form-urlencoded or multipart/form-data.")


def refuse_form(request, status=400):
    """The form is shown again with its errors: answer ``status`` and undo whatever the request
    wrote (the transaction is aborted at its end), so that nothing is half-saved."""
    request.response.status = status
    request.tm.doom()
