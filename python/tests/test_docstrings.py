"""Every example in the package's docstrings runs and prints what it says."""

import doctest
import inspect

import writ


def _objects():
    yield "writ", writ
    for name in writ.__all__:
        obj = getattr(writ, name)
        if inspect.isclass(obj) or callable(obj):
            yield f"writ.{name}", obj


def test_every_docstring_example_holds(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    examples = 0
    for name, obj in _objects():
        for test in finder.find(obj, name, globs={"writ": writ}):
            examples += len(test.examples)
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0
    # The package documents its main classes with examples.
    assert examples >= 10
