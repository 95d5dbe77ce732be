// pto-wsp native runtime core: the functional mode's native kernel bodies (pto_wsp_core.h).
//
// A tile kernel compiled by upstream MLIR (lowering/cpu/tile.py, entries in tile_entries.py) has an entry taking one array
// of 64-bit words: per parameter a tensor's data address, sizes and strides (a memref
// descriptor's fields, offset folded into the address) or a scalar's value. pto_core_run_bodies
// walks the dispatch order, builds each task's words from its regions over the bound arrays
// and its scalars, and calls the entry: no Python per task. A call it cannot make exactly as
// the Python path would (a region outside its array, another element type or shape, a scalar
// of another kind, another number of arguments) is not made: the host runs that task, and its
// own checks give the error the task gets today.
#include <string.h>

#include <vector>

#include "pto_wsp_core.h"

namespace {

constexpr int64_t kTensor = 0, kInteger = 1;
constexpr uint8_t kSkip = 0, kNative = 1;

struct Task {
  const int64_t *arg, *arg_end;
  int64_t region, region_end;  // positions in the graph's regions (int64, or int32)
  const uint8_t* kinds;
  int64_t num_kinds;
  const int64_t* kept;
  int64_t num_kept;
};

Task task_of(const PtoBodies& b, int64_t t) {
  Task task{b.args + b.args_begin[t], b.args + b.args_begin[t + 1],
            b.regions_begin[t], b.regions_begin[t + 1],
            nullptr, 0, nullptr, 0};
  const int64_t s = b.site[t];
  if (s >= 0 && s < b.num_sites) {
    task.kinds = b.kinds + b.kinds_begin[s];
    task.num_kinds = b.kinds_begin[s + 1] - b.kinds_begin[s];
    task.kept = b.kept + b.kept_begin[s];
    task.num_kept = b.kept_begin[s + 1] - b.kept_begin[s];
  }
  return task;
}

// One scalar word: an integer parameter takes ints and bools (0 or 1), a floating one also
// their value as a double; a float for an integer parameter is the host's TypeError.
bool scalar(int64_t param, uint8_t kind, int64_t value, int64_t* word) {
  if (param == kInteger) {
    if (kind == 'f') return false;
    *word = kind == 'b' ? value != 0 : value;
    return true;
  }
  double d;
  if (kind == 'f') {
    memcpy(&d, &value, sizeof d);
  } else {
    d = kind == 'b' ? static_cast<double>(value != 0) : static_cast<double>(value);
  }
  memcpy(word, &d, sizeof d);
  return true;
}

// A tensor's words from region `r` (tensor, access, rank, offsets, sizes, strides) keeping the
// dimensions in `mask`, for parameter signature `sig` (dtype, rank, extents; -1: any).
template <typename V>
bool tensor(const PtoBodies& b, const V* r, int64_t mask, const int64_t* sig, int64_t* word) {
  const int64_t t = r[0], rank = r[2], prank = sig[1];
  if (t < 0 || t >= b.num_tensors || !b.data[t] || b.dtype[t] != sig[0] || b.rank[t] != rank)
    return false;
  const V *off = r + 3, *size = off + rank, *step = size + rank;
  const int64_t* shape = b.shape + t * PTO_CORE_MAX_RANK;
  const int64_t* stride = b.stride + t * PTO_CORE_MAX_RANK;
  const int64_t* extent = sig + 2;
  int64_t offset = 0, kept = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (off[d] < 0 || off[d] >= shape[d]) return false;
    offset += off[d] * stride[d];
    if (!((mask >> d) & 1)) continue;
    const int64_t n = size[d], st = step[d];
    int64_t last;
    if (kept >= prank || n < 1 || st < 1 || __builtin_mul_overflow(n - 1, st, &last) ||
        last >= shape[d] - off[d] || (extent[kept] >= 0 && extent[kept] != n))
      return false;
    word[1 + kept] = n;
    word[1 + prank + kept] = st * stride[d];
    ++kept;
  }
  if (kept != prank) return false;
  word[0] = static_cast<int64_t>(b.data[t] + offset * b.itemsize[t]);
  return true;
}

// The words of task `t` of kernel `k` from its regions stored as V (int32 or int64); false:
// the host runs it.
template <typename V>
bool words(const PtoBodies& b, const V* regions, int64_t t, int64_t k, int64_t* word) {
  const Task task = task_of(b, t);
  const int64_t *sig = b.sig + b.sig_begin[k], *end = b.sig + b.sig_begin[k + 1];
  const int64_t* arg = task.arg;
  int64_t at = task.region;
  int64_t j = 0, i = 0;
  while (sig < end) {
    if (*sig != kTensor) {
      if (arg == task.arg_end) return false;
      const uint8_t kind = j < task.num_kinds ? task.kinds[j] : 'i';
      if (!scalar(*sig, kind, *arg++, word++)) return false;
      ++sig, ++j;
      continue;
    }
    if (at == task.region_end) return false;
    const int64_t rank = regions[at + 2], prank = sig[2];
    if (rank < 0 || rank > PTO_CORE_MAX_RANK) return false;
    const int64_t mask = i < task.num_kept ? task.kept[i] : (int64_t{1} << rank) - 1;
    if (!tensor(b, regions + at, mask, sig + 1, word)) return false;
    at += 3 + 3 * rank;
    word += 1 + 2 * prank;
    sig += 3 + prank;
    ++i;
  }
  return arg == task.arg_end && at == task.region_end;
}

}  // namespace

int64_t pto_core_run_bodies(const PtoBodies* b, const int64_t* order, int64_t from, int64_t to) {
  std::vector<int64_t> word(static_cast<size_t>(b->max_words) + 1);
  for (int64_t i = from; i < to; ++i) {
    const int64_t t = order[i];
    const int64_t k = b->kernel[t];
    if (k < 0 || k >= b->num_kernels || b->mode[k] == kSkip) continue;
    if (b->mode[k] != kNative) return i;
    if (!(b->regions ? words(*b, b->regions, t, k, word.data())
                     : words(*b, b->regions32, t, k, word.data())))
      return i;
    b->entry[k](word.data());
  }
  return to;
}
