from setuptools import find_packages, setup

setup(
    name="storeplatform-oauth",
    version="0.1.0",
    description="One-legged OAuth 1.0a (RFC 5849) with the site's consumer keys, for storeplatform",
    packages=find_packages(),
    include_package_data=True,
    package_data={"storeplatform_oauth": ["migrations/versions/*.py"]},
    python_requires=">=3.11",
    install_requires=["storeplatform", "oauthlib>=3.2", "sqlalchemy>=2.0", "zope.sqlalchemy>=3.1"],
    entry_points={"storeplatform.plugins": ["oauth = storeplatform_oauth.plugin"]},
)
