// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize' 2>&1 | FileCheck %s --check-prefix=UNBOUND
// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize{bind="n=2"}' 2>&1 | FileCheck %s --check-prefix=NODATA
// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize{bind="n=two"}' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize{bind="n=2,lengths=[1]"}' 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize{bind="n=2,lengths=[[1,2],[3]]"}' 2>&1 | FileCheck %s --check-prefix=RAGGED
// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize{bind="n=2,lengths=[1,99999999999999999999]"}' 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize{bind="n=2,lengths=[1,0.5]"}' 2>&1 | FileCheck %s --check-prefix=FLOAT
// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize{bind="n=9223372036854775808,lengths=[1]"}' 2>&1 | FileCheck %s --check-prefix=SCALAR
// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize{bind="n=18446744073709551615,lengths=[1]"}' 2>&1 | FileCheck %s --check-prefix=SCALAR-MAX
// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize{bind="n=[],lengths=[1]"}' 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize{bind="n=[2],lengths=[1]"}' 2>&1 | FileCheck %s --check-prefix=LIST

wsp.kernel @k(r: index, j: index) unit(vector)
wsp.workload @w(%n: index, %lengths: memref<?xindex>) {
  %rows = wsp.ragged %n, %lengths : memref<?xindex>
  wsp.parallel_for %r, %j in %rows named("r", "j") : !wsp.ragged {
    wsp.task @k(%r, %j : index, index) resources()
  }
}

// UNBOUND: error: tg-materialize: @w needs a value for n (bind="n=...")
// NODATA: error: tg-materialize: @w reads lengths, which is not bound (bind="lengths=[...]")
// BAD: error: tg-materialize: n=two is not an integer, a [list] or @file.npy
// SHORT: error: tg-materialize: @w: an index is out of the bound data
// RAGGED: pto-opt: error: tg-materialize: lengths=[[1,2],[3]]: its rows differ in length
// WIDE: pto-opt: error: tg-materialize: lengths=[1,99999999999999999999]: a value does not fit in 64 bits
// FLOAT: pto-opt: error: tg-materialize: lengths=[1,0.5]: a list binds integers (lengths, CSR arrays)
// SCALAR: pto-opt: error: tg-materialize: n is an index: 9223372036854775808 does not fit in 64 bits
// SCALAR-MAX: pto-opt: error: tg-materialize: n is an index: 18446744073709551615 does not fit in 64 bits
// LIST-NOT: internal error
// LIST: pto-opt: error: tg-materialize: n is a scalar (index): bind an integer, not a list or an array
