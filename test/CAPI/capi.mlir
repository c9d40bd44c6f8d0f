// RUN: tinytensor-capi-test 2>&1 | FileCheck %S/tinytensor-capi-test.c
