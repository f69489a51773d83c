from setuptools import find_packages, setup

setup(
    name="storeplatform-pricecalc",
    version="0.1.0",
    description="Measurement-based price calculator for storeplatform",
    packages=find_packages(),
    include_package_data=True,
    package_data={"storeplatform_pricecalc": ["migrations/versions/*.py"]},
    python_requires=">=3.11",
    install_requires=["storeplatform"],
    entry_points={"storeplatform.plugins": ["pricecalc = storeplatform_pricecalc.plugin"]},
)
