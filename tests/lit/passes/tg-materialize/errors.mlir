// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize' 2>&1 | FileCheck %s --check-prefix=UNBOUND
// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize{bind="n=2"}' 2>&1 | FileCheck %s --check-prefix=NODATA
// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize{bind="n=two"}' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize{bind="n=2,lengths=[1]"}' 2>&1 | FileCheck %s --check-prefix=SHORT

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
