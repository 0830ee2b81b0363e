r"""``lgekit theory shattering``: Claim 1 (Section 3.1) by construction, its tight case, and the norm it needs.

:func:`measure_shattering` runs Claim 1's construction on random and
adversarial d-regular graphs and on :math:`K_{d+1}`;
:func:`shattering_claims` judges it from the measurements alone (so each
verdict can be shown to fail, ``tests/test_theory_checks.py``).
:func:`plot` draws the measurements, and
:func:`verify_shattering` runs the three in turn: measure, claims, tables and
notes, plot.
"""
import functools
import time

import numpy as np

from .._random import check_random_state
from ..graph import Graph
from ..theory import (
    ShatteringError,
    adversarial_regular_graphs,
    check_shattering,
    polish_shattering,
    random_labelled_regular_graph,
    shattering_embedding,
    shattering_norm_lower_bound,
)
from ..theory.reassembly import shattering_lower_bound_by_hand
from .verdict import TheoryReport, Verdict, agreement_verdict

__all__ = ["verify_shattering", "measure_shattering", "shattering_claims", "plot", "adversarial_labellings"]

#: relative agreement of the lower bound with its second path: ARPACK's (tol 1e-8) top eigenvalue vs a dense one
LOWER_BOUND_AGREEMENT = 1e-6


def shattering_claims(rows, adversarial, tight_rows, max_polished_ratio=3.0, max_flat_change=0.25):
    r"""The verdicts of :func:`verify_shattering` from its measurements (no computation of its own).

    Separate from the measurement so that each verdict can be shown to fail
    on an input that must fail (``tests/test_theory_checks.py``).

    Parameters
    ----------
    rows : list of dict
        One per random regular graph (``"d"`` its degree, ``"dim"`` the
        embedding's dimension, ``"n"``, ``"edges"``,
        ``"violated"``, ``"min margin"``, ``"mean ||x||^2"``, ``"lower bd (these labels)"``,
        ``"polished violated"``, ``"polished median"``, ``"polished median/lower"``).
    adversarial : list of dict
        One per (graph, labelling, seed): ``"graph"``, ``"labels"``, ``"d"``
        (the degree), ``"dim"`` (the embedding's dimension, 0 after a
        ShatteringError), ``"failed"`` (violated margins or a
        ShatteringError), ``"min margin"``.
    tight_rows : list of dict
        ``"d"``, ``"dim d: violated"``, ``"dim d: dim"`` (the dimension of
        the embedding asked for in d dimensions), ``"dim d-1 fails"``, and
        ``"dim d-1: constraints"``: the equations of the system the
        construction in d - 1 dimensions stopped at (the ShatteringError's
        ``n_constraints``; 0 when it refused before placing a vertex).
        Each random-graph row also carries ``"lower bd by hand"``, the
        lower bound's second path.

    Returns
    -------
    list of Verdict
    """
    claims = []
    # Claim 1 is about dimension d = the degree: an embedding in more dimensions (the construction padded with
    # zeros, or a generic solver in D > d) shatters too, and proves nothing about d
    too_wide = [(r["n"], r["d"], r["dim"]) for r in rows if r["dim"] > r["d"]]
    claims.append(Verdict.check(
        "claim1-random-labels", bool(rows) and all(r["violated"] == 0 for r in rows) and not too_wide,
        f"{len(rows)} random regular graphs, {sum(r['edges'] for r in rows)} edges: violated "
        f"{sum(r['violated'] for r in rows)}, min margin {min(r['min margin'] for r in rows):.6f}; embedding "
        f"dimension / degree at most {max(r['dim'] / r['d'] for r in rows):.2f} (threshold 1)"
        + (f"; more dimensions than the degree at (n, d, dim) = {too_wide[:4]}" if too_wide else "") if rows
        else "no graphs"))
    failed = [a for a in adversarial if a["failed"] or a["dim"] > a["d"]]
    by_graph = sorted({a["graph"] for a in adversarial})
    claims.append(Verdict.check(
        "claim1-adversarial", bool(adversarial) and not failed,
        f"{len(adversarial)} (graph, labelling, seed) cases on {', '.join(by_graph)} with all +1, all -1, "
        f"alternating and random labels, in dimension <= the degree: failed {len(failed)}"
        + (f", e.g. {[(a['graph'], a['labels'], a['dim'], a['d']) for a in failed[:4]]}" if failed else "")))
    # the construction in d - 1 dimensions must get to the last vertex of K_{d+1}, whose d placed neighbours are more
    # equations than d - 1 unknowns can meet (a refusal before any vertex is placed proves nothing)
    refused = [r["d"] for r in tight_rows if r.get("dim d-1: constraints", 0) != r["d"]]
    tight_ok = bool(tight_rows) and not refused and all(r["dim d: violated"] == 0 and r["dim d: dim"] <= r["d"]
                                                        and r["dim d-1 fails"] for r in tight_rows)
    claims.append(Verdict.check(
        "tight-case-K_{d+1}", tight_ok,
        f"d = {tight_rows[0]['d']}..{tight_rows[-1]['d']}: violated in d dims "
        f"{sum(r['dim d: violated'] for r in tight_rows)} (largest dimension used / d "
        f"{max(r['dim d: dim'] / r['d'] for r in tight_rows):.2f}); fails in d-1 dims: "
        f"{all(r['dim d-1 fails'] for r in tight_rows)}, at the system of the last vertex (d equations) "
        + ("every time" if not refused else f"not at d = {refused[:4]} (refused before it got there)")
        if tight_rows else "no rows"))
    claims.append(agreement_verdict("lower-bound-computed-twice", [
        ("norm lower bound", f"n={r['n']}, d={r['d']}", r["lower bd (these labels)"], r.get("lower bd by hand", float("nan")),
         LOWER_BOUND_AGREEMENT * abs(r.get("lower bd by hand", 0.0))) for r in rows]))
    claims.append(Verdict.check(
        "norm-lower-bound-consistent",
        bool(rows) and all(r["mean ||x||^2"] >= r["lower bd (these labels)"] * (1 - 1e-9) for r in rows),
        f"min over graphs of mean ||x||^2 / lower bound = "
        f"{min(r['mean ||x||^2'] / r['lower bd (these labels)'] for r in rows):.3f} (threshold 1)" if rows
        else "no graphs"))
    claims.append(Verdict.check(
        f"polished-norm-within-{max_polished_ratio:g}x-of-lower-bound",
        bool(rows) and all(r["polished violated"] == 0 and r["polished median/lower"] <= max_polished_ratio
                           for r in rows),
        f"polished median ||x||^2 / lower bound in [{min(r['polished median/lower'] for r in rows):.2f}, "
        f"{max(r['polished median/lower'] for r in rows):.2f}] (threshold {max_polished_ratio:g}); polished "
        f"violations {sum(r['polished violated'] for r in rows)}" if rows else "no graphs"))
    flat = []
    for d in sorted({r["d"] for r in rows}):
        sub = [r for r in rows if r["d"] == d]
        if len(sub) >= 2:
            flat.append((d, sub[0]["polished median"], sub[-1]["polished median"], sub[0]["n"], sub[-1]["n"]))
    claims.append(Verdict.check(
        "polished-norm-flat-in-n", bool(flat) and all(abs(b / a - 1) <= max_flat_change for _, a, b, _, _ in flat),
        "polished median: " + "; ".join(f"d={d}: {a:.2f} (n={n0}) -> {b:.2f} (n={n1})" for d, a, b, n0, n1 in flat)
        + f" (threshold {max_flat_change:.0%} change)"))
    return claims


def adversarial_labellings(m, n_random, rng):
    """The labellings of an adversarial graph's m edges Claim 1 is tried on: ``[(name, int8 labels), ...]``.

    All +1, all -1, alternating (+1 on the even edges of ``graph.edges()``, -1 on the odd ones) and
    ``n_random`` uniform random ones drawn from ``rng``, in that order.
    """
    labellings = [("all +1", np.ones(m, np.int8)), ("all -1", -np.ones(m, np.int8)),
                  ("alternating", np.where(np.arange(m) % 2 == 0, 1, -1).astype(np.int8))]
    labellings += [(f"random {i}", rng.choice(np.array([-1, 1], np.int8), size=m)) for i in range(n_random)]
    return labellings


def measure_shattering(quick=False, seed=0, eps=0.1, polish_sweeps=4, verbose=0):
    """The constructions of :func:`verify_shattering`: the data its claims judge and its figure draws.

    Parameters
    ----------
    quick, seed, eps, polish_sweeps, verbose :
        As for :func:`verify_shattering`.

    Returns
    -------
    dict
        ``ds`` (the degrees), ``eps``, ``n_random_labels`` and ``n_seeds`` (of the adversarial graphs),
        ``rows`` (one per random regular graph), ``adversarial`` (one per adversarial case),
        ``adv_rows`` (one per adversarial graph) and ``tight_rows`` (one per :math:`K_{d+1}`): what
        :func:`shattering_claims` reads.
    """
    rng = check_random_state(seed, "seed")
    if quick:
        ds, ns, n_random_labels, n_seeds = [3, 6, 10], [100, 300, 1000], 5, 3
    else:
        ds, ns, n_random_labels, n_seeds = [3, 5, 10, 20], [100, 300, 1000, 3000, 10000], 20, 10
    rows = []
    for d in ds:
        for n in ns:
            if n <= d or (n * d) % 2:
                continue
            graph, y = random_labelled_regular_graph(n, d, seed=rng)
            degree = int(graph.degrees.max())
            t0 = time.perf_counter()
            X = shattering_embedding(graph, y, eps=eps, seed=rng)
            secs = time.perf_counter() - t0
            chk = check_shattering(graph, y, X)
            lb = shattering_norm_lower_bound(graph, y)
            Xp = polish_shattering(graph, y, X, eps=eps, sweeps=polish_sweeps, seed=rng)
            pol = check_shattering(graph, y, Xp)
            rows.append({
                "d": degree, "dim": int(X.shape[1]), "n": n, "edges": chk.n_edges, "violated": chk.n_violated, "min margin": chk.min_margin,
                "median ||x||^2": chk.median_sq_norm, "mean ||x||^2": chk.mean_sq_norm,
                "max ||x||^2": chk.max_sq_norm, "polished violated": pol.n_violated,
                "polished median": pol.median_sq_norm, "polished mean": pol.mean_sq_norm,
                "polished max": pol.max_sq_norm, "lower bd (these labels)": lb,
                "polished median/lower": pol.median_sq_norm / lb,
                "lower bd (all -1)": shattering_norm_lower_bound(graph, -1), "seconds": secs,
                "lower bd by hand": shattering_lower_bound_by_hand(graph.edges(), y, graph.n_nodes),
            })
    adversarial = []
    adv_rows = []
    for name, graph in adversarial_regular_graphs():
        m = graph.n_edges
        labellings = adversarial_labellings(m, n_random_labels, rng)
        n_fail, worst = 0, float("inf")
        for lab_name, lab in labellings:
            for _ in range(n_seeds):
                try:
                    X = shattering_embedding(graph, lab, eps=eps, seed=rng)
                    chk = check_shattering(graph, lab, X)
                    failed, margin, dim = chk.n_violated > 0, chk.min_margin, int(X.shape[1])
                except ShatteringError:
                    failed, margin, dim = True, float("nan"), 0
                adversarial.append({"graph": name, "labels": lab_name, "d": int(graph.degrees.max()), "dim": dim,
                                    "failed": failed, "min margin": margin})
                n_fail += failed
                worst = min(worst, margin) if margin == margin else worst
        adv_rows.append({"graph": name, "n": graph.n_nodes, "d": int(graph.degrees[0]), "edges": m,
                         "cases": len(labellings) * n_seeds, "failed": n_fail, "min margin": worst})
    tight_rows = []
    for d in range(2, 9):
        g = Graph.from_edges(np.array([(i, j) for i in range(d + 1) for j in range(i + 1, d + 1)]),
                             nodes=d + 1)
        X = shattering_embedding(g, -1, eps=eps, seed=rng)
        chk = check_shattering(g, -1, X)
        try:
            shattering_embedding(g, -1, eps=eps, seed=rng, dim=d - 1)
            fails, constraints = False, 0
        except ShatteringError as exc:
            fails, constraints = True, int(exc.n_constraints)
        tight_rows.append({"d": d, "dim d: violated": chk.n_violated, "dim d: dim": int(X.shape[1]),
                           "dim d: mean ||x||^2": chk.mean_sq_norm,
                           "lower bound": shattering_norm_lower_bound(g, -1) * (1 + eps),
                           "dim d-1 fails": fails, "dim d-1: constraints": constraints})
    return {"ds": ds, "eps": eps, "n_random_labels": n_random_labels, "n_seeds": n_seeds, "rows": rows,
            "adversarial": adversarial, "adv_rows": adv_rows, "tight_rows": tight_rows}


def plot(fig, measured):
    """Draw :func:`verify_shattering`'s figure from :func:`measure_shattering`'s data on a matplotlib Figure."""
    ds, rows, tight_rows = measured["ds"], measured["rows"], measured["tight_rows"]
    ax1, ax2 = fig.subplots(1, 2)
    for d in ds:
        sub = [r for r in rows if r["d"] == d]
        line, = ax1.plot([r["n"] for r in sub], [r["mean ||x||^2"] for r in sub], "o-", label=f"d={d}")
        ax1.plot([r["n"] for r in sub], [r["polished median"] for r in sub], "s-.", color=line.get_color(), lw=1)
        ax1.plot([r["n"] for r in sub], [r["lower bd (these labels)"] for r in sub], "--",
                 color=line.get_color(), lw=1)
        ax1.plot([r["n"] for r in sub], [r["max ||x||^2"] for r in sub], ":", color=line.get_color(), lw=1)
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xlabel("n")
    ax1.set_ylabel("squared norm")
    ax1.set_title("construction mean (solid) and max (dotted), polished median (dash-dot);\n"
                  "lower bound on the mean for any shattering embedding (dashed)", fontsize=9)
    ax1.legend(fontsize=8)
    ax2.plot([r["d"] for r in tight_rows], [r["dim d: mean ||x||^2"] for r in tight_rows], "o-",
             label="construction, dim d")
    ax2.plot([r["d"] for r in tight_rows], [r["lower bound"] for r in tight_rows], "k--", lw=1,
             label="lower bound (1+eps) d")
    ax2.set_xlabel("d")
    ax2.set_ylabel("mean ||x||^2")
    ax2.set_title("tight case K_{d+1}, all labels -1: impossible in d-1 dims", fontsize=9)
    ax2.legend(fontsize=8)


def verify_shattering(quick=False, seed=0, eps=0.1, polish_sweeps=4, verbose=0):
    r"""Claim 1 by construction on random and adversarial d-regular graphs, the tight case, and the norms it needs.

    Parameters
    ----------
    quick : bool
        d in {3, 6, 10}, n in {100, 300, 1000}, 5 random labellings per
        adversarial graph; otherwise d in {3, 5, 10, 20}, n in {100, 300,
        1000, 3000, 10000}, 20 random labellings.
    seed : int
    eps : float, default 0.1
        Margins are at least 1 + eps (:func:`~lgekit.theory.shattering_embedding`).
    polish_sweeps : int, default 4
        Sweeps of :func:`~lgekit.theory.polish_shattering` applied to each construction.

    Returns
    -------
    TheoryReport
        Claims (Section 3.1, Claim 1), judged by :func:`shattering_claims`:

        * ``claim1-random-labels``: every edge of every random regular graph
          has :math:`y\,x_a^\top x_b > 1` under uniform random labels, and
          the embedding has at most d columns, d the graph's degree
          (threshold: zero violated edges, dimension / degree <= 1).  The
          dimension is the whole of Claim 1: it rejects the construction
          padded with zeros to 2d (still shattering) and a solver that
          shatters in D > d.
        * ``claim1-adversarial``: the same, with zero failures (violated
          margin, singular system or more columns than the degree), on every graph of
          :func:`~lgekit.theory.adversarial_regular_graphs` with all +1, all -1, alternating
          and random labels, over several seeds.
        * ``tight-case-K_{d+1}``: :math:`K_{d+1}` with all labels -1 is
          realised in (at most) d dimensions and the construction fails in d - 1 (no
          d+1 pairwise-obtuse vectors fit in :math:`\mathbb R^{d-1}`), at the
          system of the last vertex: its d placed neighbours, d equations in
          d - 1 unknowns (the ShatteringError's ``n_constraints``); rejects
          a construction that ignores its ``dim`` or pads, and a guard that
          refuses dim < d before placing any vertex (a refusal is not a
          construction that failed).
        * ``lower-bound-computed-twice``: every graph's
          :func:`~lgekit.theory.shattering_norm_lower_bound` equals its second
          path (:func:`~lgekit.theory.reassembly.shattering_lower_bound_by_hand`,
          a dense eigensolver on the signed adjacency built from the edge list)
          to 1e-6 relative [ARPACK's tolerance 1e-8]; rejects a bound 0.75 or
          1.3 times the right one, which the 3x ratio below caught only barely
          or not at all.
        * ``norm-lower-bound-consistent``: the construction's mean squared
          norm is never below :func:`~lgekit.theory.shattering_norm_lower_bound` (a theorem;
          a FAIL means a bug).  Rejects a lower bound computed too large (or
          norms too small), e.g. half the bound.
        * ``polished-norm-within-3x-of-lower-bound``: after
          ``polish_sweeps`` sweeps of :func:`~lgekit.theory.polish_shattering`, every margin
          is still > 1 and the *median* squared norm is at most 3 times the
          lower bound on the mean.  The raw construction spends about
          :math:`(1+\epsilon)d` per vertex, more in the mean: vertices whose
          system has :math:`k = d-1` rows in d dimensions have a smallest
          singular value with a quadratic tail near 0, so their squared norms
          have a :math:`1/T` tail.  Polishing removes most of that tail but
          a rare vertex can stay large, hence the median.  The lower bound
          (:math:`\approx\sqrt d/2` here) is then within a factor ~2 for a
          typical vertex: the norm needed to shatter grows like
          :math:`\sqrt d`, not with n.  Rejects a polished median 3.5 times
          the bound, and a polish that breaks a margin.
        * ``polished-norm-flat-in-n``: at each d the polished median at the
          largest n is within 25 % of that at the smallest n [changes of 2-12 %
          at seed 0, quick; the claim is that the norm needed does not
          grow with n].  Rejects a median that doubles with n.
    """
    measured = measure_shattering(quick=quick, seed=seed, eps=eps, polish_sweeps=polish_sweeps, verbose=verbose)
    rows, adversarial, adv_rows, tight_rows = (measured["rows"], measured["adversarial"], measured["adv_rows"],
                                               measured["tight_rows"])
    n_random_labels, n_seeds = measured["n_random_labels"], measured["n_seeds"]
    report = TheoryReport(name="shattering")
    report.add_table(f"Claim 1 construction on random d-regular graphs, uniform random edge labels "
                     f"(margins drawn in [1+eps, 1+2eps], eps = {eps:g})", rows)
    report.add_table(f"Claim 1 on adversarial regular graphs: all +1, all -1, alternating and "
                     f"{n_random_labels} random labellings, {n_seeds} seeds each", adv_rows)
    report.add_table("Tight case: K_{d+1}, every label -1 (lower bound scaled to margin 1+eps)", tight_rows)
    report.notes.append(
        "Lower bound (shattering_norm_lower_bound): margins > 1 on every edge force mean ||x||^2 > "
        "d / lambda_max(A_y), A_y the signed adjacency matrix (|E| < sum_e y_e x_a.x_b <= lambda_max ||X||_F^2 / 2). "
        "A norm constraint below it forbids the labelling in ANY dimension. The construction spends about "
        "(1+eps) d per vertex (the regular simplex's length, near-optimal on K_{d+1}); polished, about twice the bound "
        "on "
        "random regular graphs with random labels, where the bound is ~ sqrt(d)/2.")
    for claim in shattering_claims(rows, adversarial, tight_rows):
        report.claims.append(claim)
    report.data.update(rows=rows, tight=tight_rows, adversarial=adversarial)
    report.plot = functools.partial(plot, measured=measured)
    return report
