"""The ``ergmfit`` command line.

::

    ergmfit datasets [--json]
    ergmfit terms [--directed | --undirected] [--json]
    ergmfit stats DATA FORMULA [--json] [--directed | --undirected] [--nodes FILE]
                  [--format FMT] [--weights {error,ignore}] [--duplicates {error,merge}]
    ergmfit simulate DATA FORMULA --coef V [V ...] [--n N] [--burnin B] [--interval I]
                  [--seed S] [--output {stats,edgelist}] [--json]
    ergmfit gof DATA FORMULA --coef V [V ...] [--n-sim N] [--burnin B] [--interval I]
                  [--statistics GOF] [--seed S] [--plot FILE] [--json]

``DATA`` is a bundled dataset name (``ergmfit datasets``) or a file: an
edge-list CSV (with ``--nodes nodes.csv``), GraphML, GML or Pajek (with
``--nodes`` EstimNet attribute files, repeatable).  ``--json`` prints
exactly one JSON value on standard output and nothing else.

Errors in the user's input (any :class:`~ergmfit.ErgmfitError`) print one
line ``ergmfit: error: <message>`` on standard error and exit with status
2; warnings print as ``ergmfit: warning: <message>``.

``fit --save FILE`` prints the table (or the JSON) first and saves after
it; the file is written atomically, so a failed save leaves any earlier
file at FILE intact.  A save that fails prints ``ergmfit: error: the fit
above was not saved: <reason>`` on standard error and exits with status 3
(the printed result stands; a script can tell the save did not happen).

Adding a subcommand: write ``_configure_NAME(parser)`` (use
:func:`add_network_arguments` for a DATA argument with the usual options)
and ``_run_NAME(args) -> int`` (use :func:`load_network` and
:func:`emit_json` / :func:`print_table`), then list it in ``COMMANDS``.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import numbers
import os
import re
import sys
import warnings
from dataclasses import dataclass
from typing import Callable

from .exceptions import ErgmfitError, SaveError, SettingsError
from .ego import command as ego_command

EXIT_OK = 0
EXIT_ERROR = 2
EXIT_SAVE_FAILED = 3


# ---------------------------------------------------------------------------
# shared helpers for subcommands
# ---------------------------------------------------------------------------

def add_directedness_arguments(parser, help_directed=None, help_undirected=None):
    """``--directed`` / ``--undirected`` (mutually exclusive), stored in ``args.directed``."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--directed", dest="directed", action="store_const", const=True,
                       default=None,
                       help=help_directed or "the network is directed (required for edge-list "
                                             "CSV files; must agree with other data)")
    group.add_argument("--undirected", dest="directed", action="store_const", const=False,
                       help=help_undirected or "the network is undirected")
    return group


def add_network_arguments(parser):
    """The DATA argument and the options that say how to read it."""
    from .network.io import FORMATS
    parser.add_argument("data", metavar="DATA",
                        help="a bundled dataset name (see `ergmfit datasets`) or a file: "
                             "edge-list CSV/TSV, GraphML, GML or Pajek")
    add_directedness_arguments(parser)
    parser.add_argument("--nodes", action="append", metavar="FILE",
                        help="node attributes: a node CSV (first column the id) for an edge-list "
                             "CSV, or EstimNet attribute files for a Pajek file (repeatable)")
    parser.add_argument("--format", dest="fmt", choices=sorted(FORMATS), metavar="FMT",
                        help=f"file format ({', '.join(FORMATS)}); default: from the extension")
    parser.add_argument("--weights", choices=("error", "ignore"), default="error",
                        help="edge weights other than 1: an error (default), or ignored so "
                             "that every listed edge is a tie")
    parser.add_argument("--duplicates", choices=("error", "merge"), default="error",
                        help="a tie listed twice: an error (default) or kept once")
    parser.add_argument("--response", default=None, metavar="ATTR",
                        help="a count-valued model (ergm.count): the edge attribute or "
                             "edge-list column holding the counts, e.g. --response weight")
    parser.add_argument("--reference", default=None, metavar="REF",
                        help="the reference measure of a count-valued model: Poisson "
                             "(default), Binomial(3), Geometric, DiscUnif(a,b)")
    parser.add_argument("--also", action="append", default=None, metavar="DATA",
                        help="another network (repeatable): DATA and these are stacked as "
                             "several networks (ef.Networks; model them with N(...)); an "
                             "edge-list CSV here may name its node file as EDGES::NODES")
    parser.add_argument("--network-attr", dest="network_attrs", action="append", default=None,
                        metavar="NAME=V1,V2,...",
                        help="a network-level attribute of the stacked networks, one value "
                             "per network (repeatable; for N(..., lm=~NAME))")
    parser.add_argument("--wave", default=None, metavar="COLUMN",
                        help="the edge list is a panel with a wave column COLUMN: one network "
                             "per wave (ef.NetSeries); model its transitions with "
                             "Form(~...) + Persist(~...) and --method cmle / cmple / btergm")
    parser.add_argument("--layers", default=None, metavar="A,B,...",
                        help="the edge attributes (0/1 columns) that are tie layers: the "
                             "network becomes a multilayer network (ef.Layer; model it with "
                             "L(...))")


def valued_arguments(args) -> dict:
    """``response=`` and ``reference=`` for ``ERGM(...)`` (empty for a binary model)."""
    out = {}
    if getattr(args, "response", None) is not None:
        out["response"] = args.response
    if getattr(args, "reference", None) is not None:
        out["reference"] = args.reference
    return out


def load_network(args):
    """The network named by ``args.data`` with the options of :func:`add_network_arguments`."""
    from .network.io import load_any
    nodes = args.nodes
    if nodes is not None and len(nodes) == 1:
        nodes = nodes[0]
    if getattr(args, "reference", None) is not None and getattr(args, "response", None) is None:
        # else the counts are read as binary weights, refused with a message about weights
        raise SettingsError(f"--reference {args.reference} makes a count-valued model, which "
                            "needs --response ATTR: the edge attribute or edge-list column "
                            "holding the counts (e.g. --response weight)")
    if getattr(args, "wave", None):
        from .network.series import NetSeries
        other = [opt for opt, key in (("--also", "also"), ("--layers", "layers"),
                                      ("--network-attr", "network_attrs"),
                                      ("--response", "response"), ("--reference", "reference"))
                 if getattr(args, key, None)]
        if other:
            raise SettingsError(f"--wave (a panel) does not combine with {', '.join(other)}")
        return NetSeries.from_edgelist(args.data, wave=args.wave, directed=args.directed,
                                       nodes=nodes)
    # a count-valued model reads its counts from the edges (a 'weight' column too)
    weights = "keep" if getattr(args, "response", None) is not None else args.weights
    net = load_any(args.data, directed=args.directed, nodes=nodes, fmt=args.fmt,
                   weights=weights, duplicates=args.duplicates)
    if getattr(args, "layers", None) or getattr(args, "also", None) or \
            getattr(args, "network_attrs", None):
        from .network.networks import stacked_from_cli
        net = stacked_from_cli(net, args, lambda data, nodes: load_any(
            data, directed=args.directed, nodes=nodes, fmt=args.fmt, weights=weights,
            duplicates=args.duplicates))
    return net


def format_value(v) -> str:
    """A number for a table: whole numbers without decimals, others to 10 significant digits."""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isfinite(v) and v.is_integer() and abs(v) < 1e16:
            return str(int(v))
        return f"{v:.10g}"
    return str(v)


def json_value(v):
    """A number for JSON: whole floats as ints, non-finite as null."""
    if isinstance(v, float):
        if not math.isfinite(v):
            return None
        if v.is_integer() and abs(v) < 2 ** 53:
            return int(v)
    return v


def summary_line(doc, width=100) -> str:
    """The first sentence of a docstring's first paragraph, at most ``width`` characters."""
    para = []
    for line in (doc or "").strip().splitlines():
        if not line.strip():
            break
        para.append(line.strip())
    text = " ".join(para)
    m = re.search(r"\.(\s|$)", text)
    if m:
        text = text[:m.start() + 1]
    if len(text) > width:
        text = text[:width - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return text


def emit_json(obj, file=None):
    """Print one JSON value on a line of its own (standard output by default)."""
    print(json.dumps(obj, allow_nan=False), file=file or sys.stdout)


def print_table(headers, rows, file=None, right=()):
    """An aligned plain-text table; columns whose index is in ``right`` align right.

    The last column is not padded, so long descriptions do not add trailing
    space.
    """
    file = file or sys.stdout
    rows = [[str(c) for c in r] for r in rows]
    widths = [max([len(h)] + [len(r[k]) for r in rows]) for k, h in enumerate(headers)]

    def line(cells):
        out = []
        for k, c in enumerate(cells):
            if k == len(cells) - 1 and k not in right:
                out.append(c)
            elif k in right:
                out.append(c.rjust(widths[k]))
            else:
                out.append(c.ljust(widths[k]))
        return "  ".join(out).rstrip()

    if headers:
        print(line(list(headers)), file=file)
    for r in rows:
        print(line(r), file=file)


# ---------------------------------------------------------------------------
# subcommands
# ---------------------------------------------------------------------------

def _configure_datasets(p):
    p.add_argument("--json", action="store_true",
                   help="print a JSON list of objects instead of a table")


def _run_datasets(args):
    from . import datasets
    infos = [datasets.info(name) for name in datasets.names()]
    if args.json:
        emit_json([{"name": d.name, "nodes": d.n_nodes, "ties": d.n_edges,
                    "directed": d.directed, "description": d.description,
                    "source": d.source, "licence": d.licence} for d in infos])
        return EXIT_OK
    print_table(["name", "nodes", "ties", "directed", "description", "licence"],
                [[d.name, d.n_nodes, d.n_edges, "yes" if d.directed else "no", d.description,
                  d.licence] for d in infos], right=(1, 2))
    return EXIT_OK


def _configure_terms(p):
    add_directedness_arguments(p, help_directed="only terms for directed networks",
                               help_undirected="only terms for undirected networks")
    p.add_argument("--json", action="store_true",
                   help="print a JSON list of objects instead of a table")


def _run_terms(args):
    from .terms.registry import BOTH, DIRECTED, UNDIRECTED, all_terms
    specs = all_terms()
    if args.directed is not None:
        want = DIRECTED if args.directed else UNDIRECTED
        specs = [s for s in specs if s.kinds in (want, BOTH)]
    rows = []
    for s in specs:
        rows.append({"name": s.name, "kinds": s.kinds, "signature": s.signature(),
                     "aliases": list(s.aliases), "family": s.family,
                     "description": summary_line(s.doc), "doc": s.doc})
    if args.json:
        emit_json(rows)
        return EXIT_OK
    print_table(["name", "kinds", "signature", "aliases", "description"],
                [[r["name"], r["kinds"], r["signature"], ", ".join(r["aliases"]) or "-",
                  r["description"]] for r in rows])
    return EXIT_OK


def _configure_stats(p):
    add_network_arguments(p)
    p.add_argument("formula", metavar="FORMULA",
                   help="model terms, statnet style, e.g. \"edges + kstar(2) + triangle\"")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object {label: value} and nothing else")


def _run_stats(args):
    from .model import ERGM
    net = load_network(args)
    model = ERGM(net, args.formula, **valued_arguments(args))
    stats = model.statistics()
    if args.json:
        emit_json({label: json_value(v) for label, v in stats.items()})
        return EXIT_OK
    # the table prints statnet's names, a repeated one twice (the dict keys are unique)
    print_table(["statistic", "value"], [[label, format_value(v)] for label, v in
                                         zip(model.stat_labels, stats.values())], right=(1,))
    return EXIT_OK


def _positive_int(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {v}")
    return v


def _nonnegative_int(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {v}")
    return v


def _add_model_arguments(p, coef_required=True):
    """DATA, FORMULA and --coef (the parameters to simulate from)."""
    add_network_arguments(p)
    p.add_argument("formula", metavar="FORMULA",
                   help="model terms, statnet style, e.g. \"edges + triangle\"")
    p.add_argument("--coef", nargs="+", type=float, required=coef_required, metavar="V",
                   help="one parameter value per statistic, in formula order "
                        "(see `ergmfit stats DATA FORMULA` for the statistics)"
                        + ("" if coef_required else "; without it the model is fitted first "
                                                     "(--method)"))
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="random seed (the same seed gives the same output)")


def _add_space_arguments(p, fit=True):
    """--constraints, --missing (and, for fits, --offset-coef, --target-stats)."""
    p.add_argument("--constraints", default=None, metavar="FORMULA",
                   help="statnet constraints, e.g. \"~ bd(maxout=5) + blockdiag('school')\"")
    p.add_argument("--missing", default=None, metavar="FILE",
                   help="CSV of unobserved dyads (header source,target; node ids as in DATA)")
    if fit:
        p.add_argument("--offset-coef", dest="offset_coef", nargs="+", type=float,
                       default=None, metavar="V",
                       help="coefficients of the formula's offset() terms (-inf allowed)")
        p.add_argument("--target-stats", dest="target_stats", nargs="+", type=float,
                       default=None, metavar="V",
                       help="fit to these statistics instead of the network's")


def _make_model(net, args):
    """ERGM(net, FORMULA) with --constraints and --missing."""
    import csv
    from .model import ERGM
    missing = None
    if getattr(args, "missing", None):
        try:
            with open(args.missing, newline="") as fh:
                rows = list(csv.reader(fh))
        except OSError as exc:
            raise ErgmfitError(f"--missing: cannot read {args.missing!r}: {exc}") from None
        if rows and not all(_is_number(v) for v in rows[0][:2]):
            rows = rows[1:]
        missing = [(_option_value(r[0].strip()), _option_value(r[1].strip()))
                   for r in rows if len(r) >= 2]
    return ERGM(net, args.formula, constraints=getattr(args, "constraints", None),
                missing=missing, **valued_arguments(args))


def _is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def _coef_params(args, model):
    """``--coef`` checked against the model's statistics."""
    labels = model.labels
    if len(args.coef) != len(labels):
        raise ErgmfitError(f"--coef needs {len(labels)} value(s), one per statistic "
                           f"({', '.join(labels)}), got {len(args.coef)}")
    bad = [lab for lab, v in zip(labels, args.coef) if not math.isfinite(v)]
    if bad:
        raise ErgmfitError(f"--coef: non-finite value for {', '.join(bad)}")
    return list(args.coef)


def _json_label(v):
    """A node label for JSON (numbers stay numbers, anything else becomes text)."""
    if isinstance(v, (bool, str)) or v is None:
        return v
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        return json_value(float(v))
    return str(v)


def _configure_simulate(p):
    _add_model_arguments(p)
    _add_space_arguments(p, fit=False)
    p.add_argument("--n", type=_positive_int, default=1, metavar="N",
                   help="number of networks to draw (default 1)")
    p.add_argument("--burnin", type=_nonnegative_int, default=16384, metavar="B",
                   help="MCMC proposals before the first draw (default 16384)")
    p.add_argument("--interval", type=_positive_int, default=1024, metavar="I",
                   help="MCMC proposals between draws (default 1024)")
    p.add_argument("--output", choices=("stats", "edgelist"), default="stats",
                   help="the statistics of each draw (default) or its ties")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object and nothing else")


def _run_simulate(args):
    from .labeled import make_unique
    from .model import ERGM
    net = load_network(args)
    model = _make_model(net, args)
    params = _coef_params(args, model)
    head = {"model": args.formula, "n_nodes": model.network.n,
            "directed": model.network.directed,
            "coef": dict(zip(make_unique(model.labels), params)), "n": args.n,
            "burnin": args.burnin,
            "interval": args.interval, "seed": args.seed}
    if args.output == "stats":
        S = model.simulate(params, n=args.n, burnin=args.burnin, interval=args.interval,
                           output="stats", random_state=args.seed)
        if args.json:
            emit_json({**head, "labels": list(model.labels),
                       "stats": [[json_value(float(v)) for v in row] for row in S]})
            return EXIT_OK
        print_table(["sim"] + list(model.labels),
                    [[k + 1] + [format_value(float(v)) for v in row] for k, row in enumerate(S)],
                    right=tuple(range(len(model.labels) + 1)))
        return EXIT_OK
    if "networks" not in model.simulation_outputs:     # count-valued: graphs with values
        return _print_valued_draws(args, model, params, head)
    nets = model.simulate(params, n=args.n, burnin=args.burnin, interval=args.interval,
                          output="networks", random_state=args.seed)
    if args.json:
        emit_json({**head, "networks": [
            {"n_edges": int(x.n_ties),
             "edges": [[_json_label(x.labels[i]), _json_label(x.labels[j])] for i, j in x.ties]}
            for x in nets]})
        return EXIT_OK
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["sim", "tail", "head"])
    for k, x in enumerate(nets):
        for i, j in x.ties:
            w.writerow([k + 1, x.labels[i], x.labels[j]])
    return EXIT_OK


def _print_valued_draws(args, model, params, head):
    """``simulate --output edgelist`` of a count-valued model: its nonzero dyads and values."""
    graphs = model.simulate(params, n=args.n, burnin=args.burnin, interval=args.interval,
                            output="graphs", random_state=args.seed)
    resp = model.response
    if args.json:
        emit_json({**head, "response": resp, "networks": [
            {"n_edges": g.number_of_edges(),
             "edges": [[_json_label(u), _json_label(v), int(d[resp])]
                       for u, v, d in g.edges(data=True)]} for g in graphs]})
        return EXIT_OK
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["sim", "tail", "head", resp])
    for k, g in enumerate(graphs):
        for u, v, d in g.edges(data=True):
            w.writerow([k + 1, u, v, int(d[resp])])
    return EXIT_OK


def _configure_gof(p):
    _add_model_arguments(p, coef_required=False)
    _add_fit_arguments(p)
    _add_space_arguments(p)
    p.add_argument("--n-sim", dest="n_sim", type=_positive_int, default=100, metavar="N",
                   help="number of simulated networks (default 100)")
    p.add_argument("--burnin", type=_nonnegative_int, default=None, metavar="B",
                   help="MCMC proposals before the first network (default 16 x interval)")
    p.add_argument("--interval", type=_positive_int, default=None, metavar="I",
                   help="MCMC proposals between networks (default 1024)")
    p.add_argument("--statistics", default=None, metavar="GOF",
                   help="which summaries, e.g. \"degree + espartners + dspartners + distance + "
                        "model\" (default: degree, idegree + odegree or, two-mode, b1degree + "
                        "b2degree; espartners, distance, model)")
    p.add_argument("--plot", metavar="FILE",
                   help="also draw statnet's gof figure to FILE (.png, .pdf, .svg; "
                        "needs matplotlib)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (tables and simulations) and nothing else")


def _gof_parameters(args, model):
    """The parameters to check and the fit's MCMC settings (or None).

    With ``--coef`` the parameters are given; otherwise the model is
    fitted with ``--method`` and its estimate and MCMC settings are used.
    """
    if args.coef is not None:
        return _coef_params(args, model), None
    fit = _fit(args, model)
    return list(fit.params), fit.diagnostics.mcmc


def _writable_target(option, path):
    """An output path where a FIFO, a device or a directory is refused before
    any work is done (ergmfit writes regular files only: a save would
    otherwise fail after the fit, or a FIFO block the write)."""
    from .utils.fileio import NotRegularFileError, replaceable_target
    try:
        replaceable_target(path)
    except NotRegularFileError as exc:
        raise ErgmfitError(f"{option} {path!r}: {exc}") from None
    except OSError:
        pass                    # a link loop etc.: the write says what is wrong


def _run_gof(args):
    from .gof import gof
    from .model import ERGM
    net = load_network(args)
    model = _make_model(net, args)
    if args.plot:
        from .plotting import require_matplotlib
        try:
            require_matplotlib()
        except ImportError as exc:
            raise ErgmfitError(str(exc)) from None
        from matplotlib.backend_bases import FigureCanvasBase
        kinds = FigureCanvasBase.get_supported_filetypes()
        ext = os.path.splitext(args.plot)[1].lower().lstrip(".")
        if ext not in kinds:
            raise ErgmfitError(f"--plot {args.plot!r}: unknown figure type {ext or '(none)'!r}; "
                               f"use one of {', '.join(sorted(kinds))}")
        _writable_target("--plot", args.plot)
        folder = os.path.dirname(os.path.abspath(args.plot))
        if not os.path.isdir(folder):        # before the simulations, not after them
            raise ErgmfitError(f"--plot {args.plot!r}: its folder {folder} does not exist")
    params, mcmc = _gof_parameters(args, model)
    res = gof(model, params, n_sim=args.n_sim, burnin=args.burnin, interval=args.interval,
              statistics=args.statistics, random_state=args.seed, mcmc=mcmc)
    if args.plot:
        try:
            res.plot(args.plot)
        except SaveError as exc:
            raise ErgmfitError(str(exc)) from None
        except (OSError, ValueError) as exc:
            raise ErgmfitError(f"cannot write the plot to {args.plot!r}: {exc}") from None
    if args.json:
        d = res.to_dict()
        d["seed"] = args.seed
        if args.plot:
            d["plot"] = args.plot
        emit_json(d)
        return EXIT_OK
    print(res.summary())
    if args.plot:
        print(f"\nPlot written to {args.plot}")
    return EXIT_OK


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    configure: Callable
    run: Callable


def _option_value(text):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


#: the methods of a panel's model (ergmfit.temporal.TemporalERGM.fit)
TEMPORAL_METHODS = ("cmle", "cmple", "btergm")


def _add_fit_arguments(p):
    from .estimation import methods
    from .statnet import resolve_method
    p.add_argument("--method", default="mcmle", choices=methods() + list(TEMPORAL_METHODS),
                   type=resolve_method,
                   help="estimator (default mcmle: MCMC-MLE as statnet; mple: maximum "
                        "pseudo-likelihood; a panel (--wave): cmle, cmple or btergm)")
    p.add_argument("--n-jobs", dest="n_jobs", type=_positive_int, default=None, metavar="N",
                   help="parallel processes for the MCMC chains (estimators that use them)")
    p.add_argument("--set", dest="options", action="append", default=[], metavar="KEY=VALUE",
                   help="an estimator setting, e.g. --set samplesize=2048 (repeatable)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _fit(args, model):
    kwargs = {}
    for item in args.options:
        if "=" not in item:
            raise ErgmfitError(f"--set {item!r}: write KEY=VALUE")
        key, value = item.split("=", 1)
        kwargs[key.strip()] = _option_value(value.strip())
    if args.n_jobs is not None:
        kwargs["n_jobs"] = args.n_jobs
    for key in ("offset_coef", "target_stats"):
        if getattr(args, key, None) is not None:
            kwargs[key] = getattr(args, key)
    try:
        return model.fit(method=args.method, random_state=args.seed,
                         verbose=not args.quiet, **kwargs)
    except TypeError as exc:
        if isinstance(exc, ErgmfitError):   # SettingsError: says which setting
            raise
        raise ErgmfitError(f"--set: {exc}") from None


def _configure_fit(p):
    add_network_arguments(p)
    p.add_argument("formula", metavar="FORMULA",
                   help="model terms, statnet style, e.g. \"edges + gwesp(0.5, fixed=TRUE)\"")
    _add_fit_arguments(p)
    _add_space_arguments(p)
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="random seed (the same seed gives the same fit)")
    p.add_argument("--save", metavar="FILE",
                   help="also save the fit (.json or .npz), after printing it; if the save "
                        "fails the exit status is 3")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (model, method, coef, stderr, loglik, aic, "
                        "bic, converged, seconds, ...) and nothing else")


_FIT_JSON_KEYS = ("model", "method", "n_nodes", "n_edges", "directed", "coef", "stderr",
                  "loglik", "aic", "bic", "converged", "seconds")


def _run_fit(args):
    from .model import ERGM
    net = load_network(args)
    from .results import results_file_extension
    if args.save:
        results_file_extension(args.save)       # a wrong extension is an error before the fit
        _writable_target("--save", args.save)   # so is a FIFO or a device
    model = _make_model(net, args)
    fit = _fit(args, model)
    # the result is shown first: a save that fails cannot take the printed table with it
    if args.json:
        d = fit.to_dict()
        out = {k: d.get(k) for k in _FIT_JSON_KEYS}
        if fit.diagnostics.sample_space:
            out["sample_space"] = fit.diagnostics.sample_space
        emit_json(out)
    else:
        print(fit.summary())
    if args.save:
        sys.stdout.flush()
        try:
            fit.save(args.save)
        except SaveError as exc:
            print(f"ergmfit: error: the fit above was not saved: {_one_line(exc)}",
                  file=sys.stderr)
            return EXIT_SAVE_FAILED
    return EXIT_OK


#: the subcommands, in the order ``ergmfit --help`` lists them
COMMANDS = [
    Command("datasets", "list the bundled datasets", _configure_datasets, _run_datasets),
    Command("terms", "list the model terms", _configure_terms, _run_terms),
    Command("stats", "observed statistics of a network for a formula", _configure_stats,
            _run_stats),
    Command("fit", "fit a model (MCMC-MLE, MPLE, EE, ...) and print statnet's table",
            _configure_fit, _run_fit),
    Command("simulate", "draw networks from a model by MCMC", _configure_simulate,
            _run_simulate),
    Command("gof", "goodness of fit: observed versus simulated degree, shared partner, "
                   "geodesic and model statistics", _configure_gof, _run_gof),
    Command("ego", "egocentric data (egor's CSV layout): population statistics with survey "
                   "s.e., or an ergm.ego fit with --fit", ego_command.configure,
            lambda args: ego_command.run(args, print_table, format_value)),
]


def build_parser() -> argparse.ArgumentParser:
    from .version import __version__
    parser = argparse.ArgumentParser(
        prog="ergmfit",
        description="Exponential random graph models: statistics, fitting, simulation.",
        epilog="`ergmfit COMMAND --help` describes a command.")
    parser.add_argument("--version", action="version", version=f"ergmfit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for cmd in COMMANDS:
        p = sub.add_parser(cmd.name, help=cmd.help, description=cmd.help[:1].upper() + cmd.help[1:])
        cmd.configure(p)
        p.set_defaults(_run=cmd.run)
    return parser


# ---------------------------------------------------------------------------
# entry point
# ---------------------------------------------------------------------------

def _one_line(message) -> str:
    """A message on one line: caret markers dropped, other lines joined."""
    lines = [ln.strip() for ln in str(message).splitlines()]
    lines = [ln for ln in lines if ln and set(ln) != {"^"}]
    return " ".join(lines) if lines else type(message).__name__


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"ergmfit: warning: {_one_line(message)}", file=sys.stderr)


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 error in the input,
    3 the fit was printed but ``--save`` could not write it)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors (argparse printed them)
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    except KeyboardInterrupt:  # Ctrl-C while the arguments are read: no traceback
        print("ergmfit: interrupted", file=sys.stderr)
        return 130
    try:
        return _main(args)
    finally:
        if argv is None:
            # the program (not a call from Python) ends: the output is shown and
            # saved, so a late second Ctrl-C (the first stopped the fit) must not
            # turn a good exit into a KeyboardInterrupt on the way out
            _ignore_sigint()


def _ignore_sigint():
    import signal
    import threading
    if threading.current_thread() is threading.main_thread():
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        except (ValueError, OSError):
            pass


def _main(args) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _show_warning
        try:
            from .runtime import lost_interrupts
            if isinstance(getattr(args, "formula", None), str) and hasattr(args, "data"):
                # statnet's ``net ~ terms``: a left-hand side must name DATA
                from .formula import formula_rhs, network_names
                args.formula = formula_rhs(args.formula, network_names(args.data))
            with lost_interrupts():     # a Ctrl-C lost in a finalizer before the fit is
                return args._run(args)  # raised where the fit's first loop starts
        except (ErgmfitError, ValueError) as exc:
            # ValueError: settings an estimator refuses (e.g. a negative sample size)
            print(f"ergmfit: error: {_one_line(exc)}", file=sys.stderr)
            return EXIT_ERROR
        except (MemoryError, OverflowError) as exc:
            # sizes beyond this machine (e.g. --set samplesize=10^15): no traceback
            what = "out of memory" if isinstance(exc, MemoryError) else "a number too large"
            print(f"ergmfit: error: {what}"
                  + (f": {_one_line(exc)}" if str(exc) else "")
                  + "; use smaller settings or a smaller network", file=sys.stderr)
            return EXIT_ERROR
        except BrokenPipeError:  # e.g. `ergmfit terms | head`
            try:
                sys.stdout = open("/dev/null", "w")  # noqa: SIM115 - silence the flush at exit
            except OSError:
                pass
            return EXIT_OK
        except KeyboardInterrupt:
            print("ergmfit: interrupted", file=sys.stderr)
            return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
