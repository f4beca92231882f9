"""The house rules of docs/architecture.md, checked: imports point one way (gamelog ← replay ←
analyze ← shengji), no module imports itself back through others (no import circle, lazy and
type-only imports included), and no long module or class without its reason."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ["gamelog", "replay", "analyze", "shengji"]
"""Lowest first: a package may import only its own modules and those of the packages before it."""


def _modules() -> dict[str, Path]:
    found = {}
    for package in LAYERS:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = _modules()
EXTENSIONS = {".".join(p.relative_to(ROOT).with_suffix("").parts): p
              for package in LAYERS for p in (ROOT / package).rglob("*.c")}
"""Modules of ours written in C (``replay._greedy``): they import none of ours."""


def _owner(name: str) -> str | None:
    """The module of ours that an imported name lives in (``None``: not ours, or one of the
    C modules, which import nothing of ours)."""
    while name:
        if name in MODULES:
            return name
        if name in EXTENSIONS:
            return None
        name = name.rpartition(".")[0]
    return None


def imports_of(name: str) -> set[str]:
    """Every module of ours that ``name`` imports, anywhere in it (functions and
    ``TYPE_CHECKING`` blocks included)."""
    tree = ast.parse(MODULES[name].read_text())
    package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(o for a in node.names if (o := _owner(a.name)))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in EXTENSIONS:
                    continue
                owner = full if full in MODULES else _owner(base)
                if owner:
                    out.add(owner)
    out.discard(name)
    return out


GRAPH = {name: imports_of(name) for name in MODULES}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle():
    assert circles(GRAPH) == []


def test_the_circle_finder_finds_one():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_imports_point_down_the_layers():
    upward = [f"{a} imports {b}" for a, outs in GRAPH.items() for b in outs
              if LAYERS.index(b.split(".")[0]) > LAYERS.index(a.split(".")[0])]
    assert upward == []


def test_the_graph_sees_lazy_and_type_only_imports():
    assert "replay.trick" in GRAPH["replay.results"]  # under TYPE_CHECKING
    assert "analyze.batches" in GRAPH["analyze.metrics"]  # inside a function


def test_phases_never_call_each_other():
    """Each phase of the replayer is sequenced by replay/engine.py alone (the judgements
    follow and throws belong to the tricks phase)."""
    phases = {"replay.phases.deal", "replay.phases.auction", "replay.phases.kitty",
              "replay.phases.tricks", "replay.phases.outcome"}
    allowed = {"replay.phases.tricks": {"replay.phases.follow", "replay.phases.throws"}}
    for phase in phases:
        others = {m for m in GRAPH[phase] if m.startswith("replay.phases.") and m != phase}
        assert others <= allowed.get(phase, set()), (phase, others)
    assert phases <= GRAPH["replay.engine"]


def _long(limit_module: int = 700, limit_class: int = 400) -> list[str]:
    found = []
    for name, path in MODULES.items():
        text = path.read_text()
        tree = ast.parse(text)
        doc = ast.get_docstring(tree) or ""
        lines = text.count("\n")
        if lines > limit_module and "Why" not in doc:
            found.append(f"{name}: {lines} lines")
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                size = node.end_lineno - node.lineno + 1
                if size > limit_class and "Why" not in (ast.get_docstring(node) or ""):
                    found.append(f"{name}.{node.name}: {size} lines")
    return found


def test_no_long_module_or_class_without_its_reason():
    assert _long() == []


def test_every_package_says_what_it_offers():
    for name, path in MODULES.items():
        if path.name == "__init__.py":
            assert ast.get_docstring(ast.parse(path.read_text())), f"{name} has no docstring"


def test_an_installed_package_carries_every_module_and_asset():
    """``pip install .`` (a wheel, not the editable install) ships what pyproject.toml lists:
    every package of ours (a subpackage left out loses its modules: the CLI, the engine's
    phases) and every file the report reads from templates/."""
    import fnmatch
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    dirs = {config.get("package-dir", {}).get(p, p.replace(".", "/")): p for p in listed}
    ours = {".".join(path.parent.relative_to(ROOT).parts)
            for package in LAYERS for path in (ROOT / package).rglob("__init__.py")}
    assert ours <= listed, f"packages left out of pyproject.toml: {sorted(ours - listed)}"
    for folder, package in dirs.items():
        if (ROOT / folder / "__init__.py").exists():
            continue  # a package: its modules go with it
        patterns = config.get("package-data", {}).get(package, [])
        for path in (ROOT / folder).iterdir():
            assert any(fnmatch.fnmatch(path.name, p) for p in patterns), \
                f"{folder}/{path.name} would be left out of an installed package"
