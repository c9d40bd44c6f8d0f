//===- Convolution.h - The linalg form of tt.conv ---------------*- C++ -*-===//
//
// tt-to-linalg computes a convolution as one linalg.generic over the loops
//
//     (n, g, f, o1..od, c, k1..kd)      parallel x (3 + d), reduction x (1 + d)
//
// reading the padded input as [N, G, C, S1..Sd] at (n, g, c, o * s + k * dl),
// the weights as [G, F, C, K1..Kd] and accumulating into [N, G, F, O1..Od]
// (G groups of C input and F output channels each). Channels last, the
// input is [N, S1..Sd, G, C] and the result [N, O1..Od, G, F] (the same
// loops and weights). Back ends recognise this form with matchConvolution
// and choose how to compute it.
//
//===----------------------------------------------------------------------===//

#ifndef TINYTENSOR_CONVERSION_TTTOLINALG_CONVOLUTION_H
#define TINYTENSOR_CONVERSION_TTTOLINALG_CONVOLUTION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace mlir {
namespace tt {

/// The strides and dilations of a convolution's spatial axes.
struct ConvolutionGeometry {
  SmallVector<int64_t> strides;
  SmallVector<int64_t> dilations;
  /// Input [N, S..., G, C] and result [N, O..., G, F].
  bool channelsLast = false;
  int64_t spatialRank() const { return strides.size(); }
};

/// The generic above: `input` [N, G, C, S...] (already padded), `weight`
/// [G, F, C, K...], `init` [N, G, F, O...] (the sums start from it), or
/// their channels-last forms.
linalg::GenericOp buildConvolution(OpBuilder &b, Location loc, Value input,
                                   Value weight, Value init,
                                   const ConvolutionGeometry &geometry);

/// The body of a product: yields `acc + a * b` of its block arguments (a,
/// b, acc), floats or integers.
void buildMultiplyAccumulate(OpBuilder &b, Location loc, ValueRange args);

/// The geometry of `op` if it is a convolution in the form above (maps,
/// iterators and a multiply-accumulate body), else nothing.
std::optional<ConvolutionGeometry> matchConvolution(linalg::GenericOp op);

/// Adds the pattern that converts tt.conv.
void populateConvolutionLoweringPatterns(RewritePatternSet &patterns);

} // namespace tt
} // namespace mlir

#endif // TINYTENSOR_CONVERSION_TTTOLINALG_CONVOLUTION_H
