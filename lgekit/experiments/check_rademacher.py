r"""``lgekit theory rademacher``: the spectral norm of :math:`A_\sigma` on Erdős–Rényi pairs.

:func:`verify_rademacher` measures :math:`\mathbb E\|A_\sigma\|_2` on
Erdős–Rényi pairs against the predictions (the paper's, Bandeira–van Handel's,
Benaych-Georges–Bordenave–Knowles') and footnote 5's conjecture, and
:func:`rademacher_claims` judges it from the measurements alone (so each
verdict can be shown to fail, ``tests/test_theory_checks.py``).  Every claim's
threshold is stated in :func:`verify_rademacher`'s docstring, with its reason.
"""
import logging
import math
import time

import numpy as np

from .._random import check_random_state
from ..theory import (
    PairPattern,
    bandeira_van_handel_estimate,
    bbk_estimate,
    expected_spectral_norm,
    khintchine_bound,
    paper_estimate,
    sqrt_max_degree_estimate,
)
from .verdict import TheoryReport, Verdict

__all__ = ["verify_rademacher", "rademacher_claims", "fit_log_trend"]

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


def _ratio_range(cells, column):
    """min and max over ``cells`` of the measured E||A|| over ``column`` (NaN, NaN for no cell)."""
    ratios = [r["E||A||"] / r[column] for r in cells]
    return (min(ratios), max(ratios)) if ratios else (float("nan"), float("nan"))


def _band_claim(name, cells, column, label, tolerance, regime, more=""):
    """The claim that every cell's measured E||A|| is within ``tolerance`` of its ``column`` estimate."""
    if not cells:
        return Verdict.check(name, False, f"no cell with {regime}")
    low, high = _ratio_range(cells, column)
    return Verdict.check(name, max(abs(low - 1), abs(high - 1)) <= tolerance,
                         f"{len(cells)} cells with {regime}: measured/{label} in [{low:.3f}, {high:.3f}] "
                         f"(tolerance {tolerance:.0%})" + more)


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
    claims.append(_band_claim("bandeira-van-handel-2sqrt(d)", dense, "2 sqrt(d)", "2sqrt(d)", 0.10, "d >= 3 ln n"))
    sparse = [r for r in rows if r["regime"] == "d<=ln n"]
    low, high = _ratio_range(sparse, "sqrt(D_max)")
    claims.append(_band_claim("bbk-sparse", sparse, "BBK", "BBK", 0.15, "d <= ln n",
                              f"; measured/sqrt(D_max) in [{low:.3f}, {high:.3f}]"))
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
                    "E||A||": est.mean, "se": est.std_error, "min ratio": float(est.values.min()) / sqrt_max_degree_estimate(D),
                    "D": D, "ratio": est.mean / math.sqrt(dbar), "paper": paper_estimate(m, n),
                    "bvh": bandeira_van_handel_estimate(dbar), "sqrtD": sqrt_max_degree_estimate(D), "bbk": bbk_estimate(D, dbar),
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
        ax1.set_title("the paper's footnote 5: can its sqrt(ln n) go? Flat for d >> ln n, growing for d = O(1)\n"
                      "(dashed: Benaych-Georges-Bordenave-Knowles, sqrt(d) Lambda(D_max/d))", fontsize=9)
        ax1.legend(fontsize=8)
        ax2.set_xscale("log")
        ax2.set_xlabel("n")
        ax2.set_ylabel("E||A_sigma|| / sqrt(m ln n / n)")
        ax2.set_title("measured over the paper's estimate", fontsize=9)
        ax2.legend(fontsize=8)

    report.plot = plot
    return report
