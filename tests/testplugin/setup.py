from setuptools import setup

setup(
    name="storeplatform-thirdparty-testplugin",
    version="0.1.0",
    description="A tiny third-party plugin for the tests: installed through its own entry point.",
    packages=["sp_thirdparty"],
    install_requires=["storeplatform"],
    entry_points={"storeplatform.plugins": ["thirdparty = sp_thirdparty", "broken = sp_thirdparty.broken",
                                            "thirdparty_tasks = sp_thirdparty.tasks",
                                            "thirdparty_guest = sp_thirdparty.guest",
                                            "thirdparty_mail = sp_thirdparty.mail"]},
)
