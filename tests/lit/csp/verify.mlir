// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// One chunk per verifier rule of the csp dialect.

// CHECK: csp.send @c must be inside a csp.process
wsp.workload @w() {
  csp.send @c {
  }
}

// -----

// CHECK: csp.consume @c must be inside a csp.process
wsp.workload @w() {
  csp.consume @c as %t : !wsp.task {
  }
}

// -----

// CHECK: csp.record @e must be inside a csp.process
wsp.workload @w() {
  csp.record @e
}

// -----

// CHECK: csp.synchronize @e must be inside a csp.process
wsp.workload @w() {
  csp.synchronize @e
}

// -----

// CHECK: csp.send refers to @nowhere, which is not a channel of pipeline @p
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @a produces(@c) {
    csp.send @nowhere {
    }
  }
  csp.process @b consumes(@c) {
  }
}

// -----

// A process is a symbol of the pipeline too, but not a channel.
// CHECK: csp.send refers to @b, which is not a channel of pipeline @p
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @a produces(@c) {
    csp.send @b {
    }
  }
  csp.process @b consumes(@c) {
  }
}

// -----

// CHECK: process @a sends on @c but does not list it in produces(...)
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @a consumes(@c) {
    csp.send @c {
    }
  }
  csp.process @b produces(@c) {
  }
}

// -----

// CHECK: process @b consumes @c but does not list it in consumes(...)
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.channel @d : !wsp.task capacity(1)
  csp.process @a produces(@c, @d) {
  }
  csp.process @b consumes(@d) {
    csp.consume @c as %t : !wsp.task {
    }
  }
  csp.process @z consumes(@c) {
  }
}

// -----

// CHECK: process @b records @e but does not list it in produces(...)
csp.pipeline @p() {
  csp.channel @e : !csp.signal capacity(0)
  csp.process @a produces(@e) {
  }
  csp.process @b consumes(@e) {
    csp.record @e
  }
}

// -----

// CHECK: process @a synchronizes on @e but does not list it in consumes(...)
csp.pipeline @p() {
  csp.channel @e : !csp.signal capacity(0)
  csp.process @a produces(@e) {
    csp.synchronize @e
  }
  csp.process @b consumes(@e) {
  }
}

// -----

// CHECK: csp.record needs an event (a !csp.signal channel), but @c carries !wsp.task
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(0)
  csp.process @a produces(@c) {
    csp.record @c
  }
  csp.process @b consumes(@c) {
  }
}

// -----

// CHECK: csp.synchronize needs an event (a !csp.signal channel), but @c carries !wsp.task
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(0)
  csp.process @a produces(@c) {
  }
  csp.process @b consumes(@c) {
    csp.synchronize @c
  }
}

// -----

// CHECK: csp.send @e: @e is an event (!csp.signal); use csp.record / csp.synchronize on events
csp.pipeline @p() {
  csp.channel @e : !csp.signal capacity(0)
  csp.process @a produces(@e) {
    csp.send @e {
    }
  }
  csp.process @b consumes(@e) {
  }
}

// -----

// CHECK: csp.consume @e: @e is an event (!csp.signal); use csp.record / csp.synchronize on events
csp.pipeline @p() {
  csp.channel @e : !csp.signal capacity(0)
  csp.process @a produces(@e) {
  }
  csp.process @b consumes(@e) {
    csp.consume @e as %s : !csp.signal {
    }
  }
}

// -----

// CHECK: csp.consume @c binds i32, but @c carries !wsp.task
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @a produces(@c) {
  }
  csp.process @b consumes(@c) {
    csp.consume @c as %t : i32 {
    }
  }
}

// -----

// CHECK: csp.consume @c binds one block argument, got 0
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @a produces(@c) {
  }
  csp.process @b consumes(@c) {
    "csp.consume"() <{channel = @c}> ({
      "wsp.yield"() : () -> ()
    }) : () -> ()
  }
}

// -----

// CHECK: csp.send @c: a message holds tasks, its body must not contain csp.send
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @a produces(@c) {
    csp.send @c {
      csp.send @c {
      }
    }
  }
  csp.process @b consumes(@c) {
  }
}

// -----

// CHECK: csp.coord position must be >= 0, got -1
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @a produces(@c) {
  }
  csp.process @b consumes(@c) {
    csp.consume @c as %t : !wsp.task {
      %i = csp.coord %t[-1]
    }
  }
}

// -----

// CHECK: process @a consumes @nowhere, which is not a channel of pipeline @p
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @a consumes(@c, @nowhere) {
  }
  csp.process @b produces(@c) {
  }
}

// -----

// CHECK: process @b produces @a, which is not a channel of pipeline @p
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @a consumes(@c) {
  }
  csp.process @b produces(@c, @a) {
  }
}

// -----

// CHECK: process @a lists @c twice in consumes
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @a consumes(@c, @c) {
  }
  csp.process @b produces(@c) {
  }
}

// -----

// CHECK: process @b lists @c twice in produces
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @a consumes(@c) {
  }
  csp.process @b produces(@c, @c) {
  }
}

// -----

// CHECK: channel @c has no producer: no csp.process of @p lists it in produces
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @a consumes(@c) {
  }
}

// -----

// CHECK: channel @c has no consumer: no csp.process of @p lists it in consumes
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @a produces(@c) {
  }
}

// -----

// CHECK: channel @c capacity must be >= 0, got -1
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(-1)
  csp.process @a produces(@c) {
  }
  csp.process @b consumes(@c) {
  }
}

// -----

// CHECK: channel @e of !csp.signal is an event and must have capacity 0, got 1
csp.pipeline @p() {
  csp.channel @e : !csp.signal capacity(1)
  csp.process @a produces(@e) {
  }
  csp.process @b consumes(@e) {
  }
}

// -----

// CHECK: channel @c carries workloads (!wsp.task) or signals (!csp.signal), not f32
csp.pipeline @p() {
  csp.channel @c : f32 capacity(1)
  csp.process @a produces(@c) {
  }
  csp.process @b consumes(@c) {
  }
}

// -----

// CHECK: process @a replicas must be >= 1, got 0
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @a produces(@c) replicas(0) {
  }
  csp.process @b consumes(@c) {
  }
}

// -----

// CHECK: csp.channel @c must be directly inside a csp.pipeline
csp.channel @c : !wsp.task capacity(1)

// -----

// CHECK: csp.process @a must be directly inside a csp.pipeline
wsp.workload @w() {
  csp.process @a {
  }
}

// -----

// CHECK: csp.pipeline @p holds only csp.channel and csp.process ops, got arith.constant
csp.pipeline @p() {
  %c0 = arith.constant 0 : index
}

// -----

// CHECK: csp.pipeline @p holds only csp.channel and csp.process ops, got wsp.dense
csp.pipeline @p() {
  %d = wsp.dense 4
}

// -----

// CHECK: process @a contains scf.for: process bodies are declarative: use wsp.for_each / csp.consume
csp.pipeline @p(%n: index) {
  csp.process @a {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
    }
  }
}

// -----

// CHECK: process @a contains scf.while: process bodies are declarative: use wsp.for_each / csp.consume
csp.pipeline @p(%go: i1) {
  csp.process @a {
    scf.while () : () -> () {
      scf.condition(%go)
    } do {
      scf.yield
    }
  }
}

// -----

// CHECK: process @a contains scf.parallel: process bodies are declarative: use wsp.for_each / csp.consume
csp.pipeline @p(%n: index) {
  csp.process @a {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%i: index):
      scf.reduce
    }) : (index, index, index) -> ()
  }
}

// -----

// CHECK: process @a contains cf.assert: process bodies are declarative: use wsp.for_each / csp.consume
csp.pipeline @p(%ok: i1) {
  csp.process @a {
    wsp.sequential {
      cf.assert %ok, "never"
    }
  }
}

// -----

// Channels and processes share the pipeline's symbol table.
// CHECK: Redefinition of symbol "c"
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @c consumes(@c) produces(@c) {
  }
}

// -----

// CHECK: pipeline has 1 arguments but 2 names
"csp.pipeline"() <{sym_name = "p", function_type = (index) -> (), arg_names = ["a", "b"]}> ({
^bb0(%a: index):
  "wsp.yield"() : () -> ()
}) : () -> ()

// -----

// CHECK: pipeline argument name 'n' is used twice
"csp.pipeline"() <{sym_name = "p", function_type = (index, index) -> (), arg_names = ["n", "n"]}> ({
^bb0(%a: index, %b: index):
  "wsp.yield"() : () -> ()
}) : () -> ()

// -----

// CHECK: a pipeline has no results
"csp.pipeline"() <{sym_name = "p", function_type = () -> index, arg_names = []}> ({
  "wsp.yield"() : () -> ()
}) : () -> ()

// -----

// CHECK: entry block arguments must match the pipeline signature
"csp.pipeline"() <{sym_name = "p", function_type = (index) -> (), arg_names = ["n"]}> ({
^bb0(%n: i32):
  "wsp.yield"() : () -> ()
}) : () -> ()

// -----

// The pipeline is isolated from above: process bodies see only its arguments.
// CHECK: Operation using value defined out of its IsolatedFromAbove parent
%n = arith.constant 4 : index
csp.pipeline @p() {
  csp.channel @c : !wsp.task capacity(1)
  csp.process @a produces(@c) {
    %d = wsp.dense_dyn %n
  }
  csp.process @b consumes(@c) {
  }
}

// -----

// wsp's rule, seen from csp: InCore (npu) code holds no CSP.
// CHECK: npu-level workload @w must not contain CSP op csp.coord
wsp.workload @w(%t: !wsp.task) level(npu) {
  %i = csp.coord %t[0]
}
