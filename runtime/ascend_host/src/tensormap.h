// pto-wsp host runtime: the TensorMap (seed 004 §6.2.3), a port of runtime/tensormap.py.
//
// Per tensor (keyed by its base address), one entry per distinct region geometry: its last
// writer and the readers since. A write takes the writers and readers of every overlapping
// entry as dependencies, drops the entries it contains and marks the others as not alone.
// The edges found are exactly runtime/tensormap.py's (tests compare the graphs).
//
// Index: entries are grouped by tiling (regions of equal sizes and strides whose offsets
// agree modulo the tile width), up to kMaxGrids tilings per tensor; a tiling is a grid of
// cells by tile index, so the entries a region overlaps are found by arithmetic. When the
// tensor's shape is declared, a grid is a dense array over the tensor's cells (consecutive
// tiles are neighbours in memory: no hashing), else an open-addressing hash. The same region
// again is found through its own tiling's cell: an entry of a grid is its cell (its sizes and
// strides are the grid's, its offsets cell * width + residue), so a hit needs no geometry
// comparison. Regions of further tilings go to a list that is scanned, with a geometry hash
// for their exact lookups. Overlap is decided exactly in index space (strided progressions,
// as runtime/regions.py).
//
// Memory: entries live in chunks that are never moved (an entry is an index), readers are
// kept inline up to kInlineReaders and spill to pooled arrays beyond, and every pool is
// reused for the next entry: after warm-up, an access allocates nothing.
#pragma once

#include <stdint.h>

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <vector>

#include "task_abi.h"

namespace pto {
namespace wsp {
namespace host {

constexpr int kMaxGrids = 16;
// A dense grid holds at most this many cells (8 bytes each); larger tilings are hashed.
constexpr int64_t kMaxDenseCells = int64_t(1) << 20;
constexpr uint32_t kNoTask = 0xFFFFFFFFu;
constexpr int kInlineReaders = 3;

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
uint64_t geom_hash(const Geom& g);

struct Cell {
  int64_t k[kMaxRank];
};
// A dense cell's span: per dimension its first index and its width.
struct CellBox {
  int64_t lo[kMaxRank];
  int64_t width[kMaxRank];
};
uint64_t cell_hash(const Cell& c, int rank);

// A region read where its values lie: dimension d's offset, size and stride at off[S * d],
// size[S * d], stride[S * d] (a TensorRegion's arrays: S = 1; the native core's site values,
// offset, size, stride per dimension: S = 3). The common accesses copy nothing.
template <int S>
struct RegionRef {
  const int64_t* off;
  const int64_t* size;
  const int64_t* stride;
  uint64_t base;    // the root tensor's
  uint16_t tensor;  // its program argument (0xFFFF: none)
  uint8_t rank;
  int64_t o(int d) const { return off[S * d]; }
  int64_t n(int d) const { return size[S * d]; }
  int64_t s(int d) const { return stride[S * d]; }
};
inline RegionRef<1> region_ref(const TensorRegion& r) {
  return {r.offsets, r.sizes, r.strides, r.base, r.tensor, r.rank};
}
// The region's Geom, for the general paths (out of line: the inline paths build none).
template <int S>
__attribute__((noinline)) Geom geom_of(const RegionRef<S>& r) {
  Geom g;
  g.base = r.base;
  g.rank = r.rank;
  for (int d = 0; d < kMaxRank; ++d) {
    const bool in = d < r.rank;
    g.off[d] = in ? r.o(d) : 0;
    g.size[d] = in ? r.n(d) : 1;
    g.stride[d] = in ? r.s(d) : 1;
  }
  return g;
}

// An open-addressing index from 64-bit hashes to entry numbers. Keys are compared through
// the entries (the caller's predicate), so a slot is 16 bytes.
class FlatIndex {
 public:
  template <typename Eq>
  int32_t find(uint64_t h, Eq eq) const {
    if (slots_.empty()) return -1;
    size_t i = h & mask_;
    while (true) {
      const Slot& s = slots_[i];
      if (s.entry == kEmpty) return -1;
      if (s.entry >= 0 && s.hash == h && eq(s.entry)) return s.entry;
      i = (i + 1) & mask_;
    }
  }
  // Add an entry (never one already present).
  void insert(uint64_t h, int32_t e) {
    if ((used_ + dead_ + 1) * 2 > slots_.size()) rehash();
    size_t i = h & mask_;
    while (slots_[i].entry >= 0) i = (i + 1) & mask_;
    if (slots_[i].entry == kDead) --dead_;
    slots_[i].hash = h;
    slots_[i].entry = e;
    ++used_;
  }
  // h: the hash's low 32 bits suffice (they hold the mask's bits: no table has 2^32 slots).
  void erase(uint32_t h, int32_t e) {
    size_t i = h & mask_;
    while (slots_[i].entry != e) i = (i + 1) & mask_;
    slots_[i].entry = kDead;
    ++dead_;
    --used_;
  }
  size_t size() const { return used_; }

 private:
  struct Slot {
    uint64_t hash;
    int32_t entry;
  };
  static constexpr int32_t kEmpty = -1;
  static constexpr int32_t kDead = -2;
  void rehash() {
    size_t cap = 16;
    while (cap < (used_ + 1) * 4) cap <<= 1;
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(cap, Slot{0, kEmpty});
    mask_ = cap - 1;
    dead_ = 0;
    for (const Slot& s : old) {
      if (s.entry < 0) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].entry != kEmpty) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0, used_ = 0, dead_ = 0;
};

// Large blocks kept from one run to the next (entry chunks, the task ring): a run reuses the
// previous run's memory instead of faulting fresh pages in. At most `keep` blocks per size.
void* block_take(size_t bytes);  // huge pages from 2 MB on
void* block_take(size_t bytes, bool huge);
void block_give(void* p, size_t bytes, size_t keep);

// ninl: an entry's readers are in spills_[inl[0]] instead of inline.
constexpr uint8_t kSpilled = 0xFF;

// One region geometry of a tensor. In a grid, its sizes and strides are the grid's, and its
// offsets its cell's start (a dense grid: from lin; a hashed one: kept at grid_offs_[geom]);
// in the scanned list, its whole geometry is others_geom_[geom]. (No offsets in the entry: a
// large build's entries were a fifth of its memory; 32 bytes, half a cache line.)
struct Entry {
  // Its dense cell (a dense grid has at most kMaxDenseCells); else the low 32 bits of its cell
  // hash (hashed grid) or geometry hash (list), all FlatIndex::erase needs.
  uint32_t lin;
  uint32_t writer;               // kNoTask: none
  uint32_t inl[kInlineReaders];  // its readers (in order); spilled: inl[0] is their spills_ index
  int32_t member;                // its position in the grid's (or the list's) members, if listed
  int32_t geom;                  // the list: its geometry; a hashed grid: its offsets
  int8_t grid;                   // its tiling grid, or -1: the scanned list
  uint8_t ninl;                  // readers in inl, or kSpilled
  bool alone;
  bool unit;
};
static_assert(sizeof(Entry) == 32, "an entry is half a cache line");
static_assert(kMaxGrids <= 127 && kMaxDenseCells <= (int64_t(1) << 32), "Entry's field widths");

// One dimension of a grid: what fast_cell reads of it, in one cache line.
struct alignas(64) GridDim {
  int64_t size, stride;  // its tiles'
  int64_t start;         // dense: where the first cell starts (lo * width + residue)
  int64_t n, mult;       // dense: cells along it, row-major multiplier
  // dense: a tile at offset o lies in cell k = rotr((o - start) * inv, shift) if k < n, else
  // in none. The width is odd << shift and inv the inverse of odd modulo 2^64: a multiple of
  // the width gives its exact quotient, anything else a k of at least n (set_tile_division).
  // One cell along it: shift 0, inv 1 (o must be its start).
  int64_t shift;
  uint64_t inv;
};

// A dense grid's cell: its entry (-1: none) and that entry's writer (kNoTask: none, or no
// entry), kept in step with the entry's (set_writer): a lookup reads a cell's writer in one
// load instead of the chain cell, entry chunk, entry.
struct CellSlot {
  int32_t entry;
  uint32_t writer;
};

// What an access of a tile reads first lies together: the grid's first line (flags, cells,
// members), then one line per dimension (GridDim).
struct alignas(64) Grid {
  bool alive = false;
  bool unit = true;
  bool dense = false;
  // Whether `members` lists the grid's entries. A dense grid's cells hold them already: its
  // list is made (list_members) only when a scan needs it, so a new tile stores 4 bytes less.
  bool listed = true;
  bool inside = false;  // dense, and every cell's tile lies inside the declared shape
  int32_t rank = 0;
  std::vector<CellSlot> cells;  // dense: per cell
  std::vector<int32_t> members;
  int64_t live = 0;  // its entries
  GridDim at[kMaxRank];
  int64_t width[kMaxRank];
  int64_t residue[kMaxRank];
  int8_t shift[kMaxRank];  // log2(width), or -1 when the width is not a power of two
  int64_t lo[kMaxRank];    // dense: the first cell index per dimension
  FlatIndex hashed;        // not dense: entry by cell hash
};

struct TensorState {
  // (an access's first line)
  int last_grid = -1;
  int alive_grids = 0;
  int64_t count = 0;  // live entries
  Grid* last = nullptr;  // &grids[last_grid], or null (set_last)
  std::vector<Grid> grids;
  std::vector<int32_t> others;
  int rank = -1;
  bool has_shape = false;
  int64_t shape[kMaxRank];
  FlatIndex others_exact;
};

// Floor division (b != 0).
inline int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// A dense grid's cells k0..k1 along d holding a region's span r0..r1 (relative to the grid's
// start): shifts for power-of-two widths, no division for a span inside the first cell.
inline __attribute__((always_inline)) void cell_span(const Grid& grid, int d, int64_t r0,
                                                     int64_t r1, int64_t& k0, int64_t& k1) {
  if (grid.shift[d] >= 0) {
    k0 = r0 >> grid.shift[d];
    k1 = r1 >> grid.shift[d];
  } else if (r0 >= 0 && r1 < grid.width[d]) {
    k0 = k1 = 0;
  } else {
    k0 = floordiv(r0, grid.width[d]);
    k1 = floordiv(r1, grid.width[d]);
  }
}

// A region already validated (TensorMap::access's check).
struct NoCheck {
  bool operator()() const { return true; }
};

class TensorMap {
 public:
  TensorMap();
  ~TensorMap();
  TensorMap(const TensorMap&) = delete;
  TensorMap& operator=(const TensorMap&) = delete;
  // Give the shape of the tensor at `base` (before its first access): its grids are dense.
  void declare(uint64_t base, int rank, const int64_t* shape);
  // Record that `task` accesses region `r` with `access`, appending the tasks it must run
  // after: read-after-write, write-after-write, write-after-read (as runtime/tensormap.py).
  // The common cases (a tile of the tensor's last tiling: a new tile of its only tiling, or
  // the same region again with nothing else overlapping it) are inline, below. R >= 0: the
  // region's rank, known to the caller (loops of a constant trip count).
  template <int R = -1>
  void access(const TensorRegion& r, uint8_t access, uint32_t task, std::vector<uint32_t>& raw,
              std::vector<uint32_t>& waw, std::vector<uint32_t>& war) {
    const RegionRef<1> ref = region_ref(r);
    this->access<R>(state_of(ref), ref, access, task, raw, waw, war);
  }
  // The same, of a region read in place, the tensor's state given (state_for). check: the
  // caller's validation of r (false: r is left out), called before the map changes unless r
  // is a tile of a grid whose every tile lies inside the tensor's declared shape (one it
  // would pass: offsets >= 0, sizes and strides >= 1, inside the shape).
  template <int R = -1, int S, typename Check = NoCheck>
  void access(TensorState& st, const RegionRef<S>& r, uint8_t access, uint32_t task,
              std::vector<uint32_t>& raw, std::vector<uint32_t>& waw,
              std::vector<uint32_t>& war, Check check = Check());
  // A read recorded nowhere: the writers of every entry overlapping r, into raw, as a read's
  // read-after-write edges (what access() would give, without the reader's entry). For a
  // read after every task that writes the tensor: no later write needs it as a reader.
  template <int R = -1>
  void lookup(const TensorRegion& r, std::vector<uint32_t>& raw) {
    const RegionRef<1> ref = region_ref(r);
    lookup<R>(state_of(ref), ref, raw);
  }
  // box (if given) gets, when r lies in one cell of the tensor's only tiling (dense, of unit
  // strides, every tile inside the tensor), that cell's span: every region of unit strides
  // inside it looks up the same writers while the map is as it is (lookup then returns true).
  template <int R = -1, int S, typename Check = NoCheck>
  bool lookup(TensorState& st, const RegionRef<S>& r, std::vector<uint32_t>& raw,
              Check check = Check(), CellBox* box = nullptr);
  // The state of the tensor at `base` (program argument `tensor`, 0xFFFF: none), made if it
  // is new: a caller may keep it for its accesses until reset().
  TensorState* state_for(uint64_t base, uint16_t tensor) { return &state_slow(base, tensor); }
  // Forget every access by a task older than `task` (task_window).
  void gc_before(uint32_t task);
  // A map for a run: one kept from an earlier run (reset, its memory kept: entry chunks,
  // reader arrays, each grid's cells, tensor states), else a new one; give()
  // resets it and keeps it (at most two) for the next run, since fresh pages cost a fault
  // each (~2 us on the benchmark's VM).
  static TensorMap* take();
  static void give(TensorMap* m);
  void reset();
  size_t size() const;

 private:
  static constexpr int kChunkBits = 16;  // (a chunk: 2 MB, one huge page)
  Entry& E(int32_t e) {
    return chunks_[static_cast<size_t>(e) >> kChunkBits][e & ((1 << kChunkBits) - 1)];
  }
  const Entry& E(int32_t e) const {
    return chunks_[static_cast<size_t>(e) >> kChunkBits][e & ((1 << kChunkBits) - 1)];
  }
  template <int R, int S>
  bool fast_cell(const TensorState& st, const RegionRef<S>& r, int64_t& lin) const;
  // access() beyond its inline cases; known: the region's grid when fast_cell classified it
  // (known_entry its cell's entry, lin the cell), else -2.
  void access_general(const Geom& g, bool reads, bool writes, uint32_t task,
                      std::vector<uint32_t>& raw, std::vector<uint32_t>& waw,
                      std::vector<uint32_t>& war, TensorState& st, int32_t known,
                      int32_t known_entry, int64_t lin);
  // A read of a new tile of the tensor's last tiling (cell `lin`) when the tensor has one
  // other tiling and no listed entries: if the tile lies within one cell of that other dense
  // grid (both of unit strides), what access_general would do, without a Geom or a candidate
  // list; false (nothing changed) otherwise.
  void lookup_general(const Geom& g, TensorState& st, std::vector<uint32_t>& raw);
  template <int R, int S>
  bool read_new_tile(TensorState& st, const RegionRef<S>& r, uint32_t task,
                     std::vector<uint32_t>& raw, int64_t lin);
  void add_chunk();
  TensorState& state(uint64_t base);
  template <int S>
  TensorState& state_of(const RegionRef<S>& r);
  TensorState& state_slow(uint64_t base, uint16_t tensor);
  int32_t classify(TensorState& st, const Geom& g, int64_t* width, int64_t* residue);
  int32_t cell_get(const Grid& grid, const Cell& c) const;
  int32_t find_exact(TensorState& st, const Geom& g, int32_t grid, const int64_t* width);
  void insert(TensorState& st, int32_t e, const Geom& g, int32_t grid, const int64_t* width,
              const int64_t* residue);
  int32_t make_grid(TensorState& st, const Geom& g, bool unit, const int64_t* width,
                    const int64_t* residue);
  void remove(TensorState& st, int32_t e);
  void find_in_grid(const TensorState& st, Grid& grid, const Geom& g, bool unit,
                    std::vector<int32_t>& found);
  void list_members(Grid& grid);
  void overlapping(TensorState& st, const Geom& g, bool unit, int32_t own,
                   std::vector<int32_t>& found);
  int32_t new_entry(bool unit);
  int32_t new_in_cell(TensorState& st, int32_t grid, int64_t lin, bool unit, uint32_t writer);
  // Where entry en's writer is kept beside it (its dense cell), else null.
  uint32_t* writer_slot(TensorState& st, const Entry& en) {
    if (en.grid < 0) return nullptr;
    Grid& gr = st.grids[static_cast<size_t>(en.grid)];
    return gr.dense ? &gr.cells[en.lin].writer : nullptr;
  }
  void set_writer(TensorState& st, Entry& en, uint32_t writer) {
    en.writer = writer;
    if (uint32_t* at = writer_slot(st, en)) *at = writer;
  }
  // The writers of the cells of the tensor's only tiling (dense, of unit strides) that a
  // region of unit strides spanning several of them overlaps, into raw; false (nothing
  // added) when the grid holds fewer entries than the box has cells (find_in_grid scans its
  // entries then: their order).
  template <int R, int S>
  bool lookup_box(const Grid& gr, const RegionRef<S>& r, std::vector<uint32_t>& raw);
  // The span of dense cell `lin` of gr (out of line: a memo's miss).
  static void cell_box(const Grid& gr, uint64_t lin, CellBox* box);
  // Entry en's offsets, sizes and strides (of `st`), dimensions 0 .. rank - 1.
  void offsets_of(const TensorState& st, const Entry& en, int64_t* off) const;
  void extent_of(const TensorState& st, const Entry& en, int64_t* size, int64_t* stride) const;
  // Whether entry e (of `st`) overlaps g / is contained in g.
  bool entry_overlaps(const TensorState& st, const Entry& en, const Geom& g) const;
  bool contained_in(const TensorState& st, const Entry& en, const Geom& g) const;
  // Readers.
  void add_reader(Entry& en, uint32_t task);
  void add_reader_slow(Entry& en, uint32_t task);
  void append_readers(const Entry& en, std::vector<uint32_t>& out) const;
  void clear_readers(Entry& en) {
    if (en.ninl == kSpilled)
      spills_[en.inl[0]].clear();
    else
      en.ninl = 0;
  }
  const uint32_t* readers(const Entry& en) const {
    return en.ninl != kSpilled ? en.inl : spills_[en.inl[0]].data();
  }
  size_t nreaders(const Entry& en) const {
    return en.ninl != kSpilled ? en.ninl : spills_[en.inl[0]].size();
  }
  // An access to exactly an entry's region that nothing else on the tensor overlaps: its
  // writer and readers are the only dependencies, and the access replaces or joins them.
  // slot: writer_slot(en). (Inlined: half of a large build's accesses end here.)
  __attribute__((always_inline)) void access_alone(Entry& en, uint32_t* slot, bool reads,
                                                   bool writes, uint32_t task,
                                                   std::vector<uint32_t>& raw,
                                                   std::vector<uint32_t>& waw,
                                                   std::vector<uint32_t>& war) {
    if (writes) {
      if (en.writer != kNoTask) (reads ? raw : waw).push_back(en.writer);
      append_readers(en, war);
      en.writer = task;
      if (slot != nullptr) *slot = task;
      clear_readers(en);
    } else {
      if (en.writer != kNoTask) raw.push_back(en.writer);
      add_reader(en, task);
    }
  }

  std::unordered_map<uint64_t, std::unique_ptr<TensorState>> tensors_;
  // By program argument (TensorRegion::tensor): the state and its base, checked on use (an
  // unknown argument's base is ~0, no tensor's).
  std::vector<std::pair<uint64_t, TensorState*>> by_arg_;
  uint64_t last_base_ = 0;
  TensorState* last_state_ = nullptr;
  std::vector<Entry*> chunks_;  // blocks of 2^kChunkBits entries (block_take)
  int32_t nentries_ = 0;
  std::vector<int32_t> free_;
  std::vector<std::vector<uint32_t>> spills_;
  std::vector<int32_t> free_spills_;
  std::vector<Geom> others_geom_;
  std::vector<int32_t> free_geoms_;
  std::vector<int64_t> grid_offs_;  // kMaxRank per hashed-grid entry
  std::vector<int32_t> free_offs_;
  std::vector<int32_t> cands_;
  // Kept by reset() for the next run: tensor states, grids' cells arrays.
  std::vector<std::unique_ptr<TensorState>> spare_states_;
  std::vector<std::vector<CellSlot>> spare_cells_;
};

// ---------------------------------------------------------------------- inline members

// The tiling the tensor's next access is tried in first (-1: none).
inline void set_last(TensorState& st, int32_t grid) {
  st.last_grid = grid;
  st.last = grid >= 0 ? &st.grids[static_cast<size_t>(grid)] : nullptr;
}

inline uint64_t rotr(uint64_t x, int64_t s) { return (x >> s) | (x << ((64 - s) & 63)); }

template <int S>
inline __attribute__((always_inline)) TensorState& TensorMap::state_of(const RegionRef<S>& r) {
  const size_t i = r.tensor;
  if (i < by_arg_.size() && by_arg_[i].first == r.base)
    return *by_arg_[i].second;
  return state_slow(r.base, r.tensor);
}

// new_entry, new_in_cell and add_reader are forced inline: inlined into the native core's
// region<R> with access<R>, they were left as calls on every new tile and every read.
inline __attribute__((always_inline)) int32_t TensorMap::new_entry(bool unit) {
  int32_t e;
  if (!free_.empty()) {
    e = free_.back();
    free_.pop_back();
  } else {
    e = nentries_++;
    if ((static_cast<size_t>(e) >> kChunkBits) >= chunks_.size()) add_chunk();
  }
  Entry& en = E(e);
  en.lin = 0;
  en.writer = kNoTask;
  en.ninl = 0;
  en.member = 0;
  en.geom = -1;
  en.grid = -1;
  en.alone = true;
  en.unit = unit;
  return e;
}

// A new entry in cell `lin` of dense grid `grid` (empty), written by `writer` (kNoTask: none).
inline __attribute__((always_inline)) int32_t TensorMap::new_in_cell(TensorState& st,
                                                                    int32_t grid, int64_t lin,
                                                                    bool unit,
                                                                    uint32_t writer) {
  Grid& gr = st.grids[static_cast<size_t>(grid)];
  const int32_t e = new_entry(unit);
  Entry& en = E(e);
  en.grid = static_cast<int8_t>(grid);
  en.lin = static_cast<uint32_t>(lin);
  en.writer = writer;
  if (gr.listed) {
    en.member = static_cast<int32_t>(gr.members.size());
    gr.members.push_back(e);
  }
  gr.cells[static_cast<size_t>(lin)] = {e, writer};
  ++gr.live;
  ++st.count;
  return e;
}

inline __attribute__((always_inline)) void TensorMap::add_reader(Entry& en, uint32_t task) {
  if (en.ninl != kSpilled) {
    if (en.ninl > 0 && en.inl[en.ninl - 1] == task) return;
    if (en.ninl < kInlineReaders) {
      en.inl[en.ninl++] = task;
      return;
    }
  } else {
    // Spilled: append to its array (a whole K/V slice read by every tile's task).
    std::vector<uint32_t>& v = spills_[en.inl[0]];
    if (!v.empty() && v.back() == task) return;
    v.push_back(task);
    return;
  }
  add_reader_slow(en, task);
}

inline void TensorMap::append_readers(const Entry& en, std::vector<uint32_t>& out) const {
  const size_t n = nreaders(en);
  if (n == 0) return;
  const uint32_t* r = readers(en);
  out.insert(out.end(), r, r + n);
}

// Whether region r is a tile of the dense grid this tensor used last (the common case: a loop
// walking the tiles of one tiling); then `lin` is its cell. Branch-free over the dimensions:
// the checks accumulate in `bad`.
template <int R, int S>
inline __attribute__((always_inline)) bool TensorMap::fast_cell(const TensorState& st,
                                                                const RegionRef<S>& r,
                                                                int64_t& lin) const {
  if (st.last == nullptr) return false;
  const Grid& gr = *st.last;
  if (!gr.dense || gr.rank != r.rank) return false;
  const int rank = R >= 0 ? R : gr.rank;
  uint64_t bad = 0, l = 0;  // (unsigned: k may be anything when bad)
#pragma GCC unroll 8
  for (int d = 0; d < rank; ++d) {
    const GridDim& g = gr.at[d];
    const uint64_t rel = static_cast<uint64_t>(r.o(d)) - static_cast<uint64_t>(g.start);
    const uint64_t k = rotr(rel * g.inv, g.shift);
    bad |= static_cast<uint64_t>((r.n(d) ^ g.size) | (r.s(d) ^ g.stride)) |
           (k >= static_cast<uint64_t>(g.n));
    l += k * static_cast<uint64_t>(g.mult);
  }
  lin = static_cast<int64_t>(l);
  return bad == 0;
}

// (Out of line: the caller's fast path stays small.)
template <int R, int S>
__attribute__((noinline)) bool TensorMap::read_new_tile(TensorState& st, const RegionRef<S>& r,
                                                        uint32_t task,
                                                        std::vector<uint32_t>& raw,
                                                        int64_t lin) {
  const int32_t own = st.last_grid;
  const Grid& gr = st.grids[static_cast<size_t>(own)];
  if (!gr.unit) return false;
  const Grid* other = nullptr;
  for (const Grid& g : st.grids)
    if (g.alive && &g != &gr) {
      other = &g;
      break;
    }
  if (other == nullptr || !other->dense || !other->unit) return false;
  const Grid& og = *other;
  // find_in_grid's dense single-cell lookup (the region's sizes are gr's, its strides 1).
  const int rank = R >= 0 ? R : gr.rank;
  uint64_t olin = 0;  // (unsigned: k0 may be anything when the tile is not inside)
  bool one = true, inside = true;
#pragma GCC unroll 8
  for (int d = 0; d < rank; ++d) {
    const int64_t r0 = r.o(d) - og.at[d].start;
    int64_t k0, k1;
    cell_span(og, d, r0, r0 + gr.at[d].size - 1, k0, k1);
    one = one && k0 == k1;
    inside = inside && static_cast<uint64_t>(k0) < static_cast<uint64_t>(og.at[d].n);
    olin += static_cast<uint64_t>(k0) * static_cast<uint64_t>(og.at[d].mult);
  }
  if (!one) return false;
  const int32_t c = inside && st.count > 0 ? og.cells[static_cast<size_t>(olin)].entry : -1;
  const int32_t e = new_in_cell(st, own, lin, true, kNoTask);
  if (c >= 0) {
    Entry& ce = E(c);
    if (ce.writer != kNoTask) raw.push_back(ce.writer);
    ce.alone = false;
    E(e).alone = false;
  }
  add_reader(E(e), task);
  return true;
}

template <int R, int S, typename Check>
inline __attribute__((always_inline)) void TensorMap::access(TensorState& st,
                                                             const RegionRef<S>& r,
                                                             uint8_t access, uint32_t task,
                                                             std::vector<uint32_t>& raw,
                                                             std::vector<uint32_t>& waw,
                                                             std::vector<uint32_t>& war,
                                                             Check check) {
  const bool reads = access != static_cast<uint8_t>(Access::Out);
  const bool writes = access != static_cast<uint8_t>(Access::In);
  int64_t lin = 0;
  if (fast_cell<R, S>(st, r, lin)) {
    Grid& gr = *st.last;
    if (!gr.inside && !check()) return;
    CellSlot& cell = gr.cells[static_cast<size_t>(lin)];
    int32_t e = cell.entry;
    if (e < 0 && st.alive_grids == 1 && st.others.empty()) {
      // A new tile of the tensor's only tiling: nothing overlaps it (what the general path
      // would find, without looking).
      e = new_in_cell(st, st.last_grid, lin, gr.unit, writes ? task : kNoTask);
      if (!writes) add_reader(E(e), task);
      return;
    }
    if (e < 0 && !writes && st.alive_grids == 2 && st.others.empty() &&
        read_new_tile<R, S>(st, r, task, raw, lin))
      return;
    if (e >= 0 && E(e).alone) {  // the same region again, nothing else overlapping it
      access_alone(E(e), &cell.writer, reads, writes, task, raw, waw, war);
      return;
    }
    // Not handled here: its classification and cell are known.
    access_general(geom_of(r), reads, writes, task, raw, waw, war, st, st.last_grid, e, lin);
    return;
  }
  if (!check()) return;
  access_general(geom_of(r), reads, writes, task, raw, waw, war, st, -2, -1, 0);
}

// Each row of the box a..b (cells of a dense grid counted from its first, inclusive, a <= b):
// f(its first cell, its cells, the step between them). Rows run along the innermost
// dimension the box spans several cells of; rank >= 1.
template <typename F>
inline __attribute__((always_inline)) void for_rows(const Grid& grid, int rank, const int64_t* a,
                                                    const int64_t* b, F&& f) {
  int in = rank - 1;
  while (in > 0 && a[in] == b[in]) --in;
  int64_t i[kMaxRank], lin = 0;
  for (int d = 0; d < rank; ++d) {
    i[d] = a[d];
    lin += a[d] * grid.at[d].mult;
  }
  const CellSlot* cells = grid.cells.data();
  const int64_t step = grid.at[in].mult, len = b[in] - a[in] + 1;
  while (true) {
    f(cells + lin, len, step);
    int d = in - 1;
    for (; d >= 0; --d) {
      if (i[d] < b[d]) {
        ++i[d];
        lin += grid.at[d].mult;
        break;
      }
      lin -= (i[d] - a[d]) * grid.at[d].mult;
      i[d] = a[d];
    }
    if (d < 0) break;
  }
}

// (Out of line: the caller's fast path stays small.)
template <int R, int S>
__attribute__((noinline)) bool TensorMap::lookup_box(const Grid& gr, const RegionRef<S>& r,
                                                     std::vector<uint32_t>& raw) {
  const int rank = R >= 0 ? R : gr.rank;
  int64_t a[kMaxRank] = {}, b[kMaxRank] = {};  // (zeroed: g++ -O3 sees them read unset)
  uint64_t count = 1;  // the box's cells (saturating, as find_in_grid's)
#pragma GCC unroll 8
  for (int d = 0; d < rank; ++d) {
    const int64_t r0 = r.o(d) - gr.at[d].start;
    cell_span(gr, d, r0, r0 + r.n(d) - 1, a[d], b[d]);
    const uint64_t n = static_cast<uint64_t>(b[d] - a[d] + 1);
    count = (count > (1ull << 40) / (n ? n : 1)) ? (1ull << 41) : count * n;
  }
  if (count > static_cast<uint64_t>(gr.live)) return false;
  for (int d = 0; d < rank; ++d) {
    a[d] = std::max<int64_t>(a[d], 0);
    b[d] = std::min<int64_t>(b[d], gr.at[d].n - 1);
    if (a[d] > b[d]) return true;  // outside the grid: no cell
  }
  for_rows(gr, rank, a, b, [&](const CellSlot* at, int64_t len, int64_t step) {
    for (int64_t j = 0; j < len; ++j) {
      const uint32_t w = at[j * step].writer;
      if (w != kNoTask) raw.push_back(w);
    }
  });
  return true;
}

template <int R, int S, typename Check>
inline __attribute__((always_inline)) bool TensorMap::lookup(TensorState& st,
                                                             const RegionRef<S>& r,
                                                             std::vector<uint32_t>& raw,
                                                             Check check, CellBox* box) {
  if (st.count == 0 || st.last == nullptr) {
    if (check() && st.count > 0) lookup_general(geom_of(r), st, raw);
    return false;
  }
  const Grid& gr = *st.last;
  if (st.alive_grids == 1 && st.others.empty() && gr.dense && gr.unit && gr.rank == r.rank) {
    // A region of unit strides inside one cell of the tensor's only tiling (dense, of unit
    // strides; a tile of it too): that cell's entry is all it overlaps (find_in_grid's
    // single-cell case).
    const int rank = R >= 0 ? R : gr.rank;
    // (No bools: spilled as bytes and reloaded wider, they stalled. n | (n - 1) has its sign
    // bit set when n <= 0.)
    // (outside: k0 is no cell of the grid, or the region is larger than a tile)
    uint64_t lin = 0, span = 0, odd = 0, outside = 0;
#pragma GCC unroll 8
    for (int d = 0; d < rank; ++d) {
      const int64_t r0 = r.o(d) - gr.at[d].start;
      int64_t k0, k1;
      cell_span(gr, d, r0, r0 + r.n(d) - 1, k0, k1);
      const uint64_t n = static_cast<uint64_t>(r.n(d));
      span |= static_cast<uint64_t>(k0 ^ k1);
      odd |= static_cast<uint64_t>(r.s(d) ^ 1) | ((n | (n - 1)) >> 63);
      outside |= (static_cast<uint64_t>(k0) >= static_cast<uint64_t>(gr.at[d].n)) |
                 (n > static_cast<uint64_t>(gr.at[d].size));
      lin += static_cast<uint64_t>(k0) * static_cast<uint64_t>(gr.at[d].mult);
    }
    if ((span | odd) == 0) {
      // (within a tile of the grid: inside the tensor when its tiles are)
      const bool in = gr.inside && outside == 0;
      if (!in && !check()) return false;
      const uint32_t w = outside == 0 ? gr.cells[static_cast<size_t>(lin)].writer : kNoTask;
      if (w != kNoTask) raw.push_back(w);
      if (box == nullptr || !in) return false;
      cell_box(gr, lin, box);
      return true;
    }
    if (!check()) return false;
    // (several cells: o_proj's row of O over its 32 heads' tiles)
    if (odd == 0 && lookup_box<R, S>(gr, r, raw)) return false;
  } else {
    int64_t lin = 0;
    if (!fast_cell<R, S>(st, r, lin)) {
      if (!check()) return false;
    } else {
      if (!gr.inside && !check()) return false;
      const int32_t e = gr.cells[static_cast<size_t>(lin)].entry;
      if (e >= 0 && E(e).alone) {  // the entry of exactly this region, nothing else overlapping
        if (E(e).writer != kNoTask) raw.push_back(E(e).writer);
        return false;
      }
      if (e < 0 && st.alive_grids == 1 && st.others.empty()) return false;  // an empty tile
    }
  }
  lookup_general(geom_of(r), st, raw);
  return false;
}

}  // namespace host
}  // namespace wsp
}  // namespace pto
