"""A REST service answers its value as JSON on the request's response: one made by a response
factory a plugin registered, one a view has already touched (status, headers), or else a new one."""
from decimal import Decimal

from pyramid.response import Response

from storeplatform.api import Service, hookimpl

answers = Service("answers/v1", "/thing", name="answers-thing", description="Answers a value.")


@answers.get()
def get_thing(request):
    return {"price": Decimal("12.50")}


@answers.post()
def post_thing(request):
    request.response.status_code = 201
    request.response.headers["X-Thing"] = "made"
    return {"made": True}


class Answers:
    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_rest_namespace("answers/v1", description="Answers.")
        config.add_rest_services(answers)


class FactoryResponses(Answers):
    @hookimpl
    def storeplatform_includeme(self, config):
        super().storeplatform_includeme(config)

        def response_factory(request):
            response = Response()
            response.headers["X-Made-By"] = "plugin"
            return response

        config.set_response_factory(response_factory)


def test_an_answer_is_compact_json_with_its_type_and_exact_decimals(make_site):
    site = make_site(plugins=[Answers()])
    res = site.app.get("/api/answers/v1/thing", status=200)
    assert res.body == b'{"price":12.5}'
    assert res.headers["Content-Type"] == "application/json" and res.headers["Content-Length"] == str(len(res.body))
    assert "X-Made-By" not in res.headers


def test_what_a_view_set_on_the_response_is_kept(make_site):
    site = make_site(plugins=[Answers()])
    res = site.app.post_json("/api/answers/v1/thing", {}, status=201)
    assert res.json == {"made": True} and res.headers["X-Thing"] == "made"
    assert res.headers["Content-Type"] == "application/json"


def test_a_plugin_response_factory_makes_the_answers(make_site):
    site = make_site(plugins=[FactoryResponses()])
    res = site.app.get("/api/answers/v1/thing", status=200)
    assert res.body == b'{"price":12.5}' and res.headers["X-Made-By"] == "plugin"
    assert res.headers["Content-Type"] == "application/json"
