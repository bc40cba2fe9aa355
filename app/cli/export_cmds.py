"""`linklab export` (a session's runs, points or samples as CSV, sessions to an exchange file,
a report of sessions compared, a hand-in or a lab report; a kept responsiveness result's files)
and `linklab import` (the sessions of an exchange file)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.cli import responsiveness_sessions as kept_results
from app.cli.args import EXIT_OK
from app.cli.environment import Environment
from app.cli.study_cmds import add_db_argument
from app.domain.errors import BadOption
from app.domain.units import counted
from app.report.csv_export import points_csv, runs_csv, write_samples_csv
from app.store.db import Database
from app.store.sessions import SessionStore
from app.study.files.exchange import EXCHANGE_SUFFIX
from app.study.files.exchange_write import write_sessions
from app.study.frontdoor import FrontDoor


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = sub.add_parser(
        "export", help="write a session's runs to CSV, or sessions to a JSON exchange file"
    )
    export.add_argument(
        "sessions", nargs="+", metavar="SESSION", help="one for CSV, one or more for JSON"
    )
    export.add_argument(
        "--format",
        choices=("csv", "points", "samples", "json", "html", "pdf", "png", "handin", "report"),
        required=True,
        help="csv: one row per finished run; points: one row per series and value "
        "(n, mean, std, min, max, 95 %% CI); samples: one row per interval sample, with "
        "run_status ok, failed or partial (a run that never finished), received_bps (what the "
        "receiver got) and sent_bps (the sender's rate); json: sessions to "
        "import elsewhere; html, pdf: a report comparing the sessions' series; handin: a "
        "student's sessions of a lab exercise with name, group and answers (.linklab); "
        "report: the student's lab report drafted (.html, .pdf, .docx or .odt by --out). "
        "A responsiveness result exports as csv (its tables), json (every step), png (its "
        "card) or html (card, chart over time and tables)",
    )
    export.add_argument(
        "--out",
        required=True,
        metavar="PATH",
        help=f"file to write ('-': stdout); for json, a name ending in {EXCHANGE_SUFFIX} "
        f"opens in LinkLab with a double-click (the name is used as given)",
    )
    add_db_argument(export)
    export.set_defaults(handler=cmd_export)

    imports = sub.add_parser(
        "import", help="add the sessions of an exchange file (those already present are skipped)"
    )
    imports.add_argument(
        "file",
        metavar="FILE",
        help=f"a file written by `linklab export --format json` (usually NAME{EXCHANGE_SUFFIX}; "
        f"any name is read)",
    )
    add_db_argument(imports)
    imports.add_argument("--json", action="store_true")
    imports.set_defaults(handler=cmd_import)


def cmd_export(args: argparse.Namespace, env: Environment) -> int:
    if args.format in ("csv", "json", "png", "html") and len(args.sessions) == 1:
        door = FrontDoor(env.db(args.db))
        if (kept := kept_results.find(door, args.sessions[0])) is not None:
            return kept_results.export(door.results().get(kept.id), args.format, args.out, env)
    if args.format in ("html", "pdf"):
        return _export_report(args, env)
    if args.format == "handin":
        from app.cli.class_cmds import export_handin

        return export_handin(args, env)
    if args.format == "report":
        from app.cli.lab_report_cmd import export_lab_report

        return export_lab_report(args, env)
    if args.format in ("csv", "points", "samples") and len(args.sessions) > 1:
        raise BadOption(
            "CSV export takes one session: export them one by one, or use --format json "
            "for several in one file."
        )
    door = FrontDoor(env.db(args.db))
    if args.format == "png":
        raise BadOption("png is a responsiveness result's card: a session's chart is in html.")
    if args.format == "samples":
        return _export_samples(door, args.sessions[0], args.out, env)
    if args.format == "json":
        notes: list[str] = []
        if args.out != "-":
            door.sessions().export(args.sessions, Path(args.out), notes)
            for note in notes:
                print(note, file=env.stderr)
            print(f"Wrote {args.out}.", file=env.stderr)
            return EXIT_OK
        with Database(door.db_path, readonly=True) as db:  # streamed, as to a file
            write_sessions(SessionStore(db), list(args.sessions), env.stdout, notes)
        for note in notes:
            print(note, file=env.stderr)
        return EXIT_OK
    else:
        session = door.sessions().get(args.sessions[0])
        runs = door.sessions().runs(session.id)
        text = runs_csv(session, runs) if args.format == "csv" else points_csv(session, runs)
    if args.out == "-":
        env.stdout.write(text)
        return EXIT_OK
    else:
        try:
            Path(args.out).write_text(text, encoding="utf-8", newline="")
        except OSError as err:
            raise BadOption(
                f"Cannot write {args.out} ({err.strerror}): choose another place."
            ) from None
    print(f"Wrote {args.out}.", file=env.stderr)
    return EXIT_OK


def cmd_import(args: argparse.Namespace, env: Environment) -> int:
    door = FrontDoor(env.db(args.db))
    result = door.sessions().import_file(Path(args.file))
    imported = [s.id for s in result.imported]
    skipped = [s.id for s in result.skipped]
    if args.json:
        print(json.dumps({"imported": imported, "skipped": skipped}, indent=2), file=env.stdout)
        return EXIT_OK
    count = len(imported)
    line = f"Imported {counted(count, 'session')}"
    if skipped:
        shown = ", ".join(sid[:8] for sid in skipped)
        line += f", skipped {len(skipped)} already present ({shown})"
    print(line + ".", file=env.stdout)
    return EXIT_OK


def _export_report(args: argparse.Namespace, env: Environment) -> int:
    """A report of one session's series (a monitor's: over time), or of several sessions
    compared like with like (the first one is the baseline)."""
    from app.report.report_data import collect, sessions_comparison

    if args.out == "-":
        raise BadOption("A report is a file: give its name with --out.")
    door = FrontDoor(env.db(args.db))
    if (
        len(args.sessions) == 1
        and (session := door.sessions().get(args.sessions[0])).plan.is_monitor
    ):
        from app.ui.monitor.report import write_monitor_report  # Qt only for the chart

        write_monitor_report(door.sessions().monitor(session), **{args.format: args.out})
        print(f"Wrote {args.out}.", file=env.stderr)
        return EXIT_OK
    comparison = sessions_comparison(door, args.sessions)
    from app.ui.common.report_files import write_outputs  # Qt is loaded only for the charts

    write_outputs(collect(comparison, door), **{args.format: args.out})
    print(f"Wrote {args.out}.", file=env.stderr)
    return EXIT_OK


def _export_samples(door: FrontDoor, ref: str, out: str, env: Environment) -> int:
    """One row per interval sample, written as it is read (a long session is large)."""
    session = door.sessions().get(ref)
    with Database(door.db_path, readonly=True) as db:
        store = SessionStore(db)
        runs = store.runs(session.id, partial=True)
        if out == "-":
            write_samples_csv(env.stdout, session, runs, store.samples)
            return EXIT_OK
        try:
            with open(out, "w", encoding="utf-8", newline="") as handle:
                rows = write_samples_csv(handle, session, runs, store.samples)
        except OSError as err:
            raise BadOption(f"Cannot write {out} ({err.strerror}): choose another place.") from None
    print(f"Wrote {out} ({counted(rows, 'sample')}).", file=env.stderr)
    return EXIT_OK
