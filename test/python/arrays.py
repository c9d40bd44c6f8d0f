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


def call_from_threads(fn, count: int = 8):
    """fn(i) for i in range(count), each in its own thread, all started at
    once (a barrier); returns the results in order and re-raises the first
    error a thread had."""
    import threading

    results, errors = [None] * count, []
    start = threading.Barrier(count)

    def worker(i):
        try:
            start.wait()
            results[i] = fn(i)
        except Exception as e:  # re-raised below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,))
               for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results
