from setuptools import find_packages, setup

setup(
    name="storeplatform-events",
    version="0.1.0",
    description="Event ticketing for storeplatform: events, venues, attendees, check-in, webhooks",
    packages=find_packages(),
    include_package_data=True,
    package_data={"storeplatform_events": ["migrations/versions/*.py", "admin_templates/*/*.jinja2",
                                            "admin_static/*.*", "admin_static/vendor/*",
                                            "mail_templates/*/*.txt", "mail_templates/*/*.html"]},
    python_requires=">=3.11",
    install_requires=["storeplatform", "segno>=1.6", "reportlab>=4.0", "requests>=2.31", "requests-hardened>=1.0"],
    entry_points={"storeplatform.plugins": ["events = storeplatform_events.plugin"]},
)
