//===- tinytensor-capi-test.c - TinyTensor's C API, used from C -----------===//
//
// Registers the tt dialect and TinyTensor's pipelines through the C API,
// parses a tt function, runs tt-optimize on it and prints the result (checked
// by FileCheck in capi.mlir). Exits non-zero if any step fails.
//
//===----------------------------------------------------------------------===//

#include "TinyTensor-c/Dialects.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#include <stdio.h>

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static void printErrorToStderr(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stderr);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__tt__(), ctx);
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__func__(), ctx);
  mlirContextLoadAllAvailableDialects(ctx);
  ttRegisterPasses();
  // Twice: registration must be idempotent (Python contexts all ask).
  ttRegisterPasses();

  const char *source = "func.func @f(%x: tensor<2x3xf32>, %b: tensor<3xf32>) "
                       "-> tensor<2x3xf32> {\n"
                       "  %0 = tt.add %x, %b : (tensor<2x3xf32>, "
                       "tensor<3xf32>) -> tensor<2x3xf32>\n"
                       "  %1 = tt.tanh %0 : tensor<2x3xf32>\n"
                       "  return %1 : tensor<2x3xf32>\n"
                       "}\n";
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "parse failed\n");
    return 1;
  }
  MlirOperation op = mlirModuleGetOperation(module);
  if (!mlirOperationVerify(op)) {
    fprintf(stderr, "verify failed\n");
    return 2;
  }
  // CHECK-LABEL: parsed:
  // CHECK: tt.add
  printf("parsed:\n");
  mlirOperationPrint(op, printToStdout, NULL);

  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      opm, mlirStringRefCreateFromCString("builtin.module(tt-optimize)"),
      printErrorToStderr, NULL);
  if (mlirLogicalResultIsFailure(parsed)) {
    fprintf(stderr, "\npipeline not found\n");
    return 3;
  }
  if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, op))) {
    fprintf(stderr, "pipeline failed\n");
    return 4;
  }
  // CHECK-LABEL: optimized:
  // CHECK-NOT: tt.
  // CHECK: linalg.generic
  // CHECK: math.tanh
  printf("\noptimized:\n");
  mlirOperationPrint(op, printToStdout, NULL);
  printf("\n");

  // An unknown pipeline is reported, not a crash.
  MlirPassManager bad = mlirPassManagerCreate(ctx);
  MlirLogicalResult unknown = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(bad),
      mlirStringRefCreateFromCString("builtin.module(tt-no-such-pipeline)"),
      printErrorToStderr, NULL);
  // CHECK: unknown pipeline rejected
  if (mlirLogicalResultIsSuccess(unknown))
    return 5;
  printf("unknown pipeline rejected\n");

  mlirPassManagerDestroy(bad);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
