"""The declared architecture holds: no import cycles between modules, internal imports at the top.

Reads every import statement of the source tree (module level, inside functions, under
``TYPE_CHECKING``) with ``ast``, so it needs no install and sees what a reader sees.
The layer order itself is import-linter's job (``lint-imports``, contracts in pyproject.toml).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Internal imports that may stay inside a function, and why.
LAZY_ALLOWED = {
    ("huesenv.commands.collect", "huesenv.collect.app"): "the app module imports Flask, an optional extra",
    ("huesenv.commands.collect", "huesenv.collect.accesslog"): "imports werkzeug, which comes with Flask",
    # the agent registry loads one kind on demand: a kind's module brings its own heavy
    # dependencies (scipy via the human cohort, PIL, the model libraries) that others must not pay
    **{
        ("huesenv.agents.registry", f"huesenv.agents.{kind}"): "agent kinds load on demand"
        for kind in (
            "random_agent",
            "human_replay",
            "text_embedding",
            "clip_agent",
            "vlm",
            "api_vlm",
            "policy",
            "lookup",
        )
    },
}


def package_roots() -> dict[str, str]:
    """``setup.py``'s ROOTS: import name -> folder (agents/ installs as huesenv.agents, ...)."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "ROOTS" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py has no ROOTS mapping")


def source_modules() -> dict[str, Path]:
    modules = {}
    for package, folder in package_roots().items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join([package, *parts])] = path
    return modules


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, int, bool]]:
    """``(imported module, line, inside a function)`` for every internal import of one file.

    ``from a.b import c`` counts as importing ``a.b`` and, when ``a.b.c`` is a module,
    ``a.b.c`` too; a name that is not a module resolves to its closest module.
    """
    tree = ast.parse(path.read_text(), filename=str(path))
    in_function: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            in_function.update(id(sub) for sub in ast.walk(node))

    def closest(module: str) -> str | None:
        while module and module not in modules:
            module = module.rpartition(".")[0]
        return module or None

    found = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name if path.name == "__init__.py" else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            targets = [module] + [f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in modules]
        for target in targets:
            if target.split(".")[0] != "huesenv":
                continue
            resolved = closest(target)
            if resolved and resolved != name:
                found.append((resolved, node.lineno, id(node) in in_function))
    return found


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return cycles


@pytest.fixture(scope="module")
def imports() -> dict[str, list[tuple[str, int, bool]]]:
    modules = source_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def test_the_scan_sees_every_package(imports):
    packages = {name.split(".")[1] for name in imports if name.count(".") >= 1}
    assert {"agents", "experiments", "render", "envs", "metrics", "play"} <= packages
    assert len(imports) > 100


def test_no_import_cycles_between_modules(imports):
    graph = {name: {target for target, _, _ in found} for name, found in imports.items()}
    cycles = find_cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_cycles():
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_internal_imports_are_at_the_top(imports):
    lazy = [
        f"{name}:{line} imports {target} inside a function"
        for name, found in imports.items()
        for target, line, inside in found
        if inside and (name, target) not in LAZY_ALLOWED
    ]
    assert not lazy, "\n".join(lazy)


def test_the_lazy_allowlist_is_still_needed(imports):
    used = {(name, target) for name, found in imports.items() for target, _, inside in found if inside}
    stale = set(LAZY_ALLOWED) - used
    assert not stale, f"remove from LAZY_ALLOWED: {sorted(stale)}"


def test_nothing_but_huesenv_is_a_package_root():
    assert set(package_roots()) == {"huesenv", "huesenv.agents", "huesenv.experiments", "huesenv.render"}
    assert not any((ROOT / "huesenv" / sub).exists() for sub in ("agents", "experiments", "render"))


@pytest.mark.integration  # one fresh interpreter per module
def test_every_module_imports_first_in_a_fresh_interpreter():
    """Import order cannot break a module: each one is imported first, alone (a cycle hidden by lazy
    package exports would fail here with "partially initialized module")."""
    import os
    import subprocess
    from concurrent.futures import ThreadPoolExecutor

    names = sorted(n for n in source_modules() if not n.endswith("__main__"))
    env = {**os.environ, "PYTHONSAFEPATH": "1"}  # not the partial root huesenv/ folder

    def run(name: str) -> str | None:
        out = subprocess.run(
            [sys.executable, "-c", f"import {name}"], capture_output=True, text=True, env=env, cwd=ROOT
        )
        return None if out.returncode == 0 else f"{name}: {out.stderr.strip().splitlines()[-1:]}"

    with ThreadPoolExecutor(max_workers=2) as pool:
        failures = [f for f in pool.map(run, names) if f]
    assert not failures, "\n".join(failures)


if __name__ == "__main__":  # pragma: no cover - a quick look from the command line
    mods = source_modules()
    found = {n: imports_of(n, p, mods) for n, p in mods.items()}
    print(
        len(found),
        "modules;",
        find_cycles({n: {t for t, _, _ in f} for n, f in found.items()}) or "no cycles",
    )
    sys.exit(0)
