"""Maps the repository folders onto one import name, ``huesenv``.

``agents/``, ``experiments/`` and ``render/`` live at the repository root for
readability but install as ``huesenv.agents``, ``huesenv.experiments`` and
``huesenv.render`` so that nothing but ``huesenv`` lands at the top level of
site-packages.  Everything else is declared in ``pyproject.toml``.
"""

from setuptools import find_packages, setup

ROOTS = {
    "huesenv": "huesenv",
    "huesenv.agents": "agents",
    "huesenv.experiments": "experiments",
    "huesenv.render": "render",
}

packages = []
for name, folder in ROOTS.items():
    packages.append(name)
    packages += [f"{name}.{sub}" for sub in find_packages(folder)]

setup(packages=packages, package_dir=ROOTS)
