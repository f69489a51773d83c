"""Colander schemas of the REST routes (they validate requests and describe the index)."""
import colander

from storeplatform.api import StrictString

from .models import DOCUMENT_TYPES


class NullIsAbsent(StrictString):
    """Text where JSON null means the field was not sent (docs/decisions.md: a ``force_type`` of
    null means "resolve it"); an empty string is still text, for the field's validator to judge."""

    def deserialize(self, node, cstruct):
        if cstruct is None:
            return colander.null
        return super().deserialize(node, cstruct)


class RegenerateBody(colander.MappingSchema):
    force_type = colander.SchemaNode(
        NullIsAbsent(), missing=colander.drop, validator=colander.OneOf(DOCUMENT_TYPES),
        description="Document type to make instead of the automatically resolved one (null or absent: "
                    "the resolved one).")


METADATA_RESPONSE = {
    "type": "object",
    "properties": {
        "order_id": {"type": "integer", "description": "Store order identifier."},
        "document_type": {"type": "string", "enum": list(DOCUMENT_TYPES)},
        "invoice_number": {"type": "integer", "description": "Sequential number."},
        "display_number": {"type": "string", "description": "Prefix, year and zero-padded sequence, joined by hyphens."},
        "generated_date": {"type": "string", "format": "date-time", "description": "ISO 8601 with UTC offset."},
        "file_size": {"type": "integer", "description": "Size of the PDF in bytes."},
        "pdf_url": {"type": "string", "format": "uri", "description": "Storefront download link."},
        "regenerate_url": {"type": "string", "format": "uri", "description": "Full URL of the regenerate endpoint."},
    },
}
PDF_RESPONSE = {"type": "string", "format": "binary", "content_type": "application/pdf"}
