// RUN: pto-opt %s | FileCheck %s --match-full-lines
// RUN: pto-opt %s | pto-opt | FileCheck %s --match-full-lines
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s --match-full-lines
// RUN: pto-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// Names that schedules refer to. Without `named(...)` a loop or select index is named after
// its SSA value; `named(...)` wins over the SSA name. A workload argument is named after its
// SSA value, and a numbered one (%0) after its position (arg0).

builtin.module {
  wsp.workload @defaults(%0: index, %batch: !wsp.dense<4>, %r: !wsp.ragged, %s: !wsp.sparse, %n: index) {
    wsp.parallel_for %b in %batch : !wsp.dense<4> {
      wsp.for_each %row, %j in %r : !wsp.ragged {
      }
      wsp.select %expert in %s[%b] : !wsp.sparse {
      }
    }
    wsp.for_each %x in %batch named("h") : !wsp.dense<4> {
      wsp.parallel_for %u, %v in %s named("token", "slot") : !wsp.sparse {
      }
      wsp.select %y in %s[%x] named("e") : !wsp.sparse {
      }
    }
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   wsp.workload @defaults(%arg0: index, %batch: !wsp.dense<4>, %r: !wsp.ragged, %s: !wsp.sparse, %n: index) {
// CHECK-NEXT:     wsp.parallel_for %b in %batch named("b") : !wsp.dense<4> {
// CHECK-NEXT:       wsp.for_each %row, %j in %r named("row", "j") : !wsp.ragged {
// CHECK-NEXT:       }
// CHECK-NEXT:       wsp.select %expert in %s[%b] named("expert") : !wsp.sparse {
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     wsp.for_each %x in %batch named("h") : !wsp.dense<4> {
// CHECK-NEXT:       wsp.parallel_for %u, %v in %s named("token", "slot") : !wsp.sparse {
// CHECK-NEXT:       }
// CHECK-NEXT:       wsp.select %y in %s[%x] named("e") : !wsp.sparse {
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }

// GENERIC:      "wsp.workload"() <{sym_name = "defaults", function_type = (index, !wsp.dense<4>, !wsp.ragged, !wsp.sparse, index) -> (), arg_names = ["arg0", "batch", "r", "s", "n"], level = "cpu"}> ({
// GENERIC:        "wsp.parallel_for"(%batch) <{names = ["b"]}> ({
// GENERIC:          "wsp.for_each"(%r) <{names = ["row", "j"]}> ({
// GENERIC:          "wsp.select"(%s, %b) <{names = ["expert"]}> ({
// GENERIC:        "wsp.for_each"(%batch) <{names = ["h"]}> ({
// GENERIC:          "wsp.parallel_for"(%s) <{names = ["token", "slot"]}> ({
// GENERIC:          "wsp.select"(%s, %x) <{names = ["e"]}> ({
