// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s
// RUN: pto-opt %s -p csp-to-tg | FileCheck %s --check-prefix=TG
// RUN: pto-opt %s -p csp-to-tg | pto-opt | FileCheck %s --check-prefix=TG
// RUN: not pto-opt %s -t aie 2>&1 | FileCheck %s --check-prefix=AIE
// RUN: not pto-opt %s -t pto 2>&1 | FileCheck %s --check-prefix=PTO

// try_send (seed 001 §4.3): `csp.send @ch nonblocking` never blocks; a message the channel
// cannot take at once is dropped. csp-to-tg keeps the flag on tg.send; the AIE target (an
// objectfifo acquire blocks) and the .pto printer (no such statement) refuse it at the op.

wsp.kernel @k(i: index, x: out memref<8xf32>) unit(vector)

csp.pipeline @p(%n: index, %X: memref<?x8xf32>) {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @producer produces(@c) {
    %ax = wsp.dense_dyn %n
    wsp.for_each %i in %ax named("i") : !wsp.dense_dyn {
      %x = wsp.view %X[%i] : memref<?x8xf32> -> memref<8xf32>
      csp.send @c nonblocking {
        wsp.task @k(%i : index) resources(%x : memref<8xf32>)
      }
      csp.send @c {
        wsp.task @k(%i : index) resources(%x : memref<8xf32>)
      }
    }
  }
  csp.process @consumer consumes(@c) {
    csp.consume @c as %t : !wsp.task {
    }
  }
}

// CHECK:      csp.send @c nonblocking {
// CHECK-NEXT:   wsp.task @k
// CHECK:      csp.send @c {

// TG:      tg.send @c at(i = %{{.*}}) nonblocking {
// TG-NEXT:   tg.task @k
// TG:      tg.send @c at(i = %{{.*}}) {

// AIE: try_send.mlir:21:7: error: {{.*}}tg.send @c nonblocking (try_send): an objectfifo acquire blocks; the AIE target maps blocking sends only

// PTO: try_send.mlir:21:7: error: 'csp.send' op cannot print as .pto: a nonblocking send (try_send) has no .pto form
