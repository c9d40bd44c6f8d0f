"""tinytensor.torch: op and module coverage, dtype promotion and errors for
unsupported operations, each checked against PyTorch eager.

Run as:
    PYTHONPATH=build/python_packages:python .venv/bin/python -m pytest -q \
        test/python/test_torch*.py
"""

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import tinytensor.torch as ttorch  # noqa: E402
from tinytensor.torch import UnsupportedOpError  # noqa: E402

RTOL, ATOL = 1e-5, 1e-6


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def check(model, *inputs, rtol=RTOL, atol=ATOL, equal_nan=False):
    run = ttorch.jit(model)
    got = run(*inputs)
    with torch.no_grad():
        expected = model(*inputs)
    # assert_close compares structure, shapes and dtypes too.
    torch.testing.assert_close(got, expected, rtol=rtol, atol=atol,
                               equal_nan=equal_nan)
    return got


class Fn(nn.Module):
    """A module whose forward is `fn(*inputs)`."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *inputs):
        return self.fn(*inputs)


def randn(*shape):
    return torch.randn(*shape)


def randint(*shape, dtype=torch.int64, low=-5, high=6):
    return torch.randint(low, high, shape, dtype=dtype)


def positive(*shape):
    return torch.rand(*shape) + 0.5


# -- modules ------------------------------------------------------------------

def _layer_norm(shape, **kwargs):
    ln = nn.LayerNorm(shape, **kwargs)
    if ln.weight is not None:
        with torch.no_grad():
            ln.weight.uniform_(0.5, 2.0)
            ln.bias.uniform_(-1, 1)
    return ln


class WithModuleList(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(6, 6), nn.ReLU(),
                                     nn.Linear(6, 6), nn.Identity()])
        self.heads = nn.ModuleList([nn.Linear(6, 2), nn.Linear(6, 3)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return [head(x) for head in self.heads]


MODULES = {
    "linear": (lambda: nn.Linear(8, 5), [(3, 8)]),
    "linear_3d_input": (lambda: nn.Linear(8, 5), [(2, 3, 8)]),
    "linear_1d_input": (lambda: nn.Linear(8, 5), [(8,)]),
    "linear_no_bias": (lambda: nn.Linear(8, 5, bias=False), [(3, 8)]),
    "relu": (nn.ReLU, [(4, 7)]),
    "relu_inplace": (lambda: nn.ReLU(inplace=True), [(4, 7)]),
    "gelu": (nn.GELU, [(4, 7)]),
    "gelu_tanh": (lambda: nn.GELU(approximate="tanh"), [(4, 7)]),
    "tanh": (nn.Tanh, [(4, 7)]),
    "sigmoid": (nn.Sigmoid, [(4, 7)]),
    "softmax_last": (lambda: nn.Softmax(dim=-1), [(3, 4, 5)]),
    "softmax_dim0": (lambda: nn.Softmax(dim=0), [(3, 4, 5)]),
    "log_softmax": (lambda: nn.LogSoftmax(dim=1), [(3, 4, 5)]),
    "layer_norm": (lambda: _layer_norm(8), [(2, 3, 8)]),
    "layer_norm_2d_shape": (lambda: _layer_norm((3, 8)), [(2, 3, 8)]),
    "layer_norm_no_affine": (
        lambda: nn.LayerNorm(8, elementwise_affine=False, eps=1e-3),
        [(5, 8)]),
    "dropout_eval": (lambda: nn.Dropout(0.4).eval(), [(4, 7)]),
    "flatten": (nn.Flatten, [(2, 3, 4, 5)]),
    "flatten_0_2": (lambda: nn.Flatten(0, 2), [(2, 3, 4, 5)]),
    "identity": (nn.Identity, [(4, 7)]),
    "sequential": (lambda: nn.Sequential(
        nn.Flatten(), nn.Linear(12, 9), nn.Sigmoid(), nn.Linear(9, 4),
        nn.LogSoftmax(dim=-1)), [(5, 3, 4)]),
    "nested_sequential": (lambda: nn.Sequential(
        nn.Sequential(nn.Linear(6, 6), nn.GELU()),
        nn.Sequential(_layer_norm(6), nn.Identity(), nn.Tanh())), [(3, 6)]),
    "module_list": (WithModuleList, [(4, 6)]),
}


@pytest.mark.parametrize("name", list(MODULES))
def test_module(name):
    make, shapes = MODULES[name]
    model = make()
    check(model, *[randn(*s) * 2 for s in shapes])


# -- functions and tensor methods ---------------------------------------------

A, B = (3, 4), (4, 5)

FUNCTIONS = {
    # matmul family
    "matmul_2d": (lambda a, b: torch.matmul(a, b), [A, B]),
    "matmul_3d_2d": (lambda a, b: a @ b, [(2, 3, 4), B]),
    "matmul_broadcast_batch": (lambda a, b: a @ b, [(2, 1, 3, 4),
                                                    (5, 4, 2)]),
    "matmul_vec": (lambda a, b: torch.matmul(a, b[:, 0]), [A, B]),
    "mm": (torch.mm, [A, B]),
    "bmm": (torch.bmm, [(2, 3, 4), (2, 4, 5)]),
    "addmm": (lambda c, a, b: torch.addmm(c, a, b), [(5,), A, B]),
    "addmm_alpha_beta": (lambda c, a, b: torch.addmm(c, a, b, beta=0.5,
                                                     alpha=2.0),
                         [(3, 5), A, B]),
    # arithmetic with tensors and Python scalars
    "add": (lambda x, y: x + y, [A, A]),
    "add_broadcast": (lambda x, y: x + y, [(3, 1), (4,)]),
    "add_alpha": (lambda x, y: torch.add(x, y, alpha=2), [A, A]),
    "sub": (lambda x, y: x - y, [A, A]),
    "sub_alpha": (lambda x, y: torch.sub(x, y, alpha=0.5), [A, A]),
    "mul": (lambda x, y: x * y, [A, (4,)]),
    "div": (lambda x, y: x / (y.abs() + 1), [A, A]),
    "scalar_add": (lambda x: x + 2, [A]),
    "scalar_radd": (lambda x: 2.5 + x, [A]),
    "scalar_rsub": (lambda x: 1 - x, [A]),
    "scalar_mul": (lambda x: x * 0.5, [A]),
    "scalar_div": (lambda x: x / 3, [A]),
    "scalar_rdiv": (lambda x: 2 / (x.abs() + 1), [A]),
    "pow_2": (lambda x: x ** 2, [A]),
    "pow_half": (lambda x: (x.abs() + 0.1) ** 0.5, [A]),
    "pow_tensor": (lambda x, y: x.abs() ** y, [A, A]),
    "neg": (lambda x: -x, [A]),
    "abs": (torch.abs, [A]),
    "exp_log": (lambda x: torch.log(torch.exp(x) + 1), [A]),
    "sqrt_rsqrt": (lambda x: torch.sqrt(x.abs()) + torch.rsqrt(x.abs() + 1),
                   [A]),
    "reciprocal": (lambda x: torch.reciprocal(x.abs() + 1), [A]),
    "clamp": (lambda x: torch.clamp(x, -0.5, 0.7), [A]),
    "clamp_min": (lambda x: x.clamp(min=0.1), [A]),
    "maximum_minimum": (lambda x, y: torch.maximum(x, y) -
                        torch.minimum(x, y), [A, A]),
    "tanh_sigmoid": (lambda x: torch.tanh(x) * torch.sigmoid(x), [A]),
    "erf": (torch.erf, [A]),
    # reductions
    "sum_all": (torch.sum, [(3, 4, 5)]),
    "sum_dim": (lambda x: x.sum(dim=1), [(3, 4, 5)]),
    "sum_dims_keepdim": (lambda x: x.sum(dim=(0, 2), keepdim=True),
                         [(3, 4, 5)]),
    "sum_negative_dim": (lambda x: torch.sum(x, -1), [(3, 4, 5)]),
    "mean_all": (torch.mean, [(3, 4, 5)]),
    "mean_dim": (lambda x: x.mean(-1), [(3, 4, 5)]),
    "mean_dims_keepdim": (lambda x: x.mean((0, -1), keepdim=True),
                          [(3, 4, 5)]),
    "var_all": (torch.var, [(3, 4, 5)]),
    "var_dim_unbiased": (lambda x: x.var(1), [(3, 4, 5)]),
    "var_dim_biased": (lambda x: x.var(1, unbiased=False), [(3, 4, 5)]),
    "var_correction0": (lambda x: torch.var(x, dim=(0, 2), correction=0),
                        [(3, 4, 5)]),
    "var_correction2_keepdim": (lambda x: torch.var(
        x, dim=(1, 2), correction=2, keepdim=True), [(3, 4, 5)]),
    "std": (lambda x: x.std(dim=-1, keepdim=True), [(3, 4, 5)]),
    "amax": (lambda x: torch.amax(x, dim=1), [(3, 4, 5)]),
    "amax_dims_keepdim": (lambda x: x.amax(dim=(0, 2), keepdim=True),
                          [(3, 4, 5)]),
    "amax_all": (lambda x: torch.amax(x, dim=(0, 1, 2)), [(3, 4, 5)]),
    "amin": (lambda x: torch.amin(x, dim=-1), [(3, 4, 5)]),
    "max_all": (torch.max, [(3, 4, 5)]),
    "min_all": (torch.min, [(3, 4, 5)]),
    # shapes
    "transpose": (lambda x: x.transpose(0, 2), [(2, 3, 4)]),
    "transpose_negative": (lambda x: torch.transpose(x, -1, -2), [(2, 3, 4)]),
    "t": (lambda x: x.t(), [A]),
    "T_2d": (lambda x: x.T, [A]),
    "permute": (lambda x: x.permute(2, 0, 1), [(2, 3, 4)]),
    "permute_negative": (lambda x: torch.permute(x, (-1, 0, 1)), [(2, 3, 4)]),
    "reshape": (lambda x: x.reshape(4, -1), [(2, 3, 4)]),
    "view": (lambda x: x.view(6, 4), [(2, 3, 4)]),
    "view_after_transpose": (lambda x: x.transpose(0, 1).reshape(3, 8),
                             [(2, 3, 4)]),
    "flatten_fn": (lambda x: torch.flatten(x, 1), [(2, 3, 4)]),
    "flatten_all": (lambda x: x.flatten(), [(2, 3, 4)]),
    "unsqueeze": (lambda x: x.unsqueeze(1).unsqueeze(-1), [(2, 3)]),
    "squeeze": (lambda x: x.squeeze(), [(2, 1, 3, 1)]),
    "squeeze_dim": (lambda x: x.squeeze(1), [(2, 1, 3, 1)]),
    "squeeze_non_unit_dim": (lambda x: x.squeeze(0), [(2, 1, 3, 1)]),
    "expand": (lambda x: x.expand(3, 4, 5) + 1, [(4, 1)]),
    "cat": (lambda x, y: torch.cat([x, y, x], dim=1), [(2, 3), (2, 5)]),
    "cat_dim0": (lambda x, y: torch.cat((x, y)), [(2, 3), (4, 3)]),
    "cat_negative_dim": (lambda x, y: torch.cat([x, y], -1),
                         [(2, 2, 3), (2, 2, 1)]),
    "split_equal": (lambda x: torch.split(x, 2, dim=1), [(3, 6)]),
    "split_uneven": (lambda x: x.split(4, dim=-1), [(3, 10)]),
    "split_sizes": (lambda x: torch.split(x, [1, 3, 2], dim=1), [(3, 6)]),
    "chunk": (lambda x: torch.chunk(x, 3, dim=0), [(6, 2)]),
    "chunk_uneven": (lambda x: x.chunk(3, dim=1), [(2, 7)]),
    "unbind": (lambda x: x.unbind(1), [(2, 3, 4)]),
    "stack": (lambda x, y: torch.stack([x, y], dim=1), [A, A]),
    "slice": (lambda x: x[:, 1:3] + x[:, -2:], [(3, 5)]),
    "slice_step": (lambda x: x[::2, 1::2], [(5, 6)]),
    "select": (lambda x: x[1] * x[-1, :, 0:1] + x[:, 2, -1].sum(),
               [(3, 4, 5)]),
    "index_none": (lambda x: x[None, :, None], [A]),
    # where and comparisons
    "where": (lambda x, y: torch.where(x > y, x, y * 2), [A, A]),
    "where_scalar": (lambda x: torch.where(x > 0, x, 0.0), [A]),
    "where_scalars": (lambda x: torch.where(x > 0, 1.0, -1.0), [A]),
    "masked_fill": (lambda x: x.masked_fill(x < 0, -1e9), [A]),
    "gt": (lambda x, y: x > y, [A, A]),
    "lt_scalar": (lambda x: x < 0.1, [A]),
    "ge": (lambda x, y: torch.ge(x, y), [A, (4,)]),
    "le_scalar": (lambda x: x <= 0, [A]),
    "eq": (lambda x: x == x.clamp(max=0), [A]),
    "eq_tensor": (lambda x, y: x == y, [A, A]),
    "ne_scalar": (lambda x: x != 0.5, [A]),
    "logical_not": (lambda x: ~(x > 0), [A]),
    "comparison_as_float": (lambda x: (x > 0).float() * x, [A]),
    "logical_and_or": (lambda x, y: ((x > 0) & (y > 0), (x > 0) | (y < 0)),
                       [A, A]),
    "logical_fns": (lambda x, y: (torch.logical_and(x, y > 0),
                                  torch.logical_or(x > 1, y),
                                  torch.logical_not(x)), [A, A]),
    "where_bool_operands": (lambda x, y: torch.where(x > y, x > 0, y > 0),
                            [A, A]),
    "max_dim_values": (lambda x: x.max(dim=1).values + x.min(-1)[0].sum(),
                       [(3, 4, 5)]),
    "max_dim_keepdim": (lambda x: x - x.max(dim=-1, keepdim=True)[0],
                        [(3, 4, 5)]),
    "leaky_relu_hardtanh_log1p": (lambda x: (F.leaky_relu(x, 0.2),
                                             F.hardtanh(x, -0.5, 0.5),
                                             torch.log1p(x.abs())), [A]),
    # tensors created in forward
    "ones_zeros_full": (lambda x: x + torch.ones(3, 4) - torch.zeros_like(x)
                        * torch.full((4,), 2.5), [A]),
    "full_like_int": (lambda x: torch.full_like(x, 7, dtype=torch.int64),
                      [A]),
    "constant_tensor": (lambda x: x * torch.tensor([1.0, -2.0, 3.0, 0.5]),
                        [A]),
    "arange": (lambda x: x + torch.arange(4), [A]),
    "arange_float": (lambda x: x * torch.arange(0.5, 2.5, 0.5), [A]),
    "causal_mask": (lambda x: x.masked_fill(
        torch.triu(torch.ones(4, 4), diagonal=1).bool(),
        float("-inf")).softmax(-1), [(2, 4, 4)]),
    "tril": (torch.tril, [(4, 4)]),
    "to_bool": (lambda x: (x * 0.3).bool(), [A]),
    "softmax_dtype": (lambda x: torch.softmax(x, -1, dtype=torch.float64),
                      [A]),
    # F.* counterparts
    "F.relu": (F.relu, [A]),
    "F.gelu": (F.gelu, [A]),
    "F.gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), [A]),
    "F.softmax": (lambda x: F.softmax(x, dim=-1), [(2, 3, 4)]),
    "F.softmax_dim1": (lambda x: F.softmax(x, dim=1), [(2, 3, 4)]),
    "F.log_softmax": (lambda x: F.log_softmax(x, dim=-1), [(2, 3, 4)]),
    "F.layer_norm": (lambda x, w, b: F.layer_norm(x, (4,), w, b),
                     [(2, 3, 4), (4,), (4,)]),
    "F.layer_norm_no_affine": (lambda x: F.layer_norm(x, (3, 4), eps=1e-3),
                               [(2, 3, 4)]),
    "F.linear": (lambda x, w, b: F.linear(x, w, b), [(3, 4), (5, 4), (5,)]),
    "F.linear_no_bias": (lambda x, w: F.linear(x, w), [(2, 3, 4), (5, 4)]),
    "F.dropout_not_training": (lambda x: F.dropout(x, 0.3, training=False),
                               [A]),
    "F.tanh_sigmoid": (lambda x: F.tanh(x) + F.sigmoid(x), [A]),
    "F.silu": (F.silu, [A]),
    "F.hardswish_hardsigmoid": (lambda x: (F.hardswish(x * 4),
                                           F.hardsigmoid(x * 4)), [A]),
    "F.leaky_relu": (lambda x: F.leaky_relu(x, 0.1), [A]),
    "F.softplus": (F.softplus, [A]),
    "F.relu6": (F.relu6, [A]),
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_function(name):
    fn, shapes = FUNCTIONS[name]
    check(Fn(fn), *[randn(*s) for s in shapes])


# -- dtype promotion as PyTorch does it ---------------------------------------

PROMOTION = {
    "int64_times_float_scalar": (lambda x: x * 2.5, [randint(3, 4)]),
    "int32_times_float_scalar": (lambda x: x * 2.5,
                                 [randint(3, 4, dtype=torch.int32)]),
    "int64_plus_int_scalar": (lambda x: x + 3, [randint(3, 4)]),
    "int32_plus_int_scalar": (lambda x: x + 3,
                              [randint(3, 4, dtype=torch.int32)]),
    "int32_times_int64": (lambda x, y: x * y,
                          [randint(3, 4, dtype=torch.int32), randint(3, 4)]),
    "int_true_division": (lambda x: x / 4, [randint(3, 4)]),
    "int_div_int": (lambda x, y: x / y,
                    [randint(3, 4), randint(3, 4, low=1, high=5)]),
    "float32_plus_float64": (lambda x, y: x + y,
                             [randn(3, 4), randn(3, 4).double()]),
    "float64_matmul": (lambda x, y: x @ y,
                       [randn(3, 4).double(), randn(4, 2).double()]),
    "float32_plus_int64": (lambda x, y: x + y, [randn(3, 4), randint(3, 4)]),
    "float32_times_float64_0d": (lambda x, y: x * y,
                                 [randn(3, 4),
                                  torch.tensor(1.5, dtype=torch.float64)]),
    "int_times_float_0d": (lambda x, y: x * y,
                           [randint(3, 4), torch.tensor(1.5)]),
    "float64_times_python_float": (lambda x: x * 0.1, [randn(3).double()]),
    "int_sum": (lambda x: x.sum(dim=1), [randint(3, 4)]),
    "int32_sum": (lambda x: x.sum(), [randint(3, 4, dtype=torch.int32)]),
    "bool_sum": (lambda x: (x > 0).sum(dim=0), [randn(3, 4)]),
    "int_amax": (lambda x: x.amax(dim=0), [randint(3, 4)]),
    "float_to_int": (lambda x: (x * 3).to(torch.int64), [randn(3, 4)]),
    "int_to_float64": (lambda x: x.double() + 0.5, [randint(3, 4)]),
    "int_comparison": (lambda x: x > 0, [randint(3, 4)]),
    "int_where": (lambda x: torch.where(x > 0, x, 0), [randint(3, 4)]),
    "bool_input": (lambda m, x: torch.where(m, x, -x),
                   [randn(3, 4) > 0, randn(3, 4)]),
    "int_neg_abs": (lambda x: -x.abs(), [randint(3, 4)]),
    "int_pow": (lambda x: x ** 2, [randint(3, 4)]),
    "float64_softmax": (lambda x: torch.softmax(x, -1),
                        [randn(3, 4).double()]),
    "float64_gelu": (lambda x: F.gelu(x), [randn(3, 4).double()]),
}


@pytest.mark.parametrize("name", list(PROMOTION))
def test_dtype_promotion(name):
    fn, inputs = PROMOTION[name]
    got = check(Fn(fn), *inputs)
    with torch.no_grad():
        assert got.dtype == fn(*inputs).dtype


class Float64Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3).double()
        self.ln = nn.LayerNorm(3).double()

    def forward(self, x):
        return F.gelu(self.ln(self.fc(x)))


def test_float64_model():
    got = check(Float64Model(), randn(2, 4).double(), rtol=1e-12, atol=1e-12)
    assert got.dtype == torch.float64


def test_int64_results_are_int64():
    got = check(Fn(lambda x: x * 2), randint(3))
    assert got.dtype == torch.int64


# -- unsupported operations name the op and where it is -----------------------

class Inner(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fn(self.fc(x))


class Outer(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.stem = nn.Linear(4, 4)
        self.body = nn.Sequential(nn.ReLU(), Inner(fn))

    def forward(self, x):
        return self.body(self.stem(x))


@pytest.mark.parametrize("fn, op", [
    (lambda x: torch.cummax(x, dim=1).values, "cummax"),
    (lambda x: torch.lgamma(x), "lgamma"),
    (lambda x: torch.digamma(x), "digamma"),
    (lambda x: torch.special.bessel_j0(x), "special_bessel_j0"),
])
def test_unsupported_op_names_op_and_module_path(fn, op):
    model = Outer(fn)
    with pytest.raises(UnsupportedOpError) as info:
        ttorch.compile(model, torch.randn(2, 4))
    message = str(info.value)
    assert op in message
    assert "'body.1'" in message  # the submodule path
    assert "Inner" in message
    with pytest.raises(UnsupportedOpError, match=op):
        ttorch.jit(model)(torch.randn(2, 4))


class LogGamma(nn.Module):
    def forward(self, x):
        return torch.lgamma(x)


class WithLogGamma(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Identity(), LogGamma(), nn.ReLU())
        self.head = nn.Linear(3 * 2 * 2, 2)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def test_unsupported_op_names_the_module():
    with pytest.raises(UnsupportedOpError) as info:
        ttorch.compile(WithLogGamma(), torch.randn(1, 3, 2, 2))
    message = str(info.value)
    assert "lgamma" in message
    assert "'features.1'" in message
    assert "LogGamma" in message


def test_unsupported_root_level_op():
    with pytest.raises(UnsupportedOpError) as info:
        ttorch.compile(Fn(lambda x: torch.lgamma(x)), torch.randn(3))
    assert "lgamma" in str(info.value)


def test_max_dim_indices():
    check(Outer(lambda x: x.max(dim=-1).indices.float()), torch.randn(2, 4))
    check(Fn(lambda x: torch.min(x, dim=0)), torch.randn(5, 3))


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_integer_division_with_rounding(mode):
    x = torch.tensor([[7, -7, 6, -6, 0, 5], [1, -1, 100, -100, 3, -3]])
    y = torch.tensor([[2, 2, -4, -4, 3, -5], [3, 3, 7, 7, -3, -3]])
    got = check(Fn(lambda a, b: torch.div(a, b, rounding_mode=mode)), x, y)
    assert got.dtype == torch.int64


def test_integer_floor_divide_operator():
    check(Fn(lambda a: a // 3), randint(4, 5, low=-20, high=20))


def test_floor_division_is_not_silently_true_division():
    model = Fn(lambda x, y: torch.div(x, y, rounding_mode="floor"))
    x, y = randn(3, 4) * 10, positive(3, 4)
    try:
        got = ttorch.jit(model)(x, y)
    except UnsupportedOpError as e:
        assert "rounding_mode" in str(e) or "div" in str(e)
    else:
        torch.testing.assert_close(got, model(x, y))


def test_fractional_var_correction_is_not_truncated():
    model = Fn(lambda x: torch.var(x, dim=1, correction=0.5))
    x = randn(3, 4)
    try:
        got = ttorch.jit(model)(x)
    except UnsupportedOpError as e:
        assert "correction" in str(e)
    else:
        torch.testing.assert_close(got, model(x))


@pytest.mark.parametrize("shape", [(17,), (3, 17), (5, 4, 9)], ids=str)
def test_sort_topk_argsort(shape):
    x = randn(*shape)
    x.view(-1)[::6] = float("nan")      # the largest, in both directions
    x.view(-1)[1::5] = 0.5              # ties keep their order (stable)
    k = min(3, shape[-1])
    check(Fn(lambda x: torch.sort(x, stable=True)), x, equal_nan=True)
    check(Fn(lambda x: torch.sort(x, dim=0, descending=True, stable=True)),
          x, equal_nan=True)
    check(Fn(lambda x: torch.argsort(x, dim=-1, stable=True)), x)
    y = randn(*shape)                   # no ties: topk's order is defined
    check(Fn(lambda y: torch.topk(y, k)), y)
    check(Fn(lambda y: torch.topk(y, 1, dim=0, largest=False)), y)
    check(Fn(lambda y: torch.sort(y.to(torch.int64) * 2 ** 40,
                                  descending=True, stable=True)), y * 4)


def test_topk_k_out_of_range_is_an_error():
    with pytest.raises(Exception, match="topk|k"):
        ttorch.jit(Fn(lambda x: torch.topk(x, 9)))(randn(3, 5))


def test_int64_is_computed_in_int64():
    # Values and results past the int32 range (x * 100000 used to wrap at
    # 2^31, off by 8.6e9), sums, cumulative sums, arange and argmax.
    model = Fn(lambda x: (x * 100000 + 1, (x * 100000).sum(dim=0),
                          torch.cumsum(x * 3, dim=1), torch.arange(7) + x[0],
                          torch.argmax(x, dim=1), x // 7, x % 7))
    x = torch.tensor([[2 ** 40, 1, -5, 100000, 3, -(2 ** 35), 0]] * 3)
    x[1] = torch.randint(-2 ** 40, 2 ** 40, (7,))
    got, expected = ttorch.jit(model)(x), model(x)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype == torch.int64
        assert torch.equal(g, e)


def test_generated_aten_table_is_current():
    import os
    from scripts_loader import ROOT, load_script
    module = load_script("gen-aten-table.py", "gen_aten_table")
    with open(os.path.join(ROOT, "docs", "reference", "ATenOps.md")) as f:
        assert f.read() == module.table(), \
            "run scripts/gen-aten-table.py and commit docs/reference/ATenOps.md"
