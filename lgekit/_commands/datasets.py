"""``lgekit datasets``: list the registered data sets, describe one, download one.

::

    lgekit datasets list
    lgekit datasets info blogcatalog [--verify]
    lgekit datasets fetch blogcatalog [--data-home DIR] [--force]
"""
import logging
import os
import textwrap

from ._common import CommandError, as_command_error, positive_seconds, unavailable_message

__all__ = ["register", "run"]

logger = logging.getLogger(__name__)

# lgekit.datasets is imported inside the functions: it loads NumPy and SciPy, which `lgekit --help` must not pay for


def register(subparsers):
    parser = subparsers.add_parser(
        "datasets",
        help="list, describe and download the registered data sets",
        description=(
            "List the registered data sets and where they are available locally, describe one, or download "
            "one from its publisher (verified by SHA-256). Files are looked for in --data-home alone, else in "
            "$LGEKIT_DATA, then ../shared/data beside the lgekit source checkout (not the current folder), then "
            "the user cache ($LGEKIT_CACHE)."
        ),
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    p_list = sub.add_parser("list", help="table of the registered data sets and where they are")
    p_list.add_argument("--data-home", metavar="DIR", default=None, help="look only in this folder")
    p_info = sub.add_parser("info", help="description, citation, counts, URLs and checksums of one data set")
    p_info.add_argument("name", metavar="NAME")
    p_info.add_argument("--data-home", metavar="DIR", default=None, help="look only in this folder")
    p_info.add_argument("--verify", action="store_true", help="also check the local files' SHA-256")
    p_fetch = sub.add_parser(
        "fetch", help="download data sets from their publishers into the cache or --data-home",
        description="Download data sets from their publishers (verified by SHA-256). With LGEKIT_OFFLINE=1 nothing "
                    "is downloaded: a data set that is not already present gets the steps to install it by hand.")
    p_fetch.add_argument("names", metavar="NAME", nargs="+", help="registered data set name(s), or 'all'")
    p_fetch.add_argument("--data-home", metavar="DIR", default=None,
                         help="download into DIR/<name>/ (default: the user cache)")
    p_fetch.add_argument("--force", action="store_true", help="download even if the files are already present")
    p_fetch.add_argument("--timeout", type=positive_seconds, default=30.0, metavar="SECONDS",
                         help="network timeout per request (default: 30)")
    parser.set_defaults(func=run, _parser=parser)
    return parser


def run(args):
    action = getattr(args, "action", None)
    if action is None:
        args._parser.print_help()
        return 2
    return {"list": _list, "info": _info, "fetch": _fetch}[action](args)


def _entry(name):
    """The registry entry of ``name``; an unknown name is the user's error, said in one line."""
    # lazy: the data sets (and NumPy) load when a datasets command runs, not at `lgekit --help`
    from .. import datasets

    with as_command_error(ValueError):
        return datasets.info(name)


def _search_labels(data_home):
    """``[(folder, how it came to be searched)]``, in the loaders' search order."""
    # lazy: the data sets (and NumPy) load when a datasets command runs, not at `lgekit --help`
    from .. import datasets

    folders = datasets.search_path(data_home)
    if data_home is not None:
        return [(folders[0], "--data-home")]
    labels = []
    env = os.environ.get("LGEKIT_DATA")
    for i, folder in enumerate(folders[:-1]):
        labels.append((folder, "$LGEKIT_DATA" if env and i == 0 else
                       "../shared/data beside the lgekit source checkout"))
    labels.append((folders[-1], "the user cache ($LGEKIT_CACHE)" if os.environ.get("LGEKIT_CACHE") else
                   "the user cache"))
    return labels


def _where(name, data_home):
    """Where a data set was found, as ``(source, folder)``; a missing one says how to get it."""
    # lazy: the data sets (and NumPy) load when a datasets command runs, not at `lgekit --help`
    from .. import datasets

    entry = datasets.info(name)
    if entry.embedded:
        return "embedded", "embedded (generated)"
    folder = datasets.locate(name, data_home)
    if folder is None:
        return "missing", f"no (lgekit datasets fetch {name})"
    # files of the right names are not the data set: their digests must be the registry's
    differ = [f for f, problem in datasets.verify(name, data_home).items() if problem is not None]
    if differ:
        return "modified", f"no: {folder} is a modified copy ({', '.join(differ)})"
    for home, label in _search_labels(data_home):
        if folder.parent == home:
            return label.split(" (")[0].replace(" beside the lgekit source checkout", ""), str(folder)
    return "found", str(folder)


def _format_table(header, rows, numeric=(1, 2, 3)):
    """A plain-text table: the ``numeric`` columns right-aligned, the others left-aligned."""
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(str(c).rjust(w) if i in numeric else str(c).ljust(w)
                       for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in [header] + rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _quick_row(name):
    """Beside the registry's row of ``name``: the graph ``lgekit reproduce`` runs in quick mode without
    --dataset when ``name`` is its default, counted as generated (the registry's row is the full mode's
    graph), so that what the list shows is what runs.  ``[]`` for any other data set."""
    # lazy: the data sets (and NumPy) load when a datasets command runs, not at `lgekit --help`
    from .. import datasets
    from ..experiments.spec import DEFAULT_DATASET, QUICK_DATASET_KWARGS  # lazy: NumPy, as above

    if name != DEFAULT_DATASET:
        return []
    graph = datasets.load(DEFAULT_DATASET, **QUICK_DATASET_KWARGS)
    label = f"{DEFAULT_DATASET} ({', '.join(f'{k}={v}' for k, v in sorted(QUICK_DATASET_KWARGS.items()))})"
    return [[label, f"{graph.n_nodes:,}", f"{graph.n_edges:,}", graph.n_labels or "-",
             "embedded (generated): `lgekit reproduce` quick mode's graph", ""]]


def _list(args):
    # lazy: the data sets (and NumPy) load when a datasets command runs, not at `lgekit --help`
    from .. import datasets

    rows = []
    for name, entry in datasets.registry().items():
        source, where = _where(name, args.data_home)
        rows.append([name, f"{entry.n_nodes:,}", f"{entry.n_edges:,}", entry.n_labels or "-", where,
                     "" if source == "embedded" else source])
        rows.extend(_quick_row(name))
    print(_format_table(["name", "nodes", "edges", "labels", "available", "found in"], rows))
    print("\nlooked for in this order (the first folder holding a data set's files wins):")
    if args.data_home is None and not os.environ.get("LGEKIT_DATA"):
        print("  $LGEKIT_DATA: not set")
    for home, label in _search_labels(args.data_home):
        print(f"  {label}: {home}{'' if home.is_dir() else ' (does not exist)'}")
    if any(row[-1] == "modified" for row in rows):
        print("a modified copy: its files' SHA-256 are not the registry's (`lgekit datasets info NAME --verify` shows "
              "them), so lgekit refuses to read it under the registered name, whose results it would be stored and "
              "reported as; load it by path to use it as your own data, or `lgekit datasets fetch NAME --force` for "
              "the publisher's files")
    if any(row[-1] == "missing" for row in rows):
        print("a missing data set: `lgekit datasets fetch NAME` downloads it into the user cache (or --data-home DIR); "
              "or set LGEKIT_DATA to a folder laid out as NAME/FILES (`lgekit datasets info NAME` lists them)")
    return 0


def _edges_line(entry):
    """How many edges ``load(name)`` gives and of which kind, and the data's own kind when it differs."""
    kind = entry.default_kind
    line = f"{'arcs' if kind == 'directed' else 'edges'} {entry.n_edges:,} ({kind}, self-loops dropped)"
    if kind != entry.kind:
        line += f"; {entry.kind} data read {kind} by default (directed=True / --directed keeps the arcs)"
    return line


def _info(args):
    # lazy: the data sets (and NumPy) load when a datasets command runs, not at `lgekit --help`
    from .. import datasets

    entry = _entry(args.name)
    wrap = lambda text: textwrap.fill(text, width=100, initial_indent="  ", subsequent_indent="  ")  # noqa: E731
    out = [f"{entry.name}: {entry.title}", wrap(entry.description), "",
           f"  nodes {entry.n_nodes:,}   {_edges_line(entry)}   "
           f"labels {entry.n_labels}{' (multi-label)' if entry.multilabel else ''}   "
           f"memberships {entry.n_memberships:,}",
           "", "citation:", wrap(entry.citation)]
    if entry.homepage:
        out += ["", f"homepage: {entry.homepage}"]
    if entry.downloads:
        out += ["", "download:"]
        for d in entry.downloads:
            archive = "" if d.archive is None else f" ({d.archive}: {d.describe_archive()} the files below)"
            out += [f"  {d.urls[0]}{archive}"] + [f"    mirror: {u}" for u in d.urls[1:]]
    if entry.files:
        out += ["", "files (SHA-256 of the bytes / of the parsed content):"]
        for f in entry.files:
            out += [f"  {f.name}", f"    {f.sha256}", f"    {f.content_sha256}"]
    if entry.notes:
        out += ["", "notes:", wrap(entry.notes)]
    source, where = _where(entry.name, args.data_home)
    out += ["", f"available: {where}" if source in ("missing", "embedded", "modified") else f"available: {where} (found in {source})"]
    print("\n".join(out))
    if args.verify and not entry.embedded:
        status = datasets.verify(entry.name, args.data_home)
        for name, problem in status.items():
            print(f"  {name}: {'OK' if problem is None else 'MISMATCH ' + problem}")
        return 0 if all(p is None for p in status.values()) else 1
    return 0


def _fetch(args):
    # lazy: the data sets (and NumPy) load when a datasets command runs, not at `lgekit --help`
    from .. import datasets

    names = list(args.names)
    if names == ["all"]:
        names = [n for n, e in datasets.registry().items() if not e.embedded]
    for name in names:
        entry = _entry(name)  # every name checked before any download
        if entry.embedded:
            raise CommandError(f"{entry.name!r} is generated on the fly; there is nothing to fetch")
    for name in names:
        try:
            # with LGEKIT_OFFLINE set, fetch never touches the network: it says how to install by hand
            folder = datasets.fetch(name, data_home=args.data_home, force=args.force, timeout=args.timeout)
        except datasets.DownloadError as exc:
            raise CommandError(unavailable_message(exc)) from None
        print(f"{datasets.info(name).name}: {folder}")
    return 0
