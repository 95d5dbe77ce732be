// A rendezvous queue (capacity 0) and an event (!csp.signal): both become objectfifos of
// depth 1; record / synchronize acquire and release the event's memref<1xi32> element.
wsp.kernel @load(s: in memref<16xi32>, t: out memref<16xi32>) unit(vector)
wsp.kernel @work(t: in memref<16xi32>, r: out memref<16xi32>) unit(vector)
csp.pipeline @p(%x: memref<4x16xi32>, %tiles: memref<4x16xi32>, %y: memref<4x16xi32>) {
  csp.channel @q : !wsp.task capacity(0)
  csp.channel @done : !csp.signal capacity(0)
  csp.process @a produces(@q, @done) {
    %n = wsp.dense 4
    wsp.for_each %i in %n named("i") : !wsp.dense<4> {
      %s = wsp.view %x[%i] : memref<4x16xi32> -> memref<16xi32>
      %t = wsp.view %tiles[%i] : memref<4x16xi32> -> memref<16xi32>
      csp.send @q {
        wsp.task @load() resources(%s, %t : memref<16xi32>, memref<16xi32>)
      }
    }
    csp.record @done
  }
  csp.process @b consumes(@q, @done) {
    csp.consume @q as %m : !wsp.task {
      %i = csp.coord %m[0]
      %t = wsp.view %tiles[%i] : memref<4x16xi32> -> memref<16xi32>
      %r = wsp.view %y[%i] : memref<4x16xi32> -> memref<16xi32>
      wsp.task @work() resources(%t, %r : memref<16xi32>, memref<16xi32>)
    }
    csp.synchronize @done
  }
}
