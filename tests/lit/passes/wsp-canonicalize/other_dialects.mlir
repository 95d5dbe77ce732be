// RUN: pto-opt %s --split-input-file --allow-unregistered-dialect -p wsp-canonicalize | FileCheck %s

// Process, send and consume bodies are combined blocks like a workload body: combines
// flatten into them. Empty sends and consumes stay: they still exchange messages.

wsp.kernel @a() unit(vector)
wsp.kernel @b() unit(vector)
csp.pipeline @p() {
  csp.channel @ch : !wsp.task capacity(2)
  csp.channel @done : !csp.signal capacity(0)
  csp.process @producer produces(@ch, @done) {
    wsp.combine {
      csp.send @ch {
        wsp.combine {
          wsp.task @a() resources()
          wsp.task @b() resources()
        }
      }
      csp.send @ch {
      }
    }
    wsp.sequential {
      csp.record @done
    }
  }
  csp.process @consumer consumes(@ch, @done) {
    wsp.sequential {
      csp.consume @ch as %t : !wsp.task {
        wsp.combine {
          wsp.task @a() resources()
        }
      }
      csp.synchronize @done
    }
  }
}

// CHECK:      csp.process @producer produces(@ch, @done) {
// CHECK-NEXT:   csp.send @ch {
// CHECK-NEXT:     wsp.task @a() resources()
// CHECK-NEXT:     wsp.task @b() resources()
// CHECK-NEXT:   }
// CHECK-NEXT:   csp.send @ch {
// CHECK-NEXT:   }
// CHECK-NEXT:   csp.record @done
// CHECK-NEXT: }
// CHECK-NEXT: csp.process @consumer consumes(@ch, @done) {
// CHECK-NEXT:   wsp.sequential {
// CHECK-NEXT:     csp.consume @ch as %t : !wsp.task {
// CHECK-NEXT:       wsp.task @a() resources()
// CHECK-NEXT:     }
// CHECK-NEXT:     csp.synchronize @done
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// An op of an unknown dialect, with unknown effects, may be a workload expression (an
// extension op, seed 000 §10): it counts as a child. So this combine has two children
// and must stay in its sequential. Groups under an unknown op are not spliced into it:
// nothing is known of the order its body has.

wsp.kernel @a() unit(vector)
wsp.workload @extension() {
  wsp.sequential {
    wsp.task @a() resources()
    wsp.combine {
      wsp.task @a() resources()
      "ext.double_buffer"() : () -> ()
    }
  }
  "ext.region"() ({
    wsp.combine {
      wsp.task @a() resources()
      wsp.task @a() resources()
    }
  }) : () -> ()
}

// CHECK:      wsp.workload @extension() {
// CHECK-NEXT:   wsp.sequential {
// CHECK-NEXT:     wsp.task @a() resources()
// CHECK-NEXT:     wsp.combine {
// CHECK-NEXT:       wsp.task @a() resources()
// CHECK-NEXT:       "ext.double_buffer"() : () -> ()
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   "ext.region"() ({
// CHECK-NEXT:     wsp.combine {
// CHECK-NEXT:       wsp.task @a() resources()
// CHECK-NEXT:       wsp.task @a() resources()
// CHECK-NEXT:     }
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }
