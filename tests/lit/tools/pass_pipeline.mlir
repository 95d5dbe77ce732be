// -p runs a pipeline of passes with options, xdsl-opt's built-in ones included.
// RUN: pto-opt %s -p 'canonicalize,dce' | FileCheck %s

func.func @fold() -> i32 {
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %dead = arith.muli %one, %two : i32
  %sum = arith.addi %one, %two : i32
  func.return %sum : i32
}

// CHECK:      func.func @fold() -> i32 {
// CHECK-NEXT:   %sum = arith.constant 3 : i32
// CHECK-NEXT:   func.return %sum : i32
