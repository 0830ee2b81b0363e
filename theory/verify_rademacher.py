#!/usr/bin/env python
"""Check the appendix's estimate of E||A_sigma||_2 and footnote 5: table, figure, one PASS/FAIL line per claim.

Usage: python theory/verify_rademacher.py [--quick] [--out DIR] [--seed N]

The same as ``lgekit theory rademacher``; the logic is
``lgekit.experiments.check_rademacher.verify_rademacher`` (see its docstring for every claim and threshold).
Exit status 0 when no claim FAILs (an INCONCLUSIVE claim, which its cells cannot decide, is printed as such), 1 otherwise.
"""
import sys

from lgekit.experiments.checks import main

if __name__ == "__main__":
    sys.exit(main("rademacher", description=__doc__))
