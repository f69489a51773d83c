"""The OpenAPI document carries each view's ``response=`` as the schema index does: a JSON
Schema as the 2XX answer's schema, a media type as a binary answer, a sketch as ``x-shape``."""
from storeplatform.api import Service, hookimpl

SCHEMA = {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}
PDF = {"type": "string", "format": "binary", "content_type": "application/pdf"}
SKETCH = {"id": "integer", "tags": ["string"]}

item = Service("shapes/v1", r"/items/{id:\d+}", name="shapes-item", description="An item.")
picture = Service("shapes/v1", "/picture", name="shapes-picture", description="A picture.")
document = Service("shapes/v1", "/document", name="shapes-document", description="A document.")
sketched = Service("shapes/v1", "/sketched", name="shapes-sketched", description="A sketched answer.")
plain = Service("shapes/v1", "/plain", name="shapes-plain", description="No shape.")


@item.get(response=SCHEMA)
@picture.get(response="image/png")
@document.get(response=PDF)
@sketched.get(response=SKETCH)
@plain.get()
def answer(request):
    return {"id": 1}


class Shapes:
    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_rest_namespace("shapes/v1", description="Answers with shapes.")
        config.add_rest_services(item, picture, document, sketched, plain)


def test_openapi_carries_the_response_shapes(make_site):
    site = make_site(plugins=[Shapes()])
    paths = site.app.get("/api/openapi.json").json["paths"]

    def success(path):
        return paths[path]["get"]["responses"]["2XX"]

    assert success("/shapes/v1/items/{id}") == {"description": "Success.",
                                                "content": {"application/json": {"schema": SCHEMA}}}
    assert success("/shapes/v1/picture") == {
        "description": "Success.", "content": {"image/png": {"schema": {"type": "string", "format": "binary"}}}}
    assert success("/shapes/v1/document") == {
        "description": "Success.", "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}}
    assert success("/shapes/v1/sketched") == {"description": "Success.", "content": {"application/json": {}},
                                              "x-shape": SKETCH}
    assert success("/shapes/v1/plain") == {"description": "Success."}


def test_the_index_shows_the_same_shapes_as_they_are(make_site):
    site = make_site(plugins=[Shapes()])
    routes = site.app.get("/api/shapes/v1/").json["routes"]
    assert routes["/shapes/v1/items/{id}"]["endpoints"][0]["response"] == SCHEMA
    assert routes["/shapes/v1/picture"]["endpoints"][0]["response"] == "image/png"
    assert routes["/shapes/v1/document"]["endpoints"][0]["response"] == PDF
    assert routes["/shapes/v1/sketched"]["endpoints"][0]["response"] == SKETCH
    assert "response" not in routes["/shapes/v1/plain"]["endpoints"][0]
