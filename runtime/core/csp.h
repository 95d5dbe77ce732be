// pto-wsp native runtime core: what the graph builder's calls (core.cpp) ask of a pipeline run
// (csp.cpp) when the builder belongs to one (PtoCore::pipe is set).
#pragma once

#include <stdint.h>

struct PtoPipe;

namespace csp {

// A task begins. true: it was taken as a task of the message being sent (not created now).
bool task_begin(PtoPipe* p, int64_t kernel, int64_t site, int64_t pool, int64_t domain,
                int64_t target, int64_t stream, int64_t priority);
// Whether the process is capturing a message's tasks (the next calls describe one of them).
bool capturing(const PtoPipe* p);
void capture_value(PtoPipe* p, int which, int64_t value);  // 0 scalar, 1 coordinate
void capture_region(PtoPipe* p, int64_t tensor, int64_t access, int64_t rank, const int64_t* d);
// Before the builder infers a created task's edges: the coordinates of the message being
// handled come first. After: the new nodes join the schedule.
void before_submit(PtoPipe* p);
void after_submit(PtoPipe* p);
// The builder failed (a check of the program, a bad region): the process stops there.
void check(PtoPipe* p);
// An ordering point of a process (batch_deps flushes its batch there).
void order_point(PtoPipe* p);
// Tasks captured in the message being sent (tg.seq counts them).
int64_t captured(const PtoPipe* p);

}  // namespace csp
