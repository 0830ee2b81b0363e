r"""``lgekit theory capacity``: random labels fitted with a dimension constraint and with a norm penalty.

:func:`verify_capacity` fits random edge labels of a random d-regular graph
at several dimensions D and penalties :math:`\lambda_r` (the discussion after
Theorem 1 and Claim 1, Section 3.1); :func:`capacity_claims` judges it from the
fits alone (so each verdict can be shown to fail, ``tests/test_theory_checks.py``).
"""
import logging
import math

from .._random import check_random_state
from ..theory import fit_signed_pairs, random_labelled_regular_graph, shattering_norm_lower_bound
from .verdict import TheoryReport, Verdict

__all__ = ["verify_capacity", "capacity_claims", "capacity_table"]

logger = logging.getLogger(__name__)


def capacity_table(graph, labels, dims, lam_rs, seed=0, maxiter=2000, verbose=0):
    """Fit every (D, lam_r) combination on one labelled graph.

    Returns
    -------
    list of dict
        One row per fit: ``D``, ``lam_r``, ``train_loss``, ``min_margin``,
        ``frac_margin>1``, ``violated``, ``mean_sq_norm``, ``iters``, ``seconds``.
    """
    pairs = graph.edges()
    rows = []
    for D in dims:
        for lam in lam_rs:
            fit = fit_signed_pairs(pairs, labels, graph.n_nodes, int(D), lam_r=float(lam), maxiter=maxiter,
                                   seed=seed)
            rows.append({
                "D": int(D), "lam_r": float(lam), "train_loss": fit.loss, "min_margin": fit.min_margin,
                "frac_margin>1": fit.frac_margin_gt1, "violated": fit.n_violated,
                "mean_sq_norm": fit.mean_sq_norm, "iters": fit.n_iter, "seconds": fit.seconds,
            })
            logger.info("capacity D=%d lam_r=%g: loss %.3g, min margin %.3g", D, lam, fit.loss, fit.min_margin)
    return rows


def capacity_claims(rows, d, threshold, n_edges=None, max_loss_change=0.05):
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
    return claims


def verify_capacity(quick=False, seed=0, verbose=0):
    """Random labels on a random d-regular graph: dimension vs norm as capacity control.

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
        not D, bounds the norm]; rejects a loss that still falls with D).
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
    report = TheoryReport(name="capacity")
    report.add_table(
        f"Random +-1 labels on a random {d}-regular graph (n={n}, m={graph.n_edges}); "
        f"mean logistic loss + lam_r * mean ||x||^2, full-batch L-BFGS", rows)
    report.notes.append(
        f"Any embedding with every margin > 1 has mean ||x||^2 >= d / lambda_max(A_y) = {lower:.3f} "
        f"(shattering_norm_lower_bound), so for lam_r >= ln2 / {lower:.3f} = {threshold:.3f} the zero "
        f"embedding (objective ln 2) beats every memorising one, at any D. Sign accuracy is not reported: "
        f"shrinking keeps signs.")
    for claim in capacity_claims(rows, d, threshold, n_edges=graph.n_edges):
        report.claims.append(claim)
    by = {(r["D"], r["lam_r"]): r for r in rows}
    report.data.update(rows=rows, n=n, d=d, lower_bound=lower, threshold=threshold)

    def plot(fig):
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

    report.plot = plot
    return report
