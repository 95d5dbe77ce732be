// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Verifier errors of pipeline programs: tg.queue, tg.process, tg.send, tg.consume, tg.coord,
// tg.record, tg.synchronize.
// Each chunk's checks start at the separator line pto-opt prints between chunks, so a chunk
// that gives no error fails the test even where its message repeats.

// send, consume, record and synchronize stand in a process.
tg.program @p() {
  tg.send @q {
  }
}

// CHECK: error: 'tg.send' op tg.send @q must be inside a tg.process

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.consume @q as %m : !wsp.task {
  }
}

// CHECK: error: 'tg.consume' op tg.consume @q must be inside a tg.process

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.record @ev
}

// CHECK: error: 'tg.record' op tg.record @ev must be inside a tg.process

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.synchronize @ev
}

// CHECK: error: 'tg.synchronize' op tg.synchronize @ev must be inside a tg.process

// -----
// CHECK: //{{ }}-----

// They name a queue of their program; a process is a symbol of it too, but not a queue.
tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  tg.process @a {
    tg.send @nowhere {
    }
  }
}

// CHECK: error: 'tg.send' op tg.send refers to @nowhere, which is not a tg.queue of program @p

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  tg.process @a {
    tg.consume @rx as %m : !wsp.task {
    }
  }
}

// CHECK: error: 'tg.consume' op tg.consume refers to @rx, which is not a tg.queue of program @p

// -----
// CHECK: //{{ }}-----

// Events (!csp.signal queues) take record and synchronize; task queues send and consume.
tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  tg.process @a {
    tg.record @q
  }
}

// CHECK: error: 'tg.record' op tg.record needs an event (a !csp.signal queue), but @q carries !wsp.task

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  tg.process @a {
    tg.synchronize @q
  }
}

// CHECK: error: 'tg.synchronize' op tg.synchronize needs an event (a !csp.signal queue), but @q carries !wsp.task

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  tg.process @a {
    tg.send @ev {
    }
  }
}

// CHECK: error: 'tg.send' op tg.send @ev: @ev is an event (!csp.signal); use tg.record / tg.synchronize

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  tg.process @a {
    tg.consume @ev as %s : !csp.signal {
    }
  }
}

// CHECK: error: 'tg.consume' op tg.consume @ev: @ev is an event (!csp.signal); use tg.record / tg.synchronize

// -----
// CHECK: //{{ }}-----

// consume binds one message of the queue's element type.
tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  tg.process @a {
    tg.consume @q as %m : i32 {
    }
  }
}

// CHECK: error: 'tg.consume' op tg.consume @q binds i32, but @q carries !wsp.task

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  tg.process @a {
    "tg.consume"() <{queue = @q}> ({
      "tg.yield"() : () -> ()
    }) : () -> ()
  }
}

// CHECK: error: 'tg.consume' op tg.consume @q binds one block argument, got 0

// -----
// CHECK: //{{ }}-----

// A message holds tasks: no messaging inside a send.
tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  tg.process @a {
    tg.send @q {
      tg.record @ev
    }
  }
}

// CHECK: error: 'tg.send' op tg.send @q: a message holds tasks, its body must not contain tg.record

// -----
// CHECK: //{{ }}-----

// A send's coordinates: identifiers, each once.
tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  tg.process @a {
    %c0 = arith.constant 0 : index
    tg.send @q at(i = %c0, i = %c0) {
    }
  }
}

// CHECK: error: 'tg.send' op tg.send @q: coordinate 'i' appears twice

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  tg.process @a {
    %c0 = arith.constant 0 : index
    "tg.send"(%c0) <{queue = @q, coord_names = []}> ({
      "tg.yield"() : () -> ()
    }) : (index) -> ()
  }
}

// CHECK: error: 'tg.send' op tg.send @q has 0 coordinate name(s) but 1 value(s)

// -----
// CHECK: //{{ }}-----

// tg.coord positions are >= 0.
tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @a {
    tg.consume @q as %m : !wsp.task {
      %k = tg.coord %m[-1]
    }
    tg.synchronize @ev
  }
}

// CHECK: error: 'tg.coord' op tg.coord position must be >= 0, got -1

// -----
// CHECK: //{{ }}-----

// Queues and processes stand directly in a program.
func.func @f() {
  tg.queue @q : !wsp.task capacity(1)
  func.return
}

// CHECK: error: 'tg.queue' op tg.queue @q must be directly inside a tg.program

// -----
// CHECK: //{{ }}-----

func.func @f() {
  tg.process @a {
  }
  func.return
}

// CHECK: error: 'tg.process' op tg.process @a must be directly inside a tg.program

// -----
// CHECK: //{{ }}-----

// A misplaced process's messaging ops are reported first (nested ops verify first).
func.func @f() {
  tg.process @a {
    tg.record @ev
  }
  func.return
}

// CHECK: error: 'tg.record' op tg.record @ev: its process is not inside a tg.program

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  tg.ordered {
    tg.process @a {
    }
  }
}

// CHECK: error: 'tg.process' op tg.process @a must be directly inside a tg.program

// -----
// CHECK: //{{ }}-----

// Queue elements are tasks or signals; capacity >= 0; an event has capacity 0.
tg.program @p() {
  tg.queue @q : f32 capacity(1)
}

// CHECK: error: 'tg.queue' op queue @q carries tasks (!wsp.task) or signals (!csp.signal), not f32

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.queue @q : !wsp.task capacity(-1)
}

// CHECK: error: 'tg.queue' op queue @q capacity must be >= 0, got -1

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.queue @ev : !csp.signal capacity(1)
}

// CHECK: error: 'tg.queue' op queue @ev of !csp.signal is an event and must have capacity 0, got 1

// -----
// CHECK: //{{ }}-----

// Processes: replicas >= 1, and one index block argument, the replica.
tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  tg.process @a replicas(0) {
  }
}

// CHECK: error: 'tg.process' op process @a replicas must be >= 1, got 0

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  "tg.process"() <{sym_name = "a", replicas = 1 : i64}> ({
    "tg.yield"() : () -> ()
  }) : () -> ()
}

// CHECK: error: 'tg.process' op process @a binds one index block argument (its replica), got ()

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  "tg.process"() <{sym_name = "a", replicas = 1 : i64}> ({
  ^bb0(%r: i32):
    "tg.yield"() : () -> ()
  }) : () -> ()
}

// CHECK: error: 'tg.process' op process @a binds one index block argument (its replica), got (i32)

// -----
// CHECK: //{{ }}-----

// A program with queues or processes is a pipeline: it holds only those.
tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  %c0 = arith.constant 0 : index
}

// CHECK: error: 'tg.program' op tg.program @p is a pipeline (it has queues or processes): it holds only tg.queue and tg.process ops, got arith.constant

// -----
// CHECK: //{{ }}-----

wsp.kernel @k() unit(vector)
tg.program @p() {
  tg.process @a {
  }
  tg.task @k() resources() pool(any)
}

// CHECK: error: 'tg.program' op tg.program @p is a pipeline (it has queues or processes): it holds only tg.queue and tg.process ops, got tg.task

// -----
// CHECK: //{{ }}-----

// Every queue is sent to and received from.
tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @rx {
    tg.consume @q as %m : !wsp.task {
    }
    tg.synchronize @ev
  }
  tg.process @a {
    tg.record @ev
  }
}

// CHECK: error: 'tg.program' op queue @q of @p has no sender (tg.send or tg.record)

// -----
// CHECK: //{{ }}-----

tg.program @p() {
  tg.queue @q : !wsp.task capacity(1)
  tg.queue @ev : !csp.signal capacity(0)
  tg.process @tx {
    tg.send @q {
    }
    tg.record @ev
  }
  tg.process @a {
    tg.consume @q as %m : !wsp.task {
    }
  }
}

// CHECK: error: 'tg.program' op queue @ev of @p has no receiver (tg.consume or tg.synchronize)
