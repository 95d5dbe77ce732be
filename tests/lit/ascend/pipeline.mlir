// RUN: not pto-opt %s -p csp-to-tg -t 'ascend{stub-kernels=true}' -o %t 2>&1 | filecheck %s

// A CSP pipeline (tg.process / tg.queue) is not emitted: a diagnostic, not code that
// pretends to work.

wsp.kernel @k(i: index) unit(vector)

csp.pipeline @p(%n: index) {
  csp.channel @q : !wsp.task capacity(2)
  csp.process @producer produces(@q) {
    %is = wsp.dense_dyn %n
    wsp.parallel_for %i in %is named("i") : !wsp.dense_dyn {
      csp.send @q {
        wsp.task @k(%i : index) resources()
      }
    }
  }
  csp.process @consumer consumes(@q) {
    csp.consume @q as %t : !wsp.task {
    }
  }
}

// CHECK: error: 'tg.program' op tg.program @p is a pipeline (tg.process / tg.queue): the ascend target emits task-generation programs, not CSP processes; run the pipeline on the CPU simulator
