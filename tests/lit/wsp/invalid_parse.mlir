// RUN: pto-opt %s --split-input-file --parsing-diagnostics | FileCheck %s

// Parse errors of the custom syntax: each parser.raise_error of dialects/wsp.py, and each
// token its parsers expect.
// Each chunk's checks start at the separator line pto-opt prints between chunks, so a chunk
// that gives no error fails the test even where its message repeats.

// --- !wsp.dense<N>, wsp.dense N

func.func @f(%a: !wsp.dense<x>) {
  func.return
}

// CHECK: error: Expected integer literal

// -----
// CHECK: //{{ }}-----

func.func @f(%a: !wsp.dense<true>) {
  func.return
}

// CHECK: error: Expected integer literal

// -----
// CHECK: //{{ }}-----

func.func @f(%a: !wsp.dense 4) {
  func.return
}

// CHECK: error: '<' expected

// -----
// CHECK: //{{ }}-----

%d = wsp.dense true

// CHECK: error: Expected integer literal

// -----
// CHECK: //{{ }}-----

// --- wsp.dense_dyn, wsp.ragged, wsp.sparse

func.func @f(%n: i64) {
  %d = wsp.dense_dyn %n
  func.return
}

// CHECK: error: operand is used with type index, but has been previously used or defined with type i64

// -----
// CHECK: //{{ }}-----

func.func @f(%n: index, %l: memref<?xi64>) {
  %r = wsp.ragged %n, %l
  func.return
}

// CHECK: error: Expected ':'

// -----
// CHECK: //{{ }}-----

func.func @f(%n: index, %p: memref<?xindex>, %i: memref<?xindex>) {
  %s = wsp.sparse %n, %p, %i : memref<?xindex>
  func.return
}

// CHECK: error: Expected ','

// -----
// CHECK: //{{ }}-----

// --- wsp.view entries: %i | int | lo:hi | off:+size, with offsets and sizes >= 0

func.func @f(%Q: memref<4x64xf32>) {
  %v = wsp.view %Q[:3] : memref<4x64xf32> -> memref<3x64xf32>
  func.return
}

// CHECK: error: Expected integer literal in a view entry

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>, %n: index) {
  %v = wsp.view %Q[0:+] : memref<4x64xf32> -> memref<?x64xf32>
  func.return
}

// CHECK: error: Expected integer literal in a view entry

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>, %n: index) {
  %v = wsp.view %Q[0:%n] : memref<4x64xf32> -> memref<?x64xf32>
  func.return
}

// CHECK: error: Expected integer literal (slice end; use off:+size for runtime sizes)

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>, %o: index) {
  %v = wsp.view %Q[%o:2] : memref<4x64xf32> -> memref<2x64xf32>
  func.return
}

// CHECK: error: a slice lo:hi needs a static lo; use %off:+size

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>) {
  %v = wsp.view %Q[3:2] : memref<4x64xf32> -> memref<0x64xf32>
  func.return
}

// CHECK: error: slice end 2 is before its start 3

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>) {
  %v = wsp.view %Q[-1] : memref<4x64xf32> -> memref<64xf32>
  func.return
}

// CHECK: error: view offsets and sizes must be >= 0, got -1

// -----
// CHECK: //{{ }}-----

// -2 would otherwise be read as the marker of a runtime offset.
func.func @f(%Q: memref<4x64xf32>) {
  %v = wsp.view %Q[-2:1] : memref<4x64xf32> -> memref<3x64xf32>
  func.return
}

// CHECK: error: view offsets and sizes must be >= 0, got -2

// -----
// CHECK: //{{ }}-----

// +-1 would otherwise be read as the marker of an index entry: %Q[2].
func.func @f(%Q: memref<4x64xf32>) {
  %v = wsp.view %Q[2:+-1] : memref<4x64xf32> -> memref<64xf32>
  func.return
}

// CHECK: error: view offsets and sizes must be >= 0, got -1

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>, %o: index) {
  %v = wsp.view %Q[%o:+-3] : memref<4x64xf32> -> memref<64xf32>
  func.return
}

// CHECK: error: view offsets and sizes must be >= 0, got -3

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>, %i: i32) {
  %v = wsp.view %Q[%i] : memref<4x64xf32> -> memref<64xf32>
  func.return
}

// CHECK: error: operand is used with type index, but has been previously used or defined with type i32

// -----
// CHECK: //{{ }}-----

func.func @f(%Q: memref<4x64xf32>, %i: index) {
  %v = wsp.view %Q[%i] : memref<4x64xf32> memref<64xf32>
  func.return
}

// CHECK: error: Expected '->'

// -----
// CHECK: //{{ }}-----

// --- wsp.workload @name(%arg: T, ...) [level(L)] [attributes {...}] { body }

wsp.workload w() {
}

// CHECK: error: expect symbol name

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%a) {
}

// CHECK: error: Expected ':' after block argument name!

// -----
// CHECK: //{{ }}-----

wsp.workload @w() level(3) {
}

// CHECK: error: identifier expected (cpu or npu)

// -----
// CHECK: //{{ }}-----

wsp.workload @w() level npu {
}

// CHECK: error: '(' expected

// -----
// CHECK: //{{ }}-----

// --- wsp.kernel @name(p: [access] T, ...) [unit(U)] [cost(N) | cost { region }] [attributes {...}]

wsp.kernel @k(%n: index)

// CHECK: error: identifier expected for a kernel parameter name

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(A: rw memref<4xf32>)

// CHECK: error: type expected

// -----
// CHECK: //{{ }}-----

wsp.kernel @k() unit(3)

// CHECK: error: identifier expected (vector or cube)

// -----
// CHECK: //{{ }}-----

wsp.kernel @k() cost(x)

// CHECK: error: Expected integer literal

// -----
// CHECK: //{{ }}-----

wsp.kernel @k() cost(3 unit(vector)

// CHECK: error: Expected ')'

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(n: index) cost {
}

// CHECK: error: a cost region must yield the cost

// -----
// CHECK: //{{ }}-----

// --- wsp.parallel_for / wsp.for_each %i[, %j] in %axis [named(...)] : T { body }

wsp.workload @w(%d: !wsp.dense<4>) {
  wsp.parallel_for %i %d : !wsp.dense<4> {
  }
}

// CHECK: error: Expected 'in'

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%d: !wsp.dense<4>) {
  wsp.for_each in %d : !wsp.dense<4> {
  }
}

// CHECK: error: Expected block argument!

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%d: !wsp.dense<4>) {
  wsp.parallel_for %i in %d {
  }
}

// CHECK: error: Expected ':'

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%d: !wsp.dense<4>) {
  wsp.parallel_for %i in %d named(i) : !wsp.dense<4> {
  }
}

// CHECK: error: string literal expected

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%d: !wsp.dense<4>) {
  wsp.for_each %i in %d : !wsp.dense<8> {
  }
}

// CHECK: error: operand is used with type !wsp.dense<8>, but has been previously used or defined with type !wsp.dense<4>

// -----
// CHECK: //{{ }}-----

// --- wsp.select %e in %sparse[%row] [named(...)] : T { body }

wsp.workload @w(%s: !wsp.sparse, %b: index) {
  wsp.select %e in %s : !wsp.sparse {
  }
}

// CHECK: error: Expected '['

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%s: !wsp.sparse, %b: i1) {
  wsp.select %e in %s[%b] : !wsp.sparse {
  }
}

// CHECK: error: operand is used with type index, but has been previously used or defined with type i1

// -----
// CHECK: //{{ }}-----

// --- wsp.cond %p { then } [else { else }]

wsp.workload @w(%p: i1) {
  wsp.cond {
  }
}

// CHECK: error: Expected an operand.

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%n: index) {
  wsp.cond %n {
  }
}

// CHECK: error: operand is used with type i1, but has been previously used or defined with type index

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%p: i1) {
  wsp.cond %p {
  } else
}

// CHECK: error: Expected region!

// -----
// CHECK: //{{ }}-----

// --- wsp.combine / wsp.sequential { body }

wsp.workload @w() {
  wsp.sequential
}

// CHECK: error: Expected region!

// -----
// CHECK: //{{ }}-----

// --- wsp.task @kernel(%p, ... : T, ...) resources(%r, ... : T, ...)

wsp.workload @w(%n: index) {
  wsp.task @k(%n : index)
}

// CHECK: error: Expected 'resources'

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%n: index) {
  wsp.task @k(%n, %n : index) resources()
}

// CHECK: error: expected 1 operand types but had 2

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%n: index) {
  wsp.task @k(%n) resources()
}

// CHECK: error: Expected ':'

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%n: index) {
  wsp.task k() resources()
}

// CHECK: error: expect symbol name

// -----
// CHECK: //{{ }}-----

// --- wsp.call @workload(%a, ... : T, ...) [schedule(@s)]

wsp.workload @w() {
  wsp.call x()
}

// CHECK: error: expect symbol name

// -----
// CHECK: //{{ }}-----

wsp.workload @w() {
  wsp.call @x() schedule @s
}

// CHECK: error: '(' expected

// -----
// CHECK: //{{ }}-----

wsp.workload @w() {
  wsp.call @x() schedule(s)
}

// CHECK: error: expect symbol name

// -----
// CHECK: //{{ }}-----

// A type without parameters rejects `<...>` with a located error.
wsp.workload @w(%a: !wsp.dense_dyn<3>) {
}
// CHECK: error: !wsp.dense_dyn takes no parameters

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(x: in memref<4xf32>) unit(vector) attributes {impls = 3}
// CHECK: error: impls must be a dictionary {target = "where"}
