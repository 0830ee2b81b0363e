"""Mutation testing of the theory checks with cosmic-ray: do the verdicts of ``lgekit theory ... --quick`` notice?

cosmic-ray (``pip install -e ".[mutation]"``) lists every mutant of the modules below (an operator replaced,
a number changed, a condition negated, a loop skipped, ...) and applies one at a time to the files on disk,
restoring them afterwards.  Each mutant is judged in two stages:

1. the verdicts: ``verdicts.py`` runs the quick checks that use the module, in-process, cheapest first; a
   FAIL or an error kills the mutant (``"verdicts"``);
2. a survivor meets the module's tests (pytest, the fast suite's files for that module); a failure kills it
   (``"tests"``).

What survives both is listed (``report``), with the mutated line, and is either equivalent (it cannot change
a result: accepted in ``survivors.json`` with the reason) or a gap to close.  Commands::

    python3 .ci/mutation/mutants.py list                                   # mutants per module
    python3 .ci/mutation/mutants.py run --per-module 25 --seed 41 --results R.jsonl   # seeded sample, resumable
    python3 .ci/mutation/mutants.py recheck --results R.jsonl --out R2.jsonl  # the survivors, on today's sources
    python3 .ci/mutation/mutants.py reach --out reach.json                 # the lines the quick checks execute
    python3 .ci/mutation/mutants.py report --results R.jsonl [--reach reach.json] [--recheck R2.jsonl]
    python3 .ci/mutation/mutants.py ci --sample 8 --seed 41                # CI: fail on a survivor not accepted

Mutants in the checks' figures and in the text of their notes, titles, evidence lines and error messages
are left out (:func:`presentation`): no verdict reads them, by design.  ``run``, ``recheck`` and ``ci``
mutate the files of the checkout they run in (cosmic-ray restores each file after its mutant, also on an
error): run them on a clean checkout or a copy.  They need ``LGEKIT_DATA`` for the real
email-Eu-core graph of the directed check (without it a seeded stand-in is used, as the check itself does).
"""
import argparse
import ast
import difflib
import functools
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cosmic_ray.commands import init
from cosmic_ray.mutating import mutate_and_test, mutate_code
from cosmic_ray.plugins import get_operator
from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
#: the checks a module's mutants are judged by, cheapest first (seconds on one core: capacity 2, shattering 3,
#: directed 3, bound 5, rademacher 10)
CHECKS = {
    "lgekit/theory/bounds.py": ("directed", "bound"),
    "lgekit/theory/sample.py": ("directed", "bound"),
    "lgekit/theory/planted.py": ("bound",),
    "lgekit/theory/rademacher.py": ("directed", "bound", "rademacher"),
    "lgekit/theory/predictions.py": ("directed", "bound", "rademacher"),
    "lgekit/theory/capacity.py": ("capacity", "bound"),
    "lgekit/theory/shattering.py": ("capacity", "shattering"),
    "lgekit/theory/reassembly.py": ("capacity", "shattering", "directed", "bound", "rademacher"),
    "lgekit/experiments/theorem1.py": ("directed", "bound"),
    "lgekit/experiments/checks.py": ("--cli", "capacity"),
    "lgekit/experiments/check_bound.py": ("bound",),
    "lgekit/experiments/check_directed.py": ("directed",),
    "lgekit/experiments/check_rademacher.py": ("rademacher",),
    "lgekit/experiments/check_shattering.py": ("shattering",),
    "lgekit/experiments/check_capacity.py": ("capacity",),
}
_THEORY_TESTS = ("tests/test_theory_checks.py", "tests/test_theory_wrong_versions.py", "tests/test_reassembly.py",
                 "tests/test_theory_settings.py", "tests/test_theory_edges.py", "tests/test_theory_validation.py")
#: the fast tests of each module (stage 2)
TESTS = {
    "lgekit/theory/bounds.py": ("tests/test_bounds.py", "tests/test_directed_theory.py", "tests/test_theory_sample.py"),
    "lgekit/theory/sample.py": ("tests/test_theory_sample.py", "tests/test_directed_theory.py", "tests/test_bounds.py"),
    "lgekit/theory/planted.py": ("tests/test_bounds.py",),
    "lgekit/theory/rademacher.py": ("tests/test_rademacher.py",),
    "lgekit/theory/predictions.py": ("tests/test_rademacher.py",),
    "lgekit/theory/capacity.py": ("tests/test_capacity.py",),
    "lgekit/theory/shattering.py": ("tests/test_shattering.py",),
    "lgekit/theory/reassembly.py": (),
    "lgekit/experiments/theorem1.py": (),
    "lgekit/experiments/checks.py": ("tests/test_capacity.py",),
    "lgekit/experiments/check_bound.py": (),
    "lgekit/experiments/check_directed.py": ("tests/test_directed_theory.py",),
    "lgekit/experiments/check_rademacher.py": (),
    "lgekit/experiments/check_shattering.py": (),
    "lgekit/experiments/check_capacity.py": (),
}
TIMEOUT = 300.0
ACCEPTED = HERE / "survivors.json"


#: mutants in these functions draw the checks' figures, which no verdict reads: out of scope (counted apart)
FIGURES = ("plot",)


@functools.lru_cache(maxsize=None)
def _fstring_spans(path):
    """(first line, first column, last line, end column) of every f-string in ``path``, columns in characters."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()

    def column(line, offset):        # ast counts UTF-8 bytes, cosmic-ray characters
        return len(lines[line - 1].encode("utf-8")[:offset].decode("utf-8", errors="ignore"))

    return tuple((n.lineno, column(n.lineno, n.col_offset), n.end_lineno, column(n.end_lineno, n.end_col_offset))
                 for n in ast.walk(ast.parse("\n".join(lines))) if isinstance(n, ast.JoinedStr))


def in_text(spec):
    """The mutant sits inside an f-string: it changes the text of a note, a title or a verdict's evidence only."""
    at = tuple(spec.start_pos)
    return any((l0, c0) <= at < (l1, c1) for l0, c0, l1, c1 in _fstring_spans(str(spec.module_path)))


def presentation(spec):
    """Out of scope for the verdicts: a figure's drawing, or the text of a note, a title or an evidence line."""
    return spec.definition_name in FIGURES or in_text(spec)


def mutants(modules, everything=False):
    """Every mutant cosmic-ray makes of ``modules``: a list of its MutationSpec, in a stable order.

    Without ``everything``, the mutants of the presentation (:func:`presentation`) are left out.
    """
    with tempfile.TemporaryDirectory() as tmp:
        with use_db(str(Path(tmp) / "session.sqlite"), WorkDB.Mode.create) as db:
            init([Path(m) for m in modules], db, {})
            specs = [spec for item in db.work_items for spec in item.mutations]
    specs = [s for s in specs if everything or not presentation(s)]
    return sorted(specs, key=lambda s: (str(s.module_path), s.operator_name, s.occurrence))


def key(spec):
    return f"{spec.module_path}:{spec.operator_name}:{spec.occurrence}"


def sample(specs, per_module, seed):
    """``per_module`` mutants of each module, drawn by ``random.Random(seed)`` (all of a smaller module)."""
    rng = random.Random(seed)
    chosen = []
    for module in sorted({str(s.module_path) for s in specs}):
        own = [s for s in specs if str(s.module_path) == module]
        chosen += own if len(own) <= per_module else rng.sample(own, per_module)
    return chosen


def _changed_lines(diff):
    old = [line[1:].strip() for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
    new = [line[1:].strip() for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    return " / ".join(old), " / ".join(new)


def judge(spec, with_tests=True, with_verdicts=True):
    """Run one mutant through the verdicts, then (if it survived them) its module's tests: a result dict.

    ``with_verdicts=False`` skips the first stage (for a mutant known to survive it) and runs the tests only.
    """
    module = str(spec.module_path)
    python = sys.executable
    started = time.perf_counter()
    checks = " ".join(CHECKS[module]) if with_verdicts else ""
    command = f"{python} {HERE / 'verdicts.py'} {checks}" if with_verdicts else f"{python} -c pass"
    result = mutate_and_test([spec], command, TIMEOUT)
    out = {"key": key(spec), "module": module, "operator": spec.operator_name, "occurrence": spec.occurrence,
           "line": spec.start_pos[0], "function": spec.definition_name}
    if result.test_outcome is None:                     # no mutation possible at this occurrence
        return dict(out, outcome="no mutant")
    out["before"], out["after"] = _changed_lines(result.diff or "")
    verdict = (result.output or "").strip().splitlines()
    out["verdicts"] = verdict[-1][:300] if verdict else ""
    if result.test_outcome == TestOutcome.KILLED:
        out["outcome"] = "verdicts"
        if result.output == "timeout":
            out["verdicts"] = "killed by a timeout"
    elif result.test_outcome == TestOutcome.INCOMPETENT:
        out["outcome"] = "incompetent"
    elif with_tests:
        tests = TESTS[module] + _THEORY_TESTS
        command = f"{python} -m pytest -x -q -p no:cacheprovider " + " ".join(t for t in tests if (ROOT / t).exists())
        second = mutate_and_test([spec], command, TIMEOUT)
        out["outcome"] = "tests" if second.test_outcome == TestOutcome.KILLED else "survived"
        failing = [line for line in (second.output or "").splitlines() if line.startswith("FAILED")]
        out["tests"] = failing[0][:200] if failing else ""
    else:
        out["outcome"] = "survived"
    out["seconds"] = round(time.perf_counter() - started, 1)
    return out


def _modules(args):
    return args.modules or sorted(CHECKS)


def cmd_list(args):
    specs = mutants(_modules(args), everything=True)
    for module in _modules(args):
        own = [s for s in specs if str(s.module_path) == module]
        out = sum(presentation(s) for s in own)
        print(f"{len(own):6d}  {module}" + (f"  ({out} of them in a figure or a text)" if out else ""))
    print(f"{len(specs):6d}  in all, {sum(presentation(s) for s in specs)} of them in the figures and texts")
    return 0


def cmd_run(args):
    done = set()
    results = Path(args.results)
    if results.exists():
        done = {json.loads(line)["key"] for line in results.read_text().splitlines() if line.strip()}
    chosen = sample(mutants(_modules(args)), args.per_module, args.seed)
    todo = [s for s in chosen if key(s) not in done]
    print(f"{len(chosen)} mutants sampled, {len(todo)} to run", flush=True)
    for i, spec in enumerate(todo, 1):
        row = judge(spec, with_tests=not args.no_tests)
        with results.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(f"[{i}/{len(todo)}] {row['outcome']:>9}  {row['key']}  {row.get('before', '')[:60]!r} -> "
              f"{row.get('after', '')[:60]!r}  {row.get('seconds', '')} s", flush=True)
    return 0


def cmd_recheck(args):
    """Judge again, on the current sources and tests, the mutants that survived a ``run`` (matched by their lines).

    Each survivor of ``--results`` is looked up among the current mutants by module, operator and the line
    before and after (the occurrence numbers move when a module changes); it is judged by both stages again
    and written to ``--out`` with ``"recheck"`` set.  A survivor whose line is gone is written unchanged.
    """
    rows = [json.loads(line) for line in Path(args.results).read_text().splitlines() if line.strip()]
    survivors = [r for r in rows if r["outcome"] == "survived"]
    current = {}
    for spec in mutants(sorted({r["module"] for r in survivors}), everything=True):
        current.setdefault((str(spec.module_path), spec.operator_name), []).append(spec)
    out = Path(args.out)
    done = {json.loads(line)["key"] for line in out.read_text().splitlines()} if out.exists() else set()
    for i, row in enumerate(survivors, 1):
        if row["key"] in done:
            continue
        match = None
        for spec in current.get((row["module"], row["operator"]), []):
            if abs(spec.start_pos[0] - row["line"]) > 80:
                continue
            probe = judge_lines(spec)
            if probe == (row["before"], row["after"]):
                match = spec
                break
        new = dict(row, recheck=True)
        if match is not None and presentation(match):
            continue                                  # out of scope: a figure or a text
        if match is None:
            new["outcome"], new["verdicts"] = "gone", "the mutated line is no longer in the module"
        else:
            again = judge(match, with_verdicts=not args.tests_only)
            new.update({k: again[k] for k in ("outcome", "verdicts", "tests", "seconds") if k in again})
        with out.open("a") as f:
            f.write(json.dumps(new) + "\n")
        print(f"[{i}/{len(survivors)}] {new['outcome']:>9}  {row['key']}  {row['before'][:70]!r}", flush=True)
    return 0


def judge_lines(spec):
    """(line before, line after) of a mutant, without running anything."""
    source = Path(spec.module_path).read_text(encoding="utf-8")
    mutated = mutate_code(source, get_operator(spec.operator_name)(), spec.occurrence)
    if mutated is None:
        return None
    diff = "\n".join(difflib.unified_diff(source.splitlines(), mutated.splitlines(), lineterm=""))
    return _changed_lines(diff)


def _accepted():
    if not ACCEPTED.exists():
        return []
    return json.loads(ACCEPTED.read_text())["survivors"]


def _is_accepted(row, accepted):
    return any(a["module"] == row["module"] and a["operator"] == row["operator"] and a["before"] == row["before"]
               and a["after"] == row["after"] for a in accepted)


def cmd_reach(args):
    """The lines of the modules that ``lgekit theory ... --quick`` executes (coverage.py), as JSON.

    A mutant on a line the quick checks never run (an argument's check, the full runs' settings) cannot be
    killed by their verdicts whatever they judge: ``report --reach`` scores the verdicts on the others.
    """
    modules = ",".join(sorted(CHECKS))
    with tempfile.TemporaryDirectory() as tmp:
        data = str(Path(tmp) / ".coverage")
        env = dict(os.environ, COVERAGE_FILE=data)
        subprocess.run([sys.executable, "-m", "coverage", "run", f"--include={modules}", str(HERE / "verdicts.py"),
                        "--cli", "capacity", "shattering", "directed", "bound", "rademacher"], check=True, env=env)
        subprocess.run([sys.executable, "-m", "coverage", "json", "-q", "-o", args.out], check=True, env=env)
    return 0


@functools.lru_cache(maxsize=None)
def _statement_of(path):
    """line -> the first line of the innermost statement holding it (coverage.py records statements by that line)."""
    owner = {}
    for node in ast.walk(ast.parse(Path(path).read_text(encoding="utf-8"))):
        if isinstance(node, ast.stmt):
            span = node.end_lineno - node.lineno
            for line in range(node.lineno, node.end_lineno + 1):
                if line not in owner or span < owner[line][1]:
                    owner[line] = (node.lineno, span)
    return {line: first for line, (first, _) in owner.items()}


def _reached(path):
    """module -> the set of lines the quick checks executed (:func:`cmd_reach`), or None without a file."""
    if not path:
        return None
    files = json.loads(Path(path).read_text())["files"]
    return {module: set(data["executed_lines"]) for module, data in files.items()}


def _on_reached_line(row, reached):
    return row["line"] in reached.get(row["module"], set()) or \
        _statement_of(row["module"]).get(row["line"]) in reached.get(row["module"], set())


def cmd_report(args):
    rows = [json.loads(line) for line in Path(args.results).read_text().splitlines() if line.strip()]
    if args.recheck:
        again = {r["key"]: r for r in (json.loads(line) for line in Path(args.recheck).read_text().splitlines())}
        rows = [again.get(r["key"], r) for r in rows]
    rows = [r for r in rows if r["outcome"] != "no mutant"]
    # a run drawn before the texts were set apart: set them apart now (the keys are those of these sources)
    by_key = {key(s): s for s in mutants(sorted({r["module"] for r in rows}), everything=True)}
    text = [r for r in rows if r["key"] in by_key and presentation(by_key[r["key"]])]
    rows = [r for r in rows if r not in text]
    if text:
        print(f"{len(text)} sampled mutants sit in a figure or a text (a note, a title, an evidence line), out of "
              f"scope: {sum(r['outcome'] == 'survived' for r in text)} of them survived\n")
    accepted = _accepted()
    reached = _reached(args.reach)
    for r in rows:
        r["reached"] = reached is None or _on_reached_line(r, reached)
    print("| module | mutants | on lines `--quick` runs | killed by the verdicts | by the tests | survived "
          "(equivalent) | verdict score, all | verdict score, lines `--quick` runs |")
    print("|---|---|---|---|---|---|---|---|")

    def line(name, own):
        v = sum(r["outcome"] in ("verdicts", "incompetent") for r in own)
        t = sum(r["outcome"] == "tests" for r in own)
        s = [r for r in own if r["outcome"] == "survived"]
        e = sum(_is_accepted(r, accepted) for r in s)
        run = [r for r in own if r["reached"] and not (r["outcome"] == "survived" and _is_accepted(r, accepted))]
        v_run = sum(r["outcome"] in ("verdicts", "incompetent") for r in run)
        live = len(own) - e
        score = f"{v / live:.0%}" if live else "-"
        score_run = f"{v_run / len(run):.0%} of {len(run)}" if run else "-"
        print(f"| {name} | {len(own)} | {sum(r['reached'] for r in own)} | {v} | {t} | {len(s)} ({e}) | {score} | "
              f"{score_run} |")

    for module in sorted({r["module"] for r in rows}):
        line(f"`{module}`", [r for r in rows if r["module"] == module])
    line("all", rows)
    print()
    for r in rows:
        if r["outcome"] == "survived":
            flag = "accepted" if _is_accepted(r, accepted) else "NEW"
            where = "" if r["reached"] else ", a line --quick never runs"
            print(f"- {flag} `{r['key']}` ({r['function']}, line {r['line']}{where}): `{r['before']}` -> "
                  f"`{r['after']}`")
    return 0


def cmd_ci(args):
    """A seeded sample through both stages; exit 1 when one survives that ``survivors.json`` does not accept."""
    specs = mutants(_modules(args))
    rng = random.Random(args.seed)
    chosen = rng.sample(specs, min(args.sample, len(specs)))
    accepted = _accepted()
    started, new = time.perf_counter(), []
    for i, spec in enumerate(chosen, 1):
        if time.perf_counter() - started > args.budget:
            print(f"time budget of {args.budget:.0f} s spent after {i - 1} mutants")
            break
        row = judge(spec)
        print(f"[{i}/{len(chosen)}] {row['outcome']:>9}  {row['key']}  {row.get('before', '')!r} -> "
              f"{row.get('after', '')!r}  ({row.get('verdicts', '')[:120]})", flush=True)
        if row["outcome"] == "survived" and not _is_accepted(row, accepted):
            new.append(row)
    for row in new:
        print(f"NEW SURVIVOR {row['key']} ({row['function']}, line {row['line']}): {row['before']!r} -> "
              f"{row['after']!r}: no verdict of `lgekit theory ... --quick` and no test noticed it; kill it or add "
              f"it to {ACCEPTED.relative_to(ROOT)} with the reason it is equivalent")
    return 1 if new else 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("list", help="mutants per module")
    p.add_argument("--modules", nargs="*")
    p = sub.add_parser("run", help="a seeded sample of every module's mutants, appended to --results")
    p.add_argument("--modules", nargs="*")
    p.add_argument("--per-module", type=int, default=25)
    p.add_argument("--seed", type=int, default=41)
    p.add_argument("--results", required=True)
    p.add_argument("--no-tests", action="store_true", help="the verdicts only")
    p = sub.add_parser("recheck", help="judge a run's survivors again on the current sources and tests")
    p.add_argument("--results", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--tests-only", action="store_true", help="skip the verdicts (the sources they run are unchanged)")
    p = sub.add_parser("reach", help="the lines the quick checks execute (coverage.py), as JSON")
    p.add_argument("--out", required=True)
    p = sub.add_parser("report", help="score per module and the survivors, from --results")
    p.add_argument("--results", required=True)
    p.add_argument("--reach", help="the JSON of `reach`: score the verdicts on the lines --quick runs too")
    p.add_argument("--recheck", help="the JSON lines of `recheck`: the survivors judged again")
    p = sub.add_parser("ci", help="a seeded sample; exit 1 on a survivor that survivors.json does not accept")
    p.add_argument("--modules", nargs="*")
    p.add_argument("--sample", type=int, default=8)
    p.add_argument("--seed", type=int, default=41)
    p.add_argument("--budget", type=float, default=420.0, help="stop starting mutants after this many seconds")
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    return {"list": cmd_list, "run": cmd_run, "recheck": cmd_recheck, "reach": cmd_reach, "report": cmd_report,
            "ci": cmd_ci}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
