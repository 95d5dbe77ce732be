// RUN: pto-opt %s -p tg-to-runtime-calls | FileCheck %s
// RUN: pto-opt %s -p tg-to-runtime-calls | PTO_UPSTREAM | FileCheck %s --check-prefix=UPSTREAM

// Streams and events become the core's calls (events numbered by name, `all` 1 without a
// stream; a program using events starts with pto_tg_use_events); float task scalars are
// passed as their f64 bits (f32 widened exactly), read back by pto.scalars.

wsp.kernel @k(i: index, s: f32, d: f64) unit(vector)
tg.program @ev(%n: index, %s: f32, %d: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tg.task @k(%c0, %s, %d : index, f32, f64) resources() pool(vector) stream(%c1)
  tg.event_record "a" stream(1)
  tg.event_record "b"
  tg.event_wait "a" stream(2)
  tg.event_wait "b"
  %q = tg.event_query "a"
  scf.if %q {
    tg.task @k(%c1, %s, %d : index, f32, f64) resources() pool(vector)
  }
}

// CHECK:      func.func @ev(%ctx: index, %n: index, %s: f32, %d: f64)
// CHECK-SAME:   pto.scalars = ["iff", "iff"]
// CHECK:        func.call @pto_tg_use_events(%ctx) : (index) -> ()
// CHECK:        %[[W:.*]] = arith.extf %s : f32 to f64
// CHECK-NEXT:   %[[B:.*]] = arith.bitcast %[[W]] : f64 to i64
// CHECK-NEXT:   %[[I:.*]] = arith.index_cast %[[B]] : i64 to index
// CHECK:        %[[DB:.*]] = arith.bitcast %d : f64 to i64
// CHECK-NEXT:   %[[DI:.*]] = arith.index_cast %[[DB]] : i64 to index
// CHECK:        func.call @pto_tg_task_scalar(%ctx, %[[I]]) : (index, index) -> ()
// CHECK-NEXT:   func.call @pto_tg_task_scalar(%ctx, %[[DI]]) : (index, index) -> ()
// CHECK:        func.call @pto_tg_event_record(%ctx, %[[A:[^,]*]], %[[NO:[^,]*]], %[[ONE:[^)]*]]) : (index, index, index, index) -> ()
// CHECK-NEXT:   func.call @pto_tg_event_record(%ctx, %[[B2:[^,]*]], %[[ALL:[^,]*]], %{{[^)]*}}) : (index, index, index, index) -> ()
// CHECK-NEXT:   func.call @pto_tg_event_wait(%ctx, %[[A]], %[[NO]], %{{[^)]*}}) : (index, index, index, index) -> ()
// CHECK-NEXT:   func.call @pto_tg_event_wait(%ctx, %[[B2]], %[[ALL]], %{{[^)]*}}) : (index, index, index, index) -> ()
// CHECK-NEXT:   %[[QV:.*]] = func.call @pto_tg_event_query(%ctx, %[[A]]) : (index, index) -> index
// CHECK-NEXT:   %[[QB:.*]] = arith.cmpi ne, %[[QV]], %{{.*}} : index
// CHECK-NEXT:   scf.if %[[QB]] {
// CHECK-NOT:    tg.

// UPSTREAM: parsed, verified and read back the same by MLIR
