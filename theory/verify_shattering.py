#!/usr/bin/env python
"""Check Claim 1 (Section 3.1) on random and adversarial regular graphs: table, figure, one PASS/FAIL line per claim.

Usage: python theory/verify_shattering.py [--quick] [--out DIR] [--seed N]

The same as ``lgekit theory shattering``; the logic is
``lgekit.experiments.check_shattering.verify_shattering`` (see its docstring for every claim and threshold).
Exit status 0 when no claim FAILs (an INCONCLUSIVE claim, which its cells cannot decide, is printed as such), 1 otherwise.
"""
import sys

from lgekit.experiments.checks import main

if __name__ == "__main__":
    sys.exit(main("shattering", description=__doc__))
