"""The built documentation site as a reader sees it: offline, at laptop width, in a real browser.

The site is the one ``python3 -m sphinx -b html docs docs/_build`` writes (or the folder named by
``LGEKIT_DOCS_HTML``; CI builds it and sets that).  The browser checks render the index, one API
page, one tutorial and two pages of the user guide in headless Chromium at 1,280 x 900 px and read back,
after MathJax has run:

* no raw LaTeX (``$$``, ``\\(``, ``\\[``) left in the page's text: the formulas were typeset, by the
  MathJax copy inside the site (nothing is loaded from a network);
* no code block (source cell, output or signature) wider than its box, i.e. none cut off
  behind a horizontal scrollbar, and no page wider than the window;
* a screenshot that is not blank.

Without a built site, or without Chromium, the tests skip and say which is missing.
"""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WIDTH, HEIGHT = 1280, 900

# Runs in the page after load and after MathJax's typesetting; its findings go into an attribute of
# <html>, which --dump-dom prints.
PROBE = """
<script>
window.addEventListener("load", function () {
  function report() {
    var overflow = [];
    document.querySelectorAll("div.highlight pre, div.cell_output pre, pre.literal-block").forEach(function (el) {
      if (el.scrollWidth > el.clientWidth + 1) overflow.push(el.textContent.trim().slice(0, 60));
    });
    var clone = document.body.cloneNode(true);
    clone.querySelectorAll("script, style, pre, code, mjx-container, mjx-assistive-mml").forEach(function (el) { el.remove(); });
    var text = clone.textContent;
    var raw = (text.match(/\\$\\$|\\\\\\(|\\\\\\[/g) || []).length;
    document.documentElement.setAttribute("data-lgekit-probe", JSON.stringify({
      overflow: overflow, raw_tex: raw, typeset: document.querySelectorAll("mjx-container").length,
      math_in_source: document.querySelectorAll(".math, div.math, span.math").length,
      page_width: document.documentElement.scrollWidth, window_width: window.innerWidth}));
  }
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { MathJax.startup.promise.then(report); }
  else { report(); }
});
</script>
"""


def _site():
    env = os.environ.get("LGEKIT_DOCS_HTML")
    return Path(env) if env else ROOT / "docs" / "_build"


@pytest.fixture(scope="module")
def site():
    site = _site()
    if not (site / "index.html").is_file():
        pytest.skip(f"no built documentation in {site}: build it with python3 -m sphinx -b html docs docs/_build "
                    "or point LGEKIT_DOCS_HTML at a built site")
    return site


@pytest.fixture(scope="module")
def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium on PATH (apt-get install chromium): the browser checks need a real browser")


def _pages(site):
    tutorials = sorted((site / "tutorials").glob("01_*.html"))
    api = site / "api" / "generated" / "lgekit.LogisticEmbedding.html"
    # the user guide: the page with the most formulas, and the one written from the theory checks' docstrings
    guide = [site / "guide" / "logistic.html", site / "guide" / "theory.html"]
    pages = [site / "index.html", api, *tutorials[:1], *guide]
    missing = [str(page) for page in pages if not page.is_file()]
    assert len(pages) == 5 and not missing, f"the built site lacks the pages to check: {missing or 'tutorial 01'}"
    return pages


def test_no_page_loads_anything_from_a_network(site):
    remote = re.compile(r"""<(?:script|link|img)\b[^>]*\b(?:src|href)=["'](?:https?:)?//""", re.IGNORECASE)
    offenders = [str(page.relative_to(site)) for page in site.rglob("*.html")
                 if remote.search(page.read_text(encoding="utf-8", errors="replace"))]
    assert not offenders, f"pages that load scripts, styles or images from a network: {offenders[:5]}"
    assert (site / "_static" / "mathjax" / "tex-chtml.js").is_file(), "MathJax is not bundled with the site"


def test_api_pages_show_no_internal_constants(site):
    page = (site / "api" / "generated" / "lgekit.LogisticEmbedding.html").read_text(encoding="utf-8")
    assert 'id="lgekit.LogisticEmbedding.fit"' in page, "the class page lists no methods: wrong page?"
    for constant in ("divergence_max_mean_norm", "divergence_objective_factor", "negatives_per_positive"):
        assert f'id="lgekit.LogisticEmbedding.{constant}"' not in page, f"{constant} is shown as a public attribute"


@pytest.fixture(scope="module")
def rendered(site, chromium, tmp_path_factory):
    """{page name: (probe findings, screenshot path)} for the pages of :func:`_pages`, rendered in Chromium."""
    copy = tmp_path_factory.mktemp("site") / "html"
    shutil.copytree(site, copy, ignore=shutil.ignore_patterns(".jupyter_cache", ".doctrees", "_sources"))
    results = {}
    for page in _pages(site):
        probed = copy / page.relative_to(site)
        html = probed.read_text(encoding="utf-8")
        assert "</body>" in html, f"{page} has no </body>"
        probed.write_text(html.replace("</body>", PROBE + "</body>", 1), encoding="utf-8")
        common = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                  f"--window-size={WIDTH},{HEIGHT}", "--virtual-time-budget=20000"]
        dom = subprocess.run([*common, "--dump-dom", probed.as_uri()], capture_output=True, text=True, timeout=180)
        match = re.search(r'data-lgekit-probe="([^"]*)"', dom.stdout)
        assert match, f"Chromium did not run the probe on {page.name} (rc {dom.returncode}): {dom.stderr[-2000:]}"
        findings = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))
        shot = probed.with_suffix(".png")
        subprocess.run([*common, f"--screenshot={shot}", probed.as_uri()], capture_output=True, timeout=180)
        results[page.relative_to(site).as_posix()] = (findings, shot)
    return results


@pytest.mark.slow
def test_formulas_are_typeset_offline(rendered):
    for page, (findings, _) in rendered.items():
        assert findings["raw_tex"] == 0, f"{page}: {findings['raw_tex']} raw LaTeX delimiters left in the text"
        if findings["math_in_source"]:
            assert findings["typeset"] > 0, f"{page}: MathJax typeset none of its {findings['math_in_source']} formulas"
    assert any(findings["typeset"] for findings, _ in rendered.values()), "no page had a formula to check"


@pytest.mark.slow
def test_code_is_not_cut_off_at_laptop_width(rendered):
    for page, (findings, _) in rendered.items():
        assert not findings["overflow"], f"{page}: code blocks wider than their box at {WIDTH}px: {findings['overflow']}"
        assert findings["page_width"] <= findings["window_width"], (
            f"{page}: the page is {findings['page_width']}px wide in a {findings['window_width']}px window")


@pytest.mark.slow
def test_screenshots_are_not_blank(rendered):
    image = pytest.importorskip("matplotlib.image")
    for page, (_, shot) in rendered.items():
        assert shot.is_file(), f"Chromium wrote no screenshot of {page}"
        pixels = image.imread(shot)[..., :3]
        assert pixels.shape[:2] == (HEIGHT, WIDTH), f"{page}: screenshot is {pixels.shape[:2]}"
        ink = (pixels.mean(axis=2) < 0.9).mean()      # share of pixels darker than the page's background
        assert ink > 0.01, f"{page}: the screenshot is blank ({ink:.2%} of pixels carry anything)"
