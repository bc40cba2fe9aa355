"""`linklab sessions` (list, show, rename, tag, delete, restore); kept responsiveness results
are listed, shown, renamed and deleted beside the sessions (exported by export_cmds.py)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from app.cli import responsiveness_sessions as kept_results
from app.cli.args import EXIT_FAILED, EXIT_OK, key_value
from app.cli.environment import Environment
from app.cli.output import json_text, print_points, session_json, session_summary
from app.cli.study_cmds import add_db_argument, open_door
from app.domain.clock import step_sentence
from app.domain.errors import BadOption
from app.domain.records import SessionList, SessionRecord, UnreadableSession
from app.domain.units import counted
from app.store.damage import damage_sentence, unreadable_sentence
from app.study.frontdoor import FrontDoor
from app.study.responsiveness.kept import KeptResult
from app.study.sweep.describe import (
    describe_conditions,
    describe_environment,
    describe_latency,
    describe_security,
    local_time,
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sessions = sub.add_parser(
        "sessions",
        help="list, show, rename, tag or delete sessions (and responsiveness results)",
    )
    sessions.set_defaults(handler=cmd_sessions, action="list")
    add_db_argument(sessions)
    sessions.add_argument("--json", action="store_true")
    actions = sessions.add_subparsers(dest="action", metavar="ACTION")
    listing = actions.add_parser(
        "list", help="all sessions, then the responsiveness results, newest first"
    )
    listing.add_argument("--search", default="", help="text in the name, peer, conditions")
    listing.add_argument(
        "--status", choices=("running", "completed", "stopped", "interrupted", "failed")
    )
    show = actions.add_parser("show", help="one session with its point summaries")
    show.add_argument("session", metavar="SESSION")
    rename = actions.add_parser("rename", help="give a session a new name")
    rename.add_argument("session", metavar="SESSION")
    rename.add_argument("new_name", metavar="NAME")
    tag = actions.add_parser("tag", help="set (KEY=VALUE) or remove (--remove KEY) tags")
    tag.add_argument("session", metavar="SESSION")
    tag.add_argument("tags", nargs="*", type=key_value, metavar="KEY=VALUE|LABEL")
    tag.add_argument("--remove", action="append", default=[], metavar="KEY")
    delete = actions.add_parser(
        "delete", help="delete a session and all its runs (restore brings it back for a day)"
    )
    delete.add_argument("session", metavar="SESSION")
    delete.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    restore = actions.add_parser("restore", help="bring back a session deleted within a day")
    restore.add_argument("session", metavar="SESSION", help="its id (or the start of it)")
    for action in (listing, show, rename, tag, delete, restore):
        # Given before or after the action: `sessions --json show X` = `sessions show X --json`.
        action.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS)
        action.add_argument("--json", action="store_true", default=argparse.SUPPRESS)


def cmd_sessions(args: argparse.Namespace, env: Environment) -> int:
    action = args.action or "list"
    door = open_door(args, env)  # a session whose LinkLab died shows as interrupted, not running
    if action == "list":
        search, status = getattr(args, "search", ""), getattr(args, "status", None)
        found = door.sessions().listing(search, status)
        _warn(door, env)
        # A kept result is a finished test: listed unless another status is asked for.
        results = door.results().kept(search) if status in (None, "completed") else []
        return _list(found, results, args.json, door.db_path, env)
    if action == "restore":
        restored = door.sessions().restore_one(args.session)
        print(
            f"Restored session {restored.short_id} ({counted(restored.runs_done, 'run')}).",
            file=env.stdout,
        )
        return EXIT_OK
    kept = kept_results.find(door, args.session)
    if kept is not None:
        return _result_action(door, kept, action, args, env)
    session = door.sessions().get(args.session)
    if action == "show":
        runs = door.sessions().runs(session.id)
        _warn(door, env)
        problem = damage_sentence(session, door.db_path)
        if args.json:
            data = session_json(session, runs) | ({"problem": problem} if problem else {})
            print(json_text(data), file=env.stdout)
        else:
            if problem:
                print(f"linklab: {problem}", file=env.stderr)
            _show(session, env)
            if latency := describe_latency(runs):
                print(f"  latency     {latency.removeprefix('Working latency ')}", file=env.stdout)
            print_points(session, runs, env.stdout)
        return EXIT_OK
    if action == "rename":
        updated = door.sessions().rename(session.id, args.new_name)
    elif action == "tag":
        updated = door.sessions().tag(session.id, dict(args.tags), remove=args.remove)
    else:  # delete
        if not args.yes and not _confirm(
            f"Delete session {session.short_id} ({counted(session.runs_done, 'run')})? [y/N] ",
            env,
        ):
            print("Nothing deleted.", file=env.stderr)
            return EXIT_FAILED
        door.sessions().delete([session.id])
        print(
            f"Deleted session {session.short_id}: `linklab sessions restore "
            f"{session.short_id}` brings it back within a day.",
            file=env.stderr,
        )
        return EXIT_OK
    if args.json:
        print(json_text(session_summary(updated)), file=env.stdout)
    else:
        print(
            f"Session {updated.short_id}: name {updated.name!r}, "
            f"conditions {describe_conditions(updated.conditions) or '—'}.",
            file=env.stdout,
        )
    return EXIT_OK


def _warn(door: FrontDoor, env: Environment) -> None:
    """What was read came from a database nothing can be saved to: why (damaged, read-only)."""
    if door.unwritable:
        print(f"linklab: {door.unwritable}", file=env.stderr)


def _confirm(question: str, env: Environment) -> bool:
    answer = env.ask(question)
    if answer is None:
        raise BadOption("Deleting needs confirmation: add --yes.")
    return answer.strip().lower() in ("y", "yes")


def _result_action(
    door: FrontDoor, kept: KeptResult, action: str, args: argparse.Namespace, env: Environment
) -> int:
    if action == "show":
        kept_results.show(door.results().get(kept.id), args.json, env)
        return EXIT_OK
    if action == "rename":
        return kept_results.rename(door, kept, args.new_name, args.json, env)
    if action == "delete":
        return kept_results.delete(door, kept, args.yes, env)
    raise BadOption(
        f"{kept.name!r} is a responsiveness result: it has no tags (rename it to tell it apart)."
    )


def _list(
    found: SessionList,
    results: list[KeptResult],
    as_json: bool,
    path: Path,
    env: Environment,
) -> int:
    sessions, unreadable = found.sessions, found.unreadable
    if as_json:
        listed = [(s.started_at or s.created_at, _listed_json(s, path)) for s in sessions]
        listed += [(u.created_at, _unreadable_json(u, path)) for u in unreadable]
        listed += [(k.created_at, k.summary()) for k in results]
        listed.sort(key=lambda pair: pair[0], reverse=True)
        print(json_text([summary for _, summary in listed]), file=env.stdout)
        return EXIT_OK
    if not sessions and not unreadable and not results:
        print("No sessions yet: `linklab run --peer HOST` makes one.", file=env.stdout)
        return EXIT_OK
    if sessions or unreadable:
        _print_sessions(sessions, unreadable, env)
        problems = [damage_sentence(s, path) for s in sessions if s.damaged]
        problems += [unreadable_sentence(u, path) for u in unreadable]
        for sentence in problems:
            print(sentence, file=env.stdout)
    if results:
        if sessions or unreadable:
            print(file=env.stdout)
        print("Responsiveness results", file=env.stdout)
        kept_results.print_listing(results, env)
    count = counted(len(sessions) + len(unreadable), "session")
    if unreadable:
        count += f" ({len(unreadable)} cannot be read)"
    if results:
        count += f", {counted(len(results), 'responsiveness result')}"
    print(f"{count}.", file=env.stdout)
    return EXIT_OK


def _listed_json(session: SessionRecord, path: Path) -> dict[str, object]:
    """A listed session: whether it can be read, and what of it cannot (when something)."""
    summary = session_summary(session) | {"readable": True}
    if session.damaged:
        summary["problem"] = damage_sentence(session, path)
    return summary


def _unreadable_json(session: UnreadableSession, path: Path) -> dict[str, object]:
    return {
        "session_id": session.id,
        "name": session.name,
        "created_at": session.created_at,
        "runs_done": session.runs_done,
        "readable": False,
        "problem": unreadable_sentence(session, path),
    }


def _print_sessions(
    found: Sequence[SessionRecord], unreadable: Sequence[UnreadableSession], env: Environment
) -> None:
    print(
        f"{'id':<8}  {'started':<16}  {'name':<20}  {'peer':<16}  {'series':<14}  "
        f"{'conditions':<16}  {'status':<23}  runs",
        file=env.stdout,
    )
    rows: list[tuple[str, str]] = []
    for s in found:
        plan = s.plan
        series = (
            "/".join(p.value.upper() for p in plan.protocols)
            + " v"
            + "/".join(str(int(v)) for v in plan.ip_versions)
        )
        conditions = describe_conditions(s.conditions) or "—"
        name = s.name or ("(name unreadable)" if "name" in s.damaged else "")
        rows.append(
            (
                s.created_at,
                f"{s.short_id:<8}  {local_time(s.created_at):<16}  {name[:20]:<20}  "
                f"{peer_name(s)[:16]:<16}  {series:<14}  {conditions[:16]:<16}  "
                f"{s.status_text:<23}  {s.runs_done}/{s.total_runs}",
            )
        )
    for u in unreadable:
        rows.append(
            (
                u.created_at,
                f"{u.short_id:<8}  {local_time(u.created_at):<16}  {u.name[:20]:<20}  "
                f"{'—':<16}  {'—':<14}  {'—':<16}  {'cannot be read':<23}  {u.runs_done}/?",
            )
        )
    rows.sort(key=lambda row: row[0], reverse=True)
    for _, line in rows:
        print(line, file=env.stdout)


def peer_name(session: SessionRecord) -> str:
    """The peer as the window names it: "this computer", or its host."""
    return "this computer" if session.plan.peer.is_this_computer else session.peer_host


def _show(session: SessionRecord, env: Environment) -> None:
    plan = session.plan
    print(f"Session {session.id}", file=env.stdout)
    print(f"  name        {session.name or '—'}", file=env.stdout)
    print(f"  peer        {peer_name(session)} ({plan.engine.value})", file=env.stdout)
    reason = f". {session.status_reason}" if session.status_reason else ""
    print(f"  status      {session.status_text}{reason}", file=env.stdout)
    print(
        f"  started     {local_time(session.started_at)}, ended {local_time(session.ended_at)}",
        file=env.stdout,
    )
    if session.clock_step_s is not None:
        print(f"  clock       {step_sentence(session.clock_step_s)}", file=env.stdout)
    runs_words = counted(plan.repetitions, "run")
    if plan.is_monitor:  # one flow over time: no sweep to state
        print(
            f"  monitor     {runs_words} of up to {plan.duration_s} s, back to back; "
            f"{plan.direction.value}",
            file=env.stdout,
        )
    else:
        print(
            f"  sweep       {plan.variable.value}: {', '.join(str(v) for v in plan.values)}; "
            f"{runs_words} × {plan.duration_s} s; "
            f"{plan.direction.value}",
            file=env.stdout,
        )
    print(f"  conditions  {describe_conditions(session.conditions) or '—'}", file=env.stdout)
    security = describe_security(plan.conditions, session.environment)
    if security:
        print(f"  security    {security.removeprefix('Security: ')}", file=env.stdout)
    if plan.conditions.notes:
        print(f"  notes       {plan.conditions.notes}", file=env.stdout)
    print(
        f"  runs        {session.runs_done}/{session.total_runs} ({session.runs_failed} failed)",
        file=env.stdout,
    )
    for line in describe_environment(session.environment):
        label, _, rest = line.partition(": ")
        print(f"  {label.lower():<11} {rest}", file=env.stdout)
