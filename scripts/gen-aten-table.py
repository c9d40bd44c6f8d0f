#!/usr/bin/env python3
"""Writes docs/reference/ATenOps.md: the ATen operations tinytensor.torch
compiles (the keys of importer.ATEN_OPS), grouped into families.

    PYTHONPATH=build/python_packages:python .venv/bin/python \\
        scripts/gen-aten-table.py

test_torch_ops.py checks that the committed table is up to date.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "build", "python_packages"),
                os.path.join(ROOT, "python")]

FAMILIES = [
    ("Arithmetic and comparison", [
        "add", "sub", "rsub", "mul", "div", "pow", "neg", "abs", "maximum",
        "minimum", "remainder", "fmod", "square", "reciprocal", "gt", "lt",
        "ge", "le", "eq", "ne", "where", "clamp", "clamp_min", "clamp_max",
        "addcmul", "addcdiv", "lerp", "isnan", "isinf", "isfinite"]),
    ("Elementwise functions", [
        "exp", "log", "tanh", "sqrt", "rsqrt", "erf", "sigmoid", "relu",
        "gelu", "hardswish", "hardsigmoid", "silu", "leaky_relu", "elu",
        "rrelu_with_noise_backward", "fmax",
        "fmin", "signbit", "ldexp", "fake_quantize_per_tensor_affine_cachemask", "hardtanh", "sin", "cos", "floor", "ceil", "trunc",
        "round", "sign", "log1p", "expm1", "exp2", "log2", "atan", "atan2",
        "arctan2", "tan", "asin", "acos", "sinh", "cosh", "asinh", "acosh",
        "atanh", "log10"]),
    ("Logical, bitwise and shifts", [
        "logical_not", "logical_and", "logical_or", "logical_xor", "bitwise_not",
        "bitwise_and", "bitwise_or", "bitwise_xor", "__and__", "__or__",
        "__xor__", "bitwise_left_shift", "bitwise_right_shift", "__lshift__",
        "__rshift__"]),
    ("Reductions and scans", [
        "sum", "mean", "var", "amax", "amin", "max", "min", "prod", "any",
        "all", "argmax", "argmin", "cumsum", "cumprod", "logcumsumexp", "_softmax", "softmax",
        "_log_softmax", "log_softmax", "native_layer_norm", "layer_norm",
        "linalg_vector_norm", "norm", "var_mean"]),
    ("Sorting", ["sort", "topk", "kthvalue", "bucketize"]),
    ("Linear algebra", ["_linalg_det", "_linalg_slogdet"]),
    ("Contractions", ["mm", "bmm", "matmul", "addmm", "addbmm", "linear",
                      "_int_mm",
                      "_trilinear"]),
    ("Quantization (PT2E's quantized_decomposed ops)", [
        "quantize_per_tensor", "dequantize_per_tensor", "quantize_per_channel",
        "dequantize_per_channel"]),
    ("Attention", ["scaled_dot_product_attention",
                   "_scaled_dot_product_flash_attention_for_cpu",
                   "_scaled_dot_product_flash_attention_for_cpu_backward",
                   "_native_multi_head_attention",
                   "_transformer_encoder_layer_fwd"]),
    ("Optimizer updates (each op over lists of tensors)", [
        "_foreach_add", "_foreach_sub", "_foreach_mul", "_foreach_div",
        "_foreach_pow", "_foreach_neg", "_foreach_abs", "_foreach_exp",
        "_foreach_sqrt", "_foreach_reciprocal", "_foreach_sign",
        "_foreach_maximum", "_foreach_minimum", "_foreach_clamp_min",
        "_foreach_clamp_max", "_foreach_addcmul", "_foreach_addcdiv",
        "_foreach_lerp"]),
    ("Vision", [
        "convolution", "_convolution", "conv_tbc", "convolution_backward",
        "max_pool2d_with_indices",
        "max_pool2d", "avg_pool2d", "max_pool3d_with_indices", "max_pool3d",
        "max_pool2d_with_indices_backward", "max_pool3d_with_indices_backward",
        "avg_pool3d",
        "avg_pool1d", "_adaptive_avg_pool2d", "adaptive_avg_pool2d",
        "adaptive_max_pool2d", "adaptive_max_pool3d", "_adaptive_avg_pool3d",
        "adaptive_avg_pool3d",
        "_native_batch_norm_legit_no_training",
        "_native_batch_norm_legit_functional", "_native_batch_norm_legit",
        "native_group_norm",
        "upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d",
        "upsample_linear1d", "upsample_bilinear2d", "upsample_trilinear3d",
        "upsample_nearest1d_backward", "upsample_nearest2d_backward",
        "upsample_nearest3d_backward",
        "constant_pad_nd"]),
    ("Random (counter-based, seeded from torch's generator)", [
        "rand", "rand_like", "randn", "randn_like", "randint", "uniform",
        "normal_functional", "exponential", "bernoulli", "multinomial",
        "dropout",
        "native_dropout", "rrelu_with_noise_functional"]),
    ("Indexing", ["embedding", "_embedding_bag", "_embedding_bag_forward_only",
                  "index", "index_select", "gather", "slice",
                  "select", "flip", "diagonal", "repeat", "unfold"]),
    ("Scatters", ["index_put", "_index_put_impl", "scatter", "scatter_add",
                  "scatter_reduce", "index_add", "index_copy",
                  "slice_scatter", "select_scatter"]),
    ("Shapes and layout", [
        "view", "_unsafe_view", "reshape", "permute", "t", "transpose",
        "unsqueeze", "squeeze", "flatten", "expand", "cat", "split",
        "split_with_sizes", "chunk", "tril", "triu", "collapse"]),
    ("Creation, conversion and no-ops", [
        "full", "full_like", "empty", "empty_like", "empty_permuted",
        "empty_strided", "new_empty_strided",
        "new_empty", "arange", "tril_indices", "triu_indices", "scalar_tensor", "_to_copy", "to",
        "convert_element_type",
        "clone", "contiguous", "alias",
        "detach", "lift_fresh_copy", "_assert_tensor_metadata", "copy",
        "item", "_local_scalar_dense", "_assert_scalar", "_assert_async",
        "sym_constrain_range", "iota", "truediv", "floordiv", "mod",
        "sym_constrain_range_for_size"]),
]


def table() -> str:
    from tinytensor.torch.importer import ATEN_OPS

    listed = [op for _, ops in FAMILIES for op in ops]
    missing = sorted(set(ATEN_OPS) - set(listed))
    unknown = sorted(set(listed) - set(ATEN_OPS))
    if missing or unknown:
        raise SystemExit(f"update FAMILIES: not listed {missing}, not "
                         f"implemented {unknown}")
    lines = ["# ATen operations tinytensor.torch compiles", "",
             "Generated by `scripts/gen-aten-table.py` from "
             "`tinytensor.torch.importer.ATEN_OPS`; the names are ATen "
             "overload packets (`aten.<name>.*`) as `torch.export` with "
             "`run_decompositions()` produces them. Any other operation "
             "is an `UnsupportedOpError` naming it and the submodule.", ""]
    for family, ops in FAMILIES:
        lines += [f"## {family}", "",
                  ", ".join(f"`{op}`" for op in ops), ""]
    lines.append(f"{len(ATEN_OPS)} operations in all.")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    path = os.path.join(ROOT, "docs", "reference", "ATenOps.md")
    with open(path, "w") as f:
        f.write(table())
    print(f"wrote {path}")
