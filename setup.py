"""Build the optional C double-dummy core ``engine.ai._dd`` (everything else is in pyproject).

``pip install -e .`` compiles it with the system C compiler. If compiling fails the package
still installs and :mod:`engine.ai.dd` falls back to the pure-Python core (same API).
"""

import sys

from setuptools import Extension, setup

extra = [] if sys.platform == "win32" else ["-O3", "-std=c99"]

setup(
    ext_modules=[
        Extension(
            "engine.ai._dd", sources=["engine/ai/_dd.c"], extra_compile_args=extra, optional=True
        ),
    ],
)
