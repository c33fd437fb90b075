"""Features meet through services and one declared seam, not through templates or routes
(issue 41): every /t/<token>/… route is the tables blueprint's; no template global reads the
database; which device a request comes from, and whether it is the organiser's, are asked of
companion/devices.py only; the tables package imports no other feature."""

from __future__ import annotations

import ast
import re
import types
from pathlib import Path

from companion.store import get_db
from test_import_cycles import import_graph
import pytest

# Static reads of the whole source tree (seconds each): the slow tier, which CI runs; the fast
# tier stays under a minute on one core (issue 41).
pytestmark = pytest.mark.slow

PACKAGE = Path(__file__).resolve().parent.parent / "companion"
READS_THE_DATABASE = {"get_db", "connect", "write"}  # the store's ways in (companion/store)


def test_every_table_route_belongs_to_the_tables_blueprint(app):
    others = sorted(f"{rule.rule} ({rule.endpoint})" for rule in app.url_map.iter_rules()
                    if rule.rule.startswith("/t/<") and not rule.endpoint.startswith("tables."))
    assert not others, "a table's routes are companion/tables/views.py's (others add through tables/additions.py)"


def names_used(code: types.CodeType) -> set[str]:
    """Every global, attribute or enclosing name ``code`` and the functions inside it use."""
    found = set(code.co_names) | set(code.co_freevars)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found |= names_used(const)
    return found


def reads_the_database(function, depth: int = 4) -> bool:
    """Does ``function``, or a function of companion's it calls (by its global name, or as an
    attribute of a module it uses: ``round_time.table_clock``), reach the store's ways in?"""
    names = names_used(function.__code__)
    if names & READS_THE_DATABASE:
        return True
    if depth == 0:
        return False
    scope = dict(getattr(function, "__globals__", {}))
    scope.update(zip(function.__code__.co_freevars, (cell.cell_contents for cell in function.__closure__ or ())))
    called = []
    for name in names:
        found = scope.get(name)
        if isinstance(found, types.ModuleType) and found.__name__.startswith("companion"):
            called += [getattr(found, other) for other in names if isinstance(getattr(found, other, None), types.FunctionType)]
        elif isinstance(found, types.FunctionType):
            called.append(found)
    return any(reads_the_database(callee, depth - 1) for callee in called
               if callee.__module__.startswith("companion") and callee is not function)


def template_callables(app) -> dict[str, object]:
    env = app.jinja_env
    found = {f"global {name}": value for name, value in env.globals.items()}
    found |= {f"filter {name}": value for name, value in env.filters.items()}
    found |= {f"test {name}": value for name, value in env.tests.items()}
    for processors in app.template_context_processors.values():
        found |= {f"context processor {p.__qualname__}": p for p in processors}
    return {name: value for name, value in found.items()
            if getattr(value, "__module__", "").startswith("companion") and hasattr(value, "__code__")}


def test_no_template_global_reads_the_database(app):
    """A page's data is read by its view (and handed to the template), so a template can't
    start a query in the middle of a cached or shared rendering."""
    callables = template_callables(app)
    assert "global game_name" in callables and "test table_token" in callables  # the check sees them
    reading = sorted(name for name, value in callables.items() if reads_the_database(value))
    assert not reading, reading


def test_the_check_sees_a_template_global_that_reads_the_database_itself_or_through_a_call(app):
    from companion.night import round_time
    from companion.tables import record

    def round_clock(table):  # the global this issue removed (night/views.py)
        return round_time.table_clock(get_db(), table)

    def change_lock_global(table):  # and the one that read through a function (tables/record.py)
        return record.change_lock(table)

    for function in (round_clock, change_lock_global):
        function.__module__ = "companion.example"
        app.jinja_env.globals[function.__name__] = function
    found = template_callables(app)
    assert reads_the_database(found["global round_clock"]) and reads_the_database(found["global change_lock_global"])
    assert not reads_the_database(found["global game_name"])


def address_readers(root: Path = PACKAGE) -> list[str]:
    """Where companion/ reads a request's address, or asks whether an address is the laptop's."""
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root.parent).as_posix()
        if relative == "companion/devices.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value == "REMOTE_ADDR":
                found.append(f"{relative}:{node.lineno} REMOTE_ADDR")
            elif isinstance(node, ast.Attribute) and node.attr == "remote_addr":
                found.append(f"{relative}:{node.lineno} request.remote_addr")
            elif isinstance(node, ast.Name) and node.id == "is_laptop_address" and isinstance(node.ctx, ast.Load):
                found.append(f"{relative}:{node.lineno} is_laptop_address")
    return found


def test_the_device_and_the_organiser_are_asked_of_one_module():
    """companion/devices.py says which device a request is and whether it is the organiser's;
    the server alone, which accepts connections before there is a request, asks it of an
    address (and puts the plain one into the environ)."""
    allowed_in_server = {"REMOTE_ADDR", "is_laptop_address"}
    outside = [where for where in address_readers()
               if not (where.startswith("companion/serving/server.py:") and where.rsplit(" ", 1)[1] in allowed_in_server)]
    assert not outside, outside


def test_the_address_check_finds_each_form(tmp_path):
    package = tmp_path / "companion"
    package.mkdir()
    (package / "views.py").write_text("def f(request, environ):\n    a = request.remote_addr\n"
                                      "    b = environ.get('REMOTE_ADDR')\n    return is_laptop_address(a)\n")
    (package / "devices.py").write_text("def g(environ):\n    return environ['REMOTE_ADDR']\n")
    assert [w.split(" ", 1)[1] for w in address_readers(package)] == [
        "request.remote_addr", "REMOTE_ADDR", "is_laptop_address"]


def test_the_tables_package_imports_no_other_feature():
    """Other features add to a table's page through companion/tables/additions.py; the tables
    package never imports them (the night imports the tables, never the other way)."""
    graph = import_graph()
    reaching = sorted(f"{module} → {target}" for module, targets in graph.items() if module.startswith("companion.tables")
                      for target in targets if target.startswith(("companion.night", "companion.players")))
    assert not reaching, reaching


def table_writes_in(path: Path) -> dict[str, str]:
    """Each top-level function of ``path`` that opens ``write(conn)``: its return annotation."""
    found = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef) and any(
                isinstance(inner, ast.With) and any(isinstance(item.context_expr, ast.Call)
                                                    and getattr(item.context_expr.func, "id", "") == "write"
                                                    for item in inner.items)
                for inner in ast.walk(node)):
            found[node.name] = ast.unparse(node.returns) if node.returns else ""
    return found


def test_table_writes_return_what_happened_and_have_no_raising_twin():
    """One vocabulary for writes: each table write returns a ``Written`` whose outcome the view
    answers; no production function wraps one to raise its outcome instead (the five twins,
    add_deal, edit_deal, undo_last, set_finished and rematch, live in tests/table_writes.py)."""
    writes = table_writes_in(PACKAGE / "tables" / "service.py")
    assert {"create", "seat", "enter_deal", "correct_deal", "undo_deal", "finish_match", "start_rematch"} <= set(writes)
    assert {name for name, returns in writes.items() if returns != "Written"} == set()
    twins = [f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {getattr(node, 'name', None) or node.attr}"
             for path in PACKAGE.rglob("*.py") for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if (isinstance(node, ast.Attribute) and node.attr == "table_or_raise")
             or (isinstance(node, ast.FunctionDef) and node.name in ("add_deal", "edit_deal", "undo_last", "set_finished",
                                                                       "rematch", "table_or_raise")
                 and path.name == "service.py")]  # a view or a store statement may share a name
    assert not twins, twins


# ---- one vocabulary for every feature's writes (issue 41) ---------------------------------------

FEATURES = ("tables", "night", "players")
# The exceptions a decision was once raised as: a refusal, nothing found, another change first, a
# write id sent before, a table already seated or started (a kind of one is caught as that one).
DECISIONS = {"Refused": None, "NeedsChoices": "Refused", "EndsEarlier": "Refused", "NotFound": None,
             "NoSuchTable": "NotFound", "Conflict": None, "Repeated": None, "RoundStarted": None, "AlreadySeated": None}
RESULTS = {"Written", "Done"}  # companion/outcomes.py's values (a table write's carries its table)
# Writes that decide nothing: the season's cache of each table's result, stored by the reads that need it.
DECIDE_NOTHING = {"companion.players.service:refresh"}


def _names_in(node: ast.AST | None) -> set[str]:
    """The exception names an ``except`` clause catches ("*": everything)."""
    if node is None:
        return {"*"}
    if isinstance(node, ast.Tuple):
        return set().union(*(_names_in(element) for element in node.elts))
    if isinstance(node, ast.Attribute):
        return {node.attr}
    return {node.id} if isinstance(node, ast.Name) else set()


def _caught(name: str, caught: set[str]) -> bool:
    return bool({"*", "Exception", "BaseException", name, DECISIONS.get(name)} & caught)


class Module:
    """One module's functions: the decisions each raises and the calls it makes, with what the
    ``try`` around each catches."""

    def __init__(self, name: str, tree: ast.Module):
        self.name = name
        self.functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
        package = name.rsplit(".", 1)[0]
        self.modules = {}  # local name -> module name
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
                for alias in node.names:
                    self.modules[alias.asname or alias.name] = f"{base}.{alias.name}"

    def steps(self, function: ast.FunctionDef) -> list[tuple[str, object, set[str]]]:
        """("raise", name, caught) and ("call", (module, function), caught) in ``function``."""
        found: list[tuple[str, object, set[str]]] = []

        def walk(node: ast.AST, caught: set[str]) -> None:
            if isinstance(node, ast.Try):
                inside = caught | set().union(*(_names_in(h.type) for h in node.handlers))
                for child in node.body:
                    walk(child, inside)
                for child in [*node.handlers, *node.orelse, *node.finalbody]:
                    walk(child, caught)
                return
            if isinstance(node, ast.Raise) and node.exc is not None:
                raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                name = raised.attr if isinstance(raised, ast.Attribute) else getattr(raised, "id", "")
                if name in DECISIONS:
                    found.append(("raise", name, caught))
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Name):
                    found.append(("call", (self.name, node.func.id), caught))
                elif isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
                    found.append(("call", (self.modules.get(node.func.value.id, ""), node.func.attr), caught))
            for child in ast.iter_child_nodes(node):
                walk(child, caught)

        for statement in function.body:
            walk(statement, set())
        return found


def load_modules(root: Path = PACKAGE) -> dict[str, Module]:
    return {".".join(path.relative_to(root.parent).with_suffix("").parts):
            Module(".".join(path.relative_to(root.parent).with_suffix("").parts),
                   ast.parse(path.read_text(encoding="utf-8")))
            for feature in FEATURES for path in sorted((root / feature).glob("*.py"))}


def escaping(modules: dict[str, Module], module: str, function: str, seen: frozenset = frozenset()) -> set[str]:
    """The decisions ``module.function`` lets its caller see raised (through the functions of
    the feature packages it calls, however deep), each as "Name (where)"."""
    found = modules.get(module)
    node = found.functions.get(function) if found else None
    if node is None or (module, function) in seen:
        return set()
    out = set()
    for kind, what, caught in found.steps(node):
        if kind == "raise" and not _caught(what, caught):
            out.add(f"{what} ({module}:{function})")
        elif kind == "call":
            out |= {raised for raised in escaping(modules, *what, seen | {(module, function)})
                    if not _caught(raised.split(" ", 1)[0], caught)}
    return out


def writes_of(modules: dict[str, Module]) -> dict[str, ast.FunctionDef]:
    """'module:function' of every top-level function that opens ``write(conn)``."""
    return {f"{name}:{fname}": node for name, module in modules.items() for fname, node in module.functions.items()
            if any(
                isinstance(inner, ast.With) and any(isinstance(item.context_expr, ast.Call)
                                                    and getattr(item.context_expr.func, "id", "") == "write"
                                                    for item in inner.items) for inner in ast.walk(node))}


def test_no_write_of_a_feature_raises_its_decision():
    """Every write of the tables, the night and the players answers what it decided as a value
    (companion/outcomes.py): none lets a refusal, a "not found", a conflict or a started table
    reach its caller raised, itself or through a helper it calls."""
    modules = load_modules()
    writes = writes_of(modules)
    assert {"companion.tables.service:seat", "companion.night.service:swap", "companion.night.claims:_join_as",
            "companion.players.service:merge", "companion.night.round_time:call_time"} <= set(writes)
    raising = {where: sorted(found) for where in writes
               if (found := escaping(modules, *where.split(":")))}
    assert not raising, raising


def test_every_write_of_a_feature_returns_an_outcome():
    modules = load_modules()
    wrong = {where: ast.unparse(node.returns) if node.returns else None for where, node in writes_of(modules).items()
             if where not in DECIDE_NOTHING and (ast.unparse(node.returns) if node.returns else None) not in RESULTS}
    assert not wrong, wrong


def test_no_page_catches_a_decision():
    """The pages answer an outcome (companion/web/outcomes.py), never catch a raised decision:
    only the services, where the decisions are made, may catch one of their own helpers'."""
    modules = load_modules()
    services = {where.split(":")[0] for where in writes_of(modules)}
    catching = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if name not in services:
            catching += decisions_caught(path)
    assert not catching, catching


def decisions_caught(path: Path) -> list[str]:
    """Where ``path`` catches a decision of companion's (by its name, or as ``service.Refused``;
    werkzeug's NotFound is another thing)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    ours = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            and (node.level or (node.module or "").startswith("companion")) for alias in node.names}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            parts = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            caught = sorted(part.attr if isinstance(part, ast.Attribute) else part.id for part in parts
                            if (isinstance(part, ast.Name) and part.id in DECISIONS and part.id in ours)
                            or (isinstance(part, ast.Attribute) and part.attr in DECISIONS
                                and getattr(part.value, "id", "") in ours))
            if caught:
                root = next(parent for parent in path.parents if parent.name == "companion").parent
                found.append(f"{path.relative_to(root)}:{node.lineno} {caught}")
    return found


def test_the_decision_checks_find_a_raise_through_a_helper_and_a_catch_in_a_page(tmp_path):
    package = tmp_path / "companion" / "night"
    package.mkdir(parents=True)
    (package / "service.py").write_text(
        "from ..tables.service import Refused\n"
        "def _name(raw):\n    if not raw:\n        raise Refused([])\n    return raw\n"
        "def join(conn, raw) -> Done:\n    name = _name(raw)\n    with write(conn):\n        pass\n"
        "def rename(conn, raw) -> Done:\n    try:\n        name = _name(raw)\n    except Refused:\n        return None\n"
        "    with write(conn):\n        pass\n")
    (package / "views.py").write_text(
        "from werkzeug.exceptions import NotFound\nfrom . import service\n"
        "def add():\n    try:\n        join(None, '')\n    except (service.Refused, KeyError, NotFound):\n        pass\n")
    modules = {name: module for name, module in load_modules(tmp_path / "companion").items()}
    assert escaping(modules, "companion.night.service", "join") == {"Refused (companion.night.service:_name)"}
    assert escaping(modules, "companion.night.service", "rename") == set()
    assert decisions_caught(package / "views.py") == ["companion/night/views.py:6 ['Refused']"]


def test_the_feature_packages_import_each_other_one_way():
    """No cycle between companion's packages (issue 41: night and players imported each other,
    web and serving too): the graph of tests/test_import_cycles.py, one node per package."""
    packages: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        if module.count(".") < 1:
            continue
        here = module.split(".")[1]
        packages.setdefault(here, set()).update(t.split(".")[1] for t in targets if t.count(".") >= 1)
    both_ways = sorted(f"{a} ⇄ {b}" for a, targets in packages.items() for b in targets
                       if a < b and a in packages.get(b, ()))
    assert not both_ways, both_ways


# --- how much a device may do: one place, one map (issue 42) ---------------------------------

# Token-bucket arithmetic, or a map of devices kept bounded by hand.
BUCKET = re.compile(r"\btokens\b\s*[+-]|\bmin\(\s*(?:self\.)?burst\b|len\(self\.\w+\) > (?:\d[\d_]*|self\.(?:max_)?devices)")


def bucket_code(source: str) -> bool:
    """Does ``source`` keep a rate of its own (token-bucket arithmetic, a map of devices
    trimmed oldest first)?"""
    return BUCKET.search(source) is not None


def test_the_bucket_finder_sees_a_bucket_of_its_own():
    assert bucket_code("tokens = min(self.burst, tokens + (now - then) * self.rate)")
    assert bucket_code("            if len(self.buckets) > 8192:")
    assert bucket_code("if address not in self.misses and len(self.misses) > 10_000:")
    assert not bucket_code("rate = self.device_limits.rates['connecting']")


# Maps by device that say nothing of how much a device may do.
NOT_LIMITS = {
    "serving/limits.py": "the one map itself",
    "lru.py": "bytes by key, no device in it",
    "serving/fair.py": "the turns' order (who used the least lately goes first); its limit, TURNS, is limits.py's",
    "serving/server.py": "the log's once a minute per kind and device (FloodLog): what is written, not what is done",
}


def test_every_per_device_rate_is_counted_in_one_map():
    """Every rule that counts a device's rate (cheap asks, connections after a refusal, new
    tables) is a rule of companion/serving/limits.py's one map, not a bucket of its own."""
    found = [str(path.relative_to(PACKAGE)) for path in sorted(PACKAGE.rglob("*.py"))
             if str(path.relative_to(PACKAGE)) not in NOT_LIMITS and bucket_code(path.read_text())]
    assert found == [], found
