#!/usr/bin/env python
"""Check Theorem 1 in its own setting (a bipartite sample, footnote 1): two tables on a directed and a bipartite graph.

Usage: python theory/verify_directed.py [--quick] [--out DIR] [--seed N]

The same as ``lgekit theory directed``; the logic is
``lgekit.experiments.check_directed.verify_directed`` (see its docstring for every claim and
threshold): the |U| x |V| matrix A_sigma of the theorem, the footnote-1 norm identity, and the
bound against the measured gap on email-Eu-core (directed) and BlogCatalog's users x groups graph
(bipartite).  Exit status 0 when no claim FAILs (an INCONCLUSIVE claim, which its cells cannot decide, is printed as such), 1 otherwise.
"""
import sys

from lgekit.experiments.checks import main

if __name__ == "__main__":
    sys.exit(main("directed", description=__doc__))
