// pto-wsp host runtime: the TensorMap (see tensormap.h).
#include "tensormap.h"

#include <stdlib.h>
#include <sys/mman.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>

namespace pto {
namespace wsp {
namespace host {

namespace {

// Floor division and modulo by a positive tile width: most widths are 1 or a power of two
// (shifts and masks); dividing is the costliest step of a lookup otherwise.
inline int64_t floordiv_w(int64_t a, int64_t w) {
  if (w == 1) return a;
  if ((w & (w - 1)) == 0) return a >> __builtin_ctzll(static_cast<unsigned long long>(w));
  int64_t q = a / w;
  if ((a % w != 0) && (a < 0)) --q;
  return q;
}

inline int64_t floormod_w(int64_t a, int64_t w) {
  if (w == 1) return 0;
  if ((w & (w - 1)) == 0) return a & (w - 1);
  const int64_t r = a % w;
  return r < 0 ? r + w : r;
}

// fast_cell's division of a tile's offset by the width along one dimension (GridDim).
// Exact: x = o - start (mod 2^64) times inv is x / odd when odd divides x, and rotating that
// by shift gives x / width when width divides x. Else k < n would mean x = k * width (mod
// 2^64) with k * width <= (n - 1) * width < 2^64 (the cells cover an int64 extent): x
// itself, a multiple.
void set_tile_division(GridDim& g, int64_t width) {
  if (g.n == 1) {  // the offset must be the cell's start
    g.shift = 0;
    g.inv = 1;
    return;
  }
  const uint64_t w = static_cast<uint64_t>(width);
  g.shift = __builtin_ctzll(w);
  const uint64_t odd = w >> g.shift;
  uint64_t inv = odd;  // Newton's iteration: each step doubles the correct low bits (3 to 96)
  for (int i = 0; i < 5; ++i) inv *= 2 - odd * inv;
  g.inv = inv;
}

// Python's a % b for b > 0.
__int128 pymod(__int128 a, __int128 b) {
  __int128 r = a % b;
  return r < 0 ? r + b : r;
}

int64_t gcd64(int64_t a, int64_t b) {
  while (b != 0) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

// The inverse of a modulo m (gcd(a, m) = 1, m > 1).
__int128 inverse(__int128 a, __int128 m) {
  __int128 t = 0, nt = 1, r = m, nr = pymod(a, m);
  while (nr != 0) {
    __int128 q = r / nr;
    __int128 tmp = t - q * nt;
    t = nt;
    nt = tmp;
    tmp = r - q * nr;
    r = nr;
    nr = tmp;
  }
  return pymod(t, m);
}

bool is_unit(const Geom& g) {
  for (int d = 0; d < g.rank; ++d)
    if (g.stride[d] != 1) return false;
  return true;
}

bool is_empty(const Geom& g) {
  for (int d = 0; d < g.rank; ++d)
    if (g.size[d] == 0) return true;
  return false;
}

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}

// splitmix64's finalizer: the flat indexes take the low bits.
uint64_t finish(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

bool progressions_intersect(int64_t o1, int64_t n1, int64_t s1, int64_t o2, int64_t n2,
                            int64_t s2) {
  if (n1 <= 0 || n2 <= 0) return false;
  const __int128 lo = o1 > o2 ? o1 : o2;
  const __int128 e1 = static_cast<__int128>(o1) + static_cast<__int128>(n1 - 1) * s1;
  const __int128 e2 = static_cast<__int128>(o2) + static_cast<__int128>(n2 - 1) * s2;
  const __int128 hi = e1 < e2 ? e1 : e2;
  if (lo > hi) return false;
  if (s1 == s2) return pymod(static_cast<__int128>(o2) - o1, s1) == 0;
  if (n1 == 1) return pymod(static_cast<__int128>(o1) - o2, s2) == 0;
  if (n2 == 1) return pymod(static_cast<__int128>(o2) - o1, s1) == 0;
  const int64_t g = gcd64(s1, s2);
  const __int128 diff = static_cast<__int128>(o2) - o1;
  if (diff % g != 0) return false;
  const __int128 m = s2 / g;
  const __int128 t = m > 1 ? pymod(pymod(diff / g, m) * inverse(s1 / g, m), m) : 0;
  const __int128 x0 = static_cast<__int128>(o1) + s1 * t;
  const __int128 lcm = static_cast<__int128>(s1) * m;
  return lo + pymod(x0 - lo, lcm) <= hi;
}

bool geom_equal(const Geom& a, const Geom& b) {
  if (a.base != b.base || a.rank != b.rank) return false;
  for (int d = 0; d < a.rank; ++d)
    if (a.off[d] != b.off[d] || a.size[d] != b.size[d] || a.stride[d] != b.stride[d])
      return false;
  return true;
}

bool overlaps(const Geom& a, const Geom& b) {
  if (a.base != b.base) return false;
  if (a.rank != b.rank) throw std::runtime_error("regions of one tensor with different ranks");
  if (is_empty(a) || is_empty(b)) return false;
  for (int d = 0; d < a.rank; ++d) {
    const int64_t o1 = a.off[d], n1 = a.size[d], s1 = a.stride[d];
    const int64_t o2 = b.off[d], n2 = b.size[d], s2 = b.stride[d];
    if (s1 == 1 && s2 == 1) {
      if (o1 + n1 <= o2 || o2 + n2 <= o1) return false;
    } else if (!progressions_intersect(o1, n1, s1, o2, n2, s2)) {
      return false;
    }
  }
  return true;
}

bool contains(const Geom& a, const Geom& b) {
  if (a.base != b.base || a.rank != b.rank) return false;
  if (is_empty(b)) return true;
  if (is_empty(a)) return false;
  for (int d = 0; d < a.rank; ++d) {
    const int64_t o1 = a.off[d], n1 = a.size[d], s1 = a.stride[d];
    const int64_t o2 = b.off[d], n2 = b.size[d], s2 = b.stride[d];
    const int64_t last2 = o2 + (n2 - 1) * s2;
    if (o2 < o1 || last2 > o1 + (n1 - 1) * s1 || (o2 - o1) % s1 != 0) return false;
    if (n2 > 1 && s2 % s1 != 0) return false;
  }
  return true;
}

uint64_t geom_hash(const Geom& g) {
  uint64_t h = g.base * 0x9E3779B97F4A7C15ull;
  for (int d = 0; d < g.rank; ++d) {
    h = mix(h, static_cast<uint64_t>(g.off[d]));
    h = mix(h, static_cast<uint64_t>(g.size[d]) * 31u + static_cast<uint64_t>(g.stride[d]));
  }
  return finish(h);
}

uint64_t cell_hash(const Cell& c, int rank) {
  uint64_t h = 0x51ED27u;
  for (int d = 0; d < rank; ++d) h = mix(h, static_cast<uint64_t>(c.k[d]));
  return finish(h);
}

namespace {
std::mutex g_blocks_m;
std::vector<std::pair<size_t, void*>> g_blocks;
}  // namespace

void* block_take(size_t bytes, bool huge) {
  {
    std::lock_guard<std::mutex> g(g_blocks_m);
    for (size_t i = 0; i < g_blocks.size(); ++i) {
      if (g_blocks[i].first == bytes) {
        void* p = g_blocks[i].second;
        g_blocks[i] = g_blocks.back();
        g_blocks.pop_back();
        return p;
      }
    }
  }
  // A huge block is 2 MB-aligned and asked for as transparent huge pages: a fresh block then
  // costs one page fault per 2 MB, not per 4 kB, but each page is zeroed whole when first
  // touched (a small run touching little of its block pays for all of it).
  constexpr size_t kHuge = size_t(2) << 20;
  const size_t whole = (bytes + kHuge - 1) / kHuge * kHuge;
  void* p = huge ? aligned_alloc(kHuge, whole) : malloc(bytes);
  if (p == nullptr) throw std::bad_alloc();
  if (huge) madvise(p, whole, MADV_HUGEPAGE);
  return p;
}

void* block_take(size_t bytes) { return block_take(bytes, bytes >= (size_t(2) << 20)); }

void block_give(void* p, size_t bytes, size_t keep) {
  if (p == nullptr) return;
  {
    std::lock_guard<std::mutex> g(g_blocks_m);
    size_t n = 0;
    for (const auto& b : g_blocks) n += b.first == bytes;
    if (n < keep) {
      g_blocks.push_back({bytes, p});
      return;
    }
  }
  free(p);
}

namespace {
constexpr size_t kChunkBytes = sizeof(Entry) << 16;
constexpr size_t kKeepChunks = 16;  // 32 MB of entries (a 200k-task run needs ~6)
}  // namespace

TensorMap::TensorMap() = default;

TensorMap::~TensorMap() {
  for (Entry* c : chunks_) block_give(c, kChunkBytes, kKeepChunks);
}

namespace {
std::mutex g_maps_m;
std::vector<TensorMap*> g_maps;
constexpr size_t kKeepMaps = 2;
constexpr size_t kKeepSpareVectors = 64;
constexpr size_t kKeepSpills = size_t(1) << 16;

// A kept vector with room for `n` elements: the smallest such, else the largest (moved out).
std::vector<CellSlot> spare_for(std::vector<std::vector<CellSlot>>& spares, size_t n) {
  size_t best = spares.size();
  for (size_t i = 0; i < spares.size(); ++i) {
    const size_t c = spares[i].capacity();
    if (best == spares.size()) {
      best = i;
      continue;
    }
    const size_t b = spares[best].capacity();
    if ((c >= n && (b < n || c < b)) || (b < n && c > b)) best = i;
  }
  std::vector<CellSlot> v;
  if (best < spares.size()) {
    v.swap(spares[best]);
    spares[best].swap(spares.back());
    spares.pop_back();
  }
  return v;
}
}  // namespace

TensorMap* TensorMap::take() {
  {
    std::lock_guard<std::mutex> g(g_maps_m);
    if (!g_maps.empty()) {
      TensorMap* m = g_maps.back();
      g_maps.pop_back();
      return m;
    }
  }
  return new TensorMap();
}

void TensorMap::give(TensorMap* m) {
  if (m == nullptr) return;
  m->reset();
  {
    std::lock_guard<std::mutex> g(g_maps_m);
    if (g_maps.size() < kKeepMaps) {
      g_maps.push_back(m);
      return;
    }
  }
  delete m;
}

void TensorMap::reset() {
  auto keep = [](std::vector<std::vector<CellSlot>>& spares, std::vector<CellSlot>& v) {
    if (v.capacity() == 0) return;
    v.clear();
    if (spares.size() < kKeepSpareVectors) {
      spares.emplace_back();
      spares.back().swap(v);
    }
  };
  for (auto& kv : tensors_) {
    TensorState& st = *kv.second;
    for (Grid& gr : st.grids) keep(spare_cells_, gr.cells);
    st.rank = -1;
    st.has_shape = false;
    st.count = 0;
    st.grids.clear();
    st.alive_grids = 0;
    set_last(st, -1);
    st.others.clear();
    st.others_exact = FlatIndex();
    if (spare_states_.size() < kKeepSpareVectors) spare_states_.push_back(std::move(kv.second));
  }
  tensors_.clear();
  by_arg_.clear();
  last_base_ = 0;
  last_state_ = nullptr;
  nentries_ = 0;
  free_.clear();
  if (spills_.size() > kKeepSpills) spills_.resize(kKeepSpills);
  free_spills_.clear();
  for (size_t i = spills_.size(); i-- > 0;) {
    spills_[i].clear();
    free_spills_.push_back(static_cast<int32_t>(i));
  }
  others_geom_.clear();
  free_geoms_.clear();
  grid_offs_.clear();
  free_offs_.clear();
  cands_.clear();
}

// Whether every cell's tile of dense grid gr lies inside the tensor's declared shape.
static bool tiles_inside(const TensorState& st, const Grid& gr) {
  bool inside = true;
  for (int d = 0; d < gr.rank; ++d) {
    const GridDim& g = gr.at[d];
    const __int128 last = static_cast<__int128>(g.start) +
                          static_cast<__int128>(g.n - 1) * gr.width[d] +
                          static_cast<__int128>(g.size - 1) * g.stride;
    inside = inside && g.start >= 0 && g.size >= 1 && g.stride >= 1 && last < st.shape[d];
  }
  return inside;
}

void TensorMap::declare(uint64_t base, int rank, const int64_t* shape) {
  TensorState& st = state(base);
  if (st.count > 0 || rank > kMaxRank) return;
  st.has_shape = true;
  for (int d = 0; d < kMaxRank; ++d) st.shape[d] = d < rank ? shape[d] : 1;
}


TensorState& TensorMap::state_slow(uint64_t base, uint16_t tensor) {
  const size_t i = tensor;
  TensorState& st = state(base);
  if (tensor != 0xFFFF) {
    if (i >= by_arg_.size()) by_arg_.resize(i + 1, {~uint64_t(0), nullptr});
    by_arg_[i] = {base, &st};
  }
  return st;
}

TensorState& TensorMap::state(uint64_t base) {
  if (last_state_ != nullptr && last_base_ == base) return *last_state_;
  auto it = tensors_.find(base);
  if (it == tensors_.end()) {
    std::unique_ptr<TensorState> st;
    if (!spare_states_.empty()) {  // a kept one: its grids vector keeps its room
      st = std::move(spare_states_.back());
      spare_states_.pop_back();
    } else {
      st = std::make_unique<TensorState>();
    }
    it = tensors_.emplace(base, std::move(st)).first;
  }
  last_base_ = base;
  last_state_ = it->second.get();
  return *last_state_;
}

void TensorMap::cell_box(const Grid& gr, uint64_t lin, CellBox* box) {
  for (int d = 0; d < gr.rank; ++d) {
    const GridDim& g = gr.at[d];
    box->lo[d] = g.start + static_cast<int64_t>(lin / static_cast<uint64_t>(g.mult)) % g.n *
                               gr.width[d];
    box->width[d] = gr.width[d];
  }
}

void TensorMap::offsets_of(const TensorState& st, const Entry& en, int64_t* off) const {
  if (en.grid < 0) {
    const Geom& g = others_geom_[static_cast<size_t>(en.geom)];
    for (int d = 0; d < g.rank; ++d) off[d] = g.off[d];
    return;
  }
  const Grid& gr = st.grids[static_cast<size_t>(en.grid)];
  if (!gr.dense) {
    const int64_t* kept = &grid_offs_[static_cast<size_t>(en.geom) * kMaxRank];
    for (int d = 0; d < gr.rank; ++d) off[d] = kept[d];
    return;
  }
  for (int d = 0; d < gr.rank; ++d) {
    const GridDim& g = gr.at[d];
    off[d] = g.start + (static_cast<int64_t>(en.lin) / g.mult) % g.n * gr.width[d];
  }
}

void TensorMap::add_chunk() {
  static_assert((size_t(1) << 16) == (size_t(1) << kChunkBits), "kChunkBytes");
  // The first chunk in 4 kB pages, touched as a small run fills it; the next ones, which a
  // large run fills, in huge pages (a chunk is 2 MB, one huge page).
  chunks_.push_back(static_cast<Entry*>(block_take(kChunkBytes, !chunks_.empty())));
}




// (add_reader's case of full inline readers: they move to a spill array.)
void TensorMap::add_reader_slow(Entry& en, uint32_t task) {
  int32_t sp;
  if (!free_spills_.empty()) {
    sp = free_spills_.back();
    free_spills_.pop_back();
  } else {
    sp = static_cast<int32_t>(spills_.size());
    spills_.emplace_back();
  }
  std::vector<uint32_t>& v = spills_[static_cast<size_t>(sp)];
  v.assign(en.inl, en.inl + en.ninl);
  v.push_back(task);
  en.inl[0] = static_cast<uint32_t>(sp);
  en.ninl = kSpilled;
}


void TensorMap::extent_of(const TensorState& st, const Entry& en, int64_t* size,
                          int64_t* stride) const {
  if (en.grid >= 0) {
    const Grid& gr = st.grids[static_cast<size_t>(en.grid)];
    for (int d = 0; d < gr.rank; ++d) {
      size[d] = gr.at[d].size;
      stride[d] = gr.at[d].stride;
    }
    return;
  }
  const Geom& og = others_geom_[static_cast<size_t>(en.geom)];
  for (int d = 0; d < og.rank; ++d) {
    size[d] = og.size[d];
    stride[d] = og.stride[d];
  }
}

bool TensorMap::entry_overlaps(const TensorState& st, const Entry& en, const Geom& g) const {
  int64_t size[kMaxRank], stride[kMaxRank];
  extent_of(st, en, size, stride);
  int64_t off[kMaxRank];
  offsets_of(st, en, off);
  for (int d = 0; d < g.rank; ++d) {
    const int64_t o1 = off[d], n1 = size[d], s1 = stride[d];
    const int64_t o2 = g.off[d], n2 = g.size[d], s2 = g.stride[d];
    if (s1 == 1 && s2 == 1) {
      if (o1 + n1 <= o2 || o2 + n2 <= o1) return false;
    } else if (!progressions_intersect(o1, n1, s1, o2, n2, s2)) {
      return false;
    }
  }
  return true;
}

bool TensorMap::contained_in(const TensorState& st, const Entry& en, const Geom& g) const {
  int64_t size[kMaxRank], stride[kMaxRank];
  extent_of(st, en, size, stride);
  // contains(g, entry): entries are never empty, nor is g (access returns early for it).
  int64_t off[kMaxRank];
  offsets_of(st, en, off);
  for (int d = 0; d < g.rank; ++d) {
    const int64_t o1 = g.off[d], n1 = g.size[d], s1 = g.stride[d];
    const int64_t o2 = off[d], n2 = size[d], s2 = stride[d];
    const int64_t last2 = o2 + (n2 - 1) * s2;
    if (o2 < o1 || last2 > o1 + (n1 - 1) * s1 || (o2 - o1) % s1 != 0) return false;
    if (n2 > 1 && s2 % s1 != 0) return false;
  }
  return true;
}

int32_t TensorMap::classify(TensorState& st, const Geom& g, int64_t* width, int64_t* residue) {
  for (int d = 0; d < g.rank; ++d) {
    width[d] = g.size[d] * g.stride[d];
    residue[d] = floormod_w(g.off[d], width[d]);
  }
  auto same = [&](const Grid& grid) {
    if (!grid.alive) return false;
    for (int d = 0; d < g.rank; ++d)
      if (grid.at[d].size != g.size[d] || grid.at[d].stride != g.stride[d] ||
          grid.residue[d] != residue[d])
        return false;
    return true;
  };
  if (st.last_grid >= 0 && same(st.grids[st.last_grid])) return st.last_grid;
  for (size_t i = 0; i < st.grids.size(); ++i) {
    if (same(st.grids[i])) {
      set_last(st, static_cast<int32_t>(i));
      return st.last_grid;
    }
  }
  return -1;
}

int32_t TensorMap::cell_get(const Grid& grid, const Cell& c) const {
  if (grid.dense) {
    int64_t lin = 0;
    for (int d = 0; d < grid.rank; ++d) {
      const int64_t k = c.k[d] - grid.lo[d];
      if (k < 0 || k >= grid.at[d].n) return -1;
      lin += k * grid.at[d].mult;
    }
    return grid.cells[static_cast<size_t>(lin)].entry;
  }
  const int rank = grid.rank;
  return grid.hashed.find(cell_hash(c, rank), [&](int32_t e) {
    const int64_t* off = &grid_offs_[static_cast<size_t>(E(e).geom) * kMaxRank];
    for (int d = 0; d < rank; ++d)
      if (off[d] != c.k[d] * grid.width[d] + grid.residue[d]) return false;
    return true;
  });
}

int32_t TensorMap::find_exact(TensorState& st, const Geom& g, int32_t grid,
                              const int64_t* width) {
  if (grid >= 0) {
    // An entry of this grid in the region's cell has the region's geometry.
    Cell c;
    for (int d = 0; d < g.rank; ++d) c.k[d] = floordiv_w(g.off[d], width[d]);
    const int32_t e = cell_get(st.grids[grid], c);
    if (e >= 0) return e;
  }
  if (!st.others.empty()) {
    return st.others_exact.find(geom_hash(g), [&](int32_t e) {
      return geom_equal(others_geom_[static_cast<size_t>(E(e).geom)], g);
    });
  }
  return -1;
}

int32_t TensorMap::make_grid(TensorState& st, const Geom& g, bool unit, const int64_t* width,
                             const int64_t* residue) {
  // A dead grid of the same tiling keeps its (empty) cells: revive it; else reuse a dead slot.
  int32_t slot = -1;
  for (size_t i = 0; i < st.grids.size() && slot < 0; ++i) {
    const Grid& gr = st.grids[i];
    if (gr.alive) continue;
    bool same = gr.rank == g.rank;
    for (int d = 0; d < g.rank && same; ++d)
      same = gr.at[d].size == g.size[d] && gr.at[d].stride == g.stride[d] &&
             gr.residue[d] == residue[d];
    if (same) slot = static_cast<int32_t>(i);
  }
  if (slot >= 0) {
    Grid& gr = st.grids[slot];
    gr.alive = true;
    ++st.alive_grids;
    return slot;
  }
  if (st.grids.size() < static_cast<size_t>(2 * kMaxGrids)) {
    st.grids.emplace_back();
    set_last(st, st.last_grid);  // (the grids may have moved)
    slot = static_cast<int32_t>(st.grids.size() - 1);
  } else {
    for (size_t i = 0; i < st.grids.size() && slot < 0; ++i)
      if (!st.grids[i].alive) slot = static_cast<int32_t>(i);
  }
  Grid& gr = st.grids[slot];
  gr.alive = true;
  gr.unit = unit;
  gr.rank = g.rank;
  gr.members.clear();
  gr.listed = true;
  gr.live = 0;
  for (int d = 0; d < g.rank; ++d) {
    gr.at[d].size = g.size[d];
    gr.at[d].stride = g.stride[d];
    gr.width[d] = width[d];
    gr.residue[d] = residue[d];
    const uint64_t w = static_cast<uint64_t>(width[d]);
    gr.shift[d] = static_cast<int8_t>(w > 0 && (w & (w - 1)) == 0 ? __builtin_ctzll(w) : -1);
  }
  gr.dense = false;
  gr.inside = false;
  gr.cells.clear();
  gr.hashed = FlatIndex();
  if (st.has_shape) {
    // The cells covering indices 0 .. shape - 1 of every dimension.
    int64_t total = 1;
    for (int d = g.rank - 1; d >= 0; --d) {
      gr.lo[d] = floordiv_w(-residue[d], width[d]);
      gr.at[d].start = gr.lo[d] * width[d] + residue[d];
      const int64_t hi = floordiv_w(st.shape[d] - 1 - residue[d], width[d]);
      gr.at[d].n = hi >= gr.lo[d] ? hi - gr.lo[d] + 1 : 1;
      gr.at[d].mult = total;
      total = total > kMaxDenseCells ? total : total * gr.at[d].n;
      set_tile_division(gr.at[d], width[d]);
    }
    if (total <= kMaxDenseCells) {
      gr.dense = true;
      gr.inside = tiles_inside(st, gr);
      gr.listed = false;
      // Memory kept from an earlier run where there is (its pages are in already).
      const size_t n = static_cast<size_t>(total);
      if (gr.cells.capacity() < n && !spare_cells_.empty()) {
        std::vector<CellSlot> v = spare_for(spare_cells_, n);
        if (v.capacity() > gr.cells.capacity()) gr.cells.swap(v);
      }
      gr.cells.assign(n, CellSlot{-1, kNoTask});
    }
  }
  ++st.alive_grids;
  return slot;
}

void TensorMap::insert(TensorState& st, int32_t e, const Geom& g, int32_t grid,
                       const int64_t* width, const int64_t* residue) {
  ++st.count;
  {
    Entry& en = E(e);
    if (grid < 0 && st.alive_grids < kMaxGrids) grid = make_grid(st, g, en.unit, width, residue);
  }
  Entry& en = E(e);
  if (grid >= 0) {
    Grid& gr = st.grids[grid];
    en.grid = static_cast<int8_t>(grid);
    Cell cell;
    for (int d = 0; d < g.rank; ++d) cell.k[d] = floordiv_w(g.off[d], width[d]);
    bool placed = false;
    if (gr.dense) {
      int64_t lin = 0;
      bool inside = true;
      for (int d = 0; d < gr.rank; ++d) {
        const int64_t k = cell.k[d] - gr.lo[d];
        inside = inside && k >= 0 && k < gr.at[d].n;
        lin += k * gr.at[d].mult;
      }
      if (inside) {
        en.lin = static_cast<uint32_t>(lin);
        gr.cells[static_cast<size_t>(lin)] = {e, en.writer};
        placed = true;
      }
    } else {
      const uint64_t h = cell_hash(cell, gr.rank);
      en.lin = static_cast<uint32_t>(h);
      gr.hashed.insert(h, e);
      if (!free_offs_.empty()) {
        en.geom = free_offs_.back();
        free_offs_.pop_back();
      } else {
        en.geom = static_cast<int32_t>(grid_offs_.size() / kMaxRank);
        grid_offs_.resize(grid_offs_.size() + kMaxRank);
      }
      std::copy(g.off, g.off + kMaxRank, &grid_offs_[static_cast<size_t>(en.geom) * kMaxRank]);
      placed = true;
    }
    if (placed) {
      if (gr.listed) {
        en.member = static_cast<int32_t>(gr.members.size());
        gr.members.push_back(e);
      }
      ++gr.live;
      return;
    }
    // A region outside the declared shape: keep it in the scanned list instead.
    if (gr.live == 0) {
      gr.alive = false;
      --st.alive_grids;
    }
  }
  en.grid = -1;
  if (!free_geoms_.empty()) {
    en.geom = free_geoms_.back();
    free_geoms_.pop_back();
    others_geom_[static_cast<size_t>(en.geom)] = g;
  } else {
    en.geom = static_cast<int32_t>(others_geom_.size());
    others_geom_.push_back(g);
  }
  const uint64_t h = geom_hash(g);
  en.lin = static_cast<uint32_t>(h);
  en.member = static_cast<int32_t>(st.others.size());
  st.others.push_back(e);
  st.others_exact.insert(h, e);
}

void TensorMap::remove(TensorState& st, int32_t e) {
  Entry& en = E(e);
  --st.count;
  std::vector<int32_t>* members = nullptr;
  if (en.grid >= 0) {
    Grid& gr = st.grids[en.grid];
    if (gr.dense) {
      gr.cells[static_cast<size_t>(en.lin)] = {-1, kNoTask};
    } else {
      gr.hashed.erase(en.lin, e);
      free_offs_.push_back(en.geom);
      en.geom = -1;
    }
    if (gr.listed) members = &gr.members;
    if (--gr.live == 0) {
      // Free the slot for another tiling (its cells stay allocated for a revival).
      gr.alive = false;
      --st.alive_grids;
      if (st.last_grid == en.grid) set_last(st, -1);
    }
  } else {
    st.others_exact.erase(en.lin, e);
    members = &st.others;
    free_geoms_.push_back(en.geom);
    en.geom = -1;
  }
  if (members != nullptr) {
    const int32_t last = members->back();
    (*members)[static_cast<size_t>(en.member)] = last;
    E(last).member = en.member;
    members->pop_back();
  }
  if (en.ninl == kSpilled) {
    spills_[en.inl[0]].clear();
    free_spills_.push_back(static_cast<int32_t>(en.inl[0]));
  }
  en.ninl = 0;
  free_.push_back(e);
}

void TensorMap::list_members(Grid& grid) {
  if (grid.listed) return;
  grid.members.clear();
  grid.members.reserve(static_cast<size_t>(grid.live));
  for (const CellSlot& c : grid.cells) {
    const int32_t e = c.entry;
    if (e < 0) continue;
    E(e).member = static_cast<int32_t>(grid.members.size());
    grid.members.push_back(e);
  }
  grid.listed = true;
}

void TensorMap::find_in_grid(const TensorState& st, Grid& grid, const Geom& g, bool unit,
                             std::vector<int32_t>& found) {
  const int rank = g.rank;
  const bool exact = grid.unit && unit;
  if (grid.dense) {
    // Relative to the first cell's start (lo * width + residue): the region's first and last
    // cell along d, shifts for power-of-two widths, no division for a region inside one
    // cell's span; a region within one cell is looked up at once.
    int64_t lin = 0;
    bool one = true, inside = true;
    for (int d = 0; d < rank && one; ++d) {
      const int64_t r0 = g.off[d] - grid.at[d].start;
      int64_t k0, k1;
      cell_span(grid, d, r0, r0 + (g.size[d] - 1) * g.stride[d], k0, k1);
      one = k0 == k1;
      inside = inside && static_cast<uint64_t>(k0) < static_cast<uint64_t>(grid.at[d].n);
      lin += k0 * grid.at[d].mult;
    }
    if (one) {
      if (!inside) return;
      const int32_t e = grid.cells[static_cast<size_t>(lin)].entry;
      if (e >= 0 && (exact || entry_overlaps(st, E(e), g))) found.push_back(e);
      return;
    }
  }
  Cell k0{}, k1{};
  bool single = true;
  for (int d = 0; d < rank; ++d) {
    const int64_t last = g.off[d] + (g.size[d] - 1) * g.stride[d];
    if (grid.dense && grid.at[d].n == 1) {
      // One cell along d: a region inside it needs no division.
      const int64_t start = grid.lo[d] * grid.width[d] + grid.residue[d];
      if (g.off[d] >= start && last < start + grid.width[d]) {
        k0.k[d] = k1.k[d] = grid.lo[d];
        continue;
      }
    }
    k0.k[d] = floordiv_w(g.off[d] - grid.residue[d], grid.width[d]);
    k1.k[d] = floordiv_w(last - grid.residue[d], grid.width[d]);
    single = single && k0.k[d] == k1.k[d];
  }
  auto lookup = [&](const Cell& c) {
    const int32_t e = cell_get(grid, c);
    if (e >= 0 && (exact || entry_overlaps(st, E(e), g))) found.push_back(e);
  };
  if (single) {
    lookup(k0);
    return;
  }
  // How many cells the bounding box covers (saturating).
  uint64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    const uint64_t n = static_cast<uint64_t>(k1.k[d] - k0.k[d] + 1);
    count = (count > (1ull << 40) / (n ? n : 1)) ? (1ull << 41) : count * n;
  }
  if (count <= static_cast<uint64_t>(grid.live)) {
    Cell c = k0;
    if (grid.dense && exact) {
      // Walk the dense cells row by row: the cells of the box inside the grid.
      int64_t a[kMaxRank], b[kMaxRank];
      for (int d = 0; d < rank; ++d) {
        a[d] = std::max<int64_t>(k0.k[d] - grid.lo[d], 0);
        b[d] = std::min<int64_t>(k1.k[d] - grid.lo[d], grid.at[d].n - 1);
        if (a[d] > b[d]) return;
      }
      for_rows(grid, rank, a, b, [&](const CellSlot* at, int64_t len, int64_t step) {
        for (int64_t j = 0; j < len; ++j) {
          const int32_t e = at[j * step].entry;
          if (e >= 0) found.push_back(e);
        }
      });
      return;
    }
    while (true) {
      lookup(c);
      int d = rank - 1;
      while (d >= 0) {
        if (++c.k[d] <= k1.k[d]) break;
        c.k[d] = k0.k[d];
        --d;
      }
      if (d < 0) break;
    }
  } else {
    list_members(grid);
    for (int32_t e : grid.members)
      if (entry_overlaps(st, E(e), g)) found.push_back(e);
  }
}

void TensorMap::overlapping(TensorState& st, const Geom& g, bool unit, int32_t own,
                            std::vector<int32_t>& found) {
  for (size_t i = 0; i < st.grids.size(); ++i)
    if (st.grids[i].alive && static_cast<int32_t>(i) != own)
      find_in_grid(st, st.grids[i], g, unit, found);
  for (int32_t e : st.others)
    if (entry_overlaps(st, E(e), g)) found.push_back(e);
}


void TensorMap::access_general(const Geom& g, bool reads, bool writes, uint32_t task,
                               std::vector<uint32_t>& raw, std::vector<uint32_t>& waw,
                               std::vector<uint32_t>& war, TensorState& st, int32_t known,
                               int32_t known_entry, int64_t lin) {
  if (is_empty(g)) return;
  if (st.rank != g.rank) {
    if (st.rank >= 0)
      throw std::runtime_error("a tensor accessed with regions of rank " + std::to_string(g.rank) +
                               " after rank " + std::to_string(st.rank));
    st.rank = g.rank;
  }
  int64_t width[kMaxRank], residue[kMaxRank];
  int32_t grid, entry;
  // A tile of the tensor's last grid (fast_cell), not handled above: its classification and
  // cell are known (a new entry goes straight to its cell); an entry of the scanned list may
  // still have its geometry. (width and residue are only read by insert after a classify.)
  if (known >= 0) {
    grid = known;
    entry = known_entry;
    if (entry < 0 && !st.others.empty())
      entry = st.others_exact.find(geom_hash(g), [&](int32_t e) {
        return geom_equal(others_geom_[static_cast<size_t>(E(e).geom)], g);
      });
  } else {
    grid = classify(st, g, width, residue);
    entry = find_exact(st, g, grid, width);
  }
  if (entry >= 0 && E(entry).alone) {  // the same region again, nothing else overlapping it
    access_alone(E(entry), writer_slot(st, E(entry)), reads, writes, task, raw, waw, war);
    return;
  }
  const bool unit = is_unit(g);
  std::vector<int32_t>& cands = cands_;
  cands.clear();
  if (st.count > 0) overlapping(st, g, unit, grid, cands);
  if (entry >= 0 && E(entry).grid >= 0) cands.push_back(entry);
  if (writes) {
    std::vector<uint32_t>& dst = reads ? raw : waw;
    for (int32_t c : cands) {
      const Entry& ce = E(c);
      if (ce.writer != kNoTask) dst.push_back(ce.writer);
      append_readers(ce, war);
    }
    bool kept = false, removed = false;
    for (int32_t c : cands) {
      if (c == entry) continue;
      if (contained_in(st, E(c), g)) {
        remove(st, c);
        removed = true;
      } else {
        E(c).alone = false;
        kept = true;
      }
    }
    if (entry < 0) {
      if (known >= 0 && !removed) {
        entry = new_in_cell(st, known, lin, unit, kNoTask);
      } else {
        entry = new_entry(unit);
        // The grid may have died with the entries just removed: classify again.
        insert(st, entry, g, removed ? classify(st, g, width, residue) : grid, width, residue);
      }
    }
    Entry& en = E(entry);
    if (kept) en.alone = false;
    set_writer(st, en, task);
    clear_readers(en);
  } else {
    for (int32_t c : cands)
      if (E(c).writer != kNoTask) raw.push_back(E(c).writer);
    if (entry < 0) {
      if (known >= 0) {
        entry = new_in_cell(st, known, lin, unit, kNoTask);
      } else {
        entry = new_entry(unit);
        insert(st, entry, g, grid, width, residue);
      }
      if (!cands.empty()) {
        E(entry).alone = false;
        for (int32_t c : cands) E(c).alone = false;
      }
    }
    add_reader(E(entry), task);
  }
}

void TensorMap::lookup_general(const Geom& g, TensorState& st,
                               std::vector<uint32_t>& raw) {
  if (is_empty(g)) return;
  if (st.rank != g.rank)
    throw std::runtime_error("a tensor accessed with regions of rank " + std::to_string(g.rank) +
                             " after rank " + std::to_string(st.rank));
  std::vector<int32_t>& cands = cands_;
  cands.clear();
  overlapping(st, g, is_unit(g), -1, cands);
  for (int32_t c : cands)
    if (E(c).writer != kNoTask) raw.push_back(E(c).writer);
}

void TensorMap::gc_before(uint32_t task) {
  for (auto& kv : tensors_) {
    TensorState& st = *kv.second;
    std::vector<int32_t> all(st.others);
    for (Grid& gr : st.grids) {
      if (!gr.alive) continue;
      list_members(gr);
      all.insert(all.end(), gr.members.begin(), gr.members.end());
    }
    for (int32_t e : all) {
      Entry& en = E(e);
      if (en.writer != kNoTask && en.writer < task) set_writer(st, en, kNoTask);
      if (nreaders(en) > 0 && readers(en)[0] < task) {
        if (en.ninl == kSpilled) {
          std::vector<uint32_t>& v = spills_[en.inl[0]];
          v.erase(v.begin(), std::lower_bound(v.begin(), v.end(), task));
        } else {
          const uint32_t* first = std::lower_bound(en.inl, en.inl + en.ninl, task);
          const uint8_t drop = static_cast<uint8_t>(first - en.inl);
          for (int i = drop; i < en.ninl; ++i) en.inl[i - drop] = en.inl[i];
          en.ninl = static_cast<uint8_t>(en.ninl - drop);
        }
      }
      if (en.writer == kNoTask && nreaders(en) == 0) remove(st, e);
    }
  }
}

size_t TensorMap::size() const {
  size_t n = 0;
  for (const auto& kv : tensors_) n += static_cast<size_t>(kv.second->count);
  return n;
}

}  // namespace host
}  // namespace wsp
}  // namespace pto
