"""Convolution, pooling, batch norm and padding for the PyTorch front end,
composed from tt ops through the NumPy tracer (shapes are static, so every
window offset, padding and divisor is known while tracing).

- convolution: one `tt.conv` (1-3 spatial axes, stride, dilation,
  padding, groups; how it is computed is the back end's choice), a
  transposed convolution as the convolution it equals (input spread by the
  stride, weights regrouped and flipped);
- max / average pooling: the windows reduced with max or sum over the
  kernel axes; average divisors (count_include_pad, ceil_mode,
  divisor_override) are constants computed with NumPy;
- adaptive average pooling: PyTorch's bins, separably along each axis;
- batch norm in eval mode; constant padding (reflection and replication
  padding decompose into `index.Tensor`, which the tracer handles).
"""

from __future__ import annotations

from typing import List, Sequence

import numpy as np

from ..tracing import Tracer, as_tracer, current_trace
from ..types import is_float
from .errors import UnsupportedOpError


def _tuple(v, n: int) -> List[int]:
    if isinstance(v, (list, tuple)):
        v = [int(x) for x in v]
        return v * n if len(v) == 1 else v
    return [int(v)] * n


def _fill(shape, value, dtype) -> Tracer:
    return current_trace().constant(np.full(shape, value, dtype=dtype))


def _pad_axis(x: Tracer, axis: int, lo: int, hi: int, value) -> Tracer:
    """x padded with `value` (or cropped, for negative amounts) on one
    axis."""
    if lo < 0 or hi < 0:
        n = x.shape[axis]
        index = [slice(None)] * x.ndim
        index[axis] = slice(max(-lo, 0), n - max(-hi, 0))
        x = x[tuple(index)]
        lo, hi = max(lo, 0), max(hi, 0)
    parts = []
    for amount in (lo, None, hi):
        if amount is None:
            parts.append(x)
        elif amount > 0:
            shape = list(x.shape)
            shape[axis] = amount
            parts.append(_fill(shape, value, x.dtype))
    return np.concatenate(parts, axis=axis) if len(parts) > 1 else x


def _pad_spatial(x: Tracer, before: Sequence[int], after: Sequence[int],
                 value) -> Tracer:
    """Pads the trailing len(before) axes."""
    first = x.ndim - len(before)
    for i, (lo, hi) in enumerate(zip(before, after)):
        if lo or hi:
            x = _pad_axis(x, first + i, lo, hi, value)
    return x


def constant_pad_nd(x, pad, value=0):
    """PyTorch's pad list: (left, right) of the last axis, then of the one
    before, ..."""
    x = as_tracer(x)
    pad = [int(p) for p in pad]
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        raise UnsupportedOpError(f"constant_pad_nd with pad {pad} for a "
                                 f"tensor of rank {x.ndim}")
    for i in range(len(pad) // 2):
        x = _pad_axis(x, x.ndim - 1 - i, pad[2 * i], pad[2 * i + 1], value)
    return x


def windows(x: Tracer, axis: int, kernel, stride, dilation) -> Tracer:
    """tt.windows: x's axes [axis, axis + len(kernel)) replaced by window
    counts followed by the kernel sizes."""
    return Tracer(current_trace().builder.windows(x.value, axis, kernel,
                                                  stride, dilation))


def _out_size(size, kernel, stride, pad_lo, pad_hi, dilation, ceil_mode):
    span = size + pad_lo + pad_hi - dilation * (kernel - 1) - 1
    if ceil_mode:
        out = -(-span // stride) + 1
        # The last window must start inside the input or the left padding.
        if (out - 1) * stride >= size + pad_lo:
            out -= 1
    else:
        out = span // stride + 1
    return out


def _spread_axis(x: Tracer, axis: int, stride: int) -> Tracer:
    """x with stride - 1 zeros between consecutive elements of `axis`
    (the input of a transposed convolution)."""
    if stride == 1 or x.shape[axis] == 1:
        return x
    n = x.shape[axis]
    shape = list(x.shape)
    column = shape[:axis + 1] + [1] + shape[axis + 1:]
    zeros = list(column)
    zeros[axis + 1] = stride - 1
    spread = np.concatenate([x.reshape(column),
                             _fill(zeros, 0, x.dtype)], axis=axis + 1)
    shape[axis] = n * stride
    index = [slice(None)] * x.ndim
    index[axis] = slice(0, (n - 1) * stride + 1)
    return spread.reshape(shape)[tuple(index)]


def _transposed_as_convolution(x, w, stride, padding, dilation,
                               output_padding, groups):
    """A transposed convolution as the convolution it is the gradient of:
    the input spread by the stride and padded by dilation * (K - 1) - p
    (plus output_padding on the high side; cropped where negative), the
    weights [C, F / groups, K...] regrouped to [F, C / groups, K...] and
    flipped along each kernel axis."""
    nd = w.ndim - 2
    c, fg = w.shape[:2]
    kernel = list(w.shape[2:])
    cg = c // groups
    for i in range(nd):
        x = _spread_axis(x, 2 + i, stride[i])
    low, high = [], []
    for i in range(nd):
        edge = dilation[i] * (kernel[i] - 1) - padding[i]
        low.append(edge)
        high.append(edge + output_padding[i])
    # Negative amounts crop; positive ones are the convolution's padding.
    x = _pad_spatial(x, [min(p, 0) for p in low], [min(p, 0) for p in high],
                     0)
    w = w.reshape([groups, cg, fg] + kernel)
    w = np.transpose(w, [0, 2, 1] + list(range(3, 3 + nd)))
    w = w.reshape([groups * fg, cg] + kernel)
    w = w[(slice(None), slice(None)) + (slice(None, None, -1),) * nd]
    return x, w, [max(p, 0) for p in low], [max(p, 0) for p in high]


def convolution(x, weight, bias, stride, padding, dilation, transposed,
                output_padding, groups):
    """aten.convolution as one tt.conv (the back end chooses how to compute
    it); a transposed convolution as the convolution it equals."""
    x, w = as_tracer(x), as_tracer(weight)
    nd = w.ndim - 2
    if nd < 1 or x.ndim != nd + 2:
        raise UnsupportedOpError(f"convolution of a rank-{x.ndim} input "
                                 f"with rank-{w.ndim} weights")
    if x.dtype != w.dtype:
        raise UnsupportedOpError(f"convolution of a {x.dtype} input with "
                                 f"{w.dtype} weights")
    if not is_float(x.dtype):
        raise UnsupportedOpError(f"convolution of {x.dtype} tensors")
    stride, dilation = _tuple(stride, nd), _tuple(dilation, nd)
    kernel = list(w.shape[2:])
    groups = int(groups)
    if isinstance(padding, str):
        if padding == "valid":
            padding = [0] * nd
        elif padding == "same" and not transposed:
            total = [d * (k - 1) for d, k in zip(dilation, kernel)]
            low, high = [t // 2 for t in total], [t - t // 2 for t in total]
        else:
            raise UnsupportedOpError(f"convolution padding={padding!r}")
    if not isinstance(padding, str):
        padding = _tuple(padding, nd)
        low, high = list(padding), list(padding)
    c = x.shape[1]
    expected = w.shape[0] if transposed else w.shape[1] * groups
    if c != expected or (w.shape[0] % groups):
        raise UnsupportedOpError(
            f"convolution with {c} input channels, weights {list(w.shape)} "
            f"and groups={groups}")
    if transposed:
        x, w, low, high = _transposed_as_convolution(
            x, w, stride, padding, dilation,
            _tuple(output_padding, nd), groups)
        stride = [1] * nd
    for i in range(nd):
        span = dilation[i] * (kernel[i] - 1) + 1
        if x.shape[2 + i] + low[i] + high[i] < span:
            raise ValueError(
                f"convolution: the kernel {kernel} (dilation {dilation}) "
                f"does not fit the padded input {list(x.shape[2:])}")
    y = Tracer(current_trace().builder.conv(x.value, w.value, stride,
                                            dilation, low, high, groups))
    if bias is not None:
        y = y + as_tracer(bias).reshape([y.shape[1]] + [1] * nd)
    return y


def conv_tbc(x, weight, bias, pad=0):
    """aten.conv_tbc: a 1-D convolution of a time-major input [T, B, C]
    with weights [K, C, F], zero padding `pad` on both ends, result
    [T', B, F]."""
    x, w = as_tracer(x), as_tracer(weight)
    if x.ndim != 3 or w.ndim != 3:
        raise UnsupportedOpError(f"conv_tbc of a rank-{x.ndim} input with "
                                 f"rank-{w.ndim} weights")
    y = convolution(np.transpose(x, [1, 2, 0]), np.transpose(w, [2, 1, 0]),
                    bias, [1], [int(pad)], [1], False, [0], 1)
    return np.transpose(y, [2, 0, 1])


def _pool_geometry(x, kernel, stride, padding, dilation, ceil_mode, nd):
    kernel = _tuple(kernel, nd)
    stride = _tuple(stride, nd) if stride not in (None, [], ()) else kernel
    padding, dilation = _tuple(padding, nd), _tuple(dilation, nd)
    sizes = x.shape[-nd:]
    out = [_out_size(s, k, st, p, p, d, ceil_mode) for s, k, st, p, d in
           zip(sizes, kernel, stride, padding, dilation)]
    if any(o <= 0 for o in out):
        raise ValueError(f"pooling: the window {kernel} does not fit the "
                         f"input {list(sizes)}")
    # Right padding so that every window (also ceil mode's last) fits.
    after = [(o - 1) * st + d * (k - 1) + 1 - s - p for o, st, d, k, s, p in
             zip(out, stride, dilation, kernel, sizes, padding)]
    return kernel, stride, padding, dilation, out, after


def max_pool(x, kernel_size, stride=(), padding=0, dilation=1,
             ceil_mode=False, nd=2):
    x = as_tracer(x)
    kernel, stride, padding, dilation, out, after = _pool_geometry(
        x, kernel_size, stride, padding, dilation, ceil_mode, nd)
    lowest = -np.inf if is_float(x.dtype) else np.iinfo(x.dtype).min
    x = _pad_spatial(x, padding, [max(a, 0) for a in after], lowest)
    kernel_axes = tuple(range(x.ndim, x.ndim + nd))
    return np.max(windows(x, x.ndim - nd, kernel, stride, dilation),
                  axis=kernel_axes)


def max_pool_with_indices(x, kernel_size, stride=(), padding=0, dilation=1,
                          ceil_mode=False, nd=2):
    """Max pooling and, for each output, the index of its first largest
    input within the flattened spatial plane (what max_pool2d_with_indices
    returns and its backward reads)."""
    x = as_tracer(x)
    kernel, stride, padding, dilation, out, after = _pool_geometry(
        x, kernel_size, stride, padding, dilation, ceil_mode, nd)
    sizes = [int(s) for s in x.shape[-nd:]]
    lowest = -np.inf if is_float(x.dtype) else np.iinfo(x.dtype).min
    padded = _pad_spatial(x, padding, [max(a, 0) for a in after], lowest)
    w = windows(padded, padded.ndim - nd, kernel, stride, dilation)
    lead = tuple(int(d) for d in w.shape[:w.ndim - nd])
    count = int(np.prod(kernel))
    flat = np.reshape(w, lead + (count,))
    values = np.max(flat, axis=-1)
    # Each kernel element's offset in the flattened input plane, and each
    # window's start there: the index is the start plus the offset of the
    # window's first largest element (the smallest offset among them, as
    # offsets grow with the kernel position; the first NaN where there is
    # one, as PyTorch). No division: the arithmetic is int32 while the
    # plane allows it.
    strides = [int(np.prod(sizes[i + 1:], dtype=np.int64)) for i in range(nd)]
    itype = np.int32 if int(np.prod(sizes, dtype=np.int64)) + \
        sum(p * s for p, s in zip(padding, strides)) < 2 ** 31 - 1 \
        else np.int64
    offsets = np.zeros(count, dtype=itype)
    for k, position in enumerate(np.ndindex(*kernel)):
        offsets[k] = sum(position[i] * dilation[i] * strides[i]
                         for i in range(nd))
    hit = (flat == values[..., None]) | (flat != flat)
    within = np.min(np.where(hit, offsets, np.iinfo(itype).max), axis=-1)
    index = within
    for i in range(nd):
        shape = [1] * (len(lead) - nd) + [out[j] if j == i else 1
                                           for j in range(nd)]
        start = (np.arange(out[i], dtype=np.int64) * stride[i] -
                 padding[i]) * strides[i]
        index = index + start.astype(itype).reshape(shape)
    index = index.astype(np.int64)
    return values, index


def max_pool_backward(grad_output, x, kernel_size, stride, padding,
                      dilation, ceil_mode, indices, nd=2):
    """max_pool{2,3}d_with_indices_backward: each output's gradient added
    at the input position its index names (a scatter over the flattened
    input)."""
    from .scatter import _scatter_rows
    x = as_tracer(x)
    shape = tuple(int(d) for d in x.shape)
    plane = int(np.prod(shape[-nd:], dtype=np.int64))
    planes = int(np.prod(shape[:-nd], dtype=np.int64))
    grad = as_tracer(grad_output).astype(x.dtype)
    per_plane = int(np.prod(grad.shape[-nd:], dtype=np.int64))
    offsets = (np.arange(planes, dtype=np.int64) * plane).reshape(
        tuple(int(d) for d in grad.shape[:-nd]) + (1,) * nd)
    index = as_tracer(indices).astype(np.int64) + offsets
    total = planes * per_plane
    out = _scatter_rows("add", np.zeros((planes * plane,), x.dtype),
                        np.reshape(index, (total,)),
                        np.reshape(grad, (total,)))
    return np.reshape(out, shape)


def _counts(size, kernel, stride, pad, out, include_pad) -> np.ndarray:
    """Elements of each window along one axis that the divisor counts."""
    counts = []
    for o in range(out):
        start = o * stride - pad
        lo, hi = (-pad, size + pad) if include_pad else (0, size)
        counts.append(max(0, min(start + kernel, hi) - max(start, lo)))
    return np.array(counts, dtype=np.float64)


def avg_pool(x, kernel_size, stride=(), padding=0, ceil_mode=False,
             count_include_pad=True, divisor_override=None, nd=2):
    x = as_tracer(x)
    integer = not is_float(x.dtype)
    if integer:  # PyTorch sums in int64 and divides, truncating
        if x.dtype == np.bool_:
            raise UnsupportedOpError("avg_pool of a boolean tensor")
        dtype = x.dtype
        x = x.astype(np.int64)
    kernel, stride, padding, dilation, out, after = _pool_geometry(
        x, kernel_size, stride, padding, 1, ceil_mode, nd)
    sizes = x.shape[-nd:]
    x = _pad_spatial(x, padding, [max(a, 0) for a in after], 0)
    kernel_axes = tuple(range(x.ndim, x.ndim + nd))
    total = np.sum(windows(x, x.ndim - nd, kernel, stride, dilation),
                   axis=kernel_axes)
    if divisor_override:
        divisor = np.asarray(divisor_override, np.float64)
    else:
        divisor = np.ones((), np.float64)
        for s, k, st, p, o in zip(sizes, kernel, stride, padding, out):
            divisor = np.multiply.outer(divisor, _counts(s, k, st, p, o,
                                                         count_include_pad))
    if integer:
        d = current_trace().constant(divisor.astype(np.int64))
        magnitude = np.abs(total) // d
        return np.where(total < 0, -magnitude, magnitude).astype(dtype)
    return total / current_trace().constant(divisor.astype(x.dtype))


def adaptive_avg_pool(x, output_size, nd=2):
    """PyTorch's bins: [floor(i*L/O), ceil((i+1)*L/O)), mean per bin, one
    axis after the other."""
    x = as_tracer(x)
    output_size = _tuple(output_size, nd)
    for i, o in enumerate(output_size):
        axis = x.ndim - nd + i
        size = x.shape[axis]
        o = size if o is None else int(o)
        if o == size:
            continue
        bins = []
        for j in range(o):
            lo, hi = (j * size) // o, -(-((j + 1) * size) // o)
            index = [slice(None)] * x.ndim
            index[axis] = slice(lo, hi)
            bins.append(np.mean(x[tuple(index)], axis=axis, keepdims=True))
        x = np.concatenate(bins, axis=axis) if len(bins) > 1 else bins[0]
    return x


def batch_norm_eval(x, weight, bias, running_mean, running_var, momentum,
                    eps):
    """_native_batch_norm_legit_no_training: (y, empty, empty)."""
    x = as_tracer(x)
    shape = [1, x.shape[1]] + [1] * (x.ndim - 2)
    mean = as_tracer(running_mean).reshape(shape)
    var = as_tracer(running_var).reshape(shape)
    y = (x - mean) / np.sqrt(var + x.dtype.type(eps))
    if weight is not None:
        y = y * as_tracer(weight).reshape(shape)
    if bias is not None:
        y = y + as_tracer(bias).reshape(shape)
    return y, None, None


def batch_norm_train(x, weight, bias, running_mean, running_var, training,
                     momentum, eps):
    """_native_batch_norm_legit_functional (AOTAutograd's form of batch
    norm, training or not): (y, mean, 1 / std, new running mean, new
    running variance). In training, y uses the batch's mean and biased
    variance over every axis but the channels, and the running stats move
    towards the mean and the unbiased variance by `momentum`."""
    x = as_tracer(x)
    if not training:
        y, _, _ = batch_norm_eval(x, weight, bias, running_mean, running_var,
                                  momentum, eps)
        empty = np.zeros((0,), x.dtype)
        return y, empty, empty, running_mean, running_var
    shape = [1, x.shape[1]] + [1] * (x.ndim - 2)
    axes = (0,) + tuple(range(2, x.ndim))
    count = int(np.prod([x.shape[a] for a in axes]))
    mean = np.mean(x, axis=axes, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(var + x.dtype.type(eps))
    y = centred * rstd
    if weight is not None:
        y = y * as_tracer(weight).reshape(shape)
    if bias is not None:
        y = y + as_tracer(bias).reshape(shape)
    flat_mean, flat_var = mean.reshape(-1), var.reshape(-1)
    new_mean, new_var = running_mean, running_var
    if running_mean is not None:
        new_mean = (1 - momentum) * as_tracer(running_mean) + \
            momentum * flat_mean
    if running_var is not None:
        unbiased = flat_var * (count / max(count - 1, 1))
        new_var = (1 - momentum) * as_tracer(running_var) + \
            momentum * unbiased
    return y, flat_mean, rstd.reshape(-1), new_mean, new_var


def batch_norm_legit(x, weight, bias, *args):
    """_native_batch_norm_legit (.default: with running stats, which the
    functionalised graph does not update here; .no_stats: without):
    (y, mean, 1 / std) of the batch in training, or of the running stats."""
    if len(args) == 3:  # .no_stats: training, momentum, eps
        running_mean = running_var = None
        training, momentum, eps = args
    else:
        running_mean, running_var, training, momentum, eps = args
    if not training and running_mean is None:
        raise UnsupportedOpError("batch norm in eval mode without running "
                                 "statistics")
    y, mean, rstd, _, _ = batch_norm_train(x, weight, bias, running_mean,
                                           running_var, training, momentum,
                                           eps)
    return y, mean, rstd


def index_tensor(x, indices):
    """aten.index.Tensor: advanced indexing with a list of optional index
    tensors (None keeps the axis)."""
    key = tuple(slice(None) if i is None else i for i in indices)
    return as_tracer(x)[key]


def group_norm(x, weight, bias, n, channels, spatial, groups, eps):
    """aten.native_group_norm: (y, mean [N, G], 1 / std [N, G]), each
    group of channels normalised over its channels and positions."""
    x = as_tracer(x)
    shape = tuple(int(d) for d in x.shape)
    grouped = np.reshape(x, (int(n), int(groups), -1))
    mean = np.mean(grouped, axis=2, keepdims=True)
    centred = grouped - mean
    var = np.mean(centred * centred, axis=2, keepdims=True)
    rstd = 1 / np.sqrt(var + x.dtype.type(eps))
    y = np.reshape(centred * rstd, shape)
    per_channel = [1, int(channels)] + [1] * (len(shape) - 2)
    if weight is not None:
        y = y * np.reshape(as_tracer(weight), per_channel)
    if bias is not None:
        y = y + np.reshape(as_tracer(bias), per_channel)
    return y, np.reshape(mean, (int(n), int(groups))), \
        np.reshape(rstd, (int(n), int(groups)))


def _scales_argument(scales):
    """The scale factors of both overloads of the upsampling ops: one per
    axis as separate arguments, or .vec's one list (or None); None when
    none is given."""
    if len(scales) == 1 and (scales[0] is None or
                             isinstance(scales[0], (list, tuple))):
        scales = scales[0]
    if scales is None or all(s is None for s in scales):
        return None
    return list(scales)


def _resize_geometry(sizes, output_size, scales, what: str):
    """The output size and the scale factor (None: in / out) of each
    spatial axis of a resize from `sizes`, given its output size or its
    scale factors."""
    nd = len(sizes)
    if output_size is None:
        if scales is None:
            raise ValueError(f"{what}: neither output_size nor "
                             f"scale_factors")
        output_size = [int(np.floor(s * f)) for s, f in zip(sizes, scales)]
    if isinstance(scales, (int, float)) or scales is None:
        scales = [scales] * nd
    return [int(o) for o in output_size], list(scales)


def _nearest_sources(size: int, out: int, scale_factor) -> np.ndarray:
    """The input position each of `out` positions reads in PyTorch's
    "nearest": floor(o * scale), scale = in / out or 1 / the factor."""
    scale = size / out if scale_factor is None else 1.0 / scale_factor
    return np.minimum(np.floor(np.arange(out, dtype=np.float64) *
                               np.float32(scale)).astype(np.int64), size - 1)


def upsample_nearest(x, output_size=None, scales=None):
    """aten.upsample_nearest{1,2,3}d: output position o of each spatial
    axis reads input floor(o * scale), scale = in / out (or 1 / the given
    scale factor), as PyTorch's "nearest" computes it."""
    x = as_tracer(x)
    sizes = [int(d) for d in x.shape[2:]]
    output_size, scales = _resize_geometry(sizes, output_size, scales,
                                           "upsample_nearest")
    for i, (size, out) in enumerate(zip(sizes, output_size)):
        x = np.take(x, _nearest_sources(size, out, scales[i]), axis=2 + i)
    return x


def upsample_nearest_aten(x, output_size, *scales):
    """Both overloads of aten.upsample_nearest{1,2,3}d: (x, output_size,
    scales per axis...) and .vec (x, output_size or None, scale_factors or
    None)."""
    return upsample_nearest(x, output_size, _scales_argument(scales))


def unfold(x, dimension: int, size: int, step: int):
    """aten.unfold (Tensor.unfold): the windows of `size` elements every
    `step` along `dimension`, their count in its place and their elements
    as a new last axis."""
    x = as_tracer(x)
    if size == 0:
        raise UnsupportedOpError("unfold with size 0 makes an empty tensor "
                                 "(empty tensors are not supported)")
    if x.ndim == 0:
        if size != 1:
            raise ValueError(f"unfold: size {size} of a 0-d tensor (at "
                             f"most 1)")
        return np.reshape(x, (1,))
    axis = dimension % x.ndim
    if size > int(x.shape[axis]):
        raise ValueError(f"unfold: size {size} is larger than dimension "
                         f"{dimension} ({int(x.shape[axis])})")
    w = windows(x, axis, [int(size)], [int(step)], [1])
    order = [d for d in range(w.ndim) if d != axis + 1] + [axis + 1]
    return np.transpose(w, order)


def adaptive_max_pool(x, output_size, nd=2):
    """aten.adaptive_max_pool{1,2,3}d: the maximum of each of PyTorch's
    bins ([floor(i*L/O), ceil((i+1)*L/O)) along each axis) and the flat
    index (within the spatial plane) of its first occurrence in row-major
    order, NaN winning as in PyTorch. The innermost axis is reduced first,
    so that along each outer axis the first row holding the maximum wins,
    and within it the first column."""
    x = as_tracer(x)
    output_size = _tuple(output_size, nd)
    spatial = tuple(int(d) for d in x.shape[-nd:])
    plane = np.arange(int(np.prod(spatial)), dtype=np.int64).reshape(spatial)
    flat = np.broadcast_to(as_tracer(plane), tuple(x.shape))
    for i in reversed(range(nd)):
        axis = x.ndim - nd + i
        size = x.shape[axis]
        o = size if output_size[i] is None else int(output_size[i])
        values, indices = [], []
        for j in range(o):
            lo, hi = (j * size) // o, -(-((j + 1) * size) // o)
            index = [slice(None)] * x.ndim
            index[axis] = slice(lo, hi)
            part, part_flat = x[tuple(index)], flat[tuple(index)]
            values.append(np.max(part, axis=axis, keepdims=True))
            if hi - lo == 1:
                indices.append(part_flat)
                continue
            first = np.argmax(part, axis=axis, keepdims=True)
            shape = [1] * x.ndim
            shape[axis] = hi - lo
            position = np.arange(hi - lo, dtype=first.dtype).reshape(shape)
            indices.append(np.sum(np.where(position == first, part_flat,
                                           np.int64(0)),
                                  axis=axis, keepdims=True))
        x = np.concatenate(values, axis=axis) if o > 1 else values[0]
        flat = np.concatenate(indices, axis=axis) if o > 1 else indices[0]
    return x, flat


def upsample_linear(x, output_size, align_corners, scales=None):
    """aten.upsample_{linear1d,bilinear2d,trilinear3d}: separable linear
    interpolation. Output position o reads input position
    src = (o + 0.5) * scale - 0.5 (at least 0), scale = in / out (or 1 /
    the given scale factor), or src = o * (in - 1) / (out - 1) with
    align_corners, between floor(src) and the next position, as PyTorch's
    area_pixel_compute_source_index computes it (in float32)."""
    x = as_tracer(x)
    sizes = [int(d) for d in x.shape[2:]]
    output_size, scales = _resize_geometry(sizes, output_size, scales,
                                           "upsample")
    wide = np.float64 if x.dtype == np.float64 else np.float32
    for i, (size, out) in enumerate(zip(sizes, output_size)):
        o = np.arange(out, dtype=np.float32)
        if align_corners:
            scale = np.float32((size - 1) / (out - 1)) if out > 1 else 0.0
            src = o * scale
        else:
            scale = np.float32(size / out if scales[i] is None
                               else 1.0 / scales[i])
            src = np.maximum((o + np.float32(0.5)) * scale - np.float32(0.5),
                             np.float32(0))
        low = np.minimum(np.floor(src).astype(np.int64), size - 1)
        high = np.minimum(low + 1, size - 1)
        weight = (src - low).astype(wide)
        shape = [1] * x.ndim
        shape[2 + i] = out
        weight = weight.reshape(shape)
        x = np.take(x, low, axis=2 + i) * (1 - weight).astype(x.dtype) + \
            np.take(x, high, axis=2 + i) * weight.astype(x.dtype)
    return x


def upsample_linear_aten(x, output_size, align_corners, *scales):
    """Both overloads: (x, output_size, align_corners, scales per axis...)
    and .vec (x, output_size or None, align_corners, scale_factors or
    None)."""
    return upsample_linear(x, output_size, align_corners,
                           _scales_argument(scales))


def upsample_nearest_backward(grad, output_size, input_size, *scales):
    """aten.upsample_nearest{1,2,3}d_backward: each input position gets the
    sum of the gradients of the output positions that read it (forward:
    `upsample_nearest`), per spatial axis a product with a 0/1 matrix."""
    grad = as_tracer(grad)
    sizes = [int(d) for d in input_size[2:]]
    output_size, scales = _resize_geometry(sizes, output_size,
                                           _scales_argument(scales),
                                           "upsample_nearest_backward")
    for i, (size, out) in enumerate(zip(sizes, output_size)):
        src = _nearest_sources(size, out, scales[i])
        reads = (src[:, None] == np.arange(size)[None, :]).astype(grad.dtype)
        axis = 2 + i
        order = [d for d in range(grad.ndim) if d != axis] + [axis]
        back = list(np.argsort(order))
        grad = np.transpose(np.transpose(grad, order) @ reads, back)
    return grad


def convolution_backward(grad, x, weight, bias_sizes, stride, padding,
                         dilation, transposed, output_padding, groups,
                         output_mask):
    """aten.convolution_backward of a convolution (not transposed):
    (grad_input, grad_weight, grad_bias), each where output_mask asks.
    grad_input is the transposed convolution of the gradient (with the
    output padding that gives back the input's size); grad_weight is, per
    group, the convolution of the input (channels as the batch) with the
    gradient (batch as the channels), strides and dilations swapped,
    cropped to the kernel; grad_bias sums the gradient over all but the
    channels."""
    if transposed:
        raise UnsupportedOpError("convolution_backward of a transposed "
                                 "convolution")
    grad, x, w = as_tracer(grad), as_tracer(x), as_tracer(weight)
    nd = w.ndim - 2
    stride, dilation = _tuple(stride, nd), _tuple(dilation, nd)
    padding = _tuple(padding, nd)
    groups = int(groups)
    kernel = [int(k) for k in w.shape[2:]]
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        extra = []
        for i in range(nd):
            size = (int(grad.shape[2 + i]) - 1) * stride[i] - 2 * padding[i] \
                + dilation[i] * (kernel[i] - 1) + 1
            extra.append(int(x.shape[2 + i]) - size)
        grad_input = convolution(grad, w, None, stride, padding, dilation,
                                 True, extra, groups)
    if output_mask[1]:
        c_in = int(x.shape[1]) // groups
        c_out = int(w.shape[0]) // groups
        spatial = list(range(2, 2 + nd))
        parts = []
        for g in range(groups):
            xg = x[:, g * c_in:(g + 1) * c_in]
            gg = grad[:, g * c_out:(g + 1) * c_out]
            # (c_in, n, ...) convolved with (c_out, n, ...): (c_in, c_out, ...)
            out = convolution(np.transpose(xg, [1, 0] + spatial),
                              np.transpose(gg, [1, 0] + spatial), None,
                              dilation, padding, stride, False,
                              [0] * nd, 1)
            crop = (slice(None), slice(None)) + tuple(
                slice(0, k) for k in kernel)
            parts.append(np.transpose(out[crop], [1, 0] + spatial))
        grad_weight = parts[0] if groups == 1 else \
            np.concatenate(parts, axis=0)
    if output_mask[2]:
        grad_bias = np.sum(grad, axis=tuple([0] + list(range(2, 2 + nd))))
    return grad_input, grad_weight, grad_bias


ATEN_OPS = {
    "convolution_backward": convolution_backward,
    "upsample_nearest1d_backward": upsample_nearest_backward,
    "upsample_nearest2d_backward": upsample_nearest_backward,
    "upsample_nearest3d_backward": upsample_nearest_backward,
    "_adaptive_avg_pool3d": lambda x, size: adaptive_avg_pool(
        x, size, nd=3),
    "adaptive_avg_pool3d": lambda x, size: adaptive_avg_pool(
        x, size, nd=3),
    "unfold": unfold,
    "native_group_norm": group_norm,
    "upsample_linear1d": upsample_linear_aten,
    "upsample_bilinear2d": upsample_linear_aten,
    "upsample_trilinear3d": upsample_linear_aten,
    "upsample_nearest1d": upsample_nearest_aten,
    "upsample_nearest2d": upsample_nearest_aten,
    "upsample_nearest3d": upsample_nearest_aten,
    "convolution": convolution,
    # cuDNN's flags (benchmark, deterministic, cudnn_enabled, allow_tf32)
    # choose among kernels of equal results.
    "_convolution": lambda x, w, b, stride, padding, dilation, transposed,
        output_padding, groups, *flags: convolution(
            x, w, b, stride, padding, dilation, transposed, output_padding,
            groups),
    "conv_tbc": conv_tbc,
    "max_pool2d_with_indices": max_pool_with_indices,
    "max_pool2d_with_indices_backward": max_pool_backward,
    "max_pool3d_with_indices_backward":
        lambda *args: max_pool_backward(*args, nd=3),
    "max_pool2d": lambda x, kernel_size, stride=(), padding=0, dilation=1,
        ceil_mode=False: max_pool(x, kernel_size, stride, padding,
                                  dilation, ceil_mode),
    "max_pool3d_with_indices": lambda x, kernel_size, stride=(), padding=0,
        dilation=1, ceil_mode=False: max_pool_with_indices(
            x, kernel_size, stride, padding, dilation, ceil_mode, nd=3),
    "max_pool3d": lambda x, kernel_size, stride=(), padding=0, dilation=1,
        ceil_mode=False: max_pool(x, kernel_size, stride, padding,
                                  dilation, ceil_mode, nd=3),
    "avg_pool3d": lambda x, kernel_size, stride=(), padding=0,
        ceil_mode=False, count_include_pad=True, divisor_override=None:
        avg_pool(x, kernel_size, stride, padding, ceil_mode,
                 count_include_pad, divisor_override, nd=3),
    "avg_pool2d": avg_pool,
    "avg_pool1d": lambda x, kernel_size, stride=(), padding=0,
        ceil_mode=False, count_include_pad=True: avg_pool(
            x, kernel_size, stride, padding, ceil_mode, count_include_pad,
            nd=1),
    "adaptive_max_pool2d": adaptive_max_pool,
    "adaptive_max_pool3d": lambda x, output_size:
        adaptive_max_pool(x, output_size, nd=3),
    "_adaptive_avg_pool2d": adaptive_avg_pool,
    "adaptive_avg_pool2d": adaptive_avg_pool,
    "_native_batch_norm_legit_no_training": batch_norm_eval,
    "_native_batch_norm_legit_functional": batch_norm_train,
    "_native_batch_norm_legit": batch_norm_legit,
    "constant_pad_nd": constant_pad_nd,
    "index": index_tensor,
}
