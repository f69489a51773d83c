"""Property-based run over every route the site serves: schemathesis reads the OpenAPI document
the site generates (``GET {rest_root}/openapi.json``) and sends generated requests, valid and
invalid, with the credentials of an administrator, through the WSGI app.

Checks: no 5xx, and every error answer has the one error body whose ``data.status`` is the HTTP
status. Runs on both backends like every test.
"""
import os

import hypothesis
import pytest
import schemathesis
from schemathesis import GenerationMode

PLUGINS = "invoicing pricecalc events"
# Examples per operation and generation mode; the whole run stays well under three minutes.
MAX_EXAMPLES = int(os.environ.get("SP_FUZZ_EXAMPLES", "10"))
NAMESPACES = ["store/v1", "invoicing/v1", "pricecalc/v1", "events/v1"]


def error_body_shape(ctx, response, case):
    """Every error answer is ``{"code", "message", "data": {"status"}}`` with the HTTP status."""
    if response.status_code < 400:
        return None
    body = response.json()
    assert isinstance(body, dict) and set(body) == {"code", "message", "data"}, body
    assert isinstance(body["code"], str) and body["code"], body
    assert isinstance(body["message"], str) and body["message"], body
    assert isinstance(body["data"], dict) and body["data"].get("status") == response.status_code, body
    return None


def no_server_error(ctx, response, case):
    assert response.status_code < 500, (response.status_code, response.text[:500])
    return None


@pytest.fixture
def fuzz_site(make_site):
    site = make_site(**{"storeplatform.plugins": PLUGINS})
    site.set_option("invoicing.rest_api_enabled", True)
    return site


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_every_route_answers_without_server_errors(fuzz_site, namespace):
    """One namespace per test, so that a parallel run spreads them."""
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", fuzz_site.wsgi)
    headers = {**fuzz_site.headers_for("administrator")}
    operations = [op for op in (result.ok() for result in schema.get_all_operations())
                  if namespace in op.definition.raw.get("tags", [])]
    assert len(operations) >= 3  # the namespace is in the document with its routes
    failures = {}
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            @hypothesis.settings(max_examples=MAX_EXAMPLES, deadline=None, database=None, derandomize=True,
                                 suppress_health_check=list(hypothesis.HealthCheck),
                                 phases=[hypothesis.Phase.generate])
            @hypothesis.given(case=operation.as_strategy(generation_mode=mode))
            def run(case):
                response = case.call(headers=headers)
                case.validate_response(response, checks=[no_server_error, error_body_shape])

            try:
                run()
            except hypothesis.errors.Unsatisfiable:
                pass  # negative mode of an operation without inputs: nothing to get wrong
            except Exception as exc:  # collect every failing operation, report them together
                failures[f"{operation.label} ({mode.value})"] = str(exc)[:800]
    assert failures == {}
