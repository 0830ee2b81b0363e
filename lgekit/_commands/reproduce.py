"""``lgekit reproduce``: the paper's Figures 1-6, a results store, and a report of verdicts."""
import argparse
import logging
import shlex
import sys

from .._output_folder import FolderNotOursError, disk_error_message
from ._common import (CommandError, as_command_error, load_graph, output_folder, positive_seconds, require_negatives,
                      split_graph)

__all__ = ["register", "run"]

logger = logging.getLogger(__name__)

_EPILOG = """\
examples:
  lgekit reproduce                          all figures, quick, on a 1000-node synthetic graph (a smoke test)
  lgekit reproduce 1 3 --seeds 3            Figures 1 and 3 with 3 seeds (mean ± spread bands)
  lgekit reproduce --dataset blogcatalog    the paper's setting (full epochs and grids, 3 seeds)
  lgekit reproduce --scheduler local        the same cells on a Dask LocalCluster
  lgekit reproduce --scheduler tcp://10.0.0.5:8786 --dataset ppi

Finished cells are stored in OUT/cells/ as they complete; rerunning resumes
(skips them), --force recomputes. The longest cells are started first. The
report is OUT/report.md and OUT/report.html; figures of an earlier run into OUT
that this report does not draw are removed. OUT must be new, empty or an
lgekit results folder: OUT/.lgekit-manifest.json lists the files each lgekit
command wrote with their hashes, and reproduce replaces or removes only its own.
One run writes into OUT at a time. Progress goes
to stderr: a bar on a terminal or in a notebook, one line every few seconds in
a log or CI.
"""


def register(subparsers):
    p = subparsers.add_parser(
        "reproduce", help="run the paper's Figures 1-6 and write figures and a report of verdicts",
        description="Run the experiments of Gao et al. (ICLR 2019), Figures 1-6, as a resumable sweep; draw "
                    "the figures and write report.md/report.html with a verdict per claim.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("figures", nargs="*", metavar="FIGURE",
                   help="figures to run: 1-6, fig1-fig6 or all (default: all)")
    p.add_argument("--dataset", metavar="NAME|PATH", default=None,
                   help="a data set name (blogcatalog, ppi, facebook, email-eu-core, synthetic-blogcatalog) or a "
                        "path the loaders accept; a registered name wins over a file of that name, write ./NAME for "
                        "the file (default: the embedded synthetic-blogcatalog, no download)")
    p.add_argument("--out", metavar="DIR", default="lgekit-results", type=output_folder,
                   help="output folder: results store, figures, report (default: ./lgekit-results)")
    p.add_argument("--seeds", metavar="N", type=_positive_int, default=None,
                   help="seeds per grid point (each its own split and initialisation); default 3 with --full, "
                        "whose verdicts are judged over the seeds with their spread in the report, 1 with --quick")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", default=None,
                      help="fewer epochs and grid points, and a 1000-node synthetic default graph, not BlogCatalog "
                           "(`lgekit datasets list` shows it; the default when --dataset is not given)")
    mode.add_argument("--full", dest="quick", action="store_false",
                      help="the paper's epochs and grids (the default when --dataset is given)")
    p.add_argument("--jobs", metavar="N", type=_positive_int, default=None,
                   help="worker processes (default: all cores); with --scheduler local, the number of workers")
    p.add_argument("--scheduler", metavar="local|ADDRESS", default=None,
                   help="run the cells on Dask: 'local' starts a LocalCluster, an address (tcp://HOST:PORT) "
                        "uses an existing cluster (needs: pip install 'lgekit[dist]')")
    p.add_argument("--scheduler-timeout", metavar="SECONDS", type=positive_seconds, default=10.0,
                   help="how long to wait for a Dask scheduler given by address (default 10)")
    p.add_argument("--force", action="store_true",
                   help="recompute cells that are already stored, and write into an output folder that holds files "
                        "lgekit did not write (it overwrites the files it writes; it never removes a file it did not "
                        "write)")
    p.set_defaults(func=run)


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def check_dataset(dataset, test_fraction=None):
    """Load ``dataset`` once here, so that a bad name/path fails with a clear message before any work.

    It is resolved as every cell will resolve it (:func:`lgekit.datasets.resolve`:
    a registered name first, then a path); a registered data set that cannot
    be had (offline, download failed) is a one-message
    :class:`~lgekit._commands._common.CommandError` saying how to install it by hand.
    A graph no cell can train on is refused here too, in one line, rather
    than by every cell: one without a non-edge (a complete graph, e.g. one
    edge), and, given the cells' ``test_fraction``, one whose split leaves
    no training or no test edge (the split the cells draw, seed 0: its sizes
    do not depend on the seed).
    """
    if dataset is None:
        return None
    graph = load_graph(dataset, kind="data set file")
    require_negatives(graph, str(dataset))
    if test_fraction is not None:
        split_graph(graph, test_fraction, 0, str(dataset))
    return graph


def resolve_seeds(args):
    """``--seeds`` when given, else the mode's default: 3 when full (``--full``, or ``--dataset`` without
    ``--quick``), 1 when quick."""
    from ..experiments.spec import default_seeds  # lazy: `lgekit --help` must not import NumPy

    if args.seeds is not None:
        return args.seeds
    quick = args.quick if args.quick is not None else args.dataset is None
    return default_seeds(quick)


def run(args):
    # lazy: `lgekit --help` must not import NumPy
    from ..experiments import engine, plan, report, spec, verdict

    with as_command_error(ValueError):
        figures = plan.resolve_figures(args.figures)  # the ValueError names the bad one
    check_dataset(args.dataset, spec.SPLIT["test_fraction"])
    command = "lgekit " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    try:
        result, outputs = report.reproduce(
            figures, dataset=args.dataset, out=args.out, seeds=resolve_seeds(args), quick=args.quick,
            n_jobs=args.jobs, scheduler=args.scheduler, force=args.force, verbose=getattr(args, "verbose", 0),
            progress=True, command=command, timeout=args.scheduler_timeout,
        )
    except engine.SchedulerUnreachable as exc:
        raise CommandError(str(exc)) from None
    except ImportError as exc:
        raise CommandError(str(exc)) from None
    except RuntimeError as exc:  # the output folder is locked by another run
        raise CommandError(str(exc)) from None
    except FolderNotOursError as exc:  # files of the user's in --out
        raise CommandError(str(exc)) from None
    except OSError as exc:  # a full disk: the cells written so far are kept
        message = disk_error_message(args.out, exc, "the cells finished so far are stored: free some space and "
                                                    "run the same command again to resume")
        if message is None:
            raise
        raise CommandError(message) from None
    print(outputs.headline)    # which graph and why, first: a quick run's graph is not BlogCatalog
    print(result.summary())
    for v in outputs.verdicts:
        print(f"  {v.figure}: {v.status:<14} {v.statement}")
    for name in outputs.all_diverged:
        print(f"  {name}: every run diverged (the report gives the reasons)")
    print(f"figures: {', '.join(str(p[0]) for p in outputs.figures.values())}")
    if outputs.removed:
        print(f"removed an earlier run's figures that this report does not draw: {', '.join(outputs.removed)}")
    print(f"report: {outputs.report_md}  {outputs.report_html}")
    if result.errors:
        print(f"{len(result.errors)} cell(s) failed (stored as errors; rerun retries them):", file=sys.stderr)
        for err in result.errors:
            params = {k: v for k, v in err["params"].items() if k in ("dim", "lam_r", "epochs", "random_state")}
            print(f"  {err['key'][:12]} {err['model']} {params}: {err.get('type')}: {err.get('message')}",
                  file=sys.stderr)
        return 1
    logger.debug("verdicts reproduced: %d", sum(v.status == verdict.REPRODUCED for v in outputs.verdicts))
    return 0
