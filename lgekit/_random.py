"""Resolving ``seed`` / ``random_state`` arguments, once, at the API boundary."""
import numbers

import numpy as np

__all__ = ["check_random_state", "draw_seed"]


def check_random_state(seed, name="random_state"):
    """Turn ``None``, an int or a :class:`numpy.random.Generator` into a Generator.

    Parameters
    ----------
    seed : None, int or numpy.random.Generator
        ``None`` draws fresh OS entropy; an int seeds a new PCG64 generator; a
        Generator is returned as is (and is advanced by whoever uses it).
    name : str
        Name of the argument, used in the error message.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    TypeError
        For anything else (notably the legacy ``RandomState``, whose global
        state lgekit never touches).
    """
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"{name} must be a non-negative int, got {seed}")
        return np.random.default_rng(int(seed))
    raise TypeError(
        f"{name} must be None, a non-negative int or a numpy.random.Generator, "
        f"got {type(seed).__name__}: {seed!r}"
    )


def draw_seed(rng):
    """Draw a 64-bit unsigned seed for a Cython kernel's SplitMix64 state."""
    return int(rng.integers(0, 2**63 - 1, dtype=np.int64)) * 2 + int(rng.integers(0, 2))
