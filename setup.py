from setuptools import find_packages, setup

setup(
    name="storeplatform",
    version="0.1.0",
    description="A plugin-based store platform on Pyramid",
    package_dir={"": "src"},
    packages=find_packages("src"),
    include_package_data=True,
    package_data={"storeplatform": ["migrations/*.py", "migrations/*.mako", "migrations/versions/*.py",
                                   "components/admin/templates/*.jinja2", "components/admin/templates/*/*.jinja2",
                                   "components/admin/static/*", "components/admin/static/vendor/*",
                                   "components/audit/templates/*/*.jinja2",
                                   "components/mail/templates/*/*.jinja2", "components/mail/templates/messages/*.txt",
                                   "components/mail/templates/messages/*.html"]},
    python_requires=">=3.11",
    install_requires=[
        "pyramid>=2.0",
        "pyramid_tm>=2.5",
        "cornice>=6.1",
        "colander>=2.0",
        "sqlalchemy>=2.0",
        "zope.sqlalchemy>=3.1",
        "transaction>=4.0",
        "alembic>=1.13",
        "pluggy>=1.5",
        "huey>=2.5",
        "redis>=5.0",
        "psycopg[binary]>=3.1",
        "PyJWT>=2.8",
        "cryptography>=42",
        "orjson>=3.10",
        "waitress>=3.0",
        "plaster_pastedeploy",
        "pyramid_jinja2>=2.10",
        "prometheus_client>=0.20",
    ],
    extras_require={
        "production": ["gunicorn>=22"],
        # Traces (storeplatform.traces = otlp): the API and SDK, OTLP over HTTP, and the Pyramid
        # and SQLAlchemy instrumentations (storeplatform.components.observability.tracing). Pinned as one matched release:
        # OpenTelemetry's core (1.x) and contrib (0.xb) packages pin each other exactly, and open
        # ranges broke a fresh install the day core 1.45.2 came out before contrib 0.66b2.
        "otel": ["opentelemetry-api==1.45.1", "opentelemetry-sdk==1.45.1",
                 "opentelemetry-exporter-otlp-proto-http==1.45.1",
                 "opentelemetry-instrumentation-pyramid==0.66b1", "opentelemetry-instrumentation-sqlalchemy==0.66b1"],
        "test": ["pytest>=8", "pytest-xdist>=3.5", "webtest>=3.0", "pypdf>=4.0", "schemathesis>=4.0",
                 "requests-oauthlib>=2.0", "WooCommerce>=3.0", "wordpress-api>=1.2.9", "WSGIProxy2>=0.5",
                 "playwright>=1.40", "aiosmtpd>=1.4", "zxing-cpp>=2.2",
                 "pypdfium2>=4.0"],
    },
    entry_points={
        "paste.app_factory": ["main = storeplatform:main"],
        "paste.server_runner": ["waitress = storeplatform.server:waitress", "gunicorn = storeplatform.server:gunicorn"],
        "console_scripts": ["storeplatform = storeplatform.cli:main"],
    },
)
