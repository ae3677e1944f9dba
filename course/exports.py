"""The grader's tables and feedback pages, rebuilt from ``OUT/results/*.json`` (one record per learner).

- ``grades.csv``: learner, id, one column per exercise (points earned, partial credit), ``auto``, a
  ``manual`` column the instructor fills in (kept when the tables are rebuilt), ``total`` and ``max``.
- ``canvas.csv``: Canvas' gradebook import layout (Student, ID, SIS User ID, SIS Login ID, Section,
  then the assignment's column, with a "Points Possible" row); the id goes to ``ID``.
- ``moodle.csv``: Moodle's grade import layout (ID number, Email address, Username, then the grade
  item's column); the id goes to ``ID number``, the field to map on at import.
- ``feedback/<learner>.md`` and ``.html``: the score of every check, the first failing input and its
  message, a hint (a nudge when most points were earned, the fuller hint otherwise), and notes on
  cells that raised, were stopped or wedged.

``python -m course merge OUT [SHARD_OUT ...]`` copies the shards' records into OUT and rebuilds these.
"""
import csv
import html
import json
import re
import shutil
from dataclasses import asdict
from pathlib import Path

from . import wire
from .catalog import BY_NAME, LESSONS, exercises_of
from .judge import describe_case


def plain(value):
    return wire.to_plain(value)


def safe_name(learner):
    """A file name for a learner: letters, digits, '.', '-' and '_' only."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", learner)[:120] or "_"


def check_record(score):
    """A CheckScore as JSON-ready data: per case only the outcome; the first failing case in full."""
    data = asdict(score)
    cases = data.pop("cases")
    data["passed"] = sum(c["outcome"] == "passed" for c in cases)
    data["total"] = len(cases)
    bad = next((c for c in cases if c["outcome"] != "passed"), None)
    data["first_problem"] = None if bad is None else {
        "outcome": bad["outcome"], "message": bad["message"], "input": describe_case(_readable(bad["case"]))}
    return data


def _readable(value):
    """Arrays shown as lists in feedback (short ones) or by their shape, at any depth."""
    import numpy as np
    if isinstance(value, np.ndarray):
        return value.tolist() if value.size <= 12 else _Shape(value.shape)
    if isinstance(value, dict):
        return {k: _readable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_readable(v) for v in value]
    return value


class _Shape:
    def __init__(self, shape):
        self.shape = shape

    def __repr__(self):
        return f"<array of shape {self.shape}>"


def _number(x):
    return f"{x:.2f}".rstrip("0").rstrip(".") if isinstance(x, float) else str(x)


def load(out):
    """Every learner's record in ``out/results``, in name order."""
    records = []
    for path in sorted((Path(out) / "results").glob("*.json")):
        records.append(json.loads(path.read_text()))
    return sorted(records, key=lambda r: r["learner"])


def _columns(records):
    lessons = {nb["lesson"] for r in records for nb in r["notebooks"] if nb["lesson"]}
    return [e for lesson in LESSONS if lesson in lessons for e in exercises_of(lesson)]


def _scores(record):
    """{exercise: (earned, possible)} for one learner (a notebook graded twice keeps its best)."""
    scores = {}
    for nb in record["notebooks"]:
        for name, ex in nb["exercises"].items():
            if name not in scores or ex["earned"] > scores[name][0]:
                scores[name] = (ex["earned"], ex["points"])
    return scores


def _possible(records, columns):
    """Points possible per exercise: from any learner's record (the checks declared when grading)."""
    possible = {}
    for r in records:
        for name, (_, points) in _scores(r).items():
            possible[name] = max(points, possible.get(name, 0))
    return {e.name: possible.get(e.name, 0) for e in columns}


def _manual(out):
    """The manual column of an existing grades.csv: {learner: text}."""
    path = Path(out) / "grades.csv"
    if not path.exists():
        return {}
    with open(path, newline="") as f:
        return {row["learner"]: row.get("manual", "") for row in csv.DictReader(f)}


def _to_float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return 0.0


def write_tables(out, assignment="minieager course"):
    out = Path(out)
    records = load(out)
    columns = _columns(records)
    possible = _possible(records, columns)
    maximum = sum(possible.values())
    manual = _manual(out)
    rows = []
    for r in records:
        scores = _scores(r)
        earned = [scores.get(e.name, (0.0, 0))[0] for e in columns]
        auto = round(sum(earned), 4)
        hand = manual.get(r["learner"], "")
        rows.append((r, earned, auto, hand, round(auto + _to_float(hand), 4)))
    with open(out / "grades.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["learner", "id", *(e.name for e in columns), "auto", "manual", "total", "max"])
        for r, earned, auto, hand, total in rows:
            writer.writerow([r["learner"], r["id"], *map(_number, earned), _number(auto), hand, _number(total),
                             _number(maximum)])
    with open(out / "canvas.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", assignment])
        writer.writerow(["Points Possible", "", "", "", "", _number(maximum)])
        for r, _, _, _, total in rows:
            writer.writerow([r["learner"], r["id"], "", "", "", _number(total)])
    with open(out / "moodle.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["ID number", "Email address", "Username", assignment])
        for r, _, _, _, total in rows:
            writer.writerow([r["id"], "", "", _number(total)])
    feedback = out / "feedback"
    feedback.mkdir(exist_ok=True)
    for r, _, auto, hand, total in rows:
        markdown = feedback_markdown(r, columns, possible, auto, hand, total)
        (feedback / f"{safe_name(r['learner'])}.md").write_text(markdown)
        (feedback / f"{safe_name(r['learner'])}.html").write_text(feedback_html(r, columns, possible, auto, hand, total))
    return out


def hint_for(exercise, fraction):
    """A nudge (the hint's first clause, or the catalog's first tier) when most points were earned, else
    the fuller hint (never beyond the second tier: the last tier is for the instructor to give)."""
    ex = BY_NAME[exercise]
    tiers = list(getattr(ex, "hints", None) or [])
    if not tiers:
        nudge = re.split(r"(?<=[.;])\s", ex.hint, maxsplit=1)[0]
        tiers = [nudge, ex.hint] if nudge != ex.hint else [ex.hint]
    return ("a nudge", tiers[0]) if fraction >= 0.5 or len(tiers) == 1 else ("a hint", tiers[1])


def _exercise_lines(name, ex, possible):
    lines = []
    for c in ex["checks"]:
        tag = "hidden" if c["hidden"] else "visible"
        lines.append(("check", f"{c['name']} ({tag}): {_number(c['earned'])} of {_number(c['points'])} points, "
                               f"{c['passed']} of {c['total']} cases passed. {c['doc']}".strip()))
        bad = c["first_problem"]
        if bad and not ex["message"]:      # when the probes never answered, the exercise's message says why once
            lines.append(("input", f"first failing input ({bad['outcome']}): {bad['input']}"))
            lines.append(("message", bad["message"]))
    if ex["message"]:
        lines.append(("message", ex["message"]))
    if ex["earned"] < ex["points"]:
        tier, text = hint_for(name, ex["earned"] / ex["points"] if ex["points"] else 0)
        lines.append(("hint", f"{tier.capitalize()}: {text}"))
    return lines


def _sections(record, columns, possible):
    found = {}
    for nb in record["notebooks"]:
        for name, ex in nb["exercises"].items():
            if name not in found or ex["earned"] > found[name]["earned"]:
                found[name] = ex
    notes = [*(c for nb in record["notebooks"] for c in nb["cells"]),
             *(nb["problem"] for nb in record["notebooks"] if nb["problem"])]
    return found, notes


def feedback_markdown(record, columns, possible, auto, hand, total):
    found, notes = _sections(record, columns, possible)
    maximum = sum(possible.values())
    lines = [f"# Feedback for {record['learner']}", "",
             f"**{_number(total)} of {_number(maximum)} points** (checks: {_number(auto)}"
             + (f", marked by hand: {hand}" if str(hand).strip() else "") + ")", ""]
    for e in columns:
        ex = found.get(e.name)
        if ex is None:
            lines += [f"## {e.name}: not submitted", ""]
            continue
        lines += [f"## {e.name}: {_number(ex['earned'])} of {_number(ex['points'])} points", ""]
        for kind, text in _exercise_lines(e.name, ex, possible):
            if kind == "message":
                lines += ["", "```", text, "```", ""]
            else:
                lines.append(f"- {text}" if kind == "check" else f"  - {text}" if kind == "input" else f"\n*{text}*")
        lines.append("")
    if notes:
        lines += ["## Notes on the run", "", *(f"- {n}" for n in notes), ""]
    return "\n".join(lines) + "\n"


def feedback_html(record, columns, possible, auto, hand, total):
    found, notes = _sections(record, columns, possible)
    esc = html.escape
    maximum = sum(possible.values())
    parts = ["<!doctype html><html><head><meta charset='utf-8'>",
             f"<title>Feedback for {esc(record['learner'])}</title>",
             "<style>body{font-family:sans-serif;max-width:50em;margin:2em auto}pre{background:#f4f4f4;"
             "padding:.5em;white-space:pre-wrap}.hint{font-style:italic}</style></head><body>",
             f"<h1>Feedback for {esc(record['learner'])}</h1>",
             f"<p><strong>{_number(total)} of {_number(maximum)} points</strong> (checks: {_number(auto)}"
             + (f", marked by hand: {esc(str(hand))}" if str(hand).strip() else "") + ")</p>"]
    for e in columns:
        ex = found.get(e.name)
        if ex is None:
            parts.append(f"<h2>{esc(e.name)}: not submitted</h2>")
            continue
        parts.append(f"<h2>{esc(e.name)}: {_number(ex['earned'])} of {_number(ex['points'])} points</h2><ul>")
        for kind, text in _exercise_lines(e.name, ex, possible):
            if kind == "message":
                parts.append(f"<pre>{esc(text)}</pre>")
            elif kind == "hint":
                parts.append(f"<p class='hint'>{esc(text)}</p>")
            else:
                parts.append(f"<li>{esc(text)}</li>")
        parts.append("</ul>")
    if notes:
        parts.append("<h2>Notes on the run</h2><ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def merge(out, sources, assignment="minieager course"):
    """Copy the learner records of shard output folders into ``out`` and rebuild the tables there."""
    out = Path(out)
    (out / "results").mkdir(parents=True, exist_ok=True)
    for source in sources:
        source = Path(source)
        if source.resolve() == out.resolve():
            continue
        files = sorted((source / "results").glob("*.json"))
        if not files:
            raise FileNotFoundError(f"merge: {source} holds no results/*.json (is it a grade --out folder?)")
        for path in files:
            shutil.copyfile(path, out / "results" / path.name)
    return write_tables(out, assignment=assignment)
