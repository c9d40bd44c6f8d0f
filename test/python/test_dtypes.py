"""float16, bfloat16, int8, int16 and uint8 through the NumPy `jit` and the
PyTorch front end (tt-legalize-types: 16-bit floats compute in f32 and
round per op, uint8 is unsigned), against NumPy and PyTorch eager on
awkward shapes; and the clear refusal of the dtypes that stay out
(complex, uint64, float8)."""

import numpy as np
import pytest

from tinytensor import jit

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = np.dtype(ml_dtypes.bfloat16)

RNG = np.random.default_rng(7)


def _ints(dtype, shape, low=None, high=None):
    info = np.iinfo(dtype)
    low = info.min if low is None else low
    high = info.max if high is None else high
    return RNG.integers(low, high, shape, endpoint=True).astype(dtype)


# -- NumPy jit -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint8])
@pytest.mark.parametrize("shape", [(1,), (7, 13), (3, 1, 17)])
def test_small_integers_wrap_like_numpy(dtype, shape):
    a, b = _ints(dtype, shape), _ints(dtype, shape)

    @jit
    def f(a, b):
        return a + b, a - b, a * b, -a, a * 3 + 1

    with np.errstate(over="ignore"):
        expected = (a + b, a - b, a * b, -a, a * 3 + 1)
    for got, want in zip(f(a, b), expected):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", [(5,), (6, 9), (2, 3, 33)])
def test_uint8_is_unsigned(shape):
    """The ops whose result depends on the sign: values above 127 must
    compare, divide, reduce and convert as the unsigned numbers they
    are."""
    a = _ints(np.uint8, shape, 1)
    b = _ints(np.uint8, shape, 1)

    def f(a, b):
        return (a // b, a % b, a > b, a <= 128, np.maximum(a, b),
                np.minimum(a, b), a.astype(np.float32), a.astype(np.int64),
                a.max(axis=-1), a.min(axis=0), np.argmax(a, axis=-1),
                np.sort(a, axis=-1), a.sum(axis=-1, dtype=np.int64),
                np.abs(a))

    for got, want in zip(jit(f)(a, b), f(a, b)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_casts_to_and_from_uint8():
    x = np.array([0.0, 1.7, 127.9, 128.0, 200.5, 255.0], np.float32)
    i = np.array([-1, 0, 127, 128, 255, 256], np.int32)

    @jit
    def f(x, i):
        return x.astype(np.uint8), i.astype(np.uint8), \
            i.astype(np.uint8).astype(np.float64)

    got = f(x, i)
    np.testing.assert_array_equal(got[0], x.astype(np.uint8))
    np.testing.assert_array_equal(got[1], i.astype(np.uint8))
    np.testing.assert_array_equal(got[2], i.astype(np.uint8).astype(np.float64))


@pytest.mark.parametrize("dtype", [np.float16, BF16], ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", [(3, 5), (17, 33)])
def test_half_elementwise_rounds_per_op(dtype, shape):
    """Each op computes in f32 and rounds to the 16-bit type, as NumPy's
    float16 loops and ml_dtypes' bfloat16 loops do: bit-equal results."""
    a = RNG.standard_normal(shape).astype(dtype)
    b = (RNG.standard_normal(shape) + 3).astype(dtype)

    def f(a, b):
        return a * b + a, a / b, np.exp(a), np.tanh(a), np.maximum(a, b), \
            a < b, a.astype(np.float32), np.sqrt(b)

    for got, want in zip(jit(f)(a, b), f(a, b)):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.astype(np.float64),
                                   want.astype(np.float64), rtol=1e-2,
                                   atol=1e-3)


def test_float16_reductions_accumulate_in_float32():
    # 4096 ones: a float16 running sum stops at 2048; in f32 it is exact.
    x = np.ones((3, 4096), np.float16)
    got = jit(lambda x: x.sum(axis=-1))(x)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, np.full(3, 4096, np.float16))


@pytest.mark.parametrize("dtype", [np.float16, BF16], ids=["f16", "bf16"])
def test_half_matmul(dtype):
    a = RNG.standard_normal((13, 70)).astype(dtype)
    b = RNG.standard_normal((70, 9)).astype(dtype)
    got = jit(lambda a, b: a @ b)(a, b)
    assert got.dtype == dtype
    # f32 products and sums, rounded once: as the f32 product rounded.
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(dtype)
    np.testing.assert_allclose(got.astype(np.float32),
                               want.astype(np.float32), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("dtype", [np.complex64, np.uint64, np.uint16])
def test_unsupported_dtypes_are_refused_clearly(dtype):
    x = np.ones(3, dtype)
    with pytest.raises(TypeError, match=f"dtype {np.dtype(dtype)}.*supported"):
        jit(lambda x: x + 1)(x)


# -- PyTorch ---------------------------------------------------------------------

torch = pytest.importorskip("torch")
import tinytensor.torch as ttorch  # noqa: E402
from test_torch_ops import Fn, check  # noqa: E402


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_torch_half_model(dtype):
    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(24, 10)
            self.norm = torch.nn.LayerNorm(10)

        def forward(self, x):
            h = torch.nn.functional.gelu(self.linear(x))
            return torch.softmax(self.norm(h), -1), h.sum(0)

    model = Block().to(dtype).eval()
    x = torch.randn(7, 24, dtype=dtype)
    tol = 1e-2 if dtype == torch.float16 else 5e-2
    check(model, x, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [torch.int8, torch.int16, torch.uint8])
def test_torch_small_integers(dtype):
    info = torch.iinfo(dtype)
    a = torch.randint(info.min, info.max, (6, 11)).to(dtype)
    b = torch.randint(1, info.max, (6, 11)).to(dtype)

    def f(a, b):
        return (a + b, a * 3, a // b, a > b, torch.maximum(a, b),
                a.to(torch.float32) / 3, a.sum(), a.max(dim=1).values,
                (a.float() * 1.5).to(dtype), a.to(torch.int64) - b)

    check(Fn(f), a, b)


def test_torch_mixed_promotion():
    """PyTorch's promotion: uint8 with int8 gives int16, int8 with
    float16 gives float16, bfloat16 with float16 gives float32."""
    u = torch.randint(0, 255, (4, 5)).to(torch.uint8)
    i = torch.randint(-128, 127, (4, 5)).to(torch.int8)
    h = torch.randn(4, 5, dtype=torch.float16)
    b = torch.randn(4, 5, dtype=torch.bfloat16)
    check(Fn(lambda u, i, h, b: (u + i, i * h, h + b)), u, i, h, b,
          rtol=1e-2, atol=1e-2)


def test_quantize_dequantize_per_tensor_and_channel():
    # Registers the quantized_decomposed ops (as PT2E quantization does).
    import torch.ao.quantization.fx._decomposed  # noqa: F401
    q = torch.ops.quantized_decomposed

    def f(x, w):
        xq = q.quantize_per_tensor.default(x, 0.05, 3, -128, 127, torch.int8)
        xd = q.dequantize_per_tensor.default(xq, 0.05, 3, -128, 127,
                                              torch.int8)
        scales = torch.tensor([0.1, 0.02, 0.3])
        zeros = torch.tensor([0, 2, -1])
        wq = q.quantize_per_channel.default(w, scales, zeros, 0, 0, 255,
                                            torch.uint8)
        wd = q.dequantize_per_channel.default(wq, scales, zeros, 0, 0, 255,
                                              torch.uint8)
        return xq, wq, xd @ wd.t()

    check(Fn(f), torch.randn(5, 7) * 4, torch.randn(3, 7))


def test_int_mm():
    a = torch.randint(-128, 127, (17, 32)).to(torch.int8)
    b = torch.randint(-128, 127, (32, 8)).to(torch.int8)
    check(Fn(torch._int_mm), a, b)


C64, C128 = torch.complex64, torch.complex128


def _complex(*shape, dtype=C64):
    return torch.randn(*shape, dtype=dtype)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_torch_complex_arithmetic_and_views(dtype):
    """Complex tensors are carried as (real, imaginary) pairs: arithmetic,
    abs, conj, real/imag, views and slices, cat with real tensors."""
    a, b, r = _complex(3, 5, dtype=dtype), _complex(3, 5, dtype=dtype), \
        torch.randn(5, dtype=torch.float64)

    def f(a, b, r):
        return (a * b, a / b, a + r, a - 2, -a, a.abs(), a.conj() * b,
                a.real, a.imag, torch.view_as_real(a), a[1:, ::2].t(),
                torch.cat([a, r.expand(3, 5)]), a.sum(1), a.mean(),
                torch.linalg.vector_norm(a, 3, dim=1), torch.exp(a),
                torch.angle(a), a.to(torch.complex128))

    check(Fn(f), a, b, r)


def test_torch_complex_from_real():
    x, y = torch.rand(4, 6), torch.rand(4, 6)
    check(Fn(lambda x, y: (torch.complex(x, y), torch.polar(x, y),
                           torch.view_as_complex(torch.stack([x, y], -1)),
                           x.to(C64) * 1j)), x, y)


@pytest.mark.parametrize("shape, dims", [((16, 9), (-1,)), ((6, 8), (0,)),
                                         ((5, 7), (0, 1))])
def test_torch_fft(shape, dims):
    """Discrete Fourier transforms as products with cos and sin
    matrices."""
    x = torch.rand(*shape)
    check(Fn(lambda x: (torch.fft.rfftn(x, dim=dims),
                        torch.fft.fftn(x.to(C64), dim=dims),
                        torch.fft.ifft(x.to(C64), dim=dims[0],
                                       norm="ortho"))), x,
          rtol=1e-4, atol=1e-4)


def test_torch_unsupported_complex_op_is_named():
    with pytest.raises(ttorch.UnsupportedOpError,
                       match="sin of complex tensors"):
        ttorch.jit(Fn(torch.sin))(_complex(3))
