#!/usr/bin/env python3
"""Compute every results-store entry that needs it, a few at a time.

Usage (from the repository root, after the README's set-up)::

    .venv/bin/python tools/paper_scale_all.py --dry-run     # what would run, and why
    .venv/bin/python tools/paper_scale_all.py --jobs 2      # run it, two entries at once

An entry needs computing when it is missing, partial (it resumes), computed by an older minor
fastmix version than the installed one, or stored with parameters other than the paper-scale
setting in ``notebooks/paper_scale.json`` (the last two start afresh with ``--restart``); this
is what the release command requires (``tools/release.py``). ``--only a,b`` limits the run to
some entries, ``--force`` recomputes them even when current.

Each entry runs as ``.venv/bin/python -m fastmix_companion.run --paper-scale NAME`` in its own process
with one BLAS/OpenMP thread (so ``--jobs`` processes use ``--jobs`` cores), its output in
``<log-dir>/NAME.log``. An entry that reads another's results (a study's ``REQUIRES``, e.g.
Figure 1 reads the C^2 that Section 3 measures) starts only after that one has finished.
Stopping this command stops its runs; running it again resumes every partial entry.
Exit status 0 when every entry finished, 1 when one failed (its log says why).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "FHT_NUM_THREADS")


def plan(only=None, force=False, root=None):
    """``[(name, reason, restart, requires)]`` for every entry to compute, in a valid order."""
    from fastmix_companion.run import paper_scale_parameters
    from fastmix_companion.store import ResultsStore, parameters_differ, stale_entries
    from fastmix_companion.studies import STUDIES, study_module, study_parameters

    names = sorted(STUDIES)
    if only:
        unknown = sorted(set(only) - set(names))
        if unknown:
            raise SystemExit(f"error: no paper-scale study for {', '.join(unknown)}; studies: {', '.join(names)}")
        names = [n for n in names if n in only]
    stale = dict(stale_entries(names, root=root))
    rows = []
    for name in names:
        expected = study_parameters(name, paper_scale_parameters(name))
        stored = ResultsStore(name, root).parameters()
        diff = parameters_differ(stored, expected) if stored is not None else {}
        reason, restart = stale.get(name), False
        if diff:
            reason, restart = "stored with other parameters: " + ", ".join(sorted(diff)), True
        elif reason is not None and reason.startswith("computed by"):
            restart = True
        elif reason is None and force:
            reason, restart = "recomputed on request", True
        if reason is None:
            continue
        requires = tuple(getattr(study_module(name), "REQUIRES", ()))
        rows.append((name, reason, restart, requires))
    return _order(rows)


def _order(rows):
    """Put each entry after the entries it requires (those not planned count as ready)."""
    planned = {r[0] for r in rows}
    done, out, pending = set(), [], list(rows)
    while pending:
        ready = [r for r in pending if all(q in done or q not in planned for q in r[3])]
        if not ready:
            raise SystemExit("error: the studies' REQUIRES form a cycle: " + ", ".join(r[0] for r in pending))
        for r in ready:
            out.append(r)
            done.add(r[0])
            pending.remove(r)
    return out


def _command(name, restart):
    cmd = [sys.executable, "-m", "fastmix_companion.run", "--paper-scale", name, "--no-progress"]
    return cmd + (["--restart"] if restart else [])


def run(rows, jobs, log_dir):
    """Run the planned entries, ``jobs`` at a time; returns the names that failed."""
    log_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, **{v: "1" for v in THREAD_VARIABLES})
    waiting, running, finished, failed = list(rows), {}, set(), []
    planned = {r[0] for r in rows}
    try:
        while waiting or running:
            for name, (proc, handle, started) in list(running.items()):
                if proc.poll() is None:
                    continue
                handle.close()
                del running[name]
                minutes = (time.time() - started) / 60
                if proc.returncode == 0:
                    finished.add(name)
                    print(f"{time.strftime('%H:%M:%S')} finished {name} ({minutes:.0f} min)", flush=True)
                else:
                    failed.append(name)
                    print(
                        f"{time.strftime('%H:%M:%S')} FAILED {name} (exit {proc.returncode}); see "
                        f"{log_dir / (name + '.log')}",
                        flush=True,
                    )
            for row in list(waiting):
                if len(running) >= jobs:
                    break
                name, reason, restart, requires = row
                blocked = [q for q in requires if q in planned and q not in finished]
                if any(q in failed for q in blocked):
                    waiting.remove(row)
                    failed.append(name)
                    print(f"skipped {name}: it needs {', '.join(blocked)}, which failed", flush=True)
                    continue
                if blocked:
                    continue
                waiting.remove(row)
                handle = open(log_dir / f"{name}.log", "a")
                proc = subprocess.Popen(
                    _command(name, restart), cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT
                )
                running[name] = (proc, handle, time.time())
                print(
                    f"{time.strftime('%H:%M:%S')} started {name} ({reason}); log: {log_dir / (name + '.log')}",
                    flush=True,
                )
            time.sleep(2)
    except KeyboardInterrupt:
        for proc, handle, _ in running.values():
            proc.terminate()
            handle.close()
        print("\ninterrupted: run this command again to resume the partial entries", file=sys.stderr)
        raise SystemExit(130) from None
    return failed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--jobs", type=int, default=1, help="entries computed at once (one core each; default 1)")
    parser.add_argument("--only", default="", help="comma-separated notebook names (default: every study)")
    parser.add_argument("--force", action="store_true", help="recompute the chosen entries even when current")
    parser.add_argument("--dry-run", action="store_true", help="print the plan and exit")
    parser.add_argument(
        "--log-dir",
        default=str(ROOT / "_build" / "paper-scale-logs"),
        help="where each entry's log goes (default: _build/paper-scale-logs)",
    )
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1; got {args.jobs}")
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    rows = plan(only, args.force)
    if not rows:
        print("every results-store entry is complete and current")
        return 0
    for name, reason, restart, requires in rows:
        after = f"; after {', '.join(requires)}" if requires else ""
        print(f"{name}: {reason} ({'starts afresh' if restart else 'resumes or starts'}{after})")
    if args.dry_run:
        return 0
    failed = run(rows, args.jobs, Path(args.log_dir))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
