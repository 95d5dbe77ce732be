// RUN: pto-opt %s -p csp-to-tg 2>&1 | FileCheck %s
// RUN: pto-opt %s -p csp-to-tg | pto-opt | FileCheck %s --check-prefix=ROUNDTRIP

// Channels become queues with their capacities (an event: !csp.signal, capacity 0),
// processes tg.processes with their replica counts; a send becomes tg.send carrying the
// sender's loop coordinates (its tasks take the receiver's replica at receipt); consume,
// coord, record and synchronize map one to one; bodies lower as workload bodies.

wsp.kernel @produce(i: index, x: out memref<8xf32>) unit(vector)
wsp.kernel @use(i: index, x: in memref<8xf32>) unit(vector)

csp.pipeline @p(%n: index, %X: memref<?x8xf32>) {
  csp.channel @c : !wsp.task capacity(2)
  csp.channel @done : !csp.signal capacity(0)
  csp.process @producer produces(@c) {
    %ax = wsp.dense_dyn %n
    wsp.parallel_for %i in %ax named("i") : !wsp.dense_dyn {
      %x = wsp.view %X[%i] : memref<?x8xf32> -> memref<8xf32>
      csp.send @c {
        wsp.task @produce(%i : index) resources(%x : memref<8xf32>)
      }
    }
  }
  csp.process @consumer consumes(@c) produces(@done) replicas(3) {
    wsp.sequential {
      csp.consume @c as %t : !wsp.task {
        %i = csp.coord %t[0]
        %x = wsp.view %X[%i] : memref<?x8xf32> -> memref<8xf32>
        wsp.task @use(%i : index) resources(%x : memref<8xf32>)
      }
      csp.record @done
    }
  }
  csp.process @waiter consumes(@done) {
    csp.synchronize @done
  }
}

sched.schedule @s for @p {
  sched.dispatch dispatch_by key(%r = "replica") {
    sched.yield %r : index
  }
}

// A key over replica is not computed for the tasks of a message (the receiver's replica is
// not known at the sender): the runtime computes it at receipt, so the pass says nothing.
// CHECK-NOT:  warning
// CHECK:      tg.program @p(%n: index, %X: memref<?x8xf32>) config {dispatch = "dispatch_by"} {
// CHECK-NEXT:   tg.queue @c : !wsp.task capacity(2)
// CHECK-NEXT:   tg.queue @done : !csp.signal capacity(0)
// CHECK-NEXT:   tg.process @producer {
// CHECK:          scf.for %i =
// CHECK:            tg.send @c at(i = %i) {
// CHECK-NEXT:         tg.task @produce(%i : index) resources(%{{.*}} : {{.*}}) access(out) at(i = %i) pool(vector)
// CHECK-NEXT:       }
// CHECK:        tg.process @consumer replicas(3) as %[[R:.*]] {
// CHECK-NEXT:     tg.ordered {
// CHECK-NEXT:       tg.consume @c as %t : !wsp.task {
// CHECK-NEXT:         %[[I:.*]] = tg.coord %t[0]
// CHECK:              tg.task @use(%[[I]] : index) resources(%{{.*}} : {{.*}}) access(in) at(replica = %[[R]]) pool(vector) target(%[[R]])
// CHECK:            tg.order_point
// CHECK-NEXT:       tg.record @done
// CHECK:        tg.process @waiter {
// CHECK-NEXT:     tg.synchronize @done
// CHECK-NOT:    sched.schedule
// CHECK-NOT:    csp.

// ROUNDTRIP: tg.program @p(
