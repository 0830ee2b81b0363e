#!/usr/bin/env python
"""Check Theorem 1 (Section 3.1) on trained embeddings and a planted model: table, figure, one PASS/FAIL line per claim.

Usage: python theory/verify_bound.py [--quick] [--out DIR] [--seed N] [--convention C]

The same as ``lgekit theory bound``; the logic is
``lgekit.experiments.check_bound.verify_bound`` (see its docstring for every claim and threshold).
``--convention`` (symmetric, random, sorted or source) chooses the A_sigma put into
Theorem 1; the sensitivity table reports every one.  Exit status 0 when no claim
FAILs (an INCONCLUSIVE claim, which its cells cannot decide, is printed as such), 1 otherwise.
"""
import sys

from lgekit.experiments.checks import main

if __name__ == "__main__":
    sys.exit(main("bound", description=__doc__))
