// pto-wsp AICore environment: what emitted kernel wrappers and bodies include.
//
// On the device (CANN's ccec/bisheng, -x cce) this is kernel_operator.h plus the tensor views
// below. With PTO_WSP_HOST defined (our host build, plain g++), the Ascend C qualifiers are
// empty, GM_ADDR is a byte pointer, the block index is the host worker's number, and the
// pipe/event synchronisation calls do nothing: on a CPU, the pipes are one thread in order.
#pragma once

#include <stdint.h>

#if defined(PTO_WSP_HOST)

#ifndef __aicore__
#define __aicore__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __inline__
#define __inline__ inline
#endif

typedef uint8_t* GM_ADDR;

namespace pto {
namespace wsp {
namespace host {
// The worker thread that runs the current task (set by the host runtime before each task).
extern thread_local int64_t block_idx;
extern thread_local int64_t block_num;
}  // namespace host
}  // namespace wsp
}  // namespace pto

inline int64_t get_block_idx() { return pto::wsp::host::block_idx; }
inline int64_t get_block_num() { return pto::wsp::host::block_num; }
inline int64_t GetBlockIdx() { return pto::wsp::host::block_idx; }
inline int64_t GetBlockNum() { return pto::wsp::host::block_num; }

// Pipes and events: one in-order thread on the host, so every flag is already set.
enum pipe_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_FIX };
enum event_t {
  EVENT_ID0 = 0,
  EVENT_ID1,
  EVENT_ID2,
  EVENT_ID3,
  EVENT_ID4,
  EVENT_ID5,
  EVENT_ID6,
  EVENT_ID7
};
inline void set_flag(pipe_t, pipe_t, event_t) {}
inline void wait_flag(pipe_t, pipe_t, event_t) {}
inline void pipe_barrier(pipe_t) {}
inline void dcci(const void*, int) {}

#define KERNEL_TASK_TYPE_DEFAULT(type)

#else  // the device toolchain

#include "kernel_operator.h"

#endif

#include "pto_wsp/gm_tensor.h"
