#!/usr/bin/env python
"""Check what fits random edge labels: dimension vs norm by computation: table, figure, one PASS/FAIL line per claim.

Usage: python theory/verify_capacity.py [--quick] [--out DIR] [--seed N]

The same as ``lgekit theory capacity``; the logic is
``lgekit.experiments.check_capacity.verify_capacity`` (see its docstring for every claim and threshold).
Exit status 0 when no claim FAILs (an INCONCLUSIVE claim, which its cells cannot decide, is printed as such), 1 otherwise.
"""
import sys

from lgekit.experiments.checks import main

if __name__ == "__main__":
    sys.exit(main("capacity", description=__doc__))
