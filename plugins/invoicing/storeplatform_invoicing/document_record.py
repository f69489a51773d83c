"""A document as the plugin's face gives it to other plugins (``api.py``) and as REST's metadata
answer reads it (``views.metadata``): the values of a ``Document`` row, without its PDF.

A record, not the ORM instance: it may be kept between requests (``@cached``) and handed to
another plugin, which can neither change the row through it nor load the PDF's bytes by
accident. Its field names are pinned by tests/invoicing/test_face.py."""
from collections import namedtuple

FIELDS = ("id", "order_id", "document_type", "year", "invoice_number", "display_number", "created_at",
          "generated_at", "file_size")


class DocumentRecord(namedtuple("DocumentRecord", FIELDS)):
    """``document_type`` one of ``DOCUMENT_TYPES``; ``invoice_number`` the number in its type's
    sequence of ``year``, ``display_number`` as printed (prefix, number, suffix);
    ``generated_at`` the UTC time its PDF was made (None: not rendered yet), ``file_size`` its
    bytes."""
    __slots__ = ()

    @classmethod
    def of(cls, document):
        return cls(*(getattr(document, name) for name in FIELDS))
