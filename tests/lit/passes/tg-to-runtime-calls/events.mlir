// RUN: pto-opt %s -p tg-to-runtime-calls | FileCheck %s
// RUN: pto-opt %s -p tg-to-runtime-calls | PTO_UPSTREAM | FileCheck %s --check-prefix=UPSTREAM

// Streams and events become the core's calls (events numbered by name, `all` 1 without a
// stream; a program using events starts with pto_tg_use_events); float task scalars are
// passed as their f64 bits (f32 widened exactly), read back by pto.scalars. A task is one
// pto_tg_task call: its site's entry in the program's site table (site, kernel, domain; pool,
// target, stream, priority; which of those the task gives: none here, the stream is a
// constant; 3 scalars, no coordinates, no region), its values (the scalars) in its slots of a
// stack array; a constant is stored there once, before the op holding the task (scf.if).

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

// CHECK:      "memref.global"() <{sym_name = "__pto_sites_ev", type = memref<22xi64>, initial_value = dense<[0, 0, 0, 0, -1, 1, 0, 0, 3, 0, 0, 1, 0, 0, 0, -1, 0, 0, 0, 3, 0, 0]> : tensor<22xi64>, sym_visibility = "private", constant}>
// CHECK:      func.func @ev(%ctx: index, %n: index, %s: f32, %d: f64)
// CHECK-SAME:   pto.scalars = ["iff", "iff"]
// CHECK-DAG:    %[[SLOTS:.*]] = arith.constant 24 : index
// CHECK-DAG:    %[[SECOND:.*]] = arith.constant 88 : index
// CHECK:        %sites = memref.get_global @__pto_sites_ev : memref<22xi64>
// CHECK-NEXT:   %values = memref.alloca() : memref<6xindex>
// CHECK-NEXT:   %sites_at = "memref.extract_aligned_pointer_as_index"(%sites)
// CHECK-NEXT:   %values_at = "memref.extract_aligned_pointer_as_index"(%values)
// CHECK:        func.call @pto_tg_use_events(%ctx) : (index) -> ()
// CHECK:        %[[W:.*]] = arith.extf %s : f32 to f64
// CHECK-NEXT:   %[[B:.*]] = arith.bitcast %[[W]] : f64 to i64
// CHECK-NEXT:   %[[I:.*]] = arith.index_cast %[[B]] : i64 to index
// CHECK:        %[[DB:.*]] = arith.bitcast %d : f64 to i64
// CHECK-NEXT:   %[[DI:.*]] = arith.index_cast %[[DB]] : i64 to index
// CHECK-NEXT:   memref.store %{{.*}}, %values[%{{.*}}] : memref<6xindex>
// CHECK-NEXT:   memref.store %[[I]], %values[%{{.*}}] : memref<6xindex>
// CHECK-NEXT:   memref.store %[[DI]], %values[%{{.*}}] : memref<6xindex>
// CHECK-NEXT:   func.call @pto_tg_task(%ctx, %sites_at, %values_at) : (index, index, index) -> ()
// CHECK:        func.call @pto_tg_event_record(%ctx, %[[A:[^,]*]], %[[NO:[^,]*]], %[[ONE:[^)]*]]) : (index, index, index, index) -> ()
// CHECK-NEXT:   func.call @pto_tg_event_record(%ctx, %[[B2:[^,]*]], %[[ALL:[^,]*]], %{{[^)]*}}) : (index, index, index, index) -> ()
// CHECK-NEXT:   func.call @pto_tg_event_wait(%ctx, %[[A]], %[[NO]], %{{[^)]*}}) : (index, index, index, index) -> ()
// CHECK-NEXT:   func.call @pto_tg_event_wait(%ctx, %[[B2]], %[[ALL]], %{{[^)]*}}) : (index, index, index, index) -> ()
// CHECK-NEXT:   %[[QV:.*]] = func.call @pto_tg_event_query(%ctx, %[[A]]) : (index, index) -> index
// CHECK-NEXT:   %[[QB:.*]] = arith.cmpi ne, %[[QV]], %{{.*}} : index
// CHECK-NEXT:   memref.store %{{.*}}, %values[%{{.*}}] : memref<6xindex>
// CHECK-NEXT:   scf.if %[[QB]] {
// CHECK:          memref.store %{{.*}}, %values[%{{.*}}] : memref<6xindex>
// CHECK-NEXT:     memref.store %{{.*}}, %values[%{{.*}}] : memref<6xindex>
// CHECK-NEXT:     %[[ITS:.*]] = arith.addi %values_at, %[[SLOTS]] : index
// CHECK-NEXT:     %[[AT:.*]] = arith.addi %sites_at, %[[SECOND]] : index
// CHECK-NEXT:     func.call @pto_tg_task(%ctx, %[[AT]], %[[ITS]]) : (index, index, index) -> ()
// CHECK-NOT:    tg.

// UPSTREAM: parsed, verified and read back the same by MLIR
