from setuptools import find_packages, setup

setup(
    name="storeplatform",
    version="0.1.0",
    description="A plugin-based store platform on Pyramid",
    package_dir={"": "src"},
    packages=find_packages("src"),
    include_package_data=True,
    package_data={"storeplatform": ["migrations/*.py", "migrations/*.mako", "migrations/versions/*.py"]},
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
        "orjson>=3.10",
        "waitress>=3.0",
        "plaster_pastedeploy",
    ],
    extras_require={
        "production": ["gunicorn>=22"],
        "test": ["pytest>=8", "pytest-xdist>=3.5", "webtest>=3.0", "pypdf>=4.0", "schemathesis>=4.0"],
    },
    entry_points={
        "paste.app_factory": ["main = storeplatform:main"],
        "paste.server_runner": ["waitress = storeplatform.server:waitress", "gunicorn = storeplatform.server:gunicorn"],
        "console_scripts": ["storeplatform = storeplatform.cli:main"],
    },
)
