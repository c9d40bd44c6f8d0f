"""More of NumPy through tinytensor.jit, each compared with NumPy itself on
awkward sizes: new elementwise functions, reductions (min, prod, std,
argmax/argmin, any/all, cumsum), einsum/dot/tensordot/outer, clip, round,
tril/triu, *_like, linalg.norm, and indexing (negative steps, integer
arrays on any axis, np.take, run-time bounds checks)."""


import numpy as np
import pytest

from tinytensor import jit

from arrays import randn  # noqa: E402
from arrays import rng  # noqa: E402


def randint(*shape, low=-9, high=10):
    return rng().integers(low, high, shape).astype(np.int32)


def same(got, expected, rtol=None):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    if expected.dtype.kind == "f":
        if rtol is None:
            rtol = 2e-6 if expected.dtype == np.float32 else 1e-13
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got, expected)


def check(fn, *args, rtol=None):
    same(jit(fn)(*args), fn(*args), rtol)


DTYPES = [np.float32, np.float64]


# -- elementwise --------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ufunc", [np.sin, np.cos, np.floor, np.ceil,
                                   np.rint, np.exp2, np.square, np.sign,
                                   np.reciprocal])
def test_unary(ufunc, dtype):
    x = randn(7, 13, dtype=dtype) * 4
    check(lambda a: ufunc(a), x, rtol=1e-6 if dtype == np.float32 else None)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ufunc", [np.log1p, np.expm1, np.log2])
def test_unary_positive_and_tiny(ufunc, dtype):
    x = np.abs(randn(5, 11, dtype=dtype)) * 3
    tiny = np.array([1e-30, 1e-12, 1e-7, 0.0, -0.0, 3e-5], dtype)
    check(lambda a: ufunc(a), x, rtol=1e-6 if dtype == np.float32 else 1e-12)
    with np.errstate(divide="ignore"):  # log2(0) = -inf, as compiled
        check(lambda a: ufunc(a), tiny,
              rtol=1e-6 if dtype == np.float32 else 1e-12)


def test_expm1_log1p_special_values():
    x = np.array([np.inf, -np.inf, np.nan, -1.0, 700.0, -50.0, 1e300],
                 np.float64)
    with np.errstate(all="ignore"):
        check(lambda a: np.expm1(a), x)
        check(lambda a: np.log1p(a), np.array([np.inf, np.nan, -1.0, 0.5,
                                               1e300]))


def test_sign_and_rounding_special_values():
    x = np.array([-0.0, 0.0, np.nan, np.inf, -np.inf, 2.5, 3.5, -2.5, 0.49],
                 np.float32)
    check(lambda a: np.sign(a), x)
    check(lambda a: np.rint(a), x)
    check(lambda a: np.round(a), x)
    check(lambda a: np.floor(a) + np.ceil(a), x)


@pytest.mark.parametrize("fn", [np.floor, np.ceil, np.square, np.sign,
                                np.sin, np.exp2],
                         ids=lambda f: f.__name__)
def test_unary_on_int32_follow_numpy_dtypes(fn):
    check(lambda a: fn(a), randint(4, 6))


@pytest.mark.parametrize("decimals", [0, 1, 2, -1])
def test_round_decimals(decimals):
    x = randn(6, 5, dtype=np.float64) * 100
    check(lambda a: np.round(a, decimals), x)
    check(lambda a: a.round(decimals), x)


def test_clip():
    x = randn(9, 4)
    check(lambda a: np.clip(a, -0.5, 0.25), x)
    check(lambda a: a.clip(max=0.1), x)
    check(lambda a, lo: np.clip(a, lo, 1.0), x, randn(4))
    check(lambda a: np.clip(a, -3, 3), randint(5, 5))
    with pytest.raises(ValueError):
        jit(lambda a: np.clip(a, None, None))(x)


# -- reductions ------------------------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_min_prod_std(axis, keepdims):
    x = randn(3, 17, 5, dtype=np.float64)
    check(lambda a: np.min(a, axis=axis, keepdims=keepdims), x)
    check(lambda a: a.min(axis=axis, keepdims=keepdims), x)
    check(lambda a: np.prod(a, axis=axis, keepdims=keepdims), x)
    check(lambda a: np.std(a, axis=axis, keepdims=keepdims), x)
    check(lambda a: a.std(axis=axis, ddof=1, keepdims=keepdims), x)


def test_integer_min_and_prod():
    x = randint(6, 7, low=-3, high=4)
    check(lambda a: a.min(axis=0), x)
    check(lambda a: np.prod(a, axis=1, dtype=np.int32), x)
    check(lambda a: np.prod(a, axis=0, dtype=np.float64), x)
    x[0, 0] = np.iinfo(np.int32).min
    check(lambda a: np.min(a), x)
    # NumPy multiplies int32 in int64: no wrap at 2^31.
    check(lambda a: np.prod(a, axis=0), randint(13, 5, low=-20, high=21))
    check(lambda a: np.prod(a, axis=0),
          randint(13, 5, low=-20, high=21).astype(np.int64))


def test_min_nan_propagates():
    x = randn(4, 5)
    x[2, 3] = np.nan
    check(lambda a: np.min(a, axis=1), x)


@pytest.mark.parametrize("fn", [np.argmax, np.argmin], ids=["max", "min"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_argmax_argmin(fn, axis):
    x = randn(5, 33)
    check(lambda a: fn(a, axis=axis), x)
    check(lambda a: fn(a, axis=axis, keepdims=True), x)
    ties = np.round(randn(6, 9) * 2) / 2
    check(lambda a: fn(a, axis=axis), ties)  # the first of equal values
    check(lambda a: fn(a, axis=axis), randint(4, 7, low=-2, high=3))


def test_argmax_nan_and_infinities():
    x = np.array([[1.0, np.nan, 3.0, np.nan], [-np.inf, -np.inf, -5.0, 2.0],
                  [-np.inf, -np.inf, -np.inf, -np.inf]], np.float32)
    check(lambda a: np.argmax(a, axis=1), x)
    check(lambda a: np.argmin(a, axis=1), x)
    check(lambda a: a.argmax(), x)


def test_argmax_of_logits_picks_the_token():
    logits = randn(8, 1000)
    check(lambda a: np.argmax(a[-1]), logits)


@pytest.mark.parametrize("shape,axis", [((1,), -1), ((7,), 0), ((3, 17), -1),
                                        ((3, 17), 0), ((2, 5, 33), 1),
                                        ((1000,), -1), ((4, 6), None)],
                         ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sort_and_argsort(shape, axis, dtype):
    x = randn(*shape, dtype=dtype)
    x.flat[::5] = np.nan          # NaNs sort last
    x.flat[1::7] = 1.0            # ties keep their order
    x.flat[2::11] = -0.0
    check(lambda a: np.sort(a, axis=axis), x)
    check(lambda a: np.argsort(a, axis=axis, kind="stable"), x)
    check(lambda a: a.argsort(axis=axis, kind="stable"), x)


def test_sort_integers_and_booleans():
    i = randint(4, 9, low=-3, high=4)
    check(lambda a: (np.sort(a), np.argsort(a, kind="stable")), i)
    check(lambda a: np.sort(a.astype(np.int64) * 2 ** 40, axis=0), i)
    check(lambda a: (np.sort(a > 0), np.argsort(a > 0, kind="stable")), i)
    # Without ties the default kind's indices are NumPy's too.
    x = randn(5, 64)
    check(lambda a: np.argsort(a), x)
    with pytest.raises(np.exceptions.AxisError):
        jit(lambda a: np.sort(a, axis=2))(x)
    with pytest.raises(TypeError, match="order"):
        jit(lambda a: np.sort(a, order="f"))(x)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_cumsum(axis):
    x = randn(4, 37, dtype=np.float64)
    check(lambda a: np.cumsum(a, axis=axis), x)
    check(lambda a: a.cumsum(axis=axis), x)
    check(lambda a: np.cumsum(a, axis=axis, dtype=np.int32),
          randint(3, 5))
    # int32 (and bool) accumulate in int64, as in NumPy.
    big = np.full((4, 37), 2 ** 30, dtype=np.int32)
    check(lambda a: np.cumsum(a, axis=axis), big)
    check(lambda a: np.cumsum(a > 2 ** 29, axis=axis), big)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_any_all(axis):
    x = randn(6, 4)
    check(lambda a: np.any(a > 1.0, axis=axis), x)
    check(lambda a: np.all(a > -1.5, axis=axis), x)
    check(lambda a: (a > 0).any(axis=axis), x)
    check(lambda a: np.all(a, axis=axis), randint(3, 4, low=0, high=3))
    check(lambda a: np.any(a, axis=axis, keepdims=True), np.zeros((3, 4),
                                                                  np.float32))


# -- contractions -----------------------------------------------------------------

@pytest.mark.parametrize("spec,shapes", [
    ("ij,jk->ik", [(3, 5), (5, 7)]),
    ("ij,jk", [(3, 5), (5, 7)]),
    ("bij,bjk->bik", [(2, 3, 5), (2, 5, 4)]),
    ("bij,jk->bik", [(2, 3, 5), (5, 4)]),
    ("ij,kj->ik", [(3, 5), (4, 5)]),
    ("ij->ji", [(3, 5)]),
    ("ijk->k", [(2, 3, 4)]),
    ("i,i->", [(9,), (9,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 5, 8), (2, 3, 6, 8)]),
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]),
    ("ij,j->i", [(3, 4), (4,)]),
    ("ij,ij->i", [(3, 4), (3, 4)]),
])
def test_einsum(spec, shapes):
    args = [randn(*s, dtype=np.float64) for s in shapes]
    check(lambda *a: np.einsum(spec, *a), *args)


def test_einsum_unsupported_forms_are_clear():
    x = randn(3, 3)
    with pytest.raises(NotImplementedError, match="repeated index"):
        jit(lambda a: np.einsum("ii->i", a))(x)
    with pytest.raises(NotImplementedError, match=r"\.\.\."):
        jit(lambda a: np.einsum("...i->i", a))(x)


@pytest.mark.parametrize("shapes", [[(3, 5), (5, 7)], [(4,), (4,)],
                                    [(3, 4), (4,)], [(2, 3, 4), (4, 5)],
                                    [(2, 3, 4), (5, 4, 6)], [(), (3,)]])
def test_dot(shapes):
    a, b = (randn(*s, dtype=np.float64) for s in shapes)
    check(lambda x, y: np.dot(x, y), a, b)


def test_dot_method_tensordot_outer():
    a, b = randn(3, 4, 5), randn(4, 5, 2)
    check(lambda x, y: np.tensordot(x, y), a, b)
    check(lambda x, y: np.tensordot(x, y, axes=([1, 2], [0, 1])), a, b)
    check(lambda x, y: np.tensordot(x, y, axes=0), randn(2, 3), randn(4))
    check(lambda x, y: np.outer(x, y), randn(5), randn(2, 3))
    check(lambda x, y: x.dot(y), randn(3, 4), randn(4, 2))


# -- constructors and masks ------------------------------------------------------------

@pytest.mark.parametrize("k", [-2, 0, 1, 5])
def test_tril_triu(k):
    x = randn(5, 7)
    check(lambda a: np.tril(a, k), x)
    check(lambda a: np.triu(a, k), x)
    check(lambda a: np.tril(a, k), randn(2, 4, 3))


def test_like_constructors():
    x = randn(3, 4)
    check(lambda a: np.zeros_like(a) + a, x)
    check(lambda a: np.ones_like(a, dtype=np.float64), x)
    check(lambda a: np.full_like(a, 2.5), x)
    check(lambda a: np.full_like(a, 7, dtype=np.int32), x)
    check(lambda a, v: np.full_like(a, v[0]), x, randn(2))


@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False),
                                           (1, True), (-1, False)])
def test_linalg_norm(axis, keepdims):
    x = randn(4, 6, dtype=np.float64)
    check(lambda a: np.linalg.norm(a, axis=axis, keepdims=keepdims), x)
    check(lambda a: np.linalg.norm(a[0]), x)
    with pytest.raises(NotImplementedError, match="ord"):
        jit(lambda a: np.linalg.norm(a, ord=1))(x)


# -- indexing -----------------------------------------------------------------------------

@pytest.mark.parametrize("index", [
    np.s_[::-1], np.s_[:, ::-2], np.s_[5:1:-1], np.s_[..., ::-3],
    np.s_[-1:-6:-2, 1:], np.s_[None, ::-1, 2], np.s_[:, None, 1:4:2],
], ids=str)
def test_basic_slices(index):
    check(lambda a: a[index], randn(7, 6))


@pytest.mark.parametrize("shape", [(1,), (3,), (1, 4), (3, 2)], ids=str)
def test_reversed_slice_of_one_element(shape):
    # x[0::-1] keeps one element: a rank-0 copy the vectoriser must leave
    # scalar (found by scripts/difftest.py).
    check(lambda a: a[0::-1], randn(*shape))
    check(lambda a: a[0::-1] * 2.0, randn(*shape))


@pytest.mark.parametrize("index", [
    np.s_[:, [0, 2, -1]], np.s_[[1, 0], :, [2, 3]], np.s_[[[0], [2]], [1, 3]],
    np.s_[1, :, [0, 0, 3]], np.s_[:, 2, [3, 1]], np.s_[[0, 1], 1:, 0],
    np.s_[:, [0, 1], ::-1], np.s_[..., [4, 0]], np.s_[[1, 2], [0, 1], [3, 2]],
], ids=str)
def test_integer_array_indexing_any_axis(index):
    check(lambda a: a[index], randn(3, 4, 5))


def test_traced_index_arrays_on_any_axis():
    x = randn(4, 6, 3)
    i = np.array([0, -1, 2], np.int32)
    j = np.array([[1], [5]], np.int32)
    check(lambda a, i: a[:, i], x, i)
    check(lambda a, i, j: a[:, j, i], x, i % 3, j)
    check(lambda a, i: a[i, :, i], x, i % 3)
    check(lambda a, i: np.take(a, i, axis=2), x, i % 3)
    check(lambda a, i: np.take(a, i), x, i * 7)
    check(lambda a, i: a.take(i, axis=1), x, i)


@pytest.mark.parametrize("bad", [[1, 10], [-11, 0], [3, 12345]])
def test_out_of_range_traced_index_raises_index_error(bad):
    table = randn(10, 3)
    f = jit(lambda t, i: t[i])
    ok = np.array([0, 9, -10], np.int32)
    same(f(table, ok), table[ok])
    with pytest.raises(IndexError, match=f"index {bad[0] if abs(bad[0]) > 9 else bad[1]} is out of bounds for axis 0 with size 10"):
        f(table, np.array(bad, np.int32))
    # The same specialisation keeps working afterwards.
    same(f(table, ok), table[ok])


def test_out_of_range_on_another_axis_names_it():
    x = randn(3, 4)
    with pytest.raises(IndexError, match="axis 1 with size 4"):
        jit(lambda a, i: a[:, i])(x, np.array([4], np.int32))
    with pytest.raises(IndexError, match="axis 1 with size 4"):
        jit(lambda a: a[:, [0, 4]])(x)  # a constant index: at trace time


def test_index_checks_can_be_switched_off():
    table = randn(10, 3)
    f = jit(lambda t, i: t[i], check_indices=False)
    c = f.compile(table, np.zeros(2, np.int32))
    assert "reduce_min" not in str(c.module)
    # Clamped, as documented (no error).
    same(f(table, np.array([1, 10], np.int32)), table[[1, 9]])
    assert "reduce_min" in str(jit(lambda t, i: t[i]).compile(
        table, np.zeros(2, np.int32)).module)


def test_boolean_mask_index_is_a_clear_error():
    with pytest.raises(IndexError, match="boolean"):
        jit(lambda a: a[np.array([True, False, True])])(randn(3))


# -- integer // and % ------------------------------------------------------------

def test_integer_floor_divide_and_remainder_match_numpy():
    # Quotients round toward -inf, remainders take the divisor's sign; a zero
    # divisor gives 0 and INT_MIN // -1 wraps, as in NumPy (which warns);
    # the compiled code never faults.
    g = np.random.default_rng(11)
    a = g.integers(-50, 50, 1003).astype(np.int32)
    b = g.integers(-7, 8, 1003).astype(np.int32)
    a[:4] = np.iinfo(np.int32).min
    b[:4] = [-1, 0, 3, -3]
    with np.errstate(all="ignore"):
        expected_q, expected_r = a // b, a % b
    np.testing.assert_array_equal(jit(lambda x, y: x // y)(a, b), expected_q)
    np.testing.assert_array_equal(jit(lambda x, y: x % y)(a, b), expected_r)
    np.testing.assert_array_equal(
        jit(lambda x, y: np.floor_divide(x, y))(a, b), expected_q)
    np.testing.assert_array_equal(jit(lambda x, y: np.mod(x, y))(a, b),
                                  expected_r)
    # Python ints on either side.
    np.testing.assert_array_equal(jit(lambda x: x // 3)(a), a // 3)
    nonzero = np.where(b == 0, 1, b).astype(np.int32)
    np.testing.assert_array_equal(jit(lambda y: 7 % y)(nonzero), 7 % nonzero)


def test_float_floor_divide_is_refused():
    x = np.ones(4, np.float32)
    with pytest.raises(TypeError, match=r"floor_divide \(//\) of float32"):
        jit(lambda v: v // 2.0)(x)
    with pytest.raises(TypeError, match=r"remainder \(%\) of float32"):
        jit(lambda v: v % 2.0)(x)


# -- bitwise, shifts, arctan --------------------------------------------------

@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8])
def test_bitwise_ops_and_shifts(dtype):
    info = np.iinfo(dtype)
    a = rng().integers(info.min, info.max, (5, 7)).astype(dtype)
    b = rng().integers(info.min, info.max, (7,)).astype(dtype)
    n = rng().integers(0, info.bits, (5, 7)).astype(dtype)
    check(lambda a, b, n: (a & b, a | b, a ^ b, ~a, a & 6, 3 | a,
                           np.bitwise_xor(a, b), a << n, a >> n, a >> 1),
          a, b, n)


def test_boolean_masks_combine():
    x = randn(6, 9)
    check(lambda x: ((x > 0) & (x < 1), (x < -1) | (x > 1), ~(x > 0),
                     (x > 0) ^ (x > 0.5), np.logical_and(x > 0, x),
                     np.logical_or(x, 0), np.logical_xor(x > 0, x < 1),
                     np.logical_not(x), np.where((x > 0) & (x < 1), x, 0)),
          x)


def test_bitwise_refuses_floats():
    with pytest.raises(TypeError, match="integers or booleans"):
        jit(lambda x: x & x)(randn(3))
    with pytest.raises(TypeError, match="integers or booleans"):
        jit(lambda x: ~x)(randn(3))


@pytest.mark.parametrize("dtype", DTYPES)
def test_arctan_and_arctan2(dtype):
    y, x = randn(4, 9).astype(dtype), randn(9).astype(dtype)
    x[0] = 0.0
    check(lambda y, x: (np.arctan(y * 5), np.arctan2(y, x),
                        np.arctan2(y, 0.0)), y, x,
          rtol=2e-6 if dtype == np.float32 else 1e-13)


@pytest.mark.parametrize("dtype", DTYPES)
def test_trigonometric_and_hyperbolic(dtype):
    x = (rng().uniform(-0.95, 0.95, (3, 11))).astype(dtype)
    big = (rng().uniform(1.0, 6.0, (11,))).astype(dtype)
    rtol = 3e-6 if dtype == np.float32 else 1e-13
    def f(x, big):
        return (np.tan(x), np.arcsin(x), np.arccos(x), np.sinh(x), np.cosh(x),
                np.arcsinh(x * 9), np.arctanh(x), np.arccosh(big),
                np.log10(big), np.arcsin(big))

    with np.errstate(invalid="ignore"):  # arcsin(big): NaN, as NumPy's
        for got, want in zip(jit(f)(x, big), f(x, big)):
            same(got, want, rtol)


def test_view_as_same_size_dtype():
    x = np.array([1.0, -0.0, np.nan, -np.inf], np.float32)
    check(lambda x: (x.view(np.int32), x.view(np.int32).view(np.float32)),
          x)
    with pytest.raises(TypeError, match="same size"):
        jit(lambda x: x.view(np.int64))(x)
