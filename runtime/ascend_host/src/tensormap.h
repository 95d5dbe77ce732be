// pto-wsp host runtime: the TensorMap (seed 004 §6.2.3), a port of runtime/tensormap.py.
//
// Per tensor (keyed by its base address), one entry per distinct region geometry: its last
// writer and the readers since. A write takes the writers and readers of every overlapping
// entry as dependencies, drops the entries it contains and marks the others as not alone.
// Lookup: the exact geometry (O(1) when nothing else overlaps it), then tiling grids (regions
// of equal sizes and strides whose offsets agree modulo the tile width: found by arithmetic
// on tile indices), then, past kMaxGrids tilings per tensor, a scanned list. Overlap is
// decided exactly in index space (strided progressions, as runtime/regions.py).
#pragma once

#include <stdint.h>

#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "task_abi.h"

namespace pto {
namespace wsp {
namespace host {

constexpr int kMaxGrids = 16;

struct Geom {
  uint64_t base;
  int32_t rank;
  int64_t off[kMaxRank];
  int64_t size[kMaxRank];
  int64_t stride[kMaxRank];
};

bool geom_equal(const Geom& a, const Geom& b);
bool overlaps(const Geom& a, const Geom& b);
bool contains(const Geom& a, const Geom& b);
bool progressions_intersect(int64_t o1, int64_t n1, int64_t s1, int64_t o2, int64_t n2,
                            int64_t s2);

struct GeomHash {
  size_t operator()(const Geom& g) const;
};
struct GeomEq {
  bool operator()(const Geom& a, const Geom& b) const { return geom_equal(a, b); }
};

struct Cell {
  int64_t k[kMaxRank];
};
struct CellHash {
  int rank;
  size_t operator()(const Cell& c) const;
};
struct CellEq {
  int rank;
  bool operator()(const Cell& a, const Cell& b) const;
};

struct Entry {
  Geom g;
  int64_t writer = -1;
  std::vector<uint32_t> readers;
  bool alone = true;
  bool unit = true;
  int32_t grid = -1;  // its tiling grid, or -1: the scanned list
  Cell cell;
};

struct Grid {
  bool alive = false;
  bool unit = true;
  int64_t size[kMaxRank];
  int64_t stride[kMaxRank];
  int64_t width[kMaxRank];
  int64_t residue[kMaxRank];
  std::unique_ptr<std::unordered_map<Cell, int32_t, CellHash, CellEq>> cells;
};

struct TensorState {
  int rank = -1;
  std::unordered_map<Geom, int32_t, GeomHash, GeomEq> exact;
  std::vector<Grid> grids;
  int alive_grids = 0;
  std::vector<int32_t> others;
};

class TensorMap {
 public:
  // Record that `task` accesses region `r` with `access`, appending the tasks it must run
  // after: read-after-write, write-after-write, write-after-read (as runtime/tensormap.py).
  void access(const TensorRegion& r, uint8_t access, uint32_t task, std::vector<uint32_t>& raw,
              std::vector<uint32_t>& waw, std::vector<uint32_t>& war);
  // Forget every access by a task older than `task` (task_window).
  void gc_before(uint32_t task);
  size_t size() const;

 private:
  TensorState& state(uint64_t base);
  int32_t classify(TensorState& st, const Geom& g, int64_t* width, int64_t* residue);
  void insert(TensorState& st, int32_t e, int32_t grid, const int64_t* width,
              const int64_t* residue);
  void remove(TensorState& st, int32_t e);
  void find_in_grid(const Grid& grid, const Geom& g, bool unit, std::vector<int32_t>& found);
  void overlapping(TensorState& st, const Geom& g, bool unit, int32_t own,
                   std::vector<int32_t>& found);
  int32_t new_entry(const Geom& g, bool unit);

  std::unordered_map<uint64_t, std::unique_ptr<TensorState>> tensors_;
  uint64_t last_base_ = 0;
  TensorState* last_state_ = nullptr;
  std::deque<Entry> entries_;
  std::vector<int32_t> free_;
  std::vector<int32_t> cands_;
};

}  // namespace host
}  // namespace wsp
}  // namespace pto
