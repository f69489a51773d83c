"""The variant's names for the standard fields, kind by kind (standard name -> variant name): one
map serves the request schema, the values handed to the domain code, its errors and the JSON."""


class Renames:
    def __init__(self, names):
        self.names = dict(names)
        self.standard = {variant: name for name, variant in self.names.items()}

    def to_variant(self, values):
        return {self.names.get(key, key): value for key, value in values.items()}

    def to_standard(self, validated):
        """Validated values under the names ``posts`` uses; the URL's ``id`` is not a field."""
        return {self.standard.get(key, key): value for key, value in validated.items() if key != "id"}


SAME = Renames({})
EVENT = Renames({"content": "description", "event_status": "status", "event_type": "type", "venue_id": "venue",
                 "organizer_id": "organizer"})
VENUE = Renames({"postal": "postal_code"})
SPEAKER = Renames({"content": "bio"})
