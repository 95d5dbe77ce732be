// pto-wsp native runtime core: its C API (docs/native.md).
//
// Two sides. A task-generation program lowered by the tg-to-runtime-calls pass and compiled
// by upstream MLIR calls the pto_tg_* functions, passing the core's address as its first
// argument (an MLIR `index`); they follow the tg ops of the same names. The host (Python,
// through ctypes) makes a core for one build, runs the program on it and reads the task graph
// it built (pto_core_*), and can schedule a built graph in virtual time (pto_core_schedule*).
//
// The graph is built with the rules the Ascend host runtime uses (runtime/ascend_host/src:
// order.h for structural order and edge reasons, tensormap.h for data edges): node ids in
// creation order, barrier nodes for ordering points that several tasks precede, and
// read-after-write, write-after-write and write-after-read edges between overlapping regions.
#pragma once

#include <stdint.h>

// The highest tensor rank a region may have (the core's task_abi.h is built with it).
#define PTO_CORE_MAX_RANK 8

// The library exports this API alone (it is built with -fvisibility=hidden): its TensorMap,
// built for this ABI, never stands in for the Ascend host runtime's in a process that loads
// both, nor the other way round.
#define PTO_CORE_API __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

// ------------------------------------------------------------------ the program's calls
// Access: 0 in, 1 out, 2 inout (PTO_ACCESS_*; a site's region may also be 3 or 4, below).
// Pool: 0 vector, 1 cube, 255 any. Domain: 0 host_cpu,
// 1 aicore, 2 aie_tile. Target -1: the runtime decides.

// tg.task, in one call: `site` is the task site's entry in the program's site table (a
// constant array the lowering emits beside the code: what every task of the site shares),
// `values` the task's own values in the entry's order. An entry (int64 values, PTO_SITE_*):
// site, kernel, domain; pool, target, stream, priority (their constants); which of these four
// `values` gives instead (bit k: the k-th); the numbers of scalars, coordinates and regions;
// then per region its program argument `tensor`, access (0 read, 1 write, 2 both; a read
// may be 3, LOOKUP: every task writing the tensor was created before, so the read is only
// looked up in the TensorMap, not recorded; or 4, UNWRITTEN: no task writes the tensor, the
// map is not consulted; both recorded as 0) and rank R
// (0 to PTO_CORE_MAX_RANK). `values`: the place values not constant, the scalars, the
// coordinates, then per region 3R values: per root dimension its offset, size and stride in
// the tensor's index space. The task is then added to the graph with its dependencies.
enum {
  PTO_ACCESS_IN,
  PTO_ACCESS_OUT,
  PTO_ACCESS_INOUT,
  PTO_ACCESS_LOOKUP,
  PTO_ACCESS_UNWRITTEN,
};
enum {
  PTO_SITE_SITE,
  PTO_SITE_KERNEL,
  PTO_SITE_DOMAIN,
  PTO_SITE_PLACE,  // pool, target, stream, priority
  PTO_SITE_VARYING = PTO_SITE_PLACE + 4,
  PTO_SITE_SCALARS,
  PTO_SITE_COORDS,
  PTO_SITE_REGIONS,
  PTO_SITE_HEAD,  // the first region's tensor, access and rank, then the next region's
};
PTO_CORE_API void pto_tg_task(intptr_t core, const int64_t* site, const int64_t* values);
// tg.ordered (enter ... exit) and tg.order_point.
PTO_CORE_API void pto_tg_ordered_enter(intptr_t core);
PTO_CORE_API void pto_tg_order_point(intptr_t core);
PTO_CORE_API void pto_tg_ordered_exit(intptr_t core);
// tg.seq: the tasks created so far.
PTO_CORE_API int64_t pto_tg_seq(intptr_t core);
// Streams and events (tg.event_record / event_wait / event_query; order.h's Events): a
// program that uses events calls pto_tg_use_events before its first task. `event` numbers the
// program's event names; `all` 1: every stream (then `stream` is ignored).
PTO_CORE_API void pto_tg_use_events(intptr_t core);
PTO_CORE_API void pto_tg_event_record(intptr_t core, int64_t event, int64_t all, int64_t stream);
PTO_CORE_API void pto_tg_event_wait(intptr_t core, int64_t event, int64_t all, int64_t stream);
PTO_CORE_API int64_t pto_tg_event_query(intptr_t core, int64_t event);
// An scf.for creating a task per iteration is about to run (lb, ub, step): a trip count
// beyond the nodes memory holds fails the build now.
PTO_CORE_API void pto_tg_loop_tasks(intptr_t core, int64_t lb, int64_t ub, int64_t step);
// Check `check` of the program failed (a memref.load outside its memref, a division by
// zero: the pass's table says which): the build fails.
PTO_CORE_API void pto_tg_check_failed(intptr_t core, int64_t check);

// ------------------------------------------------------------------ pipelines (csp.cpp)
// A pipeline's process replica is a compiled function of its own (MLIR's packed C interface:
// one array of argument addresses) that calls the pto_tg_* functions above and these. The
// core runs every replica as a coroutine on its own stack, switched by the virtual-time
// scheduler on the calling thread; a call below returns when the process may go on
// (docs/native.md "Pipelines"). Queue ids are the pipeline's queue numbers.

// tg.send: the tasks described until pto_tg_send_end are captured as one message; its
// coordinates (pto_tg_send_coord, one per name of site `site`) follow the tasks. Blocks while
// the queue is full; nonblocking: never, the message is dropped when it cannot be taken.
PTO_CORE_API void pto_tg_send_begin(intptr_t core);
PTO_CORE_API void pto_tg_send_coord(intptr_t core, int64_t value);
PTO_CORE_API void pto_tg_send_end(intptr_t core, int64_t queue, int64_t site, int64_t nonblocking);
// tg.consume: the next message of the queue (blocks while it is empty), -1 when it is closed;
// then pto_tg_issue creates its tasks for this replica, the body runs, pto_tg_wait waits for
// the tasks the process issued. pto_tg_message_coord: tg.coord.
PTO_CORE_API int64_t pto_tg_recv(intptr_t core, int64_t queue);
PTO_CORE_API void pto_tg_issue(intptr_t core, int64_t message, int64_t replica);
PTO_CORE_API int64_t pto_tg_message_coord(intptr_t core, int64_t message, int64_t k);
PTO_CORE_API void pto_tg_wait(intptr_t core);
// tg.record (waits for the process's tasks, then a rendezvous) and tg.synchronize.
PTO_CORE_API void pto_tg_record(intptr_t core, int64_t queue);
PTO_CORE_API void pto_tg_synchronize(intptr_t core, int64_t queue);

// ------------------------------------------------------------------ the host's side

typedef struct PtoCore PtoCore;

// A core for one build. Tensor i (program argument i) has rank ranks[i] and extents
// shapes[i * PTO_CORE_MAX_RANK + d] (-1: unknown); a region outside a known extent fails.
PTO_CORE_API PtoCore* pto_core_new(int32_t num_tensors, const int32_t* ranks, const int64_t* shapes);
PTO_CORE_API void pto_core_free(PtoCore* core);
// Start a new build on `core` with these tensors, as pto_core_new would make it: the last
// build's arrays keep their memory where it is (the host's views of them stay valid until
// an array grows), so a program built again in the same core meets no new memory.
PTO_CORE_API void pto_core_restart(PtoCore* core, int32_t num_tensors, const int32_t* ranks,
                                   const int64_t* shapes);
// pto_core_restart with the last build's tensors, then its settings (pto_core_no_data_deps,
// pto_core_no_records, the limits) again: a program built again, in one call.
PTO_CORE_API void pto_core_again(PtoCore* core);
// Run the compiled program `entry` (its packed interface: void(void**), MLIR's) on the core
// with the packed `args`; the first error stops it there (nonzero: pto_core_error says why).
PTO_CORE_API int32_t pto_core_run(PtoCore* core, void (*entry)(void**), void** args);
// At most `n` nodes, never more than 2^31 - 16 (node ids are int32 in fanout_edges): more is an
// out-of-memory error, not a process the system kills.
PTO_CORE_API void pto_core_max_nodes(PtoCore* core, int64_t n);
// At most `n` edges, and never more than 2^31 - 1 (fanout_begin is int32): more is an error.
PTO_CORE_API void pto_core_max_edges(PtoCore* core, int64_t n);
// Infer no data edges in this build (structural and event edges only): before the program runs.
PTO_CORE_API void pto_core_no_data_deps(PtoCore* core);
// Record no task's scalars, coordinates, regions or site in this build (the graph's args,
// coords, regions, their begin arrays and site stay empty; the checks and data edges are as
// ever): before the program runs, for a build whose readers need none of them.
PTO_CORE_API void pto_core_no_records(PtoCore* core);
// Why the build failed ("" if it did not), the node it concerns (else -1) and the check that
// failed (else -1).
PTO_CORE_API const char* pto_core_error(const PtoCore* core);
PTO_CORE_API int64_t pto_core_error_node(const PtoCore* core);
PTO_CORE_API int64_t pto_core_error_check(const PtoCore* core);

// The task graph built (runtime/graph.py's TaskGraph arrays), valid until pto_core_free.
// Per node: kind (0 task, 1 barrier), kernel and site (-1 for a barrier), pool, domain,
// target, stream, priority (each NULL while every node has the default: -1, 0, 0), fanin;
// fanout in CSR (fanout_begin, int32, has num_nodes + 1 entries, each row ascending, edge_kind per edge: 0 structural, 1 raw, 2 waw, 3 war). Per node in
// CSR too: args, coords, and regions as (tensor, access, rank, offsets, sizes, strides):
// regions32 (int32) when every value of the build fits 32 bits, else regions (int64); the
// other one is NULL.
typedef struct PtoGraph {
  int64_t num_nodes, num_edges, num_tasks;
  const uint8_t *kind, *pool, *domain;
  const int32_t *kernel, *site, *fanin, *fanout_edges;
  const int64_t *target, *stream, *priority;
  const int32_t* fanout_begin;
  const uint8_t* edge_kind;
  const int64_t *args_begin, *args, *coords_begin, *coords, *regions_begin, *regions;
  const int32_t* regions32;
} PtoGraph;

// Fill `out` (an error if the build failed or a scope is still open: nonzero). fanout 0:
// without the fanout (fanout_begin, fanout_edges, edge_kind NULL; num_edges given): the CSR
// is made by the first call with fanout 1 (a schedule made beside the build reads none).
PTO_CORE_API int32_t pto_core_graph(PtoCore* core, PtoGraph* out, int32_t fanout);
// The ordering points of the build (tg.order_point): per point, how many tasks preceded it
// (what batch_deps flushes on); valid until pto_core_free.
PTO_CORE_API int64_t pto_core_order_points(const PtoCore* core, const int64_t** points);


// ------------------------------------------------------------------ the scheduler
// The virtual-time scheduler (cycles mode) of a built graph: runtime/engine.py's run of a
// main program, replayed over the graph's arrays (docs/native.md "Scheduling").

// The graph: per node kind (0 task, 1 barrier), pool (0 vector, 1 cube, 255 any), cost in
// cycles (0 for barriers), priority, target (-1: none), stream (these three NULL: every
// node the default, -1 target, 0 otherwise), fanin; fanout in CSR (PtoGraph's arrays, cost
// added). cost NULL: a node costs kernel_cost[kernel + 1] (its kernel's cycles, the
// barriers' -1 kernel entry 0 first; num_kernel_costs entries): no per-node array to fill
// when every kernel's cost is a constant.
typedef struct PtoSchedGraph {
  int64_t num_nodes;
  const uint8_t *kind, *pool;
  const int64_t *cost, *priority, *target, *stream;
  const int32_t* fanout_begin;
  const int32_t *fanin, *fanout_edges;
  const int32_t* kernel;
  const int64_t* kernel_cost;
  int64_t num_kernel_costs;
} PtoSchedGraph;

// The schedule. worker_pool: each worker's pool code. timing: 0 immediate, 1 rate_limit
// (one task per `interval` cycles), 2 batched, 3 interleaved (timing_n tasks at a time).
// depth_scope: 0 global, 1 per_stream, 2 per_pool. order_after (num_tasks + 1 entries, or
// NULL): an ordering point after that many tasks (batch_deps flushes there). window_abort 1:
// a task whose creation finds the window full stops the run there (task_window's
// overflow=abort). stop_at >= 0: the run stops before creating task number stop_at (its cost
// could not be computed). A stopped run's counters say where (s: created, live, window full),
// and its dispatch order holds the tasks started by then. general 1: the general loop even
// where the plain one applies (tests compare the two).
typedef struct PtoSchedConfig {
  int64_t workers;
  const uint8_t* worker_pool;
  int64_t ready_priority, work_steal, streams, stream_keyed, timing, timing_n, depth,
      depth_scope, batch_deps, gen_cost, task_window;
  double interval;
  const uint8_t* order_after;
  int64_t window_abort, stop_at, general;
} PtoSchedConfig;

// The caller's arrays the results go to (runtime/native_core.py's Schedule): ni 4 rows of
// num_nodes (worker, issue number, stream, lane), nf 5 rows (start, end, issued, dependencies
// met, created: left unset without gen_cost or task_window, when every node is created at 0;
// a plain schedule, s[9] 1, leaves start, issue number, stream, lane, issued and dependencies
// met unset: a task starts its cost before its end (a barrier: -1), it is issued as it is
// created, on its own stream, lane 0, and a node's dependencies are met at its creation or
// its last predecessor's end), order the dispatch order
// (num_tasks), s the counters then tasks run per worker (21 + workers), r the clock, the
// five stalls (dependencies, stream order, pipeline depth, issue, window), then busy cycles
// per worker (8 + workers).
typedef struct PtoSchedOut {
  int64_t* ni;
  double* nf;
  int64_t* order;
  int64_t* s;
  double* r;
} PtoSchedOut;

typedef struct PtoScheduler PtoScheduler;

// A scheduler; its memory is kept from one run to the next.
PTO_CORE_API PtoScheduler* pto_core_scheduler_new(void);
PTO_CORE_API void pto_core_scheduler_free(PtoScheduler* s);
// Schedule `graph` (nonzero: it cannot, pto_core_schedule_error says why).
PTO_CORE_API int32_t pto_core_schedule(PtoScheduler* s, const PtoSchedGraph* graph,
                                      const PtoSchedConfig* config, PtoSchedOut* out);
PTO_CORE_API const char* pto_core_schedule_error(const PtoScheduler* s);
// pto_core_run, and beside the build (on a second thread) the plain schedule of the graph
// it makes, when the schedule is plain (timing immediate, no streams, pipeline_depth, task
// window, work stealing, batch_deps, ready priority or generator cost; config's stop_at < 0,
// general 0), every node costs its kernel's (kernel_cost: the barriers' 0 first, then per
// kernel at least 1) and the graph has at most `capacity` nodes (the outputs' rows are
// `capacity` long) and the process may run on two CPUs: then
// *scheduled is 1 and `out` holds pto_core_schedule's results; else 0, and the caller
// schedules the built graph with pto_core_schedule. options: the number of nodes the build
// publishes to the schedule at a time in its low 16 bits (1-4,096; else 64), and
// PTO_STREAM_WAIT: the build starts once the schedule runs (tests: every build interleaves).
#define PTO_STREAM_WAIT (1 << 16)
PTO_CORE_API int32_t pto_core_run_scheduled(PtoCore* core, void (*entry)(void**), void** args,
                                            PtoScheduler* s, const PtoSchedConfig* config,
                                            const int64_t* kernel_cost,
                                            int64_t num_kernel_costs, PtoSchedOut* out,
                                            int64_t capacity, int64_t options,
                                            int32_t* scheduled);
// The last run's stall spans (task, from, to; task -1: the generator waiting on the task
// window) and the task window's TensorMap collections (after `at` nodes, every access of a
// node before `oldest` forgotten); valid until the next run.
PTO_CORE_API int64_t pto_core_schedule_spans(const PtoScheduler* s, const int64_t** tid,
                                        const double** t0, const double** t1);
PTO_CORE_API int64_t pto_core_schedule_collections(const PtoScheduler* s, const int64_t** at,
                                              const int64_t** oldest);

// ------------------------------------------------------------------ running a pipeline
// A run of a pipeline on `core` (made by pto_core_new, the graph of the run): its queues and
// process replicas, then pto_core_pipe_run schedules processes and tasks in virtual time as the
// simulator's cycles mode does (workers with pools, targets, work stealing, fifo or priority
// issue order; tasks cost their kernel's cycles). Sites name coordinates by ids: site s has
// the names site_names[site_begin[s] .. site_begin[s + 1]); replica_name is `replica`'s id.
typedef struct PtoPipe PtoPipe;
typedef void (*PtoProcessFn)(void** args);

PTO_CORE_API PtoPipe* pto_core_pipe_new(PtoCore* core, int64_t workers, const uint8_t* worker_pool,
                                   int64_t ready_priority, int64_t work_steal,
                                   int64_t num_kernels, const int64_t* kernel_cost);
PTO_CORE_API void pto_core_pipe_free(PtoPipe* pipe);
// The schedule's other directives, as PtoSchedConfig's fields (timing: 0 immediate,
// 1 rate_limit, 2 batched, 3 interleaved; depth_scope: 0 global, 1 per_stream, 2 per_pool);
// window_abort 1: a process finding the task window full fails the run (6).
typedef struct PtoPipeSchedule {
  int64_t streams, stream_keyed, timing, timing_n, depth, depth_scope, batch_deps, task_window,
      window_abort;
  double interval;
} PtoPipeSchedule;
PTO_CORE_API void pto_core_pipe_schedule(PtoPipe* pipe, const PtoPipeSchedule* schedule);
// The cycles of a task whose kernel's cost is -1 (a cost function): given the task's node,
// kernel, the program's site its task comes from, coordinate names and values, scalars and
// regions (tensor, access, rank, offsets, sizes, strides each); a negative result fails the
// run (5) in the creating process.
typedef int64_t (*PtoCostFn)(int64_t node, int64_t kernel, int64_t origin, const int32_t* names,
                             int64_t num_names,
                             const int64_t* args, int64_t num_args, const int64_t* coords,
                             const int64_t* regions, int64_t num_regions);
PTO_CORE_API void pto_core_pipe_cost_function(PtoPipe* pipe, PtoCostFn fn);
// The placement of a task a process receives, from the schedule's keys over its coordinates
// (names and values, `replica` last): place holds pool, target, stream and priority, changed
// in place; nonzero fails the run (5) in the receiving process.
typedef int32_t (*PtoPlaceFn)(const int32_t* names, const int64_t* values, int64_t num_coords,
                              int64_t* place);
PTO_CORE_API void pto_core_pipe_place_function(PtoPipe* pipe, PtoPlaceFn fn);
// The functional mode: `fn` (a PtoCostFn's arguments) runs a task's body as it starts; nonzero
// fails the run (5) there, and nothing more starts.
PTO_CORE_API void pto_core_pipe_body_function(PtoPipe* pipe, PtoCostFn fn);
// From another thread while the run is under way: close `queue` (applied at the next step:
// receivers drain it, then their consume ends; a send on it is a closed channel), and read
// whether it is open and how many messages it holds.
PTO_CORE_API void pto_core_pipe_close(PtoPipe* pipe, int64_t queue);
PTO_CORE_API void pto_core_pipe_channel(const PtoPipe* pipe, int64_t queue, int64_t* open,
                                        int64_t* size);
PTO_CORE_API void pto_core_pipe_sites(PtoPipe* pipe, int64_t num_sites, const int64_t* site_begin,
                                 const int32_t* site_names, int32_t replica_name);
PTO_CORE_API void pto_core_pipe_queue(PtoPipe* pipe, int64_t capacity, int32_t is_event);
// A replica: `args` (kept by the caller until the run ends) with the replica index in it.
PTO_CORE_API void pto_core_pipe_process(PtoPipe* pipe, PtoProcessFn fn, void** args, int64_t num_sends,
                                   const int64_t* sends, int64_t num_receives,
                                   const int64_t* receives);
// Run to the end: 0, or an error: 1 deadlock, 2 a channel closed, 3 the build failed in a
// process (pto_core_error says why), 4 another reason (pto_core_pipe_message), 5 a cost or
// placement function failed, 6 the task window was full with overflow=abort (the message).
PTO_CORE_API int32_t pto_core_pipe_run(PtoPipe* pipe);
PTO_CORE_API const char* pto_core_pipe_message(const PtoPipe* pipe);

// The run's results, valid until pto_core_pipe_free. Per node: worker (-1 for barriers), issue
// number, start and end cycle; the dispatch order; per worker busy cycles and tasks run; the
// stalls in cycles (dependencies, stream order, pipeline depth, issue, window, channel full,
// channel empty, event); stall spans (cause as that index, process or -1 - task, from, to);
// the sites, including those made for received tasks; the error's processes, operations
// (0 send, 1 recv, 2 record, 3 synchronize, 4 wait, 5 window) and queues (-1: none): every
// blocked process of a deadlock, the one process of another error.
typedef struct PtoPipeResult {
  int64_t num_nodes, num_order, workers, num_spans, num_sites, num_blocked;
  const int64_t *worker, *issue, *order, *tasks_run;
  const double *start, *end, *busy, *stalls;
  const int64_t *span_cause, *span_process;
  const double *span_from, *span_to;
  const int64_t* site_begin;
  const int32_t* site_names;
  const int64_t *blocked_process, *blocked_op, *blocked_queue;
  // The task window's TensorMap collections (PtoSchedOut's): after gc_at[i] nodes, the
  // accesses of the nodes before gc_old[i] are forgotten. Per node its stream and lane.
  int64_t num_collections;
  const int64_t *gc_at, *gc_old, *stream, *lane;
  // Per site the program's site it was made from (its task's scalars and views).
  const int64_t* site_origin;
  // Per node when it was created, issued and its dependencies met, and its cost; the steals.
  const double *created, *issued, *deps_met;
  const int64_t* cost;
  int64_t steals;
} PtoPipeResult;
PTO_CORE_API void pto_core_pipe_result(const PtoPipe* pipe, PtoPipeResult* out);

// ------------------------------------------------------------------ kernel bodies (bodies.cpp)
// The functional mode's native kernels: a tile kernel compiled by upstream MLIR has an entry
// taking one array of 64-bit words, per parameter in order a tensor's data address, sizes and
// strides in elements (kept dimensions only), or a scalar (an integer, or a double's bits).
typedef void (*PtoKernelFn)(int64_t* words);

typedef struct PtoBodies {
  // The graph's arrays (PtoGraph's: regions or, NULL, regions32).
  const int32_t *kernel, *site;
  const int64_t *args_begin, *args, *regions_begin, *regions;
  const int32_t* regions32;
  // Per site: its scalars' kinds ('i' int, 'b' bool, 'f' a double's bits; missing: 'i') at
  // kinds[kinds_begin[s] ..], and per region the mask of the root dimensions its view keeps
  // at kept[kept_begin[s] ..] (missing: every dimension).
  int64_t num_sites;
  const int64_t* kinds_begin;
  const uint8_t* kinds;
  const int64_t *kept_begin, *kept;
  // Per kernel: mode (0 no body, 1 native, 2 the host's), entry, and the signature at
  // sig[sig_begin[k] .. sig_begin[k + 1]): per parameter, a tensor 0, dtype, rank, extents
  // (-1: any); a scalar 1 integer, 2 floating. max_words: the most words of a call.
  int64_t num_kernels, max_words;
  const uint8_t* mode;
  const PtoKernelFn* entry;
  const int64_t *sig_begin, *sig;
  // Per tensor: data address (0: the host's), dtype, rank, item size, and per dimension
  // (PTO_CORE_MAX_RANK each) extents and strides in elements.
  int64_t num_tensors;
  const intptr_t* data;
  const int64_t *dtype, *rank, *itemsize, *shape, *stride;
} PtoBodies;

// Call the native body of tasks order[from .. to) in turn, skipping kernels without a body;
// stop at the first task the host must run (its kernel's body is the host's, or a call the
// entry does not take exactly: a region outside its array, another dtype, shape or scalar
// kind, another number of arguments) and return its index (`to`: all ran).
PTO_CORE_API int64_t pto_core_run_bodies(const PtoBodies* b, const int64_t* order, int64_t from,
                                    int64_t to);

#ifdef __cplusplus
}
#endif
