"""An order's admin page, its history and refunds: what the page shows of them (the notes newest
first, the refunds and what is left to give back), and how its note and refund forms become the
bodies REST takes, so that they are checked by REST's schemas and then the shop's own functions
(``add_order_note``, ``plan_refund``/``refund_order``), with each error beside its field."""
from storeplatform.components.shop.order_history_schemas import NoteBody, RefundBody
from storeplatform.components.shop.order_notes import notes_select
from storeplatform.components.shop.orders import PAID_STATUSES
from storeplatform.components.shop.refunds import left_to_refund, refunds_of, whole_refund_lines
from storeplatform.core.rest.schema import deserialize

# The newest notes a page shows (REST pages through all of them).
NOTES_SHOWN = 200
REFUND_MODES = ("lines", "whole")


def history_values(request, order, *, note_form=None, note_errors=None, refund_form=None, refund_errors=None,
                   refund_problem=None, refund_review=None):
    """The order page's values of its history and refund forms (a form's values and errors when
    it is shown again)."""
    notes = request.db.execute(notes_select(order.id).limit(NOTES_SHOWN + 1)).scalars().all()
    refunds = refunds_of(request.db, order.id)
    left = left_to_refund(order, refunds)
    return {"notes": notes[:NOTES_SHOWN], "more_notes": len(notes) > NOTES_SHOWN, "refunds": refunds, "left": left,
            "refundable": order.status in PAID_STATUSES and left.amount > 0, "paid": order.status in PAID_STATUSES,
            "line_names": {item.id: item.name for item in order.line_items},
            "note_form": note_form or {"note": "", "customer_note": False}, "note_errors": note_errors or {},
            "refund_form": refund_form or refund_form_values({}, order), "refund_errors": refund_errors or {},
            "refund_problem": refund_problem, "refund_review": refund_review}


def note_body(form):
    """The note form as REST's note body (a person typed it: ``added_by_user``)."""
    return {"note": form.get("note", ""), "customer_note": form.get("customer_note", "") == "true"}


def valid_note(body):
    """The note body checked by REST's schema (``InvalidParams`` naming ``note``)."""
    return deserialize(NoteBody(), body)


def refund_form_values(form, order):
    """The refund form's values as sent (or empty): the mode, the amount, the reason and each
    line's quantity and money."""
    values = {"refund_mode": form.get("refund_mode", "lines"), "amount": form.get("amount", "").strip(),
              "reason": form.get("reason", "")}
    for item in order.line_items:
        for name in (f"quantity-{item.id}", f"refund_total-{item.id}"):
            values[name] = form.get(name, "").strip()
    return values


def refund_body(values, order, left):
    """(REST's refund body, {REST's field: the form's field}) of the refund form's values. The
    whole order: every unit and all the money left. Per line: the lines given a quantity or an
    amount, and the amount if given (else the lines' together, as REST)."""
    if values["refund_mode"] == "whole":
        lines = whole_refund_lines(order, left)
        body = {"amount": str(left.amount), "reason": values["reason"],
                "line_items": [{**line, "refund_total": str(line["refund_total"])} for line in lines]}
        # Nothing of the whole can be corrected line by line: each error is the mode's.
        fields = {f"line_items.{index}.{name}": "refund_mode"
                  for index in range(len(lines)) for name in ("id", "quantity", "refund_total")}
        return body, {**fields, "amount": "refund_mode", "line_items": "refund_mode", "reason": "reason"}
    lines, fields = [], {"amount": "amount", "reason": "reason", "line_items": "amount"}
    for item in order.line_items:
        quantity, money = values[f"quantity-{item.id}"], values[f"refund_total-{item.id}"]
        if quantity in ("", "0") and not money:
            continue
        line = {"id": item.id}
        if quantity:
            line["quantity"] = quantity
        if money:
            line["refund_total"] = money
        index = len(lines)
        lines.append(line)
        fields.update({f"line_items.{index}.quantity": f"quantity-{item.id}",
                       f"line_items.{index}.refund_total": f"refund_total-{item.id}",
                       f"line_items.{index}.id": f"quantity-{item.id}"})
    body = {"reason": values["reason"], "line_items": lines}
    if values["amount"]:
        body["amount"] = values["amount"]
    return body, fields


def valid_refund(body, order):
    """The refund body checked by REST's schema, its line ids against the order's lines."""
    ids = {item.id for item in order.line_items}
    return deserialize(RefundBody().bind(order_lines=lambda: ids), body)


def form_errors(params, fields):
    """REST's ``{field: message}`` as the form's fields: each beside the field it is about."""
    errors = {}
    for name, message in params.items():
        errors.setdefault(fields.get(name, "refund_mode"), message)
    return errors
