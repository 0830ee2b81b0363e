"""The theory checks of Theorem 1: the spectral norm of :math:`A_\\sigma` and the bound itself.

:func:`verify_rademacher` measures :math:`\\mathbb E\\|A_\\sigma\\|_2` on
Erdős–Rényi pairs against the predictions (and footnote 5's conjecture);
:func:`verify_bound` trains embeddings across :math:`\\lambda_r` and puts
Theorem 1's right-hand side (Section 3.1) next to the measured gap.  The
mathematics they compute with is :mod:`lgekit.theory`; each returns a
:class:`~lgekit.experiments.reporting.TheoryReport`, judged by a
``*_claims`` function that only reads measurements (so each verdict can be
shown to fail, ``tests/test_theory_checks.py``).  Every claim's threshold is
stated in the docstring of the function that checks it, with its reason.
"""
import logging
import math
import time

import numpy as np

from .._random import check_random_state
from ..theory.rademacher import (
    PairPattern,
    bandeira_van_handel_estimate,
    bbk_estimate,
    expected_spectral_norm,
    khintchine_bound,
    paper_estimate,
)
from .reporting import TheoryReport, Verdict

__all__ = ["verify_rademacher", "verify_bound", "rademacher_claims", "bound_claims", "fit_log_trend"]

logger = logging.getLogger(__name__)

#: relative growth of ||A||/sqrt(d) over the n-range below which the trend is "flat"
FLAT_GROWTH = 0.05
#: sampled pairs per (n, d) cell that set the number of independent patterns (quick, full)
PAIR_BUDGET = (2_000_000, 8_000_000)
#: at most this many independent patterns per cell
MAX_PATTERNS = 16


def fit_log_trend(ns, values, se=None):
    r"""Least-squares fit ``values ~ a + b ln n`` and the relative growth it implies.

    Parameters
    ----------
    ns, values : array-like
        At least two sizes and the measured values.
    se : array-like, optional
        Standard error of each value, propagated to ``slope_se``.  The fit
        itself stays unweighted: a cell's standard error can be
        underestimated (one pattern gives only the spread between sign
        draws), and weighting would let such a cell dominate.

    Returns
    -------
    dict
        ``slope`` b, ``intercept`` a, ``slope_se`` (propagated from ``se``;
        without it from the residuals, nan with two points), ``growth`` = b
        (ln n_max - ln n_min) / fitted value at n_min: the relative change
        the fit implies across the range, and ``growth_se``, its standard
        error from ``slope_se``.
    """
    x = np.log(np.asarray(ns, dtype=float))
    y = np.asarray(values, dtype=float)
    if x.size < 2 or x.size != y.size:
        raise ValueError(f"need at least two (n, value) points of equal count, got {x.size} and {y.size}")
    A = np.column_stack([np.ones_like(x), x])
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    a, b = float(coef[0]), float(coef[1])
    sxx = float(((x - x.mean()) ** 2).sum())
    if se is not None:
        s = np.asarray(se, dtype=float)
        if s.shape != y.shape or not np.all(np.isfinite(s)) or np.any(s < 0):
            raise ValueError(f"se must hold one non-negative finite standard error per value, got {s!r}")
        # b = sum_i c_i y_i with c_i = (x_i - mean x) / Sxx
        slope_se = math.sqrt(float((((x - x.mean()) / sxx) ** 2 * s ** 2).sum()))
    elif x.size > 2:
        resid = y - A @ coef
        slope_se = math.sqrt(float(resid @ resid) / (x.size - 2) / sxx)
    else:
        slope_se = float("nan")
    base = a + b * x.min()
    span = x.max() - x.min()
    growth = b * span / base if base else float("inf")
    growth_se = slope_se * span / abs(base) if base else float("inf")
    return {"slope": b, "intercept": a, "slope_se": slope_se, "growth": growth, "growth_se": growth_se}


def _regime(d, n):
    ln = math.log(n)
    if d >= 3 * ln:
        return "d>>ln n"
    if d <= ln:
        return "d<=ln n"
    return "between"


def _n_patterns(n, d, quick):
    budget = PAIR_BUDGET[0] if quick else PAIR_BUDGET[1]
    return int(min(MAX_PATTERNS, max(1, budget // max(1, int(n * d)))))


def rademacher_claims(rows, trends):
    r"""The verdicts of :func:`verify_rademacher` from its measurements (no computation of its own).

    Separate from the measurement so that each verdict can be shown to fail
    on an input that must fail (``tests/test_theory_checks.py``).

    Parameters
    ----------
    rows : list of dict
        One per (d, n) cell, with the keys of :func:`verify_rademacher`'s
        table (``"E||A||"``, ``"Khintchine"``, ``"min draw/sqrt(D)"``,
        ``"paper sqrt(m ln n/n)"``, ``"2 sqrt(d)"``, ``"BBK"``, ``"regime"``, ...).
    trends : dict
        d -> :func:`fit_log_trend` result of ``||A||/sqrt(d)`` against n.

    Returns
    -------
    list of Verdict
        The thresholds are those listed in :func:`verify_rademacher`.
    """
    claims = []
    bad = [r for r in rows if r["E||A||"] > r["Khintchine"]]
    claims.append(Verdict.check("khintchine-upper-bound", bool(rows) and not bad,
                        f"max measured/bound = {max(r['E||A||'] / r['Khintchine'] for r in rows):.3f} over "
                        f"{len(rows)} (n, d) cells" + (f"; violated at {[(r['n'], r['d']) for r in bad]}"
                                                       if bad else "") if rows else "no cells"))
    # Lanczos underestimates each draw by at most its tolerance (1e-3 relative), never overestimates
    low = [r for r in rows if r["min draw/sqrt(D)"] < 1 - 1e-3]
    claims.append(Verdict.check("sqrt-max-degree-lower-bound", bool(rows) and not low,
                        f"min over cells of (smallest draw)/sqrt(D_max of its pattern) = "
                        f"{min(r['min draw/sqrt(D)'] for r in rows):.3f} (threshold 1 - 1e-3)" if rows else "no cells"))
    over, ok_over = [], True
    ds = sorted({r["d"] for r in rows})
    for d in ds:
        sub = [r for r in rows if r["d"] == d]
        if len(sub) < 2:
            continue
        first = sub[0]["E||A||"] / sub[0]["paper sqrt(m ln n/n)"]
        last = sub[-1]["E||A||"] / sub[-1]["paper sqrt(m ln n/n)"]
        ok_over &= last < first
        over.append(f"d={d}: {first:.3f} -> {last:.3f}")
    claims.append(Verdict.check("paper-estimate-overestimates", bool(over) and ok_over,
                        "measured / sqrt(m ln n/n) from smallest to largest n: " + ", ".join(over)))
    dense = [r for r in rows if r["regime"] == "d>>ln n"]
    claims.append(Verdict.check(
        "bandeira-van-handel-2sqrt(d)",
        bool(dense) and max(abs(r["E||A||"] / r["2 sqrt(d)"] - 1) for r in dense) <= 0.10,
        f"{len(dense)} cells with d >= 3 ln n: measured/2sqrt(d) in "
        f"[{min(r['E||A||'] / r['2 sqrt(d)'] for r in dense):.3f}, "
        f"{max(r['E||A||'] / r['2 sqrt(d)'] for r in dense):.3f}] (tolerance 10%)" if dense else
        "no cell with d >= 3 ln n"))
    sparse = [r for r in rows if r["regime"] == "d<=ln n"]
    claims.append(Verdict.check(
        "bbk-sparse",
        bool(sparse) and max(abs(r["E||A||"] / r["BBK"] - 1) for r in sparse) <= 0.15,
        f"{len(sparse)} cells with d <= ln n: measured/BBK in "
        f"[{min(r['E||A||'] / r['BBK'] for r in sparse):.3f}, "
        f"{max(r['E||A||'] / r['BBK'] for r in sparse):.3f}] (tolerance 15%); "
        f"measured/sqrt(D_max) in [{min(r['E||A||'] / r['sqrt(D_max)'] for r in sparse):.3f}, "
        f"{max(r['E||A||'] / r['sqrt(D_max)'] for r in sparse):.3f}]" if sparse else "no cell with d <= ln n"))
    if trends:
        dmax, dmin = max(trends), min(trends)
        t_hi, t_lo = trends[dmax], trends[dmin]
        claims.append(Verdict.check(
            "footnote-removable-dense", t_hi["growth"] < FLAT_GROWTH,
            f"d={dmax} (d >> ln n): ||A||/sqrt(d) grows {t_hi['growth']:+.1%} +- {t_hi['growth_se']:.1%} "
            f"across n (slope {t_hi['slope']:+.4f} per ln n), vs < +{FLAT_GROWTH:.0%} for 'flat'"))
        claims.append(Verdict.check(
            "footnote-not-removable-sparse", t_lo["growth"] >= FLAT_GROWTH,
            f"d={dmin} (d = O(1)): ||A||/sqrt(d) grows {t_lo['growth']:+.1%} +- {t_lo['growth_se']:.1%} "
            f"across n (slope {t_lo['slope']:+.4f} per ln n), vs >= +{FLAT_GROWTH:.0%} for 'growing'"))
    else:
        claims.append(Verdict.check("footnote-removable-dense", False, "fewer than two n per d: no trend"))
        claims.append(Verdict.check("footnote-not-removable-sparse", False, "fewer than two n per d: no trend"))
    return claims


def verify_rademacher(quick=False, seed=0, n_draws=None, ns=None, ds=(2, 5, 10, 50), n_threads=1, verbose=0):
    r"""E||A_sigma|| for Erdős–Rényi pairs against the predictions, and the footnote's conjecture.

    For every n in ``ns`` and d in ``ds``: the theorem's bipartite
    :math:`n \times n` matrix with each cell a pair with probability
    :math:`d/n` (mean d pairs per row, :math:`m \approx nd`), and a Monte
    Carlo estimate of :math:`\mathbb E_\sigma\|A_\sigma\|_2` averaged over
    several independent patterns (see ``quick``).

    Parameters
    ----------
    quick : bool
        n up to 1e5 (10-60 s); otherwise n up to 1e6 (about 8 minutes).
    seed : int
    n_draws : int, optional
        Sign draws per pattern when a cell has one pattern (default 2 quick,
        5 full); cells with several patterns use one draw per pattern (the
        spread between sign draws, ~1e-4 relative, is far below the spread
        between patterns).
    ns : sequence of int, optional
    ds : sequence of float, default (2, 5, 10, 50)
    n_threads : int, default 1

    Returns
    -------
    TheoryReport
        Claims (thresholds fixed in advance, reasons in brackets), judged by
        :func:`rademacher_claims`:

        * ``khintchine-upper-bound``: every mean <= the mean of
          :math:`\sqrt{2D\ln 2n}` over the cell's patterns [a theorem,
          Tropp 2015 Thm 4.1.1; a FAIL means a bug].
        * ``sqrt-max-degree-lower-bound``: every draw >= :math:`(1 -
          10^{-3})\sqrt{D}` of its pattern [deterministic: a row of D entries
          +-1 has norm :math:`\sqrt D`; Lanczos may underestimate by its
          tolerance 1e-3].
        * ``paper-estimate-overestimates``: at every d, measured /
          :math:`\sqrt{m\ln n/n}` is smaller at the largest n than at the
          smallest [the :math:`\sqrt{\ln n}` factor outgrows the truth].
        * ``bandeira-van-handel-2sqrt(d)``: for :math:`d \ge 3\ln n`,
          measured within 10 % of :math:`2\sqrt d` [finite-size corrections
          at these n are a few %].
        * ``bbk-sparse``: for :math:`d \le \ln n`, measured within 15 % of
          :math:`\sqrt d\,\Lambda(D/d)` [an asymptotic formula; O(1)
          fluctuations of the maximal degree's neighbourhood].
        * ``footnote-removable-dense`` / ``footnote-not-removable-sparse``
          (the paper's footnote 5 suspects that the :math:`(\ln n)^{0.5}`
          factor of its estimate can be removed): the relative growth of
          :math:`\|A\|/\sqrt d` across the n-range (least squares in
          :math:`\ln n`) is below 5 % at the largest d (flat: the
          :math:`\sqrt{\ln n}` factor is removable when :math:`d \gg \ln n`)
          and at least 5 % at the smallest d (growing: for d = O(1) it is
          not, the norm follows :math:`\sqrt{D_{\max}} \sim \sqrt{\ln n/\ln\ln n}`).
          The paper's factor would grow by 29 % from 1e3 to 1e5 and 41 % to 1e6.

    Notes
    -----
    *Why several patterns per cell.*  For d = O(1) the norm is set by the
    largest degree of the pattern, an integer that fluctuates from pattern
    to pattern: at d = 2 one pattern's :math:`\|A\|/\sqrt d` has a standard
    deviation of about 0.07 (2.8 %) at every n from 1e3 to 1e6, against a
    mean growth of about 8 % from 1e3 to 1e5 (11 % to 1e6).  With one
    pattern per n the fitted growth has a standard error of about 3.6 %
    (quick) and 3.2 % (full), so the 5 % threshold was crossed by chance --
    seed 5 in quick mode measured 3.4 %.  Each cell now averages
    :math:`\min(16, \lfloor\text{budget}/(nd)\rfloor)` independent patterns
    (budget 2e6 pairs quick, 8e6 full): 16 patterns at n <= 3e4 and 10 at
    1e5 for d = 2.  Measured over seeds 0-9 in quick mode: growth 7.0-9.4 %
    (standard error 0.7-1.0 %) at d = 2 and 0.4-0.6 % (0.1 %) at d = 50, so
    the 5 % threshold sits 2-4 standard errors below the smallest sparse
    growth and 40 above the largest dense one; the full runs are further
    still (seeds 0-3: 10.6-13.7 % +- 0.7-1.8 % at d = 2, 0.5 % +- 0.1 % at
    d = 50, every claim passing), and the quick and full verdicts agree
    (``tests/test_rademacher.py`` runs the quick ones for seeds 0-9).  Quick mode takes 10-60 s depending on the load, full mode
    about 8 minutes on a busy two-core machine.
    """
    rng = check_random_state(seed, "seed")
    if ns is None:
        ns = [1000, 3000, 10_000, 30_000, 100_000] if quick else [1000, 3000, 10_000, 30_000, 100_000, 300_000,
                                                                   1_000_000]
    if n_draws is None:
        n_draws = 2 if quick else 5
    ns = [int(n) for n in ns]
    ds = list(ds)
    rows = []
    t_start = time.perf_counter()
    for d in ds:
        for n in ns:
            if d >= n:
                continue
            R = _n_patterns(n, d, quick)
            draws = n_draws if R == 1 else 1
            t0 = time.perf_counter()
            per = []
            for _ in range(R):
                pattern = PairPattern.erdos_renyi(n, d, kind="bipartite", seed=rng)
                est = expected_spectral_norm(pattern, n_draws=draws, seed=rng, n_threads=n_threads, verbose=verbose)
                D, m, dbar = pattern.max_degree, pattern.n_pairs, pattern.mean_degree
                per.append({
                    "E||A||": est.mean, "se": est.std_error, "min ratio": float(est.values.min()) / math.sqrt(D),
                    "D": D, "ratio": est.mean / math.sqrt(dbar), "paper": paper_estimate(m, n),
                    "bvh": bandeira_van_handel_estimate(dbar), "sqrtD": math.sqrt(D), "bbk": bbk_estimate(D, dbar),
                    "khin": khintchine_bound(D, pattern.shape),
                })

            def avg(key):
                return float(np.mean([p[key] for p in per]))

            if R > 1:
                se = float(np.std([p["E||A||"] for p in per], ddof=1) / math.sqrt(R))
                ratio_se = float(np.std([p["ratio"] for p in per], ddof=1) / math.sqrt(R))
            else:
                se = per[0]["se"]
                ratio_se = se / math.sqrt(d)
            rows.append({
                "d": d, "n": n, "ln n": math.log(n), "regime": _regime(d, n), "patterns": R,
                "D_max": avg("D"), "E||A||": avg("E||A||"), "s.e.": se,
                "min draw/sqrt(D)": min(p["min ratio"] for p in per),
                "||A||/sqrt(d)": avg("ratio"), "ratio s.e.": ratio_se,
                "paper sqrt(m ln n/n)": avg("paper"), "2 sqrt(d)": avg("bvh"), "sqrt(D_max)": avg("sqrtD"),
                "BBK": avg("bbk"), "Khintchine": avg("khin"), "seconds": time.perf_counter() - t0,
            })
            logger.info("n=%d d=%g: E||A|| = %.4f +- %.4f over %d patterns (%.1fs)", n, d, rows[-1]["E||A||"], se, R,
                        rows[-1]["seconds"])
    report = TheoryReport(name="rademacher")
    cols = ["d", "n", "regime", "patterns", "D_max", "E||A||", "s.e.", "||A||/sqrt(d)", "paper sqrt(m ln n/n)",
            "2 sqrt(d)", "sqrt(D_max)", "BBK", "Khintchine", "seconds"]
    report.add_table(
        f"E_sigma ||A_sigma||_2 for Erdos-Renyi bipartite pairs (n x n, p = d/n; mean over independent patterns, "
        f"{n_draws} sign draws when a cell has one pattern, else one per pattern; s.e. over patterns; "
        f"D_max and predictions averaged over patterns; Lanczos tol 1e-3)", rows, cols)

    trend_rows = []
    trends = {}
    for d in ds:
        sub = [r for r in rows if r["d"] == d]
        if len(sub) < 2:
            continue
        fit = fit_log_trend([r["n"] for r in sub], [r["||A||/sqrt(d)"] for r in sub],
                            se=[r["ratio s.e."] for r in sub])
        nmin, nmax = sub[0]["n"], sub[-1]["n"]
        paper_growth = math.sqrt(math.log(nmax) / math.log(nmin)) - 1
        verdict = "flat -> removable" if fit["growth"] < FLAT_GROWTH else "growing -> not removable"
        trends[d] = fit
        trend_rows.append({
            "d": d, "n range": f"{nmin:.0e}..{nmax:.0e}", "ratio at n_min": sub[0]["||A||/sqrt(d)"],
            "ratio at n_max": sub[-1]["||A||/sqrt(d)"], "slope per ln n": fit["slope"], "slope s.e.": fit["slope_se"],
            "growth": fit["growth"], "growth s.e.": fit["growth_se"], "sqrt(ln n) growth": paper_growth,
            "regime": "/".join(sorted({r["regime"] for r in sub})), "verdict": verdict,
        })
    report.add_table("Footnote 5: does ||A_sigma||/sqrt(d) grow with n?  (least squares in ln n; "
                     f"'flat' = growth < {FLAT_GROWTH:.0%} across the range)", trend_rows)
    report.notes.append(
        "Meaning of the symbols: m = number of sampled pairs = non-zeros of A_sigma; d = m/n = mean pairs per row "
        "(bipartite); D_max = largest row or column count. Paper (appendix, 'Rough Estimation of ||A_sigma||_2 on "
        "Erdos-Renyi Graph'): sqrt(m ln n / n) = sqrt(d ln n). "
        "Bandeira & van Handel (2016): E||X|| <= (1+e) 2 sqrt(d) + C(e) sqrt(ln n), sharp 2 sqrt(d) for d >> ln n. "
        "Benaych-Georges, Bordenave & Knowles (2017): sqrt(d) Lambda(D_max/d), Lambda(a) = a/sqrt(a-1) (a >= 2), "
        "the max-degree regime d = O(ln n). Khintchine: Tropp (2015) Thm 4.1.1, sqrt(2 D_max ln 2n), a bound "
        "for every fixed pattern.")
    report.notes.append(f"Total time {time.perf_counter() - t_start:.1f} s.")
    for claim in rademacher_claims(rows, trends):
        report.claims.append(claim)
    report.data.update(rows=rows, trends=trends)

    def plot(fig):
        ax1, ax2 = fig.subplots(1, 2)
        for d in ds:
            sub = [r for r in rows if r["d"] == d]
            if not sub:
                continue
            x = [r["n"] for r in sub]
            line, = ax1.plot(x, [r["||A||/sqrt(d)"] for r in sub], "o-", label=f"d={d}")
            ax1.plot(x, [r["BBK"] / math.sqrt(d) for r in sub], "--", color=line.get_color(), lw=1)
            ax2.plot(x, [r["E||A||"] / r["paper sqrt(m ln n/n)"] for r in sub], "o-", color=line.get_color(),
                     label=f"d={d}")
        ax1.axhline(2.0, color="k", ls=":", lw=1, label="2 (Bandeira-van Handel)")
        ax1.set_xscale("log")
        ax1.set_xlabel("n")
        ax1.set_ylabel("E||A_sigma|| / sqrt(d)")
        ax1.set_title("footnote 5: flat for d >> ln n, growing for d = O(1)\n(dashed: BBK sqrt(d) Lambda(D_max/d))",
                      fontsize=9)
        ax1.legend(fontsize=8)
        ax2.set_xscale("log")
        ax2.set_xlabel("n")
        ax2.set_ylabel("E||A_sigma|| / sqrt(m ln n / n)")
        ax2.set_title("measured over the paper's estimate", fontsize=9)
        ax2.legend(fontsize=8)

    report.plot = plot
    return report


def _load_bound_graph(quick, seed, data_home):
    from .. import datasets

    if quick:
        return datasets.load("synthetic-blogcatalog", n_nodes=1000, seed=seed), None
    graph, note = datasets.load_or_synthetic("blogcatalog", seed=seed, data_home=data_home)
    if note:
        logger.warning(note)
    return graph, note


def bound_claims(spectral_rows, rows, planted_rows, degree_tolerance=0.15):
    r"""The verdicts of :func:`verify_bound` from its measurements (no computation of its own).

    Separate from the measurement so that each verdict can be shown to fail
    on an input that must fail (``tests/test_theory_checks.py``).

    Parameters
    ----------
    spectral_rows : list of dict
        One per convention (``"convention"``, ``"value"``, ``"value s.e."``,
        ``"E||A||"``, ``"ER E||A||"``, ``"D_max"``, ``"mean degree"``,
        ``"BBK"``, ``"s*"``), the first the symmetric one.
    rows : list of dict
        One per :math:`\lambda_r` on the graph (``"lam_r"``, ``"diverged"``,
        ``"mean ||x||^2"``, ``"s*"``, ``"test loss"``, ``"bound"``,
        ``"complexity"``, ``"gap"``, ``"trivial loss"``, ``"B"``, ``"vacuous"``).
    planted_rows : list of dict
        :func:`~lgekit.theory.planted.planted_bound_rows`.
    degree_tolerance : float, default 0.15
        Tolerance of ``degrees-set-spectral-norm``.

    Returns
    -------
    list of Verdict
        The thresholds are those listed in :func:`verify_bound`.
    """
    claims = []
    sym = spectral_rows[0]
    others = spectral_rows[1:]
    # the symmetric value is <= every orientation's draw by draw (triangle inequality); between independent
    # Monte Carlo estimates allow 3 combined standard errors plus the solver's one-sided tolerance (1e-3)
    slack = {o["convention"]: 3 * math.hypot(sym["value s.e."], o["value s.e."]) + 1e-3 * o["value"]
             for o in others}
    bad = [o["convention"] for o in others if sym["value"] > o["value"] + slack[o["convention"]]]
    claims.append(Verdict.check(
        "symmetric-A-sigma-smallest", bool(others) and not bad,
        f"E||A_sym||/2 = {sym['value']:.2f} vs " + ", ".join(f"{o['convention']} {o['value']:.2f}" for o in others)
        + (f"; larger than {bad}" if bad else "")))
    ratio = sym["E||A||"] / sym["BBK"]
    claims.append(Verdict.check(
        "degrees-set-spectral-norm", abs(ratio - 1) <= degree_tolerance,
        f"E||A_sym|| {sym['E||A||']:.2f} vs sqrt(d) Lambda(D_max/d) = {sym['BBK']:.2f} from the sample's mean "
        f"degree d = {sym['mean degree']:.1f} and largest degree D_max = {sym['D_max']} (D_max/d = "
        f"{sym['D_max'] / sym['mean degree']:.1f}): ratio {ratio:.3f} (tolerance {degree_tolerance:.0%}); "
        f"Erdos-Renyi at the same n and mean degree {sym['ER E||A||']:.2f}, so the hubs add "
        f"{sym['E||A||'] / sym['ER E||A||'] - 1:+.0%}"))
    ok = [r for r in rows if not r["diverged"]]
    # a clipped loss never exceeds B, so a bound >= B holds whatever the implementation: only rows with
    # bound < B can show a violation
    informative = [("graph", r["lam_r"], r["test loss"], r["bound"]) for r in ok if r["bound"] < r["B"]]
    informative += [(f"planted M={r['M']}", r["lam_r"], r["expected loss"], r["bound"]) for r in planted_rows
                    if r["bound"] < r["B"]]
    violated = [i for i in informative if i[2] > i[3]]
    claims.append(Verdict.check(
        "bound-holds", bool(informative) and not violated,
        (f"{len(informative)} informative (bound < B) rows: held-out/expected loss <= bound"
         + (f"; VIOLATED at {[(i[0], i[1], round(i[2], 4), round(i[3], 4)) for i in violated]}" if violated else "")
         + f"; largest held-out/bound {max(i[2] / i[3] for i in informative):.3f}")
        if informative else "no row has a bound below B: nothing the bound could be caught violating"))
    r0 = next((r for r in ok if r["lam_r"] == 0), None)
    claims.append(Verdict.check(
        "vacuous-without-regularization", r0 is not None and r0["vacuous"],
        f"lam_r=0: bound {r0['bound']:.3f} (complexity {r0['complexity']:.3f}) vs trivial loss "
        f"{r0['trivial loss']:.3f}" if r0 else "lam_r=0 missing or diverged"))
    below = [r for r in ok if r["mean ||x||^2"] < r["s*"]]
    claims.append(Verdict.check(
        "norm-threshold-reached", bool(below),
        (f"s* = {ok[0]['s*']:.3f} (mean ||x||^2 above which the bound is vacuous even at zero training loss); "
         + ", ".join(f"lam_r={r['lam_r']:g}: {r['mean ||x||^2']:.3g}" for r in ok)
         + (f"; below s* from lam_r={below[0]['lam_r']:g}, where the bound is {below[0]['bound']:.3f} "
            f"(train {below[0]['train loss']:.3f} + complexity {below[0]['complexity']:.3f} + confidence "
            f"{below[0]['confidence']:.3f}) vs trivial {below[0]['trivial loss']:.3f}" if below else
            "; no lam_r reaches it")) if ok else "every fit diverged"))
    comp = [r["complexity"] for r in ok]
    claims.append(Verdict.check(
        "complexity-falls-with-lam_r", len(comp) >= 2 and all(b < a for a, b in zip(comp, comp[1:])),
        "complexity along lam_r: " + ", ".join(f"{r['lam_r']:g}: {r['complexity']:.3g}" for r in ok)))
    if r0 is not None and len(ok) >= 2:
        last = ok[-1]
        claims.append(Verdict.check("gap-shrinks-with-lam_r", last["gap"] < r0["gap"],
                            f"measured gap lam_r=0: {r0['gap']:.4f}, lam_r={last['lam_r']:g}: {last['gap']:.4f}"))
    else:
        claims.append(Verdict.check("gap-shrinks-with-lam_r", False, "lam_r=0 or a second lam_r missing or diverged"))
    nonvac = [r for r in planted_rows if not r["vacuous"]]
    if planted_rows:
        Ms = sorted({r["M"] for r in planted_rows})
        at_max = [r for r in planted_rows if r["M"] == Ms[-1] and not r["vacuous"]]
        first = min(nonvac, key=lambda r: (r["M"], r["bound"])) if nonvac else None
        claims.append(Verdict.check(
            "planted-nonvacuous-at-large-m", bool(at_max),
            (f"non-vacuous from M = {first['M']} (M/n = {first['M/n']:g}) at lam_r={first['lam_r']:g}, mean "
             f"||x||^2 {first['mean ||x||^2']:.3f}: bound {first['bound']:.4f} < {first['trivial loss']:.4f}, "
             f"expected loss {first['expected loss']:.4f}" if first else "vacuous at every sample size")
            + f"; vacuous at every lam_r for M <= "
              f"{max([M for M in Ms if all(r['vacuous'] for r in planted_rows if r['M'] == M)], default=0)}"))
    else:
        claims.append(Verdict.check("planted-nonvacuous-at-large-m", False, "no planted rows"))
    return claims


def verify_bound(quick=False, seed=0, lam_rs=None, dim=None, epochs=None, delta=0.05, n_draws=None, data_home=None,
                 lam_pos=1.0, lam_neg=1.0, lr_offset=100.0, B=1.0, convention="symmetric", planted_sizes=None,
                 n_threads=1, verbose=0):
    r"""Theorem 1 on trained embeddings across :math:`\lambda_r`, next to the measured gap, and where it bites.

    Parameters
    ----------
    quick : bool
        A 1000-node synthetic BlogCatalog-shaped graph, D = 32, 15 epochs,
        3 sign draws, planted sample sizes 1e3..1e6 (about a minute);
        otherwise BlogCatalog (synthetic stand-in if the data are absent),
        D = 100, 20 epochs, 5 sign draws, planted sizes 1e3..1e7.
    seed : int
    lam_rs : sequence of float, optional
        Default (0, 1, 3, 10, 30), without 30 when quick: the mean squared
        norm crosses the threshold :math:`s^*` between 3 and 10.
    dim, epochs : int, optional
    delta : float, default 0.05
    n_draws : int, optional
        Sign draws for :math:`E\|A_\sigma\|`.
    data_home : path, optional
        Where to look for BlogCatalog.
    lam_pos, lam_neg : float, default 1 and 1
        The model's loss weights.  The bound is about the unweighted
        logistic loss of Section 3.1 (:math:`\mathcal L_t, \mathcal L_g`), so
        the model is trained on that loss by default (the paper's weights
        1 and 0.03, appendix, leave the negatives nearly unfitted: the unweighted
        training loss at :math:`\lambda_r = 10` is then 0.71 on BlogCatalog,
        above :math:`\ln 2`).
    lr_offset : float, default 100
        :math:`c` of the step :math:`(t + c)^{-1/2}` (Section 3.2 leaves it
        open): with ``lam_neg=1`` the estimator's default :math:`c = 1`
        diverges in the first epoch on BlogCatalog.
    B : float, default 1
        The loss is the logistic loss clipped at B, fixed before seeing the
        data (above the zero embedding's :math:`\ln 2`, so that loss is not
        clipped).
    convention : str, default "symmetric"
        The :math:`A_\sigma` put into the theorem
        (:func:`~lgekit.theory.theorem1_spectral_norm`); every convention is
        reported in the sensitivity table.
    planted_sizes : sequence of int, optional
        Sample sizes M of the planted model (:mod:`lgekit.theory.planted`).

    Returns
    -------
    TheoryReport
        Tables: the sensitivity of :math:`\mathbb E\|A_\sigma\|_2` and of the
        norm threshold :math:`s^*` to the pair convention; per
        :math:`\lambda_r` the clipped training / held-out loss on the
        theorem's distribution (positives y = +1 and uniform negatives
        y = -1, 1:4), the three terms of the bound and whether it is vacuous
        (at or above the zero embedding's :math:`\ln 2`); the planted model's
        rows.  Claims, judged by :func:`bound_claims`:

        * ``symmetric-A-sigma-smallest``: :math:`\mathbb E\|A_{\rm
          sym}\|_2/2` is at most every orientation's :math:`\mathbb
          E\|A\|_2` (+ 3 combined standard errors + the solver tolerance)
          [the triangle inequality; a FAIL means the 1/2 or the matrix is wrong].
        * ``degrees-set-spectral-norm``: :math:`\mathbb E\|A_{\rm sym}\|_2`
          of the training sample is within 15 % of :math:`\sqrt d\,
          \Lambda(D_{\max}/d)` (:func:`~lgekit.theory.bbk_estimate`) from its
          mean degree d and largest degree :math:`D_{\max}`: the hub term
          :math:`D_{\max}/\sqrt{D_{\max} - d}` when :math:`D_{\max} \ge 2d`,
          :math:`2\sqrt d` otherwise [the star around the largest hub
          bounds the norm from below; the 15 % is that of ``bbk-sparse``].
          The ratio to an Erdős–Rényi sample at the same n and mean degree
          is reported, not judged: it is 1.90 on BlogCatalog (D_max/d = 12.9,
          so the hubs dominate) and 1.02 on the quick 1000-node graph, whose
          largest degree is 1.6 times the mean (the previous claim,
          "at least 1.5 times the Erdős–Rényi value", was documented but a
          5-standard-error difference was checked, which the quick graph
          passed at 1.19x).
        * ``bound-holds``: at every row whose bound is below B, on the graph
          (held-out loss) and on the planted model (exact expected loss),
          the loss is at most the bound; FAIL when no row is below B [a row
          at or above B holds for any implementation, the clipped loss never
          exceeding B].
        * ``vacuous-without-regularization``: at :math:`\lambda_r = 0` the
          bound is at or above the trivial loss [the unregularized norms are
          large; a bound that is informative there has lost a factor].
        * ``norm-threshold-reached``: some :math:`\lambda_r` gives a mean
          squared norm below :math:`s^*`
          (:func:`~lgekit.theory.nonvacuous_norm_threshold`), so the grid
          reaches the only regime where the bound could be non-vacuous.
        * ``complexity-falls-with-lam_r``: the complexity term decreases
          along the :math:`\lambda_r` grid.
        * ``gap-shrinks-with-lam_r``: the measured gap at the largest
          :math:`\lambda_r` is below that at :math:`\lambda_r = 0`.
        * ``planted-nonvacuous-at-large-m``: on the planted model the bound
          is below :math:`\ln 2` at some :math:`\lambda_r` for the largest
          sample size; the details give the smallest M (and M/n) where it
          becomes non-vacuous, to compare with the graph's M/n.

    Notes
    -----
    The planted model is :class:`~lgekit.theory.PlantedPairDistribution`
    with 40 vertices in 4 communities, fitted in D = 8 at
    :math:`\lambda_r \in \{0, 0.003, 0.01, 0.03, 0.1\}` (mean loss plus
    :math:`\lambda_r` times the mean squared norm).

    Measured (seed 0, ``quick=False``): on BlogCatalog
    (:math:`(m+m')/n = 130`) :math:`\mathbb E\|A_{\rm sym}\|_2/2 = 30.8`
    and :math:`s^* = 1.43`; the mean squared norm is 9.0 at
    :math:`\lambda_r = 3` and 0.29 at :math:`\lambda_r = 10`, where the bound
    is 0.785 = 0.639 (training) + 0.137 (complexity) + 0.010 (confidence),
    vacuous against :math:`\ln 2`, with held-out loss 0.643.  On the planted
    model the bound is vacuous at every :math:`\lambda_r` up to
    :math:`(m+m')/n = 750` and non-vacuous from 2,500 (0.689 at
    :math:`\lambda_r = 0.01`, mean squared norm 1.17, exact expected loss
    0.588); at :math:`(m+m')/n = 250{,}000` it is 0.597 against 0.588.  The
    whole check takes about 3 minutes on two cores (``quick``: 30 s).
    """
    from ..evaluation import split_edges
    from ..models import DivergenceError, LogisticEmbedding
    from ..theory.bounds import (
        CONVENTIONS,
        LN2,
        generalization_gap,
        nonvacuous_norm_threshold,
        norm_constants,
        theorem1_bound,
        theorem1_spectral_norm,
    )
    from ..theory.planted import PlantedPairDistribution, planted_bound_rows

    rng = check_random_state(seed, "seed")
    seed_int = int(seed) if isinstance(seed, (int, np.integer)) else 0
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {CONVENTIONS}, got {convention!r}")
    if lam_rs is None:
        # the mean squared norm crosses s* between lam_r = 3 and 10 on both graphs; lam_r = 30 drives the quick
        # graph's embedding to exactly zero (and its subnormal floats slow the fit down)
        lam_rs = (0.0, 1.0, 3.0, 10.0) if quick else (0.0, 1.0, 3.0, 10.0, 30.0)
    dim = dim or (32 if quick else 100)
    epochs = epochs or (15 if quick else 20)
    n_draws = n_draws or (3 if quick else 5)
    if planted_sizes is None:
        planted_sizes = (1_000, 10_000, 100_000, 1_000_000) if quick else (1_000, 3_000, 10_000, 30_000, 100_000,
                                                                          300_000, 1_000_000, 10_000_000)
    graph, fallback_note = _load_bound_graph(quick, seed_int, data_home)
    split = split_edges(graph, test_fraction=0.2, negatives_per_positive=4, seed=seed_int)
    n = graph.n_nodes
    m = int(len(split.train_positives) + len(split.train_negatives))
    trivial = float(min(LN2, B))
    t0 = time.perf_counter()
    spectral_rows = []
    values = {}
    er_norm = {}
    for conv in (convention,) + tuple(c for c in CONVENTIONS if c != convention):
        spec = theorem1_spectral_norm(split, conv, n_draws=n_draws, seed=rng, n_threads=n_threads)
        est = spec.estimate
        if est.kind not in er_norm:
            # the Erdos-Renyi reference of the same kind, number of vertices and mean degree
            er_pattern = PairPattern.erdos_renyi(n, est.mean_degree, kind=est.kind, seed=rng)
            er_norm[est.kind] = expected_spectral_norm(er_pattern, n_draws=n_draws, seed=rng,
                                                       n_threads=n_threads).mean
        values[conv] = spec.value
        spectral_rows.append({
            "convention": conv, "matrix": "A + A^T" if est.kind == "homogeneous" else "oriented A",
            "E||A||": est.mean, "s.e.": est.std_error, "scale": spec.scale, "value": spec.value,
            "value s.e.": spec.scale * est.std_error, "mean degree": est.mean_degree, "D_max": est.max_degree,
            "BBK": bbk_estimate(est.max_degree, est.mean_degree), "ER E||A||": er_norm[est.kind],
            "ratio to ER": est.mean / er_norm[est.kind],
            "s*": nonvacuous_norm_threshold(m, spec.value, n, trivial_loss=trivial, B=B, delta=delta),
        })
    t_spec = time.perf_counter() - t0
    spectral = values[convention]
    s_star = spectral_rows[0]["s*"]
    rows = []
    for lam in lam_rs:
        model = LogisticEmbedding(dim=dim, lam_pos=lam_pos, lam_neg=lam_neg, lam_r=float(lam), epochs=epochs,
                                  lr_offset=lr_offset, random_state=seed_int, n_threads=n_threads)
        t1 = time.perf_counter()
        try:
            model.fit(split)
        except DivergenceError as exc:
            logger.warning("lam_r=%g diverged at epoch %s", lam, exc.epoch)
            rows.append({"lam_r": float(lam), "diverged": True})
            continue
        X = model.embedding_
        C_U, C_V = norm_constants(X)
        gap = generalization_gap(X, split, B=B)
        bound = theorem1_bound(gap.train_loss, m, spectral, C_U, C_V, B, delta=delta)
        sq = np.einsum("ij,ij->i", X, X)
        rows.append({
            "lam_r": float(lam), "diverged": False, "mean ||x||^2": float(sq.mean()), "max ||x||^2": float(sq.max()),
            "s*": s_star, "train loss": gap.train_loss, "test loss": gap.test_loss, "gap": gap.gap,
            "complexity": bound.complexity, "confidence": bound.confidence, "bound": bound.rhs,
            "trivial loss": gap.trivial_loss, "B": B, "vacuous": bound.is_vacuous(gap.trivial_loss),
            "holds": gap.test_loss <= bound.rhs, "fit s": time.perf_counter() - t1,
        })
    planted = PlantedPairDistribution(40, 4)
    planted_rows = planted_bound_rows(planted, planted_sizes, (0.0, 0.003, 0.01, 0.03, 0.1), dim=8, B=B,
                                      delta=delta, n_draws=n_draws, seed=rng)

    report = TheoryReport(name="bound")
    report.add_table(
        f"Sensitivity of E||A_sigma||_2 to the pair convention, {graph.name} training sample (n = {n}, m + m' = {m}: "
        f"positives + 4 uniform negatives each; {n_draws} sign draws, {t_spec:.1f} s). value = what goes into "
        f"Theorem 1 (E||A + A^T||/2 for 'symmetric', the default: lgekit.theory.bounds derives it); s* = mean "
        f"||x||^2 above which the bound is vacuous even at zero training loss (B = {B:g}, delta = {delta:g})",
        spectral_rows)
    report.add_table(
        f"Theorem 1 (Section 3.1) on LogisticEmbedding (D={dim}, {epochs} epochs, lam_pos={lam_pos:g}, "
        f"lam_neg={lam_neg:g}, lr_offset={lr_offset:g}) across lam_r, {graph.name}; logistic loss clipped at B = "
        f"{B:g}; bound = train + 2 E||A|| sqrt(C_U C_V) / (m+m') + 4 B sqrt(2 ln(4/delta) / (m+m')), "
        f"E||A|| = {spectral:.2f} ({convention}), delta = {delta}", rows)
    report.add_table(
        f"Theorem 1 on the planted model (n = {planted.n_nodes} vertices, {planted.n_communities} communities, "
        f"positives uniform inside communities, 4 uniform negatives per positive; exact expected loss; "
        f"full-batch L-BFGS on mean loss + lam_r mean ||x||^2, D = 8; E||A_sym||/2 from the sample)",
        planted_rows, ["M", "M/n", "lam_r", "mean ||x||^2", "E||A_sym||/2", "s*", "train loss", "expected loss",
                       "gap", "complexity", "confidence", "bound", "vacuous", "holds"])
    if fallback_note:
        report.notes.append(fallback_note)
    ok_rows = [r for r in rows if not r["diverged"]]
    report.notes.append(
        f"Sample size per vertex: {graph.name} (m + m')/n = {m / n:.0f}. Vacuous (bound >= trivial loss = loss of "
        f"the zero embedding, {trivial:.4f}) at lam_r = " + str([r["lam_r"] for r in ok_rows if r["vacuous"]])
        + "; non-vacuous at lam_r = " + str([r["lam_r"] for r in ok_rows if not r["vacuous"]])
        + ". Below s*, the bound needs the training loss to fall below ln 2 faster than the complexity term "
          "grows, 2 E||A|| n / (m+m') per unit of mean ||x||^2 "
          f"({2 * spectral * n / m:.3f} here); uniform negatives have mean score >= -mean||x||^2/(n-1) for any "
          "embedding, so only the positives can pay for it. The planted model shows the sample size at which "
          "they do.")
    for claim in bound_claims(spectral_rows, rows, planted_rows):
        report.claims.append(claim)
    report.data.update(rows=rows, spectral=spectral_rows, planted=planted_rows)

    def plot(fig):
        ax1, ax2 = fig.subplots(1, 2)
        if ok_rows:
            xs = [max(r["mean ||x||^2"], 1e-4) for r in ok_rows]
            ax1.plot(xs, [r["bound"] for r in ok_rows], "o-", label="Theorem 1 bound")
            ax1.plot(xs, [r["test loss"] for r in ok_rows], "s-", label="held-out loss")
            ax1.plot(xs, [r["train loss"] for r in ok_rows], "^-", label="training loss")
            ax1.axvline(s_star, color="grey", ls="--", lw=1, label="s* (vacuous to the right)")
            for x, r in zip(xs, ok_rows):
                ax1.annotate(f"{r['lam_r']:g}", (x, r["bound"]), fontsize=7)
        ax1.axhline(trivial, color="k", ls=":", lw=1, label="zero embedding (vacuous above)")
        ax1.set_xscale("log")
        ax1.set_yscale("log")
        ax1.set_xlabel("mean ||x||^2 (labels: lam_r)")
        ax1.set_ylabel(f"logistic loss clipped at {B:g}")
        ax1.set_title(f"{graph.name}: bound vs measured, (m+m')/n = {m / n:.0f}", fontsize=9)
        ax1.legend(fontsize=7)
        Ms = sorted({r["M"] for r in planted_rows})
        best = [min((r for r in planted_rows if r["M"] == M), key=lambda r: r["bound"]) for M in Ms]
        x = [M / planted.n_nodes for M in Ms]
        ax2.plot(x, [r["bound"] for r in best], "o-", label="best bound over lam_r")
        ax2.plot(x, [r["expected loss"] for r in best], "s-", label="its exact expected loss")
        ax2.axhline(trivial, color="k", ls=":", lw=1, label="zero embedding")
        ax2.axvline(m / n, color="grey", ls="--", lw=1, label=f"{graph.name}'s (m+m')/n")
        ax2.set_xscale("log")
        ax2.set_ylim(0.5, 1.5)
        ax2.set_xlabel("(m + m') / n")
        ax2.set_title("planted model: where Theorem 1 becomes non-vacuous", fontsize=9)
        ax2.legend(fontsize=7)

    report.plot = plot
    return report
