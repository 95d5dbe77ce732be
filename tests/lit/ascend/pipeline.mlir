// RUN: rm -rf %t && pto-opt %s -t 'ascend{stub-kernels=true}' -o %t
// RUN: filecheck %s --input-file=%t/aicpu_orchestrate.cpp

// A CSP pipeline: a function per process over the builder API and pto::wsp::Process, and the
// program's function declaring the queues and processes to a pto::wsp::Pipeline. A send's
// tasks are a closure the receiver runs; a consume is a loop over recv ending in wait().

wsp.kernel @k(i: index, x: in memref<4xf32>) unit(vector)

csp.pipeline @p(%x: memref<?x4xf32>, %n: index) {
  csp.channel @q : !wsp.task capacity(2)
  csp.channel @r : !wsp.task capacity(0)
  csp.channel @ev : !csp.signal capacity(0)
  csp.process @producer produces(@q, @ev) {
    %is = wsp.dense_dyn %n
    wsp.for_each %i in %is named("i") : !wsp.dense_dyn {
      %v = wsp.view %x[%i] : memref<?x4xf32> -> memref<4xf32>
      csp.send @q {
        wsp.task @k(%i : index) resources(%v : memref<4xf32>)
      }
    }
    csp.record @ev
  }
  csp.process @middle consumes(@q) produces(@r) {
    csp.consume @q as %t : !wsp.task {
      %j = csp.coord %t[0]
      %v = wsp.view %x[%j] : memref<?x4xf32> -> memref<4xf32>
      csp.send @r nonblocking {
        wsp.task @k(%j : index) resources(%v : memref<4xf32>)
      }
    }
  }
  csp.process @last consumes(@r, @ev) replicas(2) {
    csp.consume @r as %t : !wsp.task {
    }
    csp.synchronize @ev
  }
}

// The schedule's keys over replica are computed by the receiver: a function per key.
sched.schedule @s for @p {
  sched.dispatch dispatch_by key(%r = "replica") {
    %c2 = arith.constant 2 : index
    %t = arith.addi %r, %c2 : index
    sched.yield %t : index
  }
}

// CHECK:      #include "pto_wsp/pipeline.h"
// CHECK:      // tg.process @producer
// CHECK-NEXT: static void p__producer(pto::wsp::Builder& _b, pto::wsp::Process& _p, const pto::wsp::View& x, int64_t n, int64_t /*replica*/) {
// CHECK:          _p.send(0, {"i"}, {i}, [=](pto::wsp::Builder& _b) {
// CHECK-NEXT:       {
// CHECK-NEXT:         pto::wsp::TaskBuilder _t = _b.alloc_task(KERNEL_K,
// CHECK:              _b.submit(_t);
// CHECK-NEXT:       }
// CHECK-NEXT:     });
// CHECK:        _p.record(2);
// CHECK-NEXT: }
// CHECK:      // tg.process @middle
// CHECK:        for (pto::wsp::Received t; _p.recv(0, t);) {
// CHECK-NEXT:     const int64_t [[J:.*]] = t.coord(0);
// CHECK:          (void)_p.try_send(1, {}, {}, [=](pto::wsp::Builder& _b) {
// CHECK:            _t.add_scalar([[J]]);
// CHECK:          });
// CHECK-NEXT:     _p.wait();
// CHECK-NEXT:   }
// CHECK:      // tg.process @last
// CHECK:        for (pto::wsp::Received t; _p.recv(1, t);) {
// CHECK-NEXT:     _p.wait();
// CHECK-NEXT:   }
// CHECK-NEXT:   _p.synchronize(2);
// CHECK:      static bool p_dispatch_key(const pto::wsp::Coords& _c, int64_t& _v) {
// CHECK-NEXT:   int64_t r;
// CHECK-NEXT:   if (!_c.get("replica", r)) return false;
// CHECK-NEXT:   const int64_t c2 = 2;
// CHECK-NEXT:   const int64_t t = (r + c2);
// CHECK-NEXT:   _v = t;
// CHECK-NEXT:   return true;
// CHECK-NEXT: }
// CHECK:      static const pto::wsp::ReceiptKeys p_keys = {pto::wsp::ReceiptDispatch::DispatchBy, nullptr, p_dispatch_key, nullptr, nullptr, nullptr, 0, pto::wsp::ExecPool::Any, pto::wsp::ExecPool::Any};
// CHECK:      // tg.program @p: a pipeline
// CHECK-NEXT: void p_orchestrate(pto::wsp::Builder& _b, const pto::wsp::View& x, int64_t n) {
// CHECK-NEXT:   static const pto::wsp::QueueInfo kQueues[] = {{\{\{"q", 2, false\}, \{"r", 0, false\}, \{"ev", 0, true\}\};}}
// CHECK-NEXT:   pto::wsp::Pipeline _pl(_b, kQueues, 3, &p_keys);
// CHECK-NEXT:   _pl.process("producer", 1, {0, 2}, {},
// CHECK-NEXT:               [&](pto::wsp::Builder& _pb, pto::wsp::Process& _p, int64_t _r) { p__producer(_pb, _p, x, n, _r); });
// CHECK-NEXT:   _pl.process("middle", 1, {1}, {0},
// CHECK:        _pl.process("last", 2, {}, {1, 2},
// CHECK:        _pl.run();
// CHECK-NEXT: }
