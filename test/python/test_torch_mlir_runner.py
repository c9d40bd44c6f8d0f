"""scripts/torch-mlir-e2e.py without a torch-mlir checkout (CI has none):
how it groups failures and what its summary counts. The full runs are
recorded in docs/testing.md."""

import io

from scripts_loader import load_script

runner = load_script("torch-mlir-e2e.py", "torch_mlir_e2e")


def result(name, outcome, message=""):
    return {"name": name, "outcome": outcome, "message": message,
            "stage": "", "seconds": 0.0}


def test_failures_of_one_kind_group_together():
    a = result("Atan2A_basic", "unsupported",
               "tinytensor.torch.errors.UnsupportedOpError: unsupported "
               "PyTorch operation 'aten.atan2.default' in module '<root>' "
               "(Atan2A), at File \"x.py\", line 3")
    b = result("Atan2B_basic", "unsupported",
               "tinytensor.torch.errors.UnsupportedOpError: unsupported "
               "PyTorch operation 'aten.atan2.default' in module '<root>' "
               "(Atan2B), at File \"y.py\", line 9")
    assert runner.error_kind(a) == runner.error_kind(b) == (
        "unsupported PyTorch operation 'aten.atan2.default'")
    # Sizes are generalised only where they vary between tests.
    r = result("Z_basic", "refused", "ValueError: argument 'lhs' of "
               "forward() has an empty dimension (3, 0)")
    assert runner.error_kind(r).endswith("empty dimension (N, N)")


def test_summary_counts_against_torch_mlir():
    results = [result("A_basic", "pass"),
               result("B_basic", "unsupported",
                      "UnsupportedOpError: unsupported PyTorch operation "
                      "'aten.x.default'"),
               result("C_basic", "timeout", "no result within 5 s"),
               result("D_basic", "pass")]
    out = io.StringIO()
    # torch-mlir fails D (so D passes only here) and passes A, B and C.
    runner.summarize(results, {"D_basic"}, {"conv": "ImportError: x"}, out)
    text = out.getvalue()
    assert "4 tests: pass 2, unsupported 1, timeout 1" in text
    assert ("TinyTensor passes 2; torch-mlir's FX importer + linalg passes "
            "3 of the same tests") in text
    assert "both pass 1; only TinyTensor 1" in text
    assert "conv (ImportError: x)" in text
    assert "2 tests torch-mlir passes and TinyTensor fails" in text
    assert "unsupported PyTorch operation 'aten.x.default'" in text
