r"""``lgekit theory capacity``: random labels fitted with a dimension constraint and with a norm penalty.

:func:`measure_capacity` fits random edge labels of a random d-regular graph
at several dimensions D and penalties :math:`\lambda_r` (the discussion after
Theorem 1 and Claim 1, Section 3.1); :func:`capacity_claims` judges it from the
fits alone (so each verdict can be shown to fail, ``tests/test_theory_checks.py``);
:func:`plot` draws them.  :func:`verify_capacity` runs the three and writes the
report: measure, claims, tables and notes, plot.
"""
import functools
import logging
import math

import numpy as np

from .._random import check_random_state
from ..theory import fit_signed_pairs, random_labelled_regular_graph, shattering_norm_lower_bound
from ..theory.reassembly import second_path_seed, shattering_lower_bound_by_hand, signed_fit_by_hand
from .verdict import TheoryReport, Verdict, agreement_verdict

__all__ = ["verify_capacity", "measure_capacity", "capacity_claims", "plot", "capacity_table", "capacity_comparisons"]

#: relative tolerance of a number both paths compute without Monte Carlo error (float sums in another order)
EXACT = 1e-9
#: the columns of the fits' table (the rows also keep each fit's embedding, for the second path)
COLUMNS = ["D", "lam_r", "train_loss", "objective", "min_margin", "frac_margin>1", "violated", "mean_sq_norm",
           "iters", "seconds"]

logger = logging.getLogger(__name__)


def capacity_table(graph, labels, dims, lam_rs, seed=0, maxiter=2000, verbose=0):
    """Fit every (D, lam_r) combination on one labelled graph.

    Returns
    -------
    list of dict
        One row per fit: ``D``, ``lam_r``, ``train_loss``, ``objective``, ``min_margin``,
        ``frac_margin>1``, ``violated``, ``mean_sq_norm``, ``iters``, ``seconds``, and
        ``embedding`` (the fitted X, for the second path).
    """
    pairs = graph.edges()
    rows = []
    for D in dims:
        for lam in lam_rs:
            fit = fit_signed_pairs(pairs, labels, graph.n_nodes, int(D), lam_r=float(lam), maxiter=maxiter,
                                   seed=seed)
            rows.append({
                "D": int(D), "lam_r": float(lam), "train_loss": fit.loss, "objective": fit.objective,
                "min_margin": fit.min_margin, "frac_margin>1": fit.frac_margin_gt1, "violated": fit.n_violated,
                "mean_sq_norm": fit.mean_sq_norm, "iters": fit.n_iter, "seconds": fit.seconds,
                "embedding": fit.embedding,
            })
            logger.info("capacity D=%d lam_r=%g: loss %.3g, min margin %.3g", D, lam, fit.loss, fit.min_margin)
    return rows


def capacity_comparisons(rows, lower, threshold, hand):
    r"""Every number the verdicts of :func:`capacity_claims` rest on, paired with its second path.

    Parameters
    ----------
    rows : list of dict
        :func:`capacity_table`'s rows.
    lower, threshold : float
        The check's norm lower bound L and its threshold :math:`\ln 2 / L`.
    hand : dict
        ``"rows"``: (D, lam_r) -> :func:`~lgekit.theory.reassembly.signed_fit_by_hand` of the row's
        embedding against the true labels; ``"lower"``: :func:`~lgekit.theory.reassembly.shattering_lower_bound_by_hand`.

    Returns
    -------
    list of (term, where, check's number, second path's number, tolerance)
        Every number is computed exactly on both paths: 1e-9 relative.
    """
    out = []
    nan = float("nan")
    h_lower = hand.get("lower", nan)
    out.append(("norm lower bound L", "the graph", lower, h_lower, EXACT * max(1.0, abs(h_lower))))
    out.append(("threshold ln2/L", "the graph", threshold, math.log(2.0) / h_lower if h_lower else nan,
                EXACT * max(1.0, abs(threshold))))
    for r in rows:
        where = f"D={r['D']}, lam_r={r['lam_r']:g}"
        h = hand.get("rows", {}).get((r["D"], r["lam_r"]))
        if h is None:
            out.append(("train_loss", where, r["train_loss"], nan, 0.0))
            continue
        for term, key in (("train_loss", "loss"), ("objective", "objective"), ("mean_sq_norm", "mean_sq_norm"),
                          ("min_margin", "min_margin"), ("violated", "violated"), ("frac_margin>1", "frac_margin>1")):
            out.append((term, where, r[term], h[key], EXACT * max(1.0, abs(h[key]))))
    return out


def _permutation_claim(rows, d, hand, n_edges):
    """``labels-decide-the-fit``: the memorising fits meet every true label, and a permutation of them by chance only."""
    big = max((r["D"] for r in rows), default=None)
    keys = [(D, 0.0) for D in sorted({d, big}) if D is not None and (D, 0.0) in hand.get("rows", {})]
    if not keys:
        return Verdict.check("labels-decide-the-fit", False, "no memorising fit computed twice")
    parts, bad = [], []
    for key in keys:
        h = hand["rows"][key]
        # a permutation keeps the labels' counts: a memorised fit matches a permuted label with probability
        # p^2 + (1 - p)^2 (p the share of +1), with a standard deviation below 1 / (2 sqrt(m)); five of them
        p, m = h["share +1"], h["edges"]
        chance = p * p + (1 - p) ** 2 + 5 / (2 * math.sqrt(m))
        ok = h["frac_margin>1"] == 1.0 and h["permuted frac_margin>1"] <= chance
        bad += [] if ok else [key]
        parts.append(f"D={key[0]}: margins > 1 on {h['frac_margin>1']:.3f} of the true labels, on "
                     f"{h['permuted frac_margin>1']:.3f} of a permutation of them (chance <= {chance:.3f})")
    return Verdict.check("labels-decide-the-fit", not bad, "lam_r=0, recomputed from the embedding: " + "; ".join(parts)
                         + (f"; failed at {bad}" if bad else ""))


def capacity_claims(rows, d, threshold, n_edges=None, max_loss_change=0.05, hand=None, lower=None):
    r"""The verdicts of :func:`verify_capacity` from its fits (no computation of its own).

    Separate from the measurement so that each verdict can be shown to fail
    on an input that must fail (``tests/test_theory_checks.py``).

    Parameters
    ----------
    rows : list of dict
        :func:`capacity_table` rows (``"D"``, ``"lam_r"``, ``"train_loss"``,
        ``"violated"``, ``"min_margin"``, ``"frac_margin>1"``); must contain
        D = d and lam_r = 0.
    d : int
        The degree.
    threshold : float
        :math:`\ln 2 / L`, the provable penalty above which memorising loses.
    n_edges : int, optional
        For the messages.
    max_loss_change : float, default 0.05
    hand : dict, optional
        The second path (:func:`capacity_comparisons`); without it ``assembled-twice-agrees`` and
        ``labels-decide-the-fit`` FAIL.
    lower : float, optional
        The norm lower bound L the threshold came from (default ``ln 2 / threshold``).

    Returns
    -------
    list of Verdict
        The thresholds are those listed in :func:`verify_capacity`.
    """
    by = {(r["D"], r["lam_r"]): r for r in rows}
    dims = sorted({r["D"] for r in rows})
    lams = sorted({r["lam_r"] for r in rows})
    claims = []
    r0 = by.get((d, 0.0))
    claims.append(Verdict.check(
        "dimension-d-memorises", r0 is not None and r0["violated"] == 0 and r0["train_loss"] < 1e-3,
        f"D=d={d}, lam_r=0: train loss {r0['train_loss']:.2e} (threshold 1e-3), min margin {r0['min_margin']:.3g}, "
        f"{r0['violated']} of {n_edges} margins <= 1" if r0 else f"no fit at D=d={d}, lam_r=0"))
    big = dims[-1]
    rb = by.get((big, 0.0))
    claims.append(Verdict.check(
        "unregularized-large-D-memorises", rb is not None and rb["violated"] == 0,
        f"D={big}, lam_r=0: train loss {rb['train_loss']:.2e}, min margin {rb['min_margin']:.3g}" if rb
        else f"no fit at D={big}, lam_r=0"))
    strong = [lam for lam in lams if lam >= threshold]
    bad = [by[(big, lam)] for lam in strong]
    claims.append(Verdict.check(
        "norm-penalty-prevents-memorisation",
        bool(strong) and all(r["violated"] > 0 and r["train_loss"] >= 0.1 for r in bad),
        f"D={big}, lam_r in {strong} (>= threshold {threshold:.3f}; needs some margin <= 1 and loss >= 0.1): "
        + "; ".join(f"lam_r={r['lam_r']:g}: loss {r['train_loss']:.3f}, frac margin>1 "
                    f"{r['frac_margin>1']:.3f}, min margin {r['min_margin']:.3g}" for r in bad)))
    pos = [lam for lam in lams if lam > 0]
    if len(dims) >= 2 and pos:
        ref_D = dims[-2]
        diffs = [abs(by[(big, lam)]["train_loss"] - by[(ref_D, lam)]["train_loss"])
                 / max(by[(ref_D, lam)]["train_loss"], 1e-12) for lam in pos]
        claims.append(Verdict.check(
            "penalty-not-dimension-sets-fit", all(x <= max_loss_change for x in diffs),
            ", ".join(f"lam_r={lam:g}: loss D={ref_D} {by[(ref_D, lam)]['train_loss']:.4f} vs D={big} "
                      f"{by[(big, lam)]['train_loss']:.4f}" for lam in pos)
            + f" (threshold {max_loss_change:.0%} relative)"))
    else:
        claims.append(Verdict.check("penalty-not-dimension-sets-fit", False, "needs two dimensions and a lam_r > 0"))
    hand = hand or {}
    lower = math.log(2.0) / threshold if lower is None else lower
    claims.append(agreement_verdict("assembled-twice-agrees", capacity_comparisons(rows, lower, threshold, hand)))
    claims.append(_permutation_claim(rows, d, hand, n_edges))
    return claims


def measure_capacity(quick=False, seed=0, verbose=0):
    r"""The fits of :func:`verify_capacity` and their second path: the data its claims judge and its figure draws.

    Parameters
    ----------
    quick, seed, verbose :
        As for :func:`verify_capacity`.

    Returns
    -------
    dict
        ``n``, ``d``, ``dims``, ``lam_rs`` (the grid), ``graph`` and ``labels`` (the random labelled
        d-regular graph), ``lower_bound`` L (:func:`~lgekit.theory.shattering_norm_lower_bound`),
        ``threshold`` (:math:`\ln 2 / L`), ``rows`` (:func:`capacity_table`) and ``hand`` (the second path,
        as :func:`capacity_comparisons` reads it).
    """
    if quick:
        n, d = 200, 6
        dims = [d // 2, d, 4 * d]
        lams = [0.0, 0.1, 1.0]
        maxiter = 400
    else:
        n, d = 1000, 10
        dims = [d // 2, d, 4 * d, 16 * d]
        lams = [0.0, 0.01, 0.1, 1.0]
        maxiter = 2000
    rng = check_random_state(seed, "seed")
    graph, labels = random_labelled_regular_graph(n, d, seed=rng)
    lower = shattering_norm_lower_bound(graph, labels)
    threshold = math.log(2.0) / lower
    rows = capacity_table(graph, labels, dims, lams, seed=rng, maxiter=maxiter, verbose=verbose)
    # the second path: the objective and margins of every fit recomputed from its embedding and the TRUE labels,
    # a permutation of the labels as control, and the lower bound from a dense eigensolver
    edges = graph.edges()
    control = second_path_seed(rng)
    hand = {"lower": shattering_lower_bound_by_hand(edges, labels, graph.n_nodes), "rows": {}}
    for r in rows:
        h = signed_fit_by_hand(edges, labels, r["embedding"], r["lam_r"], control)
        hand["rows"][(r["D"], r["lam_r"])] = dict(h, edges=len(edges), **{"share +1": float(np.mean(labels > 0))})
    return {"n": n, "d": d, "dims": dims, "lam_rs": lams, "graph": graph, "labels": labels, "lower_bound": lower,
            "threshold": threshold, "rows": rows, "hand": hand}


def plot(fig, measured):
    """Draw :func:`verify_capacity`'s figure from :func:`measure_capacity`'s data on a matplotlib Figure."""
    d, n, dims, lams = measured["d"], measured["n"], measured["dims"], measured["lam_rs"]
    by = {(r["D"], r["lam_r"]): r for r in measured["rows"]}
    ax1, ax2 = fig.subplots(1, 2)
    for lam in lams:
        xs = [D for D in dims]
        ax1.plot(xs, [max(by[(D, lam)]["train_loss"], 1e-12) for D in xs], "o-", label=f"lam_r={lam:g}")
        ax2.plot(xs, [by[(D, lam)]["frac_margin>1"] for D in xs], "o-", label=f"lam_r={lam:g}")
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.axvline(d, color="grey", ls=":", lw=1)
        ax.set_xlabel("embedding dimension D (dotted: D = d)")
    ax1.set_yscale("log")
    ax1.set_ylabel("training loss on random labels")
    ax1.axhline(math.log(2), color="k", ls="--", lw=1, label="ln 2")
    ax2.set_ylabel("fraction of edges with margin > 1")
    ax1.legend(fontsize=8)
    ax1.set_title(f"random {d}-regular graph, n={n}, random labels")
    ax2.set_title("memorisation needs norm, not dimension")


def verify_capacity(quick=False, seed=0, verbose=0):
    r"""Random labels on a random d-regular graph: dimension vs norm as capacity control.

    Parameters
    ----------
    quick : bool
        n = 200, d = 6, D in {d/2, d, 4d}, lam_r in {0, 0.1, 1}, at most 400
        L-BFGS iterations (seconds);
        otherwise n = 1000, d = 10, D in {d/2, d, 4d, 16d}, lam_r in
        {0, 0.01, 0.1, 1}.
    seed : int

    Returns
    -------
    TheoryReport
        Claims (Section 3.1, Claim 1 and the discussion after Theorem 1),
        judged by :func:`capacity_claims`: ``dimension-d-memorises`` (D = d,
        lam_r = 0: all margins > 1 and loss < 1e-3 [Claim 1]; rejects a fit
        that leaves margins <= 1 at D = d),
        ``unregularized-large-D-memorises`` (largest D, lam_r = 0: all
        margins > 1; rejects one violated margin), ``norm-penalty-prevents-memorisation`` (largest D,
        every lam_r >= the provable threshold ln2/L: some margin <= 1 and
        loss >= 0.1 [the zero embedding's objective ln 2 beats every
        memorising one]; FAIL when no lam_r of the grid reaches the threshold;
        rejects a penalty that did nothing, e.g. divided by n twice),
        ``penalty-not-dimension-sets-fit`` (for each lam_r > 0 the loss at the
        largest D is within 5 % of that at the second largest [the penalty,
        not D, bounds the norm]; rejects a loss that still falls with D),
        ``assembled-twice-agrees`` (every fit's loss, objective, mean squared
        norm, smallest margin, violated count and share of margins > 1, and the
        lower bound L with its threshold, equal their second path to 1e-9
        relative: :mod:`lgekit.theory.reassembly` recomputes them from the
        fit's embedding and the TRUE labels, and L from a dense eigensolver;
        rejects a fit that ignores the labels and reports its margins on the
        labels it fitted) and ``labels-decide-the-fit`` (the label-permutation
        control: at lam_r = 0, at D = d and at the largest D, the embedding
        meets every true label with a margin > 1 and a random permutation of
        the labels no better than chance, :math:`p^2 + (1-p)^2 + 5/(2\sqrt m)`
        with p the share of +1 labels [a permutation keeps the labels' counts];
        rejects a fit that ignores the labels and margins counted without
        their sign).
    """
    measured = measure_capacity(quick=quick, seed=seed, verbose=verbose)
    rows, hand, graph = measured["rows"], measured["hand"], measured["graph"]
    n, d, lower, threshold = measured["n"], measured["d"], measured["lower_bound"], measured["threshold"]
    report = TheoryReport(name="capacity")
    report.add_table(
        f"Random +-1 labels on a random {d}-regular graph (n={n}, m={graph.n_edges}); "
        f"mean logistic loss + lam_r * mean ||x||^2, full-batch L-BFGS", rows, COLUMNS)
    report.add_table(
        "Second path (lgekit.theory.reassembly): each fit's loss and margins recomputed from its embedding against "
        "the true labels, and against a random permutation of them (control)",
        [{"D": r["D"], "lam_r": r["lam_r"], "train_loss": r["train_loss"],
          "by hand": hand["rows"][(r["D"], r["lam_r"])]["loss"], "violated": r["violated"],
          "by hand violated": hand["rows"][(r["D"], r["lam_r"])]["violated"],
          "permuted frac_margin>1": hand["rows"][(r["D"], r["lam_r"])]["permuted frac_margin>1"]} for r in rows])
    report.notes.append(
        f"Any embedding with every margin > 1 has mean ||x||^2 >= d / lambda_max(A_y) = {lower:.3f} "
        f"(shattering_norm_lower_bound), so for lam_r >= ln2 / {lower:.3f} = {threshold:.3f} the zero "
        f"embedding (objective ln 2) beats every memorising one, at any D. Sign accuracy is not reported: "
        f"shrinking keeps signs.")
    for claim in capacity_claims(rows, d, threshold, n_edges=graph.n_edges, hand=hand, lower=lower):
        report.claims.append(claim)
    report.data.update(rows=rows, n=n, d=d, lower_bound=lower, threshold=threshold, hand=hand)
    report.plot = functools.partial(plot, measured=measured)
    return report
