"""Test data for the NumPy front end's tests: arrays from one generator,
seeded per test by conftest.py (from the test's id), so that each test
draws the same data however the tests are selected."""

import zlib

import numpy as np

RNG = np.random.default_rng(0)


def seed(test_id: str) -> None:
    global RNG
    RNG = np.random.default_rng(zlib.crc32(test_id.encode()))


def rng() -> np.random.Generator:
    """The current test's generator."""
    return RNG


def randn(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def randint(*shape, low=-5, high=6):
    return RNG.integers(low, high, shape).astype(np.int32)


def positive(*shape, dtype=np.float32):
    return (RNG.random(shape) + 0.5).astype(dtype)
