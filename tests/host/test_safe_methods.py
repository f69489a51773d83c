"""GET and HEAD read: a view that writes on a safe method fails loudly on every database and
leaves nothing behind (on PostgreSQL their statements run outside a transaction)."""
from sqlalchemy import func, select

from storeplatform.api import Service, Term, hookimpl

writer = Service("writer/v1", "/terms", name="writer-terms", description="Writes a term.")


def write_a_term(request):
    request.db.add(Term(taxonomy="test", name="written", slug=f"t-{request.method.lower()}"))
    request.db.flush()
    return {"written": True}


writer.get()(write_a_term)
writer.post()(write_a_term)


class Writer:
    @hookimpl
    def storeplatform_includeme(self, config):
        config.add_rest_namespace("writer/v1", description="A plugin that writes.")
        config.add_rest_services(writer)


def terms(site):
    with site.session() as s:
        return s.execute(select(func.count()).select_from(Term).where(Term.taxonomy == "test")).scalar()


def test_a_write_on_get_is_refused_and_a_write_on_post_is_kept(make_site):
    site = make_site(plugins=[Writer()])
    res = site.app.get("/api/writer/v1/terms", status=500)
    assert res.json["code"] == "rest_internal_error" and terms(site) == 0
    assert site.app.post_json("/api/writer/v1/terms", {}, status=200).json == {"written": True}
    assert terms(site) == 1
