"""The library a kernel's code belongs to, as the dump record keeps it: the
installed distribution whose files define the function, with its version;
none for code of the project or of a checkout searched first."""

import sys
from importlib import metadata
from pathlib import Path

import torch.nn.functional

from tileperf_dump.library import library_of


def test_an_installed_distributions_function_names_it_and_its_version():
    assert library_of(torch.nn.functional.relu) == {"torch": metadata.version("torch")}


def test_the_projects_own_code_belongs_to_no_library(tmp_path, monkeypatch):
    def kernel():
        pass
    assert library_of(kernel) == {}
    # A checkout of a library on the search path, outside the installed packages.
    (tmp_path / "checkout").mkdir()
    (tmp_path / "checkout" / "__init__.py").write_text("def kernel():\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import checkout
    try:
        assert library_of(checkout.kernel) == {}
    finally:
        del sys.modules["checkout"]
    assert Path(checkout.__file__).is_relative_to(tmp_path)
