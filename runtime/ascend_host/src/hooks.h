// What the pipeline runner (pipeline.cpp) uses of the builder's internals (builder.cpp): a
// process creates tasks through the one Builder, under the pipeline's lock, with its own
// ordered scopes and its message's coordinates.
#pragma once

#include <stdint.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "order.h"
#include "pto_wsp/orchestration.h"
#include "pto_wsp/pipeline.h"

namespace pto {
namespace wsp {
namespace host {

// An error with a result code for the launcher: 1 execution, 2 resource (task window), 3 args,
// 4 deadlock, 5 a closed channel (the message's fields are tab-separated for the launcher).
struct RunError : std::runtime_error {
  int code;
  RunError(const std::string& what, int c) : std::runtime_error(what), code(c) {}
};

// The coordinates a pipeline process gives the tasks it creates (docs/semantics.md
// "Pipelines"): the message it handles comes first (a name the task has too keeps the
// task's value), then the task's own, then `replica` while it issues a message's tasks.
struct IssueContext {
  std::vector<const char*> names;
  std::vector<int64_t> values;
  int64_t replica = -1;            // >= 0: issuing a received message's tasks
  const ReceiptKeys* keys = nullptr;  // the schedule's keys of those tasks
  std::vector<uint32_t> issued;    // tasks created and not waited for yet
};

// The builder's side of a process switch: its issue context (nullptr: none) and its ordered
// scopes (swapped with the builder's).
void set_issue_context(Builder& b, IssueContext* c);
void swap_scopes(Builder& b, order::Scopes& s);
// Issue what batch_deps or timing still hold (a process is about to wait for its tasks).
void flush_issue(Builder& b);
// Wait until every node of `ids` completed; touches no orchestration state.
void wait_nodes(Builder& b, const std::vector<uint32_t>& ids);
// Wake the deferred workers: pipelines wait for tasks from several threads.
void start_workers(Builder& b);
// The run's error (the first one wins); every later builder call then throws.
void fail_run(Builder& b, const std::string& what, int code);

}  // namespace host
}  // namespace wsp
}  // namespace pto
