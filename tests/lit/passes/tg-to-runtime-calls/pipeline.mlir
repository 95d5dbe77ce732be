// RUN: pto-opt %s -p tg-to-runtime-calls | FileCheck %s
// RUN: pto-opt %s -p tg-to-runtime-calls | PTO_UPSTREAM | FileCheck %s --check-prefix=UPSTREAM

// Before: a pipeline program (csp-to-tg's form) with a task queue, an event, a producer, a
// consumer of three replicas that forwards tile coordinates and records the event, and a
// waiter.
// After: each process is a func.func of its own, @<program>__<process>(ctx, arguments...,
// replica); tg.send captures its body's tasks between pto_tg_send_begin and pto_tg_send_end
// (queue id, the coordinate site of its `at`, nonblocking); tg.consume is an scf.while that
// receives (-1: closed), issues the message's tasks for this replica, runs the body and waits
// for the tasks it issued; tg.coord, tg.record and tg.synchronize are calls. The program's own
// function is empty and carries the tables, the queues and the processes (with the queues
// each sends on and receives from). The processes share the program's site table: the
// consumer's task is its second entry (14 values in: 112 bytes), of site 2 (site 1 is the
// send's coordinates). Each process function has its own task values (a replica its own, on
// its own stack): the replica index, like constants, is stored once at the entry.

wsp.kernel @produce(i: index, x: out memref<8xf32>) unit(vector)
wsp.kernel @use(i: index, x: in memref<8xf32>) unit(vector)

tg.program @p(%n: index, %X: memref<?x8xf32>) {
  tg.queue @c : !wsp.task capacity(2)
  tg.queue @done : !csp.signal capacity(0)
  tg.process @producer {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      %x = memref.subview %X[%i, 0] [1, 8] [1, 1] : memref<?x8xf32> to memref<8xf32, strided<[1], offset: ?>>
      tg.send @c at(i = %i) nonblocking {
        tg.task @produce(%i : index) resources(%x : memref<8xf32, strided<[1], offset: ?>>) access(out) at(i = %i) pool(vector)
      }
    }
  }
  tg.process @consumer replicas(3) as %r {
    tg.ordered {
      tg.consume @c as %t : !wsp.task {
        %i = tg.coord %t[0]
        %x = memref.subview %X[%i, 0] [1, 8] [1, 1] : memref<?x8xf32> to memref<8xf32, strided<[1], offset: ?>>
        tg.task @use(%i : index) resources(%x : memref<8xf32, strided<[1], offset: ?>>) access(in) at(replica = %r) pool(vector) target(%r)
      }
      tg.order_point
      tg.record @done
    }
  }
  tg.process @waiter {
    tg.synchronize @done
  }
}

// CHECK:      "memref.global"() <{sym_name = "__pto_sites_p", type = memref<28xi64>, initial_value = dense<[0, 0, 0, 0, -1, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 1, 0, 0, 0, 0, 0, 2, 1, 1, 1, 1, 0, 2]>
// CHECK:      func.func @p__producer(%ctx: index, %n: index, %X: memref<?x8xf32>, %replica: index)
// CHECK-SAME:   llvm.emit_c_interface
// CHECK:        %c1 = arith.constant 1 : index
// CHECK:        scf.for %i =
// CHECK:          func.call @pto_tg_send_begin(%ctx)
// CHECK-NEXT:     memref.store %i, %values[%{{.*}}] : memref<8xindex>
// CHECK:          func.call @pto_tg_task(%ctx, %sites_at, %values_at)
// CHECK-NEXT:     func.call @pto_tg_send_coord(%ctx, %i)
// CHECK-NEXT:     func.call @pto_tg_send_end(%ctx, %[[Q0:.*]], %[[SITE:.*]], %[[ONE:.*]]) : (index, index, index, index) -> ()
// CHECK:      func.func @p__consumer(%ctx: index, %n: index, %X: memref<?x8xf32>, %r: index)
// CHECK:        memref.store %r, %values[%{{.*}}] : memref<9xindex>
// CHECK-NEXT:   memref.store %r, %values[%{{.*}}] : memref<9xindex>
// CHECK:        func.call @pto_tg_ordered_enter(%ctx)
// CHECK-NEXT:   %{{.*}} = scf.while () : () -> index {
// CHECK-NEXT:     %[[M:.*]] = func.call @pto_tg_recv(%ctx, %{{.*}}) : (index, index) -> index
// CHECK-NEXT:     %[[MORE:.*]] = arith.cmpi sge, %[[M]], %{{.*}} : index
// CHECK-NEXT:     scf.condition(%[[MORE]]) %[[M]] : index
// CHECK-NEXT:   } do {
// CHECK-NEXT:   ^{{.*}}(%t: index):
// CHECK-NEXT:     func.call @pto_tg_issue(%ctx, %t, %r)
// CHECK-NEXT:     %[[I:.*]] = func.call @pto_tg_message_coord(%ctx, %t, %{{.*}}) : (index, index, index) -> index
// CHECK-NEXT:     memref.store %[[I]], %values[%{{.*}}] : memref<9xindex>
// CHECK-NEXT:     memref.store %[[I]], %values[%{{.*}}] : memref<9xindex>
// CHECK-NEXT:     %[[SECOND:.*]] = arith.addi %sites_at, %{{.*}} : index
// CHECK-NEXT:     func.call @pto_tg_task(%ctx, %[[SECOND]], %values_at)
// CHECK-NEXT:     func.call @pto_tg_wait(%ctx)
// CHECK-NEXT:     scf.yield
// CHECK:        func.call @pto_tg_order_point(%ctx)
// CHECK-NEXT:   func.call @pto_tg_record(%ctx, %[[EV:.*]]) : (index, index) -> ()
// CHECK-NEXT:   func.call @pto_tg_ordered_exit(%ctx)
// CHECK:      func.func @p__waiter(
// CHECK:        func.call @pto_tg_synchronize(%ctx, %{{.*}}) : (index, index) -> ()
// CHECK:      func.func @p(%ctx: index, %n: index, %X: memref<?x8xf32>)
// CHECK-SAME:   pto.kernels = ["produce", "use"], pto.coords = [["i"], ["i"], ["replica"]]
// CHECK-SAME:   pto.queues = [["c", 2 : index, 0 : index], ["done", 0 : index, 1 : index]]
// CHECK-SAME:   pto.processes = [["producer", 1 : index, "p__producer", [0 : index], []], ["consumer", 3 : index, "p__consumer", [1 : index], [0 : index]], ["waiter", 1 : index, "p__waiter", [], [1 : index]]]
// CHECK-NEXT:   func.return
// CHECK-NOT:  tg.

// UPSTREAM: parsed, verified and read back the same by MLIR
