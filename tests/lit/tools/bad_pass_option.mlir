// Bad pass options name the pass; a malformed pipeline points at the column.
// RUN: not pto-opt %S/Inputs/add.mlir -p 'canonicalize{nosuch=1}' 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not pto-opt %S/Inputs/add.mlir -p 'apply-eqsat-pdl{max_iterations=many}' 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not pto-opt %S/Inputs/add.mlir -p 'canonicalize{' 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not pto-opt %S/Inputs/add.mlir -t 'mlir{nosuch=1}' 2>&1 | FileCheck %s --check-prefix=TARGET

// NAME-NOT: Traceback
// NAME: pto-opt: error: invalid options for pass 'canonicalize': Provided arguments ["nosuch"] not found
// NAME-NOT: Traceback

// TYPE: pto-opt: error: invalid options for pass 'apply-eqsat-pdl': option 'max_iterations' takes int, given 'many'

// SYNTAX:      pto-opt: error: Error parsing pass pipeline specification:
// SYNTAX-NEXT: pass-pipeline:1:14
// SYNTAX-NEXT: canonicalize{
// SYNTAX-NOT:  Traceback

// TARGET: pto-opt: error: invalid options for target 'mlir': Provided arguments ["nosuch"] not found
