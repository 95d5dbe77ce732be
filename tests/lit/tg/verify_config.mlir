// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Verifier errors of the runtime configuration (config) of tg.program and tg.graph: the
// table of docs/tg.md.
// Each chunk's checks start at the separator line pto-opt prints between chunks, so a chunk
// that gives no error fails the test even where its message repeats.

// Every key of the config table is known; others are errors.
tg.program @p() config {colour = "red"} {
}

// CHECK: error: 'tg.program' op unknown config key 'colour' (keys: dispatch, workers, streams, ready, timing, timing_n, task_window, window_overflow, pipeline_depth, depth_scope, batch_deps, spatial_map, layouts, extensions)

// -----
// CHECK: //{{ }}-----

// Policies are strings naming one of the schedule's policies.
tg.program @p() config {dispatch = 2 : i64} {
}

// CHECK: error: 'tg.program' op config key 'dispatch' must be a string, got 2 : i64

// -----
// CHECK: //{{ }}-----

tg.program @p() config {dispatch = "random"} {
}

// CHECK: error: 'tg.program' op config dispatch must be one of round_robin, affinity, hash, range, work_steal, dispatch_by, got 'random'

// -----
// CHECK: //{{ }}-----

tg.program @p() config {ready = "lifo"} {
}

// CHECK: error: 'tg.program' op config ready must be one of fifo, priority, got 'lifo'

// -----
// CHECK: //{{ }}-----

tg.program @p() config {timing = "later"} {
}

// CHECK: error: 'tg.program' op config timing must be one of immediate, batched, interleaved, rate_limit, got 'later'

// -----
// CHECK: //{{ }}-----

tg.program @p() config {task_window = 8 : i64, window_overflow = "drop"} {
}

// CHECK: error: 'tg.program' op config window_overflow must be one of stall, abort, got 'drop'

// -----
// CHECK: //{{ }}-----

tg.program @p() config {pipeline_depth = 2 : i64, depth_scope = "per_core"} {
}

// CHECK: error: 'tg.program' op config depth_scope must be one of global, per_stream, per_pool, got 'per_core'

// -----
// CHECK: //{{ }}-----

// Counts are positive i64.
tg.program @p() config {workers = "four"} {
}

// CHECK: error: 'tg.program' op config key 'workers' must be an i64, got "four"

// -----
// CHECK: //{{ }}-----

tg.program @p() config {streams = 2 : i32} {
}

// CHECK: error: 'tg.program' op config key 'streams' must be an i64, got 2 : i32

// -----
// CHECK: //{{ }}-----

tg.program @p() config {streams = 0 : i64} {
}

// CHECK: error: 'tg.program' op config streams must be > 0, got 0

// -----
// CHECK: //{{ }}-----

tg.program @p() config {workers = -1 : i64} {
}

// CHECK: error: 'tg.program' op config workers must be > 0, got -1

// -----
// CHECK: //{{ }}-----

tg.program @p() config {timing = "batched", timing_n = 0 : i64} {
}

// CHECK: error: 'tg.program' op config timing_n must be > 0, got 0

// -----
// CHECK: //{{ }}-----

tg.program @p() config {task_window = 0 : i64} {
}

// CHECK: error: 'tg.program' op config task_window must be > 0, got 0

// -----
// CHECK: //{{ }}-----

tg.program @p() config {pipeline_depth = 0 : i64} {
}

// CHECK: error: 'tg.program' op config pipeline_depth must be > 0, got 0

// -----
// CHECK: //{{ }}-----

tg.program @p() config {batch_deps = 0 : i64} {
}

// CHECK: error: 'tg.program' op config batch_deps must be > 0, got 0

// -----
// CHECK: //{{ }}-----

// A key that qualifies another needs it.
tg.program @p() config {timing_n = 4 : i64} {
}

// CHECK: error: 'tg.program' op config key 'timing_n' needs 'timing'

// -----
// CHECK: //{{ }}-----

tg.program @p() config {window_overflow = "stall"} {
}

// CHECK: error: 'tg.program' op config key 'window_overflow' needs 'task_window'

// -----
// CHECK: //{{ }}-----

tg.program @p() config {depth_scope = "global"} {
}

// CHECK: error: 'tg.program' op config key 'depth_scope' needs 'pipeline_depth'

// -----
// CHECK: //{{ }}-----

// batched, interleaved and rate_limit take a count; immediate takes none.
tg.program @p() config {timing = "interleaved"} {
}

// CHECK: error: 'tg.program' op config timing 'interleaved' needs timing_n

// -----
// CHECK: //{{ }}-----

tg.program @p() config {timing = "immediate", timing_n = 2 : i64} {
}

// CHECK: error: 'tg.program' op config timing 'immediate' takes no timing_n

// -----
// CHECK: //{{ }}-----

// spatial_map is the AIE grid: an array<i64> of positive dimensions.
tg.program @p() config {spatial_map = [4, 4]} {
}

// CHECK: error: 'tg.program' op config key 'spatial_map' must be an array<i64: ...>, got [4 : i64, 4 : i64]

// -----
// CHECK: //{{ }}-----

tg.program @p() config {spatial_map = array<i32: 4, 4>} {
}

// CHECK: error: 'tg.program' op config key 'spatial_map' must be an array<i64: ...>, got array<i32: 4, 4>

// -----
// CHECK: //{{ }}-----

tg.program @p() config {spatial_map = array<i64: 4, 0>} {
}

// CHECK: error: 'tg.program' op config spatial_map dimensions must be > 0, got [4, 0]

// -----
// CHECK: //{{ }}-----

// layouts: tensor name -> grid axis per dimension (-1 = replicate).
tg.program @p() config {layouts = [1]} {
}

// CHECK: error: 'tg.program' op config key 'layouts' must be a dictionary tensor -> array<i64: ...>, got [1 : i64]

// -----
// CHECK: //{{ }}-----

tg.program @p(%n: index) config {layouts = {n = array<i64: 0>}} {
}

// CHECK: error: 'tg.program' op config layouts names 'n', which is not a memref argument

// -----
// CHECK: //{{ }}-----

tg.program @p(%X: memref<4xf32>) config {layouts = {Q = array<i64: 0>}} {
}

// CHECK: error: 'tg.program' op config layouts names 'Q', which is not a memref argument

// -----
// CHECK: //{{ }}-----

tg.program @p(%X: memref<4xf32>) config {layouts = {X = [0]}} {
}

// CHECK: error: 'tg.program' op config layout of 'X' must be an array<i64: ...>

// -----
// CHECK: //{{ }}-----

tg.program @p(%X: memref<4xf32>) config {layouts = {X = array<i64: -2>}} {
}

// CHECK: error: 'tg.program' op config layout of 'X': grid axes are >= 0 (-1 = replicate), got [-2]

// -----
// CHECK: //{{ }}-----

// extensions: the names of the schedule's ops no pass lowered.
tg.program @p() config {extensions = "npu.double_buffer"} {
}

// CHECK: error: 'tg.program' op config key 'extensions' must be an array of op names, got "npu.double_buffer"

// -----
// CHECK: //{{ }}-----

tg.program @p() config {extensions = [1]} {
}

// CHECK: error: 'tg.program' op config key 'extensions' must be an array of op names, got [1 : i64]

// -----
// CHECK: //{{ }}-----

// The static form has the same config.
tg.graph @g() config {streams = 0 : i64} {
}

// CHECK: error: 'tg.graph' op config streams must be > 0, got 0
