from setuptools import setup

setup(
    name="storeplatform-doorlist",
    version="1.0",
    py_modules=["storeplatform_doorlist"],
    install_requires=["storeplatform", "storeplatform-events"],
    entry_points={"storeplatform.plugins": ["doorlist = storeplatform_doorlist"]},
)
