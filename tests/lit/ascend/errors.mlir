// RUN: not pto-opt %s -p wsp-to-tg -t ascend 2>&1 | filecheck %s --check-prefix=NO-DIR
// RUN: not pto-opt %s -p wsp-to-tg -t ascend -o %t 2>&1 | filecheck %s --check-prefix=NO-BODY
// RUN: echo 'wsp.kernel @k() unit(vector)' | not pto-opt -t 'ascend{stub-kernels=true}' -o %t 2>&1 | filecheck %s --check-prefix=NO-TG
// RUN: not pto-opt %s -p wsp-to-tg -t 'ascend{soc="310p" stub-kernels=true}' -o %t 2>&1 | filecheck %s --check-prefix=SOC

// The ascend target's errors: a directory is needed, kernels need bodies (or stubs), the
// input must hold something to emit, the soc must be known.

// NO-DIR: pto-opt: error: target 'ascend' writes a directory: give it with -o DIR

// NO-BODY: errors.mlir:[[# @LINE + 1]]:1: error: 'wsp.kernel' op kernel @k has no Ascend body: give one with impls = {ascend = "path/k.cpp"} (or inline C++ source), or emit stubs with stub-kernels=true
wsp.kernel @k(b: index) unit(vector)

wsp.workload @w(%n: index) {
  %bs = wsp.dense_dyn %n
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
    wsp.task @k(%b : index) resources()
  }
}

// NO-TG: error: 'builtin.module' op the ascend target emits the module's workloads, pipelines and tg.program ops, and the module has none
// SOC: error: 'builtin.module' op unknown soc '310p' (socs: 910b, 910c, 950)
