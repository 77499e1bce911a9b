"""The package against its typed interface (`writ/_writ.pyi`): every
name the stub declares exists, with a docstring, and `writ` re-exports
it."""

from __future__ import annotations

import ast
import pathlib

import pytest

import writ
import writ._writ as native

STUB = pathlib.Path(writ.__file__).with_name("_writ.pyi")


def _declared():
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            members = []
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    members.append(item.target.id)
                elif isinstance(item, ast.FunctionDef) and not item.name.startswith("__"):
                    members.append(item.name)
            yield node.name, "class", members
        elif isinstance(node, ast.FunctionDef):
            yield node.name, "function", []
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            yield node.target.id, "value", []


DECLARED = list(_declared())


def test_stub_is_shipped():
    assert STUB.is_file()
    assert STUB.with_name("py.typed").is_file()
    assert len(DECLARED) > 20


@pytest.mark.parametrize("name, kind, members", DECLARED, ids=[d[0] for d in DECLARED])
def test_declared_name_exists(name, kind, members):
    assert hasattr(native, name), f"writ._writ has no {name}"
    obj = getattr(native, name)
    assert getattr(writ, name) is obj, f"writ does not re-export {name}"
    if kind == "value" or name == "JSON":
        return
    assert (obj.__doc__ or "").strip(), f"{name} has no docstring"
    if kind == "class" and not issubclass(obj, BaseException):
        # (An exception's attributes are its instances', tested where raised.)
        for member in members:
            assert hasattr(obj, member), f"{name}.{member} is declared but missing"
            if callable(getattr(obj, member)):
                assert (getattr(obj, member).__doc__ or "").strip(), f"{name}.{member} has no docstring"


def _docstrings():
    """Each docstring of the module that holds an example, by name."""
    seen = {}
    for name in dir(native):
        if name.startswith("_"):
            continue
        obj = getattr(native, name)
        if (obj.__doc__ or "").count(">>>"):
            seen[name] = obj.__doc__
        if isinstance(obj, type):
            for attr in dir(obj):
                if attr.startswith("_"):
                    continue
                member = getattr(obj, attr, None)
                doc = getattr(member, "__doc__", None) or ""
                if ">>>" in doc and doc != (obj.__doc__ or ""):
                    seen[f"{name}.{attr}"] = doc
    return sorted(seen.items())


EXAMPLES = _docstrings()


def test_there_are_examples():
    names = [n for n, _ in EXAMPLES]
    assert len(names) >= 5, names
    assert "check" in names and "Engine" in names


@pytest.mark.parametrize("name, doc", EXAMPLES, ids=[n for n, _ in EXAMPLES])
def test_docstring_examples_run(name, doc, tmp_path, monkeypatch):
    """The examples in the docstrings are what the package does."""
    import doctest

    monkeypatch.chdir(tmp_path)  # an example may make `writ.db` here
    test = doctest.DocTestParser().get_doctest(doc, {"writ": writ}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out: list[str] = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
