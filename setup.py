"""What pyproject.toml cannot say: the top-level data/ folder ships as the package refuge_data.

Its subfolders (cases, scenarios, sweeps, tools) hold no code and are listed as packages only so
that their files travel with it (read through importlib.resources).
"""

from setuptools import find_packages, setup

DATA_FOLDERS = ("cases", "scenarios", "sweeps", "tools")

setup(
    packages=[
        *find_packages(include=["geo", "geo.*", "refuge_map", "refuge_map.*"]),
        "refuge_data",
        *(f"refuge_data.{sub}" for sub in DATA_FOLDERS),
    ],
    package_dir={"refuge_data": "data"},
)
